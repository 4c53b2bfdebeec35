// Implements GridSample-9 with PyTorch's (and ONNX's) semantics: grid (x, y) in [-1, 1] maps to
// pixel centres of the corner pixels (align_corners) or to the image's outer edges; nearest rounds
// half to even; bicubic is the A = -0.75 cubic convolution over 4x4 taps. padding_mode: zeros
// (taps outside read 0), border (coordinates clipped to the image), reflection (reflected at the
// corner centres or outer edges, then clipped). Arithmetic is in double.
#include <cmath>

#include "math_common.hpp"
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

enum class Mode { kBilinear, kBicubic, kNearest };
using Padding = GridSamplePadding;

double cubic_weight(double t, int tap) {
    constexpr double A = -0.75;
    const double d = std::fabs(t - tap);  // distance of tap (-1, 0, 1, 2) from the point
    if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
    if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
    return 0;
}

std::unique_ptr<Kernel> make_grid_sample(const Node& node) {
    const bool align = node.get_attribute<bool>("align_corners");
    const std::string& m = node.get_attribute<std::string>("mode");
    const std::string& p = node.get_attribute<std::string>("padding_mode");
    const Mode mode =
        m == "bicubic" ? Mode::kBicubic : (m == "nearest" ? Mode::kNearest : Mode::kBilinear);
    const Padding padding = p == "border"
                                ? Padding::kBorder
                                : (p == "reflection" ? Padding::kReflection : Padding::kZeros);
    return make_kernel(
        [=, who = node.describe()](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            check_arity(in, 2, out, 1, who);
            const Shape& d = in[0].get_shape();
            const Shape& g = in[1].get_shape();
            if (d.size() != 4 || g.size() != 4 || g[3] != 2 || g[0] != d[0] ||
                out[0].get_shape() != Shape{d[0], d[1], g[1], g[2]})
                throw_error<InvalidArgument>(who, ": data ", d, ", grid ", g, " and output ",
                                             out[0].get_shape(), " do not match");
            const size_t n = d[0], channels = d[1], h = d[2], w = d[3], ho = g[1], wo = g[2];
            std::vector<double> data(in[0].get_size()), grid(in[1].get_size()),
                result(out[0].get_size());
            dispatch(RealTypes{}, in[0].get_element_type(), who.c_str(), [&](auto tag) {
                using T = decltype(tag);
                for (size_t i = 0; i < data.size(); ++i)
                    data[i] = static_cast<double>(math::to_compute(tensor_data<T>(in[0])[i]));
            });
            dispatch(RealTypes{}, in[1].get_element_type(), who.c_str(), [&](auto tag) {
                using T = decltype(tag);
                for (size_t i = 0; i < grid.size(); ++i)
                    grid[i] = static_cast<double>(math::to_compute(tensor_data<T>(in[1])[i]));
            });
            auto unnormalize = [align](double v, size_t size) {
                const auto s = static_cast<double>(size);
                return align ? (v + 1) / 2 * (s - 1) : ((v + 1) * s - 1) / 2;
            };
            for (size_t b = 0; b < n; ++b)
                for (size_t c = 0; c < channels; ++c) {
                    const double* plane = data.data() + (b * channels + c) * h * w;
                    // A pixel, 0 outside the image (only zeros padding reads outside).
                    auto pixel = [&](int64_t y, int64_t x) {
                        if (y < 0 || x < 0 || y >= static_cast<int64_t>(h) ||
                            x >= static_cast<int64_t>(w))
                            return 0.0;
                        return plane[static_cast<size_t>(y) * w + static_cast<size_t>(x)];
                    };
                    // A bicubic tap: its coordinates padded one by one (PyTorch's rule).
                    auto tap = [&](int64_t y, int64_t x) {
                        if (padding == Padding::kZeros) return pixel(y, x);
                        const auto py = static_cast<int64_t>(
                            grid_sample_pad(static_cast<double>(y), h, padding, align));
                        const auto px = static_cast<int64_t>(
                            grid_sample_pad(static_cast<double>(x), w, padding, align));
                        return pixel(py, px);
                    };
                    for (size_t i = 0; i < ho; ++i)
                        for (size_t j = 0; j < wo; ++j) {
                            const double* gp = grid.data() + ((b * ho + i) * wo + j) * 2;
                            double x = unnormalize(gp[0], w), y = unnormalize(gp[1], h);
                            double value = 0;
                            if (mode == Mode::kBicubic) {
                                const double fy = std::floor(y), fx = std::floor(x);
                                const double ty = y - fy, tx = x - fx;
                                for (int a = -1; a <= 2; ++a)
                                    for (int e = -1; e <= 2; ++e)
                                        value += cubic_weight(ty, a) * cubic_weight(tx, e) *
                                                 tap(static_cast<int64_t>(fy) + a,
                                                     static_cast<int64_t>(fx) + e);
                            } else {
                                x = grid_sample_pad(x, w, padding, align);
                                y = grid_sample_pad(y, h, padding, align);
                                if (mode == Mode::kNearest) {
                                    value = pixel(round_half_even(y), round_half_even(x));
                                } else {
                                    const double fy = std::floor(y), fx = std::floor(x);
                                    const double ly = y - fy, lx = x - fx;
                                    const auto y0 = static_cast<int64_t>(fy),
                                               x0 = static_cast<int64_t>(fx);
                                    value = (1 - ly) * (1 - lx) * pixel(y0, x0) +
                                            (1 - ly) * lx * pixel(y0, x0 + 1) +
                                            ly * (1 - lx) * pixel(y0 + 1, x0) +
                                            ly * lx * pixel(y0 + 1, x0 + 1);
                                }
                            }
                            result[((b * channels + c) * ho + i) * wo + j] = value;
                        }
                }
            dispatch(RealTypes{}, out[0].get_element_type(), who.c_str(), [&](auto tag) {
                using T = decltype(tag);
                T* o = tensor_data<T>(out[0]);
                for (size_t i = 0; i < result.size(); ++i)
                    o[i] = math::from_compute<T>(static_cast<math::compute_t<T>>(result[i]));
            });
        });
}

}  // namespace

