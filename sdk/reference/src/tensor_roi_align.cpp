// Implements ROIAlign-9: each roi [x1, y1, x2, y2] (scaled by spatial_scale per aligned_mode) is
// split into pooled_h x pooled_w bins, each sampled on a sampling_ratio^2 grid (adaptive
// ceil(roi size / pooled size) when 0) at bin-relative offsets (i + 0.5) / grid, and the bilinear
// samples are averaged (avg) or maximised (max).
//
// Sampling follows ONNX/Caffe2: a sample beyond [-1, size] on either axis is 0; otherwise
// coordinates below 0 clamp to 0 and the last row/column repeats. Arithmetic is in double. A batch
// index outside [0, N) is an InvalidArgument naming the op and the roi. The rois are split over
// the calling stream's threads (CPUStreamsExecutor::parallel_for; one thread outside a stream).
#include <algorithm>
#include <cmath>

#include "math_common.hpp"
#include "tensor_common.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::reference::tensor {
namespace {

// Samples per bin along one axis, at most: 4096^2 per bin is far beyond any feature map's
// adaptive sampling. The per-roi table of samples holds at most kMaxTable (4.5 MB).
constexpr size_t kMaxGrid = 4096;
constexpr size_t kMaxTable = size_t{1} << 16;

std::unique_ptr<Kernel> make_roi_align(const Node& node) {
    const auto ph = static_cast<size_t>(node.get_attribute<int64_t>("pooled_h"));
    const auto pw = static_cast<size_t>(node.get_attribute<int64_t>("pooled_w"));
    const int64_t ratio = node.get_attribute<int64_t>("sampling_ratio");
    const double scale = node.get_attribute<double>("spatial_scale");
    const bool max_mode = node.get_attribute<std::string>("mode") == "max";
    const std::string aligned = node.get_attribute<std::string>("aligned_mode");
    return make_kernel([=, who = node.describe()](const std::vector<Tensor>& in,
                                                  std::vector<Tensor>& out) {
        check_arity(in, 3, out, 1, who);
        const Shape& dshape = in[0].get_shape();
        const Shape& rshape = in[1].get_shape();
        if (dshape.size() != 4 || rshape.size() != 2 || rshape[1] != 4 ||
            in[2].get_size() != rshape[0] ||
            out[0].get_shape() != Shape{rshape[0], dshape[1], ph, pw})
            throw_error<InvalidArgument>(who, ": data ", dshape, ", rois ", rshape,
                                         ", batch_indices ", in[2].get_shape(), " and output ",
                                         out[0].get_shape(), " do not match");
        const size_t n = dshape[0], channels = dshape[1], h = dshape[2], w = dshape[3];
        const auto batch = read_ints(in[2], who, "input 2 (batch_indices)");
        std::vector<double> data(in[0].get_size()), rois(in[1].get_size()),
            result(out[0].get_size());
        dispatch(RealTypes{}, in[0].get_element_type(), who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            for (size_t i = 0; i < data.size(); ++i)
                data[i] = static_cast<double>(math::to_compute(tensor_data<T>(in[0])[i]));
            for (size_t i = 0; i < rois.size(); ++i)
                rois[i] = static_cast<double>(math::to_compute(tensor_data<T>(in[1])[i]));
        });
        // The geometry of each roi, checked first (a bad roi is reported before any work, the
        // same one whatever the threads); then the rois are split over the stream's threads.
        std::vector<RoiAlignBins> geometry(rshape[0]);
        for (size_t r = 0; r < rshape[0]; ++r) {
            if (batch[r] < 0 || batch[r] >= static_cast<int64_t>(n))
                throw_error<InvalidArgument>(who, ": batch index ", batch[r], " of roi ", r,
                                             " is out of range [0, ", n, ")");
            const double* roi = rois.data() + r * 4;
            geometry[r] = roi_align_bins(roi, scale, aligned, ratio, ph, pw);
            // A roi that would need more than kMaxGrid samples per bin along an axis (a huge or
            // infinite box) is refused, not sampled for hours.
            for (const auto& [n_samples, axis] :
                 {std::pair{geometry[r].grid_h, "y"}, std::pair{geometry[r].grid_w, "x"}})
                if (!(n_samples <= static_cast<double>(kMaxGrid)))
                    throw_error<InvalidArgument>(who, ": roi ", r, " [", roi[0], ", ", roi[1], ", ",
                                                 roi[2], ", ", roi[3], "] needs ", n_samples,
                                                 " samples per bin along ", axis, ", at most ",
                                                 kMaxGrid);
        }
        auto pool_roi = [&](size_t r, std::vector<RoiAlignSample>& samples) {
            const RoiAlignBins& g = geometry[r];
            const auto grid_h = static_cast<size_t>(g.grid_h),
                       grid_w = static_cast<size_t>(g.grid_w);
            const size_t grid = grid_h * grid_w;
            const double count = static_cast<double>(std::max<size_t>(grid, 1));
            // The sample positions and weights are the same for every channel: computed once
            // per roi (a table of up to kMaxTable samples, else again per channel), then applied
            // to each channel's plane where it lies.
            auto sample = [&](size_t bin, size_t k) {
                const size_t py = bin / pw, px = bin % pw, iy = k / grid_w, ix = k % grid_w;
                return roi_align_sample(h, w, g.y(py, iy), g.x(px, ix));
            };
            const bool table = ph * pw * grid <= kMaxTable;
            samples.clear();
            if (table)
                for (size_t bin = 0; bin < ph * pw; ++bin)
                    for (size_t k = 0; k < grid; ++k) samples.push_back(sample(bin, k));
            for (size_t c = 0; c < channels; ++c) {
                const double* plane =
                    data.data() + (static_cast<size_t>(batch[r]) * channels + c) * h * w;
                double* dst = result.data() + (r * channels + c) * ph * pw;
                for (size_t bin = 0; bin < ph * pw; ++bin) {
                    double sum = 0, best = -INFINITY;
                    for (size_t k = 0; k < grid; ++k) {
                        const RoiAlignSample q = table ? samples[bin * grid + k] : sample(bin, k);
                        const double v = q.inside ? q.w00 * plane[q.o00] + q.w01 * plane[q.o01] +
                                                        q.w10 * plane[q.o10] + q.w11 * plane[q.o11]
                                                  : 0.0;
                        sum += v;
                        best = std::max(best, v);
                    }
                    dst[bin] = max_mode ? (grid > 0 ? best : 0.0) : sum / count;
                }
            }
        };
        sdk::CPUStreamsExecutor::parallel_for(rshape[0], [&](size_t first, size_t last) {
            std::vector<RoiAlignSample> samples;  // per bin of the current roi, its grid, row-major
            for (size_t r = first; r < last; ++r) pool_roi(r, samples);
        });
        dispatch(RealTypes{}, out[0].get_element_type(), who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            T* o = tensor_data<T>(out[0]);
            for (size_t i = 0; i < result.size(); ++i)
                o[i] = math::from_compute<T>(static_cast<math::compute_t<T>>(result[i]));
        });
    });
}

}  // namespace

