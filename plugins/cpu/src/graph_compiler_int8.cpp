// Implements the graph compiler's int8 path for quantized (QDQ) models: DequantizeLinear chains
// are deferred so that a Convolution or MatMul reads their integers, runs as a u8/s8 x s8 oneDNN
// primitive (output scales, source zero point) and writes f32 or, when a QuantizeLinear follows,
// its integers; QuantizeLinear and the dequantizations still needed become single reorders.
#include <algorithm>
#include <cmath>
#include <limits>

#include "dynamic_quantization.hpp"
#include "graph_compiler_impl.hpp"

namespace vireo::cpu_plugin::detail {
namespace {

dt int8_type(element::Type type) {
    return type == element::u8 ? dt::u8 : type == element::i8 ? dt::s8 : dt::undef;
}

// A one-element s32 memory holding `value` (a zero point passed at run time, as oneDNN 2.6's jit
// int8 kernels require: DNNL_RUNTIME_S32_VAL at creation).
dnnl::memory s32_scalar(int32_t value) {
    const dnnl::memory::desc md({1}, dt::s32, tag::a);
    return make_constant(md, &value, md);
}

// The end both int8 builders share: the bias divided by the output scales (oneDNN adds it to the
// integer accumulator before scaling), the activation zero point, and the destination.
void append_int8_tail(DnnlOp& op, const Tensor& bias, const std::vector<float>& out_scales,
                      const dnnl::memory::desc& bias_md, const dnnl::memory::desc& primitive_bias,
                      int32_t zero_point, const dnnl::memory::desc& dst_md) {
    if (bias) {
        std::vector<float> scaled(out_scales.size());
        const float* b = static_cast<const float*>(bias.data());
        for (size_t c = 0; c < scaled.size(); ++c) scaled[c] = b[c] / out_scales[c];
        op.args.push_back(
            {DNNL_ARG_BIAS, false, 0, {}, make_constant(bias_md, scaled.data(), primitive_bias)});
    }
    if (zero_point != 0)
        op.args.push_back(
            {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, false, 0, {}, s32_scalar(zero_point)});
    op.args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
}

// The scale of each of `channels` output channels of weights `w` (one per tensor or one per
// channel, the channel being the flat index / (size / channels) for convolution weights and
// (flat / stride) % channels for MatMul ones); empty when the scales run along another axis.
std::vector<float> weight_scales(const QuantizedWeights& w, size_t channels, size_t stride) {
    if (w.scales.size() == 1) return std::vector<float>(channels, w.scales[0]);
    if (w.scales.size() != channels || w.stride != stride) return {};
    return w.scales;
}

bool scales_usable(const std::vector<float>& scales) {
    if (scales.empty()) return false;
    for (float s : scales)
        if (!(s > 0) || !std::isfinite(s)) return false;  // zero scale: f32 ops keep the semantics
    return true;
}

const char* q_type_name(dt type) {
    return type == dt::u8 ? "u8" : "s8";
}

bool reference_impl(const std::string& impl) {
    return impl.rfind("ref", 0) == 0;
}

}  // namespace

bool GraphCompiler::try_int8(const NodePtr& node) {
    const std::string& type = node->get_type_name();
    if (type == "Convert") {
        auto dq = match_dequantize(*node, m_consumers);
        if (!dq || !has_value(dq->q) ||
            m_graph->values[value_of(dq->q)].kind == ValueKind::kConstant ||
            !dq->q.get_partial_shape().is_static())
            return false;
        for (size_t i = 1; i < dq->nodes.size(); ++i) m_absorbed.insert(dq->nodes[i].get());
        m_deferred.emplace(dq->output, std::move(*dq));
        return true;
    }
    if (type == "Divide") {
        // QuantizeLinear(DequantizeLinear(q)) with the same scale, zero point and type is q: the
        // pair cancels and the Q's output port names q's value (no step).
        if (auto it = m_deferred.find(node->input_value(0)); it != m_deferred.end()) {
            const auto qm = match_quantize(*node, m_consumers);
            const DequantizeMatch& dq = it->second;
            if (qm && qm->scale == dq.scale && qm->zero_point == dq.zero_point &&
                qm->type == dq.q.get_element_type()) {
                for (size_t i = 1; i < qm->nodes.size(); ++i) m_absorbed.insert(qm->nodes[i].get());
                m_value_of[qm->output] = value_of(dq.q);
                return true;
            }
        }
        if (!has_value(node->input_value(0)) && !materialize(node->input_value(0))) return false;
        return try_quantize(node);
    }
    if (type == "Add") {
        const auto absorbed = m_absorbed;
        try {
            if (try_int8_add(node)) return true;
        } catch (const dnnl::error&) {
        }
        m_absorbed = absorbed;
        return false;
    }
    if (node->get_input_size() == 0) return false;
    auto it = m_deferred.find(node->input_value(0));
    if (it == m_deferred.end()) return false;
    const DequantizeMatch dq = it->second;
    const auto absorbed = m_absorbed;
    bool done = false;
    try {
        if (type == "Convolution" || type == "GroupConvolution")
            done = try_int8_convolution(node, dq);
        else if (type == "MatMul")
            done = try_int8_matmul(node, dq);
        else if (type == "MaxPool")
            done = try_int8_max_pool(node, dq);
    } catch (const dnnl::error&) {
        done = false;
    }
    if (!done) m_absorbed = absorbed;  // the f32 builders run the anchor and its chain
    return done;
}

bool GraphCompiler::materialize(const Output& port) {
    if (emit_deferred_constant(port) || emit_gate(port)) return true;
    auto it = m_deferred.find(port);
    if (it == m_deferred.end()) return false;
    const DequantizeMatch dq = it->second;
    m_deferred.erase(it);
    const size_t q = value_of(dq.q);
    const Layout layout = m_graph->values[q].layout;
    FusedChain chain;
    chain.nodes.assign(dq.nodes.begin() + 1, dq.nodes.end());
    for (const auto& n : chain.nodes) chain.types.push_back(n->get_type_name());
    chain.output = dq.output;
    try {
        // (q - zero point) * scale: the reorder's source zero point and output scale.
        dnnl::primitive_attr attr;
        attr.set_output_scales(0, {dq.scale});
        if (dq.zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        const auto from = desc_of(q);
        const dnnl::memory::desc to(from.dims(), dt::f32,
                                    layout == Layout::kPlain
                                        ? plain_tag(from.dims().size())
                                        : channels_last_tag(from.dims().size()));
        auto op = make_reorder(from, to, q, SIZE_MAX, attr);
        if (reference_impl(op->impl)) throw dnnl::error(dnnl_unimplemented, "reference reorder");
        if (dq.zero_point != 0)
            op->args.push_back({DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
                                false,
                                0,
                                {},
                                s32_scalar(dq.zero_point)});
        add_dnnl_step(dq.nodes[0], chain, std::move(op), layout);
        m_graph->steps.back().type = "Dequantize";
    } catch (const dnnl::error&) {
        for (const auto& n : dq.nodes) add_reference_step(n);
    }
    return true;
}

void GraphCompiler::materialize_inputs(const Node& node) {
    for (const auto& in : node.input_values()) {
        // A deferred gate stays deferred for its convolution (try_convolution takes it).
        if (const auto it = m_gates.find(in); it != m_gates.end() && it->second.reader == &node)
            continue;
        materialize(in);
    }
}

bool GraphCompiler::try_quantize(const NodePtr& node) {
    const auto qm = match_quantize(*node, m_consumers);
    if (!qm || !qm->input.get_partial_shape().is_static()) return false;
    const size_t x = value_of(qm->input);
    const Value& xv = m_graph->values[x];
    if (xv.type != element::f32 || xv.kind == ValueKind::kConstant) return false;
    const Layout layout = xv.layout;
    const auto from = desc_of(x);
    const dnnl::memory::desc to(from.dims(), int8_type(qm->type),
                                layout == Layout::kPlain ? plain_tag(from.dims().size())
                                                         : channels_last_tag(from.dims().size()));
    dnnl::primitive_attr attr;
    attr.set_output_scales(0, {1.f / qm->scale});
    if (qm->zero_point != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    std::shared_ptr<DnnlOp> op;
    try {
        op = make_reorder(from, to, x, SIZE_MAX, attr);
    } catch (const dnnl::error&) {
        return false;
    }
    if (reference_impl(op->impl)) return false;
    if (qm->zero_point != 0)
        op->args.push_back(
            {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, false, 0, {}, s32_scalar(qm->zero_point)});
    FusedChain chain;
    for (size_t i = 1; i < qm->nodes.size(); ++i) {
        chain.nodes.push_back(qm->nodes[i]);
        chain.types.push_back(qm->nodes[i]->get_type_name());
        m_absorbed.insert(qm->nodes[i].get());
    }
    chain.output = qm->output;
    add_dnnl_step(node, chain, std::move(op), layout);
    m_graph->steps.back().type = "Quantize";
    return true;
}

// QuantizeLinear's scale and shift as one linear post-op (the integer destination rounds and
// saturates).
static PostOp requantize_post_op(const QuantizeMatch& qm) {
    PostOp p;
    p.algorithm = algorithm::eltwise_linear;
    p.alpha = 1.f / qm.scale;
    p.beta = static_cast<float>(qm.zero_point);
    return p;
}

bool GraphCompiler::through_dequantize(FusedChain& chain, const QuantizeMatch& qm,
                                       const FusionTarget& target) {
    const auto readers = consumers(qm.output);
    if (readers.size() != 1) return false;
    const auto dq = match_dequantize(*readers[0].node, m_consumers);
    if (!dq || dq->q != qm.output || dq->scale != qm.scale || dq->zero_point != qm.zero_point)
        return false;
    // QuantizeLinear then DequantizeLinear of the f32 result x: (clip(round(x / s + zp)) - zp) * s,
    // round half to even as ONNX's, the clip to the integer type's range.
    const bool u8 = qm.type == element::u8;
    std::vector<PostOp> trip(4);
    trip[0].algorithm = algorithm::eltwise_linear;
    trip[0].alpha = 1.f / qm.scale;
    trip[0].beta = static_cast<float>(qm.zero_point);
    trip[1].algorithm = algorithm::eltwise_round;
    trip[2].algorithm = algorithm::eltwise_clip;
    trip[2].alpha = u8 ? 0.f : -128.f;
    trip[2].beta = u8 ? 255.f : 127.f;
    trip[3].algorithm = algorithm::eltwise_linear;
    trip[3].alpha = qm.scale;
    trip[3].beta = -static_cast<float>(qm.zero_point) * qm.scale;
    std::vector<PostOp> ops = chain.post_ops;
    if (!append_post_ops(ops, trip, target.rank)) return false;
    // Only worth it when an activation (or more of the f32 chain) follows; a bias-like first
    // link would be misplaced, as would a chain too long for one primitive.
    const auto absorbed = m_absorbed;
    FusedChain rest = fuse_chain(dq->output, target);
    bool eltwise_only = true;
    for (const auto& p : rest.post_ops) eltwise_only &= p.kind == PostOp::Kind::kEltwise;
    // ... and only when integers go on (the activation's result quantized for the next
    // convolution): an f32 destination, or a residual Add that must read the other operand in
    // f32, made ResNet-50 and MobileNet-V2 slower than their integer Add and separate steps.
    const auto next = consumers(rest.output);
    const auto q_after =
        next.size() == 1 ? match_quantize(*next[0].node, m_consumers) : std::nullopt;
    std::vector<PostOp> with_q;
    bool fits = false;
    if (q_after && !rest.nodes.empty() && !rest.bias && eltwise_only &&
        append_post_ops(ops, rest.post_ops, target.rank)) {
        with_q = ops;
        fits = append_post_ops(with_q, {requantize_post_op(*q_after)}, target.rank) &&
               with_q.size() <= kMaxPostOps;
    }
    if (!fits) {
        m_absorbed = absorbed;
        return false;
    }
    chain.post_ops = std::move(ops);
    for (const auto* part : {&qm.nodes, &dq->nodes})
        for (const auto& n : *part) {
            chain.nodes.push_back(n);
            m_absorbed.insert(n.get());
        }
    chain.types.push_back("Quantize");
    chain.types.push_back("Dequantize");
    for (size_t i = 0; i < rest.nodes.size(); ++i) chain.nodes.push_back(rest.nodes[i]);
    for (const auto& t : rest.types) chain.types.push_back(t);
    chain.output = rest.output;
    return true;
}

dt GraphCompiler::requantize_chain(FusedChain& chain, const FusionTarget* target) {
    const auto uses = consumers(chain.output);
    if (uses.size() != 1) return dt::f32;
    const auto qm = match_quantize(*uses[0].node, m_consumers);
    if (!qm) return dt::f32;
    if (target && through_dequantize(chain, *qm, *target)) return requantize_chain(chain, target);
    // y = saturate(round(x / scale) + zero point): the f32 result scaled and shifted by one linear
    // post-op, rounded and saturated by the integer destination (after a round trip, where a
    // linear step is there already, as a scalar multiply and add: append_post_ops).
    const PostOp p = requantize_post_op(*qm);
    std::vector<PostOp> joined = chain.post_ops;
    const bool after_trip = target && std::find(chain.types.begin(), chain.types.end(),
                                                "Dequantize") != chain.types.end();
    const bool appended =
        after_trip ? append_post_ops(joined, {p}, target->rank) : append_eltwise(joined, p);
    if (!appended || joined.size() > kMaxPostOps) return dt::f32;
    chain.post_ops = std::move(joined);
    for (const auto& n : qm->nodes) {
        chain.nodes.push_back(n);
        m_absorbed.insert(n.get());
    }
    chain.types.push_back("Quantize");
    chain.output = qm->output;
    return int8_type(qm->type);
}

bool GraphCompiler::try_int8_convolution(const NodePtr& node, const DequantizeMatch& dq) {
    const bool grouped = node->get_type_name() == "GroupConvolution";
    const Output& wport = node->input_value(1);
    if (!is_f32(node->output(0))) return false;
    const auto qw = quantized_weights_of(wport);
    if (!qw || !qw->symmetric || qw->q.get_element_type() != element::i8) return false;
    const Shape in = dq.q.get_shape(), out = node->get_output_shape(0), wshape = wport.get_shape();
    const size_t rank = in.size();
    if (rank < 3 || rank > 5) return false;
    const size_t channels = out[1];
    const std::vector<float> w_scales =
        weight_scales(*qw, channels, shape_size(wshape) / std::max<size_t>(channels, 1));
    if (!scales_usable(w_scales)) return false;
    const size_t lead = grouped ? 3 : 2;
    std::vector<size_t> kernel(wshape.begin() + lead, wshape.end());
    Window w;
    if (!resolve_window(*node, in, out, kernel,
                        node->get_attribute<std::vector<int64_t>>("dilations"), &w))
        return false;

    const dnnl::memory::desc src_md(dims_of(in), int8_type(dq.q.get_element_type()),
                                    channels_last_tag(rank));
    dnnl::memory::desc dst_md(dims_of(out), dt::f32, channels_last_tag(rank));
    const tag wtag = grouped ? (rank == 3   ? tag::abcd
                                : rank == 4 ? tag::abcde
                                            : tag::abcdef)
                             : plain_tag(rank);
    const dnnl::memory::desc w_plain(dims_of(wshape), dt::s8, wtag);
    const dnnl::memory::desc w_any(dims_of(wshape), dt::s8, tag::any);

    FusionTarget target;
    target.rank = rank;
    target.channel_axis = 1;
    target.channels = channels;
    target.layout = Layout::kChannelsLast;
    target.dst = dst_md;
    target.channel_dims = Dims(rank, 1);
    target.channel_dims[1] = static_cast<dnnl::memory::dim>(channels);
    FusedChain chain = fuse_chain(node->output(0), target);
    // The chain through a QDQ pair into the activation after it (requantize_chain with a
    // target); when oneDNN has only its reference kernel for that chain, the plain one.
    const FusedChain plain_chain = chain;
    const auto absorbed_before = m_absorbed;
    dst_md =
        dnnl::memory::desc(dims_of(out), requantize_chain(chain, &target), channels_last_tag(rank));
    const bool extended =
        chain.nodes.size() > plain_chain.nodes.size() &&
        std::find(chain.types.begin(), chain.types.end(), "Dequantize") != chain.types.end();

    // acc = sum (q_x - zp_x) * q_w in s32; dst = scale_x * scale_w[oc] * (acc + bias'), oneDNN
    // 2.6 adding the bias before the output scale, so the f32 bias is divided by it.
    std::vector<float> out_scales(channels);
    for (size_t c = 0; c < channels; ++c) out_scales[c] = dq.scale * w_scales[c];
    // Without padding every window is whole, so the source zero point's share of the sum,
    // zp_x * (sum of channel oc's weights), is one number per output channel: it goes into the
    // bias and the primitive takes no zero point. oneDNN 2.6 has no brgemm convolution with a
    // source zero point (its jit_1x1 / jit_int8 kernels ran MobileNet-V3's 1x1 convolutions after
    // HardSwish, whose u8 zero point is not 0, 3-10x slower).
    bool padded = false;
    for (size_t i = 0; i < w.pad_l.size(); ++i) padded |= w.pad_l[i] != 0 || w.pad_r[i] != 0;
    Tensor bias = chain.bias;
    int32_t src_zero_point = dq.zero_point;
    if (src_zero_point != 0 && !padded) {
        Tensor compensated(element::f32, Shape{channels});
        float* b = static_cast<float*>(compensated.data());
        const auto* q = static_cast<const int8_t*>(qw->q.data());
        const size_t per_channel = qw->q.get_size() / channels;
        for (size_t c = 0; c < channels; ++c) {
            int64_t sum = 0;
            for (size_t k = 0; k < per_channel; ++k) sum += q[c * per_channel + k];
            // Stored as the f32 bias that append_int8_tail divides by the output scale.
            b[c] = (bias ? static_cast<const float*>(bias.data())[c] : 0.f) -
                   out_scales[c] * static_cast<float>(src_zero_point * sum);
        }
        bias = compensated;
        src_zero_point = 0;
    }
    auto op = std::make_shared<DnnlOp>();
    auto attr = make_attr(chain.post_ops, op.get());
    attr.set_output_scales(1 << 1, out_scales);
    if (src_zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    const dnnl::memory::desc bias_md =
        bias ? dnnl::memory::desc({static_cast<dnnl::memory::dim>(channels)}, dt::f32, tag::a)
             : dnnl::memory::desc();
    auto make_pd = [&](const dnnl::primitive_attr& a) {
        dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                             algorithm::convolution_direct, src_md, w_any, bias_md,
                                             dst_md, w.strides, w.dilations, w.pad_l, w.pad_r);
        return dnnl::convolution_forward::primitive_desc(desc, a, cpu_engine());
    };
    std::optional<dnnl::convolution_forward::primitive_desc> maybe;
    try {
        maybe = make_pd(attr);
    } catch (const dnnl::error&) {
        if (!extended) throw;
    }
    if (extended && (!maybe || reference_impl(maybe->impl_info_str()))) {
        chain = plain_chain;
        m_absorbed = absorbed_before;
        dst_md = dnnl::memory::desc(dims_of(out), requantize_chain(chain), channels_last_tag(rank));
        op = std::make_shared<DnnlOp>();
        attr = make_attr(chain.post_ops, op.get());
        attr.set_output_scales(1 << 1, out_scales);
        if (src_zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        maybe = make_pd(attr);
    }
    const dnnl::convolution_forward::primitive_desc& pd = *maybe;
    if (reference_impl(pd.impl_info_str())) return false;
    op->primitive = dnnl::convolution_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    const size_t src = in_layout(value_of(dq.q), Layout::kChannelsLast);
    op->args.push_back({DNNL_ARG_SRC, true, src, src_md, {}});
    op->args.push_back({DNNL_ARG_WEIGHTS,
                        false,
                        0,
                        {},
                        weights_constant(wport, w_plain, qw->q.data(), pd.weights_desc())});
    append_int8_tail(*op, bias, out_scales, bias_md, pd.bias_desc(), src_zero_point, dst_md);
    add_dnnl_step(node, chain, std::move(op), Layout::kChannelsLast);
    m_graph->steps.back().type = "Int8" + m_graph->steps.back().type;
    return true;
}

bool GraphCompiler::try_dynamic_quant_matmul(const NodePtr& node) {
    if (!m_dynamic_quantization || !int8_dot_product_supported()) return false;
    const Output& a = node->input_value(0);
    const Output& b = node->input_value(1);
    if (!is_f32(a) || !is_f32(b) || !is_f32(node->output(0)) ||
        node->get_attribute<bool>("transpose_a"))
        return false;
    const bool tb = node->get_attribute<bool>("transpose_b");
    const size_t bv = value_of(b);
    const Shape as = a.get_shape(), bs = b.get_shape(), out = node->get_output_shape(0);
    if (m_graph->values[bv].kind != ValueKind::kConstant || as.size() < 2 || bs.size() != 2)
        return false;
    const size_t K = as.back(), N = out.back(), M = shape_size(as) / std::max<size_t>(K, 1);
    // A short reduction gains less from int8 than quantizing the activation costs.
    if (K < kMinDynamicQuantizationDepth || N == 0 || M == 0) return false;
    const Tensor& wt = m_graph->values[bv].constant;
    QuantizedColumns qw = quantize_columns(static_cast<const float*>(wt.data()), K, N, tb);
    if (qw.scales.empty()) return false;  // a weight that is not finite: f32 keeps it

    const auto d = [](size_t v) { return static_cast<dnnl::memory::dim>(v); };
    const dnnl::memory::desc src_md({d(M), d(K)}, dt::u8, tag::ab);
    const dnnl::memory::desc w_plain({d(K), d(N)}, dt::s8, tb ? Dims{1, d(K)} : Dims{d(N), 1});
    const dnnl::memory::desc w_any({d(K), d(N)}, dt::s8, tag::any);
    const dnnl::memory::desc dst_md({d(M), d(N)}, dt::f32, tag::ab);
    const FusionTarget target = matmul_target(out.size(), N, dst_md);
    const auto absorbed = m_absorbed;
    FusedChain chain = fuse_chain(node->output(0), target);
    // The activation's quantization, one step per activation value however many MatMuls read it.
    const size_t av = in_layout(value_of(a), Layout::kPlain);
    auto quantized = m_dynamic_quantized.find(av);
    const bool new_step = quantized == m_dynamic_quantized.end();
    DynamicQuantized dq;
    if (!new_step) dq = quantized->second;
    // oneDNN's brgemm int8 kernels take per-channel output scales fixed at creation (run-time
    // ones fall back to the slower gemm kernel): the weight scales are those, and the activation's
    // scale, known at run time, is the first post-op (a product with a one-element value), then
    // the bias (oneDNN would add a bias before the scales), then the chain.
    std::vector<PostOp> post_ops(1);
    post_ops[0].kind = PostOp::Kind::kBinary;
    post_ops[0].algorithm = algorithm::binary_mul;
    post_ops[0].desc = dnnl::memory::desc({1, 1}, dt::f32, tag::ab);
    post_ops[0].value = 0;  // the scale's value id, once it exists (below)
    if (chain.bias) {
        PostOp bias;
        bias.kind = PostOp::Kind::kBinary;
        bias.algorithm = algorithm::binary_add;
        bias.desc = dnnl::memory::desc({1, d(N)}, dt::f32, tag::ab);
        bias.constant = make_constant(bias.desc, chain.bias.data(), bias.desc);
        post_ops.push_back(std::move(bias));
    }
    post_ops.insert(post_ops.end(), chain.post_ops.begin(), chain.post_ops.end());
    auto op = std::make_shared<DnnlOp>();
    dnnl::matmul::primitive_desc pd;
    try {
        if (post_ops.size() > kMaxPostOps) throw dnnl::error(dnnl_unimplemented, "post-ops");
        auto attr = make_attr(post_ops, op.get());
        attr.set_output_scales(1 << 1, qw.scales);
        attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, w_any, dst_md), attr,
                                          cpu_engine());
        if (reference_impl(pd.impl_info_str()))
            throw dnnl::error(dnnl_unimplemented, "reference int8 matmul");
    } catch (const dnnl::error&) {
        m_absorbed = absorbed;  // the f32 MatMul builder runs the anchor and its chain
        return false;
    }
    if (new_step) {
        // A copy: add_internal_value grows the values (a reference into them would dangle).
        const std::string base = m_graph->values[av].name;
        dq.q = add_internal_value(dims_of(as), base + " (u8)", element::u8);
        dq.zero_point = add_internal_value({1}, base + " (u8 zero point)", element::i32);
        dq.scale = add_internal_value({1}, base + " (u8 scale)", element::f32);
        Step quantize;
        quantize.kind = StepKind::kReference;
        quantize.node = node;
        quantize.fused = {node};
        quantize.name = node->get_friendly_name() + ":quantize";
        quantize.type = "DynamicQuantize";
        quantize.exec_type = "dynamic_u8";
        quantize.kernel = dynamic_quantize_kernel();
        quantize.inputs = {av};
        quantize.outputs = {dq.q, dq.zero_point, dq.scale};
        for (size_t v : quantize.outputs) m_graph->values[v].producer = m_graph->steps.size();
        m_graph->steps.push_back(std::move(quantize));
        m_dynamic_quantized.emplace(av, dq);
    }
    for (auto& arg : op->args)  // the scale's post-op operand (make_attr listed it as value 0)
        if (arg.arg == (DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1)) arg.value = dq.scale;

    op->primitive = dnnl::matmul(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, dq.q, src_md, {}});
    op->args.push_back({DNNL_ARG_WEIGHTS,
                        false,
                        0,
                        {},
                        weights_constant(b, w_plain, qw.q.data(), pd.weights_desc())});
    op->args.push_back({DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
                        true,
                        dq.zero_point,
                        dnnl::memory::desc({1}, dt::s32, tag::a),
                        {}});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    add_dnnl_step(node, chain, std::move(op), Layout::kPlain);
    m_graph->steps.back().type = "Int8" + m_graph->steps.back().type;
    return true;
}

bool GraphCompiler::try_integer_matmul(const NodePtr& node, const IntegerMatMulMatch& m) {
    if (!has_value(m.q) || (m.computed_zero_point && !has_value(m.computed_zero_point)))
        return false;
    const Output& b = node->input_value(1);
    const bool tb = node->get_attribute<bool>("transpose_b");
    const Shape as = m.q.get_shape(), out = node->get_output_shape(0);
    const size_t K = as.back(), N = out.back(), M = shape_size(as) / std::max<size_t>(K, 1);
    if (K == 0 || N == 0 || M == 0) return false;
    const Tensor& wt = m_graph->values[value_of(b)].constant;
    std::vector<int8_t> w(wt.get_size());
    const float* wv = static_cast<const float*>(wt.data());
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(wv[i]);  // checked integers
    const auto d = [](size_t v) { return static_cast<dnnl::memory::dim>(v); };
    const dt q_type = int8_type(m.q.get_element_type());
    const dnnl::memory::desc src_md({d(M), d(K)}, q_type, tag::ab);
    const dnnl::memory::desc w_plain({d(K), d(N)}, dt::s8, tb ? Dims{1, d(K)} : Dims{d(N), 1});
    const dnnl::memory::desc w_any({d(K), d(N)}, dt::s8, tag::any);
    const auto absorbed = m_absorbed;
    // MatMulInteger's i32 result: written as s32 straight into the Convert to i32 that follows
    // it (exact for any K), else as f32 with the chain after it.
    FusedChain chain;
    dt dst_type = dt::f32;
    const auto uses = consumers(node->output(0));
    if (uses.size() == 1 && uses[0].node->get_type_name() == "Convert" &&
        uses[0].node->get_output_element_type(0) == element::i32) {
        Node& convert = *uses[0].node;
        chain.nodes.push_back(convert.shared_from_this());
        chain.types.push_back("Convert");
        chain.output = convert.output(0);
        m_absorbed.insert(&convert);
        dst_type = dt::s32;
    } else {
        FusionTarget target =
            matmul_target(out.size(), N, dnnl::memory::desc({d(M), d(N)}, dt::f32, tag::ab));
        target.allow_bias = false;  // oneDNN would add it to the integer sum
        chain = fuse_chain(node->output(0), target);
    }
    const dnnl::memory::desc dst_md({d(M), d(N)}, dst_type, tag::ab);
    const bool zero_point = m.computed_zero_point || m.zero_point != 0;
    auto op = std::make_shared<DnnlOp>();
    dnnl::matmul::primitive_desc pd;
    try {
        auto attr = make_attr(chain.post_ops, op.get());
        if (zero_point) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, w_any, dst_md), attr,
                                          cpu_engine());
        if (reference_impl(pd.impl_info_str()))
            throw dnnl::error(dnnl_unimplemented, "reference int8 matmul");
    } catch (const dnnl::error&) {
        m_absorbed = absorbed;
        return false;
    }
    op->primitive = dnnl::matmul(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, in_layout(value_of(m.q), Layout::kPlain), src_md, {}});
    op->args.push_back({DNNL_ARG_WEIGHTS,
                        false,
                        0,
                        {},
                        weights_constant(b, w_plain, w.data(), pd.weights_desc())});
    const dnnl::memory::desc zp_md({1}, dt::s32, tag::a);
    if (m.computed_zero_point) {
        // The run-time zero point (an u8/i8 scalar) as the s32 oneDNN reads: one tiny reorder.
        const size_t z = value_of(m.computed_zero_point);
        const size_t z32 =
            add_internal_value({1}, m_graph->values[z].name + " (s32)", element::i32);
        Step step;
        step.kind = StepKind::kDnnl;
        step.node = node;
        step.fused = {node};
        step.name = node->get_friendly_name() + ":zero point";
        step.type = "Reorder";
        step.dnnl = make_reorder(dnnl::memory::desc({1}, q_type, tag::a), zp_md, z, z32);
        step.exec_type = step.dnnl->impl + " " + q_type_name(q_type) + "->s32";
        step.outputs = {z32};
        m_graph->steps.push_back(std::move(step));
        op->args.push_back({DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, true, z32, zp_md, {}});
    } else if (m.zero_point != 0) {
        op->args.push_back(
            {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, false, 0, {}, s32_scalar(m.zero_point)});
    }
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    add_dnnl_step(node, chain, std::move(op), Layout::kPlain);
    m_graph->steps.back().fused.insert(m_graph->steps.back().fused.end(), m.nodes.begin(),
                                       m.nodes.end());
    m_graph->steps.back().type = "Int8" + m_graph->steps.back().type;
    return true;
}

