// Profiling rows (stages always, per-op with PERF_COUNT) and the runtime model's rt_info.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ir.hpp"

namespace vireo::template_test {
namespace {

const std::vector<std::string> kStages{kStageInputPreprocessing, kStageInputTransfer,
                                       kStageExecution, kStageOutputTransfer,
                                       kStageOutputPostprocessing};

CompiledModel compile_cnn(Core& core, bool profiling) {
    return core.compile_model(data_dir() + "/models/golden/cnn/model.xml", "TEMPLATE",
                              {enable_profiling(profiling)});
}

size_t compute_ops(const Model& model) {
    size_t n = 0;
    for (const auto& node : model.get_ordered_ops()) {
        const auto& t = node->get_type_name();
        n += t != "Parameter" && t != "Constant" && t != "Result";
    }
    return n;
}

TEST(TemplateProfiling, WithoutProfilingOnlyTheStageRows) {
    Core core = make_core();
    CompiledModel compiled = compile_cnn(core, false);
    InferRequest request = compiled.create_infer_request();
    request.infer();
    const auto rows = request.get_profiling_info();
    ASSERT_EQ(rows.size(), kStages.size());
    for (size_t i = 0; i < kStages.size(); ++i) {
        EXPECT_EQ(rows[i].node_name, kStages[i]);
        EXPECT_EQ(rows[i].node_type, "Stage");
    }
    EXPECT_EQ(rows[0].status, ProfilingInfo::Status::EXECUTED);
    EXPECT_EQ(rows[2].status, ProfilingInfo::Status::EXECUTED);
    EXPECT_EQ(rows[4].status, ProfilingInfo::Status::EXECUTED);
    EXPECT_EQ(rows[1].real_time.count(), 0);
    EXPECT_EQ(rows[3].real_time.count(), 0);
}

TEST(TemplateProfiling, WithProfilingOneRowPerExecutedOp) {
    Core core = make_core();
    CompiledModel compiled = compile_cnn(core, true);
    InferRequest request = compiled.create_infer_request();
    request.infer();
    const auto rows = request.get_profiling_info();
    const auto runtime = compiled.get_runtime_model();
    const size_t ops = compute_ops(*runtime);
    ASSERT_EQ(rows.size(), kStages.size() + ops);
    std::set<std::string> names;
    for (const auto& node : runtime->get_ordered_ops()) names.insert(node->get_friendly_name());
    for (size_t i = kStages.size(); i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].status, ProfilingInfo::Status::EXECUTED) << rows[i].node_name;
        EXPECT_EQ(rows[i].exec_type, "ref");
        EXPECT_TRUE(names.count(rows[i].node_name)) << rows[i].node_name;
        EXPECT_GE(rows[i].real_time.count(), 0);
    }
    // The convolutions are in there, by type.
    size_t convolutions = 0;
    for (const auto& row : rows) convolutions += row.node_type == "Convolution";
    EXPECT_EQ(convolutions, 2u);
}

TEST(TemplateProfiling, CanBeSwitchedOnAfterCompilation) {
    Core core = make_core();
    CompiledModel compiled = compile_cnn(core, false);
    compiled.set_property({enable_profiling(true)});
    EXPECT_TRUE(compiled.get_property(enable_profiling));
    InferRequest request = compiled.create_infer_request();
    request.infer();
    EXPECT_GT(request.get_profiling_info().size(), kStages.size());
}

TEST(TemplateRuntimeModel, NodesCarryExecutionInfo) {
    Core core = make_core();
    CompiledModel compiled = compile_cnn(core, true);
    const auto before = compiled.get_runtime_model();
    for (const auto& node : before->get_ordered_ops())
        EXPECT_EQ(node->get_rt_info().at("execTimeMcs").as<std::string>(), "not_executed");
    InferRequest request = compiled.create_infer_request();
    request.infer();
    request.infer();
    const auto runtime = compiled.get_runtime_model();
    std::set<int64_t> orders;
    for (const auto& node : runtime->get_ordered_ops()) {
        const auto& info = node->get_rt_info();
        EXPECT_EQ(info.at("layerType").as<std::string>(), node->get_type_name());
        EXPECT_EQ(info.at("primitiveType").as<std::string>(), "ref");
        EXPECT_FALSE(info.at("originalLayersNames").as<std::string>().empty());
        orders.insert(info.at("execOrder").as<int64_t>());
        const auto& type = node->get_type_name();
        const std::string time = info.at("execTimeMcs").as<std::string>();
        if (type == "Parameter" || type == "Constant" || type == "Result") {
            EXPECT_EQ(time, "not_executed") << node->describe();
        } else {
            EXPECT_GE(std::stod(time), 0.0) << node->describe();
        }
    }
    EXPECT_EQ(orders.size(), runtime->get_ordered_ops().size());  // distinct orders
    // The runtime model is a copy: its inputs keep the compiled model's names.
    EXPECT_EQ(runtime->input(0).get_names(), compiled.input(0).get_names());
}

}  // namespace
}  // namespace vireo::template_test
