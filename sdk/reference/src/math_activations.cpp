// Unary math and activation kernels: Abs, Negative, Sign, Floor, Ceiling, Exp, Log, Sqrt, Erf,
// Sin, Cos, Relu, Sigmoid, Tanh, Clamp, Elu, Gelu, HSwish, HSigmoid, Swish, Mish, SoftPlus and
// PRelu.
//
// Types: Abs, Negative, Sign, Floor, Ceiling, Relu, Clamp and PRelu work natively on every
// numeric type (Abs/Negative of the most negative integer wrap to itself). Exp, Log, Sqrt, Erf,
// Sin, Cos, Sigmoid and Tanh also take integers: they are evaluated in double and stored as Convert
// does (truncation toward zero, saturating). The other activations take real types only. Clamp on
// integers uses ceil(min) and floor(max). NaN propagates through every op (Relu and Clamp keep it
// rather than clipping it).
#include <algorithm>
#include <cctype>

#include "math_common.hpp"

namespace vireo::reference::math {
namespace {

constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kSqrt2OverPi = 0.79788456080286535588;

/// log(1 + e^x) without overflow for large x or loss for very negative x.
template <typename C>
C softplus(C x) {
    return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

struct AbsOp {
    template <typename T>
    T operator()(T x) const {
        if constexpr (std::is_unsigned_v<T>)
            return x;
        else if constexpr (std::is_integral_v<T>)
            return x < 0 ? wrap_neg(x) : x;
        else
            return std::fabs(x);
    }
};

struct NegativeOp {
    template <typename T>
    T operator()(T x) const {
        if constexpr (std::is_integral_v<T>)
            return wrap_neg(x);
        else
            return -x;
    }
};

struct SignOp {
    template <typename T>
    T operator()(T x) const {
        if constexpr (std::is_unsigned_v<T>) {
            return static_cast<T>(x != 0);
        } else {
            if (x != x) return x;  // NaN
            return static_cast<T>((T(0) < x) - (x < T(0)));
        }
    }
};

struct FloorOp {
    template <typename T>
    T operator()(T x) const {
        if constexpr (std::is_integral_v<T>)
            return x;
        else
            return std::floor(x);
    }
};

struct CeilingOp {
    template <typename T>
    T operator()(T x) const {
        if constexpr (std::is_integral_v<T>)
            return x;
        else
            return std::ceil(x);
    }
};

struct ReluOp {
    template <typename T>
    T operator()(T x) const {
        if constexpr (std::is_unsigned_v<T>)
            return x;
        else
            return x < T(0) ? T(0) : x;  // NaN is kept
    }
};

std::unique_ptr<Kernel> make_clamp(const Node& node) {
    const double lo = node.get_attribute<double>("min");
    const double hi = node.get_attribute<double>("max");
    if (lo > hi)
        throw_error<InvalidArgument>(node.describe(), ": min ", lo, " is greater than max ", hi);
    const std::string what = node.describe();
    return dispatch(NumericTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        C l, h;
        if constexpr (std::is_integral_v<T>) {
            l = saturate_real<T>(std::ceil(lo));
            h = saturate_real<T>(std::floor(hi));
        } else {
            l = static_cast<C>(lo);
            h = static_cast<C>(hi);
        }
        return make_kernel([l, h](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            unary_loop(static_cast<const T*>(in[0].data()), static_cast<T*>(out[0].data()),
                       out[0].get_size(), [l, h](C x) { return x < l ? l : (x > h ? h : x); });
        });
    });
}

std::unique_ptr<Kernel> make_elu(const Node& node) {
    const double alpha = node.get_attribute<double>("alpha");
    return formula_unary<RealTypes>([alpha](auto x) {
        using C = decltype(x);
        return x > C(0) ? x : static_cast<C>(alpha) * std::expm1(x);
    })(node);
}

std::unique_ptr<Kernel> make_gelu(const Node& node) {
    std::string mode = "erf";
    if (node.has_attribute("approximation_mode"))
        mode = node.get_attribute<std::string>("approximation_mode");
    std::transform(mode.begin(), mode.end(), mode.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (mode == "erf") {
        return formula_unary<RealTypes>([](auto x) {
            using C = decltype(x);
            return C(0.5) * x * (C(1) + std::erf(x * static_cast<C>(kSqrt1_2)));
        })(node);
    }
    if (mode == "tanh") {
        return formula_unary<RealTypes>([](auto x) {
            using C = decltype(x);
            return C(0.5) * x *
                   (C(1) + std::tanh(static_cast<C>(kSqrt2OverPi) * (x + C(0.044715) * x * x * x)));
        })(node);
    }
    throw_error<NotImplemented>(node.describe(), ": approximation_mode '", mode,
                                "' is not supported (expected ERF or TANH)");
}

/// Swish(x, beta) = x * sigmoid(beta * x); beta is the optional scalar input 1 (default 1).
std::unique_ptr<Kernel> make_swish(const Node& node) {
    const std::string what = node.describe();
    if (node.get_input_size() > 1) check_same_input_types(node, 0, 1);
    return dispatch(RealTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        return make_kernel([what](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            C beta = C(1);
            if (in.size() > 1 && in[1]) {
                if (in[1].get_size() != 1)
                    throw_error<InvalidArgument>(what, ": beta must be a scalar, got shape ",
                                                 in[1].get_shape());
                beta = static_cast<C>(static_cast<const T*>(in[1].data())[0]);
            }
            unary_loop(static_cast<const T*>(in[0].data()), static_cast<T*>(out[0].data()),
                       out[0].get_size(), [beta](C x) { return x / (C(1) + std::exp(-beta * x)); });
        });
    });
}

/// PRelu: a 1-D slope whose length is the channel dimension (axis 1) of a data tensor of rank >= 2
/// applies per channel; any other slope broadcasts numpy-style.
std::unique_ptr<Kernel> make_prelu(const Node& node) {
    check_same_input_types(node, 0, 1);
    const std::string what = node.describe();
    return dispatch(NumericTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        return make_kernel([](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            const Shape& data_shape = in[0].get_shape();
            const Shape& slope_shape = in[1].get_shape();
            Tensor slope = in[1];
            if (data_shape.size() >= 2 && slope_shape.size() == 1 &&
                slope_shape[0] == data_shape[1]) {
                Shape per_channel(data_shape.size(), 1);
                per_channel[1] = slope_shape[0];
                slope = Tensor(in[1].get_element_type(), per_channel, in[1].data());
            }
            binary_broadcast<T, T>(in[0], slope, out[0], BroadcastSpec{}, [](auto x, auto s) {
                using C = decltype(x);
                if constexpr (std::is_unsigned_v<C>)
                    return x;
                else if constexpr (std::is_integral_v<C>)
                    return x < 0 ? wrap_mul(x, s) : x;
                else
                    return x < C(0) ? x * s : x;
            });
        });
    });
}

}  // namespace

