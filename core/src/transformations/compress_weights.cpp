// compress_weights: weight-only int8 / int4 compression of MatMul weights (see
// vireo/transformations.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "vireo/exception.hpp"
#include "vireo/ops.hpp"
#include "vireo/transformations.hpp"

namespace vireo {

namespace {

struct Quantized {
    Tensor q;           // i8, u8, i4 or u4, [N, K] or [N, groups, group]
    Tensor scale;       // f32, [N, 1] or [N, groups, 1]
    Tensor zero_point;  // u8 like scale (asymmetric only)
};

struct Levels {
    element::Type type;
    bool sym;
    float lo, hi;  // the integer range used
};

Levels levels_of(WeightCompressionMode mode) {
    switch (mode) {
        case WeightCompressionMode::kInt8Sym:
            return {element::i8, true, -127.f, 127.f};
        case WeightCompressionMode::kInt8Asym:
            return {element::u8, false, 0.f, 255.f};
        case WeightCompressionMode::kInt4Sym:
            return {element::i4, true, -7.f, 7.f};
        case WeightCompressionMode::kInt4Asym:
            return {element::u4, false, 0.f, 15.f};
    }
    return {element::i8, true, -127.f, 127.f};
}

// Stores integer `v` as element i of q (bytes, or nibbles with element 0 in the low half).
void store(Tensor& q, size_t i, int v) {
    auto* bytes = static_cast<uint8_t*>(q.data());
    if (!q.get_element_type().is_sub_byte()) {
        bytes[i] = static_cast<uint8_t>(v);
        return;
    }
    const int shift = 4 * static_cast<int>(i % 2);
    bytes[i / 2] = static_cast<uint8_t>((bytes[i / 2] & ~(0x0F << shift)) | ((v & 0x0F) << shift));
}

// Quantizes w (row-major [N, K] when `transposed`, else [K, N]: element (n, k) is at
// n * K + k or k * N + n) in groups of `group` along K.
Quantized quantize(const float* w, size_t n_rows, size_t k_len, bool transposed, size_t group,
                   const Levels& levels) {
    const size_t groups = k_len / group;
    const Shape q_shape = groups == 1 ? Shape{n_rows, k_len} : Shape{n_rows, groups, group};
    const Shape s_shape = groups == 1 ? Shape{n_rows, 1} : Shape{n_rows, groups, 1};
    Quantized out{Tensor(levels.type, q_shape), Tensor(element::f32, s_shape),
                  levels.sym ? Tensor() : Tensor(element::u8, s_shape)};
    auto* scales = static_cast<float*>(out.scale.data());
    auto at = [&](size_t n, size_t k) { return transposed ? w[n * k_len + k] : w[k * n_rows + n]; };
    for (size_t n = 0; n < n_rows; ++n) {
        for (size_t g = 0; g < groups; ++g) {
            const size_t k0 = g * group;
            float lo = 0.f, hi = 0.f;  // the range always holds 0, so 0 stays exact
            for (size_t k = k0; k < k0 + group; ++k) {
                lo = std::min(lo, at(n, k));
                hi = std::max(hi, at(n, k));
            }
            const size_t slot = n * groups + g;
            const float scale =
                levels.sym ? std::max(-lo, hi) / levels.hi : (hi - lo) / (levels.hi - levels.lo);
            scales[slot] = scale > 0.f ? scale : 1.f;
            float zp = 0.f;
            if (!levels.sym) {
                zp = std::clamp(std::nearbyint(-lo / scales[slot]), levels.lo, levels.hi);
                static_cast<uint8_t*>(out.zero_point.data())[slot] = static_cast<uint8_t>(zp);
            }
            for (size_t k = k0; k < k0 + group; ++k)
                store(out.q, n * k_len + k,
                      static_cast<int>(std::clamp(std::nearbyint(at(n, k) / scales[slot]) + zp,
                                                  levels.lo, levels.hi)));
        }
    }
    return out;
}

}  // namespace

WeightCompressionMode weight_compression_mode(const std::string& name) {
    if (name == "int8" || name == "int8_sym") return WeightCompressionMode::kInt8Sym;
    if (name == "int8_asym") return WeightCompressionMode::kInt8Asym;
    if (name == "int4" || name == "int4_sym") return WeightCompressionMode::kInt4Sym;
    if (name == "int4_asym") return WeightCompressionMode::kInt4Asym;
    throw_error<InvalidArgument>(
        "weight compression mode '", name,
        "' is not supported; use int8 (int8_sym), int8_asym, int4 (int4_sym) or int4_asym");
}

CompressWeightsStats compress_weights(const std::shared_ptr<Model>& model,
                                      const CompressWeightsOptions& options) {
    if (!model) throw_error<InvalidArgument>("compress_weights: no model");
    CompressWeightsStats stats;
    for (const NodePtr& node : model->get_ordered_ops()) {
        if (node->get_type_name() != "MatMul" || node->get_input_size() != 2) continue;
        const Output a = node->input_value(0);
        const Output b = node->input_value(1);
        const Node* producer = b.get_node();
        if (producer->get_type_name() != "Constant" || a.get_node()->get_type_name() == "Constant")
            continue;
        const Tensor w = producer->get_constant_value();
        if (w.get_element_type() != element::f32 || w.get_shape().size() != 2 ||
            w.get_size() < std::max<size_t>(options.min_elements, 1))
            continue;
        const bool transposed = node->get_attribute<bool>("transpose_b");
        const size_t n_rows = w.get_shape()[transposed ? 0 : 1];
        const size_t k_len = w.get_shape()[transposed ? 1 : 0];
        const Levels levels = levels_of(options.mode);
        if (levels.type.is_sub_byte() && k_len % 2 != 0) continue;  // rows must start on a byte
        // Infinities and NaNs have no integer: such weights stay f32.
        const auto* values = static_cast<const float*>(w.data());
        if (!std::all_of(values, values + w.get_size(), [](float v) { return std::isfinite(v); }))
            continue;
        const size_t wanted = options.group_size != 0     ? options.group_size
                              : levels.type.is_sub_byte() ? 128
                                                          : 0;
        const size_t group = wanted != 0 && wanted < k_len && k_len % wanted == 0 &&
                                     (!levels.type.is_sub_byte() || wanted % 2 == 0)
                                 ? wanted
                                 : k_len;
        const Quantized q =
            quantize(static_cast<const float*>(w.data()), n_rows, k_len, transposed, group, levels);
        const std::string base = node->get_friendly_name() + "/compressed_weights";
        auto q_const = op::constant(q.q);
        q_const->set_friendly_name(base);
        Output value = op::convert(q_const, element::f32)->output(0);
        if (q.zero_point) {
            auto zp = op::constant(q.zero_point);
            zp->set_friendly_name(base + "/zero_point");
            value = op::subtract(value, op::convert(zp, element::f32))->output(0);
        }
        auto scale = op::constant(q.scale);
        scale->set_friendly_name(base + "/scale");
        value = op::multiply(value, scale)->output(0);
        if (group != k_len)
            value =
                op::reshape(
                    value,
                    op::int64_vector({static_cast<int64_t>(n_rows), static_cast<int64_t>(k_len)}),
                    false)
                    ->output(0);
        value.get_node()->set_friendly_name(base + "/decompressed");
        node->set_argument(1, value);
        node->set_attribute("transpose_b", AttrValue(true));
        node->validate_and_infer_types();
        ++stats.matmuls;
        stats.bytes_before += w.get_byte_size();
        stats.bytes_after += q.q.get_byte_size() + q.scale.get_byte_size() +
                             (q.zero_point ? q.zero_point.get_byte_size() : 0);
    }
    model->validate();
    return stats;
}

}  // namespace vireo
