// Declares PropertyTable: a plugin's (or a compiled model's) properties declared once — key,
// type, default, accepted values, mutability and scope — from which set_property, get_property,
// SUPPORTED_PROPERTIES, the standard errors and per-instance values all come.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/properties.hpp"

namespace vireo::sdk {

/// The keys a meta-device declares (common::meta_device, common::fallback_devices); the same
/// keys in a plugins.xml entry or register_plugin's properties override the plugin's values and
/// are read by the core, never passed to the plugin.
inline constexpr const char* kMetaDeviceKey = "META_DEVICE";
inline constexpr const char* kFallbackDevicesKey = "FALLBACK_DEVICES";

/// The grammar of a meta-device's name (the value of META_DEVICE: "LIST" or "BATCH").
enum class MetaDevice {
    kList,   ///< "NAME:A,B": devices in order, passed as device::priorities (HETERO, AUTO, MULTI)
    kBatch,  ///< "NAME:A" or "NAME:A(N)": one device (device::priorities) and device::batch_size
};

/// Where a property's value lives.
enum class PropertyScope {
    kPlugin,    ///< one value for the whole plugin, set with set_property only (a device count)
    kInstance,  ///< per device instance: set_property on "NAME" sets every instance, on "NAME.N"
                ///< (DEVICE_ID=N in the map) that instance; compile_model / query_model /
                ///< import_model arguments override it for one call
    kCompiledModel,  ///< a compiled model's own key (lives in the compiled model's table)
};

/// One declared property. Build them with rw(), in_range() and ro() below, or take a common
/// one from namespace `common`.
struct PropertySpec {
    PropertyName name;  ///< with its mutability
    PropertyScope scope = PropertyScope::kInstance;
    Any default_value;     ///< RW: the value before any set
    std::string accepted;  ///< what a good value looks like, quoted in InvalidArgument messages
    /// RW: converts a value to the canonical type and checks it; returns the value to store or
    /// throws (any exception: the table turns it into InvalidArgument naming key, value and
    /// `accepted`).
    std::function<Any(const Any&)> parse;
    /// RO: computes the value for an instance id ("" for a single-instance device).
    std::function<Any(const std::string& instance)> read;
};

/// A read-write key of type T. `valid` (optional) accepts or refuses a converted value.
template <typename T>
PropertySpec rw(const Property<T>& key, T default_value, std::string accepted,
                std::function<bool(const T&)> valid = {},
                PropertyScope scope = PropertyScope::kInstance) {
    PropertySpec spec;
    spec.name = PropertyName(key.name(), PropertyMutability::RW);
    spec.scope = scope;
    spec.default_value = Any(default_value);
    spec.accepted = std::move(accepted);
    spec.parse = [valid](const Any& value) -> Any {
        T typed = value.as<T>();
        if (valid && !valid(typed)) throw_error<InvalidArgument>("out of range");
        return Any(std::move(typed));
    };
    return spec;
}

/// A read-write integer key accepting `min` to `max` (both included).
template <typename T>
PropertySpec in_range(const Property<T>& key, T default_value, T min, T max,
                      PropertyScope scope = PropertyScope::kInstance) {
    std::ostringstream accepted;
    accepted << "an integer from " << +min << " to " << +max;
    return rw<T>(
        key, default_value, accepted.str(), [min, max](const T& v) { return v >= min && v <= max; },
        scope);
}

/// A read-only key whose value `read` computes (for the instance asked about).
PropertySpec ro(const std::string& name, std::function<Any(const std::string& instance)> read,
                PropertyScope scope = PropertyScope::kPlugin);

/// A read-only key with one fixed value (a compiled model's settings, a device's constant facts).
PropertySpec fixed(const std::string& name, Any value,
                   PropertyScope scope = PropertyScope::kPlugin);

/// Puts `spec` into `specs`: replaces the spec of the same key, or appends it. For changing one
/// of the common lists (compiled_model_keys) before building a table, which refuses a key
/// declared twice.
void set_spec(std::vector<PropertySpec>& specs, PropertySpec spec);

/// The keys every plugin shares, declared once with one range and one wording. Use them rather
/// than declaring these keys yourself, so every device accepts the same values.
namespace common {
/// PERFORMANCE_HINT: LATENCY (default), THROUGHPUT or CUMULATIVE_THROUGHPUT. Every plugin must
/// accept it (benchmark_app sets it by default), even if it only records it.
PropertySpec performance_hint();
/// PERFORMANCE_HINT_NUM_REQUESTS: 0 (no limit, default) or more.
PropertySpec hint_num_requests();
/// NUM_STREAMS: 0 (from the performance hint, default) to kMaxStreams (256).
PropertySpec num_streams();
/// INFERENCE_NUM_THREADS: 0 (all cores, default) to kMaxThreads (1024).
PropertySpec inference_num_threads();
/// PERF_COUNT: per-op and per-stage timings (default false). With PropertyScope::kCompiledModel
/// it is a compiled model's read-write key (set_property switches profiling for later runs: read
/// it per run); a compiled model that cannot switch declares fixed(enable_profiling.name(), v).
PropertySpec profiling(bool default_value = false, PropertyScope scope = PropertyScope::kInstance);
/// OPTIMAL_NUMBER_OF_INFER_REQUESTS (compiled model, read-only) answered by `read`.
PropertySpec optimal_number_of_infer_requests(std::function<uint32_t()> read);
/// FULL_DEVICE_NAME and OPTIMIZATION_CAPABILITIES (read-only, plugin-wide).
PropertySpec full_name(std::function<std::string(const std::string& instance)> read);
PropertySpec capabilities(std::vector<std::string> capabilities);
/// DEVICE_TYPE (read-only, plugin-wide). Declare it: a device without it is never chosen by plain
/// "AUTO" / "MULTI" (only where it is named), as SIMULATED devices are.
PropertySpec device_type(device::Type type);
/// META_DEVICE (read-only, plugin-wide): what the device's name may say after a ':'. The core
/// reads it when a name "NAME:..." is first used (loading the plugin) unless the device's
/// registration (plugins.xml, register_plugin) sets the key, which wins. A plugin that declares
/// nothing gets the list form. docs/plugin_author_guide.md, "Declaring a meta-device".
///     sdk::common::meta_device(sdk::MetaDevice::kList)   // "NAME:A,B" -> device::priorities
PropertySpec meta_device(MetaDevice kind);
/// FALLBACK_DEVICES (read-only, plugin-wide), for a META_DEVICE LIST device: this device is the
/// route hint::allow_fallback compiles through ("NAME:device,A"), onto the first of `devices`
/// that is registered and loads. One device is the route: a registration's FALLBACK_DEVICES
/// wins over every plugin's; among plugins, the first registered that declares it.
///     sdk::common::fallback_devices({"CPU", "TEMPLATE"})   // HETERO
PropertySpec fallback_devices(const std::vector<std::string>& devices);
}  // namespace common

/// The keys the core owns (CACHE_DIR, LOADED_FROM_CACHE, ALLOW_FALLBACK): the one list the core
/// and the SDK share. The core answers them for every device; those it passes in compile/import
/// arguments (CACHE_DIR, LOADED_FROM_CACHE) a table accepts in resolve() and leaves to the
/// plugin (PropertyValues::call()).
bool is_core_key(const std::string& key);

/// The values one call runs with (see PropertyTable::resolve): defaults, overridden by plugin-
/// wide values, by the instance's values, by the call's arguments. A plain value.
class PropertyValues {
  public:
    /// The instance id the call is for ("" for a single-instance device).
    const std::string& instance() const { return m_instance; }
    template <typename T, PropertyMutability M>
    T get(const Property<T, M>& key) const {
        return at(key.name()).template as<T>();
    }
    /// Throws NotFound naming the key when it is not declared.
    const Any& at(const std::string& name) const;
    /// Every read-write value, by key (what an exported blob stores).
    const AnyMap& map() const { return m_values; }
    /// The call's arguments as given (including keys the core owns).
    const AnyMap& call() const { return m_call; }
    /// The device name the caller used, for EXECUTION_DEVICES and messages: `device` for a
    /// device serving one instance, "device.id" for the instance of a multi-instance one.
    std::string device_name(const std::string& device) const {
        return m_single_instance ? device : device + "." + m_instance;
    }

