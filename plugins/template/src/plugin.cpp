// Implements Plugin: properties, compile (clone, transform, plan), import/export and query.
#include "plugin.hpp"

#include <set>
#include <sstream>

#include "compiled_model.hpp"
#include "execution_plan.hpp"
#include "vireo/ir.hpp"
#include "vireo/reference/constant_folding.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/blob_sections.hpp"
#include "vireo/sdk/plugin_entry.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace vireo::template_plugin {
Plugin::Plugin() : m_properties(make_property_table()) {
    set_device_name(kDeviceName);
}

Plugin::~Plugin() = default;

const char* Plugin::version() {
    return VIREO_PLUGIN_VERSION;
}

Config Plugin::config_with(const AnyMap& properties) const {
    return Config::from(m_properties->resolve(properties));
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_transformed(std::shared_ptr<Model> model,
                                                                 const Config& config,
                                                                 bool loaded_from_cache,
                                                                 Tensor weights) const {
    auto plan = make_execution_plan(model);
    auto self = std::static_pointer_cast<const Plugin>(shared_from_this());
    return std::make_shared<CompiledModel>(std::move(model), std::move(plan), self, config,
                                           loaded_from_cache, std::move(weights));
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": compile_model got no model");
    const Config config = config_with(properties);
    auto copy = model->clone();
    reference::fold_model_constants(*copy);
    return compile_transformed(std::move(copy), config, false, {});
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream& stream,
                                                          const AnyMap& properties) const {
    // The core has checked the blob's plugin version and checksum (sdk/blob_container.hpp).
    sdk::BlobSectionReader blob(stream, kDeviceName);
    AnyMap arguments = blob.properties();
    arguments.erase(device::id.name());  // the call's id decides
    for (const auto& [key, value] : properties) arguments[key] = value;
    const Config config = config_with(arguments);
    const bool from_cache = get_or<bool>(properties, loaded_from_cache.name(), false);
    const uint64_t weights_size = blob.size("ir.bin");
    Tensor weights;
    if (weights_size != 0) weights = Tensor(element::u8, Shape{static_cast<size_t>(weights_size)});
    std::shared_ptr<Model> model = blob.model(weights);
    blob.expect_all_read();
    // The exported model is already transformed; running the passes again is a cheap no-op
    // that keeps import and compile on one path.
    reference::fold_model_constants(*model);
    return compile_transformed(std::move(model), config, from_cache, std::move(weights));
}

namespace {

// A sub-graph op runs when every op of its bodies does.
bool runs_here(const Node& node) {
    const std::string& type = node.get_type_name();
    if (type != "If" && type != "Loop") return reference::KernelRegistry::instance().supports(node);
    for (const auto& body : node.get_bodies())
        for (const auto& op : body->get_ordered_ops())
            if (!runs_here(*op)) return false;
    return !node.get_bodies().empty();
}

}  // namespace

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": query_model got no model");
    config_with(properties);  // validates the properties
    auto copy = model->clone();
    reference::fold_model_constants(*copy);
    // Names of the layers that run: supported nodes of the transformed graph, and every layer
    // folded into one of its Constants.
    std::set<std::string> runs;
    for (const auto& node : copy->get_ordered_ops()) {
        if (!runs_here(*node)) continue;
        runs.insert(node->get_friendly_name());
        auto it = node->get_rt_info().find(reference::kOriginalLayersNames);
        if (it == node->get_rt_info().end()) continue;
        std::stringstream names(it->second.as<std::string>());
        for (std::string name; std::getline(names, name, ',');) runs.insert(name);
    }
    sdk::SupportedOpsMap supported;
    for (const auto& node : model->get_ordered_ops())
        if (runs.count(node->get_friendly_name()))
            supported[node->get_friendly_name()] = get_device_name();
    return supported;
}

void Plugin::set_property(const AnyMap& properties) {
    m_properties->set(properties);
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    return m_properties->get(name, arguments);
}

}  // namespace vireo::template_plugin

VIREO_DEFINE_PLUGIN(vireo::template_plugin::Plugin, VIREO_PLUGIN_VERSION)
