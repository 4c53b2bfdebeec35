// Implements compile_graph: walks the model in topological order, turning each op into a fused
// oneDNN step or a reference-kernel step, and inserts reorders where layouts change.
#include "graph_compiler.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "attention_kernel.hpp"
#include "gemm_convolution.hpp"
#include "gemm_matmul.hpp"
#include "graph_compiler_impl.hpp"
#include "grid_sample_kernel.hpp"
#include "roi_align_kernel.hpp"
#include "subgraph_runner.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/constant_folding.hpp"

namespace vireo::cpu_plugin {
namespace detail {
namespace {

// The reference kernel a CPU kernel of a dynamic graph (sgemm, im2col + sgemm) falls back to for
// the shapes it does not take, built on a copy of the node whose constant inputs are parameters:
// it reads the weights from its inputs on the rare run that needs it, instead of packing its own
// copy of every weight at compile time (a 500 MB f32 decoder's MatMuls held 392 MB of such copies
// that no run ever read).
std::unique_ptr<reference::Kernel> weightless_reference_kernel(const Node& node) {
    OutputVector inputs;
    bool constant = false;
    for (const auto& in : node.input_values()) {
        if (in.get_node()->get_type_name() == "Constant") {
            inputs.push_back(op::parameter(in.get_element_type(), in.get_partial_shape(),
                                           in.get_node()->get_friendly_name())
                                 ->output(0));
            constant = true;
        } else {
            inputs.push_back(in);
        }
    }
    if (!constant) return reference::KernelRegistry::instance().create(node);
    return reference::KernelRegistry::instance().create(*node.clone_with_new_inputs(inputs));
}

}  // namespace

size_t GraphCompiler::add_value(const Output& port, ValueKind kind, Layout layout) {
    Value v;
    v.kind = kind;
    v.type = port.get_element_type();
    v.shape = port.get_partial_shape();
    v.layout = layout;
    v.producer = m_graph->steps.size();
    v.name = "output " + std::to_string(port.get_index()) + " of " + port.get_node()->describe();
    m_graph->values.push_back(std::move(v));
    const size_t id = m_graph->values.size() - 1;
    m_value_of[port] = id;
    return id;
}

dnnl::memory::desc GraphCompiler::desc_of(size_t id) const {
    const Value& v = m_graph->values[id];
    const Shape shape = v.shape.to_shape();
    const tag t = v.layout == Layout::kPlain       ? plain_tag(shape.size())
                  : v.layout == Layout::kBlocked16 ? tag::nChw16c
                                                   : channels_last_tag(shape.size());
    const dt type = v.type == element::bf16  ? dt::bf16
                    : v.type == element::u8  ? dt::u8
                    : v.type == element::i8  ? dt::s8
                    : v.type == element::i32 ? dt::s32
                                             : dt::f32;
    return dnnl::memory::desc(dims_of(shape), type, t);
}

// A reorder step from value `id` into a new computed value like it with `layout` and `type`:
// its own memory (never a view, even when `id` is one), made once per (value, layout, type).
size_t GraphCompiler::converted(size_t id, Layout layout, element::Type type, bool shared) {
    const Value& from = m_graph->values[id];
    if (shared && from.layout == layout && from.type == type) return id;
    const auto key = std::make_tuple(id, layout, type);
    if (auto it = m_converted.find(key); shared && it != m_converted.end()) return it->second;
    // Named by what changes: "nchw->nhwc" for a layout, "f32->bf16" for a precision.
    const size_t rank = from.shape.size();
    const bool retype = type != from.type;
    const std::string source =
        retype ? std::string(from.type.name()) : layout_name(from.layout, rank);
    const std::string target = retype ? std::string(type.name()) : layout_name(layout, rank);
    Step step;
    step.kind = StepKind::kDnnl;
    step.name = from.name + " -> " + target;
    step.type = "Reorder";
    Value value = from;  // `from` is not used below: push_back may move the values
    value.kind = ValueKind::kComputed;
    value.layout = layout;
    value.type = type;
    value.constant = Tensor();
    value.alias = SIZE_MAX;
    value.producer = m_graph->steps.size();
    value.name += " (" + target + ")";
    m_graph->values.push_back(std::move(value));
    const size_t out = m_graph->values.size() - 1;

    step.dnnl = make_reorder(desc_of(id), desc_of(out), id, out);
    step.exec_type = step.dnnl->impl + " " + source + "->" + target;
    step.outputs = {out};
    m_graph->steps.push_back(std::move(step));
    if (shared) m_converted[key] = out;
    return out;
}

// The value `id` in `layout`: itself, or the output of a reorder step (made once per value).
size_t GraphCompiler::in_layout(size_t id, Layout layout) {
    return converted(id, layout, m_graph->values[id].type);
}

// The f32 value `id` converted to bf16 in the same layout (a reorder step, made once per value).
size_t GraphCompiler::in_bf16(size_t id) {
    return converted(id, m_graph->values[id].layout, element::bf16);
}

size_t GraphCompiler::value_of(const Output& port) {
    if (m_lazy.count(port.get_node())) emit_deferred_constant(port);
    emit_gate(port);  // a reader other than its convolution: the Multiply's own step after all
    if (const auto it = m_value_of.find(port); it != m_value_of.end()) return it->second;
    if (const auto blocked = m_blocked_written.find(port); blocked != m_blocked_written.end()) {
        // A reader other than a Winograd convolution: the channels-last copy every convolution
        // output has, and later Winograd readers still take the blocked one (blocked_source).
        const size_t nhwc = converted(blocked->second, Layout::kChannelsLast, element::f32);
        m_value_of[port] = nhwc;
        return nhwc;
    }
    const auto written = m_bf16_written.find(port);
    if (written == m_bf16_written.end()) return m_value_of.at(port);
    // An f32 reader after all: the bf16 value converted back (rounded once, as a bf16 reader
    // sees it), and later bf16 readers of the f32 value take the bf16 one with no reorder.
    const size_t bf = written->second;
    m_bf16_written.erase(written);
    const Layout layout = m_graph->values[bf].layout;
    const size_t f = converted(bf, layout, element::f32);
    m_value_of[port] = f;
    m_converted[std::make_tuple(f, layout, element::bf16)] = bf;
    return f;
}

bool GraphCompiler::read_only_in_bf16(const Output& port) const {
    if (!m_bf16 || m_graph->dynamic || !is_f32(port)) return false;
    const auto uses = consumers(port);
    if (uses.empty()) return false;
    for (const auto& use : uses) {
        Node& c = *use.node;
        // A pooling or gate step runs in bf16 only for readers that read bf16 in turn: before a
        // residual add or a model output it stays f32, as it was.
        if (bf16_elementwise(c, use.input) && read_only_in_bf16(c.output(0))) continue;
        // The residual operand of an Add a bf16 convolution's chain takes as a post-op.
        if (bf16_residual_operand(c, use.input)) continue;
        const std::string& type = c.get_type_name();
        const bool conv = type == "Convolution" || type == "GroupConvolution";
        if ((!conv && type != "MatMul") || use.input != 0 || m_absorbed.count(&c) ||
            c.get_output_element_type(0) != element::f32)
            return false;
        const Output w = c.input_value(1);
        const auto wv = m_value_of.find(w);
        if (wv == m_value_of.end() || m_graph->values[wv->second].kind != ValueKind::kConstant ||
            !is_f32(w))
            return false;
        // The MatMuls try_matmul computes in bf16 (and no int8 or compressed-weights builder
        // claims first).
        if (!conv &&
            (c.get_attribute<bool>("transpose_a") || w.get_partial_shape().size() != 2 ||
             m_compressed.count(&c) || m_integer_matmuls.count(&c) || m_dynamic_quantization))
            return false;
    }
    return true;
}

bool GraphCompiler::bf16_residual_operand(Node& c, size_t input) const {
    if (c.get_type_name() != "Add" || c.get_input_size() != 2 || input > 1 ||
        m_absorbed.count(&c) || !is_f32(c.output(0)) || !c.get_output_partial_shape(0).is_static())
        return false;
    const auto& shape = c.get_output_partial_shape(0);
    const Output& other = c.input_value(1 - input);
    if (other == c.input_value(input) || other.get_partial_shape() != shape ||
        c.input_value(input).get_partial_shape() != shape || shape.size() < 3 || shape.size() > 5)
        return false;
    // The other operand: the output of a convolution with constant weights, through links its
    // chain takes (the bias Add, a unary activation, an op with a constant operand), each read
    // by the next alone, so the convolution's chain reaches this Add (try_convolution,
    // fuse_link).
    Output port = other;
    for (size_t links = 0; links < 4; ++links) {
        if (consumers(port).size() != 1) return false;
        const Node& n = *port.get_node();
        const std::string& type = n.get_type_name();
        if (type == "Convolution" || type == "GroupConvolution") {
            const auto wv = m_value_of.find(n.input_value(1));
            return is_f32(n.input_value(0)) && wv != m_value_of.end() &&
                   m_graph->values[wv->second].kind == ValueKind::kConstant;
        }
        if (n.get_output_size() != 1 || n.get_output_element_type(0) != element::f32) return false;
        if (n.get_input_size() == 1) {
            std::vector<PostOp> steps;
            if (!eltwise_form(n, 0, nullptr, &steps)) return false;
            port = n.input_value(0);
            continue;
        }
        // A binary op with one constant operand (the bias): follow the other.
        if (n.get_input_size() != 2) return false;
        size_t data = 2;
        for (size_t i = 0; i < 2; ++i) {
            const auto v = m_value_of.find(n.input_value(i));
            if (v != m_value_of.end() && m_graph->values[v->second].kind == ValueKind::kConstant)
                data = 1 - i;
        }
        if (data == 2 || !binary_algorithm(n)) return false;
        port = n.input_value(data);
    }
    return false;
}

bool GraphCompiler::overwritable(size_t id, const Node& reader) const {
    if (m_graph->dynamic) return false;
    const Value& v = m_graph->values[id];
    if (v.kind != ValueKind::kComputed) return false;
    const size_t root = v.alias == SIZE_MAX ? id : v.alias;
    std::set<const Node*> emitted;  // the ops the steps made so far compute
    for (const auto& step : m_graph->steps)
        for (const auto& n : step.fused) emitted.insert(n.get());
    for (const auto& [port, value] : m_value_of) {
        if (value != root && m_graph->values[value].alias != root) continue;
        for (const auto& use : consumers(port)) {
            if (use.node == &reader) continue;
            // A reader without a step yet (the anchor itself, a later op, a model output) or
            // one that reads at the end of the run (Assign). A view has a value and no step.
            if (use.node->get_output_size() == 0 ||
                (!emitted.count(use.node) && !has_value(use.node->output(0))))
                return false;
        }
    }
    return true;
}

bool GraphCompiler::bf16_elementwise(Node& c, size_t input) const {
    if (!m_bf16 || m_graph->dynamic || m_absorbed.count(&c) || c.get_output_size() == 0 ||
        c.get_output_element_type(0) != element::f32 || !c.get_output_partial_shape(0).is_static())
        return false;
    const std::string& type = c.get_type_name();
    const Shape in = c.input_value(input).get_shape(),
                out = c.get_output_partial_shape(0).to_shape();
    if (shape_size(in) == 0) return false;
    if (type == "MaxPool" || type == "AvgPool")
        return input == 0 && in.size() >= 3 && in.size() <= 5 &&
               (c.get_output_size() == 1 || consumers(c.output(1)).empty());
    if (type == "ReduceMean" || type == "ReduceMax") {
        // Over every spatial axis, keeping them (try_reduce's pooling): [N, C, 1, ...].
        if (input != 0 || in.size() < 3 || in.size() > 5 || out.size() != in.size() ||
            out[0] != in[0] || out[1] != in[1])
            return false;
        for (size_t i = 2; i < out.size(); ++i)
            if (out[i] != 1) return false;
        return true;
    }
    // A Concat reads every input in bf16 (one an f32 step wrote converted by a reorder, as the
    // value would have been after the Concat) and writes bf16: Inception's branches and
    // DenseNet's feature maps reach the next convolution without an f32 round trip.
    if (type == "Concat") return in.size() == out.size();
    // Batch normalization not folded into a convolution (DenseNet's pre-activation), with
    // constant statistics, as try_batch_norm runs it.
    if (type == "BatchNormInference") {
        const size_t data = c.get_version() >= 5 ? 0 : 2;
        if (input != data || in != out || in.size() < 2) return false;
        for (size_t i = 0; i < c.get_input_size(); ++i)
            if (i != data && c.input_value(i).get_node()->get_type_name() != "Constant")
                return false;
        return true;
    }
    // A unary activation (the Relu after that batch normalization), as try_eltwise runs it.
    if (c.get_input_size() == 1) {
        std::vector<PostOp> steps;
        return in == out && eltwise_form(c, 0, nullptr, &steps);
    }
    if (!binary_algorithm(c) || input > 1 || in != out) return false;
    // The other operand: computed, f32 and broadcast (a constant one makes try_eltwise's
    // post-op form; a full-shaped one is a residual add a convolution absorbs as a post-op).
    const Output other = c.input_value(1 - input);
    if (!is_f32(other) || !other.get_partial_shape().is_static() || other.get_shape() == out ||
        other == c.input_value(input))
        return false;
    const auto it = m_value_of.find(other);
    return it == m_value_of.end() || m_graph->values[it->second].kind != ValueKind::kConstant;
}

size_t GraphCompiler::elementwise_source(Node& c, size_t input) {
    const Output port = c.input_value(input);
    const size_t written = bf16_source(port);
    if (written != SIZE_MAX && bf16_elementwise(c, input)) return written;
    return value_of(port);
}

void GraphCompiler::add_dnnl_step_as(const NodePtr& anchor, const FusedChain& chain,
                                     std::shared_ptr<DnnlOp> op, Layout out_layout, dt dst_type) {
    add_dnnl_step(anchor, chain, std::move(op), out_layout);
    if (dst_type != dt::bf16) return;
    const size_t out = m_graph->steps.back().outputs[0];
    m_graph->steps.back().exec_type += " bf16";  // what it writes, for the profile
    m_graph->values[out].type = element::bf16;
    m_graph->values[out].name += " (bf16)";
    m_value_of.erase(chain.output);
    m_bf16_written[chain.output] = out;
}

std::shared_ptr<DnnlOp> make_reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to,
                                     size_t from_value, size_t to_value,
                                     const dnnl::primitive_attr& extra) {
    auto op = std::make_shared<DnnlOp>();
    dnnl::primitive_attr attr = extra;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::reorder::primitive_desc pd(cpu_engine(), from, cpu_engine(), to, attr);
    op->primitive = dnnl::reorder(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_FROM, true, from_value, from, {}});
    op->args.push_back({DNNL_ARG_TO, true, to_value, to, {}});
    return op;
}

