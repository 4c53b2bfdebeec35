// Implements CoreImpl: discovery, device routing, property precedence, compile and import.
#include "core_impl.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "model_cache.hpp"
#include "shared_library.hpp"
#include "vireo/log.hpp"
#include "vireo/sdk/blob_container.hpp"
#include "vireo/sdk/device_list.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iremote_context.hpp"
#include "vireo/sdk/property_table.hpp"

namespace vireo {
using runtime::DeviceName;
using runtime::Plugin;

namespace {

constexpr const char* kPluginsXmlVariable = "VIREO_PLUGINS_XML";

std::vector<PropertyName> core_properties() {
    return {PropertyName(vireo::supported_properties.name(), PropertyMutability::RO),
            PropertyName(available_devices.name(), PropertyMutability::RO),
            PropertyName(cache_dir.name(), PropertyMutability::RW),
            PropertyName(enable_mmap.name(), PropertyMutability::RW),
            PropertyName(log::level.name(), PropertyMutability::RW)};
}

std::string list_names(const std::vector<PropertyName>& names) {
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : ", ") + static_cast<const std::string&>(n);
    return out;
}

void check_model(const std::shared_ptr<const Model>& model, const char* call) {
    if (!model) throw_error<InvalidArgument>(call, ": the model is null");
}

// The device's name, which a context's errors are prefixed with (read only when one is
// reported; RemoteContext names its errors the same way).
std::string context_device(const sdk::IRemoteContext& context) {
    return context.get_device_name();
}

sdk::RemoteContextHandle context_handle(std::shared_ptr<sdk::IRemoteContext> impl,
                                        const runtime::SharedLibrary& library) {
    return sdk::RemoteContextHandle(std::move(impl), library, context_device,
                                    "remote context (its device name could not be read)");
}

}  // namespace

CoreImpl::CoreImpl(const std::string& plugins_xml_path) {
    // The argument, then the environment variable, then plugins.xml beside libvireo; only the
    // last may be missing.
    if (!plugins_xml_path.empty()) {
        register_plugins(plugins_xml_path);
        return;
    }
    if (const char* from_env = std::getenv(kPluginsXmlVariable); from_env && *from_env) {
        try {
            register_plugins(from_env);
        } catch (...) {
            rethrow_with_context(std::current_exception(),
                                 std::string("plugins.xml named by the environment variable ") +
                                     kPluginsXmlVariable);
        }
        return;
    }
    // Beside libvireo is the build tree's layout; <libdir>/vireo/plugins.xml, next to the
    // plugins, is the installed one (so the install puts no generic file name in <libdir>).
    const std::string dir = runtime::runtime_library_directory();
    if (dir.empty()) return;
    for (const auto& path : {std::filesystem::path(dir) / "plugins.xml",
                             std::filesystem::path(dir) / "vireo" / "plugins.xml"}) {
        std::error_code ec;
        if (std::filesystem::exists(path, ec)) {
            register_plugins(path.string());
            return;
        }
    }
    VIREO_LOG(DEBUG) << "no default plugins.xml in '" << dir << "' or '" << dir
                     << "/vireo'; no plugins registered";
}

DeviceName CoreImpl::parse_device(const std::string& device_name) const {
    return DeviceName::parse(device_name, [this](const std::string& name) {
        return m_registry.meta_device_grammar(name);
    });
}

void CoreImpl::bind_core_handle(const std::shared_ptr<CoreImpl>& self) {
    m_registry.set_core(std::weak_ptr<sdk::ICore>(std::static_pointer_cast<sdk::ICore>(self)));
}

AnyMap CoreImpl::with_device_list(const DeviceName& device, const AnyMap& properties) const {
    if (!device.meta) return properties;
    const std::vector<std::string> registered = m_registry.names();
    for (const std::string& listed : device.devices) {
        const std::string name = parse_device(listed).name;
        if (std::find(registered.begin(), registered.end(), name) == registered.end()) {
            std::string known;
            for (const auto& n : registered) known += (known.empty() ? "" : ", ") + n;
            throw_error<InvalidArgument>(
                "device '", device.full(), "': listed device '", listed,
                "' is not registered; registered devices: ", known.empty() ? "none" : known);
        }
    }
    AnyMap out = properties;
    const std::string list = device.priorities();
    if (auto it = out.find(device::priorities.name()); it != out.end()) {
        if (it->second.to_string() != list)
            throw_error<InvalidArgument>("device '", device.full(), "': property ",
                                         device::priorities.name(), " is '", it->second.to_string(),
                                         "', but the device name lists '", list, "'");
    }
    out[device::priorities.name()] = list;
    if (device.batch_size) {
        // As for the list: a batch size in the properties must say what the name says.
        const std::string size = std::to_string(device.batch_size);
        if (auto it = out.find(device::batch_size.name());
            it != out.end() && it->second.to_string() != size)
            throw_error<InvalidArgument>("device '", device.full(), "': property ",
                                         device::batch_size.name(), " is '", it->second.to_string(),
                                         "', but the device name says ", size);
        out[device::batch_size.name()] = device.batch_size;
    }
    return out;
}

