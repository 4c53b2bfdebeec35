// Implements NonMaxSuppression-9 (hard and soft NMS, corner and center box encodings).
//
// Per batch and class: repeatedly take the remaining box of highest (current) score, ties to the
// lower box index; stop when its score is below score_threshold or max_output_boxes_per_class are
// taken; every other remaining box whose IoU with it exceeds iou_threshold is dropped, the rest
// keep their score (soft_nms_sigma = 0) or have it scaled by exp(-0.5 * iou^2 / sigma). Boxes of
// zero area overlap nothing. Rows are ordered by batch, class and selection order, or (with
// sort_result_descending) by score descending across everything, ties in that order. Rows past
// the selected count are -1; valid_outputs holds the count. Arithmetic is in double.
#include <algorithm>
#include <cmath>

#include "math_common.hpp"
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

struct Box {
    double ymin, xmin, ymax, xmax;
    double area() const { return std::max(0.0, ymax - ymin) * std::max(0.0, xmax - xmin); }
};

double iou(const Box& a, const Box& b) {
    const double area_a = a.area(), area_b = b.area();
    if (area_a <= 0 || area_b <= 0) return 0;
    const double h = std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin);
    const double w = std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin);
    if (h <= 0 || w <= 0) return 0;
    const double inter = h * w;
    return inter / (area_a + area_b - inter);
}

std::vector<double> real_values(const Tensor& t, const std::string& who, const char* what) {
    std::vector<double> out(t.get_size());
    dispatch(RealTypes{}, t.get_element_type(), what, [&](auto tag) {
        using T = decltype(tag);
        const T* p = tensor_data<T>(t);
        for (size_t i = 0; i < out.size(); ++i)
            out[i] = static_cast<double>(math::to_compute(p[i]));
    });
    (void)who;
    return out;
}

double scalar_real(const std::vector<Tensor>& in, size_t i, const std::string& who,
                   const char* what) {
    if (i >= in.size() || !in[i]) return 0.0;
    const auto v = real_values(in[i], who, what);
    if (v.size() != 1)
        throw_error<InvalidArgument>(who, ": ", what, " must hold one value, got ", v.size());
    return v[0];
}

struct Selected {
    size_t batch, cls, box;
    double score;
};

