// Implements the quantized-model patterns of the CPU plugin: marking integer weights before
// constant folding, and matching the reader's DequantizeLinear and QuantizeLinear chains.
#include "int8_patterns.hpp"

#include <cmath>
#include <sstream>

#include "vireo/exception.hpp"
#include "vireo/reference/constant_folding.hpp"

namespace vireo::cpu_plugin {
namespace {

// The value of `port` when it is, or folds to, a small Constant.
std::optional<Tensor> constant_value(const Output& port) {
    Output folded = port;
    if (port.get_node()->get_type_name() != "Constant")
        folded = reference::fold_constants({port}, {}).at(0);
    if (folded.get_node()->get_type_name() != "Constant") return std::nullopt;
    return folded.get_node()->get_constant_value();
}

// Element i of a numeric tensor as double (f32, i8, u8, i32 are what quantized models hold).
std::optional<double> element_of(const Tensor& t, size_t i) {
    const auto type = t.get_element_type();
    if (type == element::f32) return static_cast<const float*>(t.data())[i];
    if (type == element::i8) return static_cast<const int8_t*>(t.data())[i];
    if (type == element::u8) return static_cast<const uint8_t*>(t.data())[i];
    if (type == element::i32) return static_cast<const int32_t*>(t.data())[i];
    return std::nullopt;
}

// How `operand` (shape `op_shape`) broadcasts onto a value of shape `shape`: one value, or
// one per index of a single axis. Gives the flat stride of that axis and the values.
bool along_one_axis(const Tensor& operand, const Shape& shape, std::vector<double>* values,
                    size_t* stride) {
    const Shape& s = operand.get_shape();
    if (s.size() > shape.size() || operand.get_size() == 0) return false;
    const size_t lead = shape.size() - s.size();
    size_t axis = SIZE_MAX;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == 1) continue;
        if (axis != SIZE_MAX || s[i] != shape[lead + i]) return false;
        axis = lead + i;
    }
    values->clear();
    for (size_t i = 0; i < operand.get_size(); ++i) {
        const auto v = element_of(operand, i);
        if (!v) return false;
        values->push_back(*v);
    }
    *stride = 1;
    if (axis != SIZE_MAX)
        for (size_t i = axis + 1; i < shape.size(); ++i) *stride *= shape[i];
    return true;
}

std::optional<QuantizedWeights> match_weights(const Node& multiply) {
    if (multiply.get_type_name() != "Multiply" ||
        multiply.get_output_element_type(0) != element::f32)
        return std::nullopt;
    for (size_t side = 0; side < 2; ++side) {
        Output data = multiply.input_value(side);
        std::optional<Tensor> zero_point;
        if (data.get_node()->get_type_name() == "Subtract") {
            zero_point = constant_value(data.get_node()->input_value(1));
            if (!zero_point) continue;
            data = data.get_node()->input_value(0);
        }
        const Node* convert = data.get_node();
        if (convert->get_type_name() != "Convert") continue;
        const Output q = convert->input_value(0);
        if (q.get_node()->get_type_name() != "Constant" ||
            (q.get_element_type() != element::i8 && q.get_element_type() != element::u8))
            continue;
        const auto scale = constant_value(multiply.input_value(1 - side));
        if (!scale || scale->get_element_type() != element::f32) continue;
        QuantizedWeights w;
        w.q = q.get_node()->get_constant_value();
        const Shape& shape = w.q.get_shape();
        std::vector<double> scales;
        if (!along_one_axis(*scale, shape, &scales, &w.stride)) continue;
        w.scales.assign(scales.begin(), scales.end());
        if (zero_point) {
            std::vector<double> zps;
            size_t zp_stride = 1;
            if (!along_one_axis(*zero_point, shape, &zps, &zp_stride)) continue;
            for (double z : zps) w.symmetric &= z == 0;
        }
        return w;
    }
    return std::nullopt;
}

Node* only_use(const Output& port, const ConsumerMap& consumers, const char* type) {
    auto it = consumers.find(port);
    if (it == consumers.end() || it->second.size() != 1) return nullptr;
    Node* n = it->second[0].node;
    return n->get_type_name() == type ? n : nullptr;
}