// State, control flow and random numbers: never computed ahead of an inference, whatever the
// inputs (fold_constant, defer_constant).
static bool runs_at_inference(const Node& node) {
    const std::string& type = node.get_type_name();
    return type == "ReadValue" || type == "Assign" || type == "If" || type == "Loop" ||
           type.rfind("Random", 0) == 0;
}

// A node whose inputs are all constants is computed now, once, when its outputs are small enough.
bool GraphCompiler::fold_constant(const NodePtr& node) {
    if (runs_at_inference(*node) || node->get_type_name() == "Result" ||
        node->get_output_size() == 0 ||
        node->get_rt_info().count(reference::kDisableConstantFolding))
        return false;
    std::vector<Tensor> inputs;
    for (const auto& in : node->input_values()) {
        if (!has_value(in) || bf16_source(in) != SIZE_MAX || blocked_source(in) != SIZE_MAX ||
            m_gates.count(in))
            return false;
        const Value& v = m_graph->values[value_of(in)];
        if (v.kind != ValueKind::kConstant) return false;
        inputs.push_back(v.constant);
    }
    size_t bytes = 0;
    for (size_t i = 0; i < node->get_output_size(); ++i) {
        const auto& ps = node->get_output_partial_shape(i);
        if (!ps.is_static() || node->get_output_element_type(i).is_dynamic()) return false;
        bytes += shape_size(ps.to_shape()) * node->get_output_element_type(i).size();
    }
    if (bytes > kFoldBudgetBytes || !reference::KernelRegistry::instance().supports(*node))
        return false;
    std::vector<Tensor> outputs;
    try {
        outputs = reference::evaluate(*node, inputs);
    } catch (const Exception&) {
        return false;  // it runs at inference, where its error (if any) is reported
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
        const size_t id = add_value(node->output(i), ValueKind::kConstant);
        m_graph->values[id].constant = outputs[i];
    }
    return true;
}

