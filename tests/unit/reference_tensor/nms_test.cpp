// Tests NonMaxSuppression-9 on ONNX's examples (corner, flipped corners, center encoding, two
// batches, score threshold), soft NMS by hand, the -1 padding and valid_outputs; hard NMS against
// the greedy definition on many random boxes (the kernel's grid of kept boxes, and its fallbacks).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>

#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

const std::vector<double> kCorners{0.0, 0.0,  1.0, 1.0,  0.0, 0.1,   1.0, 1.1,
                                   0.0, -0.1, 1.0, 0.9,  0.0, 10.0,  1.0, 11.0,
                                   0.0, 10.1, 1.0, 11.1, 0.0, 100.0, 1.0, 101.0};
const std::vector<double> kScores{0.9, 0.75, 0.6, 0.95, 0.5, 0.3};

std::vector<Tensor> nms(const Tensor& boxes, const Tensor& scores, int64_t max_boxes, double iou,
                        double score, double sigma, Attrs attrs) {
    std::vector<Tensor> in{boxes,
                           scores,
                           make_tensor(element::i64, {}, Ints{max_boxes}),
                           make_tensor(element::f32, {}, std::vector<double>{iou}),
                           make_tensor(element::f32, {}, std::vector<double>{score}),
                           make_tensor(element::f32, {}, std::vector<double>{sigma})};
    OutputVector args;
    for (const auto& t : in) args.push_back(param(t.get_element_type(), t.get_shape()));
    return run(make_node("NonMaxSuppression", args, std::move(attrs)), in);
}

const Attrs kOnnxOrder{{"sort_result_descending", false}};

