// Implements the MOCK_REMOTE plugin: instances and their settings, compile/import/query, remote
// contexts, properties, and the module entry point.
#include "plugin.hpp"

#include <algorithm>
#include <cctype>
#include <thread>

#include "blob.hpp"
#include "compiled_model.hpp"
#include "remote_context.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/sdk/plugin_entry.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace vireo::mock_remote {
namespace {

constexpr uint32_t kMaxDevices = 16;
constexpr const char* kBaseName = "MOCK_REMOTE";

bool is_counter(const std::string& key) {
    return key == max_queue_depth || key == jobs_completed || key == jobs_failed ||
           key == jobs_cancelled || key == allocated_bytes;
}

BusModel bus_of(const Config& config) {
    return {config.timing.bus_gbps, config.timing.bus_latency_us};
}

}  // namespace

Plugin::Plugin()
    : m_executors(sdk::ExecutorManager::get()),
      m_configs(m_device_count),
      m_devices(kMaxDevices),
      m_default_contexts(kMaxDevices) {}

Plugin::~Plugin() {
    // The manager keeps named executors forever; forget this plugin's wait executors (instances
    // still alive in compiled models keep theirs).
    for (size_t i = 0; i < m_devices.size(); ++i)
        if (m_devices[i]) m_executors->clear(instance_name(i) + "/wait");
}

std::string Plugin::instance_name(size_t index) const {
    const std::string& registered = get_device_name();
    return (registered.empty() ? std::string(kBaseName) : registered) + "." + std::to_string(index);
}

size_t Plugin::instance_index(const AnyMap& properties) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = properties.find(device::id.name());
    if (it == properties.end()) return m_default_index;
    const std::string id = it->second.as<std::string>();
    size_t index = 0;
    const bool numeric =
        !id.empty() && id.size() <= 3 &&
        std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
    if (numeric) index = std::stoul(id);
    if (!numeric || index >= m_device_count) {
        std::string known;
        for (uint32_t i = 0; i < m_device_count; ++i) known += (i ? ", " : "") + std::to_string(i);
        throw_error<InvalidArgument>(kBaseName, ": device id '", id,
                                     "' does not exist (available: ", known, ")");
    }
    return index;
}

std::shared_ptr<Device> Plugin::instance(size_t index) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto& device = m_devices.at(index);
    if (!device) {
        const std::string name = instance_name(index);
        // One wait executor per instance, shared by every model on it. Several threads, so a
        // request whose job was dropped need not wait behind another request's hung job.
        auto wait =
            m_executors->get_executor(name + "/wait", sdk::StreamsConfig{name + "/wait", 4, 1});
        device = std::make_shared<Device>(name, wait);
        device->set_bus_model(bus_of(m_configs.at(index)));
    }
    return device;
}

Config Plugin::instance_config(size_t index) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_configs.at(index);
}

void Plugin::throw_unknown_key(const std::string& key) const {
    std::string known;
    for (const auto& name : supported_properties()) known += (known.empty() ? "" : ", ") + name;
    throw_error<NotFound>(kBaseName, ": unsupported property ", key, " (supported: ", known, ")");
}