bool GraphCompiler::touches_empty_tensor(const Node& node) {
    auto empty = [](const PartialShape& shape) {
        if (shape.rank().is_dynamic()) return false;
        for (size_t i = 0; i < static_cast<size_t>(shape.rank().get_length()); ++i)
            if (shape[i].is_static() && shape[i].get_length() == 0) return true;
        return false;
    };
    for (const auto& in : node.input_values())
        if (empty(in.get_partial_shape())) return true;
    for (size_t o = 0; o < node.get_output_size(); ++o)
        if (empty(node.get_output_partial_shape(o))) return true;
    return false;
}

bool GraphCompiler::grows_state(Node& concat) const {
    // The state a decoder's KV cache is: ReadValue (through a Gather along axis 0 by beam_idx)
    // -> Concat(past, new) -> Assign of the same variable.
    if (concat.get_input_size() < 2) return false;
    const Node* past = concat.input_value(0).get_node();
    if (past->get_type_name() == "Gather") past = past->input_value(0).get_node();
    if (past->get_type_name() != "ReadValue") return false;
    const std::string& id = past->get_attribute<std::string>("variable_id");
    for (const auto& use : consumers(concat.output(0)))
        if (use.node->get_type_name() == "Assign" &&
            use.node->get_attribute<std::string>("variable_id") == id)
            return true;
    return false;
}

