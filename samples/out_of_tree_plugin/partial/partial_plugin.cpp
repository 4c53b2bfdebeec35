// PARTIAL's plugin and compiled model: the property tables, the support check and compile.
#include "partial_plugin.hpp"

#include <set>

#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"
#include "vireo/sdk/plugin_entry.hpp"
#include "vireo/sdk/support_check.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace partial {
namespace {

using namespace vireo;

bool runs_here(const Node& node) {
    static const std::set<std::string> kOps{"Add", "Multiply", "Relu", "MatMul", "Convolution"};
    return kOps.count(node.get_type_name()) && reference::KernelRegistry::instance().supports(node);
}

}  // namespace

Plugin::Plugin()
    : m_properties(
          kDeviceName,
          {sdk::common::full_name([](const std::string&) { return "Vireo partial test device"; }),
           sdk::common::device_type(device::Type::SIMULATED),
           sdk::common::capabilities({device::capability::kFP32, device::capability::kDynamicShapes,
                                      device::capability::kProfiling}),
           sdk::common::performance_hint(), sdk::common::profiling(),
           sdk::in_range<uint32_t>(device_time_us, 0, 0, 1'000'000)}) {
    set_device_name(kDeviceName);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": compile_model got no model");
    const sdk::PropertyValues values = m_properties.resolve(properties);
    sdk::check_supported(*model, kDeviceName, runs_here);
    auto self = std::static_pointer_cast<const Plugin>(shared_from_this());
    return std::make_shared<CompiledModel>(model, self, values);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream&, const AnyMap&) const {
    throw_error<NotImplemented>(kDeviceName, ": import_model is not supported");
}

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": query_model got no model");
    m_properties.resolve(properties);
    return sdk::supported_ops(*model, get_device_name(), runs_here);
}

void Plugin::set_property(const AnyMap& properties) {
    m_properties.set(properties);
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    return m_properties.get(name, arguments);
}

CompiledModel::CompiledModel(const std::shared_ptr<const Model>& model,
                             const std::shared_ptr<const Plugin>& plugin,
                             const sdk::PropertyValues& values)
    : sdk::ICompiledModel(model, plugin),
      m_graph(model->clone()),
      m_wait_executor(
          std::make_shared<sdk::CPUStreamsExecutor>(sdk::StreamsConfig{"PARTIALwait", 1, 1})),
      m_properties(
          kDeviceName,
          {sdk::ro(model_name.name(),
                   [name = model->get_name()](const std::string&) { return Any(name); }),
           sdk::ro(execution_devices.name(),
                   [](const std::string&) { return Any(std::vector<std::string>{kDeviceName}); }),
           sdk::common::optimal_number_of_infer_requests([] { return 2u; }),
           sdk::common::profiling(values.get(enable_profiling), sdk::PropertyScope::kCompiledModel),
           sdk::ro(device_time_us.name(),
                   [t = values.get(device_time_us)](const std::string&) { return Any(t); })},
          /*plugin_table=*/false) {}

std::shared_ptr<sdk::ISyncInferRequest> CompiledModel::create_sync_infer_request() const {
    return std::make_shared<SyncRequest>(
        std::static_pointer_cast<const CompiledModel>(shared_from_this()));
}

std::shared_ptr<sdk::IAsyncInferRequest> CompiledModel::create_infer_request() const {
    auto sync = std::static_pointer_cast<SyncRequest>(create_sync_infer_request());
    return std::make_shared<AsyncRequest>(sync, get_task_executor(), m_wait_executor,
                                          get_callback_executor());
}

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    auto runtime = m_graph->clone();
    int64_t order = 0;
    for (const auto& node : runtime->get_ordered_ops()) {
        node->get_rt_info()["layerType"] = node->get_type_name();
        node->get_rt_info()["execOrder"] = order++;
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

std::chrono::microseconds CompiledModel::device_time() const {
    return std::chrono::microseconds(m_properties.get(device_time_us.name()).as<uint32_t>());
}

}  // namespace partial

VIREO_DEFINE_PLUGIN(partial::Plugin, VIREO_PLUGIN_VERSION)
