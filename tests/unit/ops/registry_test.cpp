// The standard opset table: every op version is registered with the input counts and the IR
// attribute names of the OpenVINO specification (kernels and the IR reader rely on these names).
#include <limits>
#include <set>

#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

struct OpEntry {
    std::string type;
    int version;
    size_t min_inputs, max_inputs;
    std::set<std::string> attributes;
};

constexpr size_t kMany = std::numeric_limits<size_t>::max();
const std::set<std::string> kAutoBroadcast{"auto_broadcast"};
const std::set<std::string> kConv{"strides", "pads_begin", "pads_end", "dilations", "auto_pad"};
const std::set<std::string> kPool{"strides", "pads_begin",    "pads_end",
                                  "kernel",  "rounding_type", "auto_pad"};
const std::set<std::string> kInterpolate{"mode",
                                         "shape_calculation_mode",
                                         "coordinate_transformation_mode",
                                         "nearest_mode",
                                         "antialias",
                                         "pads_begin",
                                         "pads_end",
                                         "cube_coeff"};
const std::set<std::string> kTopK{"axis", "mode", "sort", "index_element_type"};

std::vector<OpEntry> expected_table() {
    std::vector<OpEntry> t;
    for (const char* type : {"Add", "Subtract", "Multiply", "Power", "Maximum", "Minimum",
                             "SquaredDifference", "Equal", "NotEqual", "Less", "LessEqual",
                             "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr"})
        t.push_back({type, 1, 2, 2, kAutoBroadcast});
    t.push_back({"Divide", 1, 2, 2, {"auto_broadcast", "m_pythondiv"}});
    t.push_back({"LogicalNot", 1, 1, 1, {}});
    t.push_back({"Select", 1, 3, 3, kAutoBroadcast});
    t.push_back({"Convert", 1, 1, 1, {"destination_type"}});
    for (const char* type : {"Abs", "Negative", "Exp", "Log", "Sqrt", "Erf", "Floor", "Ceiling",
                             "Relu", "Sigmoid", "Tanh"})
        t.push_back({type, 1, 1, 1, {}});
    t.push_back({"Clamp", 1, 1, 1, {"min", "max"}});
    t.push_back({"Elu", 1, 1, 1, {"alpha"}});
    t.push_back({"Gelu", 2, 1, 1, {}});
    t.push_back({"Gelu", 7, 1, 1, {"approximation_mode"}});
    for (const char* type : {"HSwish", "Mish", "SoftPlus"}) t.push_back({type, 4, 1, 1, {}});
    t.push_back({"Swish", 4, 1, 2, {}});
    t.push_back({"PRelu", 1, 2, 2, {}});
    t.push_back({"Softmax", 1, 1, 1, {"axis"}});
    t.push_back({"Softmax", 8, 1, 1, {"axis"}});
    t.push_back({"LogSoftmax", 5, 1, 1, {"axis"}});
    t.push_back({"MatMul", 1, 2, 2, {"transpose_a", "transpose_b"}});
    t.push_back({"Convolution", 1, 2, 2, kConv});
    t.push_back({"GroupConvolution", 1, 2, 2, kConv});
    auto backprop = kConv;
    backprop.insert("output_padding");
    t.push_back({"ConvolutionBackpropData", 1, 2, 3, backprop});
    t.push_back({"MaxPool", 1, 1, 1, kPool});
    auto pool8 = kPool;
    pool8.insert({"dilations", "index_element_type", "axis"});
    t.push_back({"MaxPool", 8, 1, 1, pool8});
    auto avg = kPool;
    avg.insert("exclude-pad");
    t.push_back({"AvgPool", 1, 1, 1, avg});
    for (const char* type : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"})
        t.push_back({type, 1, 2, 2, {"keep_dims"}});
    t.push_back({"ReduceL2", 4, 2, 2, {"keep_dims"}});
    t.push_back({"Reshape", 1, 2, 2, {"special_zero"}});
    t.push_back({"Transpose", 1, 2, 2, {}});
    t.push_back({"Squeeze", 1, 1, 2, {}});
    t.push_back({"Unsqueeze", 1, 2, 2, {}});
    t.push_back({"Concat", 1, 1, kMany, {"axis"}});
    t.push_back({"Split", 1, 2, 2, {"num_splits"}});
    t.push_back({"VariadicSplit", 1, 3, 3, {}});
    t.push_back({"StridedSlice",
                 1,
                 3,
                 4,
                 {"begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"}});
    t.push_back({"Slice", 8, 4, 5, {}});
    t.push_back({"Gather", 1, 3, 3, {}});
    t.push_back({"Gather", 7, 3, 3, {"batch_dims"}});
    t.push_back({"Gather", 8, 3, 3, {"batch_dims"}});
    t.push_back({"GatherElements", 6, 2, 2, {"axis"}});
    t.push_back({"ScatterUpdate", 3, 4, 4, {}});
    t.push_back({"Broadcast", 1, 2, 3, {"mode"}});
    t.push_back({"Broadcast", 3, 2, 3, {"mode"}});
    t.push_back({"Tile", 1, 2, 2, {}});
    t.push_back({"Pad", 1, 3, 4, {"pad_mode"}});
    t.push_back({"Pad", 12, 3, 4, {"pad_mode"}});
    t.push_back({"ShapeOf", 1, 1, 1, {}});
    t.push_back({"ShapeOf", 3, 1, 1, {"output_type"}});
    t.push_back({"Range", 1, 3, 3, {}});
    t.push_back({"Range", 4, 3, 3, {"output_type"}});
    t.push_back({"Interpolate", 4, 3, 4, kInterpolate});
    auto interpolate11 = kInterpolate;
    interpolate11.insert("exclude_outside");  // Vireo's, from ONNX Resize
    interpolate11.insert(
        "extrapolation_value");  // Vireo's, with the roi input (tf_crop_and_resize)
    t.push_back({"Interpolate", 11, 2, 4, interpolate11});
    t.push_back({"BatchNormInference", 1, 5, 5, {"epsilon"}});
    t.push_back({"BatchNormInference", 5, 5, 5, {"epsilon"}});
    t.push_back(
        {"MVN", 1, 1, 1, {"across_channels", "normalize_variance", "eps", "reduction_axes"}});
    t.push_back({"MVN", 6, 2, 2, {"normalize_variance", "eps", "eps_mode"}});
    t.push_back({"NormalizeL2", 1, 2, 2, {"eps", "eps_mode"}});
    t.push_back({"TopK", 1, 2, 2, kTopK});
    t.push_back({"TopK", 3, 2, 2, kTopK});
    auto topk11 = kTopK;
    topk11.insert("stable");
    t.push_back({"TopK", 11, 2, 2, topk11});
    t.push_back({"FakeQuantize", 1, 5, 5, {"levels", "auto_broadcast"}});
    t.push_back({"ReadValue", 3, 1, 1, {"variable_id"}});
    t.push_back({"ReadValue", 6, 0, 1, {"variable_id", "variable_type", "variable_shape"}});
    t.push_back({"Assign", 3, 1, 1, {"variable_id"}});
    t.push_back({"Assign", 6, 1, 1, {"variable_id"}});
    t.push_back({"Einsum", 7, 1, kMany, {"equation"}});
    t.push_back({"DFT", 7, 2, 3, {}});
    t.push_back({"IDFT", 7, 2, 3, {}});
    t.push_back({"Det", 1, 1, 1, {}});
    t.push_back({"TfIdfVectorizer",
                 1,
                 1,
                 1,
                 {"min_gram_length", "max_gram_length", "max_skip_count", "mode", "ngram_counts",
                  "ngram_indexes", "pool_int64s", "weights"}});
    return t;
}

TEST(OpRegistryTable, EveryOpVersionHasTheSpecifiedInputsAndAttributes) {
    const auto table = expected_table();
    EXPECT_EQ(table.size(), 98u);
    for (const auto& e : table) {
        SCOPED_TRACE(e.type + "-" + std::to_string(e.version));
        const OpDef* def = OpRegistry::instance().find(e.type, e.version);
        ASSERT_NE(def, nullptr);
        EXPECT_EQ(def->min_inputs, e.min_inputs);
        EXPECT_EQ(def->max_inputs, e.max_inputs);
        std::set<std::string> names;
        for (const auto& a : def->attributes) names.insert(a.name);
        EXPECT_EQ(names, e.attributes);
    }
}

TEST(OpRegistryTable, DefaultsFollowTheSpecification) {
    auto default_of = [](const std::string& type, int version, const std::string& attr) {
        const OpDef* def = OpRegistry::instance().find(type, version);
        const AttrSpec* spec = def ? def->find_attribute(attr) : nullptr;
        return spec && spec->default_value ? attr_to_string(*spec->default_value)
                                           : std::string("<required>");
    };
    EXPECT_EQ(default_of("Add", 1, "auto_broadcast"), "numpy");
    EXPECT_EQ(default_of("Divide", 1, "m_pythondiv"), "true");
    EXPECT_EQ(default_of("Convert", 1, "destination_type"), "<required>");
    EXPECT_EQ(default_of("Convolution", 1, "auto_pad"), "explicit");
    EXPECT_EQ(default_of("Convolution", 1, "strides"), "<required>");
    EXPECT_EQ(default_of("MaxPool", 1, "rounding_type"), "floor");
    EXPECT_EQ(default_of("MaxPool", 8, "index_element_type"), "i64");
    EXPECT_EQ(default_of("AvgPool", 1, "exclude-pad"), "<required>");
    EXPECT_EQ(default_of("ReduceMean", 1, "keep_dims"), "false");
    EXPECT_EQ(default_of("Reshape", 1, "special_zero"), "<required>");
    EXPECT_EQ(default_of("Softmax", 1, "axis"), "1");
    EXPECT_EQ(default_of("Gather", 8, "batch_dims"), "0");
    EXPECT_EQ(default_of("Broadcast", 3, "mode"), "numpy");
    EXPECT_EQ(default_of("ShapeOf", 3, "output_type"), "i64");
    EXPECT_EQ(default_of("Range", 4, "output_type"), "<required>");
    EXPECT_EQ(default_of("TopK", 3, "index_element_type"), "i32");
    EXPECT_EQ(default_of("TopK", 11, "stable"), "false");
    EXPECT_EQ(default_of("Interpolate", 11, "coordinate_transformation_mode"), "half_pixel");
    EXPECT_EQ(default_of("Interpolate", 11, "cube_coeff"), "-0.75");
    EXPECT_EQ(default_of("Gelu", 7, "approximation_mode"), "erf");
    EXPECT_EQ(default_of("StridedSlice", 1, "ellipsis_mask"), "");
}

TEST(OpRegistryTable, IrSpellingsAndOpsetsResolve) {
    auto& r = OpRegistry::instance();
    EXPECT_EQ(r.resolve("ReLU", "opset1").type, "Relu");
    EXPECT_EQ(r.resolve("SoftMax", "opset1").type, "Softmax");
    EXPECT_EQ(r.resolve("PReLU", "opset1").type, "PRelu");
    EXPECT_EQ(r.resolve("MaxPool", "opset7").version, 1);
    EXPECT_EQ(r.resolve("MaxPool", "opset8").version, 8);
    EXPECT_EQ(r.resolve("Pad", "opset11").version, 1);
    EXPECT_EQ(r.resolve("Pad", "opset13").version, 12);
    EXPECT_EQ(r.resolve("Interpolate", "opset10").version, 4);
    EXPECT_EQ(r.resolve("TopK", "opset10").version, 3);
    EXPECT_EQ(r.resolve("Gelu", "opset6").version, 2);
    EXPECT_EQ(r.resolve("Softmax", "opset11").version, 8);
    EXPECT_EQ(r.latest("Gather").version, 8);
    try {
        r.resolve("Interpolate", "opset3");
        ADD_FAILURE() << "Interpolate-1 is not defined";
    } catch (const NotFound& e) {
        EXPECT_NE(std::string(e.what()).find("opset4"), std::string::npos) << e.what();
    }
}

TEST(OpRegistryTable, UnknownAttributesAndWrongTypesAreRejected) {
    expect_invalid(
        [] {
            make_node("Relu", {param("2")}, {{"alpha", 1.0}});
        },
        {"Relu '", "unknown attribute 'alpha'"});
    expect_invalid(
        [] {
            make_node("Concat", {param("2")}, {{"axis", std::string("0")}});
        },
        {"Concat '", "'axis'", "integer"});
    expect_invalid([] { make_node("Add", {param("2")}); }, {"Add '", "takes 2 inputs", "got 1"});
}

}  // namespace
}  // namespace vireo::test