void GraphCompiler::add_reference_step(const NodePtr& node) {
    Step step;
    step.kind = StepKind::kReference;
    step.node = node;
    step.fused = {node};
    step.name = node->get_friendly_name();
    step.type = node->get_type_name();
    step.exec_type = "ref";
    if (m_graph->dynamic) {
        const std::string& type = step.type;
        step.pass_through = type == "Gather"      ? Step::PassThrough::kGather
                            : type == "Broadcast" ? Step::PassThrough::kBroadcast
                            : type == "Reshape" || type == "Squeeze" || type == "Unsqueeze"
                                ? Step::PassThrough::kView
                            : type == "Concat" && grows_state(*node) ? Step::PassThrough::kAppend
                                                                     : Step::PassThrough::kNone;
        // ShapeOf reads no element, and the append step places its first input itself.
        step.reads_strided = type == "ShapeOf" || step.pass_through == Step::PassThrough::kAppend;
        // Each run's profile says which way it went (GraphExecutor::append).
        if (step.pass_through == Step::PassThrough::kAppend) step.exec_type = "append";
    }
    try {
        const bool sgemm_kernel =
            m_graph->dynamic && (step.type == "MatMul" || step.type == "Convolution") &&
            is_f32(node->output(0)) && is_f32(node->input_value(0)) && is_f32(node->input_value(1));
        auto kernel = sgemm_kernel ? weightless_reference_kernel(*node)
                                   : reference::KernelRegistry::instance().create(*node);
        // Dynamic graphs: an f32 MatMul runs on oneDNN's sgemm, with the stream's threads (the
        // reference kernel for the shapes sgemm does not take: gemm_matmul.hpp).
        if (m_graph->dynamic && node->get_type_name() == "MatMul" && is_f32(node->output(0)) &&
            is_f32(node->input_value(0)) && is_f32(node->input_value(1))) {
            step.kernel =
                gemm_matmul_kernel(std::move(kernel), node->get_attribute<bool>("transpose_a"),
                                   node->get_attribute<bool>("transpose_b"));
            step.exec_type = "sgemm";
        } else if (m_graph->dynamic && node->get_type_name() == "Convolution" &&
                   is_f32(node->output(0)) && is_f32(node->input_value(0)) &&
                   is_f32(node->input_value(1))) {
            // ... and an f32 convolution as im2col and sgemm (gemm_convolution.hpp).
            step.kernel = gemm_convolution_kernel(*node, std::move(kernel));
            step.exec_type = "im2col_sgemm";
        } else if (node->get_type_name() == "ScaledDotProductAttention" &&
                   is_f32(node->output(0))) {
            // ... and attention as one flash-style pass over blocks of keys (attention_kernel.hpp).
            step.kernel = attention_kernel(*node, std::move(kernel), /*openmp=*/true);
            step.exec_type = "flash_attention";
            step.reads_strided = true;  // a KV cache appended in place is read where it lies
        } else if (node->get_type_name() == "ROIAlign" && is_f32(node->output(0))) {
            // ... and ROIAlign with its taps computed once per roi (roi_align_kernel.hpp).
            step.kernel = roi_align_kernel(*node, std::move(kernel));
            step.exec_type = "roi_align";
        } else if (node->get_type_name() == "GridSample" && is_f32(node->output(0)) &&
                   node->get_attribute<std::string>("mode") != "bicubic") {
            // ... and GridSample with its taps computed once per pixel (grid_sample_kernel.hpp).
            step.kernel = grid_sample_kernel(*node, std::move(kernel));
            step.exec_type = "grid_sample";
        } else {
            step.kernel = std::move(kernel);
        }
    } catch (const Exception& e) {
        m_unsupported.push_back(e.what());
        return;
    }
    for (const auto& in : node->input_values())
        step.inputs.push_back(in_layout(value_of(in), Layout::kPlain));
    for (size_t i = 0; i < node->get_output_size(); ++i)
        step.outputs.push_back(add_value(node->output(i), ValueKind::kComputed));
    m_graph->steps.push_back(std::move(step));
}

void GraphCompiler::add_compressed_matmul_step(const NodePtr& node, CompressedWeights weights) {
    Step step;
    step.kind = StepKind::kReference;
    step.node = node;
    step.fused = {node};
    step.fused.insert(step.fused.end(), weights.chain.begin(), weights.chain.end());
    step.name = node->get_friendly_name();
    step.type = node->get_type_name();
    step.exec_type = "compressed_" + std::string(weights.q.get_element_type().name());
    step.output_shapes = [n = weights.n, k = weights.k_len](const std::vector<Tensor>& ins) {
        CompressedWeights shape_only;
        shape_only.n = n;
        shape_only.k_len = k;
        return std::vector<Shape>{compressed_matmul_shape(ins.at(0).get_shape(), shape_only)};
    };
    step.kernel = compressed_matmul_kernel(std::move(weights));
    step.inputs.push_back(in_layout(value_of(node->input_value(0)), Layout::kPlain));
    step.outputs.push_back(add_value(node->output(0), ValueKind::kComputed));
    m_graph->steps.push_back(std::move(step));
}