void register_grid_sample_kernels(KernelRegistry& registry) {
    registry.add("GridSample", make_grid_sample);
}

}  // namespace vireo::reference::tensor

namespace vireo::reference {
namespace {

// `x` reflected into [low, high] (given doubled, as PyTorch does), by whole spans.
double reflect_at_edges(double x, double twice_low, double twice_high) {
    if (twice_low == twice_high) return 0;
    const double low = twice_low / 2, span = (twice_high - twice_low) / 2;
    x = std::fabs(x - low);
    const double extra = std::fmod(x, span);
    const auto flips = static_cast<int64_t>(std::floor(x / span));
    return flips % 2 == 0 ? extra + low : span - extra + low;
}

}  // namespace

double grid_sample_pad(double x, size_t size, GridSamplePadding padding, bool align_corners) {
    const double last = static_cast<double>(size) - 1;
    if (padding == GridSamplePadding::kBorder) return std::min(std::max(x, 0.0), last);
    if (padding == GridSamplePadding::kReflection) {
        x = align_corners ? reflect_at_edges(x, 0, 2 * last)
                          : reflect_at_edges(x, -1, 2 * static_cast<double>(size) - 1);
        return std::min(std::max(x, 0.0), last);
    }
    return x;
}

int64_t round_half_even(double v) {
    const double f = std::floor(v), d = v - f;
    if (d < 0.5) return static_cast<int64_t>(f);
    if (d > 0.5) return static_cast<int64_t>(f) + 1;
    return std::fmod(f, 2.0) == 0 ? static_cast<int64_t>(f) : static_cast<int64_t>(f) + 1;
}

}  // namespace vireo::reference
