// Implements roi_align_kernel (roi_align_kernel.hpp). Faster R-CNN (MobileNetV3-FPN, 320 px):
// its two ROIAligns were 7.4 ms of 37 ms at 2 threads on the reference kernel.
#include "roi_align_kernel.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cpu_isa.hpp"
#include "fallback_kernel.hpp"
#include "vireo/reference/dispatch.hpp"

namespace vireo::cpu_plugin {
namespace {

// One bilinear sample: four element offsets into a plane and their weights (all 0 outside).
struct Tap {
    int32_t o00 = 0, o01 = 0, o10 = 0, o11 = 0;
    float w00 = 0, w01 = 0, w10 = 0, w11 = 0;
    bool inside = false;  // outside, the sample is 0 whatever the plane holds (NaN included)
};

// The reference kernel's sample (vireo::reference::roi_align_sample) in f32 weights and 32-bit
// offsets.
Tap bilinear_tap(size_t h, size_t w, double y, double x) {
    const reference::RoiAlignSample s = reference::roi_align_sample(h, w, y, x);
    Tap t;
    if (!s.inside) return t;
    t.inside = true;
    t.o00 = static_cast<int32_t>(s.o00);
    t.o01 = static_cast<int32_t>(s.o01);
    t.o10 = static_cast<int32_t>(s.o10);
    t.o11 = static_cast<int32_t>(s.o11);
    t.w00 = static_cast<float>(s.w00);
    t.w01 = static_cast<float>(s.w01);
    t.w10 = static_cast<float>(s.w10);
    t.w11 = static_cast<float>(s.w11);
    return t;
}

// One sample's contribution to every channel of a bin: `acc` [C] += (or max=) the bilinear
// value, the image read channels-last (the four taps' pixels each C contiguous floats).
template <bool Max>
inline void accumulate(const float* image, const Tap& t, size_t channels, float* acc) {
    if (!t.inside) {  // the sample is 0
        if (Max)
            for (size_t c = 0; c < channels; ++c) acc[c] = std::max(acc[c], 0.f);
        return;
    }
    const float* p00 = image + static_cast<size_t>(t.o00) * channels;
    const float* p01 = image + static_cast<size_t>(t.o01) * channels;
    const float* p10 = image + static_cast<size_t>(t.o10) * channels;
    const float* p11 = image + static_cast<size_t>(t.o11) * channels;
    for (size_t c = 0; c < channels; ++c) {
        const float v = t.w00 * p00[c] + t.w01 * p01[c] + t.w10 * p10[c] + t.w11 * p11[c];
        acc[c] = Max ? std::max(acc[c], v) : acc[c] + v;
    }
}

template <bool Max>
__attribute__((target("avx512f,fma"))) void accumulate_avx512(const float* image, const Tap& t,
                                                              size_t channels, float* acc) {
    accumulate<Max>(image, t, channels, acc);
}

// Taps of all rois together, at most this many (32 MiB); past it the reference kernel runs.
constexpr size_t kMaxTaps = size_t{1} << 20;
// Samples per bin along one axis, as the reference kernel limits them.
constexpr double kMaxGrid = 4096;

class RoiAlignKernel final : public FallbackKernel {
  public:
    RoiAlignKernel(const Node& node, std::unique_ptr<reference::Kernel> fallback)
        : FallbackKernel(std::move(fallback)),
          m_ph(static_cast<size_t>(node.get_attribute<int64_t>("pooled_h"))),
          m_pw(static_cast<size_t>(node.get_attribute<int64_t>("pooled_w"))),
          m_ratio(node.get_attribute<int64_t>("sampling_ratio")),
          m_scale(node.get_attribute<double>("spatial_scale")),
          m_max(node.get_attribute<std::string>("mode") == "max"),
          m_aligned(node.get_attribute<std::string>("aligned_mode")) {}