void GraphCompiler::add_state_step(const NodePtr& node) {
    Step step;
    step.kind = node->get_type_name() == "ReadValue" ? StepKind::kReadValue : StepKind::kAssign;
    step.node = node;
    step.fused = {node};
    step.name = node->get_friendly_name();
    step.type = node->get_type_name();
    step.exec_type = "ref";
    const auto& id = node->get_attribute<std::string>("variable_id");
    auto it = m_variable_index.find(id);
    if (it == m_variable_index.end()) {
        m_unsupported.push_back(node->describe() + ": variable '" + id +
                                "' is not a variable of the model");
        return;
    }
    step.variable = it->second;
    for (const auto& in : node->input_values())
        step.inputs.push_back(in_layout(value_of(in), Layout::kPlain));
    for (size_t i = 0; i < node->get_output_size(); ++i)
        step.outputs.push_back(add_value(node->output(i), ValueKind::kComputed));
    if (step.kind == StepKind::kAssign) m_graph->assign_steps.push_back(m_graph->steps.size());
    m_graph->steps.push_back(std::move(step));
}

void GraphCompiler::add_subgraph_step(const NodePtr& node) {
    const std::string reason = SubgraphRunner::unsupported_reason(*node);
    if (!reason.empty()) {
        m_unsupported.push_back(node->describe() + ": " + reason);
        return;
    }
    Step step;
    step.kind = StepKind::kSubgraph;
    step.node = node;
    step.fused = {node};
    step.name = node->get_friendly_name();
    step.type = node->get_type_name();
    step.exec_type = "ref";
    for (const auto& body : node->get_bodies()) {
        try {
            step.bodies.push_back(compile_graph(body, nullptr,
                                                m_bf16 ? element::bf16 : element::f32,
                                                m_dynamic_quantization, m_winograd));
        } catch (const Exception& e) {
            m_unsupported.push_back(node->describe() + ": its body cannot run: " + e.what());
            return;
        }
    }
    for (const auto& in : node->input_values())
        step.inputs.push_back(in_layout(value_of(in), Layout::kPlain));
    for (size_t i = 0; i < node->get_output_size(); ++i)
        step.outputs.push_back(add_value(node->output(i), ValueKind::kComputed));
    m_graph->steps.push_back(std::move(step));
}

// One more op after the chain's current output, when oneDNN can apply it as a post-op.
bool GraphCompiler::fuse_link(Node& c, size_t input, const FusionTarget& target,
                              FusedChain& chain) {
    const std::string& type = c.get_type_name();
    if (c.get_output_size() != 1 || !is_f32(c.output(0))) return false;
    if (chain.post_ops.size() >= kMaxPostOps) return false;
    // A batch normalization after the step (models exported without folding it: Paddle, Keras,
    // TensorFlow): its per-channel scale and shift as two binary post-ops.
    if (c.get_type_name() == "BatchNormInference") {
        const size_t data = c.get_version() >= 5 ? 0 : 2;
        std::vector<float> scale, shift;
        if (!target.fuse_batch_norm || input != data || chain.post_ops.size() + 2 > kMaxPostOps ||
            target.channel_axis != 1 || c.input_value(data).get_shape().size() != target.rank ||
            c.input_value(data).get_shape()[1] != target.channels ||
            !batch_norm_affine(c, &scale, &shift))
            return false;
        const dnnl::memory::desc md(target.channel_dims, dt::f32,
                                    plain_tag(target.channel_dims.size()));
        for (const auto& [alg, values] :
             {std::pair{algorithm::binary_mul, &scale}, std::pair{algorithm::binary_add, &shift}}) {
            PostOp p;
            p.kind = PostOp::Kind::kBinary;
            p.algorithm = alg;
            p.desc = md;
            p.constant = make_constant(md, values->data(), md);
            chain.post_ops.push_back(p);
        }
        return true;
    }
    if (c.get_input_size() != 1 && c.get_input_size() != 2) return false;
    const Value* other = nullptr;
    if (c.get_input_size() == 2) {
        const Output& other_port = c.input_value(1 - input);
        if (!has_value(other_port)) {
            // A deferred dequantization is computed here only for an element-wise op that can
            // become a binary post-op: computing it for any two-input reader (the MatMul whose
            // weights this chain dequantizes) would take its int8 path from its other reader.
            const bool binary = type == "Add" || type == "Multiply" ||
                                ((type == "Subtract" || type == "Divide") && input == 0);
            if (!binary ||
                c.get_output_partial_shape(0) != c.input_value(input).get_partial_shape() ||
                !materialize(other_port))
                return false;
        }
        if (!is_f32(other_port)) return false;
        // A computed operand is a post-op only as a residual (below: every shape the same); one
        // a bf16 step wrote stays unconverted otherwise, for its bf16 reader (bf16_elementwise).
        const auto& shape = c.get_output_partial_shape(0);
        const size_t written = bf16_source(other_port);
        if (written != SIZE_MAX && (other_port.get_partial_shape() != shape ||
                                    c.input_value(input).get_partial_shape() != shape))
            return false;
        other = &m_graph->values[written != SIZE_MAX ? written : value_of(other_port)];
    }
    // Activations, math ops and scalar operands: eltwise post-ops.
    std::vector<PostOp> steps;
    if (eltwise_form(c, input, other, &steps, target.fuse_batch_norm)) {
        std::vector<PostOp> joined = chain.post_ops;
        if (!append_post_ops(joined, steps, target.channel_dims.size()) ||
            joined.size() > kMaxPostOps)
            return false;
        chain.post_ops = std::move(joined);
        return true;
    }
    if (c.get_input_size() != 2) return false;
    // The op must keep the chain's shape (no broadcast that enlarges it).
    if (c.get_output_partial_shape(0) != c.input_value(input).get_partial_shape()) return false;
    if (c.has_attribute("auto_broadcast")) {
        const auto& ab = c.get_attribute<std::string>("auto_broadcast");
        if (ab != "numpy" && ab != "none") return false;
    }
    // A residual operand a bf16 step wrote: read in bf16 by a bf16 convolution's chain (oneDNN's
    // binary post-ops take bf16 operands), converted to f32 for any other.
    const Output& other_port = c.input_value(1 - input);
    const size_t written = bf16_source(other_port);
    const size_t other_id =
        written != SIZE_MAX && target.bf16_residual ? written : value_of(other_port);
    const Value& ov = m_graph->values[other_id];
    const bool add = type == "Add", mul = type == "Multiply";
    const bool sub = type == "Subtract" && input == 0, div = type == "Divide" && input == 0;
    if (!add && !mul && !sub && !div) return false;
    if (ov.kind == ValueKind::kConstant) {
        if (!(add || mul || div) || !is_per_channel(ov.constant.get_shape(), target.rank,
                                                    target.channel_axis, target.channels))
            return false;
        // A per-channel operand: the bias when it is the first link, else a binary post-op.
        Tensor per_channel(element::f32, Shape{target.channels});
        const float* src = static_cast<const float*>(ov.constant.data());
        float* dst = static_cast<float*>(per_channel.data());
        const bool broadcast = ov.constant.get_size() == 1;
        for (size_t i = 0; i < target.channels; ++i) dst[i] = broadcast ? src[0] : src[i];
        if (add && target.allow_bias && chain.post_ops.empty() && !chain.bias) {
            chain.bias = per_channel;
            return true;
        }
        PostOp p;
        p.kind = PostOp::Kind::kBinary;
        p.algorithm = add   ? algorithm::binary_add
                      : mul ? algorithm::binary_mul
                            : algorithm::binary_div;
        p.desc =
            dnnl::memory::desc(target.channel_dims, dt::f32, plain_tag(target.channel_dims.size()));
        p.constant = make_constant(p.desc, per_channel.data(), p.desc);
        chain.post_ops.push_back(p);
        return true;
    }
    // A tensor of the same shape (the residual add): read in the destination's layout.
    if (!(add || mul) || ov.shape != c.get_output_partial_shape(0)) return false;
    if (target.layout == Layout::kChannelsLast && ov.shape.size() != target.rank) return false;
    // Or, when nothing reads the operand afterwards, added in place: the step writes over it.
    if (add && target.sum_in_place && ov.layout == target.layout && ov.type == element::f32 &&
        desc_of(other_id) == target.dst && overwritable(other_id, c)) {
        bool first = true;
        for (const auto& q : chain.post_ops) first &= q.kind != PostOp::Kind::kSum;
        if (first) {
            PostOp p;
            p.kind = PostOp::Kind::kSum;
            p.value = static_cast<long>(other_id);
            chain.post_ops.push_back(p);
            return true;
        }
    }
    PostOp p;
    p.kind = PostOp::Kind::kBinary;
    p.algorithm = add ? algorithm::binary_add : algorithm::binary_mul;
    p.value = static_cast<long>(in_layout(other_id, target.layout));
    p.desc = ov.type == element::bf16 ? retyped(target.dst, dt::bf16) : target.dst;
    chain.post_ops.push_back(p);
    return true;
}

