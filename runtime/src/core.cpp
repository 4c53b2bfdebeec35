// Implements Core by forwarding to CoreImpl (and to the format registry for read_model).
#include "vireo/core.hpp"

#include "core_impl.hpp"
#include "extension_loader.hpp"
#include "frontend_registry.hpp"
#include "vireo/ir.hpp"

namespace vireo {
namespace {

// The public handles over what CoreImpl (the sdk::ICore) returns.
CompiledModel public_handle(const sdk::CompiledModelHandle& compiled) {
    return CompiledModel(compiled.impl(), compiled.module(), compiled.loaded_from_cache());
}

RemoteContext public_handle(const sdk::RemoteContextHandle& context) {
    return RemoteContext(context.impl(), context.module());
}

}  // namespace

Core::Core(const std::string& plugins_xml_path)
    : m_impl(std::make_shared<CoreImpl>(plugins_xml_path)) {
    m_impl->bind_core_handle(m_impl);
}
Core::~Core() = default;

std::vector<std::string> Core::get_available_devices() const {
    return m_impl->list_available_devices();
}

std::map<std::string, Version> Core::get_versions(const std::string& device_name) const {
    return m_impl->versions(device_name);
}

std::shared_ptr<Model> Core::read_model(const std::string& model_path,
                                        const std::string& bin_path) const {
    const auto format = runtime::FormatRegistry::process().detect(model_path);
    return format->read_file(model_path, bin_path, m_impl->mmap_enabled());
}

std::shared_ptr<Model> CoreImpl::read_model(const std::string& path) const {
    return runtime::FormatRegistry::process().detect(path)->read_file(path, "", mmap_enabled());
}

std::shared_ptr<Model> Core::read_model_from_string(const std::string& xml_text,
                                                    const Tensor& weights) const {
    return vireo::read_model_from_string(xml_text, weights);
}

std::shared_ptr<Model> Core::read_model(const std::string& model, const Tensor& weights) const {
    const auto format = runtime::FormatRegistry::process().detect(model.data(), model.size());
    return format->read_memory(model.data(), model.size(), weights);
}

CompiledModel Core::compile_model(const std::shared_ptr<const Model>& model,
                                  const std::string& device_name, const AnyMap& properties) {
    return public_handle(m_impl->compile_model(model, device_name, properties));
}

CompiledModel Core::compile_model(const std::string& xml_path, const std::string& device_name,
                                  const AnyMap& properties) {
    return public_handle(m_impl->compile_model(read_model(xml_path), device_name, properties));
}

CompiledModel Core::compile_model(const std::shared_ptr<const Model>& model,
                                  const RemoteContext& context, const AnyMap& properties) {
    return public_handle(m_impl->compile_model(model, context, properties));
}

CompiledModel Core::import_model(std::istream& blob, const std::string& device_name,
                                 const AnyMap& properties) {
    return public_handle(m_impl->import_model(blob, device_name, properties));
}

std::map<std::string, std::string> Core::query_model(const std::shared_ptr<const Model>& model,
                                                     const std::string& device_name,
                                                     const AnyMap& properties) const {
    return m_impl->query_model(model, device_name, properties);
}

void Core::set_property(const AnyMap& properties) {
    m_impl->set_property(properties);
}

void Core::set_property(const std::string& device_name, const AnyMap& properties) {
    m_impl->set_property(device_name, properties);
}

Any Core::get_property(const std::string& name) const {
    return m_impl->get_property(name);
}

Any Core::get_property(const std::string& device_name, const std::string& name,
                       const AnyMap& arguments) const {
    return m_impl->get_property(device_name, name, arguments);
}

void Core::register_plugin(const std::string& library_path, const std::string& device_name,
                           const AnyMap& properties) {
    m_impl->register_plugin(library_path, device_name, properties);
}

void Core::register_plugins(const std::string& plugins_xml_path) {
    m_impl->register_plugins(plugins_xml_path);
}

void Core::add_extension(const std::string& library_path) {
    runtime::load_extension(library_path);
}

void Core::unload_plugin(const std::string& device_name) {
    m_impl->unload_plugin(device_name);
}

RemoteContext Core::create_context(const std::string& device_name, const AnyMap& params) {
    return public_handle(m_impl->create_context(device_name, params));
}

RemoteContext Core::get_default_context(const std::string& device_name) {
    return public_handle(m_impl->get_default_context(device_name));
}

}  // namespace vireo
