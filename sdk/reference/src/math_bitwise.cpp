// Bitwise kernels: BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot (integers and boolean) and
// BitwiseLeftShift, BitwiseRightShift (integers), with none/numpy/pdpd broadcasting.
//
// Boolean inputs act as one bit (any non-zero byte is true; NOT true is false). Shifts are defined
// for every shift amount: a negative amount or one >= the type's bit width gives 0; otherwise a
// left shift drops the bits shifted out (computed in unsigned arithmetic, so signed values wrap)
// and a right shift of a signed value is arithmetic (copies the sign bit).
#include "math_common.hpp"

namespace vireo::reference::math {
namespace {

using BitwiseTypes = TypeList<element::TypeId::boolean, element::TypeId::i8, element::TypeId::u8,
                              element::TypeId::i16, element::TypeId::u16, element::TypeId::i32,
                              element::TypeId::u32, element::TypeId::i64, element::TypeId::u64>;

enum class BitOp { kAnd, kOr, kXor };

template <BitOp Kind>
KernelFactory bitwise_factory() {
    return [](const Node& node) -> std::unique_ptr<Kernel> {
        check_same_input_types(node, 0, 1);
        const BroadcastSpec spec = read_broadcast(node);
        const std::string what = node.describe();
        const bool boolean = input_type(node, 0) == element::boolean;
        return dispatch(BitwiseTypes{}, input_type(node, 0), what.c_str(),
                        [&](auto tag) -> std::unique_ptr<Kernel> {
                            using T = decltype(tag);
                            return make_kernel([spec, boolean](const std::vector<Tensor>& in,
                                                               std::vector<Tensor>& out) {
                                binary_broadcast<T, T>(in[0], in[1], out[0], spec,
                                                       [boolean](T x, T y) -> T {
                                                           if (boolean) {
                                                               x = x != 0;
                                                               y = y != 0;
                                                           }
                                                           if constexpr (Kind == BitOp::kAnd)
                                                               return static_cast<T>(x & y);
                                                           if constexpr (Kind == BitOp::kOr)
                                                               return static_cast<T>(x | y);
                                                           return static_cast<T>(x ^ y);
                                                       });
                            });
                        });
    };
}

std::unique_ptr<Kernel> make_bitwise_not(const Node& node) {
    const std::string what = node.describe();
    if (input_type(node, 0) == element::boolean)
        return make_kernel([](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            unary_loop(static_cast<const uint8_t*>(in[0].data()),
                       static_cast<uint8_t*>(out[0].data()), out[0].get_size(),
                       [](uint8_t x) -> uint8_t { return x == 0; });
        });
    return dispatch(
        IntegerTypes{}, input_type(node, 0), what.c_str(),
        [&](auto tag) -> std::unique_ptr<Kernel> {
            using T = decltype(tag);
            return make_kernel([](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                unary_loop(static_cast<const T*>(in[0].data()), static_cast<T*>(out[0].data()),
                           out[0].get_size(),
                           [](T x) { return static_cast<T>(~static_cast<wrap_t<T>>(x)); });
            });
        });
}

template <bool Left>
struct ShiftOp {
    template <typename T>
    T operator()(T x, T amount) const {
        constexpr int64_t kBits = static_cast<int64_t>(sizeof(T) * 8);
        if constexpr (std::is_signed_v<T>) {
            if (amount < 0) return T{0};
        }
        if (static_cast<uint64_t>(amount) >= static_cast<uint64_t>(kBits)) return T{0};
        const unsigned n = static_cast<unsigned>(amount);
        if constexpr (Left)
            return static_cast<T>(
                static_cast<std::make_unsigned_t<T>>(static_cast<std::make_unsigned_t<T>>(x) << n));
        else
            return static_cast<T>(x >> n);  // arithmetic for signed T (C++20)
    }
};

template <bool Left>
std::unique_ptr<Kernel> make_shift(const Node& node) {
    check_same_input_types(node, 0, 1);
    const BroadcastSpec spec = read_broadcast(node);
    const std::string what = node.describe();
    return dispatch(
        IntegerTypes{}, input_type(node, 0), what.c_str(),
        [&](auto tag) -> std::unique_ptr<Kernel> {
            using T = decltype(tag);
            return make_kernel([spec](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                binary_broadcast<T, T>(in[0], in[1], out[0], spec, ShiftOp<Left>{});
            });
        });
}

}  // namespace

void register_bitwise_kernels(KernelRegistry& registry) {
    registry.add("BitwiseAnd", bitwise_factory<BitOp::kAnd>());
    registry.add("BitwiseOr", bitwise_factory<BitOp::kOr>());
    registry.add("BitwiseXor", bitwise_factory<BitOp::kXor>());
    registry.add("BitwiseNot", make_bitwise_not);
    registry.add("BitwiseLeftShift", make_shift<true>);
    registry.add("BitwiseRightShift", make_shift<false>);
}

}  // namespace vireo::reference::math