std::vector<PropertyName> CoreImpl::supported_properties(const std::string& device_name) const {
    return get_property(device_name, vireo::supported_properties.name(), {})
        .as<std::vector<PropertyName>>();
}

void CoreImpl::register_plugins(const std::string& xml_path) {
    m_registry.add(take_core_defaults(runtime::parse_plugins_xml(xml_path)));
}

std::vector<runtime::PluginDescriptor> CoreImpl::take_core_defaults(
    std::vector<runtime::PluginDescriptor> descriptors) {
    for (auto& d : descriptors) {
        auto it = d.default_properties.find(hint::allow_fallback.name());
        if (it == d.default_properties.end()) continue;
        const bool allowed = it->second.as<bool>();  // throws InvalidArgument for a bad value
        d.default_properties.erase(it);
        std::lock_guard<std::mutex> lock(m_mutex);
        m_device_fallback[d.device_name] = allowed;
    }
    return descriptors;
}

bool CoreImpl::fallback_allowed(const DeviceName& device, const AnyMap& call) const {
    if (auto it = call.find(hint::allow_fallback.name()); it != call.end())
        return it->second.as<bool>();
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const std::string& name : {device.full(), device.name}) {
        auto it = m_device_fallback.find(name);
        if (it != m_device_fallback.end()) return it->second;
    }
    return false;
}

std::optional<std::pair<std::string, AnyMap>> CoreImpl::fallback_route(
    const std::shared_ptr<const Model>& model, const DeviceName& device, const AnyMap& call) const {
    if (device.meta || !fallback_allowed(device, call)) return std::nullopt;
    // First what the device itself does not run (its plugin is loaded anyway): a model it runs
    // whole needs no route, and finding one may load every plugin registered before it.
    AnyMap device_call = call;
    device_call.erase(hint::allow_fallback.name());
    device_call.erase(cache_dir.name());
    const auto supported = query_model(model, device.full(), device_call);
    std::string moved;
    for (const auto& node : model->get_ordered_ops()) {
        const std::string& type = node->get_type_name();
        if (type == "Parameter" || type == "Result" || type == "Constant") continue;
        if (!supported.count(node->get_friendly_name()))
            moved += (moved.empty() ? "" : ", ") + node->describe();
    }
    if (moved.empty()) return std::nullopt;
    // The route and its devices are what the registry declares (FALLBACK_DEVICES).
    const auto declared = m_registry.fallback();
    if (!declared) return std::nullopt;
    const std::string& route = declared->first;
    const std::vector<std::string> registered = m_registry.names();
    auto is_registered = [&](const std::string& n) {
        return std::find(registered.begin(), registered.end(), n) != registered.end();
    };
    std::string fallback;  // the first candidate that is registered and loads
    for (const std::string& candidate : declared->second) {
        if (candidate == device.name || !is_registered(candidate)) continue;
        try {
            m_registry.get(candidate);
        } catch (const Exception& e) {
            VIREO_LOG(DEBUG) << "automatic fallback: skipping '" << candidate << "': " << e.what();
            continue;
        }
        fallback = candidate;
        break;
    }
    if (fallback.empty() || device.name == route) return std::nullopt;
    VIREO_LOG(INFO) << "compile_model on '" << device.full() << "': " << hint::allow_fallback.name()
                    << " is on and the device does not run " << moved << "; those run on "
                    << fallback << " through " << route;
    AnyMap routed;
    routed[device::properties.name()] = AnyMap{{device.full(), device_call}};
    if (auto it = call.find(cache_dir.name()); it != call.end())
        routed[cache_dir.name()] = it->second;
    return std::make_pair(route + ":" + device.full() + "," + fallback, routed);
}

void CoreImpl::register_plugin(const std::string& library_path, const std::string& device_name,
                               const AnyMap& properties) {
    if (library_path.empty())
        throw_error<InvalidArgument>("register_plugin: the library path for device '", device_name,
                                     "' is empty");
    runtime::check_registrable_name(device_name);
    m_registry.add(take_core_defaults(
        {runtime::PluginDescriptor{device_name,
                                   library_path,
                                   runtime::candidates_for_registered_path(library_path),
                                   properties,
                                   "register_plugin",
                                   runtime::MetaDeviceGrammar::kUndeclared,
                                   {}}}));
}

