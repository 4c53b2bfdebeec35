// Tests PrePostProcessor::build() on the graph: which ops are inserted and in what order, the new
// inputs' and outputs' types, shapes, names and layouts, the original model left unchanged, and
// every error naming the input or output and the step.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "vireo/exception.hpp"
#include "vireo/ops.hpp"
#include "vireo/preprocess.hpp"

namespace vireo {
namespace {

// y = x * 2 over f32 [1, 3, 2, 2] (NCHW), input "x", output "y".
std::shared_ptr<Model> image_model(element::Type type = element::f32,
                                   const Shape& shape = {1, 3, 2, 2}) {
    auto x = op::parameter(type, PartialShape(shape), "x");
    auto y = op::multiply(x, op::constant<float>(type, {1}, {2.f}));
    y->set_friendly_name("times_two");
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "image");
}

// Op types from the input's Parameter down the single chain to the first op of the original
// graph (the Multiply), in order.
std::vector<std::string> chain_from_input(const Model& model) {
    std::map<const Node*, const Node*> consumer;
    for (const auto& node : model.get_ordered_ops())
        for (const auto& in : node->input_values()) consumer[in.get_node()] = node.get();
    std::vector<std::string> types;
    for (const Node* n = model.get_parameters()[0].get(); n;
         n = consumer.count(n) ? consumer[n] : nullptr) {
        types.push_back(n->get_type_name());
        if (n->get_type_name() == "Multiply") break;
    }
    return types;
}

std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const Exception& e) {
        return e.what();
    }
    return "no error";
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST(PrePostProcessorGraph, InsertsConvertMeanScaleResizeTransposeInOrder) {
    auto model = image_model();
    PrePostProcessor ppp(model);
    ppp.input("x")
        .tensor()
        .set_element_type(element::u8)
        .set_layout("NHWC")
        .set_spatial_static_shape(4, 6);
    ppp.input("x")
        .preprocess()
        .convert_element_type(element::f32)
        .mean({1.f, 2.f, 3.f})
        .scale(2.f)
        .resize(ResizeAlgorithm::kLinear);
    ppp.input("x").model().set_layout("NCHW");
    auto built = ppp.build();

    EXPECT_EQ(chain_from_input(*built),
              (std::vector<std::string>{"Parameter", "Convert", "Subtract", "Divide", "Interpolate",
                                        "Transpose", "Multiply"}));
    const Output in = built->input("x");  // the name is kept
    EXPECT_EQ(in.get_element_type(), element::u8);
    EXPECT_EQ(in.get_partial_shape(), PartialShape({1, 4, 6, 3}));
    EXPECT_EQ(in.get_node()->get_friendly_name(), "x");
    EXPECT_EQ(in.get_rt_info().at("layout").as<std::string>(), "NHWC");
    EXPECT_EQ(built->output("y").get_element_type(), element::f32);
    EXPECT_EQ(built->get_name(), "image");
    // The caller's model is unchanged.
    EXPECT_EQ(model->input("x").get_element_type(), element::f32);
    EXPECT_EQ(model->input("x").get_partial_shape(), PartialShape({1, 3, 2, 2}));
    EXPECT_EQ(chain_from_input(*model), (std::vector<std::string>{"Parameter", "Multiply"}));
}

TEST(PrePostProcessorGraph, WorkedExampleOfTheDocs) {
    PrePostProcessor ppp(image_model());
    auto& in = ppp.input("x");
    in.tensor().set_element_type(element::u8).set_layout("NHWC");
    in.preprocess().convert_element_type(element::f32).mean({123.7f, 116.3f, 103.5f}).scale(58.4f);
    in.model().set_layout("NCHW");
    auto built = ppp.build();
    EXPECT_EQ(chain_from_input(*built),
              (std::vector<std::string>{"Parameter", "Convert", "Subtract", "Divide", "Transpose",
                                        "Multiply"}));
    EXPECT_EQ(built->input("x").get_partial_shape(), PartialShape({1, 2, 2, 3}));
    for (const auto& node : built->get_ordered_ops()) {
        if (node->get_type_name() == "Transpose") {
            const Tensor& order = node->input_value(1).get_node()->get_constant_value();
            const int64_t* p = order.data<int64_t>();
            EXPECT_EQ(std::vector<int64_t>(p, p + order.get_size()),
                      (std::vector<int64_t>{0, 3, 1, 2}));
        }
        if (node->get_type_name() == "Subtract") {
            EXPECT_EQ(node->input_value(1).get_partial_shape(), PartialShape({1, 1, 1, 3}));
        }
        if (node->get_type_name() == "Divide") {
            EXPECT_EQ(node->input_value(1).get_partial_shape(), PartialShape(Shape{}));
        }
    }
}