FusedChain GraphCompiler::fuse_chain(const Output& start, const FusionTarget& target,
                                     size_t max_links) {
    FusedChain chain;
    chain.output = start;
    while (chain.nodes.size() < max_links) {
        const auto uses = consumers(chain.output);
        if (uses.size() >= 2 && !any_visited(uses) && chain.post_ops.size() < kMaxPostOps &&
            is_f32(chain.output)) {
            // Gelu as exporters spell it (x * 0.5 * (1 + erf(x / sqrt 2))): one post-op.
            auto gelu = uses.size() == 2 ? match_gelu_erf(chain.output, m_consumers)
                                         : std::optional<PatternMatch>();
            PostOp p;
            p.algorithm = algorithm::eltwise_gelu_erf;
            if (gelu && append_eltwise(chain.post_ops, p)) {
                for (const auto& n : gelu->nodes) {
                    chain.nodes.push_back(n);
                    m_absorbed.insert(n.get());
                }
                chain.types.push_back("Gelu");
                chain.output = gelu->output;
                continue;
            }
            // Any other activation written out (GPT-2's tanh Gelu, SiLU, HardSwish, Mish).
            if (fuse_activation_region(chain, target)) continue;
        }
        if (uses.size() != 1) break;
        Node& c = *uses[0].node;
        // A reader compiled already, or being compiled (it asked for this deferred constant).
        if (m_visited.count(&c)) break;
        // A QuantizeLinear is one step of its own (or the int8 destination of the anchor).
        if (match_quantize(c, m_consumers)) break;
        if (!fuse_link(c, uses[0].input, target, chain)) break;
        chain.nodes.push_back(c.shared_from_this());
        chain.types.push_back(c.get_type_name());
        m_absorbed.insert(&c);
        chain.output = c.output(0);
    }
    return chain;
}

void GraphCompiler::add_dnnl_step(const NodePtr& anchor, const FusedChain& chain,
                                  std::shared_ptr<DnnlOp> op, Layout out_layout) {
    Step step;
    step.kind = StepKind::kDnnl;
    step.node = anchor;
    step.fused.push_back(anchor);
    step.name = anchor->get_friendly_name();
    step.type = anchor->get_type_name();
    for (const auto& n : chain.nodes) {
        step.fused.push_back(n);
        step.name += "+" + n->get_friendly_name();
    }
    for (const auto& t : chain.types) step.type += "+" + t;
    const size_t out = add_value(chain.output, ValueKind::kComputed, out_layout);
    for (auto& a : op->args)
        if (a.is_value && a.value == SIZE_MAX) a.value = out;
    step.exec_type = op->impl + " " + layout_name(out_layout, m_graph->values[out].shape.size());
    step.outputs = {out};
    for (const auto& a : op->args)
        if (!a.is_value) m_graph->weights_bytes += a.constant.get_desc().get_size();
    step.dnnl = std::move(op);
    m_graph->steps.push_back(std::move(step));
}

// Window geometry of a convolution or pooling axis: oneDNN wants the right pad that makes
// (in + pl + pr - window) / stride + 1 equal the model's output size.

