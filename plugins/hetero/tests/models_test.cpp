// Real IR files through HETERO: every static model of tests/data/models on HETERO:PARTIAL,TEMPLATE
// and HETERO:MOCK_REMOTE.1,TEMPLATE gives TEMPLATE's values (TEMPLATE being the oracle).
#include <algorithm>
#include <cstring>
#include <filesystem>

#include "test_utils.hpp"

namespace {
using namespace vireo;
using namespace hetero_test;

std::vector<std::string> static_models() {
    std::vector<std::string> out;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(VIREO_TEST_MODELS_DIR))
        if (entry.path().extension() == ".xml") out.push_back(entry.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

void fill(Tensor& t, size_t seed) {
    const size_t n = t.get_size();
    if (t.get_element_type() == element::f32) {
        float* p = t.data<float>();
        for (size_t i = 0; i < n; ++i)
            p[i] = static_cast<float>((i * 7 + seed * 13) % 17) / 8.f - 1.f;
    } else {
        auto* p = static_cast<uint8_t*>(t.data());
        for (size_t i = 0; i < t.get_byte_size(); ++i)
            p[i] = static_cast<uint8_t>((i * 5 + seed) % 7);
    }
}

TEST(HeteroModels, IrFilesMatchTemplate) {
    Core core = make_core();
    size_t checked = 0;
    for (const std::string& path : static_models()) {
        SCOPED_TRACE(path);
        auto model = core.read_model(path);
        bool is_static = true;
        for (const auto& in : model->inputs())
            is_static = is_static && in.get_partial_shape().is_static();
        if (!is_static) continue;
        InferRequest oracle = core.compile_model(model, "TEMPLATE").create_infer_request();
        std::vector<Tensor> inputs;
        for (size_t i = 0; i < model->inputs().size(); ++i) {
            Tensor t(model->input(i).get_element_type(), model->input(i).get_shape());
            fill(t, i);
            inputs.push_back(t);
            oracle.set_input_tensor(i, t);
        }
        oracle.infer();
        for (const std::string device :
             {"HETERO:PARTIAL,TEMPLATE", "HETERO:MOCK_REMOTE.1,TEMPLATE"}) {
            SCOPED_TRACE(device);
            InferRequest request = core.compile_model(model, device).create_infer_request();
            for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
            request.infer();
            for (size_t o = 0; o < model->outputs().size(); ++o) {
                const Tensor expected = oracle.get_output_tensor(o);
                const Tensor actual = request.get_output_tensor(o);
                ASSERT_EQ(actual.get_shape(), expected.get_shape());
                ASSERT_EQ(actual.get_element_type(), expected.get_element_type());
                if (expected.get_element_type() == element::f32) {
                    expect_near(values_of(actual), values_of(expected));
                } else {
                    EXPECT_EQ(
                        0, std::memcmp(actual.data(), expected.data(), expected.get_byte_size()));
                }
            }
        }
        ++checked;
    }
    EXPECT_GE(checked, 5u);  // golden cnn, mlp, tiny and the static OpenVINO IR files
}

}  // namespace
