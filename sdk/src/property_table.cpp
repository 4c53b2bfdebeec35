// Implements PropertyTable and the SDK's declarations of the common keys.
#include "vireo/sdk/property_table.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "vireo/sdk/cpu_streams_executor.hpp"
#include "vireo/sdk/device_list.hpp"

namespace vireo::sdk {
namespace {

std::string list(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::string quoted_ids(const std::vector<std::string>& ids) {
    std::string out;
    for (const auto& id : ids) out += (out.empty() ? "\"" : ", \"") + id + "\"";
    return out;
}

}  // namespace

PropertySpec ro(const std::string& name, std::function<Any(const std::string&)> read,
                PropertyScope scope) {
    PropertySpec spec;
    spec.name = PropertyName(name, PropertyMutability::RO);
    spec.scope = scope;
    spec.read = std::move(read);
    return spec;
}

PropertySpec fixed(const std::string& name, Any value, PropertyScope scope) {
    return ro(
        name, [value = std::move(value)](const std::string&) { return value; }, scope);
}

void set_spec(std::vector<PropertySpec>& specs, PropertySpec spec) {
    for (auto& declared : specs)
        if (declared.name == spec.name) {
            declared = std::move(spec);
            return;
        }
    specs.push_back(std::move(spec));
}

bool is_core_key(const std::string& key) {
    return key == cache_dir.name() || key == loaded_from_cache.name() ||
           key == hint::allow_fallback.name();
}

namespace common {

PropertySpec performance_hint() {
    return rw<hint::PerformanceMode>(hint::performance_mode, hint::PerformanceMode::LATENCY,
                                     "LATENCY, THROUGHPUT or CUMULATIVE_THROUGHPUT");
}

PropertySpec hint_num_requests() {
    return rw<uint32_t>(hint::num_requests, 0u, "an integer >= 0 (0: no limit)");
}

PropertySpec num_streams() {
    return in_range<int32_t>(vireo::num_streams, 0, 0, kMaxStreams);
}

PropertySpec inference_num_threads() {
    return in_range<int32_t>(vireo::inference_num_threads, 0, 0, kMaxThreads);
}

PropertySpec profiling(bool default_value, PropertyScope scope) {
    return rw<bool>(enable_profiling, default_value, "YES/NO, true/false or 1/0", {}, scope);
}

PropertySpec optimal_number_of_infer_requests(std::function<uint32_t()> read) {
    return ro(
        vireo::optimal_number_of_infer_requests.name(),
        [read](const std::string&) { return Any(read()); }, PropertyScope::kCompiledModel);
}

PropertySpec full_name(std::function<std::string(const std::string&)> read) {
    return ro(device::full_name.name(),
              [read](const std::string& instance) { return Any(read(instance)); });
}

PropertySpec capabilities(std::vector<std::string> capabilities) {
    return fixed(device::capabilities.name(), capabilities);
}

PropertySpec device_type(device::Type type) {
    return fixed(device::type.name(), type);
}

PropertySpec meta_device(MetaDevice kind) {
    return fixed(kMetaDeviceKey, std::string(kind == MetaDevice::kBatch ? "BATCH" : "LIST"));
}

PropertySpec fallback_devices(const std::vector<std::string>& devices) {
    return fixed(kFallbackDevicesKey, join_device_list(devices));
}

}  // namespace common

const Any& PropertyValues::at(const std::string& name) const {
    auto it = m_values.find(name);
    if (it == m_values.end())
        throw_error<NotFound>("property ", name, " is not declared in the property table");
    return it->second;
}

PropertyTable::PropertyTable(std::string owner, std::vector<PropertySpec> specs, bool plugin_table)
    : m_owner(std::move(owner)), m_specs(std::move(specs)), m_plugin_table(plugin_table) {
    std::vector<std::string> seen{supported_properties.name()};
    if (m_plugin_table) {
        seen.push_back(available_devices.name());
        seen.push_back(device::id.name());
    }
    for (const auto& spec : m_specs) {
        const std::string& name = spec.name;
        if (std::find(seen.begin(), seen.end(), name) != seen.end())
            throw_error<InvalidArgument>(m_owner, ": property ", name,
                                         " is declared twice in the property table");
        seen.push_back(name);
        if (spec.name.is_mutable()) m_values[spec.name] = spec.default_value;
    }
}

const PropertySpec* PropertyTable::find(const std::string& name) const {
    for (const auto& spec : m_specs)
        if (spec.name == name) return &spec;
    return nullptr;
}

std::vector<PropertyName> PropertyTable::supported() const {
    std::vector<PropertyName> out{
        PropertyName(supported_properties.name(), PropertyMutability::RO)};
    if (m_plugin_table) {
        out.emplace_back(available_devices.name(), PropertyMutability::RO);
        out.emplace_back(device::id.name(), PropertyMutability::RW);
    }
    for (const auto& spec : m_specs) out.push_back(spec.name);
    return out;
}

void PropertyTable::throw_unknown(const std::string& name) const {
    std::vector<std::string> names;
    for (const auto& key : supported()) names.push_back(key);
    throw_error<NotFound>(m_owner, ": unsupported property ", name, " (supported: ", list(names),
                          ")");
}

Any PropertyTable::parse(const PropertySpec& spec, const Any& value) const {
    try {
        return spec.parse(value);
    } catch (const std::exception&) {
        throw_error<InvalidArgument>(m_owner, ": property ", std::string(spec.name),
                                     " has a bad value '", value.to_string(), "' (expected ",
                                     spec.accepted, ")");
    }
}

std::string PropertyTable::checked_instance(const std::string& id) const {
    if (id.empty()) return m_default_instance;
    if (std::find(m_instances.begin(), m_instances.end(), id) != m_instances.end()) return id;
    // A single-instance device also answers to "0".
    if (m_instances.size() == 1 && m_instances[0].empty() && id == "0") return "";
    throw_error<InvalidArgument>(m_owner, ": property ", device::id.name(), " has a bad value '",
                                 id, "' (expected one of the device ids this plugin serves: ",
                                 m_instances.size() == 1 && m_instances[0].empty()
                                     ? std::string("\"\" or \"0\"")
                                     : quoted_ids(m_instances),
                                 ")");
}

std::string PropertyTable::instance_of(const AnyMap& arguments) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = arguments.find(device::id.name());
    if (it == arguments.end() || !m_plugin_table) return m_default_instance;
    return checked_instance(it->second.to_string());
}

void PropertyTable::set_instances(std::vector<std::string> ids) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_instances = ids.empty() ? std::vector<std::string>{""} : std::move(ids);
    if (std::find(m_instances.begin(), m_instances.end(), m_default_instance) == m_instances.end())
        m_default_instance = m_instances.front();
    for (auto it = m_instance_values.begin(); it != m_instance_values.end();)
        it = std::count(m_instances.begin(), m_instances.end(), it->first)
                 ? std::next(it)
                 : m_instance_values.erase(it);
}

