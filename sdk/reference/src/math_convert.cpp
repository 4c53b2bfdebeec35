// Convert and ConvertLike kernels and convert_elements(): element type conversion between every
// static, byte-addressed element type (boolean, u8..u64, i8..i64, f16, bf16, f32, f64), and from
// the packed u4 / i4 of compressed weights (Convert only).
//
// Rules (Convert-1 leaves out-of-range conversions undefined; ours are defined):
// - integer -> integer: modulo 2^N (two's complement wrap), as the spec says for signed ->
// unsigned;
// - real -> integer: truncation toward zero, saturating at the target's range; NaN gives 0;
// - integer or real -> real: rounds to nearest, ties to even; f64 and wide integers reach
//   f16/bf16 through f32 (two roundings, which can differ from one in the last bit on ties);
// - anything -> boolean: x != 0 (NaN is true); boolean -> anything: 0 or 1.
#include <cstdint>
#include <cstring>
#include <vector>

#include "math_common.hpp"

namespace vireo::reference::math {
namespace {

template <element::TypeId Id>
struct Tag {
    static constexpr element::TypeId id = Id;
    using type = typename cpp_type<Id>::type;
};

/// Calls f(Tag<Id>{}) for `type`, one of the byte-addressed static types.
template <typename F>
decltype(auto) with_tag(element::Type type, const char* what, F&& f) {
    using element::TypeId;
    switch (type.id()) {
        case TypeId::boolean:
            return f(Tag<TypeId::boolean>{});
        case TypeId::u8:
            return f(Tag<TypeId::u8>{});
        case TypeId::i8:
            return f(Tag<TypeId::i8>{});
        case TypeId::u16:
            return f(Tag<TypeId::u16>{});
        case TypeId::i16:
            return f(Tag<TypeId::i16>{});
        case TypeId::u32:
            return f(Tag<TypeId::u32>{});
        case TypeId::i32:
            return f(Tag<TypeId::i32>{});
        case TypeId::u64:
            return f(Tag<TypeId::u64>{});
        case TypeId::i64:
            return f(Tag<TypeId::i64>{});
        case TypeId::f16:
            return f(Tag<TypeId::f16>{});
        case TypeId::bf16:
            return f(Tag<TypeId::bf16>{});
        case TypeId::f32:
            return f(Tag<TypeId::f32>{});
        case TypeId::f64:
            return f(Tag<TypeId::f64>{});
        default:
            throw_error<NotImplemented>(what, ": conversion of element type ", type,
                                        " is not supported");
    }
}

template <element::TypeId ToId, element::TypeId FromId>
typename cpp_type<ToId>::type convert_value(typename cpp_type<FromId>::type x) {
    using To = typename cpp_type<ToId>::type;
    using From = typename cpp_type<FromId>::type;
    if constexpr (ToId == element::TypeId::boolean) {
        return static_cast<To>(to_compute(x) != compute_t<From>(0));
    } else if constexpr (FromId == element::TypeId::boolean) {
        return static_cast<To>(x != 0 ? 1 : 0);
    } else if constexpr (is_real_v<From> && std::is_integral_v<To>) {
        return saturate_real<To>(to_compute(x));
    } else if constexpr (is_half_v<To>) {
        return from_compute<To>(static_cast<float>(to_compute(x)));
    } else {
        return static_cast<To>(to_compute(x));
    }
}

template <element::TypeId ToId, element::TypeId FromId>
void convert_loop(const void* src, void* dst, size_t n) {
    using To = typename cpp_type<ToId>::type;
    using From = typename cpp_type<FromId>::type;
    if constexpr (ToId == FromId) {
        if (n != 0) std::memcpy(dst, src, n * sizeof(To));  // an empty tensor's data may be null
    } else {
        const From* __restrict s = static_cast<const From*>(src);
        To* __restrict d = static_cast<To*>(dst);
        for (size_t i = 0; i < n; ++i) d[i] = convert_value<ToId, FromId>(s[i]);
    }
}

using ConvertFn = void (*)(const void* src, void* dst, size_t n);

ConvertFn find_converter(element::Type from, element::Type to, const char* what) {
    return with_tag(to, what, [&](auto to_tag) {
        return with_tag(from, what, [&](auto from_tag) -> ConvertFn {
            return &convert_loop<decltype(to_tag)::id, decltype(from_tag)::id>;
        });
    });
}

// u4 / i4 (two elements per byte, element 0 in the low nibble, as OpenVINO and ONNX pack them)
// widened to u8 / i8, the sign of i4 extended.
void unpack_nibbles(const void* src, bool is_signed, size_t n, int8_t* dst) {
    const auto* bytes = static_cast<const uint8_t*>(src);
    for (size_t i = 0; i < n; ++i) {
        const uint8_t nibble = (bytes[i / 2] >> (4 * (i % 2))) & 0x0F;
        dst[i] = static_cast<int8_t>(is_signed ? (nibble ^ 8) - 8 : nibble);
    }
}

std::unique_ptr<Kernel> make_convert(const Node& node) {
    const std::string what = node.describe();
    const element::Type from = input_type(node, 0);
    if (from == element::u4 || from == element::i4) {
        // Through a byte-wide copy: the weights of compressed models are converted once (folded)
        // or by a plugin that reads the nibbles itself, so this path favours simplicity.
        const bool is_signed = from == element::i4;
        const ConvertFn fn = find_converter(is_signed ? element::i8 : element::u8,
                                            output_type(node, 0), what.c_str());
        return make_kernel(
            [fn, is_signed](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                const size_t n = out[0].get_size();
                std::vector<int8_t> wide(n);
                unpack_nibbles(in[0].data(), is_signed, n, wide.data());
                fn(wide.data(), out[0].data(), n);
            });
    }
    const ConvertFn fn = find_converter(from, output_type(node, 0), what.c_str());
    return make_kernel([fn](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
        fn(in[0].data(), out[0].data(), out[0].get_size());
    });
}

}  // namespace

void register_convert_kernels(KernelRegistry& registry) {
    registry.add("Convert", make_convert);
    registry.add("ConvertLike",
                 make_convert);  // output type = type of input 1; input 1 is not read
}

}  // namespace vireo::reference::math

namespace vireo::reference {

void convert_elements(const Tensor& src, Tensor& dst) {
    if (src.get_size() != dst.get_size())
        throw_error<InvalidArgument>("convert_elements: source has ", src.get_size(),
                                     " elements (shape ", src.get_shape(), "), destination ",
                                     dst.get_size(), " (shape ", dst.get_shape(), ")");
    if (src.is_remote() || dst.is_remote() || !src.is_continuous() || !dst.is_continuous())
        throw_error<InvalidArgument>(
            "convert_elements: both tensors must be contiguous host tensors");
    const auto fn =
        math::find_converter(src.get_element_type(), dst.get_element_type(), "convert_elements");
    fn(src.data(), dst.data(), src.get_size());
}

}  // namespace vireo::reference
