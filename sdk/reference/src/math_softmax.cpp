// Softmax (v1, v8) and LogSoftmax (v5) kernels over one axis, numerically stable (max-shifted).
// Real types; f16/bf16 compute in float. The axis may be negative (normalised per execution).
#include <algorithm>

#include "math_common.hpp"

namespace vireo::reference::math {
namespace {

/// Softmax or log-softmax of x viewed as [outer, n, inner] along the middle axis. The exponentials
/// are kept in a compute-type buffer so each is evaluated once.
template <typename T, bool Log>
void softmax(const T* __restrict x, T* __restrict o, size_t outer, size_t n, size_t inner) {
    using C = compute_t<T>;
    if (n == 0 || inner == 0) return;
    if (inner == 1) {
        // The common case (softmax over the last axis): one contiguous row at a time.
        std::vector<C> row(n);
        for (size_t b = 0; b < outer; ++b) {
            const T* xb = x + b * n;
            T* ob = o + b * n;
            C peak = to_compute(xb[0]);
            for (size_t j = 0; j < n; ++j) {
                row[j] = to_compute(xb[j]);
                peak = row[j] > peak || row[j] != row[j] ? row[j] : peak;
            }
            C sum = 0;
            for (size_t j = 0; j < n; ++j) {
                row[j] -= peak;
                const C e = std::exp(row[j]);
                sum += e;
                if constexpr (!Log) row[j] = e;
            }
            if constexpr (Log) {
                const C log_sum = std::log(sum);
                for (size_t j = 0; j < n; ++j) ob[j] = from_compute<T>(row[j] - log_sum);
            } else {
                const C scale = C(1) / sum;
                for (size_t j = 0; j < n; ++j) ob[j] = from_compute<T>(row[j] * scale);
            }
        }
        return;
    }
    std::vector<C> work(n * inner);
    std::vector<C> peak(inner), sum(inner);
    for (size_t b = 0; b < outer; ++b) {
        const T* xb = x + b * n * inner;
        T* ob = o + b * n * inner;
        for (size_t i = 0; i < n * inner; ++i) work[i] = to_compute(xb[i]);
        // Max along the axis, one contiguous inner row at a time (NaN wins, so it propagates).
        std::copy(work.begin(), work.begin() + static_cast<std::ptrdiff_t>(inner), peak.begin());
        for (size_t j = 1; j < n; ++j) {
            const C* row = work.data() + j * inner;
            for (size_t i = 0; i < inner; ++i)
                peak[i] = row[i] > peak[i] || row[i] != row[i] ? row[i] : peak[i];
        }
        std::fill(sum.begin(), sum.end(), C(0));
        for (size_t j = 0; j < n; ++j) {
            C* row = work.data() + j * inner;
            for (size_t i = 0; i < inner; ++i) {
                row[i] -= peak[i];
                const C e = std::exp(row[i]);
                sum[i] += e;
                if constexpr (!Log) row[i] = e;
            }
        }
        if constexpr (Log) {
            for (size_t i = 0; i < inner; ++i) sum[i] = std::log(sum[i]);
            for (size_t j = 0; j < n; ++j)
                for (size_t i = 0; i < inner; ++i)
                    ob[j * inner + i] = from_compute<T>(work[j * inner + i] - sum[i]);
        } else {
            for (size_t i = 0; i < inner; ++i) sum[i] = C(1) / sum[i];
            for (size_t j = 0; j < n; ++j)
                for (size_t i = 0; i < inner; ++i)
                    ob[j * inner + i] = from_compute<T>(work[j * inner + i] * sum[i]);
        }
    }
}

template <bool Log>
std::unique_ptr<Kernel> make_softmax(const Node& node) {
    const int64_t axis = node.has_attribute("axis") ? node.get_attribute<int64_t>("axis") : 1;
    const std::string what = node.describe();
    return dispatch(RealTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        return make_kernel(
            [axis, what](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                const Shape& shape = in[0].get_shape();
                if (shape.empty()) {  // a scalar: softmax is 1, log-softmax 0
                    static_cast<T*>(out[0].data())[0] = static_cast<T>(Log ? 0.0f : 1.0f);
                    return;
                }
                const size_t a = normalize_axis(axis, shape.size(), what);
                size_t outer = 1, inner = 1;
                for (size_t i = 0; i < a; ++i) outer *= shape[i];
                for (size_t i = a + 1; i < shape.size(); ++i) inner *= shape[i];
                softmax<T, Log>(static_cast<const T*>(in[0].data()), static_cast<T*>(out[0].data()),
                                outer, shape[a], inner);
            },
            4.0);
    });
}

}  // namespace

void register_softmax_kernels(KernelRegistry& registry) {
    registry.add("Softmax", make_softmax<false>);
    registry.add("LogSoftmax", make_softmax<true>);
}

}  // namespace vireo::reference::math
