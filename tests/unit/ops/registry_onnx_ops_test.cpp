// The op versions added for the ONNX frontend (RandomUniform-8 for its random ops): input counts,
// IR attribute names and defaults as the OpenVINO specification has them (the ONNX translators
// target exactly these).
#include <set>

#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

struct Entry {
    std::string type;
    int version;
    size_t min_inputs, max_inputs;
    std::map<std::string, std::string> defaults;  // attribute -> default ("<required>" if none)
};

std::vector<Entry> table() {
    std::vector<Entry> t;
    for (const char* type : {"Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Sign", "Sin", "Cos"})
        t.push_back({type, 1, 1, 1, {}});
    for (const char* type : {"Asinh", "Acosh", "Atanh"}) t.push_back({type, 4, 1, 1, {}});
    for (const char* type : {"Mod", "FloorMod", "LogicalXor"})
        t.push_back({type, 1, 2, 2, {{"auto_broadcast", "numpy"}}});
    t.push_back({"HSigmoid", 5, 1, 1, {}});
    t.push_back({"Round", 5, 1, 1, {{"mode", "half_to_even"}}});
    t.push_back({"SoftSign", 9, 1, 1, {}});
    t.push_back({"Selu", 1, 3, 3, {}});
    t.push_back({"IsInf", 10, 1, 1, {{"detect_negative", "true"}, {"detect_positive", "true"}}});
    t.push_back({"IsNaN", 10, 1, 1, {}});
    t.push_back({"IsFinite", 10, 1, 1, {}});
    for (const char* type : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
        t.push_back({type, 13, 2, 2, {{"auto_broadcast", "numpy"}}});
    t.push_back({"BitwiseNot", 13, 1, 1, {}});
    for (const char* type : {"BitwiseLeftShift", "BitwiseRightShift"})
        t.push_back({type, 15, 2, 2, {{"auto_broadcast", "numpy"}}});
    t.push_back({"CumSum", 3, 1, 2, {{"exclusive", "false"}, {"reverse", "false"}}});
    t.push_back({"GatherND", 5, 2, 2, {{"batch_dims", "0"}}});
    t.push_back({"GatherND", 8, 2, 2, {{"batch_dims", "0"}}});
    t.push_back({"ScatterNDUpdate", 3, 3, 3, {}});
    t.push_back({"ScatterNDUpdate", 15, 3, 3, {{"reduction", "none"}}});
    t.push_back({"ScatterElementsUpdate", 3, 4, 4, {}});
    t.push_back(
        {"ScatterElementsUpdate", 12, 4, 4, {{"reduction", "none"}, {"use_init_val", "true"}}});
    t.push_back({"DepthToSpace", 1, 1, 1, {{"block_size", "1"}, {"mode", "<required>"}}});
    t.push_back({"SpaceToDepth", 1, 1, 1, {{"block_size", "1"}, {"mode", "<required>"}}});
    t.push_back({"OneHot", 1, 4, 4, {{"axis", "<required>"}}});
    t.push_back({"NonZero", 3, 1, 1, {{"output_type", "i64"}}});
    t.push_back({"ReverseSequence", 1, 2, 2, {{"batch_axis", "0"}, {"seq_axis", "1"}}});
    t.push_back({"LRN",
                 1,
                 2,
                 2,
                 {{"alpha", "<required>"},
                  {"beta", "<required>"},
                  {"bias", "<required>"},
                  {"size", "<required>"}}});
    t.push_back({"Eye", 9, 3, 4, {{"output_type", "<required>"}}});
    t.push_back(
        {"Unique",
         10,
         1,
         2,
         {{"sorted", "true"}, {"index_element_type", "i64"}, {"count_element_type", "i64"}}});
    t.push_back(
        {"NonMaxSuppression",
         9,
         2,
         6,
         {{"box_encoding", "corner"}, {"sort_result_descending", "true"}, {"output_type", "i64"}}});
    t.push_back({"ROIAlign",
                 9,
                 3,
                 3,
                 {{"pooled_h", "<required>"},
                  {"pooled_w", "<required>"},
                  {"sampling_ratio", "<required>"},
                  {"spatial_scale", "<required>"},
                  {"mode", "<required>"},
                  {"aligned_mode", "asymmetric"}}});
    t.push_back({"GridSample",
                 9,
                 2,
                 2,
                 {{"align_corners", "false"}, {"mode", "bilinear"}, {"padding_mode", "zeros"}}});
    t.push_back({"RandomUniform",
                 8,
                 3,
                 3,
                 {{"output_type", "<required>"}, {"global_seed", "0"}, {"op_seed", "0"}}});
    return t;
}

TEST(OnnxOpsTable, InputsAttributesAndDefaultsFollowTheSpecification) {
    for (const auto& e : table()) {
        SCOPED_TRACE(e.type + "-" + std::to_string(e.version));
        const OpDef* def = OpRegistry::instance().find(e.type, e.version);
        ASSERT_NE(def, nullptr);
        EXPECT_EQ(def->min_inputs, e.min_inputs);
        EXPECT_EQ(def->max_inputs, e.max_inputs);
        std::map<std::string, std::string> defaults;
        for (const auto& a : def->attributes)
            defaults[a.name] =
                a.default_value ? attr_to_string(*a.default_value) : std::string("<required>");
        EXPECT_EQ(defaults, e.defaults);
    }
}

}  // namespace
}  // namespace vireo::test