// An integer-valued scalar constant within [lo, hi].
std::optional<int32_t> integer_scalar(const Output& port, double lo, double hi) {
    const auto v = scalar_constant(port);
    if (!v || std::nearbyint(*v) != *v || *v < lo || *v > hi) return std::nullopt;
    return static_cast<int32_t>(*v);
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const QuantizedWeights& w) {
    return out << w.q.get_element_type().name() << " weights, " << w.scales.size() << " scale"
               << (w.scales.size() == 1 ? "" : "s") << (w.symmetric ? "" : ", zero points");
}

size_t mark_quantized_weights(Model& model) {
    size_t marked = 0;
    for (const auto& node : model.get_ordered_ops()) {
        const std::string& type = node->get_type_name();
        std::optional<QuantizedWeights> w;
        if (type == "Multiply") {
            w = match_weights(*node);
        } else if (type == "Reshape" || type == "Squeeze" || type == "Unsqueeze") {
            // Flat order is kept: grouped convolution weights [O, I/G, k...] -> [G, O/G, ...].
            auto& info = node->input_value(0).get_rt_info();
            auto it = info.find(kQuantizedWeightsKey);
            if (it != info.end() && it->second.is<QuantizedWeights>())
                w = it->second.as<QuantizedWeights>();
        }
        if (!w) continue;
        node->output(0).get_rt_info()[kQuantizedWeightsKey] = *w;
        ++marked;
    }
    return marked;
}

std::optional<QuantizedWeights> quantized_weights_of(const Output& port) {
    // A Constant folded from a marked output, or the marked output itself when the folding
    // budget left it to the graph compiler.
    const auto& info = port.get_rt_info();
    auto it = info.find(kQuantizedWeightsKey);
    if (it == info.end() || !it->second.is<QuantizedWeights>()) return std::nullopt;
    QuantizedWeights w = it->second.as<QuantizedWeights>();
    if (w.q.get_size() != shape_size(port.get_shape())) return std::nullopt;
    return w;
}

std::optional<DequantizeMatch> match_dequantize(Node& convert, const ConsumerMap& consumers) {
    if (convert.get_type_name() != "Convert" || convert.get_output_element_type(0) != element::f32)
        return std::nullopt;
    DequantizeMatch m;
    m.q = convert.input_value(0);
    const auto type = m.q.get_element_type();
    if (type != element::u8 && type != element::i8) return std::nullopt;
    m.nodes.push_back(convert.shared_from_this());
    Output cur = convert.output(0);
    if (Node* sub = only_use(cur, consumers, "Subtract")) {
        if (sub->input_value(0) != cur) return std::nullopt;
        const double lo = type == element::u8 ? 0 : -128, hi = type == element::u8 ? 255 : 127;
        const auto zp = integer_scalar(sub->input_value(1), lo, hi);
        if (!zp) return std::nullopt;
        m.zero_point = *zp;
        m.nodes.push_back(sub->shared_from_this());
        cur = sub->output(0);
    }
    Node* mul = only_use(cur, consumers, "Multiply");
    if (!mul) return std::nullopt;
    const auto scale = scalar_constant(mul->input_value(mul->input_value(0) == cur ? 1 : 0));
    if (!scale || !(*scale > 0) || !std::isfinite(*scale)) return std::nullopt;
    if (mul->get_output_partial_shape(0) != cur.get_partial_shape()) return std::nullopt;
    m.scale = *scale;
    m.nodes.push_back(mul->shared_from_this());
    m.output = mul->output(0);
    return m;
}

