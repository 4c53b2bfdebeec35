// Implements MaxPool-1, MaxPool-8 (dilations, indices output, axis) and AvgPool-1 (exclude-pad)
// over 1-3 spatial axes, one (batch, channel) plane at a time, a window row at a time.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "tensor_common.hpp"
#include "tensor_gemm.hpp"
#include "tensor_window.hpp"

namespace vireo::reference::tensor {
namespace {

using PoolTypes = TypeList<element::TypeId::f16, element::TypeId::bf16, element::TypeId::f32,
                           element::TypeId::f64, element::TypeId::i8, element::TypeId::u8,
                           element::TypeId::i16, element::TypeId::u16, element::TypeId::i32,
                           element::TypeId::u32, element::TypeId::i64, element::TypeId::u64>;

// The kernel taps [k0, k1) of output position o that land inside the input along one axis.
struct TapRange {
    size_t k0, k1;
    int64_t origin;  // input coordinate of tap 0 (may be negative)
    size_t count() const { return k1 - k0; }
};

// Tap ranges of every output position on every axis, computed once per call, and the range
// [lo, hi) of last-axis outputs whose window is entirely inside the input (no checks needed).
struct Taps {
    std::array<std::vector<TapRange>, 3> axis;
    size_t lo = 0, hi = 0;
};

Taps make_taps(const Window& w) {
    Taps t;
    for (int a = 0; a < 3; ++a) {
        const auto d = static_cast<int64_t>(w.dilation[a]);
        const auto in = static_cast<int64_t>(w.in[a]);
        for (size_t o = 0; o < w.out[a]; ++o) {
            const int64_t origin = static_cast<int64_t>(o * w.stride[a]) - w.pad_begin[a];
            int64_t k0 = origin < 0 ? (-origin + d - 1) / d : 0;
            int64_t k1 = in - origin <= 0 ? 0 : (in - origin + d - 1) / d;
            k1 = std::min<int64_t>(k1, static_cast<int64_t>(w.kernel[a]));
            k0 = std::min(k0, k1);
            t.axis[a].push_back({static_cast<size_t>(k0), static_cast<size_t>(k1), origin});
        }
    }
    const auto& last = t.axis[2];
    size_t lo = 0;
    while (lo < last.size() && last[lo].count() != w.kernel[2]) ++lo;
    size_t hi = lo;
    while (hi < last.size() && last[hi].count() == w.kernel[2]) ++hi;
    t.lo = lo;
    t.hi = hi;
    return t;
}

Shape spatial_of(const Shape& s) {
    return Shape(s.begin() + 2, s.end());
}

// Visits every input row (kd, kh taps inside the input) of output row (od, oh):
// f(row_offset) with row_offset the plane offset of that input row's element 0.
template <typename F>
void for_each_window_row(const Window& w, const TapRange& rd, const TapRange& rh, F&& f) {
    for (size_t kd = rd.k0; kd < rd.k1; ++kd) {
        const auto iz = static_cast<size_t>(rd.origin + static_cast<int64_t>(kd * w.dilation[0]));
        for (size_t kh = rh.k0; kh < rh.k1; ++kh) {
            const auto iy =
                static_cast<size_t>(rh.origin + static_cast<int64_t>(kh * w.dilation[1]));
            f((iz * w.in[1] + iy) * w.in[2]);
        }
    }
}

// best[i] = max(best[i], src[i * stride]) for i < n. The common strides get their own loops so
// the compiler sees a constant stride and vectorises them.
template <typename T>
void max_run(const T* __restrict src, size_t stride, size_t n, T* __restrict best) {
    auto pass = [&](auto step) {
        for (size_t i = 0; i < n; ++i) {
            const T v = src[i * step];
            best[i] = v > best[i] ? v : best[i];
        }
    };
    if (stride == 1) {
        pass(std::integral_constant<size_t, 1>{});
    } else if (stride == 2) {
        pass(std::integral_constant<size_t, 2>{});
    } else {
        pass(stride);
    }
}

class MaxPoolKernel final : public Kernel {
  public:
    explicit MaxPoolKernel(const Node& node)
        : m_who(node.describe()),
          m_attrs(WindowAttrs::read(node, node.get_version() >= 8)),
          m_kernel(node.get_attribute<std::vector<int64_t>>("kernel")),
          m_type(node.input_value(0).get_element_type()),
          m_with_indices(node.get_output_size() > 1) {
        if (!contains(PoolTypes{}, m_type))
            throw_error<NotImplemented>(m_who, ": element type ", m_type, " is not supported");
        if (m_with_indices) {
            m_index_type = node.get_attribute<element::Type>("index_element_type");
            m_axis = node.get_attribute<int64_t>("axis");
            if (m_index_type != element::i32 && m_index_type != element::i64)
                throw_error<NotImplemented>(
                    m_who, ": index_element_type must be i32 or i64, found ", m_index_type);
        }
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 1, outputs, m_with_indices ? 2 : 1, m_who);
        const Shape& x = inputs[0].get_shape();
        const Shape& y = outputs[0].get_shape();
        std::vector<size_t> kernel;
        for (int64_t k : m_kernel) kernel.push_back(static_cast<size_t>(k));
        if (x.size() < 3 || y.size() != x.size() || y[0] != x[0] || y[1] != x[1])
            throw_error<InvalidArgument>(m_who, ": output ", y, " does not match data ", x);
        const Window w = make_window(m_attrs, spatial_of(x), kernel, spatial_of(y), m_who);
        // Indices count from axis `axis` of the input: the flat index modulo the size of the
        // trailing block starting there.
        size_t index_block = shape_size(x);
        if (m_with_indices) {
            const size_t axis = normalize_axis(m_axis, x.size(), m_who, "attribute 'axis'");
            index_block = shape_size(Shape(x.begin() + static_cast<std::ptrdiff_t>(axis), x.end()));
        }
        dispatch(PoolTypes{}, m_type, m_who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            const T* in = tensor_data<T>(inputs[0]);
            T* out = tensor_data<T>(outputs[0]);
            if (!m_with_indices) {
                run<T, int64_t, false>(w, x[0] * x[1], in, out, nullptr, index_block);
            } else if (m_index_type == element::i32) {
                run<T, int32_t, true>(w, x[0] * x[1], in, out, tensor_data<int32_t>(outputs[1]),
                                      index_block);
            } else {
                run<T, int64_t, true>(w, x[0] * x[1], in, out, tensor_data<int64_t>(outputs[1]),
                                      index_block);
            }
        });
    }