void register_roi_align_kernels(KernelRegistry& registry) {
    registry.add("ROIAlign", make_roi_align);
}

}  // namespace vireo::reference::tensor

namespace vireo::reference {

RoiAlignSample roi_align_sample(size_t h, size_t w, double y, double x) {
    const auto H = static_cast<double>(h), W = static_cast<double>(w);
    RoiAlignSample s;
    // Written so that a NaN coordinate is outside too.
    if (h == 0 || w == 0 || !(y >= -1.0 && y <= H && x >= -1.0 && x <= W)) return s;
    s.inside = true;
    y = std::max(y, 0.0);
    x = std::max(x, 0.0);
    auto y0 = static_cast<size_t>(y), x0 = static_cast<size_t>(x);
    size_t y1 = y0 + 1, x1 = x0 + 1;
    if (y0 >= h - 1) {
        y0 = y1 = h - 1;
        y = static_cast<double>(y0);
    }
    if (x0 >= w - 1) {
        x0 = x1 = w - 1;
        x = static_cast<double>(x0);
    }
    const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0);
    const double hy = 1 - ly, hx = 1 - lx;
    s.o00 = y0 * w + x0;
    s.o01 = y0 * w + x1;
    s.o10 = y1 * w + x0;
    s.o11 = y1 * w + x1;
    s.w00 = hy * hx;
    s.w01 = hy * lx;
    s.w10 = ly * hx;
    s.w11 = ly * lx;
    return s;
}

RoiAlignBins roi_align_bins(const double roi[4], double spatial_scale,
                            const std::string& aligned_mode, int64_t sampling_ratio,
                            size_t pooled_h, size_t pooled_w) {
    // Coordinate transform: (x + offset_in) * scale + offset_out.
    const double offset_in = aligned_mode == "half_pixel" ? 0.5 : 0.0;
    const double offset_out = aligned_mode == "asymmetric" ? 0.0 : -0.5;
    RoiAlignBins b;
    b.x1 = (roi[0] + offset_in) * spatial_scale + offset_out;
    b.y1 = (roi[1] + offset_in) * spatial_scale + offset_out;
    const double x2 = (roi[2] + offset_in) * spatial_scale + offset_out,
                 y2 = (roi[3] + offset_in) * spatial_scale + offset_out;
    double roi_w = x2 - b.x1, roi_h = y2 - b.y1;
    if (aligned_mode == "asymmetric") {  // at least one pixel
        roi_w = std::max(roi_w, 1.0);
        roi_h = std::max(roi_h, 1.0);
    }
    b.bin_h = roi_h / static_cast<double>(pooled_h);
    b.bin_w = roi_w / static_cast<double>(pooled_w);
    const auto along = [&](double bin) {
        return sampling_ratio > 0 ? static_cast<double>(sampling_ratio)
                                  : std::max(0.0, std::ceil(bin));  // NaN: 0
    };
    b.grid_h = along(b.bin_h);
    b.grid_w = along(b.bin_w);
    return b;
}

}  // namespace vireo::reference