dnnl::memory GraphCompiler::weights_constant(const Output& port, const dnnl::memory::desc& plain,
                                             const void* data, const dnnl::memory::desc& desc) {
    if (plain == desc) return make_constant(plain, data, desc);
    const std::string& name = port.get_node()->get_friendly_name();
    const std::string key = name + ":" + std::to_string(port.get_index());
    const bool keyed = m_ambiguous_names.count(name) == 0;
    dnnl::memory weights;
    if (keyed && m_packed) {
        // Raw comparison of the descriptors: an entry is used only when it is byte for byte the
        // layout this primitive wants and holds exactly that many bytes; anything else reorders.
        const auto it = m_packed->find(key);
        if (it != m_packed->end() && it->second.bytes.get_byte_size() == desc.get_size() &&
            std::memcmp(&it->second.desc.data, &desc.data, sizeof(desc.data)) == 0) {
            weights = dnnl::memory(desc, cpu_engine(), it->second.bytes.data());
            m_graph->blob_buffers.push_back(it->second.bytes);
            ++m_graph->weights_from_blob;
        }
    }
    if (!weights) {
        weights = make_constant(plain, data, desc);
        ++m_graph->weights_reordered;
    }
    if (keyed) m_graph->packed[key] = weights;
    return weights;
}

// A node of constants alone that folding leaves to run time (over the budget: the f32
// dequantization of a large int8 weight) waits until something reads it: an int8 or compressed
// MatMul that takes the integers never does, and the 400 MB of f32 are never computed.
bool GraphCompiler::defer_constant(const NodePtr& node) {
    if (m_graph->dynamic || m_emitting.count(node.get()) || node->get_input_size() == 0 ||
        node->get_output_size() == 0 || runs_at_inference(*node))
        return false;
    bool lazy_input = false;
    for (const auto& in : node->input_values()) {
        if (m_lazy.count(in.get_node())) {
            lazy_input = true;
            continue;
        }
        if (!has_value(in) || bf16_source(in) != SIZE_MAX || blocked_source(in) != SIZE_MAX ||
            m_gates.count(in) || m_graph->values[value_of(in)].kind != ValueKind::kConstant)
            return false;
    }
    if (!lazy_input && fold_constant(node)) return true;
    m_lazy.insert(node.get());
    return true;
}

bool GraphCompiler::emit_deferred_constant(const Output& port) {
    Node* node = port.get_node();
    if (!m_lazy.erase(node)) return false;
    m_emitting.insert(node);
    compile_node(node->shared_from_this());
    return has_value(port);
}

// One node of the model, in topological order (or when a reader needs a deferred constant).
void GraphCompiler::compile_node(const NodePtr& node) {
    const std::string& type = node->get_type_name();
    if (type == "Parameter" || type == "Result" || type == "Constant" ||
        m_absorbed.count(node.get()) || m_skipped.count(node.get()))
        return;
    m_visited.insert(node.get());
    if (defer_constant(node)) return;
    if (auto it = m_integer_matmuls.find(node.get()); it != m_integer_matmuls.end()) {
        if (try_integer_matmul(node, it->second)) return;
        // No int8 kernel for it: the absorbed Convert and Subtract run as written first.
        for (const auto& n : it->second.nodes) {
            m_absorbed.erase(n.get());
            materialize_inputs(*n);
            add_reference_step(n);
        }
    }
    if (!m_graph->dynamic && try_int8(node)) return;
    if (auto it = m_norms.find(node.get()); it != m_norms.end()) {
        materialize(it->second.input);
        if (has_value(it->second.input)) add_norm_step(node, it->second);
        return;
    }
    if (auto it = m_rotaries.find(node.get()); it != m_rotaries.end()) {
        const RotaryMatch& m = it->second;
        for (const auto& port : {m.input, m.cos, m.sin}) materialize(port);
        if (has_value(m.input) && has_value(m.cos) && has_value(m.sin)) add_rotary_step(node, m);
        return;
    }
    if (auto it = m_compressed.find(node.get()); it != m_compressed.end()) {
        materialize(node->input_value(0));
        if (has_value(node->input_value(0))) add_compressed_matmul_step(node, it->second);
        return;
    }
    materialize_inputs(*node);
    if (type == "If" || type == "Loop") {
        add_subgraph_step(node);
        return;
    }
    bool missing_input = false;
    for (const auto& in : node->input_values()) missing_input |= !has_value(in);
    if (missing_input) return;  // an input's op was unsupported (already reported)
    if (type == "ReadValue" || type == "Assign") {
        add_state_step(node);
        return;
    }
    if (fold_constant(node)) return;
    bool done = false;
    // oneDNN 2.6 divides by zero creating some primitives with an empty dimension (a MatMul
    // of batch 0 was SIGFPE): nodes that touch an empty tensor run on the reference kernels,
    // which produce empty outputs.
    if (!m_graph->dynamic && !touches_empty_tensor(*node)) {
        const auto absorbed = m_absorbed;
        try {
            if (type == "Convolution" || type == "GroupConvolution")
                done = try_convolution(node);
            else if (type == "MatMul")
                done = try_dynamic_quant_matmul(node) || try_matmul(node);
            else if (type == "MaxPool" || type == "AvgPool")
                done = try_pooling(node);
            else if (type == "Softmax")
                done = try_softmax(node);
            else if (type == "ReduceMean" || type == "MVN")
                done = try_layer_norm(node) || (type == "ReduceMean" && try_reduce(node));
            else if (type.rfind("Reduce", 0) == 0)
                done = try_reduce(node);
            else if (type == "Concat")
                done = try_concat(node);
            else if (type == "BatchNormInference")
                done = try_batch_norm(node);
            else if (type == "Split" || type == "VariadicSplit")
                done = try_split(node);
            else if (type == "ConvolutionBackpropData")
                done = try_deconvolution(node);
            else if (type == "Interpolate")
                done = try_interpolate(node);
            else if (type == "LSTMSequence" || type == "GRUSequence" || type == "RNNSequence")
                done = try_rnn(node);
            else if (type == "Convert")
                done = try_convert(node);
            else if (type == "Transpose" || type == "Reshape" || type == "Squeeze" ||
                     type == "Unsqueeze" || type == "Slice")
                done = try_movement(node);
            else if (node->get_input_size() <= 2)
                done = try_defer_gate(node) || try_eltwise(node) || try_binary(node);
        } catch (const dnnl::error&) {
            // oneDNN has no implementation for this case: the reference kernels run the anchor
            // and the ops its chain had absorbed.
            m_absorbed = absorbed;
            done = false;
        }
    }
    if (!done) {
        for (const auto& in : node->input_values()) emit_gate(in);
        add_reference_step(node);
    }
}

