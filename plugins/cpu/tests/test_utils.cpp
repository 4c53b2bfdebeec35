// Implements the CPU plugin tests' helpers.
#include "test_utils.hpp"

#include <cmath>
#include <random>
#include <sstream>

namespace vireo::cpu_test {

std::string data_dir() {
    return VIREO_TEST_DATA_DIR;
}

Core make_core() {
    return Core(std::string(VIREO_BUILD_LIB_DIR) + "/plugins.xml");
}

Tensor random_tensor(const Shape& shape, unsigned seed, float lo, float hi) {
    Tensor t(element::f32, shape);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    float* p = t.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i) p[i] = dist(rng);
    return t;
}

::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected, double rel,
                                     double abs) {
    if (actual.get_shape() != expected.get_shape())
        return ::testing::AssertionFailure()
               << "shape " << actual.get_shape() << " vs expected " << expected.get_shape();
    if (actual.get_element_type() != element::f32 || expected.get_element_type() != element::f32) {
        if (actual.get_byte_size() == expected.get_byte_size() &&
            std::equal(static_cast<const char*>(actual.data()),
                       static_cast<const char*>(actual.data()) + actual.get_byte_size(),
                       static_cast<const char*>(expected.data())))
            return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "non-f32 tensors differ";
    }
    const float* a = actual.data<float>();
    const float* e = expected.data<float>();
    for (size_t i = 0; i < actual.get_size(); ++i) {
        const bool both_nan = std::isnan(a[i]) && std::isnan(e[i]);
        if (!both_nan && !(std::fabs(a[i] - e[i]) <= abs + rel * std::fabs(e[i])))
            return ::testing::AssertionFailure()
                   << "element " << i << ": " << a[i] << " vs expected " << e[i];
    }
    return ::testing::AssertionSuccess();
}

std::vector<Tensor> run_model(Core& core, const std::shared_ptr<Model>& model,
                              const std::string& device, const std::vector<Tensor>& inputs,
                              const AnyMap& config) {
    CompiledModel compiled = core.compile_model(model, device, config);
    InferRequest request = compiled.create_infer_request();
    for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
    request.infer();
    std::vector<Tensor> outputs;
    for (size_t j = 0; j < model->get_results().size(); ++j)
        outputs.push_back(request.get_output_tensor(j).clone());
    return outputs;
}

void expect_matches_template(const std::shared_ptr<Model>& model, double rel, double abs,
                             unsigned seed) {
    Core core = make_core();
    std::vector<Tensor> inputs;
    for (const auto& p : model->get_parameters())
        inputs.push_back(random_tensor(p->get_output_shape(0), seed++));
    const auto expected = run_model(core, model, "TEMPLATE", inputs);
    const auto actual = run_model(core, model, "CPU", inputs);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t j = 0; j < actual.size(); ++j)
        EXPECT_TRUE(all_close(actual[j], expected[j], rel, abs)) << "output " << j;
}

std::vector<ProfilingInfo> cpu_profile(const std::shared_ptr<Model>& model, const AnyMap& config) {
    Core core = make_core();
    AnyMap with_profiling = config;
    with_profiling[enable_profiling.name()] = true;
    CompiledModel compiled = core.compile_model(model, "CPU", with_profiling);
    InferRequest request = compiled.create_infer_request();
    for (size_t i = 0; i < model->get_parameters().size(); ++i)
        request.set_input_tensor(i,
                                 random_tensor(model->get_parameters()[i]->get_output_shape(0), 7));
    request.infer();
    std::vector<ProfilingInfo> rows;
    for (const auto& row : request.get_profiling_info())
        if (row.node_type != "Stage") rows.push_back(row);
    return rows;
}

}  // namespace vireo::cpu_test
