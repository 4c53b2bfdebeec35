// Implements Convolution and GroupConvolution (1-D to 3-D): f32 through im2col straight into
// packed GEMM panels (1x1 convolutions read the input as is), other types by direct loops.
#include <algorithm>

#include "tensor_common.hpp"
#include "tensor_gemm.hpp"
#include "tensor_window.hpp"

namespace vireo::reference::tensor {
namespace {

using ConvTypes = TypeList<element::TypeId::f16, element::TypeId::bf16, element::TypeId::f32,
                           element::TypeId::f64, element::TypeId::i8, element::TypeId::u8,
                           element::TypeId::i16, element::TypeId::u16, element::TypeId::i32,
                           element::TypeId::u32, element::TypeId::i64, element::TypeId::u64>;

template <typename T>
using Acc = std::conditional_t<std::is_integral_v<T>,
                               std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>,
                               std::conditional_t<std::is_same_v<T, double>, double, float>>;

// Shapes of one call: data [N, C, spatial...], filter [C_OUT, C_IN/G, k...] or
// [G, C_OUT/G, C_IN/G, k...].
struct ConvShape {
    size_t batch = 0, groups = 1, in_per_group = 0, out_per_group = 0;
    Window window;
    size_t gemm_k() const { return in_per_group * window.kernel_size(); }
};

// o[i] = src[x0 + i * step] where that index is inside [0, width), else 0: the valid range is
// worked out once so the copy itself has no bounds checks (and is a memcpy for stride 1).
inline void copy_run(const float* src, int64_t x0, int64_t step, int64_t width, size_t count,
                     float* o) {
    const auto n = static_cast<int64_t>(count);
    // First i with x0 + i * step >= 0, and first i with x0 + i * step >= width. (Stride 1, the
    // common case, needs no divisions, which would cost more than the copy.)
    int64_t lo = x0 >= 0 ? 0 : step == 1 ? -x0 : (-x0 + step - 1) / step;
    int64_t hi = width <= x0 ? 0 : step == 1 ? width - x0 : (width - x0 + step - 1) / step;
    lo = std::min(lo, n);
    hi = std::clamp(hi, lo, n);
    std::fill(o, o + lo, 0.0f);
    if (step == 1) {
        std::memcpy(o + lo, src + x0 + lo, static_cast<size_t>(hi - lo) * sizeof(float));
    } else {
        const float* p = src + x0 + lo * step;
        for (int64_t i = lo; i < hi; ++i, p += step) o[i] = *p;
    }
    std::fill(o + hi, o + n, 0.0f);
}

// Writes im2col rows for output pixels [p_first * nr, p_last * nr) of one group into packed GEMM
// panels: panel p holds, for each row kk = (ci, kd, kh, kw), nr consecutive output pixels.
void im2col_panels(const float* x, const Window& w, size_t channels, size_t p_first, size_t p_last,
                   float* dst) {
    const size_t nr = gemm::tile().nr;
    const size_t pixels = w.out_size();
    const size_t kvol = w.kernel_size();
    const size_t k_rows = channels * kvol;
    // A panel covers up to nr pixels: split them into runs along the output's last axis.
    struct Run {
        size_t lane, count, od, oh, ow;
    };
    std::vector<Run> runs;
    runs.reserve(nr);
    for (size_t p = p_first; p < p_last; ++p) {
        runs.clear();
        const size_t q0 = p * nr, q1 = std::min(pixels, q0 + nr);
        for (size_t q = q0; q < q1;) {
            const size_t ow = q % w.out[2], row = q / w.out[2];
            const size_t count = std::min(w.out[2] - ow, q1 - q);
            runs.push_back({q - q0, count, row / w.out[1], row % w.out[1], ow});
            q += count;
        }
        const size_t valid = q1 - q0;
        float* panel = dst + p * k_rows * nr;
        const size_t kw_count = w.kernel[2];
        // Rows (c, kd, kh, 0..kw) of the panel: the source row of each run is found once and
        // read at kw shifted offsets.
        size_t kk = 0;
        for (size_t c = 0; c < channels; ++c) {
            const float* xc = x + c * w.in_size();
            for (size_t kd = 0; kd < w.kernel[0]; ++kd) {
                for (size_t kh = 0; kh < w.kernel[1]; ++kh, kk += kw_count) {
                    float* rows = panel + kk * nr;
                    for (const Run& r : runs) {
                        const int64_t iz =
                            static_cast<int64_t>(r.od * w.stride[0] + kd * w.dilation[0]) -
                            w.pad_begin[0];
                        const int64_t iy =
                            static_cast<int64_t>(r.oh * w.stride[1] + kh * w.dilation[1]) -
                            w.pad_begin[1];
                        if (iz < 0 || iz >= static_cast<int64_t>(w.in[0]) || iy < 0 ||
                            iy >= static_cast<int64_t>(w.in[1])) {
                            for (size_t kw = 0; kw < kw_count; ++kw)
                                std::fill_n(rows + kw * nr + r.lane, r.count, 0.0f);
                            continue;
                        }
                        const float* src =
                            xc +
                            (static_cast<size_t>(iz) * w.in[1] + static_cast<size_t>(iy)) * w.in[2];
                        const int64_t x0 =
                            static_cast<int64_t>(r.ow * w.stride[2]) - w.pad_begin[2];
                        for (size_t kw = 0; kw < kw_count; ++kw)
                            copy_run(src, x0 + static_cast<int64_t>(kw * w.dilation[2]),
                                     static_cast<int64_t>(w.stride[2]),
                                     static_cast<int64_t>(w.in[2]), r.count,
                                     rows + kw * nr + r.lane);
                    }
                    if (valid < nr)
                        for (size_t kw = 0; kw < kw_count; ++kw)
                            std::fill(rows + kw * nr + valid, rows + (kw + 1) * nr, 0.0f);
                }
            }
        }
    }
}

class ConvolutionKernel final : public Kernel {
  public:
    ConvolutionKernel(const Node& node, bool grouped)
        : m_who(node.describe()),
          m_grouped(grouped),
          m_attrs(WindowAttrs::read(node, true)),
          m_type(node.input_value(0).get_element_type()) {
        check_types(node);
        if (runs_on_f32_engine(m_type) && is_constant_input(node, 1))
            pack_filter(node.input_value(1).get_node()->get_constant_value());
    }

