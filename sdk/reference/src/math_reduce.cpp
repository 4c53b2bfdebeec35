// Reduction kernels: ReduceSum, ReduceMean, ReduceProd, ReduceMax, ReduceMin, ReduceL1, ReduceL2,
// ReduceLogicalAnd and ReduceLogicalOr over the axes given by input 1 (negative axes allowed;
// keep_dims only changes the output shape, which the caller allocates).
//
// Accumulation: reals in double (rounded once on store), signed integers in int64 and unsigned in
// uint64 with wrap-around (so Sum and Prod wrap exactly as in the element type; Mean divides the
// 64-bit sum, truncating). Empty reductions (a zero-length axis) give Sum 0, Prod 1, Mean NaN for
// reals and 0 for integers, Max the lowest value (-inf for reals), Min the highest (+inf), L1/L2 0.
// Max and Min propagate NaN. With empty axes every element is its own reduction (Sum is a copy,
// L2 is |x|).
#include "math_reduce.hpp"

namespace vireo::reference::math {
namespace {

template <typename T>
using sum_acc_t = std::conditional_t<is_real_v<T>, double,
                                     std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename T>
struct SumReduce {
    using Acc = sum_acc_t<T>;
    static Acc init() { return Acc(0); }
    static void add(Acc& a, T x) {
        if constexpr (std::is_integral_v<Acc>)
            a = wrap_add(a, static_cast<Acc>(x));
        else
            a += static_cast<double>(static_cast<compute_t<T>>(x));
    }
    static T finish(Acc a, size_t) { return static_cast<T>(static_cast<compute_t<T>>(a)); }
};

template <typename T>
struct MeanReduce : SumReduce<T> {
    using Acc = sum_acc_t<T>;
    static T finish(Acc a, size_t count) {
        if constexpr (std::is_integral_v<Acc>) {
            if (count == 0) return T(0);
            return static_cast<T>(a / static_cast<Acc>(count));
        } else {
            return static_cast<T>(static_cast<compute_t<T>>(a / static_cast<double>(count)));
        }
    }
};

template <typename T>
struct ProdReduce {
    using Acc = sum_acc_t<T>;
    static Acc init() { return Acc(1); }
    static void add(Acc& a, T x) {
        if constexpr (std::is_integral_v<Acc>)
            a = wrap_mul(a, static_cast<Acc>(x));
        else
            a *= static_cast<double>(static_cast<compute_t<T>>(x));
    }
    static T finish(Acc a, size_t) { return static_cast<T>(static_cast<compute_t<T>>(a)); }
};

template <typename T, bool IsMax>
struct ExtremumReduce {
    using Acc = compute_t<T>;
    static Acc init() {
        if constexpr (is_real_v<T>) {
            return IsMax ? -std::numeric_limits<Acc>::infinity()
                         : std::numeric_limits<Acc>::infinity();
        } else {
            return IsMax ? std::numeric_limits<Acc>::lowest() : std::numeric_limits<Acc>::max();
        }
    }
    static void add(Acc& a, T v) {
        const Acc x = static_cast<Acc>(v);
        if constexpr (is_real_v<T>) {
            if (a != a) return;
            if (x != x) {
                a = x;
                return;
            }
        }
        if (IsMax ? x > a : x < a) a = x;
    }
    static T finish(Acc a, size_t) { return static_cast<T>(a); }
};

template <typename T, int P>
struct NormReduce {
    using Acc = std::conditional_t<is_real_v<T>, double, sum_acc_t<T>>;
    static Acc init() { return Acc(0); }
    static void add(Acc& a, T v) {
        if constexpr (is_real_v<T>) {
            const double x = static_cast<double>(static_cast<compute_t<T>>(v));
            a += P == 1 ? std::fabs(x) : x * x;
        } else {
            Acc x = static_cast<Acc>(v);
            if constexpr (std::is_signed_v<T>) {
                if (x < 0) x = wrap_neg(x);
            }
            a = wrap_add(a, P == 1 ? x : wrap_mul(x, x));
        }
    }
    static T finish(Acc a, size_t) {
        if constexpr (P == 1)
            return static_cast<T>(static_cast<compute_t<T>>(a));
        else
            return store_real<T>(std::sqrt(static_cast<double>(a)));
    }
};

template <bool IsAnd>
struct LogicalReduce {
    using Acc = uint8_t;
    static Acc init() { return IsAnd ? 1 : 0; }
    static void add(Acc& a, uint8_t x) {
        if constexpr (IsAnd)
            a = a & (x != 0);
        else
            a = a | (x != 0);
    }
    static uint8_t finish(Acc a, size_t) { return a; }
};

template <typename T, typename R>
void reduce(const Tensor& data, const Tensor& axes, Tensor& out, const std::string& what) {
    const Shape& shape = data.get_shape();
    const std::vector<bool> mask = read_axes_mask(axes, shape.size(), what);
    const size_t n_out = out.get_size();
    const size_t expected = shape_size(reduced_shape(shape, mask));
    if (n_out != expected)
        throw_error<InvalidArgument>(what, ": output has ", n_out, " elements, reducing ", shape,
                                     " gives ", expected);
    std::vector<typename R::Acc> acc(n_out, R::init());
    reduce_accumulate(static_cast<const T*>(data.data()), shape, mask, acc.data(),
                      [](typename R::Acc& a, T x) { R::add(a, x); });
    const size_t count = reduced_count(shape, mask);
    T* o = static_cast<T*>(out.data());
    for (size_t i = 0; i < n_out; ++i) o[i] = R::finish(acc[i], count);
}

template <typename Types, template <typename> class R>
KernelFactory reduce_factory() {
    return [](const Node& node) -> std::unique_ptr<Kernel> {
        const std::string what = node.describe();
        return dispatch(Types{}, input_type(node, 0), what.c_str(), [&](auto tag) {
            using T = decltype(tag);
            return make_kernel(
                [what](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                    reduce<T, R<T>>(in[0], in[1], out[0], what);
                },
                1.0);
        });
    };
}

template <typename T>
using MaxReduce = ExtremumReduce<T, true>;
template <typename T>
using MinReduce = ExtremumReduce<T, false>;
template <typename T>
using L1Reduce = NormReduce<T, 1>;
template <typename T>
using L2Reduce = NormReduce<T, 2>;
template <typename T>
using AndReduce = LogicalReduce<true>;
template <typename T>
using OrReduce = LogicalReduce<false>;

using BooleanType = TypeList<element::TypeId::boolean>;

}  // namespace

void register_reduce_kernels(KernelRegistry& registry) {
    registry.add("ReduceSum", reduce_factory<NumericTypes, SumReduce>());
    registry.add("ReduceMean", reduce_factory<NumericTypes, MeanReduce>());
    registry.add("ReduceProd", reduce_factory<NumericTypes, ProdReduce>());
    registry.add("ReduceMax", reduce_factory<NumericTypes, MaxReduce>());
    registry.add("ReduceMin", reduce_factory<NumericTypes, MinReduce>());
    registry.add("ReduceL1", reduce_factory<NumericTypes, L1Reduce>());
    registry.add("ReduceL2", reduce_factory<NumericTypes, L2Reduce>());
    registry.add("ReduceLogicalAnd", reduce_factory<BooleanType, AndReduce>());
    registry.add("ReduceLogicalOr", reduce_factory<BooleanType, OrReduce>());
}

}  // namespace vireo::reference::math
