// Implements the oneDNN primitive builders of the graph compiler: convolution, MatMul, pooling,
// softmax and layer normalization, each with the chain of ops fused after it.
#include <algorithm>
#include <optional>

#include "graph_compiler_impl.hpp"

namespace vireo::cpu_plugin::detail {

bool resolve_window(const Node& node, const Shape& in, const Shape& out,
                    const std::vector<size_t>& kernel, const std::vector<int64_t>& dilations,
                    Window* w) {
    const size_t spatial = kernel.size();
    const auto strides = node.get_attribute<std::vector<int64_t>>("strides");
    auto pads_begin = node.get_attribute<std::vector<int64_t>>("pads_begin");
    auto pads_end = node.get_attribute<std::vector<int64_t>>("pads_end");
    const auto auto_pad = node.get_attribute<std::string>("auto_pad");
    pads_begin.resize(spatial, 0);
    pads_end.resize(spatial, 0);
    for (size_t i = 0; i < spatial; ++i) {
        const int64_t x = static_cast<int64_t>(in[2 + i]), y = static_cast<int64_t>(out[2 + i]);
        const int64_t d = dilations.empty() ? 1 : dilations[i];
        const int64_t extent = (static_cast<int64_t>(kernel[i]) - 1) * d + 1;
        int64_t pl = pads_begin[i], pr_declared = pads_end[i];
        if (auto_pad == "valid") {
            pl = pr_declared = 0;
        } else if (auto_pad == "same_upper" || auto_pad == "same_lower") {
            const int64_t total = std::max<int64_t>(0, (y - 1) * strides[i] + extent - x);
            pl = auto_pad == "same_upper" ? total / 2 : total - total / 2;
            pr_declared = total - pl;
        }
        // The declared pads when they give the model's size (floor rounding); else the right pad
        // that does (ceil rounding adds to it).
        int64_t pr = pr_declared;
        if ((x + pl + pr - extent) / strides[i] + 1 != y)
            pr = (y - 1) * strides[i] + extent - x - pl;
        if (pr < 0 || pl < 0 || (x + pl + pr - extent) / strides[i] + 1 != y) return false;
        if (pr > pr_declared && node.get_type_name() == "AvgPool" &&
            !node.get_attribute<bool>("exclude-pad"))
            return false;  // ceil-mode overflow would count as padding in the average
        w->strides.push_back(strides[i]);
        w->dilations.push_back(d - 1);
        w->pad_l.push_back(pl);
        w->pad_r.push_back(pr);
    }
    return true;
}

namespace {

// Row-major strides of `shape`, then the last two swapped when `transposed` (a view of the
// stored [..., b, a] matrix as [..., a, b]).
dnnl::memory::desc matrix_desc(const Shape& stored, bool transposed) {
    Dims dims = dims_of(stored);
    Dims strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
    if (transposed) {
        const size_t r = dims.size();
        std::swap(dims[r - 1], dims[r - 2]);
        std::swap(strides[r - 1], strides[r - 2]);
    }
    return dnnl::memory::desc(dims, dt::f32, strides);
}

}  // namespace

bool GraphCompiler::try_winograd(const NodePtr& node, const Shape& in, const Shape& out,
                                 const std::vector<size_t>& kernel, const Window& w,
                                 const FusedChain& chain, const dnnl::primitive_attr& attr,
                                 const dnnl::memory::desc& bias_md,
                                 dnnl::convolution_forward::primitive_desc* pd) const {
    // oneDNN's Winograd kernels (F(2x2,3x3) and F(4x4,3x3), AVX-512) take a 2-D 3x3 f32
    // convolution of stride 1 and dilation 1 with 16-multiple channel counts, in nChw16c, with
    // a sum and eltwise post-ops. They do a half to a quarter of the direct kernel's
    // multiplications and ran 1.5-2.3x faster than brgconv on NHWC from 14x14 up (README,
    // "Winograd").
    if (!m_winograd || m_bf16 || node->get_type_name() != "Convolution" || in.size() != 4 ||
        kernel != std::vector<size_t>{3, 3} || w.strides != Dims{1, 1} ||
        w.dilations != Dims{0, 0} || in[1] % 16 != 0 || out[1] % 16 != 0 ||
        out[2] * out[3] < kWinogradMinPixels ||
        out[0] * in[1] * out[1] * 9 * out[2] * out[3] < kWinogradMinMacs)
        return false;
    for (size_t i = 0; i < chain.post_ops.size(); ++i)
        if (chain.post_ops[i].kind != PostOp::Kind::kEltwise &&
            (chain.post_ops[i].kind != PostOp::Kind::kSum || i != 0))
            return false;
    const dnnl::memory::desc src(dims_of(in), dt::f32, tag::nChw16c);
    const dnnl::memory::desc dst(dims_of(out), dt::f32, tag::nChw16c);
    const dnnl::memory::desc weights(dims_of(node->input_value(1).get_shape()), dt::f32, tag::any);
    try {
        dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                             algorithm::convolution_winograd, src, weights, bias_md,
                                             dst, w.strides, w.dilations, w.pad_l, w.pad_r);
        *pd = dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
    } catch (const dnnl::error&) {
        return false;
    }
    return true;
}