  private:
    template <typename T, typename I, bool kIndices>
    static void run(const Window& w, size_t planes, const T* in, T* out, I* indices,
                    size_t index_block) {
        if constexpr (!kIndices) {
            if (is_plain_2x2(w)) {
                run_2x2(w, planes, in, out);
                return;
            }
        }
        const Taps taps = make_taps(w);
        const size_t in_plane = w.in_size(), out_plane = w.out_size(), width = w.out[2];
        gemm::parallel_ranges(planes, [&](size_t first, size_t last) {
            // Per output row: the best value and its offset in the plane, per last-axis output.
            std::vector<size_t> at(width);
            for (size_t p = first; p < last; ++p) {
                const T* src = in + p * in_plane;
                for (size_t od = 0; od < w.out[0]; ++od) {
                    for (size_t oh = 0; oh < w.out[1]; ++oh) {
                        const size_t row = (od * w.out[1] + oh) * width;
                        pool_row<T, kIndices>(w, taps, taps.axis[0][od], taps.axis[1][oh], src,
                                              out + p * out_plane + row, at.data());
                        if constexpr (kIndices) {
                            I* idx = indices + p * out_plane + row;
                            for (size_t ow = 0; ow < width; ++ow)
                                idx[ow] = static_cast<I>((p * in_plane + at[ow]) % index_block);
                        }
                    }
                }
            }
        });
    }

    // The most common pooling of all: 2x2 windows, stride 2, no padding, no dilation, every
    // window inside the input. One pass per output row, no tap bookkeeping.
    static bool is_plain_2x2(const Window& w) {
        return w.kernel[0] == 1 && w.stride[0] == 1 && w.kernel[1] == 2 && w.kernel[2] == 2 &&
               w.stride[1] == 2 && w.stride[2] == 2 && w.dilation[1] == 1 && w.dilation[2] == 1 &&
               w.pad_begin[0] == 0 && w.pad_begin[1] == 0 && w.pad_begin[2] == 0 &&
               w.out[0] == w.in[0] && 2 * w.out[1] <= w.in[1] && 2 * w.out[2] <= w.in[2];
    }

