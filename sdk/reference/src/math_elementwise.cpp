// Binary arithmetic kernels: Add, Subtract, Multiply, Divide, Power, Maximum, Minimum,
// SquaredDifference, Mod and FloorMod, with none/numpy/pdpd broadcasting.
//
// Integer policy: overflow wraps (two's complement, computed in unsigned arithmetic). Division
// by zero of integers gives 0 (x / 0 == 0, also for floor division) and never traps; INT_MIN / -1
// wraps to INT_MIN. Integer Power with a negative exponent truncates 1 / x^-n (so it is 1 for
// x == 1, +-1 for x == -1, 0 otherwise, 0 for x == 0). Real types follow IEEE 754 (x / 0 is
// +-inf, 0 / 0 is NaN); Maximum and Minimum propagate NaN like numpy.
#include "math_common.hpp"

namespace vireo::reference::math {
namespace {

struct AddOp {
    template <typename T>
    T operator()(T x, T y) const {
        if constexpr (std::is_integral_v<T>)
            return wrap_add(x, y);
        else
            return x + y;
    }
};

struct SubtractOp {
    template <typename T>
    T operator()(T x, T y) const {
        if constexpr (std::is_integral_v<T>)
            return wrap_sub(x, y);
        else
            return x - y;
    }
};

struct MultiplyOp {
    template <typename T>
    T operator()(T x, T y) const {
        if constexpr (std::is_integral_v<T>)
            return wrap_mul(x, y);
        else
            return x * y;
    }
};

struct SquaredDifferenceOp {
    template <typename T>
    T operator()(T x, T y) const {
        if constexpr (std::is_integral_v<T>) {
            const T d = wrap_sub(x, y);
            return wrap_mul(d, d);
        } else {
            const T d = x - y;
            return d * d;
        }
    }
};

/// Integer division truncating toward zero, or rounding toward -inf when `Floor` (python's //).
template <bool Floor>
struct DivideOp {
    template <typename T>
    T operator()(T x, T y) const {
        if constexpr (std::is_integral_v<T>) {
            if (y == 0) return T{0};
            if constexpr (std::is_signed_v<T>) {
                if (y == T{-1}) return wrap_neg(x);  // avoids the INT_MIN / -1 trap
                T q = static_cast<T>(x / y);
                if constexpr (Floor) {
                    if (static_cast<T>(x % y) != 0 && ((x < 0) != (y < 0)))
                        q = static_cast<T>(q - 1);
                }
                return q;
            } else {
                return static_cast<T>(x / y);
            }
        } else {
            return x / y;
        }
    }
};

/// Remainder: Mod's has the sign of the dividend (C's % and fmod), FloorMod's (`Floor`) the sign
/// of the divisor (python's %). Integer x mod 0 is 0; real x mod 0 is NaN.
template <bool Floor>
struct ModOp {
    template <typename T>
    T operator()(T x, T y) const {
        if constexpr (std::is_integral_v<T>) {
            if (y == 0) return T{0};
            if constexpr (std::is_signed_v<T>) {
                if (y == T{-1}) return T{0};  // avoids the INT_MIN % -1 trap
                T r = static_cast<T>(x % y);
                if constexpr (Floor) {
                    if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
                }
                return r;
            } else {
                return static_cast<T>(x % y);
            }
        } else {
            T r = std::fmod(x, y);
            if constexpr (Floor) {
                if (r != T(0) && ((r < T(0)) != (y < T(0)))) r += y;
            }
            return r;
        }
    }
};

struct PowerOp {
    template <typename T>
    T operator()(T x, T y) const {
        if constexpr (std::is_integral_v<T>) {
            if constexpr (std::is_signed_v<T>) {
                if (y < 0) {
                    if (x == 1) return T{1};
                    if (x == -1) return (y % 2) ? T{-1} : T{1};
                    return T{0};
                }
            }
            // Exponentiation by squaring in wrapping arithmetic.
            T result = 1, base = x;
            auto e = static_cast<std::make_unsigned_t<T>>(y);
            while (e) {
                if (e & 1u) result = wrap_mul(result, base);
                base = wrap_mul(base, base);
                e >>= 1;
            }
            return result;
        } else {
            return std::pow(x, y);
        }
    }
};

struct MaximumOp {
    template <typename T>
    T operator()(T x, T y) const {
        if constexpr (std::is_floating_point_v<T>) {
            if (x != x) return x;
        }
        return x > y ? x : y;  // y when y is NaN
    }
};

struct MinimumOp {
    template <typename T>
    T operator()(T x, T y) const {
        if constexpr (std::is_floating_point_v<T>) {
            if (x != x) return x;
        }
        return x < y ? x : y;
    }
};

/// A factory for a same-type binary op over `Types` whose output type is the input type.
template <typename Types, typename Op>
KernelFactory arithmetic_factory(Op op) {
    return [op](const Node& node) -> std::unique_ptr<Kernel> {
        check_same_input_types(node, 0, 1);
        const BroadcastSpec spec = read_broadcast(node);
        const std::string what = node.describe();
        return dispatch(Types{}, input_type(node, 0), what.c_str(), [&](auto tag) {
            using T = decltype(tag);
            return make_kernel([spec, op](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                binary_broadcast<T, T>(in[0], in[1], out[0], spec, op);
            });
        });
    };
}

}  // namespace

void register_elementwise_kernels(KernelRegistry& registry) {
    registry.add("Add", arithmetic_factory<NumericTypes>(AddOp{}));
    registry.add("Subtract", arithmetic_factory<NumericTypes>(SubtractOp{}));
    registry.add("Multiply", arithmetic_factory<NumericTypes>(MultiplyOp{}));
    registry.add("SquaredDifference", arithmetic_factory<NumericTypes>(SquaredDifferenceOp{}));
    registry.add("Power", arithmetic_factory<NumericTypes>(PowerOp{}));
    registry.add("Maximum", arithmetic_factory<NumericTypes>(MaximumOp{}));
    registry.add("Minimum", arithmetic_factory<NumericTypes>(MinimumOp{}));
    registry.add("Mod", arithmetic_factory<NumericTypes>(ModOp<false>{}));
    registry.add("FloorMod", arithmetic_factory<NumericTypes>(ModOp<true>{}));
    // Divide: `m_pythondiv` (default true) selects floor division for integer types.
    const KernelFactory truncating = arithmetic_factory<NumericTypes>(DivideOp<false>{});
    const KernelFactory flooring = arithmetic_factory<NumericTypes>(DivideOp<true>{});
    registry.add("Divide", [truncating, flooring](const Node& node) {
        bool python = true;
        if (node.has_attribute("m_pythondiv")) python = node.get_attribute<bool>("m_pythondiv");
        return python ? flooring(node) : truncating(node);
    });
}

}  // namespace vireo::reference::math