bool GraphCompiler::reference_convolution(const Node& node, const Shape& in, const Shape& out,
                                          const Window& w, const FusedChain& chain) const {
    const size_t rank = in.size();
    DnnlOp probe;  // collects the binary operands' arguments, then dropped
    const auto attr = make_attr(chain.post_ops, &probe);
    const dnnl::memory::desc bias_md =
        chain.bias ? dnnl::memory::desc({static_cast<dnnl::memory::dim>(out[1])}, dt::f32, tag::a)
                   : dnnl::memory::desc();
    try {
        dnnl::convolution_forward::desc desc(
            dnnl::prop_kind::forward_inference, algorithm::convolution_direct,
            dnnl::memory::desc(dims_of(in), dt::f32, channels_last_tag(rank)),
            dnnl::memory::desc(dims_of(node.input_value(1).get_shape()), dt::f32, tag::any),
            bias_md, dnnl::memory::desc(dims_of(out), dt::f32, channels_last_tag(rank)), w.strides,
            w.dilations, w.pad_l, w.pad_r);
        const dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
        return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
    } catch (const dnnl::error&) {
        return false;  // refused outright: try_convolution's own fallbacks handle that
    }
}

bool GraphCompiler::try_defer_gate(const NodePtr& node) {
    // bf16 mode keeps its bf16 element-wise steps; batch 1 only (one gate per image).
    if (m_bf16 || node->get_type_name() != "Multiply" || node->get_output_size() != 1) return false;
    const Output out = node->output(0);
    if (!is_f32(out) || !out.get_partial_shape().is_static()) return false;
    const Shape shape = out.get_shape();
    if (shape.size() != 4 || shape[0] != 1 || shape[1] < 2) return false;
    const auto uses = consumers(out);
    if (uses.size() != 1 || uses[0].input != 0) return false;
    Node& conv = *uses[0].node;
    if (conv.get_type_name() != "Convolution" || m_absorbed.count(&conv) ||
        !is_f32(conv.output(0)) || !is_f32(conv.input_value(1)) ||
        !conv.get_output_partial_shape(0).is_static())
        return false;
    const Output& wport = conv.input_value(1);
    if (!has_value(wport) || m_graph->values[value_of(wport)].kind != ValueKind::kConstant)
        return false;
    // Scaling the weights at each inference must cost less than scaling x.
    if (4 * shape_size(wport.get_shape()) >= shape_size(shape)) return false;
    for (size_t g : {0, 1}) {
        const Output gate = node->input_value(g), x = node->input_value(1 - g);
        if (!is_f32(gate) || !is_f32(x) || x.get_shape() != shape ||
            shape_size(gate.get_shape()) != shape[1] ||
            !is_per_channel(gate.get_shape(), 4, 1, shape[1]))
            continue;
        if (m_graph->values[value_of(gate)].kind == ValueKind::kConstant) continue;
        m_gates[out] = DeferredGate{node, x, gate, &conv};
        return true;
    }
    return false;
}

bool GraphCompiler::emit_gate(const Output& port) {
    const auto it = m_gates.find(port);
    if (it == m_gates.end()) return false;
    const NodePtr multiply = it->second.multiply;
    m_gates.erase(it);
    const auto absorbed = m_absorbed;
    bool done = false;
    try {
        done = try_eltwise(multiply) || try_binary(multiply);
    } catch (const dnnl::error&) {
        m_absorbed = absorbed;
    }
    if (!done) add_reference_step(multiply);
    return true;
}

