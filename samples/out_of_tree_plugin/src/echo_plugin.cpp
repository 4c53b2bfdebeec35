// ECHO's plugin (property table, compile, query) and compiled model (graph copy, runtime model,
// property table), plus the module's entry point.
#include "echo_plugin.hpp"

#include <sstream>

#include "vireo/properties.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/plugin_entry.hpp"
#include "vireo/sdk/support_check.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace echo {
namespace {

using namespace vireo;

constexpr const char* kFullName = "Vireo ECHO example device (reference kernels, no latency)";

// The one support predicate (query_model and compile_model): a refusal says why, and
// compile_model's NotImplemented quotes it.
sdk::Support runs_on_echo(const Node& node) {
    const std::string& type = node.get_type_name();
    if (type == "ReadValue" || type == "Assign")
        return sdk::Support::refused("variables (stateful models) are not supported on ECHO");
    return reference::KernelRegistry::instance().supports(node);
}

}  // namespace

Plugin::Plugin()
    : m_properties(
          kDeviceName,
          {sdk::common::full_name([](const std::string&) { return kFullName; }),
           sdk::common::device_type(device::Type::SIMULATED),
           sdk::common::capabilities({device::capability::kFP32, device::capability::kDynamicShapes,
                                      device::capability::kProfiling}),
           sdk::common::performance_hint(), sdk::common::profiling()}) {
    set_device_name(kDeviceName);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": compile_model got no model");
    const bool perf_count = m_properties.resolve(properties).get(enable_profiling);
    sdk::check_supported(*model, kDeviceName, runs_on_echo);
    auto self = std::static_pointer_cast<const Plugin>(shared_from_this());
    return std::make_shared<CompiledModel>(model, self, perf_count);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream&, const AnyMap&) const {
    throw_error<NotImplemented>(kDeviceName,
                                ": import_model is not supported (no EXPORT_IMPORT capability)");
}

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": query_model got no model");
    m_properties.resolve(properties);  // validates the properties
    return sdk::supported_ops(*model, get_device_name(), runs_on_echo);
}

void Plugin::set_property(const AnyMap& properties) {
    m_properties.set(properties);
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    return m_properties.get(name, arguments);
}

CompiledModel::CompiledModel(const std::shared_ptr<const Model>& model,
                             const std::shared_ptr<const Plugin>& plugin, bool perf_count)
    : sdk::ICompiledModel(model, plugin),
      m_graph(model->clone()),
      m_plan(std::make_shared<const reference::GraphPlan>(
          m_graph, reference::GraphPlanOptions{kDeviceName, /*plan_memory=*/true})),
      m_properties(
          kDeviceName,
          {sdk::ro(model_name.name(),
                   [name = model->get_name()](const std::string&) { return Any(name); }),
           sdk::ro(execution_devices.name(),
                   [](const std::string&) { return Any(std::vector<std::string>{kDeviceName}); }),
           sdk::common::optimal_number_of_infer_requests([] { return 1u; }),
           sdk::common::profiling(perf_count, sdk::PropertyScope::kCompiledModel)},
          /*plugin_table=*/false) {}

std::shared_ptr<sdk::ISyncInferRequest> CompiledModel::create_sync_infer_request() const {
    return std::make_shared<InferRequest>(
        std::static_pointer_cast<const CompiledModel>(shared_from_this()));
}

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    auto runtime = m_graph->clone();
    int64_t order = 0;
    for (const auto& node : runtime->get_ordered_ops()) {
        auto& rt = node->get_rt_info();
        rt["layerType"] = node->get_type_name();
        rt["execOrder"] = order++;
        rt["primitiveType"] = std::string("ref");
    }
    return runtime;
}

void CompiledModel::set_property(const AnyMap& properties) {
    m_properties.set(properties);
}

Any CompiledModel::get_property(const std::string& name) const {
    return m_properties.get(name);
}

bool CompiledModel::perf_count() const {
    return m_properties.get(enable_profiling.name()).as<bool>();
}

}  // namespace echo

VIREO_DEFINE_PLUGIN(echo::Plugin, VIREO_PLUGIN_VERSION)