std::shared_ptr<const Graph> GraphCompiler::compile() {
    const NodeVector nodes = m_model->get_ordered_ops();
    for (size_t i = 0; i < nodes.size(); ++i) m_order[nodes[i].get()] = i;
    {
        std::set<std::string> seen;
        for (const auto& node : nodes)
            if (!seen.insert(node->get_friendly_name()).second)
                m_ambiguous_names.insert(node->get_friendly_name());
    }
    m_graph->variables = m_model->get_variables();
    std::sort(m_graph->variables.begin(), m_graph->variables.end(),
              [](const VariableInfo& a, const VariableInfo& b) { return a.id < b.id; });
    for (size_t i = 0; i < m_graph->variables.size(); ++i)
        m_variable_index[m_graph->variables[i].id] = i;
    for (const auto& node : nodes) {
        for (size_t i = 0; i < node->get_input_size(); ++i)
            m_consumers[node->input_value(i)].push_back({node.get(), i});
        for (size_t i = 0; i < node->get_output_size(); ++i)
            if (!node->get_output_partial_shape(i).is_static()) m_graph->dynamic = true;
        if (node->get_type_name() == "If" || node->get_type_name() == "Loop")
            m_graph->dynamic = true;
        // MatMuls over compressed weights read the integers: the decompression ops run nowhere.
        if (node->get_type_name() == "MatMul" && node->get_rt_info().count(kCompressedMatMulKey))
            if (auto w = match_compressed_weights(*node)) {
                for (const auto& op : w->chain) m_absorbed.insert(op.get());
                m_compressed.emplace(node.get(), std::move(*w));
            }
    }
    if (!m_graph->dynamic)
        for (const auto& node : nodes)
            if (auto m = match_integer_matmul(*node, m_consumers)) {
                bool free = true;
                for (const auto& n : m->nodes) free &= !m_absorbed.count(n.get());
                if (!free) continue;
                for (const auto& n : m->nodes) m_absorbed.insert(n.get());
                m_integer_matmuls.emplace(node.get(), std::move(*m));
            }
    const auto& params = m_model->get_parameters();
    for (size_t p = 0; p < params.size(); ++p) {
        const size_t id = add_value(params[p]->output(0), ValueKind::kParameter);
        m_graph->values[id].parameter = p;
        m_graph->parameter_values.push_back(id);
        if (!params[p]->get_output_partial_shape(0).is_static()) m_graph->dynamic = true;
    }
    // Constants first: a fused chain may read one that comes after its anchor in topological order.
    for (const auto& node : nodes) {
        if (node->get_type_name() != "Constant") continue;
        const size_t id = add_value(node->output(0), ValueKind::kConstant);
        m_graph->values[id].constant = node->get_constant_value();
    }
    if (m_graph->dynamic) add_static_region(nodes);
    if (m_graph->dynamic) match_dynamic_fusions(nodes);
    for (const auto& node : nodes) compile_node(node);
    if (!m_unsupported.empty()) {
        std::string message;
        for (const auto& m : m_unsupported) message += "\n  " + m;
        throw_error<NotImplemented>(kDeviceName,
                                    ": the model has ops the CPU plugin cannot run:", message);
    }
    for (const auto& result : m_model->get_results()) materialize(result->input_value(0));
    for (const auto& result : m_model->get_results()) {
        // A Winograd convolution's output goes to plain in one reorder, not through NHWC.
        const size_t blocked = blocked_source(result->input_value(0));
        m_graph->result_values.push_back(
            blocked != SIZE_MAX ? in_layout(blocked, Layout::kPlain)
                                : in_layout(value_of(result->input_value(0)), Layout::kPlain));
    }
    // The attention shares the threads of the graph's MatMuls: OpenMP (oneDNN's sgemm) unless
    // the graph has compressed-weight MatMuls (the stream's helpers). Two pools on the same cores
    // steal each other's time while one spins: f32 GPT-2-style decode at a 960-token context, 2
    // threads, attention 5.0 ms per token on the helpers against 2.1 on OpenMP; int4, GEMV
    // 3.5-3.7 ms with the attention on the helpers against 5.9-6.9 on OpenMP.
    bool compressed = false;
    for (const auto& step : m_graph->steps)
        compressed |= step.exec_type.rfind("compressed_", 0) == 0;
    if (compressed)
        for (auto& step : m_graph->steps)
            if (step.exec_type == "flash_attention")
                step.kernel = attention_kernel(
                    *step.node, reference::KernelRegistry::instance().create(*step.node),
                    /*openmp=*/false);
    if (m_graph->dynamic) drop_unused_steps();
    m_graph->plan_memory();
    return m_graph;
}

}  // namespace detail

std::shared_ptr<const Graph> compile_graph(std::shared_ptr<const Model> model,
                                           const PackedWeightsMap* packed, element::Type precision,
                                           bool dynamic_quantization, bool winograd) {
    return detail::GraphCompiler(std::move(model), packed, precision == element::bf16,
                                 dynamic_quantization, winograd)
        .compile();
}

}  // namespace vireo::cpu_plugin
