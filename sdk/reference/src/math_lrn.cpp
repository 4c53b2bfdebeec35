// LRN-1 kernel: x / (bias + alpha / size^len(axes) * sum of squares over the window)^beta.
//
// The window on each listed axis covers [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)],
// clipped to the axis (ONNX's LRN window; for odd sizes it is OpenVINO's size / 2 either side).
// Sums and the power are computed in double and rounded once.
#include "math_common.hpp"

namespace vireo::reference::math {
namespace {

std::unique_ptr<Kernel> make_lrn(const Node& node) {
    const double alpha = node.get_attribute<double>("alpha");
    const double beta = node.get_attribute<double>("beta");
    const double bias = node.get_attribute<double>("bias");
    const int64_t size = node.get_attribute<int64_t>("size");
    const std::string what = node.describe();
    if (size < 1) throw_error<InvalidArgument>(what, ": size must be >= 1, got ", size);
    return dispatch(RealTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        return make_kernel([=](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            const Shape& shape = in[0].get_shape();
            const size_t rank = shape.size();
            const std::vector<bool> mask = read_axes_mask(in[1], rank, what);
            size_t n_axes = 0;
            for (bool m : mask) n_axes += m ? 1 : 0;
            const double scale =
                alpha / std::pow(static_cast<double>(size), static_cast<double>(n_axes));
            const auto before = (size - 1) / 2, after = size - 1 - before;
            std::vector<size_t> strides(rank, 1);
            for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * shape[i];
            const T* x = static_cast<const T*>(in[0].data());
            T* y = static_cast<T*>(out[0].data());
            const size_t total = in[0].get_size();
            std::vector<size_t> coord(rank, 0), lo(rank), hi(rank), w(rank);
            for (size_t p = 0; p < total; ++p) {
                // The window box around coord, then every element in it.
                for (size_t i = 0; i < rank; ++i) {
                    const auto c = static_cast<int64_t>(coord[i]);
                    lo[i] =
                        mask[i] ? static_cast<size_t>(std::max<int64_t>(c - before, 0)) : coord[i];
                    hi[i] = mask[i] ? static_cast<size_t>(std::min<int64_t>(
                                          c + after, static_cast<int64_t>(shape[i]) - 1))
                                    : coord[i];
                    w[i] = lo[i];
                }
                double sum = 0;
                for (bool done = false; !done;) {
                    size_t at = 0;
                    for (size_t i = 0; i < rank; ++i) at += w[i] * strides[i];
                    const double v = static_cast<double>(to_compute(x[at]));
                    sum += v * v;
                    done = true;
                    for (size_t i = rank; i-- > 0;) {
                        if (w[i] < hi[i]) {
                            ++w[i];
                            done = false;
                            break;
                        }
                        w[i] = lo[i];
                    }
                }
                const double v = static_cast<double>(to_compute(x[p]));
                y[p] = from_compute<T>(
                    static_cast<compute_t<T>>(v / std::pow(bias + scale * sum, beta)));
                for (size_t i = rank; i-- > 0;) {
                    if (++coord[i] < shape[i]) break;
                    coord[i] = 0;
                }
            }
        });
    });
}

}  // namespace

void register_lrn_kernels(KernelRegistry& registry) {
    registry.add("LRN", make_lrn);
}

}  // namespace vireo::reference::math
