// Implements the pattern matchers of the CPU graph compiler.
#include "patterns.hpp"

#include <algorithm>
#include <cmath>

#include "vireo/op_registry.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {
namespace {

const std::vector<Consumer>& uses_of(const Output& port, const ConsumerMap& consumers) {
    static const std::vector<Consumer> none;
    auto it = consumers.find(port);
    return it == consumers.end() ? none : it->second;
}

// The only consumer of `port` when it has exactly one and is of `type`.
Node* only_consumer(const Output& port, const ConsumerMap& consumers, const char* type) {
    const auto& uses = uses_of(port, consumers);
    if (uses.size() != 1 || uses[0].node->get_type_name() != type) return nullptr;
    return uses[0].node;
}

// The input of binary `node` that is not `port` (nullopt when `port` is not an input).
std::optional<Output> other_input(const Node& node, const Output& port) {
    if (node.get_input_size() != 2) return std::nullopt;
    if (node.input_value(0) == port) return node.input_value(1);
    if (node.input_value(1) == port) return node.input_value(0);
    return std::nullopt;
}

bool near(std::optional<float> v, float expected) {
    return v && std::fabs(*v - expected) <= 1e-3f * std::fabs(expected);
}

NodePtr shared(Node* n) {
    return n->shared_from_this();
}

// The length of the last axis of an f32 `port` whose rank and last axis are static.
std::optional<size_t> last_axis_length(const Output& port) {
    const PartialShape& ps = port.get_partial_shape();
    if (port.get_element_type() != element::f32 || !ps.rank_is_static() || ps.size() == 0 ||
        !ps[ps.size() - 1].is_static())
        return std::nullopt;
    return static_cast<size_t>(ps[ps.size() - 1].get_length());
}

// ReduceMean over the last axis only, keeping it.
bool is_last_axis_mean(Node& node) {
    if (node.get_type_name() != "ReduceMean" || !node.get_attribute<bool>("keep_dims"))
        return false;
    const Node* axes = node.input_value(1).get_node();
    const auto& ps = node.input_value(0).get_partial_shape();
    if (axes->get_type_name() != "Constant" || !ps.rank_is_static()) return false;
    const Tensor& t = axes->get_constant_value();
    if (t.get_size() != 1) return false;
    int64_t axis = 0;
    if (t.get_element_type() == element::i64)
        axis = t.data<int64_t>()[0];
    else if (t.get_element_type() == element::i32)
        axis = t.data<int32_t>()[0];
    else
        return false;
    const int64_t rank = static_cast<int64_t>(ps.size());
    return axis == -1 || axis == rank - 1;
}

// A Constant of f32 values along the last axis only ([D], [1, D], [1, 1, D]...).
bool last_axis_constant(const Output& port, size_t d) {
    const Node* n = port.get_node();
    if (n->get_type_name() != "Constant" || port.get_element_type() != element::f32) return false;
    const Shape shape = port.get_shape();
    if (shape.empty() || shape.back() != d) return false;
    for (size_t i = 0; i + 1 < shape.size(); ++i)
        if (shape[i] != 1) return false;
    return true;
}

// Appends the "* gamma + beta" that follows a normalization (each optional) to `m`.
void extend_with_affine(LayerNormMatch& m, size_t d, const ConsumerMap& consumers) {
    const PartialShape& shape = m.input.get_partial_shape();
    if (Node* mul = only_consumer(m.output, consumers, "Multiply")) {
        const auto g = other_input(*mul, m.output);
        if (g && last_axis_constant(*g, d) && mul->get_output_partial_shape(0) == shape) {
            m.gamma = g->get_node_shared_ptr();
            m.nodes.push_back(shared(mul));
            m.output = mul->output(0);
        }
    }
    if (Node* add = only_consumer(m.output, consumers, "Add")) {
        const auto b = other_input(*add, m.output);
        if (b && last_axis_constant(*b, d) && add->get_output_partial_shape(0) == shape) {
            m.beta = b->get_node_shared_ptr();
            m.nodes.push_back(shared(add));
            m.output = add->output(0);
        }
    }
}

}  // namespace

