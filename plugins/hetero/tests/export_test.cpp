// HETERO export/import: the split model round-trips (parts, devices, values, state), a device
// that cannot export is named, damaged blobs are refused, and the model cache stores HETERO whole.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "test_utils.hpp"
#include "vireo/hetero/properties.hpp"

namespace {
using namespace vireo;
using namespace hetero_test;

NodePtr named(NodePtr node, const std::string& name) {
    node->set_friendly_name(name);
    return node;
}

// x -> sigmoid [TEMPLATE] -> multiply [MOCK_REMOTE.0] -> relu [TEMPLATE], by manual affinity.
std::shared_ptr<Model> three_parts() {
    auto x = op::parameter(element::f32, {2, 3}, "x");
    auto s = named(op::sigmoid(x), "s");
    auto m = named(op::multiply(s, op::constant<float>(element::f32, {1}, {3.f})), "m");
    auto r = named(op::relu(m), "r");
    s->get_rt_info()["affinity"] = "TEMPLATE";
    m->get_rt_info()["affinity"] = "MOCK_REMOTE.0";
    r->get_rt_info()["affinity"] = "TEMPLATE";
    return std::make_shared<Model>(OutputVector{r, x}, ParameterVector{x}, "three");
}

std::vector<float> run(const CompiledModel& compiled, const Tensor& x) {
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(x);
    request.infer();
    return values_of(request.get_output_tensor(0));
}

TEST(HeteroExport, RoundTripKeepsPartsDevicesAndValues) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(three_parts(), "HETERO:MOCK_REMOTE.0,TEMPLATE");
    std::stringstream blob;
    compiled.export_model(blob);
    CompiledModel imported = core.import_model(blob, "HETERO");
    EXPECT_EQ(imported.get_property(vireo::hetero::number_of_submodels), 3u);
    EXPECT_EQ(imported.get_property(execution_devices), compiled.get_property(execution_devices));
    EXPECT_EQ(imported.get_property(device::priorities), "MOCK_REMOTE.0,TEMPLATE");
    ASSERT_EQ(imported.outputs().size(), 2u);
    const Tensor x = make_input({2, 3}, -1.f, 0.4f);
    std::vector<float> expected;
    for (float v : values_of(x)) expected.push_back(3.f * sigmoid(v));
    expect_near(run(imported, x), expected);
    expect_near(run(compiled, x), expected);
    // The runtime model still names the device of every op.
    for (const auto& node : imported.get_runtime_model()->get_ordered_ops()) {
        if (node->get_friendly_name() == "m") {
            EXPECT_EQ(node->get_rt_info().at("execution_device").to_string(), "MOCK_REMOTE.0");
        }
    }
}

TEST(HeteroExport, StatefulModelRoundTrips) {
    Core core = make_core();
    auto x = op::parameter(element::f32, {3}, "x");
    auto read = op::read_value("acc", element::f32, PartialShape{3});
    auto sum = op::add(read, x);
    auto write = op::assign(sum, "acc");
    auto model =
        Model::make({op::result(op::multiply(sum, op::constant<float>(element::f32, {1}, {2.f})))},
                    {write}, {x}, "summator");
    CompiledModel compiled = core.compile_model(model, "HETERO:MOCK_REMOTE.1,TEMPLATE");
    std::stringstream blob;
    compiled.export_model(blob);
    InferRequest request = core.import_model(blob, "HETERO").create_infer_request();
    request.set_input_tensor(make_input({3}, 1.f, 1.f));
    request.infer();
    request.infer();
    expect_near(values_of(request.get_output_tensor()), {4.f, 8.f, 12.f});  // 2 * (2 * x)
    ASSERT_EQ(request.query_state().size(), 1u);
}

TEST(HeteroExport, DeviceThatCannotExportIsNamed) {
    Core core = make_core();
    auto caps = core.get_property("HETERO:PARTIAL,TEMPLATE", device::capabilities);
    EXPECT_EQ(std::count(caps.begin(), caps.end(), device::capability::kExportImport), 0);
    caps = core.get_property("HETERO:MOCK_REMOTE.0,TEMPLATE", device::capabilities);
    EXPECT_EQ(std::count(caps.begin(), caps.end(), device::capability::kExportImport), 1);

    auto x = op::parameter(element::f32, {4}, "x");
    auto model =
        std::make_shared<Model>(OutputVector{op::relu(op::sigmoid(x))}, ParameterVector{x}, "m");
    CompiledModel compiled = core.compile_model(model, "HETERO:PARTIAL,TEMPLATE");
    std::stringstream blob;
    const std::string message =
        error_of([&] { compiled.export_model(blob); }, ErrorKind::kNotImplemented);
    EXPECT_NE(message.find("on PARTIAL"), std::string::npos) << message;
}

TEST(HeteroExport, DamagedBlobsAreRefused) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(three_parts(), "HETERO:MOCK_REMOTE.0,TEMPLATE");
    std::stringstream blob;
    compiled.export_model(blob);
    const std::string full = blob.str();
    std::stringstream truncated(full.substr(0, full.size() / 2));
    error_of([&] { core.import_model(truncated, "HETERO"); }, ErrorKind::kInvalidArgument);
    std::stringstream foreign;
    core.compile_model(three_parts(), "TEMPLATE").export_model(foreign);
    error_of([&] { core.import_model(foreign, "HETERO"); }, ErrorKind::kInvalidArgument);
}

TEST(HeteroExport, ModelCacheStoresHeteroWhole) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("vireo_hetero_cache_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    {
        Core core = make_core();
        core.set_property(AnyMap{{cache_dir.name(), dir.string()}});
        auto model = three_parts();  // one model: generated names are part of the cache key
        CompiledModel first = core.compile_model(model, "HETERO:MOCK_REMOTE.0,TEMPLATE");
        EXPECT_FALSE(first.get_property(loaded_from_cache));
        size_t entries = 0;
        for (const auto& e : std::filesystem::directory_iterator(dir))
            entries += e.path().extension() == ".blob";
        EXPECT_EQ(entries, 1u);  // HETERO's entry only: the parts compile without the cache
        CompiledModel second = core.compile_model(model, "HETERO:MOCK_REMOTE.0,TEMPLATE");
        EXPECT_TRUE(second.get_property(loaded_from_cache));
        const Tensor x = make_input({2, 3}, 0.f, 0.5f);
        expect_near(run(second, x), run(first, x));
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
