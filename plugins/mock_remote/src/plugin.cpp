// Implements the MOCK_REMOTE plugin: instances and their settings, compile/import/query, remote
// contexts, properties, and the module entry point.
#include "plugin.hpp"

#include <algorithm>
#include <cctype>
#include <thread>

#include "compiled_model.hpp"
#include "remote_context.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/sdk/blob_sections.hpp"
#include "vireo/sdk/plugin_entry.hpp"
#include "vireo/sdk/support_check.hpp"
#include "zeroed_buffer.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace vireo::mock_remote {
namespace {

constexpr uint32_t kMaxDevices = 16;
constexpr const char* kBaseName = "MOCK_REMOTE";

BusModel bus_of(const Config& config) {
    return {config.timing.bus_gbps, config.timing.bus_latency_us};
}

std::vector<std::string> ids_up_to(uint32_t count) {
    std::vector<std::string> ids;
    for (uint32_t i = 0; i < count; ++i) ids.push_back(std::to_string(i));
    return ids;
}

}  // namespace

Plugin::Plugin() : m_devices(kMaxDevices), m_default_contexts(kMaxDevices) {
    namespace cap = device::capability;
    std::vector<sdk::PropertySpec> specs = Config::specs();
    specs.push_back(
        sdk::in_range<uint32_t>(device_count, 2, 1, kMaxDevices, sdk::PropertyScope::kPlugin));
    specs.push_back(sdk::common::full_name([this](const std::string& id) {
        return "Vireo simulated remote device " + instance_name(std::stoul(id));
    }));
    specs.push_back(sdk::common::device_type(device::Type::SIMULATED));  // never implicit in AUTO
    specs.push_back(sdk::common::capabilities(
        {cap::kFP32, cap::kExportImport, cap::kRemoteTensors, cap::kProfiling}));
    // Counters: an instance nobody used yet has all counters at zero; do not create it.
    auto counter = [this](const char* name, uint64_t (*read)(Device&)) {
        return sdk::ro(name, [this, read](const std::string& id) {
            std::lock_guard<std::mutex> lock(m_mutex);
            const auto& device = m_devices.at(std::stoul(id));
            return Any(device ? read(*device) : uint64_t{0});
        });
    };
    specs.push_back(counter(max_queue_depth.name(), [](Device& d) { return d.max_queue_depth(); }));
    specs.push_back(counter(jobs_completed.name(), [](Device& d) { return d.jobs_completed(); }));
    specs.push_back(counter(jobs_failed.name(), [](Device& d) { return d.jobs_failed(); }));
    specs.push_back(counter(jobs_cancelled.name(), [](Device& d) { return d.jobs_cancelled(); }));
    specs.push_back(counter(allocated_bytes.name(), [](Device& d) {
        return static_cast<uint64_t>(d.memory().allocated_bytes());
    }));
    m_properties = std::make_unique<sdk::PropertyTable>(kBaseName, std::move(specs));
    m_properties->set_instances(ids_up_to(2));
}

Plugin::~Plugin() = default;

std::string Plugin::instance_name(size_t index) const {
    const std::string& registered = get_device_name();
    return (registered.empty() ? std::string(kBaseName) : registered) + "." + std::to_string(index);
}

size_t Plugin::instance_index(const AnyMap& properties) const {
    return std::stoul(m_properties->instance_of(properties));
}

std::shared_ptr<Device> Plugin::instance(size_t index) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto& device = m_devices.at(index);
    if (!device) {
        // The instance owns its wait executor, so every model on it (and only on it, in this
        // plugin object) shares those threads.
        device = std::make_shared<Device>(instance_name(index));
        device->set_bus_model(bus_of(instance_config(index)));
    }
    return device;
}