void register_activation_kernels(KernelRegistry& registry) {
    registry.add("Abs", native_unary<NumericTypes>(AbsOp{}));
    registry.add("Negative", native_unary<NumericTypes>(NegativeOp{}));
    registry.add("Sign", native_unary<NumericTypes>(SignOp{}));
    registry.add("Floor", native_unary<NumericTypes>(FloorOp{}));
    registry.add("Ceiling", native_unary<NumericTypes>(CeilingOp{}));
    registry.add("Relu", native_unary<NumericTypes>(ReluOp{}));
    registry.add("Clamp", make_clamp);
    registry.add("Exp", formula_unary<NumericTypes>([](auto x) { return std::exp(x); }));
    registry.add("Log", formula_unary<NumericTypes>([](auto x) { return std::log(x); }));
    registry.add("Sqrt", formula_unary<NumericTypes>([](auto x) { return std::sqrt(x); }));
    registry.add("Erf", formula_unary<NumericTypes>([](auto x) { return std::erf(x); }));
    registry.add("Sin", formula_unary<NumericTypes>([](auto x) { return std::sin(x); }));
    registry.add("Cos", formula_unary<NumericTypes>([](auto x) { return std::cos(x); }));
    registry.add("Tanh", formula_unary<NumericTypes>([](auto x) { return std::tanh(x); }));
    registry.add("Sigmoid", formula_unary<NumericTypes>([](auto x) {
                     using C = decltype(x);
                     return C(1) / (C(1) + std::exp(-x));
                 }));
    registry.add("Elu", make_elu);
    registry.add("Gelu", make_gelu);
    registry.add("HSwish", formula_unary<RealTypes>([](auto x) {
                     using C = decltype(x);
                     const C r6 = std::min(std::max(x + C(3), C(0)), C(6));
                     return x * r6 / C(6);
                 }));
    registry.add("HSigmoid", formula_unary<RealTypes>([](auto x) {
                     using C = decltype(x);
                     return std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
                 }));
    registry.add("Swish", make_swish);
    registry.add("Mish",
                 formula_unary<RealTypes>([](auto x) { return x * std::tanh(softplus(x)); }));
    registry.add("SoftPlus", formula_unary<RealTypes>([](auto x) { return softplus(x); }));
    registry.add("PRelu", make_prelu);
}

}  // namespace vireo::reference::math