bool GraphCompiler::try_convolution(const NodePtr& node) {
    const bool grouped = node->get_type_name() == "GroupConvolution";
    const Output& x = node->input_value(0);
    const Output& wport = node->input_value(1);
    if (!is_f32(x) || !is_f32(wport) || !is_f32(node->output(0))) return false;
    if (m_graph->values[value_of(wport)].kind != ValueKind::kConstant) return false;
    const Tensor weights = m_graph->values[value_of(wport)].constant;
    const Shape in = x.get_shape(), out = node->get_output_shape(0), wshape = wport.get_shape();
    const size_t rank = in.size();
    // A deferred squeeze-excitation gate on the source (try_defer_gate): its weights scaled
    // per input channel by a reorder step, the source read ungated. Anything that does not fit
    // gives the Multiply its own step first.
    std::optional<DeferredGate> gate;
    if (const auto it = m_gates.find(x); it != m_gates.end()) {
        if (it->second.reader == node.get() && !grouped && rank == 4)
            gate = it->second;
        else
            emit_gate(x);
    }
    if (rank < 3 || rank > 5) return false;
    const size_t lead = grouped ? 3 : 2;
    std::vector<size_t> kernel(wshape.begin() + lead, wshape.end());
    Window w;
    if (!resolve_window(*node, in, out, kernel,
                        node->get_attribute<std::vector<int64_t>>("dilations"), &w))
        return false;

    // The source a bf16 producer wrote is read as it is; any other in channels-last f32 (or
    // nChw16c for a Winograd convolution, below).
    const size_t written = m_bf16 ? bf16_source(x) : SIZE_MAX;
    const dnnl::memory::desc dst_md(dims_of(out), dt::f32, channels_last_tag(rank));
    const tag wtag = grouped ? (rank == 3   ? tag::abcd
                                : rank == 4 ? tag::abcde
                                            : tag::abcdef)
                             : plain_tag(rank);
    const dnnl::memory::desc w_plain(dims_of(wshape), dt::f32, wtag);
    const dnnl::memory::desc w_any(dims_of(wshape), dt::f32, tag::any);

    FusionTarget target;
    target.rank = rank;
    target.channel_axis = 1;
    target.channels = out[1];
    target.layout = Layout::kChannelsLast;
    target.dst = dst_md;
    target.channel_dims = Dims(rank, 1);
    target.channel_dims[1] = static_cast<dnnl::memory::dim>(out[1]);
    target.bf16_residual = m_bf16;
    target.sum_in_place = !m_bf16;
    target.fuse_batch_norm = true;
    const auto absorbed = m_absorbed;
    FusedChain chain = fuse_chain(node->output(0), target);
    // A chain oneDNN has only its reference convolution for (RAFT's GRU gates: a Tanh, then a
    // Multiply and an Add of computed tensors; 560 ms a step where the jit convolution and two
    // binary steps take a few) is cut until a jit kernel takes it; the rest run as own steps.
    while (!chain.nodes.empty() && !m_bf16 && reference_convolution(*node, in, out, w, chain)) {
        m_absorbed = absorbed;
        chain = fuse_chain(node->output(0), target, chain.nodes.size() - 1);
    }
    size_t sum_value = SIZE_MAX;
    for (const auto& p : chain.post_ops)
        if (p.kind == PostOp::Kind::kSum) sum_value = static_cast<size_t>(p.value);

    auto op = std::make_shared<DnnlOp>();
    auto attr = make_attr(chain.post_ops, op.get());
    const dnnl::memory::desc bias_md =
        chain.bias ? dnnl::memory::desc({static_cast<dnnl::memory::dim>(out[1])}, dt::f32, tag::a)
                   : dnnl::memory::desc();
    auto make_pd = [&](dt compute, dt dst_type) {
        const dnnl::memory::desc src_c(dims_of(in), compute, channels_last_tag(rank));
        const dnnl::memory::desc w_c(w_any.dims(), compute, tag::any);
        const dnnl::memory::desc dst_c(dst_md.dims(), dst_type, channels_last_tag(rank));
        dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                             algorithm::convolution_direct, src_c, w_c, bias_md,
                                             dst_c, w.strides, w.dilations, w.pad_l, w.pad_r);
        return dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
    };
    // The scaled weights' reorder step, made when the convolution's primitive exists and
    // appended before its step; a reorder oneDNN refuses gives the Multiply its step instead.
    dnnl::reorder::primitive_desc rpd;  // made with the convolution's pd, below
    auto gated_weights = [&](const DeferredGate& g, const dnnl::memory::desc& desc) {
        auto reorder = std::make_shared<DnnlOp>();
        reorder->primitive = dnnl::reorder(rpd);
        reorder->scratchpad_bytes = rpd.scratchpad_desc().get_size();
        reorder->impl = rpd.impl_info_str();
        Value scaled;
        scaled.kind = ValueKind::kComputed;
        scaled.type = element::f32;
        scaled.shape = PartialShape{static_cast<int64_t>((desc.get_size() + 3) / 4)};
        scaled.producer = m_graph->steps.size();
        scaled.name = "weights of " + node->describe() + " times " + g.multiply->describe();
        m_graph->values.push_back(std::move(scaled));
        const size_t scaled_id = m_graph->values.size() - 1;
        const size_t gate_id = value_of(g.gate);
        reorder->args.push_back(
            {DNNL_ARG_FROM, false, 0, {}, make_constant(w_plain, weights.data(), w_plain)});
        reorder->args.push_back({DNNL_ARG_TO, true, scaled_id, desc, {}});
        reorder->args.push_back(
            {DNNL_ARG_ATTR_OUTPUT_SCALES,
             true,
             gate_id,
             dnnl::memory::desc({static_cast<dnnl::memory::dim>(in[1])}, dt::f32, tag::a),
             {}});
        m_graph->weights_bytes += w_plain.get_size();
        Step step;
        step.kind = StepKind::kDnnl;
        step.node = g.multiply;
        step.fused = {g.multiply};
        step.name = g.multiply->get_friendly_name();
        step.type = g.multiply->get_type_name();
        step.exec_type = reorder->impl + " weights";
        step.outputs = {scaled_id};
        step.dnnl = std::move(reorder);
        m_graph->steps.push_back(std::move(step));
        return scaled_id;
    };
    // bf16: source and weights in bf16, accumulation, bias and post-ops in f32, output in f32 —
    // or in bf16 when every reader converts it to bf16 anyway (the same rounding, one reorder
    // fewer). A case oneDNN has no bf16 kernel for stays f32.
    dnnl::convolution_forward::primitive_desc pd;
    // The primitive of `pd` reading value `src_arg`, with the weights, bias and output.
    auto set_primitive = [&](size_t src_arg) {
        op->primitive = dnnl::convolution_forward(pd);
        op->scratchpad_bytes = pd.scratchpad_desc().get_size();
        op->impl = pd.impl_info_str();
        op->args.push_back({DNNL_ARG_SRC, true, src_arg, pd.src_desc(), {}});
        if (gate)
            op->args.push_back({DNNL_ARG_WEIGHTS,
                                true,
                                gated_weights(*gate, pd.weights_desc()),
                                pd.weights_desc(),
                                {}});
        else
            op->args.push_back(
                {DNNL_ARG_WEIGHTS,
                 false,
                 0,
                 {},
                 weights_constant(wport, w_plain, weights.data(), pd.weights_desc())});
        if (chain.bias)
            op->args.push_back({DNNL_ARG_BIAS,
                                false,
                                0,
                                {},
                                make_constant(bias_md, chain.bias.data(), pd.bias_desc())});
        op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, pd.dst_desc(), {}});
    };
    // The output is the residual operand's memory, which the sum post-op accumulates into.
    auto sum_in_place = [&] {
        if (sum_value == SIZE_MAX) return;
        const size_t result = m_graph->steps.back().outputs[0];
        const size_t alias = m_graph->values[sum_value].alias;
        m_graph->values[result].alias = alias == SIZE_MAX ? sum_value : alias;
        m_graph->steps.back().exec_type += " in-place";
    };
    if (gate) {
        try {
            pd = make_pd(dt::f32, dt::f32);
            dnnl::primitive_attr reorder_attr;
            reorder_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
            reorder_attr.set_output_scales(1 << 1, {DNNL_RUNTIME_F32_VAL});  // per input channel
            rpd = dnnl::reorder::primitive_desc(cpu_engine(), w_plain, cpu_engine(),
                                                pd.weights_desc(), reorder_attr);
        } catch (const dnnl::error&) {
            emit_gate(x);
            gate.reset();
        }
    }
    if (gate) {
        m_gates.erase(x);
        set_primitive(in_layout(value_of(gate->activation), Layout::kChannelsLast));
        add_dnnl_step_as(node, chain, std::move(op), Layout::kChannelsLast, dt::f32);
        sum_in_place();
        return true;
    }
    if (try_winograd(node, in, out, kernel, w, chain, attr, bias_md, &pd)) {
        const size_t blocked = blocked_source(x);
        set_primitive(blocked != SIZE_MAX ? blocked : in_layout(value_of(x), Layout::kBlocked16));
        // A residual sum accumulates into a blocked copy of the operand made for this step
        // alone (never shared with another reader), which the output then overwrites.
        const size_t residual = sum_value == SIZE_MAX
                                    ? SIZE_MAX
                                    : converted(sum_value, Layout::kBlocked16, element::f32,
                                                /*shared=*/false);
        add_dnnl_step(node, chain, std::move(op), Layout::kBlocked16);
        const size_t result = m_graph->steps.back().outputs[0];
        if (residual != SIZE_MAX) {
            m_graph->values[result].alias = residual;
            m_graph->steps.back().exec_type += " in-place";
        }
        m_value_of.erase(chain.output);
        m_blocked_written[chain.output] = result;
        return true;
    }
    const auto dst_type =
        m_bf16 ? make_bf16_pd(
                     chain.output, [&](dt type) { return make_pd(dt::bf16, type); }, &pd)
               : std::nullopt;
    const bool bf16 = dst_type.has_value();
    if (!bf16) {
        try {
            pd = make_pd(dt::f32, dt::f32);
        } catch (const dnnl::error&) {
            if (sum_value == SIZE_MAX) throw;
            // No kernel takes the sum here: the residual as a binary post-op after all.
            for (auto& p : chain.post_ops)
                if (p.kind == PostOp::Kind::kSum) {
                    p.kind = PostOp::Kind::kBinary;
                    p.algorithm = algorithm::binary_add;
                    p.desc = dst_md;
                }
            sum_value = SIZE_MAX;
            op->args.clear();
            attr = make_attr(chain.post_ops, op.get());
            pd = make_pd(dt::f32, dt::f32);
        }
    }
    set_primitive(!bf16                 ? in_layout(value_of(x), Layout::kChannelsLast)
                  : written != SIZE_MAX ? written
                                        : in_bf16(in_layout(value_of(x), Layout::kChannelsLast)));
    add_dnnl_step_as(node, chain, std::move(op), Layout::kChannelsLast, dst_type.value_or(dt::f32));
    sum_in_place();
    return true;
}