bool GraphCompiler::try_int8_matmul(const NodePtr& node, const DequantizeMatch& dq) {
    const Output& b = node->input_value(1);
    if (!is_f32(node->output(0)) || node->get_attribute<bool>("transpose_a")) return false;
    const bool tb = node->get_attribute<bool>("transpose_b");
    const auto qw = quantized_weights_of(b);
    if (!qw || !qw->symmetric || qw->q.get_element_type() != element::i8) return false;
    const Shape as = dq.q.get_shape(), bs = b.get_shape(), out = node->get_output_shape(0);
    if (as.size() < 2 || bs.size() != 2) return false;
    const size_t K = as.back(), N = out.back(), M = shape_size(as) / std::max<size_t>(K, 1);
    // Output channel n of [K, N] weights is flat % N; of transposed [N, K] ones flat / K.
    const std::vector<float> w_scales = weight_scales(*qw, N, tb ? K : 1);
    if (!scales_usable(w_scales)) return false;
    const auto d = [](size_t v) { return static_cast<dnnl::memory::dim>(v); };
    const dnnl::memory::desc src_md({d(M), d(K)}, int8_type(dq.q.get_element_type()), tag::ab);
    const dnnl::memory::desc w_plain({d(K), d(N)}, dt::s8, tb ? Dims{1, d(K)} : Dims{d(N), 1});
    const dnnl::memory::desc w_any({d(K), d(N)}, dt::s8, tag::any);
    dnnl::memory::desc dst_md({d(M), d(N)}, dt::f32, tag::ab);

    const FusionTarget target = matmul_target(out.size(), N, dst_md);
    FusedChain chain = fuse_chain(node->output(0), target);
    dst_md = dnnl::memory::desc({d(M), d(N)}, requantize_chain(chain), tag::ab);

    std::vector<float> out_scales(N);
    for (size_t n = 0; n < N; ++n) out_scales[n] = dq.scale * w_scales[n];
    auto op = std::make_shared<DnnlOp>();
    auto attr = make_attr(chain.post_ops, op.get());
    attr.set_output_scales(1 << 1, out_scales);
    if (dq.zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    const dnnl::memory::desc bias_md =
        chain.bias ? dnnl::memory::desc({1, d(N)}, dt::f32, tag::ab) : dnnl::memory::desc();
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, w_any, bias_md, dst_md), attr,
                                    cpu_engine());
    if (reference_impl(pd.impl_info_str())) return false;
    op->primitive = dnnl::matmul(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, in_layout(value_of(dq.q), Layout::kPlain), src_md, {}});
    op->args.push_back({DNNL_ARG_WEIGHTS,
                        false,
                        0,
                        {},
                        weights_constant(b, w_plain, qw->q.data(), pd.weights_desc())});
    append_int8_tail(*op, chain.bias, out_scales, bias_md, pd.bias_desc(), dq.zero_point, dst_md);
    add_dnnl_step(node, chain, std::move(op), Layout::kPlain);
    m_graph->steps.back().type = "Int8" + m_graph->steps.back().type;
    return true;
}

