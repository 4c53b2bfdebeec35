// ECHO's plugin (properties, compile, query) and compiled model (graph copy, runtime model,
// properties), plus the module's entry point.
#include "echo_plugin.hpp"

#include <sstream>

#include "vireo/properties.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/plugin_entry.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace echo {
namespace {

using namespace vireo;

constexpr const char* kFullName = "Vireo ECHO example device (reference kernels, no latency)";

std::vector<PropertyName> plugin_properties() {
    return {supported_properties, available_devices, device::full_name,
            device::capabilities, enable_profiling,  device::id};
}

std::vector<PropertyName> compiled_model_properties() {
    return {supported_properties, model_name, execution_devices, optimal_number_of_infer_requests,
            enable_profiling};
}

std::string list(const std::vector<PropertyName>& keys) {
    std::string out;
    for (const auto& k : keys)
        out += (out.empty() ? "" : ", ") + static_cast<const std::string&>(k);
    return out;
}

bool runs_on_echo(const Node& node) {
    const std::string& type = node.get_type_name();
    if (type == "ReadValue" || type == "Assign") return false;  // no variables on this device
    return reference::KernelRegistry::instance().supports(node);
}

}  // namespace

Plugin::Plugin() {
    set_device_name(kDeviceName);
}

bool Plugin::perf_count_with(const AnyMap& properties) const {
    bool perf_count;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        perf_count = m_perf_count;
    }
    for (const auto& [key, value] : properties) {
        if (key == enable_profiling.name()) {
            perf_count = get_or(properties, key, false);
        } else if (key == device::id.name()) {
            const std::string id = value.as<std::string>();
            if (!id.empty() && id != "0")
                throw_error<InvalidArgument>(kDeviceName, ": DEVICE_ID '", id,
                                             "' is not served (only \"0\")");
        } else if (key != cache_dir.name() && key != loaded_from_cache.name()) {
            throw_error<NotFound>(kDeviceName, ": unsupported property ", key,
                                  " (supported: ", list(plugin_properties()), ")");
        }
    }
    return perf_count;
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": compile_model got no model");
    const bool perf_count = perf_count_with(properties);
    std::string unsupported;
    for (const auto& node : model->get_ordered_ops())
        if (!runs_on_echo(*node))
            unsupported += (unsupported.empty() ? "" : ", ") + node->describe();
    if (!unsupported.empty())
        throw_error<NotImplemented>(kDeviceName,
                                    ": the model has ops this device does not run: ", unsupported);
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
    perf_count_with(properties);  // validates the properties
    sdk::SupportedOpsMap supported;
    for (const auto& node : model->get_ordered_ops())
        if (runs_on_echo(*node)) supported[node->get_friendly_name()] = get_device_name();
    return supported;
}

void Plugin::set_property(const AnyMap& properties) {
    for (const auto& [key, value] : properties)
        for (const auto& ro : {supported_properties.name(), available_devices.name(),
                               device::full_name.name(), device::capabilities.name()})
            if (key == ro)
                throw_error<InvalidArgument>(kDeviceName, ": property ", key, " is read-only");
    const bool perf_count = perf_count_with(properties);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_perf_count = perf_count;
}

Any Plugin::get_property(const std::string& name, const AnyMap&) const {
    if (name == supported_properties.name()) return plugin_properties();
    if (name == available_devices.name()) return std::vector<std::string>{""};
    if (name == device::full_name.name()) return std::string(kFullName);
    if (name == device::capabilities.name())
        return std::vector<std::string>{device::capability::kFP32,
                                        device::capability::kDynamicShapes,
                                        device::capability::kProfiling};
    if (name == device::id.name()) return std::string("0");
    if (name == enable_profiling.name()) {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_perf_count;
    }
    throw_error<NotFound>(kDeviceName, ": unsupported property ", name,
                          " (supported: ", list(plugin_properties()), ")");
}

CompiledModel::CompiledModel(const std::shared_ptr<const Model>& model,
                             const std::shared_ptr<const Plugin>& plugin, bool perf_count)
    : sdk::ICompiledModel(model, plugin), m_graph(model->clone()), m_perf_count(perf_count) {}

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
    for (const auto& [key, value] : properties) {
        if (key != enable_profiling.name())
            throw_error<NotFound>(kDeviceName, ": compiled-model property ", key,
                                  " cannot be set (settable: ", enable_profiling.name(), ")");
    }
    m_perf_count = get_or(properties, enable_profiling.name(), m_perf_count.load());
}

Any CompiledModel::get_property(const std::string& name) const {
    if (name == supported_properties.name()) return compiled_model_properties();
    if (name == model_name.name()) return m_graph->get_name();
    if (name == execution_devices.name()) return std::vector<std::string>{kDeviceName};
    if (name == optimal_number_of_infer_requests.name()) return uint32_t{1};
    if (name == enable_profiling.name()) return m_perf_count.load();
    throw_error<NotFound>(kDeviceName, ": unsupported compiled-model property ", name,
                          " (supported: ", list(compiled_model_properties()), ")");
}

}  // namespace echo

VIREO_DEFINE_PLUGIN(echo::Plugin, VIREO_PLUGIN_VERSION)