  private:
    friend class PropertyTable;
    bool m_single_instance = true;
    std::string m_instance;
    AnyMap m_values;
    AnyMap m_call;
};

/// A declared set of properties and their current values (plugin-wide and per instance).
///
/// Errors (messages start with the owner, e.g. "TEMPLATE: "):
/// - unknown key: NotFound naming the key and listing the supported ones;
/// - bad value: InvalidArgument naming the key, the value and the accepted values;
/// - setting a read-only key: InvalidArgument "... is read-only";
/// - a DEVICE_ID the device does not serve: InvalidArgument listing the ids it serves.
/// A multi-key set() is atomic: every key and value is checked before any is applied.
///
/// Instances: a table serves the ids given to set_instances() (default {""}: one instance,
/// for which DEVICE_ID accepts "" and "0" and reads "0", and AVAILABLE_DEVICES is {"0"}; the core
/// lists a device with one id by its plain name). DEVICE_ID "" always means the default instance.
/// DEVICE_ID in a set() map selects the instance the other keys go to; a map with DEVICE_ID alone
/// makes it the default instance (OpenVINO's meaning). Without DEVICE_ID, set() changes the
/// plugin-wide value and drops the instances' own values of those keys. SUPPORTED_PROPERTIES,
/// AVAILABLE_DEVICES and DEVICE_ID are answered by the table itself (a compiled model's table:
/// SUPPORTED_PROPERTIES only).
///
/// Thread safety: every method may be called from several threads at once.
///
///     sdk::PropertyTable table("ECHO", {sdk::common::performance_hint(),
///                                       sdk::common::profiling()});
///     table.set({{"PERF_COUNT", "YES"}});
///     sdk::PropertyValues v = table.resolve(compile_arguments);
///     bool perf = v.get(enable_profiling);
class PropertyTable {
  public:
    /// `owner` starts every error message. `plugin_table` adds AVAILABLE_DEVICES and DEVICE_ID.
    /// Throws InvalidArgument when `specs` declare a key twice or one the table answers itself
    /// (set_spec replaces a key in a list).
    PropertyTable(std::string owner, std::vector<PropertySpec> specs, bool plugin_table = true);

