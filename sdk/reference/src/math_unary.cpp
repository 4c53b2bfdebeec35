// Unary math kernels added for the ONNX frontend: Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh,
// Atanh, Round, SoftSign, Selu and the floating-point class tests IsInf, IsNaN, IsFinite.
//
// Types: the trigonometric and hyperbolic functions take every numeric type; integers are
// evaluated in double and stored as Convert does (truncation toward zero, saturating; a NaN result
// such as asin(2) gives 0). Round keeps integers as they are. SoftSign and Selu take real types;
// IsInf/IsNaN/IsFinite take real types and write boolean. Out-of-domain real inputs give NaN
// (IEEE 754), and NaN propagates through every op except the class tests.
#include "math_common.hpp"

namespace vireo::reference::math {
namespace {

/// Round-5: to the nearest integer; halves go to the even neighbour (`half_to_even`) or away from
/// zero (`half_away_from_zero`). Computed from floor() so it does not depend on the FPU's rounding
/// mode.
template <bool ToEven>
struct RoundOp {
    template <typename C>
    C operator()(C x) const {
        if constexpr (std::is_integral_v<C>) {
            return x;
        } else {
            if (!std::isfinite(x)) return x;
            const C f = std::floor(x);
            const C d = x - f;  // exact: x and f are within one unit of each other
            if (d < C(0.5)) return f;
            if (d > C(0.5)) return f + C(1);
            if constexpr (ToEven)
                return std::fmod(f, C(2)) == C(0) ? f : f + C(1);
            else
                return x < C(0) ? f : f + C(1);
        }
    }
};

std::unique_ptr<Kernel> make_round(const Node& node) {
    std::string mode = "half_to_even";
    if (node.has_attribute("mode")) mode = node.get_attribute<std::string>("mode");
    if (mode == "half_to_even") return native_unary<NumericTypes>(RoundOp<true>{})(node);
    if (mode == "half_away_from_zero") return native_unary<NumericTypes>(RoundOp<false>{})(node);
    throw_error<NotImplemented>(
        node.describe(), ": mode '", mode,
        "' is not supported (expected half_to_even or half_away_from_zero)");
}

/// The single value of a one-element parameter input (Selu's alpha and lambda).
template <typename T>
compute_t<T> single_value(const Tensor& t, const std::string& what, const char* name) {
    if (t.get_size() != 1)
        throw_error<InvalidArgument>(what, ": ", name, " must hold one element, got shape ",
                                     t.get_shape());
    return to_compute(static_cast<const T*>(t.data())[0]);
}

/// Selu(x) = lambda * (x > 0 ? x : alpha * (e^x - 1)).
std::unique_ptr<Kernel> make_selu(const Node& node) {
    check_same_input_types(node, 0, 2);
    const std::string what = node.describe();
    return dispatch(RealTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        return make_kernel([what](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            const C alpha = single_value<T>(in[1], what, "alpha");
            const C lambda = single_value<T>(in[2], what, "lambda");
            unary_loop(static_cast<const T*>(in[0].data()), static_cast<T*>(out[0].data()),
                       out[0].get_size(), [alpha, lambda](C x) {
                           return lambda * (x > C(0) ? x : alpha * std::expm1(x));
                       });
        });
    });
}

/// A real -> boolean class test.
template <typename Test>
std::unique_ptr<Kernel> make_class_test(const Node& node, Test test) {
    const std::string what = node.describe();
    return dispatch(RealTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        return make_kernel([test](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            unary_loop(static_cast<const T*>(in[0].data()), static_cast<uint8_t*>(out[0].data()),
                       out[0].get_size(), [test](auto x) -> uint8_t { return test(x) ? 1 : 0; });
        });
    });
}

std::unique_ptr<Kernel> make_is_inf(const Node& node) {
    bool negative = true, positive = true;
    if (node.has_attribute("detect_negative"))
        negative = node.get_attribute<bool>("detect_negative");
    if (node.has_attribute("detect_positive"))
        positive = node.get_attribute<bool>("detect_positive");
    return make_class_test(node, [negative, positive](auto x) {
        return std::isinf(x) && ((x > 0 && positive) || (x < 0 && negative));
    });
}

}  // namespace

void register_unary_kernels(KernelRegistry& registry) {
    registry.add("Tan", formula_unary<NumericTypes>([](auto x) { return std::tan(x); }));
    registry.add("Asin", formula_unary<NumericTypes>([](auto x) { return std::asin(x); }));
    registry.add("Acos", formula_unary<NumericTypes>([](auto x) { return std::acos(x); }));
    registry.add("Atan", formula_unary<NumericTypes>([](auto x) { return std::atan(x); }));
    registry.add("Sinh", formula_unary<NumericTypes>([](auto x) { return std::sinh(x); }));
    registry.add("Cosh", formula_unary<NumericTypes>([](auto x) { return std::cosh(x); }));
    registry.add("Asinh", formula_unary<NumericTypes>([](auto x) { return std::asinh(x); }));
    registry.add("Acosh", formula_unary<NumericTypes>([](auto x) { return std::acosh(x); }));
    registry.add("Atanh", formula_unary<NumericTypes>([](auto x) { return std::atanh(x); }));
    registry.add("Round", make_round);
    registry.add("SoftSign", formula_unary<RealTypes>([](auto x) {
                     using C = decltype(x);
                     return x / (C(1) + std::fabs(x));
                 }));
    registry.add("Selu", make_selu);
    registry.add("IsInf", make_is_inf);
    registry.add("IsNaN", [](const Node& node) {
        return make_class_test(node, [](auto x) { return std::isnan(x); });
    });
    registry.add("IsFinite", [](const Node& node) {
        return make_class_test(node, [](auto x) { return std::isfinite(x); });
    });
}

}  // namespace vireo::reference::math
