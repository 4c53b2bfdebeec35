// Implements GraphCompiler::try_movement: the ops that only move data — Transpose, Reshape,
// Squeeze, Unsqueeze and unit-step Slice — as oneDNN reorders. A reorder reads its source through
// a memory descriptor (permuted strides for a transpose, the same bytes under other dims for a
// reshape, a sub-memory for a slice), so each of these is one parallel copy instead of a
// single-threaded reference kernel: with two threads the reference copies were the part of a
// transformer encoder that did not scale (docs/performance.md). A Slice of a channels-last value
// keeps that layout, and a channel shuffle written as Reshape -> Transpose -> Reshape is one
// reorder (try_channel_shuffle). Also try_convert: the Converts a reorder computes exactly as
// ONNX defines them.
#include <cmath>

#include "graph_compiler_impl.hpp"

namespace vireo::cpu_plugin::detail {
namespace {

// The integers of a constant value (i32 or i64), false for anything else.
bool constant_ints(const Value& v, std::vector<int64_t>* out) {
    if (v.kind != ValueKind::kConstant) return false;
    const Tensor& t = v.constant;
    out->clear();
    if (t.get_element_type() == element::i64) {
        const auto* p = t.data<int64_t>();
        out->assign(p, p + t.get_size());
    } else if (t.get_element_type() == element::i32) {
        const auto* p = t.data<int32_t>();
        out->assign(p, p + t.get_size());
    } else {
        return false;
    }
    return true;
}

// True when `order` moves only axes of size 1: the bytes do not change, only the dims.
bool moves_only_unit_axes(const std::vector<int64_t>& order, const Shape& in_shape) {
    int64_t previous = -1;
    for (int64_t axis : order) {
        if (in_shape[static_cast<size_t>(axis)] == 1) continue;
        if (axis < previous) return false;
        previous = axis;
    }
    return true;
}

// Row-major strides of `dims`, in elements.
Dims plain_strides(const Dims& dims) {
    Dims strides(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
    return strides;
}

// Channels-last strides of [N, C, S...] in elements, in the dims' order: N's, C's (1), then each
// spatial axis' (the last one C).
Dims channels_last_strides(const Dims& dims) {
    Dims strides(dims.size(), 1);
    dnnl::memory::dim stride = dims[1];
    for (size_t i = dims.size(); i-- > 2;) {
        strides[i] = stride;
        stride *= dims[i];
    }
    strides[0] = stride;
    return strides;
}

}  // namespace

bool GraphCompiler::try_movement(const NodePtr& node) {
    const std::string& type = node->get_type_name();
    const Output& x = node->input_value(0);
    if (!is_f32(x) || node->get_output_size() != 1) return false;
    const Shape in_shape = x.get_shape();
    const Shape out_shape = node->get_output_shape(0);
    if (in_shape.empty() || shape_size(in_shape) == 0 || shape_size(out_shape) == 0) return false;
    const Dims in_dims = dims_of(in_shape);
    const Dims out_dims = dims_of(out_shape);

    dnnl::memory::desc view;  // the source as the reorder reads it, with the output's dims
    bool same_bytes = false;  // the output is the input's bytes under other dims
    if (type == "Transpose") {
        std::vector<int64_t> order;
        if (!constant_ints(m_graph->values[value_of(node->input_value(1))], &order)) return false;
        if (order.empty()) {  // an empty order reverses the axes
            for (size_t i = in_shape.size(); i-- > 0;) order.push_back(static_cast<int64_t>(i));
        }
        if (order.size() != in_shape.size()) return false;
        const Dims in_strides = plain_strides(in_dims);
        Dims strides(order.size());
        for (size_t k = 0; k < order.size(); ++k) {
            const int64_t axis =
                order[k] < 0 ? order[k] + static_cast<int64_t>(order.size()) : order[k];
            if (axis < 0 || axis >= static_cast<int64_t>(order.size())) return false;
            strides[k] = in_strides[static_cast<size_t>(axis)];
            order[k] = axis;
        }
        view = dnnl::memory::desc(out_dims, dt::f32, strides);
        same_bytes = moves_only_unit_axes(order, in_shape);
    } else if (type == "Reshape" || type == "Squeeze" || type == "Unsqueeze") {
        view = dnnl::memory::desc(out_dims, dt::f32, plain_tag(out_dims.size()));
        same_bytes = true;
    } else if (type == "Slice") {
        // Slice-8: data, start, stop, step[, axes]; unit steps only (a sub-memory of the source).
        if (node->get_input_size() < 4) return false;
        std::vector<int64_t> start, step, axes;
        if (!constant_ints(m_graph->values[value_of(node->input_value(1))], &start) ||
            !constant_ints(m_graph->values[value_of(node->input_value(3))], &step))
            return false;
        if (node->get_input_size() > 4) {
            if (!constant_ints(m_graph->values[value_of(node->input_value(4))], &axes))
                return false;
        } else {
            for (size_t i = 0; i < start.size(); ++i) axes.push_back(static_cast<int64_t>(i));
        }
        if (start.size() != axes.size() || step.size() != axes.size() ||
            out_shape.size() != in_shape.size())
            return false;
        Dims offsets(in_dims.size(), 0);
        const auto rank = static_cast<int64_t>(in_dims.size());
        for (size_t i = 0; i < axes.size(); ++i) {
            const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
            if (axis < 0 || axis >= rank || step[i] != 1) return false;
            const int64_t dim = in_dims[static_cast<size_t>(axis)];
            int64_t begin = start[i] < 0 ? start[i] + dim : start[i];
            begin = std::max<int64_t>(0, std::min(begin, dim));
            offsets[static_cast<size_t>(axis)] = begin;
        }
        for (size_t a = 0; a < in_dims.size(); ++a)
            if (offsets[a] + out_dims[a] > in_dims[a]) return false;
        // A channels-last source (a CNN's channel split) is sliced in its own layout, which the
        // output keeps.
        const size_t source = value_of(x);
        if (m_graph->values[source].layout == Layout::kChannelsLast) {
            const auto md = desc_of(source);
            const dnnl::memory::desc dst(out_dims, dt::f32, channels_last_tag(out_dims.size()));
            FusedChain chain;
            chain.output = node->output(0);
            add_dnnl_step(node, chain,
                          make_reorder(md.submemory_desc(out_dims, offsets), dst, source, SIZE_MAX),
                          Layout::kChannelsLast);
            return true;
        }
        view = dnnl::memory::desc(in_dims, dt::f32, plain_tag(in_dims.size()))
                   .submemory_desc(out_dims, offsets);
    } else {
        return false;
    }
    if (type == "Reshape" && try_channel_shuffle(node)) return true;

    const size_t xv = in_layout(value_of(x), Layout::kPlain);
    if (same_bytes && m_graph->values[xv].kind == ValueKind::kComputed) {
        // A view of a value this request computes: no step and no copy.
        const Value& source = m_graph->values[xv];
        const size_t root = source.alias == SIZE_MAX ? xv : source.alias;
        const size_t id = add_value(node->output(0), ValueKind::kComputed, Layout::kPlain);
        m_graph->values[id].alias = root;
        m_graph->views.push_back(node);
        return true;
    }
    const dnnl::memory::desc dst(out_dims, dt::f32, plain_tag(out_dims.size()));
    dnnl::primitive_attr attr;
    // A multiplication or division by one scalar constant right after (attention's 1/sqrt(d) on
    // its queries) is the reorder's output scale. A division becomes a multiplication by the
    // reciprocal: exact for powers of two, within one rounding otherwise.
    FusedChain chain;
    chain.output = node->output(0);
    const auto uses = consumers(node->output(0));
    if (uses.size() == 1) {
        Node& c = *uses[0].node;
        const std::string& ct = c.get_type_name();
        const bool mul = ct == "Multiply", div = ct == "Divide" && uses[0].input == 0;
        float scalar = 0.f;
        if ((mul || div) && c.get_output_size() == 1 && is_f32(c.output(0)) &&
            c.get_output_partial_shape(0).is_static() && c.get_output_shape(0) == out_shape &&
            has_value(c.input_value(1 - uses[0].input))) {
            const Value& other = m_graph->values[value_of(c.input_value(1 - uses[0].input))];
            if (other.kind == ValueKind::kConstant && constant_scalar(other.constant, &scalar) &&
                (mul || exact_reciprocal(scalar))) {
                attr.set_output_scales(0, {mul ? scalar : 1.f / scalar});
                chain.nodes.push_back(c.shared_from_this());
                chain.types.push_back(ct);
                chain.output = c.output(0);
                m_absorbed.insert(&c);
            }
        }
    }
    add_dnnl_step(node, chain, make_reorder(view, dst, xv, SIZE_MAX, attr), Layout::kPlain);
    return true;
}

std::optional<ChannelShuffle> GraphCompiler::match_channel_shuffle(Node& reshape) {
    // Reshape [N, C, S...] -> [N, g, C/g, S...], Transpose [0, 2, 1, 3...], Reshape back to
    // [N, C, S...] (ShuffleNet's channel shuffle).
    if (reshape.get_type_name() != "Reshape" || !reshape.get_output_partial_shape(0).is_static() ||
        !reshape.input_value(0).get_partial_shape().is_static())
        return std::nullopt;
    const Shape in = reshape.input_value(0).get_shape(), split = reshape.get_output_shape(0);
    if (in.size() < 3 || split.size() != in.size() + 1 || split[0] != in[0] ||
        split[1] * split[2] != in[1] || !std::equal(in.begin() + 2, in.end(), split.begin() + 3))
        return std::nullopt;
    const auto uses = consumers(reshape.output(0));
    if (uses.size() != 1 || uses[0].node->get_type_name() != "Transpose") return std::nullopt;
    Node& transpose = *uses[0].node;
    std::vector<int64_t> order;
    if (!has_value(transpose.input_value(1)) ||
        !constant_ints(m_graph->values[value_of(transpose.input_value(1))], &order))
        return std::nullopt;
    std::vector<int64_t> swap12(split.size());
    for (size_t i = 0; i < swap12.size(); ++i) swap12[i] = static_cast<int64_t>(i);
    std::swap(swap12[1], swap12[2]);
    if (order != swap12) return std::nullopt;
    const auto after = consumers(transpose.output(0));
    if (after.size() != 1 || after[0].node->get_type_name() != "Reshape") return std::nullopt;
    Node& merge = *after[0].node;
    if (!merge.get_output_partial_shape(0).is_static() || merge.get_output_shape(0) != in ||
        !is_f32(merge.output(0)) || m_absorbed.count(&transpose) || m_absorbed.count(&merge))
        return std::nullopt;
    return ChannelShuffle{split[1], split[2], transpose.shared_from_this(),
                          merge.shared_from_this()};
}

bool GraphCompiler::try_channel_shuffle(const NodePtr& node) {
    // A channel shuffle of a channels-last value: one reorder that permutes the channels in
    // place of the layout round trip through plain.
    const Output& x = node->input_value(0);
    const size_t xv = value_of(x);
    if (m_graph->values[xv].layout != Layout::kChannelsLast) return false;
    const auto shuffle = match_channel_shuffle(*node);
    if (!shuffle) return false;
    Node& transpose = *shuffle->transpose;
    Node& merge = *shuffle->merge;
    const Shape in = x.get_shape();
    // Dims [N, C/g, g, S...] read and written in channels-last memory: output channel
    // j * g + i is input channel i * (C/g) + j.
    const auto groups = static_cast<dnnl::memory::dim>(shuffle->groups);
    const auto per_group = static_cast<dnnl::memory::dim>(shuffle->per_group);
    const Dims in_dims = dims_of(in);
    Dims dims = {in_dims[0], per_group, groups};
    dims.insert(dims.end(), in_dims.begin() + 2, in_dims.end());
    const Dims nhwc = channels_last_strides(in_dims);
    Dims from_strides = {nhwc[0], 1, per_group}, to_strides = {nhwc[0], groups, 1};
    from_strides.insert(from_strides.end(), nhwc.begin() + 2, nhwc.end());
    to_strides.insert(to_strides.end(), nhwc.begin() + 2, nhwc.end());
    const dnnl::memory::desc from(dims, dt::f32, from_strides), to(dims, dt::f32, to_strides);
    auto op = make_reorder(from, to, xv, SIZE_MAX);
    if (op->impl.rfind("ref", 0) == 0) return false;
    // The step writes the second Reshape's output, [N, C, S...] channels-last: the same bytes.
    FusedChain chain;
    chain.nodes = {transpose.shared_from_this(), merge.shared_from_this()};
    chain.types = {"Transpose", "Reshape"};
    chain.output = merge.output(0);
    m_absorbed.insert(&transpose);
    m_absorbed.insert(&merge);
    add_dnnl_step(node, chain, std::move(op), Layout::kChannelsLast);
    m_graph->steps.back().type = "ShuffleChannels";
    return true;
}

bool GraphCompiler::try_concat_shuffle(const NodePtr& node, Layout layout, int64_t axis) {
    if (m_bf16 || layout != Layout::kChannelsLast || axis != 1) return false;
    const auto uses = consumers(node->output(0));
    if (uses.size() != 1 || uses[0].input != 0 || m_absorbed.count(uses[0].node)) return false;
    Node& reshape = *uses[0].node;
    const auto shuffle = match_channel_shuffle(reshape);
    if (!shuffle) return false;
    const Shape out = node->get_output_shape(0);
    for (const auto& in : node->input_values()) {
        if (!is_f32(in) ||
            (in.get_shape()[1] != 0 && m_graph->values[value_of(in)].kind == ValueKind::kConstant))
            return false;
    }
    const Dims out_dims = dims_of(out);
    const Dims nhwc = channels_last_strides(out_dims);
    const size_t groups = shuffle->groups, per_group = shuffle->per_group;
    // One reorder per run of an input's channels inside one group: concatenated channel k is
    // output channel (k % per_group) * groups + k / per_group.
    struct Run {
        size_t value, first, count, k;  // the input, its first channel, how many, at channel k
    };
    std::vector<Run> runs;
    size_t k = 0;
    for (const auto& in : node->input_values()) {
        const size_t n = in.get_shape()[1];
        if (n == 0) continue;
        const size_t v = in_layout(value_of(in), Layout::kChannelsLast);
        for (size_t first = 0; first < n;) {
            const size_t count = std::min(n - first, per_group - (k % per_group));
            runs.push_back({v, first, count, k});
            first += count;
            k += count;
        }
    }
    if (runs.empty()) return false;
    std::vector<std::shared_ptr<DnnlOp>> ops;
    for (const Run& r : runs) {
        Dims dims = out_dims;
        dims[1] = static_cast<dnnl::memory::dim>(r.count);
        Dims offsets(dims.size(), 0);
        offsets[1] = static_cast<dnnl::memory::dim>(r.first);
        // The output's channels-last strides, a channel stride of `groups` (every g-th channel).
        Dims to_strides = nhwc;
        to_strides[1] = static_cast<dnnl::memory::dim>(groups);
        const dnnl::memory::desc to(dims, dt::f32, to_strides);
        auto op =
            make_reorder(desc_of(r.value).submemory_desc(dims, offsets), to, r.value, SIZE_MAX);
        if (op->impl.rfind("ref", 0) == 0) return false;
        op->args.back().offset = ((r.k % per_group) * groups + r.k / per_group) * sizeof(float);
        ops.push_back(std::move(op));
    }
    // The steps write the second Reshape's output; the last one is named after every op.
    const size_t result =
        add_value(shuffle->merge->output(0), ValueKind::kComputed, Layout::kChannelsLast);
    const std::vector<NodePtr> fused = {node, reshape.shared_from_this(), shuffle->transpose,
                                        shuffle->merge};
    for (size_t i = 0; i < ops.size(); ++i) {
        for (auto& a : ops[i]->args)
            if (a.is_value && a.value == SIZE_MAX) a.value = result;
        Step step;
        step.kind = StepKind::kDnnl;
        step.node = node;
        step.name = node->get_friendly_name();
        if (i + 1 == ops.size()) {
            step.fused = fused;
            for (size_t f = 1; f < fused.size(); ++f)
                step.name += "+" + fused[f]->get_friendly_name();
        } else {
            step.name += " (part " + std::to_string(i + 1) + ")";
        }
        step.type = "Concat+ShuffleChannels";
        step.exec_type = ops[i]->impl + " " + layout_name(Layout::kChannelsLast, out.size());
        step.outputs = {result};
        step.dnnl = std::move(ops[i]);
        m_graph->steps.push_back(std::move(step));
    }
    for (size_t f = 1; f < fused.size(); ++f) m_absorbed.insert(fused[f].get());
    return true;
}

bool GraphCompiler::try_split(const NodePtr& node) {
    // Split-1 and VariadicSplit-1 with a constant axis: each output one reorder reading its
    // sub-memory of the input (in the input's layout, which the outputs keep).
    const Output& x = node->input_value(0);
    if (!is_f32(x)) return false;
    const Shape in = x.get_shape();
    const Value& axis_value = m_graph->values[value_of(node->input_value(1))];
    if (in.empty() || axis_value.kind != ValueKind::kConstant ||
        axis_value.constant.get_size() != 1)
        return false;
    const Tensor& a = axis_value.constant;
    int64_t axis = 0;
    if (a.get_element_type() == element::i64)
        axis = *a.data<int64_t>();
    else if (a.get_element_type() == element::i32)
        axis = *a.data<int32_t>();
    else
        return false;
    const auto rank = static_cast<int64_t>(in.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return false;
    for (size_t i = 0; i < node->get_output_size(); ++i)
        if (shape_size(node->get_output_shape(i)) == 0) return false;
    const size_t xv = value_of(x);
    const Layout layout = m_graph->values[xv].layout;
    const auto src = desc_of(xv);
    Dims offsets(in.size(), 0);
    for (size_t i = 0; i < node->get_output_size(); ++i) {
        const Dims out_dims = dims_of(node->get_output_shape(i));
        const dnnl::memory::desc view = src.submemory_desc(out_dims, offsets);
        const dnnl::memory::desc dst(out_dims, dt::f32,
                                     layout == Layout::kPlain ? plain_tag(out_dims.size())
                                                              : channels_last_tag(out_dims.size()));
        FusedChain chain;
        chain.output = node->output(i);
        add_dnnl_step(node, chain, make_reorder(view, dst, xv, SIZE_MAX), layout);
        m_graph->steps.back().name += ":" + std::to_string(i);
        offsets[static_cast<size_t>(axis)] += out_dims[static_cast<size_t>(axis)];
    }
    return true;
}

namespace {

// True when every element of `port` is an integer whatever the inputs: a Round, a conversion
// from an integer type, an integer-valued constant, or Add/Subtract/Multiply/Maximum/Minimum/
// Clamp (integer bounds)/Negative/Abs of such values (the quantization arithmetic before a
// Convert to u8). `depth` bounds the walk.
bool integer_valued(const Output& port, int depth = 8) {
    if (depth == 0) return false;
    const Node& n = *port.get_node();
    const std::string& type = n.get_type_name();
    if (port.get_element_type().is_integral()) return true;
    if (type == "Round") return true;
    if (type == "Convert") return n.input_value(0).get_element_type().is_integral();
    if (type == "Constant") {
        const Tensor& t = n.get_constant_value();
        if (t.get_element_type() != element::f32) return false;
        const float* p = static_cast<const float*>(t.data());
        for (size_t i = 0; i < t.get_size(); ++i)
            if (std::nearbyint(p[i]) != p[i]) return false;
        return true;
    }
    if (type == "Clamp") {
        const double lo = n.get_attribute<double>("min"), hi = n.get_attribute<double>("max");
        return std::nearbyint(lo) == lo && std::nearbyint(hi) == hi &&
               integer_valued(n.input_value(0), depth - 1);
    }
    if (type == "Negative" || type == "Abs") return integer_valued(n.input_value(0), depth - 1);
    if (type == "Add" || type == "Subtract" || type == "Multiply" || type == "Maximum" ||
        type == "Minimum")
        return integer_valued(n.input_value(0), depth - 1) &&
               integer_valued(n.input_value(1), depth - 1);
    return false;
}

bool integer_type(element::Type t) {
    return t == element::i32 || t == element::u8 || t == element::i8;
}

}  // namespace

// Convert as one reorder where oneDNN's conversion is the one ONNX defines: integers (i32, u8,
// i8) to f32 (a reorder rounds an i32 beyond 2^24 to nearest, as a C++ conversion does), and
// f32 to those integers when the values are already integers (quantization: Round, + zero point,
// Clamp to the type's range). Other f32 -> integer conversions stay on the reference kernel: ONNX
// truncates, oneDNN rounds.
bool GraphCompiler::try_convert(const NodePtr& node) {
    const Output in = node->input_value(0);
    const element::Type from = in.get_element_type(), to = node->get_output_element_type(0);
    const bool exact = (to == element::f32 && integer_type(from)) ||
                       (from == element::f32 && integer_type(to) && integer_valued(in));
    if (!exact || !in.get_partial_shape().is_static() || in.get_shape().size() > 6) return false;
    const size_t source = value_of(in);
    const Layout layout = m_graph->values[source].layout;
    const size_t out = add_value(node->output(0), ValueKind::kComputed, layout);
    Step step;
    step.kind = StepKind::kDnnl;
    step.node = node;
    step.fused = {node};
    step.name = node->get_friendly_name();
    step.type = "Convert";
    step.dnnl = make_reorder(desc_of(source), desc_of(out), source, out);
    step.exec_type =
        step.dnnl->impl + " " + std::string(from.name()) + "->" + std::string(to.name());
    step.outputs = {out};
    m_graph->steps.push_back(std::move(step));
    return true;
}

}  // namespace vireo::cpu_plugin::detail