void Plugin::check_compile_keys(const AnyMap& properties, const char* what) const {
    for (const auto& [key, value] : properties) {
        if (Config::is_setting(key) || key == device::id || key == device_count) continue;
        // Handled by the core; tolerated so that merged core settings do not fail the call.
        if (key == cache_dir || key == loaded_from_cache) continue;
        std::string known;
        for (const auto& k : Config::setting_keys()) known += (known.empty() ? "" : ", ") + k;
        throw_error<NotFound>(kBaseName, ": property ", key, " is not supported by ", what,
                              " (supported: ", device::id.name(), ", ", known, ")");
    }
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile(const std::shared_ptr<const Model>& model,
                                                     size_t index, Config config,
                                                     bool imported) const {
    if (!model) throw_error<InvalidArgument>(kBaseName, ": compile_model was given no model");
    auto compiled = std::make_shared<CompiledModel>(
        model->clone(), std::static_pointer_cast<const Plugin>(shared_from_this()),
        instance(index), std::to_string(index), config, imported);
    // A real compiler takes time; model it so that a model cache makes a visible difference.
    if (!imported) std::this_thread::sleep_for(std::chrono::milliseconds(config.timing.compile_ms));
    return compiled;
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    check_compile_keys(properties, "compile_model");
    const size_t index = instance_index(properties);
    Config config = instance_config(index);
    config.set_known(properties);
    return compile(model, index, config, false);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties,
    const std::shared_ptr<sdk::IRemoteContext>& context) const {
    auto ours = std::dynamic_pointer_cast<RemoteContext>(context);
    if (!ours)
        throw_error<InvalidArgument>(kBaseName, ": compile_model needs a ", kBaseName,
                                     " remote context, found one of ",
                                     context ? context->get_device_name() : std::string("(none)"));
    check_compile_keys(properties, "compile_model");
    const size_t index = std::stoul(ours->get_property().at(device::id.name()).as<std::string>());
    if (properties.count(device::id.name()) && instance_index(properties) != index)
        throw_error<InvalidArgument>(kBaseName, ": the context is for ", ours->get_device_name(),
                                     " but the properties ask for device id ",
                                     properties.at(device::id.name()).as<std::string>());
    Config config = instance_config(index);
    config.set_known(properties);
    return compile(model, index, config, false);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream& stream,
                                                          const AnyMap& properties) const {
    check_compile_keys(properties, "import_model");
    const Blob blob = read_blob(stream, VIREO_PLUGIN_VERSION);
    const size_t index = instance_index(properties);
    Config config = instance_config(index);
    for (const auto& [key, value] : blob.settings) config.set(key, value);
    config.set_known(properties);
    return compile(blob.model, index, config, true);
}

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kBaseName, ": query_model was given no model");
    check_compile_keys(properties, "query_model");
    const std::string name = instance_name(instance_index(properties));
    const auto bad = ExecutionPlan::unsupported_ops(*model);
    sdk::SupportedOpsMap supported;
    for (const auto& node : model->get_ordered_ops()) {
        const auto& friendly = node->get_friendly_name();
        const bool unsupported =
            std::any_of(bad.begin(), bad.end(), [&](const auto& b) { return b.first == friendly; });
        if (!unsupported) supported[friendly] = name;
    }
    return supported;
}

void Plugin::set_property(const AnyMap& properties) {
    // Validate everything first, so a bad key or value changes nothing.
    for (const auto& [key, value] : properties) {
        if (key == device::id || key == device_count || Config::is_setting(key)) continue;
        if (is_counter(key) || key == vireo::supported_properties || key == available_devices ||
            key == device::full_name || key == device::capabilities)
            throw_error<InvalidArgument>(kBaseName, ": property ", key, " is read-only");
        throw_unknown_key(key);
    }
    Config probe;
    for (const auto& [key, value] : properties)
        if (Config::is_setting(key))
            probe.set(key, value);  // throws InvalidArgument on a bad value

    if (auto it = properties.find(device_count.name()); it != properties.end()) {
        const uint32_t count = it->second.as<uint32_t>();
        if (count < 1 || count > kMaxDevices)
            throw_error<InvalidArgument>(kBaseName, ": property ", device_count.name(),
                                         ": expected 1..", kMaxDevices, ", found ", count);
        std::lock_guard<std::mutex> lock(m_mutex);
        m_device_count = count;
        m_configs.resize(count, m_common);
        if (m_default_index >= count) m_default_index = 0;
    }
    const bool has_id = properties.count(device::id.name()) != 0;
    const size_t index = instance_index(properties);
    const bool id_only =
        has_id && std::all_of(properties.begin(), properties.end(), [](const auto& p) {
            return p.first == device::id || p.first == device_count;
        });
    std::vector<std::pair<size_t, BusModel>> bus_updates;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (id_only) {
            m_default_index =
                index;  // OpenVINO's meaning of a lone device::id: the default instance
            return;
        }
        for (size_t i = 0; i < m_configs.size(); ++i) {
            if (has_id && i != index) continue;
            m_configs[i].set_known(properties);
            bus_updates.emplace_back(i, bus_of(m_configs[i]));
        }
        if (!has_id) m_common.set_known(properties);
    }
    for (const auto& [i, bus] : bus_updates) {
        std::shared_ptr<Device> device;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            device = m_devices.at(i);
        }
        if (device) device->set_bus_model(bus);
    }
}

