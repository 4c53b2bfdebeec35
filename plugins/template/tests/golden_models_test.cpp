// Golden models (tiny, mlp, cnn): TEMPLATE's outputs match ONNX Runtime's within 1e-4 relative.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ir.hpp"

namespace vireo::template_test {
namespace {

class GoldenModel : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenModel, MatchesOnnxRuntime) {
    const std::string dir = data_dir() + "/models/golden/" + GetParam();
    Core core = make_core();
    auto model = read_model(dir + "/model.xml");
    CompiledModel compiled = core.compile_model(model, "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("x", read_npy(dir + "/input_x.npy"));
    request.infer();
    const Tensor expected = read_npy(dir + "/output_y.npy");
    EXPECT_TRUE(all_close(request.get_tensor("y"), expected, 1e-4, 1e-5));
    // A second run on the same request gives the same answer (no state left behind).
    request.infer();
    EXPECT_TRUE(all_close(request.get_tensor("y"), expected, 1e-4, 1e-5));
}

TEST_P(GoldenModel, AsyncRunMatchesToo) {
    const std::string dir = data_dir() + "/models/golden/" + GetParam();
    Core core = make_core();
    CompiledModel compiled = core.compile_model(dir + "/model.xml", "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(read_npy(dir + "/input_x.npy"));
    request.start_async();
    request.wait();
    EXPECT_TRUE(
        all_close(request.get_output_tensor(), read_npy(dir + "/output_y.npy"), 1e-4, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(Template, GoldenModel, ::testing::Values("tiny", "mlp", "cnn"));

}  // namespace
}  // namespace vireo::template_test
