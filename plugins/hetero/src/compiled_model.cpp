// Implements HETERO's CompiledModel: merged properties, the runtime model, and its requests.
#include "compiled_model.hpp"

#include <algorithm>
#include <sstream>

#include "async_infer_request.hpp"
#include "plugin.hpp"
#include "sync_infer_request.hpp"
#include "vireo/hetero/properties.hpp"
#include "vireo/ir.hpp"
#include "vireo/sdk/blob_sections.hpp"
#include "vireo/sdk/device_list.hpp"

namespace hetero {
using namespace vireo;

namespace {

std::function<Any(const std::string&)> fixed(Any value) {
    return [value](const std::string&) { return value; };
}

}  // namespace

CompiledModel::CompiledModel(const std::shared_ptr<const Model>& model,
                             const std::shared_ptr<const Plugin>& plugin, std::vector<Part> parts,
                             std::map<std::string, std::string> affinity, bool profiling,
                             const std::vector<std::string>& devices)
    // Requests run their stages on the parts' own executors; the completion (the user's
    // callback) runs on one shared thread so that it never runs inside a part's callback.
    : sdk::ICompiledModel(model, plugin, std::make_shared<sdk::ImmediateExecutor>(),
                          plugin->callback_executor()),
      m_model(model->clone()),
      m_parts(std::move(parts)),
      m_passthroughs(passthroughs_of(*model)),
      m_affinity(std::move(affinity)),
      m_devices(devices) {
    for (const Part& part : m_parts) {
        for (size_t o = 0; o < part.outputs.size(); ++o) {
            if (part.outputs[o].kind != Slot::Kind::kCut) continue;
            const size_t c = part.outputs[o].index;
            if (m_cuts.size() <= c) m_cuts.resize(c + 1);
            const Output port = part.compiled.outputs().at(o);
            m_cuts[c] = Cut{port.get_element_type(), port.get_partial_shape(),
                            part.device + " #output " + std::to_string(o)};
        }
    }

    std::vector<std::string> execution;
    uint32_t optimal = 1;
    AnyMap per_device;
    for (const Part& part : m_parts) {
        std::vector<std::string> reported{part.device};
        try {
            reported = part.compiled.get_property(execution_devices);
        } catch (const Exception&) {
            // a part that does not report them ran on the device it was compiled for
        }
        for (const auto& d : reported)
            if (std::find(execution.begin(), execution.end(), d) == execution.end())
                execution.push_back(d);
        try {
            optimal =
                std::max(optimal, part.compiled.get_property(optimal_number_of_infer_requests));
        } catch (const Exception&) {
            // a part that does not say counts as one request
        }
        if (per_device.count(part.device)) continue;
        AnyMap values;
        for (const auto& key : part.compiled.get_property(supported_properties.name())
                                   .as<std::vector<PropertyName>>()) {
            if (key == supported_properties.name()) continue;
            try {
                values[key] = part.compiled.get_property(key).to_string();
            } catch (const Exception&) {
                // a key the part lists but cannot answer is left out
            }
        }
        per_device[part.device] = values;
    }
    m_properties = std::make_unique<sdk::PropertyTable>(
        kDeviceName,
        std::vector<sdk::PropertySpec>{
            sdk::ro(model_name.name(), fixed(model->get_name())),
            sdk::ro(execution_devices.name(), fixed(execution)),
            sdk::common::optimal_number_of_infer_requests([optimal] { return optimal; }),
            sdk::ro(device::priorities.name(), fixed(sdk::join_device_list(devices))),
            sdk::ro(device::properties.name(), fixed(per_device)),
            sdk::ro(vireo::hetero::number_of_submodels.name(),
                    fixed(static_cast<uint32_t>(m_parts.size()))),
            sdk::common::profiling(profiling, sdk::PropertyScope::kCompiledModel)},
        /*plugin_table=*/false);
}

CompiledModel::~CompiledModel() = default;

std::shared_ptr<sdk::ISyncInferRequest> CompiledModel::create_sync_infer_request() const {
    return std::make_shared<SyncInferRequest>(
        std::static_pointer_cast<const CompiledModel>(shared_from_this()));
}

std::shared_ptr<sdk::IAsyncInferRequest> CompiledModel::create_infer_request() const {
    auto sync = std::static_pointer_cast<SyncInferRequest>(create_sync_infer_request());
    return std::make_shared<AsyncInferRequest>(sync, get_callback_executor());
}

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    auto runtime = m_model->clone();
    // execOrder: the parts in the order they run, each part's ops in its own order.
    std::map<std::string, int64_t> order;
    int64_t next = 0;
    for (const Part& part : m_parts) {
        for (const auto& node : part.compiled.get_runtime_model()->get_ordered_ops()) {
            const std::string& name = node->get_friendly_name();
            if (m_affinity.count(name) && !order.count(name)) order[name] = next++;
        }
    }
    const NodeVector ops = runtime->get_ordered_ops();
    // Parameters, Constants and Results run where their first neighbour with a device runs.
    std::map<const Node*, std::vector<const Node*>> consumers;
    for (const auto& node : ops)
        for (const Output& in : node->input_values())
            consumers[in.get_node()].push_back(node.get());
    for (const auto& node : ops) {
        std::string device;
        auto it = m_affinity.find(node->get_friendly_name());
        if (it != m_affinity.end()) device = it->second;
        for (const Node* c : consumers[node.get()]) {
            if (!device.empty()) break;
            auto ci = m_affinity.find(c->get_friendly_name());
            if (ci != m_affinity.end()) device = ci->second;
        }
        for (const Output& in : node->input_values()) {
            if (!device.empty()) break;
            auto pi = m_affinity.find(in.get_node()->get_friendly_name());
            if (pi != m_affinity.end()) device = pi->second;
        }
        if (device.empty()) device = kDeviceName;  // an unused Parameter, a passthrough
        auto& rt = node->get_rt_info();
        rt["affinity"] = device;
        rt["execution_device"] = device;
        rt["layerType"] = node->get_type_name();
        auto o = order.find(node->get_friendly_name());
        if (o != order.end()) rt["execOrder"] = o->second;
    }
    for (const auto& node : ops)  // ops no part listed (HETERO's own) run after the rest
        if (!node->get_rt_info().count("execOrder")) node->get_rt_info()["execOrder"] = next++;
    return runtime;
}