std::vector<PropertyName> Plugin::supported_properties() const {
    std::vector<PropertyName> out{
        PropertyName(vireo::supported_properties.name(), PropertyMutability::RO),
        PropertyName(available_devices.name(), PropertyMutability::RO),
        PropertyName(device::full_name.name(), PropertyMutability::RO),
        PropertyName(device::capabilities.name(), PropertyMutability::RO),
        PropertyName(max_queue_depth.name(), PropertyMutability::RO),
        PropertyName(jobs_completed.name(), PropertyMutability::RO),
        PropertyName(jobs_failed.name(), PropertyMutability::RO),
        PropertyName(jobs_cancelled.name(), PropertyMutability::RO),
        PropertyName(allocated_bytes.name(), PropertyMutability::RO),
        PropertyName(device::id.name(), PropertyMutability::RW),
        PropertyName(device_count.name(), PropertyMutability::RW),
    };
    for (const auto& key : Config::setting_keys()) out.emplace_back(key, PropertyMutability::RW);
    return out;
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    if (name == vireo::supported_properties) return supported_properties();
    if (name == available_devices) {
        std::lock_guard<std::mutex> lock(m_mutex);
        std::vector<std::string> ids;
        for (uint32_t i = 0; i < m_device_count; ++i) ids.push_back(std::to_string(i));
        return ids;
    }
    if (name == device_count) {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_device_count;
    }
    if (name == device::capabilities)
        return std::vector<std::string>{
            device::capability::kFP32, device::capability::kExportImport,
            device::capability::kRemoteTensors, device::capability::kProfiling};
    const bool known = name == device::id || name == device::full_name || is_counter(name) ||
                       Config::is_setting(name);
    if (!known) throw_unknown_key(name);
    const size_t index = instance_index(arguments);
    if (name == device::id) return std::to_string(index);
    if (name == device::full_name) return "Vireo simulated remote device " + instance_name(index);
    if (Config::is_setting(name)) return instance_config(index).get(name);
    // Counters: an instance nobody used yet has all counters at zero; do not create it.
    std::shared_ptr<Device> device;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        device = m_devices.at(index);
    }
    if (!device) return uint64_t{0};
    if (name == max_queue_depth) return device->max_queue_depth();
    if (name == jobs_completed) return device->jobs_completed();
    if (name == jobs_failed) return device->jobs_failed();
    if (name == jobs_cancelled) return device->jobs_cancelled();
    return static_cast<uint64_t>(device->memory().allocated_bytes());
}

std::shared_ptr<sdk::IRemoteContext> Plugin::create_context(const AnyMap& params) const {
    for (const auto& [key, value] : params)
        if (key != device::id)
            throw_error<NotFound>(kBaseName, ": unknown context parameter ", key,
                                  " (supported: ", device::id.name(), ")");
    const size_t index = instance_index(params);
    return std::make_shared<RemoteContext>(instance(index), std::to_string(index));
}

std::shared_ptr<sdk::IRemoteContext> Plugin::get_default_context(const AnyMap& params) const {
    for (const auto& [key, value] : params)
        if (key != device::id)
            throw_error<NotFound>(kBaseName, ": unknown context parameter ", key,
                                  " (supported: ", device::id.name(), ")");
    const size_t index = instance_index(params);
    auto device = instance(index);
    std::lock_guard<std::mutex> lock(m_mutex);
    auto& context = m_default_contexts.at(index);
    if (!context) context = std::make_shared<RemoteContext>(device, std::to_string(index));
    return context;
}

}  // namespace vireo::mock_remote

VIREO_DEFINE_PLUGIN(vireo::mock_remote::Plugin, VIREO_PLUGIN_VERSION)