std::optional<float> scalar_constant(const Output& port) {
    const Node* n = port.get_node();
    if (n->get_type_name() != "Constant" || port.get_element_type() != element::f32)
        return std::nullopt;
    const Tensor& t = n->get_constant_value();
    if (t.get_size() == 0) return std::nullopt;
    const float* p = static_cast<const float*>(t.data());
    for (size_t i = 1; i < t.get_size(); ++i)
        if (p[i] != p[0]) return std::nullopt;
    return p[0];
}

namespace {

constexpr size_t kCompileTimeElements = 64;

std::optional<std::vector<int64_t>> ints_of(const Tensor& t) {
    return InferInput{t.get_element_type(), PartialShape(t.get_shape()), t}.int_values();
}

std::optional<Tensor> value_at_depth(const Output& port, int depth) {
    Node* n = port.get_node();
    const std::string& type = n->get_type_name();
    if (type == "Constant") {
        const Tensor& t = n->get_constant_value();
        if (t.get_size() > kCompileTimeElements) return std::nullopt;
        return t;
    }
    if (depth <= 0 || n->get_output_size() != 1) return std::nullopt;
    // The static dimensions of a partly dynamic shape: ShapeOf(x), or Gather(ShapeOf(x), i, 0).
    const element::Type et = port.get_element_type();
    auto dims = [&](const PartialShape& ps, const std::vector<int64_t>& axes,
                    const Shape& shape) -> std::optional<Tensor> {
        if ((et != element::i64 && et != element::i32) || !ps.rank_is_static()) return std::nullopt;
        Tensor t(et, shape);
        const auto rank = static_cast<int64_t>(ps.size());
        for (size_t i = 0; i < axes.size(); ++i) {
            const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
            if (a < 0 || a >= rank || !ps[static_cast<size_t>(a)].is_static()) return std::nullopt;
            const int64_t d = ps[static_cast<size_t>(a)].get_length();
            if (et == element::i64)
                t.data<int64_t>()[i] = d;
            else
                t.data<int32_t>()[i] = static_cast<int32_t>(d);
        }
        return t;
    };
    if (type == "ShapeOf") {
        const PartialShape& ps = n->input_value(0).get_partial_shape();
        if (!ps.rank_is_static()) return std::nullopt;
        std::vector<int64_t> all(ps.size());
        for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
        return dims(ps, all, Shape{ps.size()});
    }
    if (type == "Gather" && n->get_input_size() == 3 &&
        n->input_value(0).get_node()->get_type_name() == "ShapeOf" &&
        (!n->has_attribute("batch_dims") || n->get_attribute<int64_t>("batch_dims") == 0)) {
        const auto indices = value_at_depth(n->input_value(1), depth - 1);
        const auto axis = value_at_depth(n->input_value(2), depth - 1);
        const auto idx = indices ? ints_of(*indices) : std::nullopt;
        const auto a = axis ? ints_of(*axis) : std::nullopt;
        if (!idx || !a || a->size() != 1 || ((*a)[0] != 0 && (*a)[0] != -1)) return std::nullopt;
        return dims(n->input_value(0).get_node()->input_value(0).get_partial_shape(), *idx,
                    indices->get_shape());
    }
    // A small deterministic op of such values.
    const PartialShape& out = port.get_partial_shape();
    if (!out.is_static() || shape_size(out.to_shape()) > kCompileTimeElements ||
        type.rfind("Random", 0) == 0 || type == "ReadValue" || type == "Assign" || type == "If" ||
        type == "Loop" || type == "Parameter" || !n->get_op_def().domain.empty())
        return std::nullopt;
    std::vector<Tensor> inputs;
    for (const auto& in : n->input_values()) {
        auto v = value_at_depth(in, depth - 1);
        if (!v) return std::nullopt;
        inputs.push_back(std::move(*v));
    }
    try {
        auto outputs = reference::evaluate(*n, inputs);
        if (outputs.size() != 1) return std::nullopt;
        return outputs[0];
    } catch (const Exception&) {
        return std::nullopt;
    }
}

// A single integer known at compile time.
std::optional<int64_t> compile_time_int(const Output& port) {
    const auto v = compile_time_value(port);
    const auto ints = v ? ints_of(*v) : std::nullopt;
    if (!ints || ints->size() != 1) return std::nullopt;
    return (*ints)[0];
}

// Slice-8 of `x` along its last axis (of `rank` axes, D long) with step 1 from `begin` to `end`
// (an end at or past D, as "to the end" is written, counts as D).
bool slices_last_axis(const Node& slice, const Output& x, int64_t rank, int64_t d, int64_t begin,
                      int64_t end) {
    if (slice.get_type_name() != "Slice" || slice.get_input_size() != 5 ||
        slice.input_value(0) != x)
        return false;
    const auto start = compile_time_int(slice.input_value(1));
    const auto stop = compile_time_int(slice.input_value(2));
    const auto step = compile_time_int(slice.input_value(3));
    const auto axis = compile_time_int(slice.input_value(4));
    if (!start || !stop || !step || !axis || *step != 1 || (*axis != -1 && *axis != rank - 1))
        return false;
    const int64_t s = *start < 0 ? *start + d : *start;
    const int64_t e = *stop < 0 ? *stop + d : std::min(*stop, d);
    return s == begin && e == end;
}

}  // namespace