std::unique_ptr<Kernel> make_nms(const Node& node) {
    const bool center = node.get_attribute<std::string>("box_encoding") == "center";
    const bool sort_descending = node.get_attribute<bool>("sort_result_descending");
    return make_kernel([who = node.describe(), center, sort_descending](
                           const std::vector<Tensor>& in, std::vector<Tensor>& out) {
        check_arity(in, 2, out, 3, who);
        const Shape& bshape = in[0].get_shape();
        const Shape& sshape = in[1].get_shape();
        if (bshape.size() != 3 || bshape[2] != 4 || sshape.size() != 3 || sshape[0] != bshape[0] ||
            sshape[2] != bshape[1])
            throw_error<InvalidArgument>(
                who, ": boxes ", bshape, " and scores ", sshape,
                " must be [batches, boxes, 4] and [batches, classes, boxes]");
        int64_t max_boxes = 0;
        if (in.size() > 2 && in[2]) {
            const auto v = read_ints(in[2], who, "input 2 (max_output_boxes_per_class)");
            if (v.size() != 1)
                throw_error<InvalidArgument>(who,
                                             ": max_output_boxes_per_class must hold one value");
            max_boxes = std::max<int64_t>(v[0], 0);
        }
        const double iou_threshold = scalar_real(in, 3, who, "input 3 (iou_threshold)");
        const double score_threshold = scalar_real(in, 4, who, "input 4 (score_threshold)");
        const double sigma = scalar_real(in, 5, who, "input 5 (soft_nms_sigma)");
        const size_t batches = bshape[0], num = bshape[1], classes = sshape[1];
        const auto coords = real_values(in[0], who, "input 0 (boxes)");
        const auto scores = real_values(in[1], who, "input 1 (scores)");
        std::vector<Selected> selected;
        for (size_t b = 0; b < batches; ++b) {
            std::vector<Box> boxes(num);
            for (size_t i = 0; i < num; ++i) {
                const double* c = coords.data() + (b * num + i) * 4;
                if (center) {
                    boxes[i] = {c[1] - c[3] / 2, c[0] - c[2] / 2, c[1] + c[3] / 2, c[0] + c[2] / 2};
                } else {
                    boxes[i] = {std::min(c[0], c[2]), std::min(c[1], c[3]), std::max(c[0], c[2]),
                                std::max(c[1], c[3])};
                }
            }
            for (size_t k = 0; k < classes; ++k) {
                std::vector<double> current(
                    scores.begin() + static_cast<std::ptrdiff_t>((b * classes + k) * num),
                    scores.begin() + static_cast<std::ptrdiff_t>((b * classes + k + 1) * num));
                std::vector<bool> alive(num, true);
                int64_t taken = 0;
                while (taken < max_boxes) {
                    size_t best = num;
                    for (size_t i = 0; i < num; ++i)
                        if (alive[i] && (best == num || current[i] > current[best])) best = i;
                    if (best == num || !(current[best] >= score_threshold)) break;
                    alive[best] = false;
                    selected.push_back({b, k, best, current[best]});
                    ++taken;
                    for (size_t i = 0; i < num; ++i) {
                        if (!alive[i]) continue;
                        const double overlap = iou(boxes[best], boxes[i]);
                        if (overlap > iou_threshold)
                            alive[i] = false;
                        else if (sigma > 0)
                            current[i] *= std::exp(-0.5 * overlap * overlap / sigma);
                    }
                }
            }
        }
        if (sort_descending)
            std::stable_sort(
                selected.begin(), selected.end(),
                [](const Selected& a, const Selected& c) { return a.score > c.score; });
        const size_t rows = out[0].get_shape().empty() ? 0 : out[0].get_shape()[0];
        if (selected.size() > rows || out[0].get_size() != rows * 3 ||
            out[1].get_size() != rows * 3 || out[2].get_size() != 1)
            throw_error<InvalidArgument>(who, ": outputs ", out[0].get_shape(), ", ",
                                         out[1].get_shape(), ", ", out[2].get_shape(),
                                         " cannot hold ", selected.size(), " selected boxes");
        auto store_index = [](Tensor& t, size_t i, int64_t v) {
            if (t.get_element_type() == element::i32)
                tensor_data<int32_t>(t)[i] = static_cast<int32_t>(v);
            else
                tensor_data<int64_t>(t)[i] = v;
        };
        dispatch(RealTypes{}, out[1].get_element_type(), who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            T* s = tensor_data<T>(out[1]);
            for (size_t r = 0; r < rows; ++r) {
                const bool valid = r < selected.size();
                const Selected& e = valid ? selected[r] : Selected{0, 0, 0, 0};
                const int64_t row[3] = {valid ? static_cast<int64_t>(e.batch) : -1,
                                        valid ? static_cast<int64_t>(e.cls) : -1,
                                        valid ? static_cast<int64_t>(e.box) : -1};
                for (size_t c = 0; c < 3; ++c) store_index(out[0], r * 3 + c, row[c]);
                s[r * 3 + 0] = math::from_compute<T>(
                    static_cast<math::compute_t<T>>(valid ? double(e.batch) : -1.0));
                s[r * 3 + 1] = math::from_compute<T>(
                    static_cast<math::compute_t<T>>(valid ? double(e.cls) : -1.0));
                s[r * 3 + 2] =
                    math::from_compute<T>(static_cast<math::compute_t<T>>(valid ? e.score : -1.0));
            }
        });
        store_index(out[2], 0, static_cast<int64_t>(selected.size()));
    });
}

}  // namespace

void register_nms_kernels(KernelRegistry& registry) {
    registry.add("NonMaxSuppression", make_nms);
}

}  // namespace vireo::reference::tensor
