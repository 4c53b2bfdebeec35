// Implements HETERO's Plugin: configuration, affinity through the core's query_model, the
// split, and compiling each part through the core.
#include "plugin.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "affinity.hpp"
#include "compiled_model.hpp"
#include "graph_splitter.hpp"
#include "vireo/ir.hpp"
#include "vireo/sdk/blob_sections.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"
#include "vireo/sdk/device_list.hpp"
#include "vireo/sdk/icore.hpp"
#include "vireo/sdk/plugin_entry.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace hetero {
using namespace vireo;

namespace {

// HETERO keys passed on to each listed device that lists them.
const std::vector<std::string>& forwarded_keys() {
    static const std::vector<std::string> keys{
        enable_profiling.name(), hint::performance_mode.name(), hint::num_requests.name()};
    return keys;
}

}  // namespace

Plugin::Plugin()
    : m_properties(
          kDeviceName,
          {sdk::common::full_name([](const std::string&) { return "Vireo heterogeneous device"; }),
           sdk::common::capabilities({device::capability::kFP32}),
           // "HETERO:A,B", and the route hint::allow_fallback takes (the registry may override).
           sdk::common::meta_device(sdk::MetaDevice::kList),
           sdk::common::fallback_devices({"CPU", "TEMPLATE"}),
           sdk::rw<std::string>(device::priorities, "", "a comma-separated list of devices"),
           sdk::rw<AnyMap>(device::properties, AnyMap{}, "{DEVICE:{KEY:VALUE,...},...}"),
           sdk::common::performance_hint(), sdk::common::hint_num_requests(),
           sdk::common::profiling()}) {
    set_device_name(kDeviceName);
}

HeteroConfig Plugin::config_for(const AnyMap& properties, const std::string* devices) const {
    const sdk::PropertyValues values = m_properties.resolve(properties);
    HeteroConfig config;
    config.devices =
        sdk::split_device_list(kDeviceName, devices ? *devices : values.get(device::priorities));
    if (config.devices.empty())
        throw_error<InvalidArgument>(kDeviceName, ": no devices to run on; name them with \"",
                                     kDeviceName, ":A,B\" or the property ",
                                     device::priorities.name());
    config.profiling = values.get(enable_profiling);
    const AnyMap per_device = values.get(device::properties);
    auto core = get_core();
    for (const std::string& device : config.devices) {
        std::vector<PropertyName> supported;
        try {
            supported = core->supported_properties(device);
        } catch (const Exception& e) {
            if (e.kind() != ErrorKind::kNotFound) throw;
            throw_error<InvalidArgument>(kDeviceName, ": device '", device, "' in ",
                                         device::priorities.name(),
                                         " is not available: ", e.what());
        }
        AnyMap props;
        for (const std::string& key : forwarded_keys()) {
            const bool set_here = properties.count(key) != 0 || key == enable_profiling.name();
            if (set_here && std::find(supported.begin(), supported.end(), key) != supported.end())
                props[key] = values.at(key);
        }
        const std::string plain = device.substr(0, device.find('.'));
        for (const std::string& name : {plain, device}) {  // the full name's entry wins
            auto it = per_device.find(name);
            if (it == per_device.end()) continue;
            for (const auto& [key, value] : it->second.as<AnyMap>()) props[key] = value;
        }
        config.device_properties.push_back(std::move(props));
    }
    return config;
}

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": query_model got no model");
    const HeteroConfig config = config_for(properties);
    auto core = get_core();
    const Affinity affinity =
        assign_affinity(*model, config.devices, [&](const std::string& device) {
            const size_t i = std::find(config.devices.begin(), config.devices.end(), device) -
                             config.devices.begin();
            return core->query_model(model, device, config.device_properties[i]);
        });
    sdk::SupportedOpsMap out;
    for (const auto& node : model->get_ordered_ops()) {
        auto it = affinity.find(node.get());
        out[node->get_friendly_name()] = it != affinity.end() ? it->second : config.devices.front();
    }
    return out;
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": compile_model got no model");
    const HeteroConfig config = config_for(properties);
    auto core = get_core();
    auto index_of = [&](const std::string& device) {
        return static_cast<size_t>(std::find(config.devices.begin(), config.devices.end(), device) -
                                   config.devices.begin());
    };
    const Affinity affinity =
        assign_affinity(*model, config.devices, [&](const std::string& device) {
            return core->query_model(model, device, config.device_properties[index_of(device)]);
        });
    SplitPlan plan = split_model(*model, affinity);
    // When HETERO exports, the model cache stores it whole: its parts are not cached again.
    const std::vector<std::string> caps = capabilities_of(sdk::join_device_list(config.devices));
    const bool cached_whole =
        std::find(caps.begin(), caps.end(), device::capability::kExportImport) != caps.end();
    std::vector<CompiledModel::Part> parts;
    for (size_t i = 0; i < plan.submodels.size(); ++i) {
        Submodel& sub = plan.submodels[i];
        AnyMap props = config.device_properties[index_of(sub.device)];
        if (cached_whole) props[cache_dir.name()] = std::string();
        try {
            parts.push_back({sub.device, core->compile_model(sub.model, sub.device, props),
                             std::move(sub.inputs), std::move(sub.outputs)});
        } catch (...) {
            rethrow_with_context(std::current_exception(),
                                 std::string(kDeviceName) + ": compiling submodel #" +
                                     std::to_string(i) + " on " + sub.device);
        }
    }
    std::map<std::string, std::string> by_name;
    for (const auto& [node, device] : affinity) by_name[node->get_friendly_name()] = device;
    auto self = std::static_pointer_cast<const Plugin>(shared_from_this());
    return std::make_shared<CompiledModel>(model, self, std::move(parts), std::move(by_name),
                                           config.profiling, config.devices);
}

