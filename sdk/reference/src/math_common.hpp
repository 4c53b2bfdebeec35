// Declares what the math kernel group shares (internal): compute types, wrap-around integer
// arithmetic, broadcast specs and loops, a lambda-backed Kernel, and the group's registrars.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "math_types.hpp"
#include "vireo/reference/dispatch.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::reference::math {

// ---- Registrars of the families (one per math_*.cpp) ----
void register_elementwise_kernels(KernelRegistry& registry);
void register_comparison_kernels(KernelRegistry& registry);
void register_activation_kernels(KernelRegistry& registry);
void register_softmax_kernels(KernelRegistry& registry);
void register_reduce_kernels(KernelRegistry& registry);
void register_norm_kernels(KernelRegistry& registry);
void register_quantize_kernels(KernelRegistry& registry);
void register_convert_kernels(KernelRegistry& registry);
void register_unary_kernels(KernelRegistry& registry);    // math_unary.cpp
void register_bitwise_kernels(KernelRegistry& registry);  // math_bitwise.cpp
void register_lrn_kernels(KernelRegistry& registry);      // math_lrn.cpp

// ---- Integer arithmetic ----

/// Unsigned type integer arithmetic wraps in: at least `unsigned`, so that narrow types do not
/// promote to (overflowing) int.
template <typename T>
using wrap_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

// Two's complement wrap-around without undefined behaviour: compute in unsigned, convert back
// (modular since C++20).
template <typename T>
constexpr T wrap_add(T x, T y) {
    return static_cast<T>(static_cast<wrap_t<T>>(x) + static_cast<wrap_t<T>>(y));
}
template <typename T>
constexpr T wrap_sub(T x, T y) {
    return static_cast<T>(static_cast<wrap_t<T>>(x) - static_cast<wrap_t<T>>(y));
}
template <typename T>
constexpr T wrap_mul(T x, T y) {
    return static_cast<T>(static_cast<wrap_t<T>>(x) * static_cast<wrap_t<T>>(y));
}
template <typename T>
constexpr T wrap_neg(T x) {
    return static_cast<T>(wrap_t<T>{0} - static_cast<wrap_t<T>>(x));
}

using element::saturate_real;

/// Stores a result of a real-valued formula into T: rounding for real T, Convert's rule for
/// integers.
template <typename T, typename V>
T store_real(V v) {
    if constexpr (is_real_v<T>) {
        return static_cast<T>(static_cast<compute_t<T>>(v));
    } else {
        return saturate_real<T>(static_cast<double>(v));
    }
}

// ---- Node helpers ----

/// The element type of input `i`; throws NotImplemented naming the node when it is not static.
element::Type input_type(const Node& node, size_t i);
/// The element type of output `i`; throws NotImplemented when not static.
element::Type output_type(const Node& node, size_t i);
/// Throws NotImplemented unless inputs `first..last` all have the type of input `first`.
void check_same_input_types(const Node& node, size_t first, size_t last);

/// How the inputs of an elementwise op broadcast (attribute `auto_broadcast`, and `axis` for pdpd).
struct BroadcastSpec {
    enum class Mode { kNone, kNumpy, kPdpd };
    Mode mode = Mode::kNumpy;
    int64_t axis = -1;  // pdpd only: where the second shape starts in the first; -1 = aligned right
};
/// Reads `auto_broadcast` (default numpy) and `axis` (default -1); throws NotImplemented on an
/// unknown mode.
BroadcastSpec read_broadcast(const Node& node);

/// The shape of an input re-expressed with the output's rank so that plain numpy broadcasting
/// gives the op's broadcast: numpy pads with leading 1s, pdpd places the input at `axis` (-1:
/// right- aligned; the input's trailing 1s are then ignored, as PaddlePaddle does), none requires
/// equal shapes. Throws InvalidArgument naming `what` and both shapes when the input does not
/// broadcast to `out`.
Shape aligned_shape(const BroadcastSpec& spec, const Shape& in, const Shape& out,
                    const std::string& what);