void CoreImpl::unload_plugin(const std::string& device_name) {
    m_registry.unload(parse_device(device_name).name);
}

std::vector<std::string> CoreImpl::list_available_devices() const {
    std::vector<std::string> out;
    for (const auto& name : m_registry.names()) {
        std::vector<std::string> ids;
        try {
            ids = m_registry.get(name)
                      ->get_property(available_devices.name())
                      .as<std::vector<std::string>>();
        } catch (const Unavailable& e) {
            // The device is absent (no hardware, no server configured): an ordinary state, not
            // worth a warning each time an application lists devices.
            VIREO_LOG(INFO) << "get_available_devices: device '" << name
                            << "' is not available: " << e.what();
            continue;
        } catch (const std::exception& e) {
            VIREO_LOG(WARNING) << "get_available_devices: skipping device '" << name
                               << "': " << e.what();
            continue;
        }
        if (ids.size() > 1) {
            for (const auto& id : ids) out.push_back(name + "." + id);
        } else {
            out.push_back(name);
        }
    }
    return out;
}

std::map<std::string, Version> CoreImpl::versions(const std::string& device_name) const {
    const DeviceName device = parse_device(device_name);
    return {{device.name, m_registry.get(device.name)->version()}};
}

AnyMap CoreImpl::plugin_config(const DeviceName& device, const AnyMap& call,
                               std::string* cache_dir_out) const {
    // The plugin holds the device's and the instances' settings: a call passes only its own
    // arguments and the instance id.
    AnyMap config = call;
    if (!device.id.empty()) {
        auto it = call.find(device::id.name());
        if (it != call.end() && it->second.as<std::string>() != device.id)
            throw_error<InvalidArgument>("device '", device.full(), "': property ",
                                         device::id.name(), " is '", it->second.as<std::string>(),
                                         "', but the device name selects id '", device.id, "'");
        config[device::id.name()] = device.id;
    }
    config.erase(hint::allow_fallback.name());  // the core's: never passed to a plugin
    std::string dir = device_cache_dir(device);
    if (auto it = config.find(cache_dir.name()); it != config.end()) {
        dir = it->second.as<std::string>();
        config.erase(it);
    }
    if (cache_dir_out) *cache_dir_out = dir;
    return config;
}

AnyMap CoreImpl::device_settings(const Plugin& plugin, const DeviceName& device) const {
    AnyMap args;
    if (!device.id.empty()) args[device::id.name()] = device.id;
    AnyMap settings;
    for (const auto& key : plugin.supported_properties_or_empty()) {
        if (!key.is_mutable() || key == device::id.name() || sdk::is_core_key(key)) continue;
        try {
            settings[key] = plugin.get_property(key, args).to_string();
        } catch (const std::exception& e) {
            VIREO_LOG(DEBUG) << "device '" << device.full() << "': property " << key
                             << " does not answer (" << e.what() << "); left out of the cache key";
        }
    }
    return settings;
}

void CoreImpl::check_settable(const Plugin& plugin, const DeviceName& device,
                              const AnyMap& properties) const {
    const std::vector<PropertyName> supported = plugin.supported_properties_or_empty();
    if (supported.empty()) return;
    for (const auto& [key, value] : properties) {
        // The core's settable keys are the core's; LOADED_FROM_CACHE is read-only and goes
        // through the device's list like any other key (and is refused there).
        if (sdk::is_core_key(key) && key != loaded_from_cache.name()) continue;
        auto it = std::find(supported.begin(), supported.end(), key);
        if (it == supported.end())
            throw_error<NotFound>("device '", device.full(), "': unknown property '", key,
                                  "'; supported properties: ", list_names(supported), ", ",
                                  cache_dir.name());
        if (!it->is_mutable())
            throw_error<InvalidArgument>("device '", device.full(), "': property '", key,
                                         "' is read-only and cannot be set");
    }
}

bool CoreImpl::mmap_enabled() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_enable_mmap;
}

std::string CoreImpl::global_cache_dir() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_cache_dir;
}

std::string CoreImpl::device_cache_dir(const DeviceName& device) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const std::string& name : {device.full(), device.name}) {
        auto it = m_device_cache_dirs.find(name);
        if (it != m_device_cache_dirs.end()) return it->second;
    }
    return m_cache_dir;
}

