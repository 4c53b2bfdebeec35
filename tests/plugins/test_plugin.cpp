// Implements the TEST plugin and its entry point.
#include "test_plugin.hpp"

#include <algorithm>

#include "test_compiled_model.hpp"
#include "test_remote.hpp"
#include "vireo/sdk/plugin_entry.hpp"

namespace vireo::test_plugin {
namespace {

std::atomic<uint64_t> g_next_instance_id{1};

std::vector<PropertyName> plugin_properties() {
    using M = PropertyMutability;
    return {{supported_properties.name(), M::RO}, {available_devices.name(), M::RO},
            {device::full_name.name(), M::RO},    {device::capabilities.name(), M::RO},
            {instance_id.name(), M::RO},          {compile_count.name(), M::RO},
            {import_count.name(), M::RO},         {set_count.name(), M::RO},
            {last_config.name(), M::RO},          {device::id.name(), M::RW},
            {enable_profiling.name(), M::RW},     {num_streams.name(), M::RW},
            {log::level.name(), M::RW},           {addend.name(), M::RW},
            {device_ids.name(), M::RW},           {exportable.name(), M::RW},
            {declared_meta_device.name(), M::RW}, {request_count.name(), M::RO}};
}

std::string names_of(const std::vector<PropertyName>& names) {
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : ", ") + static_cast<const std::string&>(n);
    return out;
}

}  // namespace

Plugin::Plugin() : m_instance_id(g_next_instance_id++) {}

Plugin::Settings Plugin::apply(Settings s, const AnyMap& properties) const {
    const auto supported = plugin_properties();
    for (const auto& [key, value] : properties) {
        auto it = std::find(supported.begin(), supported.end(), key);
        if (it == supported.end())
            throw_error<NotFound>("unknown property '", key, "'; supported: ", names_of(supported));
        if (!it->is_mutable()) throw_error<InvalidArgument>("property '", key, "' is read-only");
    }
    s.addend = get_or(properties, addend.name(), s.addend);
    s.device_ids = get_or(properties, device_ids.name(), s.device_ids);
    s.exportable = get_or(properties, exportable.name(), s.exportable);
    s.profiling = get_or(properties, enable_profiling.name(), s.profiling);
    s.num_streams = get_or(properties, num_streams.name(), s.num_streams);
    s.device_id = get_or(properties, device::id.name(), s.device_id);
    s.log_level = get_or(properties, log::level.name(), s.log_level);
    s.meta_device = get_or(properties, declared_meta_device.name(), s.meta_device);
    if (s.num_streams < 1)
        throw_error<InvalidArgument>("property ", num_streams.name(), " must be >= 1, found ",
                                     s.num_streams);
    return s;
}

Plugin::Settings Plugin::settings(const AnyMap& arguments) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto id = arguments.find(device::id.name());
    if (id == arguments.end()) return m_settings;
    auto own = m_instances.find(id->second.to_string());
    Settings s = own == m_instances.end() ? m_settings : apply(m_settings, own->second);
    s.device_id = id->second.to_string();
    return s;
}

void Plugin::remember(const AnyMap& properties) const {
    std::string text;
    for (const auto& [key, value] : properties)
        text += (text.empty() ? "" : ";") + key + "=" + value.to_string();
    std::lock_guard<std::mutex> lock(m_mutex);
    m_last_config = text;
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    const Settings s = apply(settings(properties), properties);
    remember(properties);
    ++m_compile_count;
    const std::string device = get_device_name() + (s.device_id.empty() ? "" : "." + s.device_id);
    return std::make_shared<CompiledModel>(model, shared_from_this(), s.addend, s.profiling,
                                           device);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties,
    const std::shared_ptr<sdk::IRemoteContext>& context) const {
    if (!context) throw_error<InvalidArgument>("compile_model: the remote context is null");
    return compile_model(model, properties);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream& blob,
                                                          const AnyMap& properties) const {
    const Settings s = apply(settings(properties), properties);
    remember(properties);
    ++m_import_count;
    const std::string device = get_device_name() + (s.device_id.empty() ? "" : "." + s.device_id);
    return CompiledModel::import(blob, shared_from_this(), device);
}

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    apply(settings(properties), properties);
    sdk::SupportedOpsMap out;
    for (const auto& node : model->get_ordered_ops()) {
        const std::string& type = node->get_type_name();
        if (type == "Parameter" || type == "Result")
            out[node->get_friendly_name()] = get_device_name();
    }
    return out;
}

void Plugin::set_property(const AnyMap& properties) {
    ++m_set_count;
    std::lock_guard<std::mutex> lock(m_mutex);
    auto id = properties.find(device::id.name());
    if (id == properties.end() || properties.size() == 1) {
        // Every instance (a lone DEVICE_ID picks the default one): instance values of these
        // keys give way.
        m_settings = apply(m_settings, properties);
        for (auto& [instance, values] : m_instances)
            for (const auto& [key, value] : properties) values.erase(key);
        return;
    }
    // One instance ("TEST.N" through the core): kept as overrides of the device's values.
    AnyMap own = m_instances[id->second.to_string()];
    for (const auto& [key, value] : properties)
        if (key != device::id.name()) own[key] = value;
    apply(m_settings, own);  // checks them
    m_instances[id->second.to_string()] = own;
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    const Settings s = settings(arguments);
    if (name == supported_properties.name()) {
        std::vector<PropertyName> keys = plugin_properties();
        if (!s.meta_device.empty()) keys.emplace_back("META_DEVICE", PropertyMutability::RO);
        return keys;
    }
    if (name == "META_DEVICE" && !s.meta_device.empty()) return s.meta_device;
    if (name == available_devices.name()) return s.device_ids;
    if (name == device::full_name.name()) {
        const std::string id = get_or<std::string>(arguments, device::id.name(), s.device_id);
        return std::string("Vireo test device") + (id.empty() ? "" : " #" + id);
    }
    if (name == device::capabilities.name()) {
        std::vector<std::string> caps{device::capability::kFP32, device::capability::kStates};
        if (s.exportable) caps.push_back(device::capability::kExportImport);
        return caps;
    }
    if (name == instance_id.name()) return m_instance_id;
    if (name == compile_count.name()) return m_compile_count.load();
    if (name == import_count.name()) return m_import_count.load();
    if (name == set_count.name()) return m_set_count.load();
    if (name == request_count.name()) return m_request_count.load();
    if (name == last_config.name()) {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_last_config;
    }
    if (name == device::id.name()) return s.device_id;
    if (name == enable_profiling.name()) return s.profiling;
    if (name == num_streams.name()) return s.num_streams;
    if (name == log::level.name()) return s.log_level;
    if (name == addend.name()) return s.addend;
    if (name == device_ids.name()) return s.device_ids;
    if (name == exportable.name()) return s.exportable;
    if (name == declared_meta_device.name()) return s.meta_device;
    throw_error<NotFound>("unknown property '", name,
                          "'; supported: ", names_of(plugin_properties()));
}

std::shared_ptr<sdk::IRemoteContext> Plugin::create_context(const AnyMap& params) const {
    const std::string id = get_or<std::string>(params, device::id.name(), "");
    return std::make_shared<RemoteContext>(get_device_name() + (id.empty() ? "" : "." + id),
                                           params);
}

std::shared_ptr<sdk::IRemoteContext> Plugin::get_default_context(const AnyMap& params) const {
    return create_context(params);
}

}  // namespace vireo::test_plugin

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif
VIREO_DEFINE_PLUGIN(vireo::test_plugin::Plugin, VIREO_PLUGIN_VERSION)
