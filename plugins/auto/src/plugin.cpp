// Implements Plugin: AUTO/MULTI configuration, selection through the core's query_model, and the
// start of a compiled model's Scheduler.
#include "plugin.hpp"

#include <algorithm>

#include "compiled_model.hpp"
#include "log.hpp"
#include "vireo/auto/properties.hpp"
#include "vireo/sdk/device_list.hpp"
#include "vireo/sdk/icore.hpp"
#include "vireo/sdk/plugin_entry.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace auto_plugin {
using namespace vireo;

namespace {

std::string base_name(const std::string& device) {
    return device.substr(0, device.find('.'));
}

// A device that groups others (AUTO, MULTI, HETERO, BATCH, or any device registered as one):
// what the core says of its META_DEVICE role, declared by its plugin or its registration.
bool is_meta(const sdk::ICore& core, const std::string& device) {
    try {
        return !core.get_property(base_name(device), sdk::kMetaDeviceKey, {}).empty();
    } catch (const Exception&) {
        return false;  // declares no role: a plain device
    }
}

bool has(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

Plugin::Plugin() = default;

sdk::PropertyTable& Plugin::table() const {
    // Built on first use: the owner in its messages is the name the core registered us under.
    std::call_once(m_table_once, [this] {
        const std::string owner = get_device_name().empty() ? "AUTO" : get_device_name();
        m_properties = std::make_unique<sdk::PropertyTable>(
            owner,
            std::vector<sdk::PropertySpec>{
                sdk::common::full_name([owner](const std::string&) {
                    return owner == "MULTI" ? "Vireo multi-device (every listed device at once)"
                                            : "Vireo automatic device selection";
                }),
                sdk::ro(device::capabilities.name(),
                        [](const std::string&) {
                            return Any(std::vector<std::string>{device::capability::kFP32});
                        }),
                sdk::common::meta_device(sdk::MetaDevice::kList),
                sdk::rw<std::string>(device::priorities, "", "a comma-separated list of devices"),
                sdk::rw<AnyMap>(device::properties, AnyMap{}, "{DEVICE:{KEY:VALUE,...},...}"),
                sdk::common::performance_hint(), sdk::common::hint_num_requests(),
                sdk::common::profiling(),
                sdk::rw<bool>(auto_device::enable_runtime_fallback, true, "YES or NO"),
                sdk::rw<bool>(auto_device::enable_startup_fallback, true, "YES or NO")});
    });
    return *m_properties;
}

std::vector<std::string> Plugin::default_devices() const {
    // By DEVICE_TYPE: accelerators, then the host, then reference interpreters as a last resort.
    // A simulated or test device, and one that does not say what it is, is never chosen here: a
    // user who asks for "AUTO" must not end up on a simulation (issue 35).
    std::vector<std::string> accelerators, host, reference;
    auto core = get_core();
    for (const std::string& device : core->get_available_devices()) {
        if (is_meta(*core, device)) continue;
        device::Type type = device::Type::SIMULATED;
        try {
            type = core->get_property(device, device::type.name(), {}).as<device::Type>();
        } catch (const Exception& e) {
            log_debug(vireo::detail::concat(get_device_name(), ": ", device,
                                            " is not a candidate (no ", device::type.name(),
                                            "): ", e.what()));
            continue;
        }
        switch (type) {
            case device::Type::DISCRETE:
            case device::Type::INTEGRATED:
                accelerators.push_back(device);
                break;
            case device::Type::HOST:
                host.push_back(device);
                break;
            case device::Type::REFERENCE:
                reference.push_back(device);
                break;
            case device::Type::SIMULATED:
                break;
        }
    }
    accelerators.insert(accelerators.end(), host.begin(), host.end());
    accelerators.insert(accelerators.end(), reference.begin(), reference.end());
    return accelerators;
}

std::vector<std::string> Plugin::listed_devices(const AnyMap& arguments) const {
    const std::string owner = get_device_name();
    std::string list;
    if (auto it = arguments.find(device::priorities.name()); it != arguments.end())
        list = it->second.to_string();
    else
        list = table().get(device::priorities.name()).to_string();
    std::vector<std::string> devices = sdk::split_device_list(owner, list);
    for (const std::string& device : devices)
        if (base_name(device) == get_device_name() || base_name(device) == "AUTO" ||
            base_name(device) == "MULTI")
            throw_error<InvalidArgument>(owner, ": ", device::priorities.name(), " '", list,
                                         "' lists the meta-device '", device,
                                         "'; list the devices to run on");
    if (devices.empty()) {
        if (get_device_name() == "MULTI")
            throw_error<InvalidArgument>(
                "MULTI: no devices to run on; name them with \"MULTI:A,B\" or the property ",
                device::priorities.name());
        devices = default_devices();
        if (devices.empty())
            throw_error<Unavailable>(get_device_name(), ": no device is available (plain ",
                                     get_device_name(), " chooses only devices whose ",
                                     device::type.name(),
                                     " is DISCRETE, INTEGRATED, HOST or REFERENCE; name a "
                                     "simulated device to use it)");
    }
    return devices;
}

AutoConfig Plugin::config_for(const AnyMap& properties) const {
    const std::string owner = get_device_name();
    AnyMap args = properties;
    args.erase(device::batch_size.name());
    const std::vector<std::string> devices = listed_devices(args);
    args.erase(device::priorities.name());
    const sdk::PropertyValues values = table().resolve(args);
    AutoConfig config;
    config.hint = values.get(hint::performance_mode);
    config.mode = owner == "MULTI" || config.hint == hint::PerformanceMode::CUMULATIVE_THROUGHPUT
                      ? Mode::kMulti
                      : Mode::kAuto;
    config.runtime_fallback = values.get(auto_device::enable_runtime_fallback);
    config.startup_fallback = values.get(auto_device::enable_startup_fallback);
    const AnyMap per_device = values.get(device::properties);
    auto core = get_core();
    for (const std::string& device : devices) {
        std::vector<PropertyName> supported;
        try {
            supported = core->supported_properties(device);
        } catch (const Exception& e) {
            if (e.kind() != ErrorKind::kNotFound && e.kind() != ErrorKind::kInvalidArgument) throw;
            throw_error<InvalidArgument>(owner, ": device '", device, "' in ",
                                         device::priorities.name(),
                                         " is not available: ", e.what());
        }
        auto supports = [&](const std::string& key) {
            return std::find(supported.begin(), supported.end(), key) != supported.end();
        };
        DeviceConfig dc;
        dc.name = device;
        if (supports(hint::performance_mode.name())) {
            // Each device of MULTI runs requests of its own: it optimises for throughput.
            dc.properties[hint::performance_mode.name()] =
                config.mode == Mode::kMulti ? hint::PerformanceMode::THROUGHPUT : config.hint;
        }
        for (const std::string key : {hint::num_requests.name(), enable_profiling.name()})
            if (properties.count(key) && supports(key)) dc.properties[key] = values.at(key);
        for (const std::string& name : {base_name(device), device}) {  // the full name's entry wins
            auto it = per_device.find(name);
            if (it == per_device.end()) continue;
            for (const auto& [key, value] : it->second.as<AnyMap>()) dc.properties[key] = value;
        }
        config.devices.push_back(std::move(dc));
    }
    return config;
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    const std::string owner = get_device_name();
    if (!model) throw_error<InvalidArgument>(owner, ": compile_model got no model");
    AnyMap for_table = properties;
    for (auto it = for_table.begin(); it != for_table.end();)  // the core's own keys stay with it
        it = sdk::is_core_key(it->first) ? for_table.erase(it) : std::next(it);
    AutoConfig config = config_for(for_table);
    // Our own copy: a fallback compiles later, after the caller may have changed theirs.
    std::shared_ptr<const Model> copy = model->clone();
    auto core = get_core();

    // Selection: a device is able when its query_model covers every op.
    std::vector<DeviceConfig> able;
    std::string reasons;
    for (const DeviceConfig& device : config.devices) {
        std::string missing;
        try {
            const sdk::SupportedOpsMap ops =
                core->query_model(copy, device.name, device.properties);
            for (const auto& node : copy->get_ordered_ops())
                if (!ops.count(node->get_friendly_name())) {
                    missing = "does not run op '" + node->get_friendly_name() + "' (" +
                              node->get_type_name() + ")";
                    break;
                }
        } catch (const Exception& e) {
            missing = std::string("query_model failed: ") + e.what();
        }
        if (missing.empty()) {
            able.push_back(device);
        } else {
            reasons += (reasons.empty() ? "" : "; ") + device.name + " " + missing;
            log_debug(vireo::detail::concat(owner, ": model '", copy->get_name(),
                                            "': ", device.name, " ", missing));
        }
    }
    if (able.empty())
        throw_error<NotImplemented>(owner, ": no listed device runs every op of model '",
                                    copy->get_name(), "': ", reasons);

    SchedulerConfig sc;
    sc.owner = owner;
    sc.mode = config.mode;
    sc.runtime_fallback = config.runtime_fallback;
    if (config.mode == Mode::kAuto && config.startup_fallback) {
        for (const char* host : {"CPU", "TEMPLATE"}) {
            auto it = std::find_if(able.begin(), able.end(), [&](const DeviceConfig& d) {
                return base_name(d.name) == host;
            });
            if (it != able.end()) {
                sc.host = static_cast<int>(it - able.begin());
                break;
            }
        }
    }
    sc.devices = std::move(able);
    auto self = std::static_pointer_cast<const Plugin>(shared_from_this());
    auto scheduler = std::make_shared<Scheduler>(
        copy, [self] { return self->get_core(); }, std::move(sc));
    scheduler->start();
    return std::make_shared<CompiledModel>(copy, self, std::move(scheduler), config.hint,
                                           config.startup_fallback);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream&, const AnyMap&) const {
    throw_error<NotImplemented>(get_device_name(), ": import_model is not supported (",
                                get_device_name(), " compiled models do not export)");
}

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(get_device_name(), ": query_model got no model");
    AnyMap for_table = properties;
    for (auto it = for_table.begin(); it != for_table.end();)
        it = sdk::is_core_key(it->first) ? for_table.erase(it) : std::next(it);
    const AutoConfig config = config_for(for_table);
    auto core = get_core();
    sdk::SupportedOpsMap out;
    for (const DeviceConfig& device : config.devices) {
        sdk::SupportedOpsMap ops;
        try {
            ops = core->query_model(model, device.name, device.properties);
        } catch (const Exception& e) {
            log_debug(vireo::detail::concat(get_device_name(), ": query_model on ", device.name,
                                            " failed: ", e.what()));
            continue;
        }
        for (const auto& [op, _] : ops) out[op] = get_device_name();
    }
    return out;
}

void Plugin::set_property(const AnyMap& properties) {
    table().set(properties);
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    AnyMap args = arguments;
    std::string listed = sdk::take_listed_devices(args);
    if (name == device::priorities.name() && !listed.empty()) return listed;
    if (name == device::capabilities.name()) {
        // What runs everywhere it may land: a capability every listed device has.
        std::vector<std::string> devices;
        try {
            devices = listed_devices(listed.empty() ? AnyMap{}
                                                    : AnyMap{{device::priorities.name(), listed}});
        } catch (const Exception&) {
            return std::vector<std::string>{device::capability::kFP32};
        }
        std::vector<std::string> caps{device::capability::kFP32, device::capability::kFP16,
                                      device::capability::kDynamicShapes,
                                      device::capability::kProfiling};
        auto core = get_core();
        for (const std::string& device : devices) {
            const auto theirs = core->get_property(device, device::capabilities.name(), {})
                                    .as<std::vector<std::string>>();
            caps.erase(std::remove_if(caps.begin(), caps.end(),
                                      [&](const std::string& c) { return !has(theirs, c); }),
                       caps.end());
        }
        return caps;
    }
    return table().get(name, args);
}

}  // namespace auto_plugin

VIREO_DEFINE_PLUGIN(auto_plugin::Plugin, VIREO_PLUGIN_VERSION)