sdk::CompiledModelHandle CoreImpl::compile_model(const std::shared_ptr<const Model>& model,
                                                 const std::string& device_name,
                                                 const AnyMap& properties) const {
    check_model(model, "compile_model");
    const DeviceName device = parse_device(device_name);
    if (auto routed = fallback_route(model, device, properties))
        return compile_model(model, routed->first, routed->second);
    const AnyMap call = with_device_list(device, properties);
    std::shared_ptr<Plugin> plugin = m_registry.get(device.name);
    check_settable(*plugin, device, call);
    std::string dir;
    const AnyMap config = plugin_config(device, call, &dir);
    if (!dir.empty())
        return runtime::ModelCache(dir).compile(plugin, model, device.full(), config,
                                                device_settings(*plugin, device));
    return sdk::CompiledModelHandle(plugin->compile_model(model, config), plugin->library());
}

sdk::CompiledModelHandle CoreImpl::compile_model(const std::shared_ptr<const Model>& model,
                                                 const RemoteContext& context,
                                                 const AnyMap& properties) const {
    check_model(model, "compile_model");
    if (!context) throw_error<InvalidArgument>("compile_model: the remote context is empty");
    const DeviceName device = parse_device(context.get_device_name());
    std::shared_ptr<Plugin> plugin = m_registry.get(device.name);
    check_settable(*plugin, device, properties);
    const AnyMap config = plugin_config(device, properties, nullptr);
    return sdk::CompiledModelHandle(plugin->compile_model(model, config, context.impl()),
                                    plugin->library());
}

sdk::CompiledModelHandle CoreImpl::import_model(std::istream& blob, const std::string& device_name,
                                                const AnyMap& properties) const {
    const DeviceName device = parse_device(device_name);
    const AnyMap call = with_device_list(device, properties);
    std::shared_ptr<Plugin> plugin = m_registry.get(device.name);
    check_settable(*plugin, device, call);
    const AnyMap config = plugin_config(device, call, nullptr);
    sdk::BlobContainer container(blob, sdk::BlobIdentity::of(plugin->version()),
                                 "import_model on device '" + device.full() + "'");
    return sdk::CompiledModelHandle(plugin->import_model(container.plugin_stream(), config),
                                    plugin->library());
}

std::map<std::string, std::string> CoreImpl::query_model(const std::shared_ptr<const Model>& model,
                                                         const std::string& device_name,
                                                         const AnyMap& properties) const {
    check_model(model, "query_model");
    const DeviceName device = parse_device(device_name);
    const AnyMap call = with_device_list(device, properties);
    std::shared_ptr<Plugin> plugin = m_registry.get(device.name);
    check_settable(*plugin, device, call);
    return plugin->query_model(model, plugin_config(device, call, nullptr));
}

