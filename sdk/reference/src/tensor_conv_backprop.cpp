// Implements ConvolutionBackpropData-1 (transposed convolution, 1-D to 3-D, output_shape input,
// output_padding, auto_pad): f32 as a GEMM with the transposed filter then col2im, others direct.
#include <algorithm>

#include "tensor_common.hpp"
#include "tensor_gemm.hpp"
#include "tensor_window.hpp"

namespace vireo::reference::tensor {
namespace {

using BackpropTypes = TypeList<element::TypeId::f16, element::TypeId::bf16, element::TypeId::f32,
                               element::TypeId::f64, element::TypeId::i8, element::TypeId::u8,
                               element::TypeId::i16, element::TypeId::u16, element::TypeId::i32,
                               element::TypeId::u32, element::TypeId::i64, element::TypeId::u64>;

template <typename T>
using Acc = std::conditional_t<std::is_integral_v<T>,
                               std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>,
                               std::conditional_t<std::is_same_v<T, double>, double, float>>;

// Data [N, C_IN, in...], filter [C_IN, C_OUT, k...], output [N, C_OUT, out...]; `window.in` is
// the data's spatial size and `window.out` the output's, so input position i and tap k land on
// output position i * stride + k * dilation - pad_begin.
struct BackpropShape {
    size_t batch = 0, in_channels = 0, out_channels = 0;
    Window window;
};

class ConvolutionBackpropKernel final : public Kernel {
  public:
    explicit ConvolutionBackpropKernel(const Node& node)
        : m_who(node.describe()),
          m_attrs(WindowAttrs::read(node, true)),
          m_output_padding(node.get_attribute<std::vector<int64_t>>("output_padding")),
          m_has_output_shape(node.get_input_size() > 2),
          m_type(node.input_value(0).get_element_type()) {
        if (!contains(BackpropTypes{}, m_type))
            throw_error<NotImplemented>(m_who, ": element type ", m_type, " is not supported");
        if (runs_on_f32_engine(m_type) && is_constant_input(node, 1))
            pack_filter(node.input_value(1).get_node()->get_constant_value());
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 2, outputs, 1, m_who);
        const BackpropShape bs =
            backprop_shape(inputs[0].get_shape(), inputs[1].get_shape(), outputs[0].get_shape());
        if (runs_on_f32_engine(m_type)) {
            run_widened(inputs[0], inputs[1], outputs[0],
                        [&](const float* x, const float* w, float* y) { run_f32(bs, x, w, y); });
            return;
        }
        dispatch(BackpropTypes{}, m_type, m_who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            run_direct<T>(bs, tensor_data<T>(inputs[0]), tensor_data<T>(inputs[1]),
                          tensor_data<T>(outputs[0]));
        });
    }

    double flops(const std::vector<Tensor>& inputs, const std::vector<Tensor>&) const override {
        const Shape& w = inputs[1].get_shape();
        return 2.0 * static_cast<double>(inputs[0].get_size()) *
               static_cast<double>(shape_size(w) / std::max<size_t>(w[0], 1));
    }

    size_t owned_bytes() const override { return m_packed.size() * sizeof(float); }