namespace {

// The slots of an imported blob index the model's inputs and outputs and the cut tensors, and
// requests index by them without checks: a blob that passed the core's checksum may still have
// been written by hand, so every slot is checked here (counts per part, index ranges, each cut
// written by exactly one earlier part before it is read).
void check_imported_parts(const Model& model, const std::vector<CompiledModel::Part>& parts) {
    auto damaged = [](size_t part, const std::string& what) {
        throw_error<InvalidArgument>(kDeviceName, ": damaged blob: submodel #", part, " ", what);
    };
    size_t cuts = 0;
    for (const auto& part : parts)
        for (const Slot& slot : part.outputs) cuts += slot.kind == Slot::Kind::kCut;
    std::vector<bool> written(cuts, false);
    for (size_t i = 0; i < parts.size(); ++i) {
        const CompiledModel::Part& part = parts[i];
        if (part.inputs.size() != part.compiled.inputs().size() ||
            part.outputs.size() != part.compiled.outputs().size())
            damaged(i, "lists " + std::to_string(part.inputs.size()) + " inputs and " +
                           std::to_string(part.outputs.size()) + " outputs, its model has " +
                           std::to_string(part.compiled.inputs().size()) + " and " +
                           std::to_string(part.compiled.outputs().size()));
        for (const Slot& slot : part.inputs) {
            if (slot.kind == Slot::Kind::kInput && slot.index >= model.inputs().size())
                damaged(i, "reads model input " + std::to_string(slot.index) + " of " +
                               std::to_string(model.inputs().size()));
            if (slot.kind == Slot::Kind::kOutput) damaged(i, "reads a model output");
            if (slot.kind == Slot::Kind::kCut && (slot.index >= cuts || !written[slot.index]))
                damaged(i, "reads cut " + std::to_string(slot.index) +
                               " that no earlier submodel writes");
        }
        for (const Slot& slot : part.outputs) {
            if (slot.kind == Slot::Kind::kInput) damaged(i, "writes a model input");
            if (slot.kind == Slot::Kind::kOutput && slot.index >= model.outputs().size())
                damaged(i, "writes model output " + std::to_string(slot.index) + " of " +
                               std::to_string(model.outputs().size()));
            if (slot.kind == Slot::Kind::kCut) {
                if (slot.index >= cuts || written[slot.index])
                    damaged(i,
                            "writes cut " + std::to_string(slot.index) + " twice or out of range");
                written[slot.index] = true;
            }
        }
    }
}

}  // namespace

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream& stream,
                                                          const AnyMap& properties) const {
    // The sections CompiledModel::export_model writes (see there).
    sdk::BlobSectionReader blob(stream, kDeviceName);
    const std::string devices = blob.string("devices");
    const HeteroConfig config = config_for(properties, &devices);
    std::shared_ptr<Model> model = blob.model();
    const bool profiling = blob.string("profiling") == "1";
    std::map<std::string, std::string> affinity;
    for (const std::string& name : blob.names("affinity:"))
        affinity[name.substr(std::strlen("affinity:"))] = blob.string(name);
    auto core = get_core();
    std::vector<CompiledModel::Part> parts;
    for (size_t i = 0; blob.has("part" + std::to_string(i) + ".device"); ++i) {
        const std::string prefix = "part" + std::to_string(i);
        const std::string device = blob.string(prefix + ".device");
        const auto it = std::find(config.devices.begin(), config.devices.end(), device);
        if (it == config.devices.end())
            throw_error<InvalidArgument>(kDeviceName, ": damaged blob: submodel #", i,
                                         " names device '", device, "', which is not in its list ",
                                         devices);
        std::vector<Slot> inputs =
            decode_slots(blob.string(prefix + ".inputs"), prefix + ".inputs");
        std::vector<Slot> outputs =
            decode_slots(blob.string(prefix + ".outputs"), prefix + ".outputs");
        std::istringstream in(blob.string(prefix + ".blob"));
        try {
            parts.push_back({device,
                             core->import_model(
                                 in, device, config.device_properties[it - config.devices.begin()]),
                             std::move(inputs), std::move(outputs)});
        } catch (...) {
            rethrow_with_context(std::current_exception(), std::string(kDeviceName) +
                                                               ": importing submodel #" +
                                                               std::to_string(i) + " on " + device);
        }
    }
    blob.expect_all_read();
    check_imported_parts(*model, parts);
    auto self = std::static_pointer_cast<const Plugin>(shared_from_this());
    return std::make_shared<CompiledModel>(model, self, std::move(parts), std::move(affinity),
                                           profiling, config.devices);
}