TEST(PrePostProcessorGraph, ImplicitConvertAndTransposeWithoutSteps) {
    PrePostProcessor ppp(image_model());
    ppp.input().tensor().set_element_type(element::u8).set_layout("NHWC");
    ppp.input().model().set_layout("NCHW");
    auto built = ppp.build();
    EXPECT_EQ(chain_from_input(*built),
              (std::vector<std::string>{"Parameter", "Convert", "Transpose", "Multiply"}));
    // The tensor's shape is the model's, dimension by dimension in the tensor's layout.
    EXPECT_EQ(built->input().get_partial_shape(), PartialShape({1, 2, 2, 3}));
}

TEST(PrePostProcessorGraph, ModelLayoutFromRtInfo) {
    auto model = image_model();
    model->input().get_rt_info()["layout"] = std::string("NCHW");
    PrePostProcessor ppp(model);
    ppp.input().tensor().set_layout("NHWC");
    auto built = ppp.build();
    EXPECT_EQ(chain_from_input(*built),
              (std::vector<std::string>{"Parameter", "Transpose", "Multiply"}));
}

TEST(PrePostProcessorGraph, ReverseChannelsIsAGatherOnTheChannelAxis) {
    PrePostProcessor ppp(image_model());
    ppp.input().tensor().set_layout("NCHW");
    ppp.input().preprocess().reverse_channels();
    auto built = ppp.build();
    EXPECT_EQ(chain_from_input(*built),
              (std::vector<std::string>{"Parameter", "Gather", "Multiply"}));
}

TEST(PrePostProcessorGraph, NothingRecordedKeepsTheGraph) {
    PrePostProcessor ppp(image_model());
    ppp.input().model().set_layout("NCHW");
    auto built = ppp.build();
    EXPECT_EQ(chain_from_input(*built), (std::vector<std::string>{"Parameter", "Multiply"}));
    EXPECT_EQ(built->input().get_rt_info().at("layout").as<std::string>(), "NCHW");
}

TEST(PrePostProcessorGraph, OutputConvertAndLayoutKeepNames) {
    PrePostProcessor ppp(image_model());
    ppp.output("y").model().set_layout("NCHW");
    ppp.output("y").tensor().set_element_type(element::f16).set_layout("NHWC");
    auto built = ppp.build();
    const Output y = built->output("y");
    EXPECT_EQ(y.get_element_type(), element::f16);
    EXPECT_EQ(y.get_partial_shape(), PartialShape({1, 2, 2, 3}));
    EXPECT_EQ(y.get_rt_info().at("layout").as<std::string>(), "NHWC");
    const Node* producer = built->get_results()[0]->input_value(0).get_node();
    EXPECT_EQ(producer->get_type_name(), "Transpose");
    EXPECT_EQ(producer->input_value(0).get_node()->get_type_name(), "Convert");
    EXPECT_EQ(built->get_results().size(), 1u);
}

TEST(PrePostProcessorGraph, F32TensorIntoF16Model) {
    PrePostProcessor ppp(image_model(element::f16));
    ppp.input().tensor().set_element_type(element::f32);
    ppp.output().tensor().set_element_type(element::f32);
    auto built = ppp.build();
    EXPECT_EQ(built->input().get_element_type(), element::f32);
    EXPECT_EQ(built->output().get_element_type(), element::f32);
    EXPECT_EQ(chain_from_input(*built),
              (std::vector<std::string>{"Parameter", "Convert", "Multiply"}));
}