/// Normalises `axis` (may be negative) against `rank`; throws InvalidArgument naming `what`.
size_t normalize_axis(int64_t axis, size_t rank, const std::string& what);
/// Reads an axes tensor (i32/i64/u32/u64, scalar or 1-D) into a per-axis "reduced" mask of `rank`
/// axes; negative axes count from the end, duplicates are allowed.
std::vector<bool> read_axes_mask(const Tensor& axes, size_t rank, const std::string& what);

// ---- Kernels ----

using KernelBody =
    std::function<void(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs)>;

/// A Kernel whose execute() calls `body`. The body must be stateless (captured values are
/// read-only) so concurrent executions are safe. `flops_per_input_element`, when > 0, makes
/// flops() report that many operations per element of input 0 (reductions, Softmax, norms),
/// instead of the default one per output element.
class FunctionKernel final : public Kernel {
  public:
    explicit FunctionKernel(KernelBody body, double flops_per_input_element = 0)
        : m_body(std::move(body)), m_flops_per_input(flops_per_input_element) {}
    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        m_body(inputs, outputs);
    }
    double flops(const std::vector<Tensor>& inputs,
                 const std::vector<Tensor>& outputs) const override {
        if (m_flops_per_input > 0 && !inputs.empty())
            return m_flops_per_input * static_cast<double>(inputs[0].get_size());
        return Kernel::flops(inputs, outputs);
    }

  private:
    KernelBody m_body;
    double m_flops_per_input;
};

inline std::unique_ptr<Kernel> make_kernel(KernelBody body, double flops_per_input_element = 0) {
    return std::make_unique<FunctionKernel>(std::move(body), flops_per_input_element);
}

// ---- Loops ----

/// o[i] = f(x[i]) over `n` elements, f working in the compute types.
template <typename In, typename Out, typename F>
void unary_loop(const In* __restrict x, Out* __restrict o, size_t n, F f) {
    for (size_t i = 0; i < n; ++i) o[i] = from_compute<Out>(f(to_compute(x[i])));
}

/// o = f(a, b) with a and b broadcast to o's shape per `spec`. Same-shape and scalar operands are
/// plain contiguous loops; other shapes go through BroadcastIndex with a contiguous inner run.
template <typename In, typename Out, typename F>
void binary_broadcast(const Tensor& a, const Tensor& b, Tensor& o, const BroadcastSpec& spec, F f) {
    using C = compute_t<In>;
    const In* __restrict pa = static_cast<const In*>(a.data());
    const In* __restrict pb = static_cast<const In*>(b.data());
    Out* __restrict po = static_cast<Out*>(o.data());
    const size_t n = o.get_size();
    const size_t na = a.get_size(), nb = b.get_size();
    const bool plain = spec.mode != BroadcastSpec::Mode::kNone || a.get_shape() == b.get_shape();
    if (plain && na == n && nb == n) {
        for (size_t i = 0; i < n; ++i)
            po[i] = from_compute<Out>(f(to_compute(pa[i]), to_compute(pb[i])));
        return;
    }
    if (plain && na == n && nb == 1) {
        const C vb = to_compute(pb[0]);
        for (size_t i = 0; i < n; ++i) po[i] = from_compute<Out>(f(to_compute(pa[i]), vb));
        return;
    }
    if (plain && na == 1 && nb == n) {
        const C va = to_compute(pa[0]);
        for (size_t i = 0; i < n; ++i) po[i] = from_compute<Out>(f(va, to_compute(pb[i])));
        return;
    }
    const Shape& out_shape = o.get_shape();
    const Shape sa = aligned_shape(spec, a.get_shape(), out_shape, "input 0");
    const Shape sb = aligned_shape(spec, b.get_shape(), out_shape, "input 1");
    BroadcastIndex index(sa, sb, out_shape);
    index.for_each_run(
        [&](size_t out, size_t ia, size_t ib, size_t run, size_t step_a, size_t step_b) {
            const In* __restrict ra = pa + ia;
            const In* __restrict rb = pb + ib;
            Out* __restrict ro = po + out;
            if (step_a && step_b) {
                for (size_t k = 0; k < run; ++k)
                    ro[k] = from_compute<Out>(f(to_compute(ra[k]), to_compute(rb[k])));
            } else if (step_a) {
                const C vb = to_compute(rb[0]);
                for (size_t k = 0; k < run; ++k)
                    ro[k] = from_compute<Out>(f(to_compute(ra[k]), vb));
            } else if (step_b) {
                const C va = to_compute(ra[0]);
                for (size_t k = 0; k < run; ++k)
                    ro[k] = from_compute<Out>(f(va, to_compute(rb[k])));
            } else {
                const Out v = from_compute<Out>(f(to_compute(ra[0]), to_compute(rb[0])));
                for (size_t k = 0; k < run; ++k) ro[k] = v;
            }
        });
}