    // Everything the constructor refuses, without packing the filter (the registry's support
    // check).
    static bool validate(const Node& node) {
        (void)WindowAttrs::read(node, true);
        check_types(node);
        return true;
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 2, outputs, 1, m_who);
        const ConvShape cs =
            conv_shape(inputs[0].get_shape(), inputs[1].get_shape(), outputs[0].get_shape());
        if (runs_on_f32_engine(m_type)) {
            run_widened(inputs[0], inputs[1], outputs[0],
                        [&](const float* x, const float* w, float* y) { run_f32(cs, x, w, y); });
            return;
        }
        dispatch(ConvTypes{}, m_type, m_who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            run_direct<T>(cs, tensor_data<T>(inputs[0]), tensor_data<T>(inputs[1]),
                          tensor_data<T>(outputs[0]));
        });
    }

    double flops(const std::vector<Tensor>& inputs,
                 const std::vector<Tensor>& outputs) const override {
        const ConvShape cs =
            conv_shape(inputs[0].get_shape(), inputs[1].get_shape(), outputs[0].get_shape());
        return 2.0 * static_cast<double>(outputs[0].get_size()) * static_cast<double>(cs.gemm_k());
    }

    size_t owned_bytes() const override { return m_packed.size() * sizeof(float); }

  private:
    static void check_types(const Node& node) {
        const element::Type type = node.input_value(0).get_element_type();
        if (!contains(ConvTypes{}, type))
            throw_error<NotImplemented>(node.describe(), ": element type ", type,
                                        " is not supported");
        if (node.input_value(1).get_element_type() != type)
            throw_error<InvalidArgument>(node.describe(),
                                         ": data and filter must have one element type, found ",
                                         type, " and ", node.input_value(1).get_element_type());
    }