TEST(PrePostProcessorGraph, SeveralInputsByIndexAndName) {
    auto a = op::parameter(element::f32, PartialShape({2, 3}), "a");
    auto b = op::parameter(element::f32, PartialShape({2, 3}), "b");
    auto y = op::add(a, b);
    y->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{a, b}, "two");
    PrePostProcessor ppp(model);
    EXPECT_EQ(&ppp.input(1), &ppp.input("b"));
    ppp.input(1).tensor().set_element_type(element::i32);
    auto built = ppp.build();
    ASSERT_EQ(built->get_parameters().size(), 2u);
    EXPECT_EQ(built->input(0).get_element_type(), element::f32);
    EXPECT_EQ(built->input(1).get_element_type(), element::i32);
    EXPECT_EQ(built->input(1).get_names(), std::set<std::string>{"b"});
    std::string message = error_of([&] { ppp.input(); });
    EXPECT_CONTAINS(message, "needs a model with one input");
    EXPECT_THROW(ppp.input("nope"), NotFound);
    EXPECT_THROW(ppp.input(2), NotFound);
    EXPECT_THROW(ppp.output(1), NotFound);
    EXPECT_CONTAINS(error_of([&] { ppp.input("nope"); }), "no input named 'nope' (inputs: a, b)");
}

TEST(PrePostProcessorGraph, CustomStep) {
    PrePostProcessor ppp(image_model());
    ppp.input().preprocess().custom([](const Output& x) -> Output { return op::relu(x); });
    auto built = ppp.build();
    EXPECT_EQ(chain_from_input(*built),
              (std::vector<std::string>{"Parameter", "Relu", "Multiply"}));
}

TEST(PrePostProcessorGraph, DynamicBatchIsCarriedToTheTensorShape) {
    auto x = op::parameter(element::f32, PartialShape({Dimension(), 3, 2, 2}), "x");
    auto y = op::relu(x);
    y->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "dynamic");
    PrePostProcessor ppp(model);
    ppp.input()
        .tensor()
        .set_element_type(element::u8)
        .set_layout("NHWC")
        .set_spatial_static_shape(8, 4);
    ppp.input().preprocess().convert_element_type().resize(ResizeAlgorithm::kNearest);
    ppp.input().model().set_layout("NCHW");
    auto built = ppp.build();
    EXPECT_EQ(built->input().get_partial_shape(), PartialShape({Dimension(), 8, 4, 3}));
    EXPECT_EQ(built->output().get_partial_shape(), PartialShape({Dimension(), 3, 2, 2}));
}

TEST(PrePostProcessorGraph, SetShapeAndBuildingTwice) {
    PrePostProcessor ppp(image_model());
    ppp.input().tensor().set_shape(PartialShape({1, 3, 4, 4})).set_layout("NCHW");
    ppp.input().preprocess().resize(ResizeAlgorithm::kLinear, 2, 2);
    auto first = ppp.build();
    EXPECT_EQ(first->input().get_partial_shape(), PartialShape({1, 3, 4, 4}));
    // More steps, built again from the original model: one Interpolate and one Relu, not two.
    ppp.input().preprocess().custom([](const Output& v) -> Output { return op::relu(v); });
    auto second = ppp.build();
    EXPECT_EQ(chain_from_input(*second),
              (std::vector<std::string>{"Parameter", "Interpolate", "Relu", "Multiply"}));
    EXPECT_EQ(chain_from_input(*first),
              (std::vector<std::string>{"Parameter", "Interpolate", "Multiply"}));
}

TEST(PrePostProcessorErrors, ResizeWithoutSpatialLayout) {
    PrePostProcessor ppp(image_model());
    ppp.input().tensor().set_shape(PartialShape({1, 3, 4, 4}));
    ppp.input().preprocess().resize(ResizeAlgorithm::kLinear, 2, 2);
    const std::string message = error_of([&] { ppp.build(); });
    EXPECT_CONTAINS(message, "input 'x'");
    EXPECT_CONTAINS(message, "resize: the layout '' has no 'H' dimension");
}

TEST(PrePostProcessorErrors, ResizeToTheModelNeedsItsLayout) {
    PrePostProcessor ppp(image_model());
    ppp.input().tensor().set_layout("NCHW").set_shape(PartialShape({1, 3, 4, 4}));
    ppp.input().preprocess().resize(ResizeAlgorithm::kNearest);
    const std::string message = error_of([&] { ppp.build(); });
    EXPECT_CONTAINS(message, "input 'x': resize: the model's layout '' does not give H and W");
}

