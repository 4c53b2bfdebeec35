// Tests NonMaxSuppression-9 on ONNX's examples (corner, flipped corners, center encoding, two
// batches, score threshold), soft NMS by hand, the -1 padding and valid_outputs.
#include <cmath>

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

}  // namespace
}  // namespace vireo::test
