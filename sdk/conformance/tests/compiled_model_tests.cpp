// Conformance category "CompiledModel": its ports match the model, requests are independent,
// export/import and the model cache give identical results, the runtime model carries execution
// info, and the standard compiled-model properties answer.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "vireo/conformance/suite.hpp"

namespace vireo::conformance {
namespace {

void expect_ports_match(const OutputVector& compiled, const OutputVector& original,
                        const std::vector<std::string>& names, const char* what) {
    ASSERT_EQ(compiled.size(), original.size()) << what << " count";
    for (size_t i = 0; i < compiled.size(); ++i) {
        SCOPED_TRACE(std::string(what) + " " + std::to_string(i));
        EXPECT_TRUE(compiled[i].get_names().count(names[i]))
            << "tensor name '" << names[i] << "' is missing";
        EXPECT_EQ(compiled[i].get_element_type(), original[i].get_element_type());
        EXPECT_EQ(compiled[i].get_partial_shape(), original[i].get_partial_shape());
    }
}

std::filesystem::path fresh_directory(const std::string& stem) {
    auto dir = std::filesystem::temp_directory_path() / (stem + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace

TEST(CompiledModel, InputsAndOutputsMatchTheModel) {
    std::vector<ReferenceModel> models{elementwise_model(), mlp_model(), cnn_model(),
                                       multi_output_model(), scalar_model()};
    if (has_capability(device::capability::kDynamicShapes)) models.push_back(dynamic_model());
    for (const auto& m : models) {
        SCOPED_TRACE("model " + m.model->get_name());
        const CompiledModel compiled = compile(m.model);
        expect_ports_match(compiled.inputs(), m.model->inputs(), m.input_names, "input");
        expect_ports_match(compiled.outputs(), m.model->outputs(), m.output_names, "output");
        for (size_t i = 0; i < m.input_names.size(); ++i)
            EXPECT_EQ(compiled.input(m.input_names[i]).get_names(),
                      compiled.inputs()[i].get_names());
        for (size_t i = 0; i < m.output_names.size(); ++i)
            EXPECT_EQ(compiled.output(m.output_names[i]).get_names(),
                      compiled.outputs()[i].get_names());
    }
}

TEST(CompiledModel, OriginalModelIsNotChanged) {
    ReferenceModel m = cnn_model();
    const auto ops_before = m.model->get_ordered_ops();
    std::vector<std::string> names_before;
    for (const auto& op : ops_before) names_before.push_back(op->get_friendly_name());
    const CompiledModel compiled = compile(m.model);
    const auto ops_after = m.model->get_ordered_ops();
    ASSERT_EQ(ops_after.size(), ops_before.size());
    for (size_t i = 0; i < ops_after.size(); ++i) {
        EXPECT_EQ(ops_after[i], ops_before[i]);
        EXPECT_EQ(ops_after[i]->get_friendly_name(), names_before[i]);
    }
    EXPECT_EQ(m.model->input().get_partial_shape(), PartialShape(Shape{1, 2, 6, 6}));
}

TEST(CompiledModel, ManyRequestsAreIndependent) {
    ReferenceModel m = elementwise_model();
    const CompiledModel compiled = compile(m.model);
    constexpr uint32_t kRequests = 5;
    std::vector<InferRequest> requests;
    std::vector<std::vector<std::vector<float>>> inputs;
    for (uint32_t i = 0; i < kRequests; ++i) {
        requests.push_back(compiled.create_infer_request());
        inputs.push_back(set_inputs(requests.back(), compiled, 10 * i));
    }
    for (uint32_t i = 0; i < kRequests; ++i) requests[(i * 3) % kRequests].infer();
    for (uint32_t i = 0; i < kRequests; ++i)
        EXPECT_TRUE(outputs_match(requests[i], compiled, m, inputs[i])) << "request " << i;
    // Running one again with new inputs leaves the others' outputs alone.
    const auto again = set_inputs(requests[0], compiled, 999);
    requests[0].infer();
    EXPECT_TRUE(outputs_match(requests[0], compiled, m, again));
    for (uint32_t i = 1; i < kRequests; ++i)
        EXPECT_TRUE(outputs_match(requests[i], compiled, m, inputs[i])) << "request " << i;
}

TEST(CompiledModel, TwoCompiledModelsCoexist) {
    ReferenceModel a = mlp_model(), b = cnn_model();
    const CompiledModel ca = compile(a.model), cb = compile(b.model);
    InferRequest ra = ca.create_infer_request(), rb = cb.create_infer_request();
    const auto ia = set_inputs(ra, ca, 1), ib = set_inputs(rb, cb, 2);
    rb.infer();
    ra.infer();
    EXPECT_TRUE(outputs_match(ra, ca, a, ia));
    EXPECT_TRUE(outputs_match(rb, cb, b, ib));
}

TEST(CompiledModel, ExportImportGivesIdenticalResults) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kExportImport);
    ReferenceModel m = mlp_model();
    const CompiledModel compiled = compile(m.model);
    std::stringstream blob;
    compiled.export_model(blob);
    ASSERT_GT(blob.str().size(), 0u);
    const CompiledModel imported = core().import_model(blob, device_name());
    expect_ports_match(imported.inputs(), m.model->inputs(), m.input_names, "input");
    expect_ports_match(imported.outputs(), m.model->outputs(), m.output_names, "output");
    InferRequest original = compiled.create_infer_request(), copy = imported.create_infer_request();
    const auto inputs = set_inputs(original, compiled, 4);
    set_inputs(copy, imported, 4);
    original.infer();
    copy.infer();
    EXPECT_TRUE(outputs_match(copy, imported, m, inputs));
    EXPECT_EQ(get_outputs(copy, imported), get_outputs(original, compiled))
        << "imported results differ bitwise";
}

TEST(CompiledModel, ImportRejectsAForeignBlob) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kExportImport);
    std::stringstream blob("this is not a compiled model blob, not even close");
    EXPECT_THROW(core().import_model(blob, device_name()), Exception);
}

