// Tests that a port's layout survives serialization: the IR writes it as OpenVINO does
// (<rt_info><attribute name="layout" .../> in the output port) and reads it back, so a model from
// the cache keeps the batch axis that set_tensors() reads from the layout.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "preprocess_test_utils.hpp"
#include "vireo/ir.hpp"
#include "vireo/ops.hpp"
#include "vireo/preprocess.hpp"
#include "vireo/properties.hpp"

namespace vireo::preprocess_test {
namespace {

std::shared_ptr<Model> round_trip(const Model& model, std::string* xml_text = nullptr) {
    std::ostringstream xml, bin;
    serialize(model, xml, bin);
    const std::string bytes = bin.str();
    Tensor weights(element::u8, Shape{bytes.size()});
    std::copy(bytes.begin(), bytes.end(), static_cast<char*>(weights.data()));
    if (xml_text) *xml_text = xml.str();
    return read_model_from_string(xml.str(), weights);
}

TEST(LayoutPersistence, PrePostProcessorLayoutsSurviveTheIr) {
    auto x = op::parameter(element::f32, PartialShape({1, 3, 2, 2}), "x");
    auto y = op::relu(x);
    y->output(0).set_names({"y"});
    PrePostProcessor ppp(std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "m"));
    ppp.input().tensor().set_element_type(element::u8).set_layout("NHWC");
    ppp.input().model().set_layout("NCHW");
    ppp.output().model().set_layout("NCHW");
    ppp.output().tensor().set_layout("NHWC");
    std::string xml;
    auto back = round_trip(*ppp.build(), &xml);
    EXPECT_NE(xml.find("<attribute name=\"layout\" version=\"0\" layout=\"NHWC\"/>"),
              std::string::npos)
        << xml;
    EXPECT_EQ(back->input("x").get_rt_info().at("layout").as<std::string>(), "NHWC");
    EXPECT_EQ(back->output("y").get_rt_info().at("layout").as<std::string>(), "NHWC");
    EXPECT_EQ(back->input("x").get_element_type(), element::u8);
}

TEST(LayoutPersistence, OpenVinoBracketFormIsRead) {
    auto x = op::parameter(element::f32, PartialShape({2, 3}), "x");
    x->output(0).get_rt_info()["layout"] = std::string("[N,C]");
    auto model = std::make_shared<Model>(OutputVector{op::relu(x)}, ParameterVector{x}, "m");
    auto back = round_trip(*model);
    EXPECT_EQ(Layout(back->input().get_rt_info().at("layout").as<std::string>()), Layout("NC"));
}

class LayoutPersistenceOnDevice : public ::testing::TestWithParam<std::string> {};

TEST_P(LayoutPersistenceOnDevice, BatchAxisFromTheLayoutAfterTheCache) {
    // Input [3, 4] with layout "CN": the batch is axis 1, also when compiled from the cache.
    auto x = op::parameter(element::f32, PartialShape({3, 4}), "x");
    x->output(0).get_rt_info()["layout"] = std::string("CN");
    auto y = op::multiply(x, op::constant<float>(element::f32, {1}, {2.f}));
    y->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "cn");
    const auto dir = std::filesystem::temp_directory_path() /
                     ("vireo_layout_cache_" + GetParam() + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    Core core = make_core();
    AnyMap config = device_config(GetParam());
    config[cache_dir.name()] = dir.string();
    for (int round = 0; round < 2; ++round) {
        CompiledModel compiled = core.compile_model(model, GetParam(), config);
        EXPECT_EQ(compiled.get_property(loaded_from_cache), round == 1);
        InferRequest request = compiled.create_infer_request();
        std::vector<Tensor> items;
        for (int k = 0; k < 4; ++k)
            items.push_back(make_tensor<float>(element::f32, {3, 1},
                                               std::vector<float>{1.f + k, 10.f + k, 100.f + k}));
        request.set_tensors("x", items);
        request.infer();
        std::vector<float> expected;
        for (float base : {1.f, 10.f, 100.f})
            for (int k = 0; k < 4; ++k) expected.push_back(2.f * (base + static_cast<float>(k)));
        EXPECT_EQ(to_vector(request.get_tensor("y")), expected) << "round " << round;
    }
    std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Devices, LayoutPersistenceOnDevice, ::testing::ValuesIn(devices()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace vireo::preprocess_test