/// Broadcasting of N inputs (already aligned to the output's rank) to an output shape: calls
/// f(out_offset, offsets, run, steps) for each run along the last axis, steps being 0 or 1.
template <size_t N>
class MultiBroadcast {
  public:
    MultiBroadcast(const std::array<Shape, N>& inputs, const Shape& out) : m_out(out) {
        const size_t rank = out.size();
        for (size_t j = 0; j < N; ++j) {
            m_strides[j].assign(rank, 0);
            size_t stride = 1;
            for (size_t axis = rank; axis-- > 0;) {
                if (inputs[j][axis] != 1) {
                    m_strides[j][axis] = stride;
                    stride *= inputs[j][axis];
                }
            }
        }
    }

    template <typename F>
    void for_each_run(F&& f) const {
        const size_t total = shape_size(m_out);
        if (total == 0) return;
        const size_t rank = m_out.size();
        const size_t run = rank ? m_out[rank - 1] : 1;
        std::array<size_t, N> steps{}, offsets{};
        for (size_t j = 0; j < N; ++j) steps[j] = rank ? m_strides[j][rank - 1] : 0;
        std::vector<size_t> index(rank, 0);
        for (size_t out = 0; out < total; out += run) {
            f(out, offsets, run, steps);
            for (size_t axis = rank - 1; axis-- > 0;) {
                for (size_t j = 0; j < N; ++j) offsets[j] += m_strides[j][axis];
                if (++index[axis] < m_out[axis]) break;
                for (size_t j = 0; j < N; ++j) offsets[j] -= m_strides[j][axis] * m_out[axis];
                index[axis] = 0;
            }
        }
    }

  private:
    Shape m_out;
    std::array<std::vector<size_t>, N> m_strides;  // element strides, 0 on broadcast axes
};

// ---- Unary kernel factories ----

/// A factory for an elementwise op computed natively in each numeric type: `op(x)` receives the
/// compute type (float for f16/bf16).
template <typename Types, typename Op>
KernelFactory native_unary(Op op) {
    return [op](const Node& node) -> std::unique_ptr<Kernel> {
        const std::string what = node.describe();
        return dispatch(Types{}, input_type(node, 0), what.c_str(), [&](auto tag) {
            using T = decltype(tag);
            return make_kernel([op](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                unary_loop(static_cast<const T*>(in[0].data()), static_cast<T*>(out[0].data()),
                           out[0].get_size(), op);
            });
        });
    };
}

/// A factory for a real-valued formula `g` (generic over float/double). Real types compute in
/// their compute type; integer types (when `Types` has them) in double, stored as Convert does.
template <typename Types, typename G>
KernelFactory formula_unary(G g) {
    return [g](const Node& node) -> std::unique_ptr<Kernel> {
        const std::string what = node.describe();
        return dispatch(Types{}, input_type(node, 0), what.c_str(), [&](auto tag) {
            using T = decltype(tag);
            return make_kernel([g](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                const T* x = static_cast<const T*>(in[0].data());
                T* o = static_cast<T*>(out[0].data());
                if constexpr (is_real_v<T>) {
                    unary_loop(x, o, out[0].get_size(), g);
                } else {
                    unary_loop(x, o, out[0].get_size(),
                               [g](T v) { return store_real<T>(g(static_cast<double>(v))); });
                }
            });
        });
    };
}

}  // namespace vireo::reference::math