TEST(CompiledModel, RuntimeModelHasExecutionInfo) {
    ReferenceModel m = mlp_model();
    const CompiledModel compiled = compile(m.model);
    InferRequest request = compiled.create_infer_request();
    set_inputs(request, compiled, 1);
    request.infer();
    const auto runtime = compiled.get_runtime_model();
    ASSERT_NE(runtime, nullptr);
    const auto ops = runtime->get_ordered_ops();
    ASSERT_FALSE(ops.empty());
    EXPECT_EQ(runtime->inputs().size(), 1u);
    EXPECT_EQ(runtime->outputs().size(), 1u);
    for (const auto& op : ops) {
        const auto& rt = op->get_rt_info();
        EXPECT_TRUE(rt.count("layerType"))
            << op->get_friendly_name() << " has no rt_info layerType";
        EXPECT_TRUE(rt.count("execOrder"))
            << op->get_friendly_name() << " has no rt_info execOrder";
    }
}

TEST(CompiledModel, StandardProperties) {
    ReferenceModel m = mlp_model();
    const CompiledModel compiled = compile(m.model);
    EXPECT_GE(compiled.get_property(optimal_number_of_infer_requests), 1u);
    EXPECT_EQ(compiled.get_property(model_name), m.model->get_name());
    const auto devices = compiled.get_property(execution_devices);
    ASSERT_FALSE(devices.empty()) << "EXECUTION_DEVICES is empty";
    // A plain device runs on itself; a meta-device ("HETERO:A,B") on the devices it lists.
    std::vector<std::string> allowed{device_base_name()};
    for (const auto& listed : listed_devices())
        allowed.push_back(listed.substr(0, listed.find('.')));
    for (const auto& d : devices)
        EXPECT_NE(std::find(allowed.begin(), allowed.end(), d.substr(0, d.find('.'))),
                  allowed.end())
            << "EXECUTION_DEVICES lists " << d;
    EXPECT_FALSE(compiled.get_property(loaded_from_cache));
    for (const auto& key : compiled.get_property(supported_properties)) {
        try {
            compiled.get_property(key);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "listed compiled-model property " << key
                          << " does not answer: " << e.what();
        }
    }
}

TEST(CompiledModel, CompileFromCache) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kExportImport);
    const auto dir = fresh_directory("vireo_conformance_cache");
    ReferenceModel m = cnn_model();
    std::vector<std::vector<float>> first_out;
    {
        Core c = make_core();
        c.set_property({cache_dir(dir.string())});
        const CompiledModel first = c.compile_model(m.model, device_name());
        EXPECT_FALSE(first.get_property(loaded_from_cache));
        const CompiledModel second = c.compile_model(m.model, device_name());
        EXPECT_TRUE(second.get_property(loaded_from_cache))
            << "the second compile did not come from the cache";
        InferRequest a = first.create_infer_request(), b = second.create_infer_request();
        const auto inputs = set_inputs(a, first, 6);
        set_inputs(b, second, 6);
        a.infer();
        b.infer();
        EXPECT_TRUE(outputs_match(b, second, m, inputs));
        EXPECT_EQ(get_outputs(b, second), get_outputs(a, first))
            << "results from the cache differ bitwise";
    }
    std::filesystem::remove_all(dir);
}

}  // namespace vireo::conformance