void CompiledModel::export_model(std::ostream& out) const {
    // Sections: "devices" (as asked, "A,B"), "profiling" ("1" or "0"), "affinity:<op>" ->
    // device, per part i "part<i>.device", ".inputs" and ".outputs" (encode_slots) and ".blob"
    // (what CompiledModel::export_model wrote for the part, so importing it checks its plugin
    // and version), then the original model, last so that a blob cut at a section boundary
    // lacks it. Cuts and pass-throughs follow from the parts' ports and the model.
    sdk::BlobSectionWriter blob(out, kDeviceName);
    blob.section("devices", sdk::join_device_list(m_devices));
    blob.section("profiling", m_properties->get(enable_profiling.name()).as<bool>() ? "1" : "0");
    for (const auto& [op, device] : m_affinity) blob.section("affinity:" + op, device);
    for (size_t i = 0; i < m_parts.size(); ++i) {
        const Part& part = m_parts[i];
        std::ostringstream part_blob;
        try {
            part.compiled.export_model(part_blob);
        } catch (...) {
            rethrow_with_context(std::current_exception(),
                                 std::string(kDeviceName) + ": exporting submodel #" +
                                     std::to_string(i) + " on " + part.device);
        }
        const std::string prefix = "part" + std::to_string(i);
        blob.section(prefix + ".device", part.device);
        blob.section(prefix + ".inputs", encode_slots(part.inputs));
        blob.section(prefix + ".outputs", encode_slots(part.outputs));
        blob.section(prefix + ".blob", part_blob.view());
    }
    blob.model(*m_model);
    blob.check();
}

void CompiledModel::set_property(const AnyMap& properties) {
    m_properties->set(properties);
}

Any CompiledModel::get_property(const std::string& name) const {
    return m_properties->get(name);
}

}  // namespace hetero
