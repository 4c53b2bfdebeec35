// Declares GraphCompiler, the private class behind compile_graph (graph_compiler.hpp), and the
// small helpers its two source files share: graph_compiler.cpp (the walk, values, reorders, fusion
// chains) and graph_compiler_ops.cpp (one oneDNN primitive builder per op family).
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "compressed_matmul.hpp"
#include "config.hpp"
#include "graph.hpp"
#include "int8_patterns.hpp"
#include "patterns.hpp"

namespace vireo::cpu_plugin::detail {

using dnnl::algorithm;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;
using Dims = dnnl::memory::dims;

inline constexpr size_t kFoldBudgetBytes = 64u
                                           << 20;  // compile-time evaluation of constant subgraphs
inline constexpr size_t kMaxPostOps = 8;
/// CPU_DYNAMIC_QUANTIZATION leaves MatMuls with a shorter reduction (K) in f32.
inline constexpr size_t kMinDynamicQuantizationDepth = 32;
/// The smallest output (H x W) a Winograd convolution is chosen for: at 7x7 oneDNN's F(2x2,3x3)
/// kernel was 4-35 % slower than brgconv on one thread (512, 256 and 128 channels), from 14x14 up
/// 1.5-2.3x faster (README, "Winograd").
inline constexpr size_t kWinogradMinPixels = 100;
/// And the fewest multiply-adds (N x C_in x C_out x 9 x H x W): DenseNet-121's 128 -> 32
/// convolutions at 28x28 and 14x14 (29M and 7M) ran no faster at 2 threads in the model, where the
/// reorders around each step cost as much as the kernel saved (README, "Winograd").
inline constexpr size_t kWinogradMinMacs = size_t{64} << 20;

inline tag plain_tag(size_t rank) {
    static const tag tags[] = {tag::a,    tag::a,     tag::ab,    tag::abc,
                               tag::abcd, tag::abcde, tag::abcdef};
    return rank < 7 ? tags[rank] : tag::undef;
}

inline tag channels_last_tag(size_t rank) {
    return rank == 3 ? tag::acb : rank == 4 ? tag::acdb : rank == 5 ? tag::acdeb : tag::undef;
}

inline const char* layout_name(Layout layout, size_t rank) {
    if (layout == Layout::kPlain) return rank == 4 ? "nchw" : "plain";
    if (layout == Layout::kBlocked16) return "nChw16c";
    return rank == 4 ? "nhwc" : rank == 5 ? "ndhwc" : "nwc";
}

inline Dims dims_of(const Shape& shape) {
    if (shape.empty()) return Dims{1};
    return Dims(shape.begin(), shape.end());
}

/// `md` with elements of `type` (the same dims and element strides).
inline dnnl::memory::desc retyped(const dnnl::memory::desc& md, dnnl::memory::data_type type) {
    dnnl::memory::desc out = md;
    out.data.data_type = dnnl::memory::convert_to_c(type);
    return out;
}

inline bool is_f32(const Output& port) {
    return port.get_element_type() == element::f32;
}

// Numbers of one constant: the scalar value when every element is equal.
inline bool constant_scalar(const Tensor& t, float* value) {
    if (t.get_element_type() != element::f32 || t.get_size() == 0) return false;
    const float* p = static_cast<const float*>(t.data());
    for (size_t i = 1; i < t.get_size(); ++i)
        if (p[i] != p[0]) return false;
    *value = p[0];
    return true;
}

/// Whether x * (1 / s) is x / s for every x: s a power of two (a normal float whose reciprocal is
/// normal too). Otherwise the product is an ulp off the quotient for many x, which quantization
/// arithmetic turns into a whole step (a Divide feeding Round); such a Divide stays a division.
inline bool exact_reciprocal(float s) {
    int exponent = 0;
    const float mantissa = std::frexp(std::fabs(s), &exponent);
    return std::isnormal(s) && mantissa == 0.5f && std::isnormal(1.f / s);
}

// True when `shape`, right-aligned to `rank`, is 1 everywhere except maybe at `axis` (== size).
inline bool is_per_channel(const Shape& shape, size_t rank, size_t axis, size_t size) {
    if (shape.size() > rank) return false;
    const size_t lead = rank - shape.size();
    for (size_t i = 0; i < shape.size(); ++i) {
        const size_t d = shape[i];
        if (lead + i == axis ? (d != size && d != 1) : d != 1) return false;
    }
    return true;
}

/// Window geometry of a convolution or pooling: oneDNN's strides, dilations (minus one) and pads,
/// the right pad being the one that reproduces the model's output size.
struct Window {
    Dims strides, dilations, pad_l, pad_r;
};
/// False when no pads give `out` from `in` (or an AvgPool's ceil overflow would count as pad).
bool resolve_window(const Node& node, const Shape& in, const Shape& out,
                    const std::vector<size_t>& kernel, const std::vector<int64_t>& dilations,
                    Window* w);

// What a fused chain may attach to: the primitive's destination as the graph sees it.
struct FusionTarget {
    size_t rank = 0;          // logical rank of the anchor's output
    size_t channel_axis = 1;  // axis of per-channel operands (1 for conv, last for MatMul)
    size_t channels = 0;
    Layout layout = Layout::kPlain;
    dnnl::memory::desc dst;  // the primitive's dst desc (full-tensor operands use it)
    Dims channel_dims;       // dims of a per-channel operand as the primitive sees it
    bool allow_bias = true;
    /// A residual operand a bf16 step wrote is read in bf16 as it is (a bf16 convolution's
    /// chain), not converted back to f32.
    bool bf16_residual = false;
    /// A residual Add whose operand nothing reads afterwards becomes a sum post-op: the step
    /// writes its output over the operand (an f32 convolution's chain; oneDNN picks its brgemm
    /// 1x1 kernels for sum, not for a binary add).
    bool sum_in_place = false;
    /// A BatchNormInference after the anchor becomes two per-channel binary post-ops: set for
    /// convolutions and MatMuls. Not for a deconvolution: oneDNN 2.6's deconvolution with
    /// binary post-ops runs a kernel 30x slower (PP-OCR's detection head: 346 ms for one step).
    bool fuse_batch_norm = false;
};

/// The fusion target of a MatMul writing `dst` (plain; per-channel operands along the last axis,
/// `channels` of them), for an output of logical rank `rank`.
inline FusionTarget matmul_target(size_t rank, size_t channels, const dnnl::memory::desc& dst) {
    FusionTarget target;
    target.rank = rank;
    target.channel_axis = rank - 1;
    target.channels = channels;
    target.layout = Layout::kPlain;
    target.dst = dst;
    target.channel_dims = Dims(dst.dims().size(), 1);
    target.channel_dims.back() = static_cast<dnnl::memory::dim>(channels);
    target.fuse_batch_norm = true;
    return target;
}

/// A squeeze-excitation gate x · g (g per channel, computed at run time) whose only reader is a
/// convolution with constant weights, smaller than x: the Multiply gets no step; the convolution
/// reads x and weights scaled by g per input channel, which a reorder step writes at each
/// inference (GraphCompiler::try_defer_gate, try_convolution).
struct DeferredGate {
    NodePtr multiply;
    Output activation, gate;
    const Node* reader = nullptr;  ///< the convolution
};

/// A channel shuffle (ShuffleNet): Reshape [N, C, S...] -> [N, g, C/g, S...], Transpose of axes
/// 1 and 2, Reshape back to [N, C, S...]; output channel j * g + i is input channel
/// i * (C/g) + j.
struct ChannelShuffle {
    size_t groups = 0, per_group = 0;
    NodePtr transpose, merge;  ///< the Transpose and the second Reshape
};

struct FusedChain {
    std::vector<NodePtr> nodes;      // absorbed consumers, in order
    std::vector<std::string> types;  // what each link is, for the step's type ("Add", "Gelu")
    std::vector<PostOp> post_ops;
    Tensor bias;    // per-channel f32 bias, when the first link was one
    Output output;  // the port whose value the fused step writes
};

/// The oneDNN algorithm of a binary element-wise op try_binary runs — Add, Subtract, Multiply,
/// Divide, Maximum, Minimum with numpy or no broadcasting — or nothing.
std::optional<algorithm> binary_algorithm(const Node& node);

/// Appends an eltwise post-op, merging it into the last one when both are linear or both clips.
/// False (nothing appended) when `ops` already has one of its algorithm that it cannot merge
/// with: oneDNN 2.6 computes a second one with the first one's constants.
bool append_eltwise(std::vector<PostOp>& ops, const PostOp& p);
/// Appends every post-op of `more` (eltwise ones as above), or none when one cannot be.
bool append_eltwise(std::vector<PostOp>& ops, const std::vector<PostOp>& more);
/// As append_eltwise, but a linear step that cannot join (there is a linear post-op already,
/// and another eltwise one after it) becomes a multiplication and an addition by scalar
/// constants: two binary post-ops broadcast over a destination of rank `rank` (or merged into
/// such a pair at the end of `ops`). An affine map before an activation and another after it
/// (PP-LCNet's learnable affine blocks around HardSwish) then fuse into one step.
bool append_post_ops(std::vector<PostOp>& ops, const std::vector<PostOp>& more, size_t rank);

/// The eltwise post-ops computing consumer `c` of a value that arrives at its input `input`: a
/// unary activation or math op, or a binary op whose other operand (`other`, may be null) is a
/// scalar constant. False when `c` is not such an op.
/// `inexact_reciprocal`: x / s may be x * (1 / s) for any s, not only where that is exact (a
/// convolution's or MatMul's chain, whose sums are in oneDNN's order anyway: the product merges
/// with the affine maps around it).
bool eltwise_form(const Node& c, size_t input, const Value* other, std::vector<PostOp>* out,
                  bool inexact_reciprocal = false);

/// A reorder primitive from `from` (the layout value `from_value` is read through) to `to` (value
/// `to_value`, or SIZE_MAX for the step's output), user scratchpad, with `extra`'s settings.
std::shared_ptr<DnnlOp> make_reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to,
                                     size_t from_value, size_t to_value,
                                     const dnnl::primitive_attr& extra = dnnl::primitive_attr());

