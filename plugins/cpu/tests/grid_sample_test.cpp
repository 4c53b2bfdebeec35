// GridSample on CPU (grid_sample_kernel): bilinear and nearest, every padding mode, both
// align_corners settings, grid points outside [-1, 1], sizes that are not a multiple of the vector
// width, empty outputs and shapes changing between inferences, against TEMPLATE's reference
// kernel; bicubic stays on the reference kernel and matches too.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

std::shared_ptr<Model> grid_sample_model(const PartialShape& data, const PartialShape& grid,
                                         const std::string& mode, const std::string& padding,
                                         bool align) {
    auto x = op::parameter(element::f32, data, "x");
    auto g = op::parameter(element::f32, grid, "grid");
    auto s = make_node("GridSample", {op::relu(x), g},
                       {{"align_corners", align}, {"mode", mode}, {"padding_mode", padding}});
    return std::make_shared<Model>(OutputVector{s}, ParameterVector{x, g}, "grid_sample");
}

// Runs `model` once on CPU and TEMPLATE with data in [-1, 1) and grid points in [-1.3, 1.3)
// (some outside the image), and returns CPU's profile rows of type GridSample.
void expect_grid_sample_matches(const std::shared_ptr<Model>& model, const Shape& data,
                                const Shape& grid, const std::string& exec_type) {
    Core core = make_core();
    const std::vector<Tensor> inputs = {random_tensor(data, 21),
                                        random_tensor(grid, 22, -1.3f, 1.3f)};
    const auto expected = run_model(core, model, "TEMPLATE", inputs);
    const auto actual = run_model(core, model, "CPU", inputs);
    EXPECT_TRUE(all_close(actual[0], expected[0], 1e-5, 1e-6));
    {
        size_t rows = 0;
        for (const auto& r : cpu_profile(model))
            if (r.node_type == "GridSample") {
                ++rows;
                EXPECT_EQ(r.exec_type, exec_type);
            }
        EXPECT_EQ(rows, 1u);
    }
}

TEST(GridSample, EveryModePaddingAndAlignment) {
    const Shape data{2, 5, 7, 9}, grid{2, 6, 11, 2};
    for (const std::string mode : {"bilinear", "nearest", "bicubic"})
        for (const std::string padding : {"zeros", "border", "reflection"})
            for (bool align : {false, true}) {
                SCOPED_TRACE(mode + " " + padding + (align ? " align_corners" : ""));
                expect_grid_sample_matches(grid_sample_model(data, grid, mode, padding, align),
                                           data, grid, mode == "bicubic" ? "ref" : "grid_sample");
            }
}

TEST(GridSample, OnePixelImagesAndEmptyOutputs) {
    for (const auto& [data, grid] : std::vector<std::pair<Shape, Shape>>{
             {{1, 3, 1, 1}, {1, 4, 5, 2}},     // one pixel: every tap but one outside
             {{1, 17, 3, 33}, {1, 1, 1, 2}},   // one output pixel, many channels
             {{1, 3, 4, 4}, {1, 0, 5, 2}},     // no output rows
             {{2, 0, 4, 4}, {2, 3, 5, 2}}}) {  // no channels
        SCOPED_TRACE(data.size());
        for (const std::string padding : {"zeros", "reflection"})
            expect_grid_sample_matches(grid_sample_model(data, grid, "bilinear", padding, true),
                                       data, grid, "grid_sample");
    }
}

TEST(GridSample, DynamicShapesChangingBetweenInferences) {
    auto model = grid_sample_model(PartialShape{-1, 4, -1, -1}, PartialShape{-1, -1, -1, 2},
                                   "bilinear", "border", false);
    Core core = make_core();
    CompiledModel cpu = core.compile_model(model, "CPU");
    CompiledModel ref = core.compile_model(model, "TEMPLATE");
    InferRequest a = cpu.create_infer_request();
    InferRequest b = ref.create_infer_request();
    unsigned seed = 40;
    for (const auto& [n, h, w, ho, wo] :
         std::vector<std::tuple<size_t, size_t, size_t, size_t, size_t>>{
             {1, 8, 8, 4, 4}, {2, 5, 13, 7, 3}, {1, 8, 8, 4, 4}, {1, 31, 2, 1, 17}}) {
        const Tensor x = random_tensor(Shape{n, 4, h, w}, seed++);
        const Tensor g = random_tensor(Shape{n, ho, wo, 2}, seed++, -1.2f, 1.2f);
        for (InferRequest* r : {&a, &b}) {
            r->set_input_tensor(0, x);
            r->set_input_tensor(1, g);
            r->infer();
        }
        EXPECT_TRUE(all_close(a.get_output_tensor(0), b.get_output_tensor(0), 1e-5, 1e-6))
            << n << "x" << h << "x" << w << " -> " << ho << "x" << wo;
    }
}

}  // namespace
}  // namespace vireo::cpu_test