bool GraphCompiler::try_matmul(const NodePtr& node) {
    const Output& a = node->input_value(0);
    const Output& b = node->input_value(1);
    if (!is_f32(a) || !is_f32(b) || !is_f32(node->output(0))) return false;
    const bool ta = node->get_attribute<bool>("transpose_a"),
               tb = node->get_attribute<bool>("transpose_b");
    const Shape as = a.get_shape(), bs = b.get_shape(), out = node->get_output_shape(0);
    if (as.size() < 2 || bs.size() < 2 || out.empty()) return false;
    const size_t bv = value_of(b);
    const bool weights = m_graph->values[bv].kind == ValueKind::kConstant && bs.size() == 2 && !ta;
    // The source a bf16 producer wrote is read as it is (weights MatMuls compute in bf16).
    const size_t written = m_bf16 && weights ? bf16_source(a) : SIZE_MAX;
    const size_t av = written != SIZE_MAX ? in_layout(written, Layout::kPlain)
                                          : in_layout(value_of(a), Layout::kPlain);

    dnnl::memory::desc src_md, w_md, dst_md, w_plain;
    size_t N = out.back();
    if (weights) {
        // [..., K] x [K, N]: the leading axes of A fold into M, and the weights are reordered once.
        const size_t K = as.back(), M = shape_size(as) / std::max<size_t>(K, 1);
        src_md = dnnl::memory::desc({static_cast<long>(M), static_cast<long>(K)}, dt::f32, tag::ab);
        w_plain = matrix_desc(bs, tb);
        w_md = dnnl::memory::desc(w_plain.dims(), dt::f32, tag::any);
        dst_md = dnnl::memory::desc({static_cast<long>(M), static_cast<long>(N)}, dt::f32, tag::ab);
    } else {
        if (as.size() != bs.size() || as.size() > 5) return false;
        for (size_t i = 0; i + 2 < as.size(); ++i)
            if (as[i] != bs[i] && as[i] != 1 && bs[i] != 1) return false;
        src_md = matrix_desc(as, ta);
        w_md = matrix_desc(bs, tb);
        dst_md = dnnl::memory::desc(dims_of(out), dt::f32, plain_tag(out.size()));
    }
    FusionTarget target = matmul_target(out.size(), N, dst_md);
    target.allow_bias = weights;
    FusedChain chain = fuse_chain(node->output(0), target);

    auto op = std::make_shared<DnnlOp>();
    const auto attr = make_attr(chain.post_ops, op.get());
    const dnnl::memory::desc bias_md =
        chain.bias ? dnnl::memory::desc({1, static_cast<long>(N)}, dt::f32, tag::ab)
                   : dnnl::memory::desc();
    // bf16 (MatMuls with constant weights): as for convolutions.
    dnnl::matmul::primitive_desc pd;
    const auto dst_type =
        m_bf16 && weights
            ? make_bf16_pd(
                  chain.output,
                  [&](dt type) {
                      const dnnl::memory::desc src_c(src_md.dims(), dt::bf16, tag::ab);
                      const dnnl::memory::desc w_c(w_md.dims(), dt::bf16, tag::any);
                      const dnnl::memory::desc dst_c(dst_md.dims(), type, tag::ab);
                      return dnnl::matmul::primitive_desc(
                          dnnl::matmul::desc(src_c, w_c, bias_md, dst_c), attr, cpu_engine());
                  },
                  &pd)
            : std::nullopt;
    const bool bf16 = dst_type.has_value();
    if (!bf16)
        pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, w_md, bias_md, dst_md), attr,
                                          cpu_engine());
    op->primitive = dnnl::matmul(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    const size_t src_arg = bf16 ? in_bf16(av) : in_layout(value_of(a), Layout::kPlain);
    op->args.push_back({DNNL_ARG_SRC, true, src_arg, pd.src_desc(), {}});
    if (weights) {
        const Tensor& wt = m_graph->values[bv].constant;
        op->args.push_back({DNNL_ARG_WEIGHTS,
                            false,
                            0,
                            {},
                            weights_constant(b, w_plain, wt.data(), pd.weights_desc())});
    } else {
        op->args.push_back({DNNL_ARG_WEIGHTS, true, in_layout(bv, Layout::kPlain), w_md, {}});
    }
    if (chain.bias)
        op->args.push_back({DNNL_ARG_BIAS,
                            false,
                            0,
                            {},
                            make_constant(bias_md, chain.bias.data(), pd.bias_desc())});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, pd.dst_desc(), {}});
    add_dnnl_step_as(node, chain, std::move(op), Layout::kPlain, dst_type.value_or(dt::f32));
    return true;
}