void Plugin::set_property(const AnyMap& properties) {
    m_properties.set(properties);
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    AnyMap args = arguments;
    std::string listed = sdk::take_listed_devices(args);
    if (name == device::priorities.name() && !listed.empty()) return listed;
    if (name == device::capabilities.name()) {
        if (listed.empty()) listed = m_properties.get(device::priorities.name(), args).to_string();
        return capabilities_of(listed);
    }
    return m_properties.get(name, args);
}

std::shared_ptr<sdk::ITaskExecutor> Plugin::callback_executor() const {
    // Owned by the plugin object rather than by each compiled model: completions are short (the
    // user's callback), so one thread serves every model of a core, as the process-wide
    // "HETERO/callback" executor did, without a thread per compiled model. Lazily, so a HETERO
    // that only answers queries starts no thread.
    std::lock_guard<std::mutex> lock(m_callback_mutex);
    if (!m_callback_executor)
        m_callback_executor =
            std::make_shared<sdk::CPUStreamsExecutor>(sdk::StreamsConfig{"HETERO/callback", 1, 1});
    return m_callback_executor;
}

std::vector<std::string> Plugin::capabilities_of(const std::string& devices) const {
    // What HETERO over these devices can do: states and profiling when any listed device has
    // them (a variable goes to a device that runs it), dynamic shapes and export when all do.
    std::vector<std::string> caps{device::capability::kFP32};
    if (devices.empty()) return caps;
    bool any_states = false, any_profiling = false, all_dynamic = true, all_export = true;
    auto core = get_core();
    for (const std::string& device : sdk::split_device_list(kDeviceName, devices)) {
        const auto theirs = core->get_property(device, device::capabilities.name(), {})
                                .as<std::vector<std::string>>();
        auto has = [&](const char* c) {
            return std::find(theirs.begin(), theirs.end(), c) != theirs.end();
        };
        any_states = any_states || has(device::capability::kStates);
        any_profiling = any_profiling || has(device::capability::kProfiling);
        all_dynamic = all_dynamic && has(device::capability::kDynamicShapes);
        all_export = all_export && has(device::capability::kExportImport);
    }
    if (all_export) caps.push_back(device::capability::kExportImport);
    if (all_dynamic) caps.push_back(device::capability::kDynamicShapes);
    if (any_states) caps.push_back(device::capability::kStates);
    if (any_profiling) caps.push_back(device::capability::kProfiling);
    return caps;
}

}  // namespace hetero

VIREO_DEFINE_PLUGIN(hetero::Plugin, VIREO_PLUGIN_VERSION)