    /// set_property: checks every key and value, then applies them all.
    void set(const AnyMap& properties);
    /// get_property: `arguments` may hold DEVICE_ID (the instance asked about).
    Any get(const std::string& name, const AnyMap& arguments = {}) const;
    /// Every declared key with its mutability, SUPPORTED_PROPERTIES first.
    std::vector<PropertyName> supported() const;
    /// The values a compile_model / query_model / import_model call runs with. `arguments` may
    /// carry DEVICE_ID, instance-scoped RW keys and the core's keys; anything else is NotFound
    /// (unknown) or InvalidArgument (read-only, plugin-wide, bad value).
    PropertyValues resolve(const AnyMap& arguments) const;

    /// The instance ids the device serves ("0", "1", ...); the first is the default.
    void set_instances(std::vector<std::string> ids);
    std::vector<std::string> instances() const;
    /// The instance `arguments` select (their DEVICE_ID, else the default); checks the id.
    std::string instance_of(const AnyMap& arguments) const;

  private:
    const PropertySpec* find(const std::string& name) const;
    [[noreturn]] void throw_unknown(const std::string& name) const;
    Any parse(const PropertySpec& spec, const Any& value) const;
    std::string checked_instance(const std::string& id) const;  // needs m_mutex held

    std::string m_owner;
    std::vector<PropertySpec> m_specs;
    bool m_plugin_table;
    mutable std::mutex m_mutex;
    std::vector<std::string> m_instances{""};
    std::string m_default_instance;
    AnyMap m_values;                                  // plugin-wide RW values
    std::map<std::string, AnyMap> m_instance_values;  // per-instance overrides
};

}  // namespace vireo::sdk