bool GraphCompiler::try_pooling(const NodePtr& node) {
    const std::string& type = node->get_type_name();
    const Output& x = node->input_value(0);
    if (!is_f32(x)) return false;
    // bf16 in and out when a bf16 step wrote the input (bf16_elementwise).
    const size_t xv = elementwise_source(*node, 0);
    const dt value_type = m_graph->values[xv].type == element::bf16 ? dt::bf16 : dt::f32;
    // The input's layout: channels-last inside a CNN region, else plain (NCHW).
    const Layout layout = m_graph->values[xv].layout;
    std::vector<int64_t> dilations;
    if (type == "MaxPool" && node->get_version() >= 8) {
        if (!consumers(node->output(1)).empty()) return false;
        dilations = node->get_attribute<std::vector<int64_t>>("dilations");
        for (int64_t d : dilations)
            if (d != 1) return false;
    }
    const Shape in = x.get_shape(), out = node->get_output_shape(0);
    const auto k = node->get_attribute<std::vector<int64_t>>("kernel");
    Window w;
    if (!resolve_window(*node, in, out, std::vector<size_t>(k.begin(), k.end()), {}, &w))
        return false;
    algorithm alg = algorithm::pooling_max;
    if (type == "AvgPool")
        alg = node->get_attribute<bool>("exclude-pad") ? algorithm::pooling_avg_exclude_padding
                                                       : algorithm::pooling_avg_include_padding;
    const auto src_md = desc_of(xv);
    const dnnl::memory::desc dst_md(
        dims_of(out), value_type,
        layout == Layout::kPlain ? plain_tag(out.size()) : channels_last_tag(out.size()));
    auto op = std::make_shared<DnnlOp>();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src_md, dst_md,
                                     w.strides, to_dims(k), w.pad_l, w.pad_r);
    dnnl::pooling_forward::primitive_desc pd(desc, attr, cpu_engine());
    op->primitive = dnnl::pooling_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, xv, src_md, {}});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    FusedChain chain;
    chain.output = node->output(0);
    add_dnnl_step_as(node, chain, std::move(op), layout, value_type);
    return true;
}