void CoreImpl::set_property(const AnyMap& properties) {
    // Validate everything before changing anything.
    std::string new_cache_dir;
    std::optional<log::Level> new_level;
    std::optional<bool> new_mmap;
    for (const auto& [key, value] : properties) {
        if (key == cache_dir.name()) {
            new_cache_dir = get_or<std::string>(properties, key, "");
        } else if (key == enable_mmap.name()) {
            new_mmap = get_or<bool>(properties, key, true);
        } else if (key == log::level.name()) {
            new_level = get_or<log::Level>(properties, key, log::Level::WARNING);
        } else {
            throw_error<NotFound>("unknown core property '", key, "'; the core accepts ",
                                  cache_dir.name(), ", ", enable_mmap.name(), " and ",
                                  log::level.name(),
                                  " (device properties go to set_property(device, ...))");
        }
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    if (properties.count(cache_dir.name())) m_cache_dir = new_cache_dir;
    if (new_mmap) m_enable_mmap = *new_mmap;
    if (new_level) set_log_level(*new_level);
}

void CoreImpl::set_property(const std::string& device_name, const AnyMap& properties) {
    const DeviceName device = parse_device(device_name);
    // "META:A,B": the values go to META with device::priorities = "A,B" (which META keeps).
    const AnyMap values = with_device_list(device, properties);
    std::shared_ptr<Plugin> plugin = m_registry.get(device.name);
    check_settable(*plugin, device, values);
    AnyMap for_plugin = values;
    std::optional<bool> fallback;
    if (auto it = for_plugin.find(hint::allow_fallback.name()); it != for_plugin.end()) {
        fallback = it->second.as<bool>();
        for_plugin.erase(it);
    }
    std::optional<std::string> dir;
    if (for_plugin.count(cache_dir.name())) {
        dir = get_or<std::string>(values, cache_dir.name(), "");
        for_plugin.erase(cache_dir.name());
    }
    // "NAME.N": the plugin gets the instance id with the values and owns them; a DEVICE_ID
    // equal to N says nothing more, another one is an error.
    if (!device.id.empty()) {
        auto it = for_plugin.find(device::id.name());
        if (it != for_plugin.end()) {
            if (it->second.to_string() != device.id)
                throw_error<InvalidArgument>("device '", device.full(), "': property ",
                                             device::id.name(), " is '", it->second.to_string(),
                                             "', but the device name selects id '", device.id, "'");
            for_plugin.erase(it);
        }
        if (!for_plugin.empty()) for_plugin[device::id.name()] = device.id;
    }
    if (!for_plugin.empty()) plugin->set_property(for_plugin);
    // What the plugin accepted is replayed, in order, if the plugin is loaded again; the core
    // never reads these values back or passes them to calls.
    m_registry.record_set_property(device.name, for_plugin);
    std::lock_guard<std::mutex> lock(m_mutex);
    if (dir) m_device_cache_dirs[device.full()] = *dir;
    if (fallback) m_device_fallback[device.full()] = *fallback;
}

Any CoreImpl::get_property(const std::string& name) const {
    if (name == cache_dir.name()) return global_cache_dir();
    if (name == enable_mmap.name()) return mmap_enabled();
    if (name == log::level.name()) return get_log_level();
    if (name == vireo::supported_properties.name()) return core_properties();
    if (name == available_devices.name()) return list_available_devices();
    throw_error<NotFound>("unknown core property '", name,
                          "'; supported: ", list_names(core_properties()));
}

Any CoreImpl::get_property(const std::string& device_name, const std::string& name,
                           const AnyMap& arguments) const {
    const DeviceName device = parse_device(device_name);
    std::shared_ptr<Plugin> plugin = m_registry.get(device.name);
    if (name == cache_dir.name()) return device_cache_dir(device);
    if (name == hint::allow_fallback.name()) return fallback_allowed(device, {});
    if (name == runtime::kMetaDeviceKey || name == runtime::kFallbackDevicesKey) {
        // What the core goes by: the registration's value where it overrides the plugin's.
        const runtime::MetaDeviceDeclaration declared = m_registry.declaration(device.name);
        if (name == runtime::kMetaDeviceKey &&
            declared.grammar != runtime::MetaDeviceGrammar::kUndeclared)
            return std::string(declared.grammar == runtime::MetaDeviceGrammar::kBatch ? "BATCH"
                                                                                      : "LIST");
        if (name == runtime::kFallbackDevicesKey && declared.fallback)
            return sdk::join_device_list(*declared.fallback);
    }
    if (name == vireo::supported_properties.name()) {
        std::vector<PropertyName> list =
            plugin->get_property(name, arguments).as<std::vector<PropertyName>>();
        for (const std::string key : {cache_dir.name(), hint::allow_fallback.name()})
            if (std::find(list.begin(), list.end(), key) == list.end())
                list.emplace_back(key, PropertyMutability::RW);
        Any value(std::move(list));
        value.set_shared_object(plugin->library());
        return value;
    }
    AnyMap args = with_device_list(device, arguments);
    if (!device.id.empty() && name != available_devices.name()) args[device::id.name()] = device.id;
    const std::vector<PropertyName> supported = plugin->supported_properties_or_empty();
    if (!supported.empty() &&
        std::find(supported.begin(), supported.end(), name) == supported.end())
        throw_error<NotFound>("device '", device.full(), "': unknown property '", name,
                              "'; supported properties: ", list_names(supported), ", ",
                              cache_dir.name());
    return plugin->get_property(name, args);
}

sdk::RemoteContextHandle CoreImpl::create_context(const std::string& device_name,
                                                  const AnyMap& params) const {
    const DeviceName device = parse_device(device_name);
    std::shared_ptr<Plugin> plugin = m_registry.get(device.name);
    AnyMap args = with_device_list(device, params);
    if (!device.id.empty()) args[device::id.name()] = device.id;
    return context_handle(plugin->create_context(args), plugin->library());
}

sdk::RemoteContextHandle CoreImpl::get_default_context(const std::string& device_name) const {
    const DeviceName device = parse_device(device_name);
    std::shared_ptr<Plugin> plugin = m_registry.get(device.name);
    AnyMap args;
    if (!device.id.empty()) args[device::id.name()] = device.id;
    return context_handle(plugin->get_default_context(args), plugin->library());
}

}  // namespace vireo