std::vector<std::string> PropertyTable::instances() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_instances;
}

void PropertyTable::set(const AnyMap& properties) {
    // Check everything first: keys, read-only, values (outside the lock: parse is pure).
    AnyMap parsed;
    std::optional<std::string> id;
    for (const auto& [key, value] : properties) {
        if (m_plugin_table && key == device::id.name()) {
            id = value.to_string();
            continue;
        }
        if (key == supported_properties.name() ||
            (m_plugin_table && key == available_devices.name()))
            throw_error<InvalidArgument>(m_owner, ": property ", key, " is read-only");
        const PropertySpec* spec = find(key);
        if (!spec) throw_unknown(key);
        if (!spec->name.is_mutable())
            throw_error<InvalidArgument>(m_owner, ": property ", key, " is read-only");
        parsed[key] = parse(*spec, value);
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    const std::string instance = id ? checked_instance(*id) : std::string();
    if (id && parsed.empty()) {
        m_default_instance = instance;
        return;
    }
    for (const auto& [key, value] : parsed) {
        if (id && find(key)->scope == PropertyScope::kInstance) {
            m_instance_values[instance][key] = value;
            continue;
        }
        m_values[key] = value;
        for (auto& [other, values] : m_instance_values) values.erase(key);
    }
}

Any PropertyTable::get(const std::string& name, const AnyMap& arguments) const {
    if (name == supported_properties.name()) return supported();
    const std::string instance = instance_of(arguments);
    if (m_plugin_table && name == available_devices.name()) {
        std::vector<std::string> ids = instances();
        if (ids.size() == 1 && ids[0].empty()) ids[0] = "0";  // the single unnamed instance
        return ids;
    }
    if (m_plugin_table && name == device::id.name())
        return instance.empty() ? std::string("0") : instance;
    const PropertySpec* spec = find(name);
    if (!spec) throw_unknown(name);
    if (spec->read) return spec->read(instance);
    std::lock_guard<std::mutex> lock(m_mutex);
    auto own = m_instance_values.find(instance);
    if (own != m_instance_values.end()) {
        auto it = own->second.find(name);
        if (it != own->second.end()) return it->second;
    }
    return m_values.at(name);
}

PropertyValues PropertyTable::resolve(const AnyMap& arguments) const {
    PropertyValues out;
    out.m_call = arguments;
    AnyMap parsed;
    for (const auto& [key, value] : arguments) {
        if ((m_plugin_table && key == device::id.name()) || is_core_key(key)) continue;
        const PropertySpec* spec = find(key);
        if (!spec) throw_unknown(key);
        if (!spec->name.is_mutable())
            throw_error<InvalidArgument>(m_owner, ": property ", key,
                                         " is read-only and cannot be passed to a call");
        if (spec->scope == PropertyScope::kPlugin)
            throw_error<InvalidArgument>(m_owner, ": property ", key,
                                         " is plugin-wide: set it with set_property");
        parsed[key] = parse(*spec, value);
    }
    out.m_instance = instance_of(arguments);
    std::lock_guard<std::mutex> lock(m_mutex);
    out.m_single_instance = m_instances.size() == 1;
    out.m_values = m_values;
    auto own = m_instance_values.find(out.m_instance);
    if (own != m_instance_values.end())
        for (const auto& [key, value] : own->second) out.m_values[key] = value;
    for (const auto& [key, value] : parsed) out.m_values[key] = value;
    return out;
}

}  // namespace vireo::sdk