TEST(PrePostProcessorErrors, MeanOnIntegerData) {
    PrePostProcessor ppp(image_model());
    ppp.input().tensor().set_element_type(element::u8);
    ppp.input().preprocess().mean(3.f);
    EXPECT_CONTAINS(error_of([&] { ppp.build(); }),
                    "input 'x': mean: the data is u8, not floating-point");
}

TEST(PrePostProcessorErrors, PerChannelValuesNeedChannelsAndTheRightCount) {
    {
        PrePostProcessor ppp(image_model());
        ppp.input().preprocess().scale({1.f, 2.f, 3.f});
        EXPECT_CONTAINS(error_of([&] { ppp.build(); }),
                        "input 'x': scale with 3 values: the layout '' has no 'C'");
    }
    {
        PrePostProcessor ppp(image_model());
        ppp.input().tensor().set_layout("NCHW");
        ppp.input().preprocess().mean({1.f, 2.f});
        EXPECT_CONTAINS(error_of([&] { ppp.build(); }),
                        "input 'x': mean: 2 values given but the data [1,3,2,2] has 3");
    }
    {
        PrePostProcessor ppp(image_model());
        ppp.input().preprocess().scale(0.f);
        EXPECT_CONTAINS(error_of([&] { ppp.build(); }), "input 'x': scale: a scale of 0");
    }
}

TEST(PrePostProcessorErrors, SpatialShapeNeedsHeightAndWidth) {
    PrePostProcessor ppp(image_model());
    ppp.input().tensor().set_layout("NC?\?").set_spatial_static_shape(4, 4);
    EXPECT_CONTAINS(
        error_of([&] { ppp.build(); }),
        "input 'x': set_spatial_static_shape: the tensor layout 'NC?\?' has no H and W");
}

TEST(PrePostProcessorErrors, SpatialSizeWithoutResize) {
    PrePostProcessor ppp(image_model());
    ppp.input().tensor().set_layout("NCHW").set_spatial_static_shape(4, 4);
    const std::string message = error_of([&] { ppp.build(); });
    EXPECT_CONTAINS(
        message,
        "input 'x': after preprocessing the data is [1,3,4,4] but the model expects [1,3,2,2]");
    EXPECT_CONTAINS(message, "add preprocess().resize()");
}

TEST(PrePostProcessorErrors, ConvertLayoutNeedsNamedDimensions) {
    PrePostProcessor ppp(image_model());
    ppp.input().tensor().set_layout("?C?\?");
    ppp.input().preprocess().convert_layout("NCHW");
    EXPECT_CONTAINS(error_of([&] { ppp.build(); }),
                    "input 'x': convert_layout from '?C?\?' to 'NCHW': dimension 'N' of the target "
                    "is not named");
    PrePostProcessor unknown(image_model());
    unknown.input().preprocess().convert_layout("NHWC");
    EXPECT_CONTAINS(error_of([&] { unknown.build(); }),
                    "input 'x': convert_layout: the current layout is unknown");
}

TEST(PrePostProcessorErrors, ReverseChannelsNeedsChannels) {
    PrePostProcessor ppp(image_model());
    ppp.input().tensor().set_layout("N...");
    ppp.input().preprocess().reverse_channels();
    EXPECT_CONTAINS(error_of([&] { ppp.build(); }),
                    "input 'x': reverse_channels: the layout 'N...' has no 'C'");
}

TEST(PrePostProcessorErrors, OutputLayoutNeedsTheModelsLayout) {
    PrePostProcessor ppp(image_model());
    ppp.output().tensor().set_layout("NHWC");
    EXPECT_CONTAINS(
        error_of([&] { ppp.build(); }),
        "output 'y': tensor().set_layout('NHWC'): the model's output layout is unknown");
}

TEST(PrePostProcessorErrors, AFailedBuildLeavesTheModelUsable) {
    auto model = image_model();
    PrePostProcessor ppp(model);
    ppp.input().preprocess().reverse_channels();
    EXPECT_THROW(ppp.build(), InvalidArgument);
    EXPECT_EQ(chain_from_input(*model), (std::vector<std::string>{"Parameter", "Multiply"}));
    EXPECT_NO_THROW(model->validate());
    EXPECT_THROW(PrePostProcessor(nullptr), InvalidArgument);
}

}  // namespace
}  // namespace vireo