    template <typename T>
    static void run_2x2(const Window& w, size_t planes, const T* in, T* out) {
        const size_t rows = w.in[0] * w.out[1], width = w.out[2], in_width = w.in[2];
        const size_t in_plane_rows = w.in[1];
        gemm::parallel_ranges(planes * rows, [&](size_t first, size_t last) {
            for (size_t r = first; r < last; ++r) {
                // Output row r of plane-depth slice: input rows 2 * oh and 2 * oh + 1.
                const size_t slice = r / w.out[1], oh = r % w.out[1];
                const T* __restrict a = in + (slice * in_plane_rows + 2 * oh) * in_width;
                const T* __restrict b = a + in_width;
                T* __restrict o = out + r * width;
                // Window order (a0, a1, b0, b1) with a strict '>' keeps the first maximum.
                for (size_t ow = 0; ow < width; ++ow) {
                    T m = a[2 * ow];
                    m = a[2 * ow + 1] > m ? a[2 * ow + 1] : m;
                    m = b[2 * ow] > m ? b[2 * ow] : m;
                    m = b[2 * ow + 1] > m ? b[2 * ow + 1] : m;
                    o[ow] = m;
                }
            }
        });
    }

    // One output row. Every output compares its taps in window order (depth, height, width)
    // with a strict '>', so the first of equal maxima wins; a window with no tap inside the
    // input gives the lowest value and offset 0.
    template <typename T, bool kIndices>
    static void pool_row(const Window& w, const Taps& taps, const TapRange& rd, const TapRange& rh,
                         const T* src, T* best, size_t* at) {
        const size_t width = w.out[2];
        const auto& rw = taps.axis[2];
        const auto dil = static_cast<int64_t>(w.dilation[2]);
        const auto stride = static_cast<int64_t>(w.stride[2]);
        bool first = true;
        for_each_window_row(w, rd, rh, [&](size_t row_offset) {
            const T* row = src + row_offset;
            if (first) {
                // Start from each window's first tap in this row (interior: a strided copy).
                auto start = [&](size_t ow) {
                    const TapRange& r = rw[ow];
                    const int64_t x = r.origin + static_cast<int64_t>(r.k0) * dil;
                    best[ow] = r.count() ? row[x] : std::numeric_limits<T>::lowest();
                    at[ow] = r.count() ? row_offset + static_cast<size_t>(x) : 0;
                };
                for (size_t ow = 0; ow < taps.lo; ++ow) start(ow);
                for (size_t ow = taps.hi; ow < width; ++ow) start(ow);
                if (taps.hi > taps.lo) {
                    const int64_t x0 = rw[taps.lo].origin;
                    for (size_t ow = taps.lo; ow < taps.hi; ++ow)
                        best[ow] = row[x0 + static_cast<int64_t>(ow - taps.lo) * stride];
                    if constexpr (kIndices)
                        for (size_t ow = taps.lo; ow < taps.hi; ++ow)
                            at[ow] =
                                row_offset + static_cast<size_t>(
                                                 x0 + static_cast<int64_t>(ow - taps.lo) * stride);
                }
                first = false;
            }
            // Borders: per-output tap ranges.
            auto border = [&](size_t ow) {
                const TapRange& r = rw[ow];
                for (size_t kw = r.k0; kw < r.k1; ++kw) {
                    const int64_t x = r.origin + static_cast<int64_t>(kw) * dil;
                    if (row[x] > best[ow]) {
                        best[ow] = row[x];
                        if constexpr (kIndices) at[ow] = row_offset + static_cast<size_t>(x);
                    }
                }
            };
            for (size_t ow = 0; ow < taps.lo; ++ow) border(ow);
            for (size_t ow = taps.hi; ow < width; ++ow) border(ow);
            // Interior: every tap is inside, one pass per tap over the whole run.
            const int64_t base = rw.empty() ? 0 : rw[0].origin;
            for (size_t kw = 0; kw < w.kernel[2]; ++kw) {
                const int64_t offset = base + static_cast<int64_t>(kw) * dil;
                if constexpr (kIndices) {
                    for (size_t ow = taps.lo; ow < taps.hi; ++ow) {
                        const int64_t x = offset + static_cast<int64_t>(ow) * stride;
                        if (row[x] > best[ow]) {
                            best[ow] = row[x];
                            at[ow] = row_offset + static_cast<size_t>(x);
                        }
                    }
                } else if (taps.hi > taps.lo) {
                    max_run(row + offset + static_cast<int64_t>(taps.lo) * stride,
                            static_cast<size_t>(stride), taps.hi - taps.lo, best + taps.lo);
                }
            }
        });
        if (first) {
            std::fill(best, best + width, std::numeric_limits<T>::lowest());
            std::fill(at, at + width, size_t{0});
        }
    }

    std::string m_who;
    WindowAttrs m_attrs;
    std::vector<int64_t> m_kernel;
    element::Type m_type;
    bool m_with_indices;
    element::Type m_index_type = element::i64;
    int64_t m_axis = 0;
};