bool GraphCompiler::try_int8_add(const NodePtr& node) {
    // DequantizeLinear(a) + b (the residual add of a quantized block) in one pass that reads the
    // integers: b * (1 / scale) + a, then * scale - scale * zero point, then the chain after the
    // add. oneDNN 2.6's jit binary wants an f32 first source for an f32 destination and has only
    // a reference kernel for source scales, so a is the binary post-op's operand.
    if (node->get_input_size() != 2 || !is_f32(node->output(0))) return false;
    const Shape out = node->get_output_shape(0);
    size_t integer = 2;
    for (size_t i = 0; i < 2 && integer == 2; ++i)
        if (m_deferred.count(node->input_value(i))) integer = i;
    if (integer == 2) return false;
    const Output& other_port = node->input_value(1 - integer);
    if (node->input_value(integer).get_shape() != out || other_port.get_shape() != out)
        return false;  // no broadcasting here
    const DequantizeMatch dq = m_deferred.at(node->input_value(integer));
    const size_t a = value_of(dq.q);
    const Layout layout = m_graph->values[a].layout;
    if (layout == Layout::kChannelsLast && out.size() < 3) return false;
    if (!has_value(other_port) && !materialize(other_port)) return false;
    if (m_graph->values[value_of(other_port)].type != element::f32) return false;
    const size_t b = in_layout(value_of(other_port), layout);
    const auto a_md = desc_of(a), b_md = desc_of(b);
    const tag dst_tag =
        layout == Layout::kPlain ? plain_tag(out.size()) : channels_last_tag(out.size());
    dnnl::memory::desc dst_md(a_md.dims(), dt::f32, dst_tag);
    const dnnl::memory::desc scale_md(Dims(out.size(), 1), dt::f32, plain_tag(out.size()));
    const float inverse = 1.f / dq.scale;
    std::vector<PostOp> leading(2);
    leading[0].kind = PostOp::Kind::kBinary;
    leading[0].algorithm = algorithm::binary_add;
    leading[0].desc = a_md;
    leading[0].value = static_cast<long>(a);
    leading[1].algorithm = algorithm::eltwise_linear;
    leading[1].alpha = dq.scale;
    leading[1].beta = -dq.scale * static_cast<float>(dq.zero_point);
    const FusionTarget target = elementwise_target(dst_md, layout, out);
    auto make = [&](const std::vector<PostOp>& post_ops) {
        auto op = std::make_shared<DnnlOp>();
        const auto attr = make_attr(post_ops, op.get());
        dnnl::binary::desc desc(algorithm::binary_mul, b_md, scale_md, dst_md);
        dnnl::binary::primitive_desc pd(desc, attr, cpu_engine());
        op->primitive = dnnl::binary(pd);
        op->scratchpad_bytes = pd.scratchpad_desc().get_size();
        op->impl = pd.impl_info_str();
        op->args.insert(
            op->args.begin(),
            {DNNL_ARG_SRC_1, false, 0, {}, make_constant(scale_md, &inverse, scale_md)});
        op->args.insert(op->args.begin(), {DNNL_ARG_SRC_0, true, b, b_md, {}});
        op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
        return op;
    };
    // The chain after the add as post-ops when oneDNN takes them all (as add_with_chain does for
    // the f32 binary); else the add alone. A reference implementation is refused either way.
    const auto absorbed = m_absorbed;
    FusedChain chain = fuse_chain(node->output(0), target);
    std::vector<PostOp> all = leading;
    bool fits = append_eltwise(all, chain.post_ops) && all.size() <= kMaxPostOps;
    // A QuantizeLinear after the add (or after add + Relu, the block output of a quantized
    // ResNet) is the integer destination: u = b / scale + a; (u - zp) * scale / y_scale + y_zp,
    // and with Relu max(u, zp) in place of u (Relu commutes with the positive factor). One
    // linear post-op, as oneDNN 2.6 computes a second one with the first one's constants.
    const bool relu_only =
        chain.post_ops.size() == 1 && chain.post_ops[0].kind == PostOp::Kind::kEltwise &&
        chain.post_ops[0].algorithm == algorithm::eltwise_relu && chain.post_ops[0].alpha == 0.f;
    if (const auto uses = consumers(chain.output);
        uses.size() == 1 && !chain.bias && (chain.post_ops.empty() || relu_only)) {
        if (const auto qm = match_quantize(*uses[0].node, m_consumers)) {
            const float k = dq.scale / qm->scale;
            const float zp = static_cast<float>(dq.zero_point);
            all.resize(1);
            PostOp p;
            if (relu_only) {
                p.algorithm = algorithm::eltwise_clip;
                p.alpha = zp;
                p.beta = std::numeric_limits<float>::max();
                all.push_back(p);
            }
            p.algorithm = algorithm::eltwise_linear;
            p.alpha = k;
            p.beta = static_cast<float>(qm->zero_point) - zp * k;
            all.push_back(p);
            for (const auto& n : qm->nodes) {
                chain.nodes.push_back(n);
                m_absorbed.insert(n.get());
            }
            chain.types.push_back("Quantize");
            chain.output = qm->output;
            dst_md = dnnl::memory::desc(a_md.dims(), int8_type(qm->type), dst_tag);
            fits = true;
        }
    }
    std::shared_ptr<DnnlOp> op;
    if (fits) {
        try {
            op = make(all);
        } catch (const dnnl::error&) {
            op = nullptr;
        }
    }
    if (!op || reference_impl(op->impl)) {
        m_absorbed = absorbed;
        chain = FusedChain();
        chain.output = node->output(0);
        dst_md = dnnl::memory::desc(a_md.dims(), dt::f32, dst_tag);
        op = make(leading);
        if (reference_impl(op->impl)) return false;
    }
    add_dnnl_step(node, chain, std::move(op), layout);
    m_graph->steps.back().type = "Int8" + m_graph->steps.back().type;
    return true;
}