std::optional<Tensor> compile_time_value(const Output& port) {
    return value_at_depth(port, 6);
}

std::optional<RotaryMatch> match_rotary(Node& add, const ConsumerMap& consumers) {
    if (add.get_type_name() != "Add" || add.get_input_size() != 2) return std::nullopt;
    for (int order = 0; order < 2; ++order) {
        Node* direct = add.input_value(order).get_node();
        Node* rotated = add.input_value(1 - order).get_node();
        if (direct->get_type_name() != "Multiply" || rotated->get_type_name() != "Multiply")
            continue;
        for (int side = 0; side < 2; ++side) {
            Node* concat = rotated->input_value(side).get_node();
            const Output sin = rotated->input_value(1 - side);
            if (concat->get_type_name() != "Concat" || concat->get_input_size() != 2) continue;
            Node* negative = concat->input_value(0).get_node();
            Node* first_half = concat->input_value(1).get_node();
            if (negative->get_type_name() != "Negative") continue;
            Node* second_half = negative->input_value(0).get_node();
            if (second_half->get_input_size() < 1) continue;
            const Output x = second_half->input_value(0);
            const auto d = last_axis_length(x);
            if (!d || *d == 0 || *d % 2 != 0) continue;
            const PartialShape& xs = x.get_partial_shape();
            const auto rank = static_cast<int64_t>(xs.size());
            const auto axis = concat->get_attribute<int64_t>("axis");
            if (axis != -1 && axis != rank - 1) continue;
            const auto full = static_cast<int64_t>(*d), half = full / 2;
            if (!slices_last_axis(*second_half, x, rank, full, half, full) ||
                !slices_last_axis(*first_half, x, rank, full, 0, half))
                continue;
            const auto cos = other_input(*direct, x);
            if (!cos || cos->get_element_type() != element::f32 ||
                sin.get_element_type() != element::f32)
                continue;
            // Each link read once; the result has x's shape (cos and sin widen nothing).
            bool single = true;
            for (Node* n : {direct, rotated, concat, negative, second_half, first_half})
                single &= uses_of(n->output(0), consumers).size() == 1;
            if (!single || add.get_output_partial_shape(0) != xs) continue;
            RotaryMatch m;
            m.input = x;
            m.cos = *cos;
            m.sin = sin;
            m.nodes = {shared(direct), shared(second_half), shared(negative), shared(first_half),
                       shared(concat), shared(rotated),     shared(&add)};
            m.output = add.output(0);
            return m;
        }
    }
    return std::nullopt;
}