class AvgPoolKernel final : public Kernel {
  public:
    explicit AvgPoolKernel(const Node& node)
        : m_who(node.describe()),
          m_attrs(WindowAttrs::read(node, false)),
          m_kernel(node.get_attribute<std::vector<int64_t>>("kernel")),
          m_exclude_pad(node.get_attribute<bool>("exclude-pad")),
          m_type(node.input_value(0).get_element_type()) {
        if (!contains(PoolTypes{}, m_type))
            throw_error<NotImplemented>(m_who, ": element type ", m_type, " is not supported");
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 1, outputs, 1, m_who);
        const Shape& x = inputs[0].get_shape();
        const Shape& y = outputs[0].get_shape();
        std::vector<size_t> kernel;
        for (int64_t k : m_kernel) kernel.push_back(static_cast<size_t>(k));
        if (x.size() < 3 || y.size() != x.size() || y[0] != x[0] || y[1] != x[1])
            throw_error<InvalidArgument>(m_who, ": output ", y, " does not match data ", x);
        const Window w = make_window(m_attrs, spatial_of(x), kernel, spatial_of(y), m_who);
        dispatch(PoolTypes{}, m_type, m_who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            run<T>(w, x[0] * x[1], tensor_data<T>(inputs[0]), tensor_data<T>(outputs[0]));
        });
    }

  private:
    template <typename T>
    void run(const Window& w, size_t planes, const T* in, T* out) const {
        using A = std::conditional_t<std::is_integral_v<T>,
                                     std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>,
                                     std::conditional_t<std::is_same_v<T, double>, double, float>>;
        // As OpenVINO defines it: with exclude-pad false and any padding, the divisor is the whole
        // window even where it is clipped; otherwise it counts the taps inside the input.
        bool padded = false;
        for (int a = 0; a < 3; ++a) padded = padded || w.pad_begin[a] != 0 || w.pad_end[a] != 0;
        const bool full_divisor = !m_exclude_pad && padded;
        const Taps taps = make_taps(w);
        const size_t in_plane = w.in_size(), out_plane = w.out_size(), width = w.out[2];
        const auto& rw = taps.axis[2];
        gemm::parallel_ranges(planes, [&](size_t first, size_t last) {
            std::vector<A> sum(width);
            for (size_t p = first; p < last; ++p) {
                const T* src = in + p * in_plane;
                T* dst = out + p * out_plane;
                for (size_t od = 0; od < w.out[0]; ++od) {
                    for (size_t oh = 0; oh < w.out[1]; ++oh) {
                        const TapRange& rd = taps.axis[0][od];
                        const TapRange& rh = taps.axis[1][oh];
                        std::fill(sum.begin(), sum.end(), A{});
                        for_each_window_row(w, rd, rh, [&](size_t row_offset) {
                            const T* row = src + row_offset;
                            for (size_t ow = 0; ow < width; ++ow) {
                                const TapRange& r = rw[ow];
                                A s{};
                                for (size_t kw = r.k0; kw < r.k1; ++kw)
                                    s += static_cast<A>(row[r.origin + static_cast<int64_t>(kw)]);
                                sum[ow] += s;
                            }
                        });
                        T* o = dst + (od * w.out[1] + oh) * width;
                        const size_t rows = rd.count() * rh.count();
                        for (size_t ow = 0; ow < width; ++ow) {
                            const size_t count =
                                full_divisor ? w.kernel_size() : rows * rw[ow].count();
                            o[ow] = average<T, A>(sum[ow], count);
                        }
                    }
                }
            }
        });
    }

    template <typename T, typename A>
    static T average(A sum, size_t count) {
        if (count == 0) return T{};
        if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
            // As OpenVINO's reference: 8-bit averages round to nearest even, wider integers
            // truncate.
            return static_cast<T>(
                std::nearbyint(static_cast<double>(sum) / static_cast<double>(count)));
        } else if constexpr (std::is_integral_v<T>) {
            return static_cast<T>(sum / static_cast<A>(count));
        } else {
            return static_cast<T>(sum / static_cast<A>(count));
        }
    }

    std::string m_who;
    WindowAttrs m_attrs;
    std::vector<int64_t> m_kernel;
    bool m_exclude_pad;
    element::Type m_type;
};

}  // namespace

void register_pool_kernels(KernelRegistry& registry) {
    registry.add("MaxPool", [](const Node& node) { return std::make_unique<MaxPoolKernel>(node); });
    registry.add("AvgPool", [](const Node& node) { return std::make_unique<AvgPoolKernel>(node); });
}

}  // namespace vireo::reference::tensor