    ConvShape conv_shape(const Shape& x, const Shape& w, const Shape& y) const {
        const size_t lead = m_grouped ? 3 : 2;
        if (x.size() < 3 || w.size() != x.size() + lead - 2 || y.size() != x.size())
            throw_error<InvalidArgument>(m_who, ": data ", x, ", filter ", w, " and output ", y,
                                         " do not have matching ranks");
        ConvShape cs;
        cs.batch = x[0];
        cs.groups = m_grouped ? w[0] : 1;
        cs.out_per_group = m_grouped ? w[1] : w[0];
        cs.in_per_group = m_grouped ? w[2] : w[1];
        if (cs.groups == 0 || x[1] != cs.groups * cs.in_per_group)
            throw_error<InvalidArgument>(m_who, ": data ", x, " has ", x[1],
                                         " channels but filter ", w, " expects ",
                                         cs.groups * cs.in_per_group);
        if (y[0] != x[0] || y[1] != cs.groups * cs.out_per_group)
            throw_error<InvalidArgument>(m_who, ": output ", y, " does not match data ", x,
                                         " and filter ", w);
        cs.window = make_window(m_attrs, std::vector<size_t>(x.begin() + 2, x.end()),
                                std::vector<size_t>(w.begin() + lead, w.end()),
                                std::vector<size_t>(y.begin() + 2, y.end()), m_who);
        return cs;
    }

    void pack_filter(const Tensor& filter) {
        const Shape& w = filter.get_shape();
        const size_t lead = m_grouped ? 3 : 2;
        if (w.size() < lead + 1) return;  // shape errors are reported by execute()
        const size_t groups = m_grouped ? w[0] : 1;
        const size_t m = m_grouped ? w[1] : w[0];
        const size_t k = shape_size(w) / std::max<size_t>(groups * m, 1);
        m_packed_m = m;
        m_packed_k = k;
        m_packed_stride = gemm::packed_a_size(m, k);
        m_packed.resize(m_packed_stride * groups);
        std::vector<float> storage;
        const float* data = f32_view(filter, storage);
        for (size_t g = 0; g < groups; ++g)
            gemm::pack_a(gemm::MatrixView{data + g * m * k, m, k, k, 1},
                         m_packed.data() + g * m_packed_stride);
        m_packed_groups = groups;
    }

    void run_f32(const ConvShape& cs, const float* x, const float* w, float* y) const {
        if (cs.in_per_group == 1 && cs.out_per_group == 1) {
            run_depthwise(cs, x, w, y);
            return;
        }
        const Window& win = cs.window;
        const size_t m = cs.out_per_group, k = cs.gemm_k(), pixels = win.out_size();
        const size_t nr = gemm::tile().nr;
        const size_t panels = (pixels + nr - 1) / nr;
        // Filters: packed once when constant, else per call.
        const float* packed = m_packed.data();
        size_t stride = m_packed_stride;
        if (!(m_packed_groups == cs.groups && m_packed_m == m && m_packed_k == k)) {
            stride = gemm::packed_a_size(m, k);
            float* scratch = gemm::scratch(0, stride * cs.groups);
            for (size_t g = 0; g < cs.groups; ++g)
                gemm::pack_a(gemm::MatrixView{w + g * m * k, m, k, k, 1}, scratch + g * stride);
            packed = scratch;
        }
        const bool pointwise = win.is_pointwise();
        for (size_t n = 0; n < cs.batch; ++n) {
            for (size_t g = 0; g < cs.groups; ++g) {
                const float* xg = x + (n * cs.groups + g) * cs.in_per_group * win.in_size();
                float* yg = y + (n * cs.groups + g) * m * pixels;
                const float* a = packed + g * stride;
                if (pointwise) {
                    gemm::multiply_packed_a(
                        a, m, gemm::MatrixView{xg, cs.in_per_group, pixels, pixels, 1}, yg, pixels);
                    continue;
                }
                float* b = gemm::scratch(1, gemm::packed_b_size(k, pixels));
                if (gemm::splits_by_panels(m, pixels)) {
                    // One parallel region: each thread lays out its panels of the patch matrix
                    // and multiplies them at once (one hand-off instead of two, and the panels
                    // are still in that thread's cache).
                    gemm::parallel_ranges(panels, [&](size_t first, size_t last) {
                        im2col_panels(xg, win, cs.in_per_group, first, last, b);
                        gemm::multiply_packed_panels(m, pixels, k, a, b, yg, pixels, first, last);
                    });
                    continue;
                }
                gemm::parallel_ranges(panels, [&](size_t first, size_t last) {
                    im2col_panels(xg, win, cs.in_per_group, first, last, b);
                });
                gemm::multiply_packed(m, pixels, k, a, b, yg, pixels);
            }
        }
    }