/// What one oneDNN RNN primitive computes: a layer, or a chunk of a layer's time steps.
struct RnnConfig {
    enum class Cell { kLstm, kGru, kLbrGru, kVanilla };
    Cell cell = Cell::kLstm;
    size_t T = 0, N = 0, I = 0, H = 0;
    size_t Dp = 1;          ///< directions the primitive computes
    size_t G = 1;           ///< gates
    size_t bias_gates = 1;  ///< G, or 4 for the linear-before-reset GRU
};

/// One oneDNN RNN primitive for an RnnConfig (its arguments added by the caller).
struct RnnPrimitive {
    std::shared_ptr<DnnlOp> op = std::make_shared<DnnlOp>();
    dnnl::memory::desc src_layer, iter, w_layer_plain, w_iter_plain, bias, dst_layer;
    dnnl::memory::desc w_layer_md, w_iter_md;  ///< the weights layouts the primitive chose
};

/// A forward RNN layer that try_rnn compiled to one single-threaded primitive over a whole batch
/// of sequences: a stacked layer that reads its output may run in a wavefront with it.
struct RnnLayer {
    NodePtr node;
    RnnConfig config;
    size_t step = 0;              ///< its primitive's step
    std::vector<size_t> after;    ///< the reorders try_rnn added after it
    size_t x = 0, y = 0;          ///< its tnc input and output values
    size_t y_port_value = 0;      ///< the op's Y value ([N, 1, T, H])
    std::vector<size_t> iter_in;  ///< initial states ([1, 1, N, H] each)
    std::vector<size_t> iter_out;
    std::vector<DnnlArg> constants;  ///< weights and bias, in the primitive's layouts
};

