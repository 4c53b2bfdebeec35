// Golden models (tiny, mlp, cnn) from IR and from ONNX: CPU's outputs match ONNX Runtime's within
// the tolerance TEMPLATE's golden test uses, synchronously and asynchronously.
#include <gtest/gtest.h>

#include "npy.hpp"
#include "test_utils.hpp"

namespace vireo::cpu_test {
namespace {

class GoldenModel : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenModel, IrMatchesOnnxRuntime) {
    const std::string dir = data_dir() + "/models/golden/" + GetParam();
    Core core = make_core();
    CompiledModel compiled = core.compile_model(core.read_model(dir + "/model.xml"), "CPU");
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("x", npy::read_npy(dir + "/input_x.npy"));
    request.infer();
    const Tensor expected = npy::read_npy(dir + "/output_y.npy");
    EXPECT_TRUE(all_close(request.get_tensor("y"), expected, 1e-4, 1e-5));
    request.infer();  // a second run on the same request: no state left behind
    EXPECT_TRUE(all_close(request.get_tensor("y"), expected, 1e-4, 1e-5));
}

#ifdef VIREO_CPU_TESTS_ONNX  // built only with the ONNX frontend
// The golden models that ship their .onnx (mlp has only the IR).
class GoldenOnnxModel : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenOnnxModel, AsyncMatchesOnnxRuntime) {
    const std::string dir = data_dir() + "/models/golden/" + GetParam();
    Core core = make_core();
    CompiledModel compiled = core.compile_model(dir + "/model.onnx", "CPU");
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(npy::read_npy(dir + "/input_x.npy"));
    request.start_async();
    request.wait();
    EXPECT_TRUE(
        all_close(request.get_output_tensor(), npy::read_npy(dir + "/output_y.npy"), 1e-4, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(Cpu, GoldenOnnxModel, ::testing::Values("tiny", "cnn"));
#endif

INSTANTIATE_TEST_SUITE_P(Cpu, GoldenModel, ::testing::Values("tiny", "mlp", "cnn"));

}  // namespace
}  // namespace vireo::cpu_test