    // Depthwise (one input and one output channel per group): a GEMM would have one row, so
    // each tap instead adds its weight times a shifted input row into the output row, over the
    // range of outputs where that tap lands inside the input.
    static void run_depthwise(const ConvShape& cs, const float* x, const float* w, float* y) {
        const Window& win = cs.window;
        const size_t kvol = win.kernel_size(), planes = cs.batch * cs.groups;
        const auto s = static_cast<int64_t>(win.stride[2]);
        const auto width = static_cast<int64_t>(win.in[2]);
        gemm::parallel_ranges(planes, [&](size_t first, size_t last) {
            for (size_t p = first; p < last; ++p) {
                const float* xp = x + p * win.in_size();
                const float* wp = w + (p % cs.groups) * kvol;
                float* yp = y + p * win.out_size();
                std::fill(yp, yp + win.out_size(), 0.0f);
                for (size_t od = 0; od < win.out[0]; ++od)
                    for (size_t oh = 0; oh < win.out[1]; ++oh) {
                        float* __restrict out = yp + (od * win.out[1] + oh) * win.out[2];
                        for (size_t kd = 0; kd < win.kernel[0]; ++kd) {
                            const int64_t iz =
                                static_cast<int64_t>(od * win.stride[0] + kd * win.dilation[0]) -
                                win.pad_begin[0];
                            if (iz < 0 || iz >= static_cast<int64_t>(win.in[0])) continue;
                            for (size_t kh = 0; kh < win.kernel[1]; ++kh) {
                                const int64_t iy = static_cast<int64_t>(oh * win.stride[1] +
                                                                        kh * win.dilation[1]) -
                                                   win.pad_begin[1];
                                if (iy < 0 || iy >= static_cast<int64_t>(win.in[1])) continue;
                                const float* row = xp + (static_cast<size_t>(iz) * win.in[1] +
                                                         static_cast<size_t>(iy)) *
                                                            win.in[2];
                                for (size_t kw = 0; kw < win.kernel[2]; ++kw) {
                                    const float weight =
                                        wp[(kd * win.kernel[1] + kh) * win.kernel[2] + kw];
                                    const int64_t x0 = static_cast<int64_t>(kw * win.dilation[2]) -
                                                       win.pad_begin[2];
                                    // Outputs ow with 0 <= x0 + ow * s < width.
                                    const int64_t n = static_cast<int64_t>(win.out[2]);
                                    int64_t lo = x0 >= 0 ? 0 : (-x0 + s - 1) / s;
                                    int64_t hi = width <= x0 ? 0 : (width - x0 + s - 1) / s;
                                    lo = std::min(lo, n);
                                    hi = std::clamp(hi, lo, n);
                                    const float* __restrict in = row + x0;
                                    if (s == 1) {
                                        for (int64_t ow = lo; ow < hi; ++ow)
                                            out[ow] += weight * in[ow];
                                    } else {
                                        for (int64_t ow = lo; ow < hi; ++ow)
                                            out[ow] += weight * in[ow * s];
                                    }
                                }
                            }
                        }
                    }
            }
        });
    }