bool GraphCompiler::try_softmax(const NodePtr& node) {
    const Output& x = node->input_value(0);
    if (!is_f32(x)) return false;
    const Shape shape = x.get_shape();
    int64_t axis = node->get_attribute<int64_t>("axis");
    if (axis < 0) axis += static_cast<int64_t>(shape.size());
    if (shape.empty() || axis < 0 || axis >= static_cast<int64_t>(shape.size())) return false;
    const size_t xv = in_layout(value_of(x), Layout::kPlain);
    const auto md = desc_of(xv);
    auto op = std::make_shared<DnnlOp>();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, md,
                                     static_cast<int>(axis));
    dnnl::softmax_forward::primitive_desc pd(desc, attr, cpu_engine());
    op->primitive = dnnl::softmax_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, xv, md, {}});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, md, {}});
    FusedChain chain;
    chain.output = node->output(0);
    add_dnnl_step(node, chain, std::move(op), Layout::kPlain);
    return true;
}

bool GraphCompiler::try_layer_norm(const NodePtr& node) {
    const auto m = node->get_type_name() == "MVN" ? match_mvn(*node, m_consumers)
                                                  : match_layer_norm(*node, m_consumers);
    if (!m || !has_value(m->input)) return false;
    const Shape shape = m->input.get_shape();
    size_t d = 1;
    for (size_t i = shape.size() - m->axes; i < shape.size(); ++i) d *= shape[i];
    if (d == 0 || shape_size(shape) == 0) return false;
    const size_t xv = in_layout(value_of(m->input), Layout::kPlain);
    // Several trailing axes: the plain value seen as [rows, D], each row normalized.
    const auto md = m->axes == 1
                        ? desc_of(xv)
                        : dnnl::memory::desc({static_cast<dnnl::memory::dim>(shape_size(shape) / d),
                                              static_cast<dnnl::memory::dim>(d)},
                                             dt::f32, tag::ab);
    auto op = std::make_shared<DnnlOp>();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    auto flags = dnnl::normalization_flags::none;
    if (m->gamma) flags |= dnnl::normalization_flags::use_scale;
    if (m->beta) flags |= dnnl::normalization_flags::use_shift;
    dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, md, m->epsilon,
                                                 flags);
    dnnl::layer_normalization_forward::primitive_desc pd(desc, attr, cpu_engine());
    op->primitive = dnnl::layer_normalization_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, xv, md, {}});
    const dnnl::memory::desc vec({static_cast<dnnl::memory::dim>(d)}, dt::f32, tag::a);
    if (m->gamma)
        op->args.push_back({DNNL_ARG_SCALE,
                            false,
                            0,
                            {},
                            make_constant(vec, m->gamma->get_constant_value().data(), vec)});
    if (m->beta)
        op->args.push_back({DNNL_ARG_SHIFT,
                            false,
                            0,
                            {},
                            make_constant(vec, m->beta->get_constant_value().data(), vec)});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, md, {}});
    FusedChain chain;
    chain.output = m->output;
    for (size_t i = 1; i < m->nodes.size(); ++i) {
        chain.nodes.push_back(m->nodes[i]);
        m_absorbed.insert(m->nodes[i].get());
    }
    add_dnnl_step(node, chain, std::move(op), Layout::kPlain);
    m_graph->steps.back().type = "LayerNorm";
    return true;
}