/// CPU_DYNAMIC_QUANTIZATION: the values a DynamicQuantize step writes for one activation.
struct DynamicQuantized {
    size_t q = 0;           ///< u8, the activation's shape
    size_t zero_point = 0;  ///< i32 [1]
    size_t scale = 0;       ///< f32 [1]
};

class GraphCompiler {
  public:
    GraphCompiler(std::shared_ptr<const Model> model, const PackedWeightsMap* packed, bool bf16,
                  bool dynamic_quantization = false, bool winograd = true)
        : m_model(std::move(model)),
          m_packed(packed),
          m_bf16(bf16),
          m_winograd(winograd),
          m_dynamic_quantization(dynamic_quantization) {
        m_graph = std::make_shared<Graph>();
        m_graph->model = m_model;
        m_graph->precision = bf16 ? element::bf16 : element::f32;
        m_graph->dynamic_quantization = dynamic_quantization;
        m_graph->winograd = winograd;
    }

    std::shared_ptr<const Graph> compile();

  private:
    size_t add_value(const Output& port, ValueKind kind, Layout layout = Layout::kPlain);
    /// The f32 value of `port`. A port a bf16 step wrote (bf16_source) gets its f32 copy here, a
    /// reorder step appended now, before the step of the caller that reads it.
    size_t value_of(const Output& port);
    bool has_value(const Output& port) const {
        return m_value_of.count(port) != 0 || m_bf16_written.count(port) != 0 ||
               m_blocked_written.count(port) != 0 || m_gates.count(port) != 0;
    }
    /// The nChw16c value a Winograd convolution wrote for `port`, or SIZE_MAX: another Winograd
    /// convolution reads it as it is; value_of converts it to channels-last for every other
    /// reader (one reorder step, made when the first such reader is compiled).
    size_t blocked_source(const Output& port) const {
        const auto it = m_blocked_written.find(port);
        return it == m_blocked_written.end() ? SIZE_MAX : it->second;
    }
    /// bf16 mode: the bf16 value a convolution or weight MatMul wrote for `port` because every
    /// reader converts it to bf16 anyway (a bf16 convolution or weight MatMul), or SIZE_MAX.
    size_t bf16_source(const Output& port) const {
        const auto it = m_bf16_written.find(port);
        return it == m_bf16_written.end() ? SIZE_MAX : it->second;
    }
    /// True when every reader of `port` reads it in bf16 (the decision of the producer's step; a
    /// reader that ends up in f32 gets value_of's reorder instead): the source of a
    /// Convolution, GroupConvolution or MatMul with constant 2-D weights, which would convert
    /// it to bf16 anyway, or of a step that runs in bf16 on a bf16 source (bf16_elementwise)
    /// whose own output is read only in bf16, or the residual operand of an Add a bf16
    /// convolution's chain absorbs (bf16_residual_operand).
    bool read_only_in_bf16(const Output& port) const;
    /// bf16 mode: true when `c` runs in bf16 (source and destination) when its input `input`
    /// arrives in bf16 — MaxPool, AvgPool, a global ReduceMean or ReduceMax, a binary
    /// element-wise op whose other operand is a computed tensor broadcast to this one (the
    /// squeeze-excitation Multiply), a Concat, a BatchNormInference with constant statistics
    /// and a unary activation. It reads rounded values: unlike a convolution's source, this
    /// changes results, by bf16's rounding.
    bool bf16_elementwise(Node& c, size_t input) const;
    /// True when input `input` of `c` is the residual operand of an Add whose other operand is
    /// the output of a convolution with constant weights read by that Add alone: the
    /// convolution's chain takes the Add as a binary post-op, which reads a bf16 operand as it
    /// is (FusionTarget::bf16_residual). ResNet's block outputs stay bf16 that way.
    bool bf16_residual_operand(Node& c, size_t input) const;
    /// True when the memory of computed value `id` may be overwritten by the step being compiled
    /// for `reader` (a static graph): every other reader of it, and of every view sharing its
    /// memory, already has its step, and none is a model output or an Assign.
    bool overwritable(size_t id, const Node& reader) const;
    /// bf16 mode: `*pd = make(dst_type)` for the first destination type oneDNN takes — bf16 when
    /// read_only_in_bf16(port), then f32 — and that type; nothing when it refuses both (the step
    /// then computes in f32).
    template <typename Pd, typename Make>
    std::optional<dt> make_bf16_pd(const Output& port, Make make, Pd* pd) const {
        const bool bf16_out = read_only_in_bf16(port);
        for (const dt type : {dt::bf16, dt::f32}) {
            if (type == dt::bf16 && !bf16_out) continue;
            try {
                *pd = make(type);
                return type;
            } catch (const dnnl::error&) {
            }
        }
        return std::nullopt;
    }
    /// The value an element-wise step reads for `port`: the bf16 one a producer wrote when `c`
    /// takes it in bf16 (bf16_elementwise), else value_of's f32 one.
    size_t elementwise_source(Node& c, size_t input);
    /// Adds the producer's step (add_dnnl_step) writing `dst_type`: bf16 registers the output
    /// port in m_bf16_written instead of m_value_of.
    void add_dnnl_step_as(const NodePtr& anchor, const FusedChain& chain,
                          std::shared_ptr<DnnlOp> op, Layout out_layout, dt dst_type);
    dnnl::memory::desc desc_of(size_t value) const;
    /// A reorder step from `value` into a new value in `layout` and `type` (made once per
    /// value, layout and type; `shared` false: a new one, which the caller may overwrite).
    size_t converted(size_t value, Layout layout, element::Type type, bool shared = true);
    size_t in_layout(size_t value, Layout layout);
    size_t in_bf16(size_t value);
    bool fold_constant(const NodePtr& node);
    /// Compiles `node` (the walk's body): nothing for Parameters, Results, Constants and nodes
    /// a step already computes.
    void compile_node(const NodePtr& node);
    /// A node whose inputs are constants (or deferred ones): folded now when it fits the budget,
    /// else deferred (m_lazy) until a reader asks for its value (value_of, materialize). True
    /// when the node needs nothing more now.
    bool defer_constant(const NodePtr& node);
    /// Compiles the deferred node producing `port`; false when it is not a deferred one.
    bool emit_deferred_constant(const Output& port);
    bool any_visited(const std::vector<Consumer>& uses) const {
        for (const auto& use : uses)
            if (m_visited.count(use.node)) return true;
        return false;
    }
    /// True when an input or output of `node` has a static dimension of 0 (oneDNN 2.6 cannot
    /// create some primitives for empty tensors; the reference kernels handle them).
    static bool touches_empty_tensor(const Node& node);
    void add_reference_step(const NodePtr& node);
    /// A Concat whose first input is a variable's value (read directly or through a Gather, as a
    /// decoder's beam_idx reorders its caches) and whose output an Assign of the same variable
    /// writes back: the state grows by the Concat's other inputs at each inference.
    bool grows_state(Node& concat) const;
    /// A MatMul marked by protect_compressed_weights, on compressed_matmul_kernel.
    void add_compressed_matmul_step(const NodePtr& node, CompressedWeights weights);
    /// Dynamic graphs: LayerNorm and RMSNorm (m_norms) and rotary embeddings (m_rotaries)
    /// matched before the walk, their ops but the last absorbed; each becomes one step, on
    /// norm_kernel or rotary_kernel, where the walk meets the op that gives its result.
    void match_dynamic_fusions(const NodeVector& nodes);
    void add_norm_step(const NodePtr& node, const LayerNormMatch& m);
    /// ... and rotary embeddings (m_rotaries), each one step on rotary_kernel.
    void add_rotary_step(const NodePtr& node, const RotaryMatch& m);
    /// Dynamic graphs: drops the reference steps whose outputs nothing reads (shape arithmetic
    /// left behind by a fused step), the chains behind them too.
    void drop_unused_steps();
    void add_state_step(const NodePtr& node);
    void add_subgraph_step(const NodePtr& node);
    /// Dynamic graphs: compiles the static region (graph_compiler_region.cpp) as one kRegion
    /// step when it holds convolutions, MatMuls or RNNs, and marks its ops m_skipped.
    void add_static_region(const NodeVector& nodes);
    bool try_convolution(const NodePtr& node);
    /// `*pd` for `node` as a Winograd convolution on nChw16c when it qualifies (f32, 2-D 3x3,
    /// stride and dilation 1, channels multiples of 16, an output of at least
    /// kWinogradMinPixels pixels and kWinogradMinMacs multiply-adds, eltwise post-ops after at
    /// most a leading residual sum, CPU_WINOGRAD on) and oneDNN has a kernel for it.
    bool try_winograd(const NodePtr& node, const Shape& in, const Shape& out,
                      const std::vector<size_t>& kernel, const Window& w, const FusedChain& chain,
                      const dnnl::primitive_attr& attr, const dnnl::memory::desc& bias_md,
                      dnnl::convolution_forward::primitive_desc* pd) const;
    /// Whether oneDNN has only its reference implementation for the f32 channels-last
    /// convolution of `node` with `chain` fused (false when it refuses it outright).
    bool reference_convolution(const Node& node, const Shape& in, const Shape& out, const Window& w,
                               const FusedChain& chain) const;
    bool try_matmul(const NodePtr& node);
    bool try_pooling(const NodePtr& node);
    bool try_softmax(const NodePtr& node);
    bool try_layer_norm(const NodePtr& node);
    /// Convert of i32/u8/i8 to f32 (exact, or rounded as C++ rounds) as one reorder.
    bool try_convert(const NodePtr& node);
    /// Transpose, Reshape, Squeeze, Unsqueeze, unit-step Slice (f32, static) as one reorder.
    bool try_movement(const NodePtr& node);
    /// A channel shuffle written as Reshape -> Transpose -> Reshape, starting at `node` (the
    /// first Reshape), on a channels-last value: one reorder permuting the channels.
    bool try_channel_shuffle(const NodePtr& node);
    /// The channel shuffle starting at Reshape `reshape`, whatever its input's layout.
    std::optional<ChannelShuffle> match_channel_shuffle(Node& reshape);
    /// A channel Concat of channels-last f32 values read only by a channel shuffle: each input
    /// (or its part in one group) is one reorder straight into its interleaved channels of the
    /// shuffle's output; neither the concatenation nor the shuffle is a pass of its own.
    bool try_concat_shuffle(const NodePtr& node, Layout layout, int64_t axis);
    /// Unary ops and ops with a scalar constant operand (graph_compiler_elementwise.cpp).
    bool try_eltwise(const NodePtr& node);
    /// Add, Subtract, Multiply, Divide, Maximum, Minimum with numpy broadcasting.
    bool try_binary(const NodePtr& node);
    bool try_concat(const NodePtr& node);
    /// A Multiply that is a DeferredGate: registered in m_gates, no step (f32, batch 1).
    bool try_defer_gate(const NodePtr& node);
    /// Gives a deferred gate's Multiply its own step after all (its reader could not take it);
    /// false when `port` is not a deferred gate.
    bool emit_gate(const Output& port);
    /// A channel Concat of channels-last f32 values read only by a BatchNormInference with
    /// constant statistics (and that by at most a Relu): one concat_affine_kernel step writing
    /// the normalized concatenation, the Concat's own output never written (f32 mode).
    bool try_concat_affine(const NodePtr& node, Layout layout, int64_t axis);
    /// BatchNormInference with constant statistics: a per-channel multiply-add.
    bool try_batch_norm(const NodePtr& node);
    /// The per-channel scale gamma / sqrt(var + eps) and shift beta - mean * scale of a static
    /// f32 BatchNormInference (either input order) whose statistics are constants; false when
    /// it is not one.
    bool batch_norm_affine(Node& node, std::vector<float>* scale, std::vector<float>* shift);
    /// Split and VariadicSplit: one reorder per output from its sub-memory.
    bool try_split(const NodePtr& node);
    /// ConvolutionBackpropData (ConvTranspose) as oneDNN's deconvolution.
    bool try_deconvolution(const NodePtr& node);
    /// Interpolate where oneDNN's resampling computes the same values.
    bool try_interpolate(const NodePtr& node);
    /// LSTMSequence, GRUSequence, RNNSequence on oneDNN's RNN primitives (graph_compiler_rnn.cpp).
    bool try_rnn(const NodePtr& node);
    /// The layer an RNN op with `config` reading `x` may run in a wavefront with: a forward
    /// layer of one single-threaded primitive (m_rnn_layers) whose Y only `node` reads (through
    /// views) and whose final states nothing reads. Null otherwise.
    const RnnLayer* wavefront_source(const NodePtr& node, const RnnConfig& config) const;
    /// Makes layer `second` run in a wavefront with `first` over `chunks` (per layer, the
    /// primitive of each chunk of time steps, without arguments yet).
    void add_wavefront(const RnnLayer& first, const RnnLayer& second,
                       std::vector<RnnPrimitive> (&chunks)[2]);
    /// A computed value no model port names (an intermediate layout of a step), dims `dims`.
    size_t add_internal_value(const Dims& dims, const std::string& name,
                              element::Type type = element::f32);
    /// A reorder step writing internal or port value `to_value` (plain) from `from_value` read
    /// through `from`; with `to_view`, only the part of `to_value` that view (strides, offset)
    /// selects, one of several writes the first of which must come right after the value was
    /// made (it stays the value's producer).
    void add_internal_reorder(const dnnl::memory::desc& from, size_t from_value, size_t to_value,
                              const NodePtr& node, const std::string& what,
                              const dnnl::memory::desc* to_view = nullptr);
    bool try_reduce(const NodePtr& node);
    // Quantized models (graph_compiler_int8.cpp).
    /// Runs before the f32 builders: defers a DequantizeLinear chain (its integer input is what
    /// an int8 consumer reads), makes a QuantizeLinear chain one reorder, and runs Convolution,
    /// GroupConvolution and MatMul whose input is a deferred dequantization on int8 primitives.
    bool try_int8(const NodePtr& node);
    bool try_int8_convolution(const NodePtr& node, const DequantizeMatch& dq);
    bool try_int8_matmul(const NodePtr& node, const DequantizeMatch& dq);
    bool try_int8_max_pool(const NodePtr& node, const DequantizeMatch& dq);
    /// Add of a deferred dequantization and another tensor of the same shape.
    bool try_int8_add(const NodePtr& node);
    bool try_quantize(const NodePtr& node);
    /// CPU_DYNAMIC_QUANTIZATION: a MatMul with constant f32 weights as a DynamicQuantize step
    /// (the activation to u8 at run time) and a u8 x s8 matmul with run-time scales.
    bool try_dynamic_quant_matmul(const NodePtr& node);
    /// MatMulInteger as the reader writes it (match_integer_matmul) as one u8/s8 x s8 matmul.
    bool try_integer_matmul(const NodePtr& node, const IntegerMatMulMatch& match);
    /// Appends the QuantizeLinear after `chain` (when it follows alone) as output scale and
    /// zero point post-op; gives the integer type of the destination, or f32. With `target`, a
    /// QuantizeLinear read only by its DequantizeLinear, whose f32 value an activation reads
    /// (the QDQ pair exporters put between a convolution and its HardSwish or SiLU), becomes
    /// post-ops that round to the quantum and the chain after it is fused on
    /// (through_dequantize), then the next QuantizeLinear is looked for again.
    dt requantize_chain(FusedChain& chain, const FusionTarget* target = nullptr);
    bool through_dequantize(FusedChain& chain, const QuantizeMatch& qm, const FusionTarget& target);
    /// Computes a deferred dequantization (one reorder, or its ops on reference kernels) so that
    /// `port` has a value; false when `port` is not a deferred one.
    bool materialize(const Output& port);
    void materialize_inputs(const Node& node);
    /// The fusion target of an element-wise step writing `dst` (layout `layout`, shape `shape`).
    FusionTarget elementwise_target(const dnnl::memory::desc& dst, Layout layout,
                                    const Shape& shape) const;
    template <typename Make>
    bool add_with_chain(const NodePtr& node, const FusionTarget& target,
                        std::vector<PostOp> leading, Make make, Layout layout,
                        dt dst_type = dt::f32);
    /// The chain of consumers fused after `start`, at most `max_links` of them.
    FusedChain fuse_chain(const Output& start, const FusionTarget& target,
                          size_t max_links = SIZE_MAX);
    /// An activation written out as element-wise ops of the chain's output x alone (a region
    /// with one value read outside it), recognised by evaluating the region: Gelu (erf and tanh
    /// forms), HardSwish, Mish, Swish(beta) and Sigmoid, times a constant, become one post-op
    /// (and a linear one for the constant). False, chain unchanged, otherwise.
    bool fuse_activation_region(FusedChain& chain, const FusionTarget& target);
    bool fuse_link(Node& consumer, size_t input, const FusionTarget& target, FusedChain& chain);
    /// The weights produced by `port` (plain layout `plain`, data `data`) in the primitive's
    /// layout `desc`: from the imported blob when it has them, else copied or reordered now.
    dnnl::memory weights_constant(const Output& port, const dnnl::memory::desc& plain,
                                  const void* data, const dnnl::memory::desc& desc);
    void add_dnnl_step(const NodePtr& anchor, const FusedChain& chain, std::shared_ptr<DnnlOp> op,
                       Layout out_layout);
    std::vector<Consumer> consumers(const Output& port) const {
        auto it = m_consumers.find(port);
        return it == m_consumers.end() ? std::vector<Consumer>{} : it->second;
    }