  private:
    BackpropShape backprop_shape(const Shape& x, const Shape& w, const Shape& y) const {
        if (x.size() < 3 || x.size() > 5 || w.size() != x.size() || y.size() != x.size())
            throw_error<InvalidArgument>(m_who, ": data ", x, ", filter ", w, " and output ", y,
                                         " must all have rank 3 to 5");
        if (w[0] != x[1] || y[0] != x[0] || y[1] != w[1])
            throw_error<InvalidArgument>(m_who, ": data ", x, ", filter ", w, " and output ", y,
                                         " do not agree on ", "batch and channels");
        BackpropShape bs;
        bs.batch = x[0];
        bs.in_channels = x[1];
        bs.out_channels = w[1];
        const size_t rank = x.size() - 2, lead = 3 - rank;
        Window& win = bs.window;
        win.rank = rank;
        auto at = [](const std::vector<int64_t>& v, size_t i, int64_t fallback) {
            return v.empty() ? fallback : v.at(i);
        };
        const bool same = m_attrs.auto_pad == "same_upper" || m_attrs.auto_pad == "same_lower";
        const bool explicit_pads = m_attrs.auto_pad == "explicit" || m_attrs.auto_pad == "notset";
        for (size_t i = 0; i < rank; ++i) {
            const size_t a = lead + i;
            win.in[a] = x[2 + i];
            win.out[a] = y[2 + i];
            win.kernel[a] = w[2 + i];
            win.stride[a] = static_cast<size_t>(at(m_attrs.strides, i, 1));
            win.dilation[a] = static_cast<size_t>(at(m_attrs.dilations, i, 1));
            if (same && m_has_output_shape) {
                // As OpenVINO computes it: same_upper puts the larger half of the crop first.
                const int64_t full = static_cast<int64_t>(
                    win.stride[a] * (win.in[a] - 1) + win.dilation[a] * (win.kernel[a] - 1) + 1);
                const int64_t total = std::max<int64_t>(
                    0, full - static_cast<int64_t>(win.out[a]) + at(m_output_padding, i, 0));
                const int64_t half = total / 2;
                win.pad_begin[a] = m_attrs.auto_pad == "same_upper" ? total - half : half;
            } else if (explicit_pads) {
                win.pad_begin[a] = at(m_attrs.pads_begin, i, 0);
            }
        }
        return bs;
    }

    void pack_filter(const Tensor& filter) {
        const Shape& w = filter.get_shape();
        if (w.size() < 3) return;
        // A = filter^T: rows (c_out, k...) by columns c_in.
        const size_t k = w[0], m = shape_size(w) / std::max<size_t>(w[0], 1);
        m_packed.resize(gemm::packed_a_size(m, k));
        std::vector<float> storage;
        gemm::pack_a(gemm::MatrixView{f32_view(filter, storage), m, k, 1, m}, m_packed.data());
        m_packed_m = m;
        m_packed_k = k;
    }

    void run_f32(const BackpropShape& bs, const float* x, const float* w, float* y) const {
        const Window& win = bs.window;
        const size_t kvol = win.kernel_size(), m = bs.out_channels * kvol, k = bs.in_channels;
        const size_t pixels = win.in_size(), out_pixels = win.out_size();
        const float* packed = m_packed.data();
        if (!(m_packed_m == m && m_packed_k == k)) {
            float* scratch = gemm::scratch(0, gemm::packed_a_size(m, k));
            gemm::pack_a(gemm::MatrixView{w, m, k, 1, m}, scratch);
            packed = scratch;
        }
        float* col = gemm::scratch(2, m * pixels);
        for (size_t n = 0; n < bs.batch; ++n) {
            gemm::multiply_packed_a(
                packed, m, gemm::MatrixView{x + n * k * pixels, k, pixels, pixels, 1}, col, pixels);
            float* yn = y + n * bs.out_channels * out_pixels;
            std::fill(yn, yn + bs.out_channels * out_pixels, 0.0f);
            col2im(win, bs.out_channels, col, yn);
        }
    }

    // Adds each column row (c_out, tap) into the output positions its input pixels reach.
    static void col2im(const Window& w, size_t channels, const float* col, float* y) {
        const size_t pixels = w.in_size(), out_pixels = w.out_size();
        size_t row = 0;
        for (size_t c = 0; c < channels; ++c)
            for (size_t kd = 0; kd < w.kernel[0]; ++kd)
                for (size_t kh = 0; kh < w.kernel[1]; ++kh)
                    for (size_t kw = 0; kw < w.kernel[2]; ++kw, ++row) {
                        const float* src = col + row * pixels;
                        float* dst = y + c * out_pixels;
                        for (size_t id = 0; id < w.in[0]; ++id) {
                            const int64_t od =
                                static_cast<int64_t>(id * w.stride[0] + kd * w.dilation[0]) -
                                w.pad_begin[0];
                            if (od < 0 || od >= static_cast<int64_t>(w.out[0])) continue;
                            for (size_t ih = 0; ih < w.in[1]; ++ih) {
                                const int64_t oh =
                                    static_cast<int64_t>(ih * w.stride[1] + kh * w.dilation[1]) -
                                    w.pad_begin[1];
                                if (oh < 0 || oh >= static_cast<int64_t>(w.out[1])) continue;
                                const float* s = src + (id * w.in[1] + ih) * w.in[2];
                                float* d = dst + (static_cast<size_t>(od) * w.out[1] +
                                                  static_cast<size_t>(oh)) *
                                                     w.out[2];
                                for (size_t iw = 0; iw < w.in[2]; ++iw) {
                                    const int64_t ow = static_cast<int64_t>(iw * w.stride[2] +
                                                                            kw * w.dilation[2]) -
                                                       w.pad_begin[2];
                                    if (ow >= 0 && ow < static_cast<int64_t>(w.out[2]))
                                        d[ow] += s[iw];
                                }
                            }
                        }
                    }
    }