Config Plugin::instance_config(size_t index) const {
    return Config::from(m_properties->resolve({{device::id.name(), std::to_string(index)}}).map());
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile(const std::shared_ptr<const Model>& model,
                                                     size_t index, Config config,
                                                     bool imported) const {
    if (!model) throw_error<InvalidArgument>(kBaseName, ": compile_model was given no model");
    auto compiled = std::make_shared<CompiledModel>(
        model->clone(), std::static_pointer_cast<const Plugin>(shared_from_this()), instance(index),
        std::to_string(index), config, imported);
    // A real compiler takes time; model it so that a model cache makes a visible difference.
    if (!imported) std::this_thread::sleep_for(std::chrono::milliseconds(config.timing.compile_ms));
    return compiled;
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    const sdk::PropertyValues values = m_properties->resolve(properties);
    return compile(model, std::stoul(values.instance()), Config::from(values.map()), false);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties,
    const std::shared_ptr<sdk::IRemoteContext>& context) const {
    auto ours = std::dynamic_pointer_cast<RemoteContext>(context);
    if (!ours)
        throw_error<InvalidArgument>(kBaseName, ": compile_model needs a ", kBaseName,
                                     " remote context, found one of ",
                                     context ? context->get_device_name() : std::string("(none)"));
    const std::string id = ours->get_property().at(device::id.name()).as<std::string>();
    if (properties.count(device::id.name()) && instance_index(properties) != std::stoul(id))
        throw_error<InvalidArgument>(kBaseName, ": the context is for ", ours->get_device_name(),
                                     " but the properties ask for device id ",
                                     properties.at(device::id.name()).as<std::string>());
    AnyMap arguments = properties;
    arguments[device::id.name()] = id;
    const sdk::PropertyValues values = m_properties->resolve(arguments);
    return compile(model, std::stoul(id), Config::from(values.map()), false);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream& stream,
                                                          const AnyMap& properties) const {
    m_properties->resolve(properties);  // checks the call's keys before reading the blob
    // The core has checked the blob's plugin version and checksum (sdk/blob_container.hpp).
    sdk::BlobSectionReader blob(stream, "MOCK_REMOTE");
    AnyMap arguments = blob.properties();
    for (const auto& [key, value] : properties) arguments[key] = value;
    const sdk::PropertyValues values = m_properties->resolve(arguments);
    // The weights are read once, into a buffer of their own (64-byte aligned like the offsets the
    // IR writer gives constants, huge pages when large) that the model's Constants share.
    const auto size = static_cast<size_t>(blob.size("ir.bin"));
    const auto buffer = std::make_shared<ZeroedBuffer>(size);
    std::shared_ptr<Model> model = blob.model(
        size ? Tensor::wrap_shared(element::u8, Shape{size}, buffer->data(), buffer) : Tensor());
    blob.expect_all_read();
    return compile(model, std::stoul(values.instance()), Config::from(values.map()), true);
}

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kBaseName, ": query_model was given no model");
    const std::string name =
        instance_name(std::stoul(m_properties->resolve(properties).instance()));
    return sdk::supported_ops(*model, name, ExecutionPlan::runs, sdk::SupportScope::kAllNodes);
}

void Plugin::set_property(const AnyMap& properties) {
    // A new count changes the ids served. The call is atomic: a bad value anywhere changes
    // nothing, the count included. The count alone is checked and set first; a larger one serves
    // its new ids before the rest is applied (so the call may address them), a smaller one drops
    // ids (and their own settings) only once the rest succeeded.
    std::lock_guard<std::mutex> serial(m_set_mutex);
    auto it = properties.find(device_count.name());
    if (it == properties.end()) {
        m_properties->set(properties);
    } else {
        const uint32_t before = m_properties->get(device_count.name()).as<uint32_t>();
        m_properties->set({{device_count.name(), it->second}});
        const uint32_t after = m_properties->get(device_count.name()).as<uint32_t>();
        if (after >= before) m_properties->set_instances(ids_up_to(after));
        try {
            m_properties->set(properties);
        } catch (...) {
            m_properties->set({{device_count.name(), before}});
            m_properties->set_instances(ids_up_to(before));
            throw;
        }
        if (after < before) m_properties->set_instances(ids_up_to(after));
    }
    // Existing instances see new bus settings at once (compiled models keep their own).
    for (size_t i = 0; i < m_devices.size(); ++i) {
        std::shared_ptr<Device> device;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            device = m_devices.at(i);
        }
        if (device) device->set_bus_model(bus_of(instance_config(i)));
    }
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    return m_properties->get(name, arguments);
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