TEST(NmsKernel, OnnxCornerFlippedAndCenterExamples) {
    const auto scores = make_tensor(element::f32, {1, 1, 6}, kScores);
    const auto boxes = make_tensor(element::f32, {1, 6, 4}, kCorners);
    auto out = nms(boxes, scores, 3, 0.5, 0.0, 0.0, kOnnxOrder);
    EXPECT_EQ(out[0].get_shape(), (Shape{3, 3}));
    EXPECT_EQ(ints_of(out[0]), (Ints{0, 0, 3, 0, 0, 0, 0, 0, 5}));
    expect_near(values_of(out[1]), {0, 0, 0.95, 0, 0, 0.9, 0, 0, 0.3}, 1e-6);
    EXPECT_EQ(ints_of(out[2]), (Ints{3}));
    const auto flipped = make_tensor(
        element::f32, {1, 6, 4},
        std::vector<double>{1.0, 1.0,  0.0, 0.0,  0.0, 0.1,  1.0, 1.1,  0.0, 0.9,   1.0, -0.1,
                            0.0, 10.0, 1.0, 11.0, 1.0, 10.1, 0.0, 11.1, 1.0, 101.0, 0.0, 100.0});
    EXPECT_EQ(ints_of(nms(flipped, scores, 3, 0.5, 0.0, 0.0, kOnnxOrder)[0]),
              (Ints{0, 0, 3, 0, 0, 0, 0, 0, 5}));
    const auto centers = make_tensor(
        element::f32, {1, 6, 4},
        std::vector<double>{0.5, 0.5,  1.0, 1.0, 0.5, 0.6,  1.0, 1.0, 0.5, 0.4,   1.0, 1.0,
                            0.5, 10.5, 1.0, 1.0, 0.5, 10.6, 1.0, 1.0, 0.5, 100.5, 1.0, 1.0});
    Attrs center = kOnnxOrder;
    center["box_encoding"] = std::string("center");
    EXPECT_EQ(ints_of(nms(centers, scores, 3, 0.5, 0.0, 0.0, center)[0]),
              (Ints{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(NmsKernel, ScoreThresholdPadsWithMinusOne) {
    const auto out = nms(make_tensor(element::f32, {1, 6, 4}, kCorners),
                         make_tensor(element::f32, {1, 1, 6}, kScores), 3, 0.5, 0.4, 0.0,
                         {{"output_type", element::i32}});
    EXPECT_EQ(out[0].get_element_type(), element::i32);
    EXPECT_EQ(ints_of(out[0]), (Ints{0, 0, 3, 0, 0, 0, -1, -1, -1}));
    expect_near(values_of(out[1]), {0, 0, 0.95, 0, 0, 0.9, -1, -1, -1}, 1e-6);
    EXPECT_EQ(ints_of(out[2]), (Ints{2}));
}

TEST(NmsKernel, TwoBatchesInOnnxOrderOrSortedByScore) {
    std::vector<double> boxes = kCorners, scores = kScores;
    boxes.insert(boxes.end(), kCorners.begin(), kCorners.end());
    scores.insert(scores.end(), kScores.begin(), kScores.end());
    const auto b = make_tensor(element::f32, {2, 6, 4}, boxes);
    const auto s = make_tensor(element::f32, {2, 1, 6}, scores);
    EXPECT_EQ(ints_of(nms(b, s, 2, 0.5, 0.0, 0.0, kOnnxOrder)[0]),
              (Ints{0, 0, 3, 0, 0, 0, 1, 0, 3, 1, 0, 0}));
    EXPECT_EQ(ints_of(nms(b, s, 2, 0.5, 0.0, 0.0, {})[0]),
              (Ints{0, 0, 3, 1, 0, 3, 0, 0, 0, 1, 0, 0}));
    // No max_output_boxes_per_class: nothing is selected.
    OutputVector args{param(element::f32, {2, 6, 4}), param(element::f32, {2, 1, 6})};
    const auto none = run(make_node("NonMaxSuppression", args), {b, s});
    EXPECT_EQ(none[0].get_shape(), (Shape{0, 3}));
    EXPECT_EQ(ints_of(none[2]), (Ints{0}));
}

TEST(NmsKernel, SoftNmsRescoresOverlappingBoxes) {
    // Box 1 covers half of box 0: IoU 0.5, its score 0.8 becomes 0.8 * exp(-0.5 * 0.25 / 0.5).
    const auto boxes =
        make_tensor(element::f64, {1, 2, 4}, std::vector<double>{0, 0, 1, 1, 0, 0, 1, 0.5});
    const auto scores = make_tensor(element::f64, {1, 1, 2}, std::vector<double>{0.9, 0.8});
    std::vector<Tensor> in{boxes,
                           scores,
                           make_tensor(element::i32, {1}, Ints{5}),
                           make_tensor(element::f64, {}, std::vector<double>{1.0}),
                           make_tensor(element::f64, {}, std::vector<double>{0.0}),
                           make_tensor(element::f64, {}, std::vector<double>{0.5})};
    OutputVector args;
    for (const auto& t : in) args.push_back(param(t.get_element_type(), t.get_shape()));
    const auto out = run(make_node("NonMaxSuppression", args), in);
    EXPECT_EQ(out[0].get_shape(), (Shape{2, 3}));
    EXPECT_EQ(ints_of(out[0]), (Ints{0, 0, 0, 0, 0, 1}));
    expect_near(values_of(out[1]), {0, 0, 0.9, 0, 0, 0.8 * std::exp(-0.25)}, 1e-12);
    // Hard NMS with the same threshold 0.4 drops box 1.
    const auto hard = nms(
        make_tensor(element::f32, {1, 2, 4}, std::vector<double>{0, 0, 1, 1, 0, 0, 1, 0.5}),
        make_tensor(element::f32, {1, 1, 2}, std::vector<double>{0.9, 0.8}), 5, 0.4, 0.0, 0.0, {});
    EXPECT_EQ(ints_of(hard[0]), (Ints{0, 0, 0, -1, -1, -1}));
    EXPECT_EQ(ints_of(hard[2]), (Ints{1}));
}

// ONNX's definition of hard NMS for one batch and class, as written: repeatedly the alive box of
// highest score (ties: lower index) at or above the score threshold; drop the alive boxes whose
// IoU with it exceeds the threshold. O(boxes x kept): the oracle for the kernel's faster search.
Ints greedy_nms(const std::vector<double>& corners, const std::vector<double>& scores,
                double iou_threshold, double score_threshold, size_t max_boxes) {
    const size_t n = scores.size();
    auto box = [&](size_t i) {
        const double* c = corners.data() + 4 * i;
        return std::array<double, 4>{std::min(c[0], c[2]), std::min(c[1], c[3]),
                                     std::max(c[0], c[2]), std::max(c[1], c[3])};
    };
    auto iou = [&](size_t a, size_t b) {
        const auto p = box(a), q = box(b);
        const double area_p = std::max(0.0, p[2] - p[0]) * std::max(0.0, p[3] - p[1]);
        const double area_q = std::max(0.0, q[2] - q[0]) * std::max(0.0, q[3] - q[1]);
        if (area_p <= 0 || area_q <= 0) return 0.0;
        const double h = std::min(p[2], q[2]) - std::max(p[0], q[0]);
        const double w = std::min(p[3], q[3]) - std::max(p[1], q[1]);
        if (h <= 0 || w <= 0) return 0.0;
        return h * w / (area_p + area_q - h * w);
    };
    std::vector<bool> alive(n, true);
    Ints kept;
    while (kept.size() < max_boxes) {
        size_t best = n;
        for (size_t i = 0; i < n; ++i)
            if (alive[i] && (best == n || scores[i] > scores[best])) best = i;
        if (best == n || !(scores[best] >= score_threshold)) break;
        alive[best] = false;
        kept.push_back(static_cast<int64_t>(best));
        for (size_t i = 0; i < n; ++i)
            if (alive[i] && iou(best, i) > iou_threshold) alive[i] = false;
    }
    return kept;
}

// Box indices the kernel selected (column 2 of its rows), in its order.
Ints selected_boxes(const std::vector<Tensor>& out) {
    const Ints rows = ints_of(out[0]);
    const int64_t count = ints_of(out[2]).at(0);
    Ints boxes;
    for (int64_t r = 0; r < count; ++r) boxes.push_back(rows.at(static_cast<size_t>(r * 3 + 2)));
    return boxes;
}

TEST(NmsKernel, HardNmsSelectsWhatTheGreedyDefinitionSelects) {
    // Crowded boxes of many sizes, ties in the scores, and a second set shifted far away as
    // torchvision's batched NMS shifts each class (the kernel's grid then keeps them apart),
    // degenerate boxes and flipped corners; thresholds from "any overlap" to "almost identical",
    // and a negative one under which every box suppresses every other.
    std::mt19937 rng(20261127);
    std::uniform_real_distribution<double> pos(0, 100), size(0, 40), unit(0, 1);
    const size_t n = 700;
    std::vector<double> corners, scores;
    for (size_t i = 0; i < n; ++i) {
        const double shift = i % 3 == 0 ? 5000.0 : 0.0;
        const double y = pos(rng) + shift, x = pos(rng) + shift;
        const double h = i % 50 == 7 ? 0.0 : size(rng), w = size(rng);
        if (i % 5 == 1)
            corners.insert(corners.end(), {y + h, x + w, y, x});  // flipped corners
        else
            corners.insert(corners.end(), {y, x, y + h, x + w});
        // Rounded to 1/64: many ties, which must go to the lower index.
        scores.push_back(std::round(unit(rng) * 64) / 64);
    }
    const auto boxes = make_tensor(element::f64, {1, n, 4}, corners);
    const auto score_tensor = make_tensor(element::f64, {1, 1, n}, scores);
    for (double iou : {0.0, 0.3, 0.5, 0.9, -0.1})
        for (double score_threshold : {0.0, 0.5}) {
            std::vector<Tensor> in{
                boxes,
                score_tensor,
                make_tensor(element::i64, {}, Ints{static_cast<int64_t>(n)}),
                make_tensor(element::f64, {}, std::vector<double>{iou}),
                make_tensor(element::f64, {}, std::vector<double>{score_threshold}),
                make_tensor(element::f64, {}, std::vector<double>{0.0})};
            OutputVector args;
            for (const auto& t : in) args.push_back(param(t.get_element_type(), t.get_shape()));
            const auto out = run(make_node("NonMaxSuppression", args, kOnnxOrder), in);
            const Ints expected = greedy_nms(corners, scores, iou, score_threshold, n);
            EXPECT_EQ(selected_boxes(out), expected)
                << "iou " << iou << " score " << score_threshold;
            if (iou < 0) {
                EXPECT_EQ(expected.size(), 1u);
            }
            if (iou == 0.9) {
                EXPECT_GT(expected.size(), n / 2);
            }
        }
    // The same with a box at infinity (the kernel compares with every kept box then), and with
    // max_output_boxes_per_class cutting the selection short.
    std::vector<double> with_inf = corners;
    with_inf[4 * 10 + 2] = std::numeric_limits<double>::infinity();
    const auto inf_boxes = make_tensor(element::f64, {1, n, 4}, with_inf);
    for (int64_t max_boxes : {int64_t{25}, static_cast<int64_t>(n)}) {
        std::vector<Tensor> in{inf_boxes,
                               score_tensor,
                               make_tensor(element::i64, {}, Ints{max_boxes}),
                               make_tensor(element::f64, {}, std::vector<double>{0.4}),
                               make_tensor(element::f64, {}, std::vector<double>{0.0}),
                               make_tensor(element::f64, {}, std::vector<double>{0.0})};
        OutputVector args;
        for (const auto& t : in) args.push_back(param(t.get_element_type(), t.get_shape()));
        const auto out = run(make_node("NonMaxSuppression", args, kOnnxOrder), in);
        EXPECT_EQ(selected_boxes(out),
                  greedy_nms(with_inf, scores, 0.4, 0.0, static_cast<size_t>(max_boxes)))
            << "max " << max_boxes;
    }
}

}  // namespace
}  // namespace vireo::test
