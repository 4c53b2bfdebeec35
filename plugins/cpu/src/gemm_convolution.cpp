// Implements gemm_convolution_kernel: an f32 2-D Convolution of a dynamic graph as im2col on the
// stream's OpenMP threads and oneDNN's sgemm, with the reference kernel for what it does not take.
#include "gemm_convolution.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "fallback_kernel.hpp"
#include "oneapi/dnnl/dnnl.hpp"
#include "vireo/exception.hpp"

namespace vireo::cpu_plugin {
namespace {

// Patch matrices past this many floats (256 MiB) run on the reference kernel, which lays out the
// matrix in panels instead of whole.
constexpr size_t kMaxPatchFloats = size_t{64} << 20;

class GemmConvolutionKernel final : public FallbackKernel {
  public:
    GemmConvolutionKernel(const Node& node, std::unique_ptr<reference::Kernel> fallback)
        : FallbackKernel(std::move(fallback)) {
        const auto mode = node.get_attribute<std::string>("auto_pad");
        const bool valid = mode == "valid";
        m_supported = mode == "explicit" || mode == "notset" || valid;
        const auto strides = node.get_attribute<std::vector<int64_t>>("strides");
        const auto dilations = node.get_attribute<std::vector<int64_t>>("dilations");
        const auto begin = node.get_attribute<std::vector<int64_t>>("pads_begin");
        const auto end = node.get_attribute<std::vector<int64_t>>("pads_end");
        if (strides.size() != 2 || dilations.size() != 2 || begin.size() != 2 || end.size() != 2)
            m_supported = false;
        for (size_t i = 0; m_supported && i < 2; ++i) {
            if (strides[i] < 1 || dilations[i] < 1 || begin[i] < 0 || end[i] < 0)
                m_supported = false;
            m_stride[i] = strides[i];
            m_dilation[i] = dilations[i];
            m_begin[i] = valid ? 0 : begin[i];
            m_end[i] = valid ? 0 : end[i];
        }
    }

  private:
    bool run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        if (!m_supported || inputs.size() != 2 || outputs.size() != 1) return false;
        const Tensor& x = inputs[0];
        const Tensor& w = inputs[1];
        Tensor& y = outputs[0];
        for (const Tensor* t : {&x, &w, static_cast<const Tensor*>(&y)})
            if (t->get_element_type() != element::f32 || !t->is_continuous() || t->is_remote() ||
                t->get_shape().size() != 4)
                return false;
        const Shape& xs = x.get_shape();
        const Shape& ws = w.get_shape();
        const Shape& ys = y.get_shape();
        const size_t batch = xs[0], channels = xs[1], out_channels = ws[0];
        if (ws[1] != channels || ys[0] != batch || ys[1] != out_channels) return false;
        int64_t out[2];
        for (size_t i = 0; i < 2; ++i) {
            const auto in = static_cast<int64_t>(xs[2 + i]);
            const auto window = m_dilation[i] * (static_cast<int64_t>(ws[2 + i]) - 1) + 1;
            const int64_t span = in + m_begin[i] + m_end[i] - window;
            out[i] = span < 0 ? 0 : span / m_stride[i] + 1;
            if (static_cast<size_t>(out[i]) != ys[2 + i]) return false;
        }
        if (y.get_size() == 0) return true;
        const size_t rows = channels * ws[2] * ws[3];  // the GEMM's inner dimension
        const auto pixels = static_cast<size_t>(out[0] * out[1]);
        if (rows == 0) {
            std::fill_n(static_cast<float*>(y.data()), y.get_size(), 0.f);
            return true;
        }
        const bool direct = ws[2] == 1 && ws[3] == 1 && m_stride[0] == 1 && m_stride[1] == 1 &&
                            m_begin[0] == 0 && m_begin[1] == 0 && m_end[0] == 0 && m_end[1] == 0;
        if (!direct && rows * pixels > kMaxPatchFloats) return false;
        // Every element is written by lay_out_patches: no zero fill. Freed on return, so a
        // stream thread keeps nothing after a large convolution.
        std::unique_ptr<float[]> patches(direct ? nullptr : new float[rows * pixels]);
        const auto* px = static_cast<const float*>(x.data());
        const auto* pw = static_cast<const float*>(w.data());
        auto* py = static_cast<float*>(y.data());
        const size_t image = channels * xs[2] * xs[3];
        for (size_t n = 0; n < batch; ++n) {
            const float* src = px + n * image;
            if (!direct) {
                lay_out_patches(src, xs, ws, out, patches.get());
                src = patches.get();
            }
            const auto status =
                dnnl::sgemm('N', 'N', static_cast<dnnl_dim_t>(out_channels),
                            static_cast<dnnl_dim_t>(pixels), static_cast<dnnl_dim_t>(rows), 1.f, pw,
                            static_cast<dnnl_dim_t>(rows), src, static_cast<dnnl_dim_t>(pixels),
                            0.f, py + n * out_channels * pixels, static_cast<dnnl_dim_t>(pixels));
            if (status != dnnl::status::success)
                throw_error<Exception>("CPU: oneDNN sgemm failed on a Convolution (status ",
                                       static_cast<int>(status), ")");
        }
        return true;
    }

    // Row (c, ky, kx) of the patch matrix holds, for each output pixel, the input value that
    // filter tap meets there (0 in the padding). Rows are split over the OpenMP team.
    void lay_out_patches(const float* src, const Shape& xs, const Shape& ws, const int64_t* out,
                         float* dst) const {
        const auto height = static_cast<int64_t>(xs[2]), width = static_cast<int64_t>(xs[3]);
        const auto kh = static_cast<int64_t>(ws[2]), kw = static_cast<int64_t>(ws[3]);
        const auto rows = static_cast<int64_t>(xs[1]) * kh * kw;
        const int64_t oh = out[0], ow = out[1];
#pragma omp parallel for schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
            const int64_t c = r / (kh * kw), ky = (r / kw) % kh, kx = r % kw;
            const float* plane = src + c * height * width;
            float* o = dst + r * oh * ow;
            // Output columns whose input column is inside [0, width): lo <= ox < hi.
            const int64_t x0 = kx * m_dilation[1] - m_begin[1], step = m_stride[1];
            const int64_t lo = x0 >= 0 ? 0 : std::min(ow, (-x0 + step - 1) / step);
            const int64_t hi = std::clamp(x0 >= width ? 0 : (width - x0 + step - 1) / step, lo, ow);
            for (int64_t oy = 0; oy < oh; ++oy, o += ow) {
                const int64_t iy = oy * m_stride[0] - m_begin[0] + ky * m_dilation[0];
                if (iy < 0 || iy >= height) {
                    std::fill(o, o + ow, 0.f);
                    continue;
                }
                const float* line = plane + iy * width;
                std::fill(o, o + lo, 0.f);
                if (step == 1) {
                    std::memcpy(o + lo, line + x0 + lo,
                                static_cast<size_t>(hi - lo) * sizeof(float));
                } else {
                    for (int64_t ox = lo; ox < hi; ++ox) o[ox] = line[x0 + ox * step];
                }
                std::fill(o + hi, o + ow, 0.f);
            }
        }
    }

    bool m_supported = false;
    int64_t m_stride[2] = {1, 1}, m_dilation[2] = {1, 1}, m_begin[2] = {0, 0}, m_end[2] = {0, 0};
};

}  // namespace

std::shared_ptr<const reference::Kernel> gemm_convolution_kernel(
    const Node& node, std::unique_ptr<reference::Kernel> fallback) {
    return std::make_shared<GemmConvolutionKernel>(node, std::move(fallback));
}

}  // namespace vireo::cpu_plugin
