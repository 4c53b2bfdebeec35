// Implements MaxPool-1, MaxPool-8 (dilations, indices output, axis) and AvgPool-1 (exclude-pad)
// over 1-3 spatial axes, one (batch, channel) plane at a time.
#include <algorithm>
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

// The valid window range along one axis for output position o: kernel taps [k0, k1) land inside
// the input.
struct TapRange {
    size_t k0, k1;
    int64_t origin;  // input coordinate of tap 0 (may be negative)
};

TapRange taps(const Window& w, int axis, size_t o) {
    const int64_t origin = static_cast<int64_t>(o * w.stride[axis]) - w.pad_begin[axis];
    const auto d = static_cast<int64_t>(w.dilation[axis]);
    const auto in = static_cast<int64_t>(w.in[axis]);
    int64_t k0 = 0;
    if (origin < 0) k0 = (-origin + d - 1) / d;
    // Largest k with origin + k * d < in.
    int64_t k1 = in - origin <= 0 ? 0 : (in - origin + d - 1) / d;
    k1 = std::min<int64_t>(k1, static_cast<int64_t>(w.kernel[axis]));
    k0 = std::min(k0, k1);
    return {static_cast<size_t>(k0), static_cast<size_t>(k1), origin};
}

Shape spatial_of(const Shape& s) {
    return Shape(s.begin() + 2, s.end());
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
                run<T, int64_t>(w, x[0] * x[1], in, out, nullptr, index_block);
            } else if (m_index_type == element::i32) {
                run<T, int32_t>(w, x[0] * x[1], in, out, tensor_data<int32_t>(outputs[1]),
                                index_block);
            } else {
                run<T, int64_t>(w, x[0] * x[1], in, out, tensor_data<int64_t>(outputs[1]),
                                index_block);
            }
        });
    }

  private:
    template <typename T, typename I>
    static void run(const Window& w, size_t planes, const T* in, T* out, I* indices,
                    size_t index_block) {
        const size_t in_plane = w.in_size(), out_plane = w.out_size();
        gemm::parallel_ranges(planes, [&](size_t first, size_t last) {
            for (size_t p = first; p < last; ++p) {
                const T* src = in + p * in_plane;
                T* dst = out + p * out_plane;
                I* idx = indices ? indices + p * out_plane : nullptr;
                const size_t base = p * in_plane;
                size_t o = 0;
                for (size_t od = 0; od < w.out[0]; ++od) {
                    const TapRange rd = taps(w, 0, od);
                    for (size_t oh = 0; oh < w.out[1]; ++oh) {
                        const TapRange rh = taps(w, 1, oh);
                        for (size_t ow = 0; ow < w.out[2]; ++ow, ++o) {
                            const TapRange rw = taps(w, 2, ow);
                            T best = std::numeric_limits<T>::lowest();
                            size_t best_at = 0;
                            bool found = false;
                            for (size_t kd = rd.k0; kd < rd.k1; ++kd) {
                                const size_t iz = static_cast<size_t>(
                                    rd.origin + static_cast<int64_t>(kd * w.dilation[0]));
                                for (size_t kh = rh.k0; kh < rh.k1; ++kh) {
                                    const size_t iy = static_cast<size_t>(
                                        rh.origin + static_cast<int64_t>(kh * w.dilation[1]));
                                    const size_t row = (iz * w.in[1] + iy) * w.in[2];
                                    for (size_t kw = rw.k0; kw < rw.k1; ++kw) {
                                        const size_t at =
                                            row + static_cast<size_t>(
                                                      rw.origin +
                                                      static_cast<int64_t>(kw * w.dilation[2]));
                                        // Strictly greater: the first of equal maxima wins.
                                        if (!found || src[at] > best) {
                                            best = src[at];
                                            best_at = at;
                                            found = true;
                                        }
                                    }
                                }
                            }
                            dst[o] = best;
                            if (idx) idx[o] = static_cast<I>((base + best_at) % index_block);
                        }
                    }
                }
            }
        });
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
        const size_t in_plane = w.in_size(), out_plane = w.out_size();
        gemm::parallel_ranges(planes, [&](size_t first, size_t last) {
            for (size_t p = first; p < last; ++p) {
                const T* src = in + p * in_plane;
                T* dst = out + p * out_plane;
                size_t o = 0;
                for (size_t od = 0; od < w.out[0]; ++od) {
                    const TapRange rd = taps(w, 0, od);
                    for (size_t oh = 0; oh < w.out[1]; ++oh) {
                        const TapRange rh = taps(w, 1, oh);
                        for (size_t ow = 0; ow < w.out[2]; ++ow, ++o) {
                            const TapRange rw = taps(w, 2, ow);
                            A sum{};
                            for (size_t kd = rd.k0; kd < rd.k1; ++kd) {
                                const size_t iz =
                                    static_cast<size_t>(rd.origin + static_cast<int64_t>(kd));
                                for (size_t kh = rh.k0; kh < rh.k1; ++kh) {
                                    const size_t iy =
                                        static_cast<size_t>(rh.origin + static_cast<int64_t>(kh));
                                    const T* row = src + (iz * w.in[1] + iy) * w.in[2];
                                    for (size_t kw = rw.k0; kw < rw.k1; ++kw)
                                        sum += static_cast<A>(row[static_cast<size_t>(
                                            rw.origin + static_cast<int64_t>(kw))]);
                                }
                            }
                            const size_t count =
                                full_divisor ? w.kernel_size()
                                             : (rd.k1 - rd.k0) * (rh.k1 - rh.k0) * (rw.k1 - rw.k0);
                            dst[o] = average<T, A>(sum, count);
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
