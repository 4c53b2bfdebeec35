// Implements grid_sample_kernel (see grid_sample_kernel.hpp). The reference kernel recomputes
// every sample's coordinates and weights per channel, in double, on one thread: RAFT-small's 16
// GridSamples (its correlation-pyramid lookups) were 12 % of its time at 1 thread.
#include "grid_sample_kernel.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fallback_kernel.hpp"
#include "vireo/reference/dispatch.hpp"

namespace vireo::cpu_plugin {
namespace {

using Padding = reference::GridSamplePadding;

// Four taps of one output pixel: element offsets into a plane and their weights (a tap outside
// the image has weight 0 and offset 0).
struct Taps {
    int32_t offset[4];
    float weight[4];
};

class GridSampleKernel final : public FallbackKernel {
  public:
    GridSampleKernel(const Node& node, std::unique_ptr<reference::Kernel> fallback)
        : FallbackKernel(std::move(fallback)),
          m_align(node.get_attribute<bool>("align_corners")),
          m_nearest(node.get_attribute<std::string>("mode") == "nearest"),
          m_supported(node.get_attribute<std::string>("mode") != "bicubic") {
        const std::string& p = node.get_attribute<std::string>("padding_mode");
        m_padding = p == "border"       ? Padding::kBorder
                    : p == "reflection" ? Padding::kReflection
                                        : Padding::kZeros;
    }

  protected:
    bool run(const std::vector<Tensor>& in, std::vector<Tensor>& out) const override {
        if (!m_supported || in.size() != 2 || out.size() != 1) return false;
        if (in[0].get_element_type() != element::f32 || in[1].get_element_type() != element::f32 ||
            out[0].get_element_type() != element::f32)
            return false;
        const Shape& d = in[0].get_shape();
        const Shape& g = in[1].get_shape();
        if (d.size() != 4 || g.size() != 4 || g[3] != 2 || g[0] != d[0] ||
            out[0].get_shape() != Shape{d[0], d[1], g[1], g[2]})
            return false;
        const size_t n = d[0], channels = d[1], h = d[2], w = d[3], pixels = g[1] * g[2];
        if (out[0].get_size() == 0) return true;
        if (h == 0 || w == 0 || h * w > static_cast<size_t>(INT32_MAX)) return false;
        const float* grid = in[1].data<float>();
        const float* data = in[0].data<float>();
        float* result = out[0].data<float>();
        // One pass over the output pixels: each computes its taps once and applies them to
        // every channel (no scratch, so nothing is allocated per call).
        const auto total_pixels = static_cast<int64_t>(n * pixels);
        const size_t plane = h * w;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < total_pixels; ++i) {
            const size_t b = static_cast<size_t>(i) / pixels, p = static_cast<size_t>(i) % pixels;
            const Taps t = taps_at(grid[2 * i], grid[2 * i + 1], h, w);
            const float* src = data + b * channels * plane;
            float* dst = result + b * channels * pixels + p;
            for (size_t c = 0; c < channels; ++c, src += plane, dst += pixels)
                *dst = t.weight[0] * src[t.offset[0]] + t.weight[1] * src[t.offset[1]] +
                       t.weight[2] * src[t.offset[2]] + t.weight[3] * src[t.offset[3]];
        }
        return true;
    }

  private:
    // The grid value `v` in [-1, 1] as a pixel coordinate of an axis of `size` pixels, padded.
    double coordinate(float v, size_t size) const {
        const auto s = static_cast<double>(size);
        const double x = m_align ? (static_cast<double>(v) + 1) / 2 * (s - 1)
                                 : ((static_cast<double>(v) + 1) * s - 1) / 2;
        return reference::grid_sample_pad(x, size, m_padding, m_align);
    }

    Taps taps_at(float gx, float gy, size_t h, size_t w) const {
        // Far outside (zeros padding only): every tap misses the image either way, and the
        // integer conversions below stay defined.
        const double x = std::clamp(coordinate(gx, w), -2.0, static_cast<double>(w) + 1);
        const double y = std::clamp(coordinate(gy, h), -2.0, static_cast<double>(h) + 1);
        Taps t{};
        auto set = [&](int k, int64_t row, int64_t col, double weight) {
            const bool inside = row >= 0 && col >= 0 && row < static_cast<int64_t>(h) &&
                                col < static_cast<int64_t>(w);
            t.offset[k] = inside ? static_cast<int32_t>(row * static_cast<int64_t>(w) + col) : 0;
            t.weight[k] = inside ? static_cast<float>(weight) : 0.f;
        };
        if (std::isnan(x) || std::isnan(y)) return t;  // every weight 0
        if (m_nearest) {
            set(0, reference::round_half_even(y), reference::round_half_even(x), 1.0);
            return t;
        }
        const double fy = std::floor(y), fx = std::floor(x);
        const double ly = y - fy, lx = x - fx;
        const auto y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
        set(0, y0, x0, (1 - ly) * (1 - lx));
        set(1, y0, x0 + 1, (1 - ly) * lx);
        set(2, y0 + 1, x0, ly * (1 - lx));
        set(3, y0 + 1, x0 + 1, ly * lx);
        return t;
    }

    bool m_align;
    bool m_nearest;
    bool m_supported;
    Padding m_padding = Padding::kZeros;
};

}  // namespace

std::shared_ptr<const reference::Kernel> grid_sample_kernel(
    const Node& node, std::unique_ptr<reference::Kernel> fallback) {
    return std::make_shared<GridSampleKernel>(node, std::move(fallback));
}

}  // namespace vireo::cpu_plugin