std::optional<PatternMatch> match_gelu_erf(const Output& x, const ConsumerMap& consumers) {
    const auto& uses = uses_of(x, consumers);
    if (uses.size() != 2) return std::nullopt;
    for (const auto& scale_use : uses) {
        Node* scale = scale_use.node;
        const bool div = scale->get_type_name() == "Divide" && scale_use.input == 0 &&
                         near(scalar_constant(scale->input_value(1)), std::sqrt(2.f));
        const auto other = other_input(*scale, x);
        const bool mul = scale->get_type_name() == "Multiply" && other &&
                         near(scalar_constant(*other), std::sqrt(0.5f));
        if (!div && !mul) continue;
        Node* erf = only_consumer(scale->output(0), consumers, "Erf");
        if (!erf) continue;
        Node* one = only_consumer(erf->output(0), consumers, "Add");
        if (!one || !near(scalar_constant(*other_input(*one, erf->output(0))), 1.f)) continue;
        Node* product = only_consumer(one->output(0), consumers, "Multiply");
        if (!product) continue;
        const Output factor = *other_input(*product, one->output(0));
        Node* second = uses[0].node == scale ? uses[1].node : uses[0].node;
        if (factor == x && second == product) {
            // x * (1 + erf) * 0.5
            Node* half = only_consumer(product->output(0), consumers, "Multiply");
            if (!half || !near(scalar_constant(*other_input(*half, product->output(0))), 0.5f))
                continue;
            return PatternMatch{
                {shared(scale), shared(erf), shared(one), shared(product), shared(half)},
                half->output(0)};
        }
        // (x * 0.5) * (1 + erf)
        if (factor.get_node() == second && second->get_type_name() == "Multiply" &&
            near(scalar_constant(*other_input(*second, x)), 0.5f) &&
            only_consumer(second->output(0), consumers, "Multiply") == product)
            return PatternMatch{
                {shared(scale), shared(erf), shared(one), shared(second), shared(product)},
                product->output(0)};
    }
    return std::nullopt;
}

std::optional<LayerNormMatch> match_layer_norm(Node& mean, const ConsumerMap& consumers) {
    if (!is_last_axis_mean(mean)) return std::nullopt;
    const Output x = mean.input_value(0);
    const auto d = last_axis_length(x);
    if (!d) return std::nullopt;
    Node* sub = only_consumer(mean.output(0), consumers, "Subtract");
    if (!sub || sub->input_value(0) != x) return std::nullopt;
    const auto& diff_uses = uses_of(sub->output(0), consumers);
    if (diff_uses.size() != 2) return std::nullopt;
    Node* square = nullptr;
    Node* divide = nullptr;
    for (const auto& u : diff_uses) {
        if (u.node->get_type_name() == "Power" && u.input == 0 &&
            near(scalar_constant(u.node->input_value(1)), 2.f))
            square = u.node;
        else if (u.node->get_type_name() == "Divide" && u.input == 0)
            divide = u.node;
    }
    if (!square || !divide) return std::nullopt;
    const auto& var_uses = uses_of(square->output(0), consumers);
    if (var_uses.size() != 1 || !is_last_axis_mean(*var_uses[0].node)) return std::nullopt;
    Node* variance = var_uses[0].node;
    Node* add_eps = only_consumer(variance->output(0), consumers, "Add");
    if (!add_eps) return std::nullopt;
    const auto eps = scalar_constant(*other_input(*add_eps, variance->output(0)));
    Node* sqrt = only_consumer(add_eps->output(0), consumers, "Sqrt");
    if (!eps || !sqrt || divide->input_value(1) != sqrt->output(0)) return std::nullopt;
    if (uses_of(sqrt->output(0), consumers).size() != 1) return std::nullopt;

    LayerNormMatch m;
    m.input = x;
    m.epsilon = *eps;
    m.nodes = {shared(&mean),   shared(sub),  shared(square), shared(variance),
               shared(add_eps), shared(sqrt), shared(divide)};
    m.output = divide->output(0);
    extend_with_affine(m, *d, consumers);
    return m;
}