    template <typename T>
    static void run_direct(const BackpropShape& bs, const T* x, const T* w, T* y) {
        using A = Acc<T>;
        const Window& win = bs.window;
        const size_t kvol = win.kernel_size(), pixels = win.in_size(), out_pixels = win.out_size();
        std::vector<A> acc(bs.out_channels * out_pixels);
        for (size_t n = 0; n < bs.batch; ++n) {
            std::fill(acc.begin(), acc.end(), A{});
            for (size_t ci = 0; ci < bs.in_channels; ++ci) {
                const T* xc = x + (n * bs.in_channels + ci) * pixels;
                for (size_t co = 0; co < bs.out_channels; ++co) {
                    const T* wk = w + (ci * bs.out_channels + co) * kvol;
                    A* out = acc.data() + co * out_pixels;
                    for (size_t id = 0; id < win.in[0]; ++id)
                        for (size_t ih = 0; ih < win.in[1]; ++ih)
                            for (size_t iw = 0; iw < win.in[2]; ++iw) {
                                const A v =
                                    static_cast<A>(xc[(id * win.in[1] + ih) * win.in[2] + iw]);
                                size_t tap = 0;
                                for (size_t kd = 0; kd < win.kernel[0]; ++kd)
                                    for (size_t kh = 0; kh < win.kernel[1]; ++kh)
                                        for (size_t kw = 0; kw < win.kernel[2]; ++kw, ++tap) {
                                            const int64_t od =
                                                static_cast<int64_t>(id * win.stride[0] +
                                                                     kd * win.dilation[0]) -
                                                win.pad_begin[0];
                                            const int64_t oh =
                                                static_cast<int64_t>(ih * win.stride[1] +
                                                                     kh * win.dilation[1]) -
                                                win.pad_begin[1];
                                            const int64_t ow =
                                                static_cast<int64_t>(iw * win.stride[2] +
                                                                     kw * win.dilation[2]) -
                                                win.pad_begin[2];
                                            if (od < 0 || oh < 0 || ow < 0 ||
                                                od >= static_cast<int64_t>(win.out[0]) ||
                                                oh >= static_cast<int64_t>(win.out[1]) ||
                                                ow >= static_cast<int64_t>(win.out[2]))
                                                continue;
                                            out[(static_cast<size_t>(od) * win.out[1] +
                                                 static_cast<size_t>(oh)) *
                                                    win.out[2] +
                                                static_cast<size_t>(ow)] +=
                                                v * static_cast<A>(wk[tap]);
                                        }
                            }
                }
            }
            T* yn = y + n * bs.out_channels * out_pixels;
            for (size_t i = 0; i < acc.size(); ++i) yn[i] = static_cast<T>(acc[i]);
        }
    }

    std::string m_who;
    WindowAttrs m_attrs;
    std::vector<int64_t> m_output_padding;
    bool m_has_output_shape;
    element::Type m_type;
    gemm::AlignedBuffer m_packed;
    size_t m_packed_m = 0, m_packed_k = 0;
};

}  // namespace

void register_conv_backprop_kernels(KernelRegistry& registry) {
    registry.add("ConvolutionBackpropData", [](const Node& node) {
        return std::make_unique<ConvolutionBackpropKernel>(node);
    });
}

}  // namespace vireo::reference::tensor
