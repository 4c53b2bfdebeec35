// Implements NonMaxSuppression-9 (hard and soft NMS, corner and center box encodings).
//
// Per batch and class: repeatedly take the remaining box of highest (current) score, ties to the
// lower box index (hard NMS visits the boxes once in that order instead: the same selection); stop
// when its score is below score_threshold or max_output_boxes_per_class are taken; every other
// remaining box whose IoU with it exceeds iou_threshold is dropped, the rest keep their score
// (soft_nms_sigma = 0) or have it scaled by exp(-0.5 * iou^2 / sigma). Boxes of zero area overlap
// nothing. Rows are ordered by batch, class and selection order, or (with sort_result_descending)
// by score descending across everything, ties in that order. Rows past the selected count are -1;
// valid_outputs holds the count. Arithmetic is in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

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

// The boxes hard NMS has kept so far, and the question whether any of them overlaps a candidate
// by more than the threshold. With a threshold of at least 0 only boxes that intersect the
// candidate can suppress it, so the kept boxes are bucketed by the cell of their min corner on a
// grid whose cells are as large as the largest candidate box: a candidate is compared with the
// kept boxes of the cells a box intersecting it can start in (from one cell before its min
// corner's to its max corner's, with a cell of margin), not with every kept box. Boxes of a batched
// NMS, offset per class so that classes never overlap, then meet only their own class. Otherwise (a
// negative or NaN threshold, coordinates that are not finite or far beyond the cell size) every
// kept box.
class KeptBoxes {
  public:
    KeptBoxes(const std::vector<Box>& boxes, const std::vector<size_t>& candidates,
              double threshold)
        : m_boxes(boxes) {
        if (!(threshold >= 0) || candidates.empty()) return;
        double height = 0, width = 0;
        for (size_t i : candidates) {
            const Box& b = boxes[i];
            for (double v : {b.ymin, b.xmin, b.ymax, b.xmax})
                if (!std::isfinite(v)) return;
            height = std::max(height, b.ymax - b.ymin);
            width = std::max(width, b.xmax - b.xmin);
        }
        m_cell_h = height > 0 ? height : 1.0;
        m_cell_w = width > 0 ? width : 1.0;
        for (size_t i : candidates) {
            const Box& b = boxes[i];
            for (double v :
                 {b.ymin / m_cell_h, b.xmin / m_cell_w, b.ymax / m_cell_h, b.xmax / m_cell_w})
                if (std::fabs(v) > kMaxCell) return;
        }
        m_grid = true;
    }

    size_t size() const { return m_count; }

    bool suppresses(size_t candidate, double threshold) const {
        const Box& c = m_boxes[candidate];
        auto any_of = [&](const std::vector<size_t>& kept) {
            for (size_t j : kept)
                if (iou(m_boxes[j], c) > threshold) return true;
            return false;
        };
        if (!m_grid) return any_of(m_all);
        // One cell more on each side than the geometry needs: a division rounded at a cell
        // boundary cannot hide a kept box.
        const int64_t y0 = cell(c.ymin, m_cell_h) - 2, y1 = cell(c.ymax, m_cell_h) + 1;
        const int64_t x0 = cell(c.xmin, m_cell_w) - 2, x1 = cell(c.xmax, m_cell_w) + 1;
        for (int64_t y = y0; y <= y1; ++y)
            for (int64_t x = x0; x <= x1; ++x) {
                const auto it = m_cells.find(key(y, x));
                if (it != m_cells.end() && any_of(it->second)) return true;
            }
        return false;
    }

    void add(size_t i) {
        ++m_count;
        if (!m_grid) {
            m_all.push_back(i);
            return;
        }
        const Box& b = m_boxes[i];
        m_cells[key(cell(b.ymin, m_cell_h), cell(b.xmin, m_cell_w))].push_back(i);
    }

  private:
    static constexpr double kMaxCell = 1e9;  // cell indices stay far inside int64 and key()
    static int64_t cell(double v, double size) {
        return static_cast<int64_t>(std::floor(v / size));
    }
    static uint64_t key(int64_t y, int64_t x) {
        return (static_cast<uint64_t>(y) << 32) ^ static_cast<uint64_t>(x & 0xffffffff);
    }

    const std::vector<Box>& m_boxes;
    bool m_grid = false;
    double m_cell_h = 1, m_cell_w = 1;
    size_t m_count = 0;
    std::vector<size_t> m_all;
    std::unordered_map<uint64_t, std::vector<size_t>> m_cells;
};

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
                const double* class_scores = scores.data() + (b * classes + k) * num;
                if (sigma <= 0) {
                    // Hard NMS: scores never change, so the greedy loop is the same as visiting
                    // the boxes at or above the threshold once, by score (ties: lower index), and
                    // keeping each that overlaps no box kept before it. Each box is compared with
                    // the kept boxes only: O(candidates x kept) instead of O(boxes x kept).
                    std::vector<size_t> order;
                    for (size_t i = 0; i < num; ++i)
                        if (class_scores[i] >= score_threshold) order.push_back(i);
                    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
                        return class_scores[x] > class_scores[y];
                    });
                    KeptBoxes kept(boxes, order, iou_threshold);
                    for (size_t i : order) {
                        if (static_cast<int64_t>(kept.size()) >= max_boxes) break;
                        if (kept.suppresses(i, iou_threshold)) continue;
                        kept.add(i);
                        selected.push_back({b, k, i, class_scores[i]});
                    }
                    continue;
                }
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