  protected:
    bool run(const std::vector<Tensor>& in, std::vector<Tensor>& out) const override {
        if (in.size() != 3 || out.size() != 1) return false;
        const Tensor &data = in[0], &rois = in[1], &batch = in[2];
        if (data.get_element_type() != element::f32 || rois.get_element_type() != element::f32 ||
            out[0].get_element_type() != element::f32 ||
            (batch.get_element_type() != element::i32 && batch.get_element_type() != element::i64))
            return false;
        const Shape& d = data.get_shape();
        const Shape& r = rois.get_shape();
        if (d.size() != 4 || r.size() != 2 || r[1] != 4 || batch.get_size() != r[0] ||
            out[0].get_shape() != Shape{r[0], d[1], m_ph, m_pw})
            return false;
        const size_t n = d[0], channels = d[1], h = d[2], w = d[3], count = r[0];
        const size_t bins = m_ph * m_pw;
        if (out[0].get_size() == 0) return true;
        if (h == 0 || w == 0 || h * w > static_cast<size_t>(INT32_MAX)) return false;
        // Each roi's geometry and grid first; anything the reference kernel would refuse (a batch
        // index out of range, a grid past kMaxGrid) or a table too large goes to it whole.
        struct Roi {
            size_t plane = 0;  // first element of its image
            size_t first = 0;  // its first tap
            size_t grid = 0;   // samples per bin
            reference::RoiAlignBins bins;
        };
        std::vector<Roi> geo(count);
        size_t taps = 0;
        const float* box = rois.data<float>();
        for (size_t k = 0; k < count; ++k) {
            const int64_t b = batch.get_element_type() == element::i64 ? batch.data<int64_t>()[k]
                                                                       : batch.data<int32_t>()[k];
            if (b < 0 || b >= static_cast<int64_t>(n)) return false;
            const double roi[4] = {box[4 * k], box[4 * k + 1], box[4 * k + 2], box[4 * k + 3]};
            const reference::RoiAlignBins g =
                reference::roi_align_bins(roi, m_scale, m_aligned, m_ratio, m_ph, m_pw);
            if (!(g.grid_h <= kMaxGrid) || !(g.grid_w <= kMaxGrid)) return false;
            geo[k].bins = g;
            geo[k].plane = static_cast<size_t>(b) * channels * h * w;
            geo[k].grid = static_cast<size_t>(g.grid_h) * static_cast<size_t>(g.grid_w);
            geo[k].first = taps;
            taps += bins * geo[k].grid;
            if (taps > kMaxTaps) return false;
        }
        std::vector<Tap> table(taps);
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < count; ++k) {
            const reference::RoiAlignBins& g = geo[k].bins;
            const auto gh = static_cast<size_t>(g.grid_h), gw = static_cast<size_t>(g.grid_w);
            Tap* t = table.data() + geo[k].first;
            for (size_t bin = 0; bin < bins; ++bin) {
                const size_t py = bin / m_pw, px = bin % m_pw;
                for (size_t iy = 0; iy < gh; ++iy)
                    for (size_t ix = 0; ix < gw; ++ix)
                        *t++ = bilinear_tap(h, w, g.y(py, iy), g.x(px, ix));
            }
        }
        // The images channels-last (each pixel's channels contiguous), so that a tap is a
        // vector over the channels rather than one scalar per plane.
        const float* src = data.data<float>();
        const size_t pixels = h * w;
        std::vector<float> nhwc(n * pixels * channels);
#pragma omp parallel for schedule(static)
        for (int64_t row = 0; row < static_cast<int64_t>(n * h); ++row) {
            const size_t image = static_cast<size_t>(row) / h, y = static_cast<size_t>(row) % h;
            const float* from = src + image * channels * pixels + y * w;
            float* to = nhwc.data() + (image * pixels + y * w) * channels;
            for (size_t x = 0; x < w; ++x)
                for (size_t c = 0; c < channels; ++c) to[x * channels + c] = from[c * pixels + x];
        }
        float* dst = out[0].data<float>();
        const bool avx512 = has_avx512();
        const auto cells = static_cast<int64_t>(count * bins);
#pragma omp parallel
        {
            std::vector<float> acc(channels);
#pragma omp for schedule(static)
            for (int64_t cell = 0; cell < cells; ++cell) {
                const size_t k = static_cast<size_t>(cell) / bins,
                             bin = static_cast<size_t>(cell) % bins;
                const Roi& g = geo[k];
                const float* image = nhwc.data() + g.plane;
                std::fill(acc.begin(), acc.end(), m_max ? -INFINITY : 0.f);
                const Tap* t = table.data() + g.first + bin * g.grid;
                for (size_t s = 0; s < g.grid; ++s) {
                    if (m_max)
                        avx512 ? accumulate_avx512<true>(image, t[s], channels, acc.data())
                               : accumulate<true>(image, t[s], channels, acc.data());
                    else
                        avx512 ? accumulate_avx512<false>(image, t[s], channels, acc.data())
                               : accumulate<false>(image, t[s], channels, acc.data());
                }
                const float inv = 1.f / static_cast<float>(std::max<size_t>(g.grid, 1));
                float* y = dst + k * channels * bins + bin;
                for (size_t c = 0; c < channels; ++c)
                    y[c * bins] = m_max ? (g.grid > 0 ? acc[c] : 0.f) : acc[c] * inv;
            }
        }
        return true;
    }

  private:
    size_t m_ph, m_pw;
    int64_t m_ratio;
    double m_scale;
    bool m_max;
    std::string m_aligned;
};

}  // namespace

std::shared_ptr<const reference::Kernel> roi_align_kernel(
    const Node& node, std::unique_ptr<reference::Kernel> fallback) {
    return std::make_shared<RoiAlignKernel>(node, std::move(fallback));
}

}  // namespace vireo::cpu_plugin