std::optional<LayerNormMatch> match_mvn(Node& mvn, const ConsumerMap& consumers) {
    if (mvn.get_type_name() != "MVN" || mvn.get_version() < 6) return std::nullopt;
    if (!mvn.get_attribute<bool>("normalize_variance") ||
        mvn.get_attribute<std::string>("eps_mode") != "inside_sqrt")
        return std::nullopt;
    const Output x = mvn.input_value(0);
    const auto d = last_axis_length(x);
    if (!d) return std::nullopt;
    const Node* axes = mvn.input_value(1).get_node();
    if (axes->get_type_name() != "Constant") return std::nullopt;
    const Tensor& t = axes->get_constant_value();
    const int64_t rank = static_cast<int64_t>(x.get_partial_shape().size());
    std::vector<int64_t> list;
    for (size_t i = 0; i < t.get_size(); ++i) {
        if (t.get_element_type() == element::i64)
            list.push_back(t.data<int64_t>()[i]);
        else if (t.get_element_type() == element::i32)
            list.push_back(t.data<int32_t>()[i]);
        else
            return std::nullopt;
        if (list.back() < 0) list.back() += rank;
    }
    // The axes must be the last ones (InstanceNormalization's spatial axes, a GroupNorm's
    // [N, G, rest] reshaped): a row-major [rows, D] view then normalizes each row.
    std::sort(list.begin(), list.end());
    if (list.empty() || list.size() > static_cast<size_t>(rank)) return std::nullopt;
    for (size_t i = 0; i < list.size(); ++i)
        if (list[i] != rank - static_cast<int64_t>(list.size() - i)) return std::nullopt;
    LayerNormMatch m;
    m.input = x;
    m.epsilon = static_cast<float>(mvn.get_attribute<double>("eps"));
    m.nodes = {shared(&mvn)};
    m.output = mvn.output(0);
    m.axes = list.size();
    // A scale and shift per element of the one normalized axis (LayerNormalization's); over
    // several axes they are per channel, outside the normalized block, and stay steps of their own.
    if (m.axes == 1) extend_with_affine(m, *d, consumers);
    return m;
}

std::optional<LayerNormMatch> match_rms_norm(Node& mean, const ConsumerMap& consumers) {
    if (!is_last_axis_mean(mean)) return std::nullopt;
    // x^2, as Power(x, 2) or Multiply(x, x), read by the mean alone.
    Node* square = mean.input_value(0).get_node();
    Output x;
    if (square->get_type_name() == "Power" && scalar_constant(square->input_value(1)) == 2.f)
        x = square->input_value(0);
    else if (square->get_type_name() == "Multiply" &&
             square->input_value(0) == square->input_value(1))
        x = square->input_value(0);
    else
        return std::nullopt;
    const auto d = last_axis_length(x);
    if (!d || uses_of(square->output(0), consumers).size() != 1) return std::nullopt;
    Node* add_eps = only_consumer(mean.output(0), consumers, "Add");
    if (!add_eps) return std::nullopt;
    const auto eps = scalar_constant(*other_input(*add_eps, mean.output(0)));
    if (!eps || !(*eps >= 0.f)) return std::nullopt;
    std::vector<NodePtr> nodes{shared(square), shared(&mean), shared(add_eps)};
    // x times 1 / sqrt(mean + eps): x / Sqrt, x * (1 / Sqrt) or x * Power(mean + eps, -0.5),
    // the factors in either order.
    auto times_x = [&](Node* factor) -> Node* {
        Node* mul = only_consumer(factor->output(0), consumers, "Multiply");
        return mul && other_input(*mul, factor->output(0)) == x ? mul : nullptr;
    };
    Node* normalized = nullptr;
    if (Node* sqrt = only_consumer(add_eps->output(0), consumers, "Sqrt")) {
        Node* div = only_consumer(sqrt->output(0), consumers, "Divide");
        if (!div || div->input_value(1) != sqrt->output(0)) return std::nullopt;
        nodes.push_back(shared(sqrt));
        nodes.push_back(shared(div));
        if (div->input_value(0) == x) {
            normalized = div;
        } else if (scalar_constant(div->input_value(0)) == 1.f) {
            normalized = times_x(div);
            if (normalized) nodes.push_back(shared(normalized));
        }
    } else if (Node* rsqrt = only_consumer(add_eps->output(0), consumers, "Power")) {
        if (rsqrt->input_value(0) != add_eps->output(0) ||
            scalar_constant(rsqrt->input_value(1)) != -0.5f)
            return std::nullopt;
        nodes.push_back(shared(rsqrt));
        normalized = times_x(rsqrt);
        if (normalized) nodes.push_back(shared(normalized));
    }
    if (!normalized || normalized->get_output_partial_shape(0) != x.get_partial_shape())
        return std::nullopt;
    LayerNormMatch m;
    m.input = x;
    m.epsilon = *eps;
    m.nodes = std::move(nodes);
    m.output = normalized->output(0);
    m.subtract_mean = false;
    extend_with_affine(m, *d, consumers);
    return m;
}

}  // namespace vireo::cpu_plugin