    std::shared_ptr<const Model> m_model;
    const PackedWeightsMap* m_packed = nullptr;
    bool m_bf16 = false;     // convolutions and weight MatMuls compute in bf16
    bool m_winograd = true;  // 3x3 convolutions may run oneDNN's Winograd kernels (CPU_WINOGRAD)
    bool m_dynamic_quantization = false;  // weight MatMuls run u8 x s8 (CPU_DYNAMIC_QUANTIZATION)
    std::set<std::string> m_ambiguous_names;  // friendly names of more than one op
    std::shared_ptr<Graph> m_graph;
    std::map<Output, size_t> m_value_of;
    ConsumerMap m_consumers;
    std::set<const Node*> m_absorbed;
    std::set<const Node*> m_visited;        ///< nodes compile_node has started on
    std::set<const Node*> m_lazy;           ///< deferred constant nodes no reader has asked for yet
    std::set<const Node*> m_emitting;       ///< deferred nodes compiled on demand
    std::map<const Node*, size_t> m_order;  ///< each node's index in the model's order
    std::set<const Node*>
        m_skipped;  ///< computed by the kRegion step (and constants only it reads)
    std::map<const Node*, CompressedWeights> m_compressed;  ///< MatMuls over compressed weights
    std::map<const Node*, LayerNormMatch> m_norms;  ///< by the op that gives the norm's result
    std::map<const Node*, RotaryMatch> m_rotaries;  ///< by its Add
    std::map<std::tuple<size_t, Layout, element::Type>, size_t> m_converted;
    std::map<std::string, size_t> m_variable_index;
    std::vector<std::string> m_unsupported;
    /// MatMuls over integers (MatMulInteger), matched before the walk: their Convert/Subtract of
    /// the activation are absorbed.
    std::map<const Node*, IntegerMatMulMatch> m_integer_matmuls;
    /// CPU_DYNAMIC_QUANTIZATION: the quantized form of each activation value a MatMul reads.
    std::map<size_t, DynamicQuantized> m_dynamic_quantized;
    /// Dequantizations not computed (yet): their f32 output port -> the match.
    std::map<Output, DequantizeMatch> m_deferred;
    /// bf16 mode: ports whose producer wrote bf16 (bf16_source), until an f32 reader asks.
    std::map<Output, size_t> m_bf16_written;
    // Ports a Winograd convolution wrote in nChw16c (blocked_source), not yet in m_value_of.
    std::map<Output, size_t> m_blocked_written;
    std::map<const Node*, RnnLayer> m_rnn_layers;  ///< see RnnLayer
    std::map<Output, DeferredGate> m_gates;        ///< by the Multiply's output
};

}  // namespace vireo::cpu_plugin::detail