    template <typename T>
    static void run_direct(const ConvShape& cs, const T* x, const T* w, T* y) {
        using A = Acc<T>;
        const Window& win = cs.window;
        const size_t kvol = win.kernel_size(), pixels = win.out_size();
        for (size_t n = 0; n < cs.batch; ++n) {
            for (size_t g = 0; g < cs.groups; ++g) {
                for (size_t co = 0; co < cs.out_per_group; ++co) {
                    const T* wf = w + (g * cs.out_per_group + co) * cs.in_per_group * kvol;
                    T* out = y + ((n * cs.groups + g) * cs.out_per_group + co) * pixels;
                    const T* xg = x + (n * cs.groups + g) * cs.in_per_group * win.in_size();
                    for (size_t od = 0; od < win.out[0]; ++od)
                        for (size_t oh = 0; oh < win.out[1]; ++oh)
                            for (size_t ow = 0; ow < win.out[2]; ++ow) {
                                A acc{};
                                for (size_t ci = 0; ci < cs.in_per_group; ++ci) {
                                    const T* xc = xg + ci * win.in_size();
                                    const T* wc = wf + ci * kvol;
                                    for (size_t kd = 0; kd < win.kernel[0]; ++kd) {
                                        const int64_t iz =
                                            static_cast<int64_t>(od * win.stride[0] +
                                                                 kd * win.dilation[0]) -
                                            win.pad_begin[0];
                                        if (iz < 0 || iz >= static_cast<int64_t>(win.in[0]))
                                            continue;
                                        for (size_t kh = 0; kh < win.kernel[1]; ++kh) {
                                            const int64_t iy =
                                                static_cast<int64_t>(oh * win.stride[1] +
                                                                     kh * win.dilation[1]) -
                                                win.pad_begin[1];
                                            if (iy < 0 || iy >= static_cast<int64_t>(win.in[1]))
                                                continue;
                                            const T* xrow =
                                                xc + (static_cast<size_t>(iz) * win.in[1] +
                                                      static_cast<size_t>(iy)) *
                                                         win.in[2];
                                            const T* wrow =
                                                wc + (kd * win.kernel[1] + kh) * win.kernel[2];
                                            for (size_t kw = 0; kw < win.kernel[2]; ++kw) {
                                                const int64_t ix =
                                                    static_cast<int64_t>(ow * win.stride[2] +
                                                                         kw * win.dilation[2]) -
                                                    win.pad_begin[2];
                                                if (ix < 0 || ix >= static_cast<int64_t>(win.in[2]))
                                                    continue;
                                                acc += static_cast<A>(xrow[ix]) *
                                                       static_cast<A>(wrow[kw]);
                                            }
                                        }
                                    }
                                }
                                out[(od * win.out[1] + oh) * win.out[2] + ow] = static_cast<T>(acc);
                            }
                }
            }
        }
    }

    std::string m_who;
    bool m_grouped;
    WindowAttrs m_attrs;
    element::Type m_type;
    gemm::AlignedBuffer m_packed;
    size_t m_packed_groups = 0, m_packed_m = 0, m_packed_k = 0, m_packed_stride = 0;
};

}  // namespace

void register_conv_kernels(KernelRegistry& registry) {
    registry.add(
        "Convolution",
        [](const Node& node) { return std::make_unique<ConvolutionKernel>(node, false); },
        &ConvolutionKernel::validate);
    registry.add(
        "GroupConvolution",
        [](const Node& node) { return std::make_unique<ConvolutionKernel>(node, true); },
        &ConvolutionKernel::validate);
}

}  // namespace vireo::reference::tensor