bool GraphCompiler::try_int8_max_pool(const NodePtr& node, const DequantizeMatch& dq) {
    // DequantizeLinear -> MaxPool -> QuantizeLinear with the same scale, zero point and type is
    // MaxPool of the integers (dequantization is increasing): the region stays int8.
    if (node->get_version() >= 8) {
        if (!consumers(node->output(1)).empty()) return false;
        for (int64_t d : node->get_attribute<std::vector<int64_t>>("dilations"))
            if (d != 1) return false;
    }
    const auto uses = consumers(node->output(0));
    if (uses.size() != 1) return false;
    const auto qm = match_quantize(*uses[0].node, m_consumers);
    if (!qm || qm->scale != dq.scale || qm->zero_point != dq.zero_point ||
        qm->type != dq.q.get_element_type())
        return false;
    const Shape in = dq.q.get_shape(), out = node->get_output_shape(0);
    const auto k = node->get_attribute<std::vector<int64_t>>("kernel");
    Window w;
    if (!resolve_window(*node, in, out, std::vector<size_t>(k.begin(), k.end()), {}, &w))
        return false;
    const size_t xv = value_of(dq.q);
    const Layout layout = m_graph->values[xv].layout;
    const auto src_md = desc_of(xv);
    const dnnl::memory::desc dst_md(
        dims_of(out), src_md.data_type(),
        layout == Layout::kPlain ? plain_tag(out.size()) : channels_last_tag(out.size()));
    auto op = std::make_shared<DnnlOp>();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm::pooling_max,
                                     src_md, dst_md, w.strides, to_dims(k), w.pad_l, w.pad_r);
    dnnl::pooling_forward::primitive_desc pd(desc, attr, cpu_engine());
    if (reference_impl(pd.impl_info_str())) return false;
    op->primitive = dnnl::pooling_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, xv, src_md, {}});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    FusedChain chain;
    for (const auto& n : qm->nodes) {
        chain.nodes.push_back(n);
        m_absorbed.insert(n.get());
    }
    chain.types.push_back("Quantize");
    chain.output = qm->output;
    add_dnnl_step(node, chain, std::move(op), layout);
    m_graph->steps.back().type = "Int8" + m_graph->steps.back().type;
    return true;
}

}  // namespace vireo::cpu_plugin::detail