bool GraphCompiler::try_deconvolution(const NodePtr& node) {
    // ConvolutionBackpropData (ONNX's ConvTranspose) without an output_shape input: oneDNN's
    // deconvolution, channels-last, weights [C_in, C_out, k...] read transposed and reordered once.
    if (node->get_input_size() != 2) return false;
    const Output& x = node->input_value(0);
    const Output& wport = node->input_value(1);
    if (!is_f32(x) || !is_f32(wport) || !is_f32(node->output(0))) return false;
    if (m_graph->values[value_of(wport)].kind != ValueKind::kConstant) return false;
    const auto auto_pad = node->get_attribute<std::string>("auto_pad");
    if (auto_pad != "explicit" && auto_pad != "notset" && auto_pad != "valid") return false;
    const Tensor weights = m_graph->values[value_of(wport)].constant;
    const Shape in = x.get_shape(), out = node->get_output_shape(0), wshape = wport.get_shape();
    const size_t rank = in.size();
    if (rank < 3 || rank > 5 || wshape.size() != rank) return false;
    const auto strides = node->get_attribute<std::vector<int64_t>>("strides");
    const auto dilations = node->get_attribute<std::vector<int64_t>>("dilations");
    auto pads_begin = node->get_attribute<std::vector<int64_t>>("pads_begin");
    pads_begin.resize(rank - 2, 0);
    if (auto_pad == "valid") std::fill(pads_begin.begin(), pads_begin.end(), 0);
    Dims pl, pr, st, dil;
    for (size_t i = 0; i + 2 < rank; ++i) {
        const int64_t k = static_cast<int64_t>(wshape[2 + i]);
        const int64_t extent = (k - 1) * dilations.at(i) + 1;
        // out = (in - 1) * stride - pl - pr + extent: the right pad that gives the model's size
        // (output_padding makes it smaller).
        const int64_t right = (static_cast<int64_t>(in[2 + i]) - 1) * strides.at(i) + extent -
                              static_cast<int64_t>(out[2 + i]) - pads_begin[i];
        if (right < 0 || pads_begin[i] < 0) return false;
        pl.push_back(pads_begin[i]);
        pr.push_back(right);
        st.push_back(strides[i]);
        dil.push_back(dilations[i] - 1);
    }
    // The weights as oneDNN's [C_out, C_in, k...]: the stored [C_in, C_out, k...] with the first
    // two strides swapped.
    Dims wdims = dims_of(wshape);
    Dims wstrides(rank, 1);
    for (size_t i = rank - 1; i-- > 0;) wstrides[i] = wstrides[i + 1] * wdims[i + 1];
    std::swap(wdims[0], wdims[1]);
    std::swap(wstrides[0], wstrides[1]);
    const dnnl::memory::desc w_plain(wdims, dt::f32, wstrides);
    const dnnl::memory::desc w_any(wdims, dt::f32, tag::any);
    const size_t src = in_layout(value_of(x), Layout::kChannelsLast);
    const auto src_md = desc_of(src);
    const dnnl::memory::desc dst_md(dims_of(out), dt::f32, channels_last_tag(rank));

    FusionTarget target;
    target.rank = rank;
    target.channel_axis = 1;
    target.channels = out[1];
    target.layout = Layout::kChannelsLast;
    target.dst = dst_md;
    target.channel_dims = Dims(rank, 1);
    target.channel_dims[1] = static_cast<dnnl::memory::dim>(out[1]);
    FusedChain chain = fuse_chain(node->output(0), target);

    auto op = std::make_shared<DnnlOp>();
    const auto attr = make_attr(chain.post_ops, op.get());
    const dnnl::memory::desc bias_md =
        chain.bias ? dnnl::memory::desc({static_cast<dnnl::memory::dim>(out[1])}, dt::f32, tag::a)
                   : dnnl::memory::desc();
    dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                           algorithm::deconvolution_direct, src_md, w_any, bias_md,
                                           dst_md, st, dil, pl, pr);
    dnnl::deconvolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    op->primitive = dnnl::deconvolution_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, src, src_md, {}});
    op->args.push_back({DNNL_ARG_WEIGHTS,
                        false,
                        0,
                        {},
                        weights_constant(wport, w_plain, weights.data(), pd.weights_desc())});
    if (chain.bias)
        op->args.push_back({DNNL_ARG_BIAS,
                            false,
                            0,
                            {},
                            make_constant(bias_md, chain.bias.data(), pd.bias_desc())});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    add_dnnl_step(node, chain, std::move(op), Layout::kChannelsLast);
    return true;
}

