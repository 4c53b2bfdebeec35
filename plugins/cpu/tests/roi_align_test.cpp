// ROIAlign on CPU (roi_align_kernel): avg and max, every aligned_mode, a fixed and the adaptive
// sampling grid, rois partly or wholly outside the image, two images with i32 and i64 batch
// indices, against TEMPLATE's reference kernel; a NaN the only outside sample would read stays
// out of the result, and a batch index out of range is the reference kernel's error.
#include <gtest/gtest.h>

#include <cmath>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

std::shared_ptr<Model> roi_align_model(const Shape& data, size_t rois, element::Type index_type,
                                       const std::string& mode, const std::string& aligned,
                                       int64_t ratio, size_t pooled_h, size_t pooled_w) {
    auto x = op::parameter(element::f32, data, "x");
    auto boxes = op::parameter(element::f32, Shape{rois, 4}, "rois");
    auto batch = op::parameter(index_type, Shape{rois}, "batch");
    auto node = make_node("ROIAlign", {x, boxes, batch},
                          {{"pooled_h", static_cast<int64_t>(pooled_h)},
                           {"pooled_w", static_cast<int64_t>(pooled_w)},
                           {"sampling_ratio", ratio},
                           {"spatial_scale", 0.5},
                           {"mode", mode},
                           {"aligned_mode", aligned}},
                          9);
    return std::make_shared<Model>(OutputVector{node}, ParameterVector{x, boxes, batch},
                                   "roi_align");
}

// Boxes in input coordinates (spatial_scale 0.5 maps them onto the feature map): inside, partly
// outside, wholly outside, degenerate (x2 < x1) and one pixel wide.
Tensor boxes(size_t rois) {
    const float table[][4] = {{2.f, 3.f, 14.f, 11.f},   {-6.f, -4.f, 7.f, 5.f},
                              {30.f, 30.f, 40.f, 44.f}, {9.f, 9.f, 3.f, 4.f},
                              {4.f, 1.f, 5.f, 21.f},    {0.f, 0.f, 17.f, 23.f}};
    Tensor t(element::f32, Shape{rois, 4});
    for (size_t r = 0; r < rois; ++r)
        for (size_t i = 0; i < 4; ++i) t.data<float>()[4 * r + i] = table[r % 6][i];
    return t;
}

Tensor indices(size_t rois, element::Type type) {
    Tensor t(type, Shape{rois});
    for (size_t r = 0; r < rois; ++r) {
        if (type == element::i64)
            t.data<int64_t>()[r] = static_cast<int64_t>(r % 2);
        else
            t.data<int32_t>()[r] = static_cast<int32_t>(r % 2);
    }
    return t;
}

TEST(RoiAlign, EveryModeAlignmentAndGridMatchesTemplate) {
    const Shape data{2, 5, 9, 12};
    Core core = make_core();
    for (const std::string mode : {"avg", "max"})
        for (const std::string aligned : {"asymmetric", "half_pixel_for_nn", "half_pixel"})
            for (const int64_t ratio : {int64_t{0}, int64_t{2}})
                for (const auto type : {element::i32, element::i64}) {
                    SCOPED_TRACE(mode + " " + aligned + " ratio " + std::to_string(ratio) + " " +
                                 std::string(type.name()));
                    const size_t rois = 7;
                    auto model = roi_align_model(data, rois, type, mode, aligned, ratio, 3, 4);
                    const std::vector<Tensor> inputs = {random_tensor(data, 31), boxes(rois),
                                                        indices(rois, type)};
                    const auto expected = run_model(core, model, "TEMPLATE", inputs);
                    auto request =
                        core.compile_model(model, "CPU", {{enable_profiling.name(), true}})
                            .create_infer_request();
                    for (size_t i = 0; i < inputs.size(); ++i)
                        request.set_input_tensor(i, inputs[i]);
                    request.infer();
                    EXPECT_TRUE(all_close(request.get_output_tensor(0), expected[0], 1e-5, 1e-6));
                    size_t rows = 0;
                    for (const auto& r : request.get_profiling_info())
                        if (r.node_type == "ROIAlign") {
                            ++rows;
                            EXPECT_EQ(r.exec_type, "roi_align");
                        }
                    EXPECT_EQ(rows, 1u);
                }
}

TEST(RoiAlign, ManyRoisAndChannelsSplitOverTheTeam) {
    // 96 rois x 64 channels of a 7x7 pooling with the adaptive grid: enough work for every
    // thread, the same values whatever the split.
    const Shape data{2, 64, 20, 24};
    Core core = make_core();
    auto model = roi_align_model(data, 96, element::i64, "avg", "half_pixel", 0, 7, 7);
    const std::vector<Tensor> inputs = {random_tensor(data, 32), boxes(96),
                                        indices(96, element::i64)};
    const auto expected = run_model(core, model, "TEMPLATE", inputs);
    const auto actual = run_model(core, model, "CPU", inputs);
    EXPECT_TRUE(all_close(actual[0], expected[0], 1e-5, 1e-6));
}

TEST(RoiAlign, AnOutsideSampleReadsNothingAndABadBatchIndexIsAnError) {
    const Shape data{1, 1, 4, 4};
    auto model = roi_align_model(data, 1, element::i32, "avg", "asymmetric", 1, 1, 1);
    Core core = make_core();
    Tensor x = random_tensor(data, 33);
    x.data<float>()[0] = std::nanf("");  // the element an outside sample's weights point at
    Tensor box(element::f32, Shape{1, 4});
    for (size_t i = 0; i < 4; ++i) box.data<float>()[i] = 40.f;  // far outside: one sample
    const auto out = run_model(core, model, "CPU", {x, box, indices(1, element::i32)});
    EXPECT_EQ(out[0].data<float>()[0], 0.f);
    Tensor bad(element::i32, Shape{1});
    bad.data<int32_t>()[0] = 3;
    try {
        run_model(core, model, "CPU", {x, box, bad});
        FAIL() << "a batch index out of range ran";
    } catch (const Exception& e) {
        EXPECT_NE(std::string(e.what()).find("batch index 3 of roi 0 is out of range"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace vireo::cpu_test