std::optional<IntegerMatMulMatch> match_integer_matmul(const Node& matmul,
                                                       const ConsumerMap& consumers) {
    if (matmul.get_type_name() != "MatMul" || matmul.get_attribute<bool>("transpose_a") ||
        matmul.get_output_element_type(0) != element::f32 ||
        !matmul.get_output_partial_shape(0).is_static())
        return std::nullopt;
    // B: integer values an s8 holds.
    const Node* b = matmul.input_value(1).get_node();
    if (b->get_type_name() != "Constant") return std::nullopt;
    const Tensor& w = b->get_constant_value();
    if (w.get_element_type() != element::f32 || w.get_shape().size() != 2) return std::nullopt;
    const float* wv = static_cast<const float*>(w.data());
    for (size_t i = 0; i < w.get_size(); ++i)
        if (std::nearbyint(wv[i]) != wv[i] || wv[i] < -128.f || wv[i] > 127.f) return std::nullopt;
    IntegerMatMulMatch m;
    Node* a = matmul.input_value(0).get_node();
    if (a->get_type_name() == "Subtract") {
        if (only_use(a->output(0), consumers, "MatMul") != &matmul) return std::nullopt;
        m.nodes.push_back(a->shared_from_this());
        const Output zp = a->input_value(1);
        a = a->input_value(0).get_node();
        if (a->get_type_name() != "Convert") return std::nullopt;
        const auto type = a->input_value(0).get_element_type();
        const double lo = type == element::u8 ? 0 : -128, hi = type == element::u8 ? 255 : 127;
        if (const auto z = integer_scalar(zp, lo, hi)) {
            m.zero_point = *z;
        } else {
            const Node* cz = zp.get_node();
            if (cz->get_type_name() != "Convert" || cz->input_value(0).get_element_type() != type ||
                !cz->input_value(0).get_partial_shape().is_static() ||
                shape_size(cz->input_value(0).get_shape()) != 1)
                return std::nullopt;
            m.computed_zero_point = cz->input_value(0);
        }
        if (only_use(a->output(0), consumers, "Subtract") != m.nodes[0].get()) return std::nullopt;
    } else if (a->get_type_name() != "Convert" ||
               only_use(a->output(0), consumers, "MatMul") != &matmul) {
        return std::nullopt;
    }
    const auto type = a->input_value(0).get_element_type();
    if ((type != element::u8 && type != element::i8) ||
        a->get_output_element_type(0) != element::f32 ||
        !a->input_value(0).get_partial_shape().is_static() ||
        a->input_value(0).get_shape().size() < 2)
        return std::nullopt;
    m.q = a->input_value(0);
    m.nodes.insert(m.nodes.begin(), a->shared_from_this());
    return m;
}

std::optional<QuantizeMatch> match_quantize(Node& divide, const ConsumerMap& consumers) {
    if (divide.get_type_name() != "Divide" || divide.get_output_element_type(0) != element::f32)
        return std::nullopt;
    QuantizeMatch m;
    m.input = divide.input_value(0);
    const auto scale = scalar_constant(divide.input_value(1));
    if (!scale || !(*scale > 0) || !std::isfinite(*scale)) return std::nullopt;
    if (divide.get_output_partial_shape(0) != m.input.get_partial_shape()) return std::nullopt;
    m.scale = *scale;
    m.nodes.push_back(divide.shared_from_this());
    Node* round = only_use(divide.output(0), consumers, "Round");
    if (!round || round->get_attribute<std::string>("mode") != "half_to_even") return std::nullopt;
    m.nodes.push_back(round->shared_from_this());
    Output cur = round->output(0);
    std::optional<double> zp_value;
    if (Node* add = only_use(cur, consumers, "Add")) {
        const Output other = add->input_value(add->input_value(0) == cur ? 1 : 0);
        zp_value = scalar_constant(other);
        if (!zp_value || add->get_output_partial_shape(0) != cur.get_partial_shape())
            return std::nullopt;
        m.nodes.push_back(add->shared_from_this());
        cur = add->output(0);
    }
    Node* clamp = only_use(cur, consumers, "Clamp");
    Node* convert = clamp ? only_use(clamp->output(0), consumers, "Convert") : nullptr;
    if (!convert) return std::nullopt;
    m.type = convert->get_output_element_type(0);
    const double lo = m.type == element::u8 ? 0 : -128, hi = m.type == element::u8 ? 255 : 127;
    if ((m.type != element::u8 && m.type != element::i8) ||
        clamp->get_attribute<double>("min") != lo || clamp->get_attribute<double>("max") != hi)
        return std::nullopt;
    if (zp_value) {
        if (std::nearbyint(*zp_value) != *zp_value || *zp_value < lo || *zp_value > hi)
            return std::nullopt;
        m.zero_point = static_cast<int32_t>(*zp_value);
    }
    m.nodes.push_back(clamp->shared_from_this());
    m.nodes.push_back(convert->shared_from_this());
    m.output = convert->output(0);
    return m;
}

}  // namespace vireo::cpu_plugin

namespace vireo {

std::string TextCodec<cpu_plugin::QuantizedWeights>::to_text(
    const cpu_plugin::QuantizedWeights& w) {
    std::ostringstream out;
    out << w;
    return out.str();
}

cpu_plugin::QuantizedWeights TextCodec<cpu_plugin::QuantizedWeights>::from_text(
    const std::string& text) {
    throw_error<InvalidArgument>("quantized weights cannot be read from text ('", text, "')");
}

}  // namespace vireo