bool GraphCompiler::try_interpolate(const NodePtr& node) {
    // Interpolate-4/11 resizing only the spatial axes (N and C kept), no pads or antialiasing:
    // linear_onnx with half-pixel centres, and nearest for integer upscaling factors with the
    // modes that then pick floor(dst / factor) — exactly what oneDNN's resampling computes.
    const Output& x = node->input_value(0);
    if (!is_f32(x) || !is_f32(node->output(0))) return false;
    const Shape in = x.get_shape(), out = node->get_output_shape(0);
    const size_t rank = in.size();
    if (rank < 3 || rank > 5 || in[0] != out[0] || in[1] != out[1]) return false;
    if (node->get_attribute<bool>("antialias")) return false;
    for (const char* pads : {"pads_begin", "pads_end"})
        for (int64_t p : node->get_attribute<std::vector<int64_t>>(pads))
            if (p != 0) return false;
    const auto mode = node->get_attribute<std::string>("mode");
    const auto transform = node->get_attribute<std::string>("coordinate_transformation_mode");
    const auto nearest = node->get_attribute<std::string>("nearest_mode");
    const bool scales_mode = node->get_attribute<std::string>("shape_calculation_mode") == "scales";
    algorithm alg;
    if (mode == "linear_onnx") {
        if (transform != "half_pixel" && transform != "pytorch_half_pixel") return false;
        for (size_t i = 2; i < rank; ++i)
            if (out[i] <= 1) return false;  // pytorch_half_pixel differs at size 1
        // With scales, ONNX maps coordinates by the given scale, oneDNN by out / in: only when
        // they agree.
        if (scales_mode) {
            for (size_t i = 2; i < rank; ++i)
                if (out[i] % in[i] != 0 && in[i] % out[i] != 0) return false;
        }
        alg = algorithm::resampling_linear;
    } else if (mode == "nearest") {
        for (size_t i = 2; i < rank; ++i)
            if (out[i] < in[i] || out[i] % in[i] != 0) return false;
        const bool floor_like =
            (transform == "asymmetric" && (nearest == "floor" || nearest == "simple")) ||
            ((transform == "half_pixel" || transform == "pytorch_half_pixel") &&
             nearest == "round_prefer_floor") ||
            (transform == "tf_half_pixel_for_nn" &&
             (nearest == "floor" || nearest == "round_prefer_floor"));
        if (!floor_like) return false;
        alg = algorithm::resampling_nearest;
    } else {
        return false;
    }
    const size_t xv = value_of(x);
    Layout layout = m_graph->values[xv].layout;
    const auto src_md = desc_of(xv);
    const dnnl::memory::desc dst_md(
        dims_of(out), dt::f32,
        layout == Layout::kPlain ? plain_tag(rank) : channels_last_tag(rank));
    auto op = std::make_shared<DnnlOp>();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::resampling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src_md, dst_md);
    dnnl::resampling_forward::primitive_desc pd(desc, attr, cpu_engine());
    op->primitive = dnnl::resampling_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, xv, src_md, {}});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    FusedChain chain;
    chain.output = node->output(0);
    add_dnnl_step(node, chain, std::move(op), layout);
    return true;
}

}  // namespace vireo::cpu_plugin::detail
