// Implements the builders of the graph-boundary ops (Parameter, Constant, Result).
#include <cstring>
#include <type_traits>

#include "vireo/float16.hpp"
#include "vireo/op_registry.hpp"
#include "vireo/ops.hpp"

namespace vireo::op {
namespace {

template <typename Src>
Tensor fill(element::Type type, const Shape& shape, const std::vector<Src>& values) {
    Tensor t(type, shape);
    const size_t n = t.get_size();
    if (values.size() != n && values.size() != 1)
        throw_error<InvalidArgument>("constant of shape ", shape, " needs ", n,
                                     " values (or 1), got ", values.size());
    auto at = [&](size_t i) { return values.size() == 1 ? values[0] : values[i]; };
    auto write = [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        for (size_t i = 0; i < n; ++i) {
            // A real value outside an integer type's range (a Clip bound of -inf on int8)
            // saturates.
            if constexpr (std::is_integral_v<T> && std::is_floating_point_v<Src>)
                p[i] = element::saturate_real<T>(at(i));
            else
                p[i] = static_cast<T>(at(i));
        }
    };
    switch (type.id()) {
        case element::TypeId::boolean: {
            auto* p = static_cast<uint8_t*>(t.data());
            for (size_t i = 0; i < n; ++i) p[i] = at(i) != 0 ? 1 : 0;
            break;
        }
        case element::TypeId::u8:
            write(static_cast<uint8_t*>(t.data()));
            break;
        case element::TypeId::i8:
            write(static_cast<int8_t*>(t.data()));
            break;
        case element::TypeId::u16:
            write(static_cast<uint16_t*>(t.data()));
            break;
        case element::TypeId::i16:
            write(static_cast<int16_t*>(t.data()));
            break;
        case element::TypeId::u32:
            write(static_cast<uint32_t*>(t.data()));
            break;
        case element::TypeId::i32:
            write(static_cast<int32_t*>(t.data()));
            break;
        case element::TypeId::u64:
            write(static_cast<uint64_t*>(t.data()));
            break;
        case element::TypeId::i64:
            write(static_cast<int64_t*>(t.data()));
            break;
        case element::TypeId::f16: {
            auto* p = static_cast<float16*>(t.data());
            for (size_t i = 0; i < n; ++i) p[i] = float16(static_cast<float>(at(i)));
            break;
        }
        case element::TypeId::bf16: {
            auto* p = static_cast<bfloat16*>(t.data());
            for (size_t i = 0; i < n; ++i) p[i] = bfloat16(static_cast<float>(at(i)));
            break;
        }
        case element::TypeId::f32:
            write(static_cast<float*>(t.data()));
            break;
        case element::TypeId::f64:
            write(static_cast<double*>(t.data()));
            break;
        default:
            throw_error<InvalidArgument>("cannot build a constant of element type ", type,
                                         " from values");
    }
    return t;
}

}  // namespace

NodePtr parameter(element::Type type, const PartialShape& shape, const std::string& name) {
    auto node = make_node("Parameter", {}, {{"element_type", type}, {"shape", shape}});
    if (!name.empty()) {
        node->set_friendly_name(name);
        node->output(0).set_names({name});
    }
    return node;
}

NodePtr constant(const Tensor& value) {
    auto node = make_node("Constant", {});
    node->set_constant_value(value);
    return node;
}

NodePtr result(const Output& value) {
    return make_node("Result", {value});
}

namespace detail {
NodePtr constant_from_doubles(element::Type type, const Shape& shape,
                              const std::vector<double>& values) {
    return constant(fill(type, shape, values));
}
NodePtr constant_from_i64(element::Type type, const Shape& shape,
                          const std::vector<int64_t>& values) {
    return constant(fill(type, shape, values));
}
}  // namespace detail

}  // namespace vireo::op
