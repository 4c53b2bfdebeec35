// Implements Plugin: guarded calls into a loaded plugin.
#include "plugin.hpp"

#include "guard.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iremote_context.hpp"

namespace vireo::runtime {

Plugin::Plugin(std::shared_ptr<sdk::IPlugin> impl, SharedLibrary library, std::string library_path)
    : m_library(std::move(library)),
      m_impl(std::move(impl)),
      m_library_path(std::move(library_path)) {}

template <typename Call>
decltype(auto) Plugin::call(Call&& fn) const {
    return detail::guarded([this] { return m_impl->get_device_name(); }, std::forward<Call>(fn));
}

template <typename T>
const T& Plugin::non_null(const T& result, const char* method) const {
    if (!result)
        throw_error<Exception>(device_name(), ": plugin '", m_library_path, "' returned null from ",
                               method);
    return result;
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    return non_null(call([&] { return m_impl->compile_model(model, properties); }),
                    "compile_model");
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties,
    const std::shared_ptr<sdk::IRemoteContext>& context) const {
    return non_null(call([&] { return m_impl->compile_model(model, properties, context); }),
                    "compile_model");
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream& blob,
                                                          const AnyMap& properties) const {
    return non_null(call([&] { return m_impl->import_model(blob, properties); }), "import_model");
}

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    return call([&] { return m_impl->query_model(model, properties); });
}

void Plugin::set_property(const AnyMap& properties) const {
    call([&] { m_impl->set_property(properties); });
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    Any value = call([&] { return m_impl->get_property(name, arguments); });
    value.set_shared_object(m_library);
    return value;
}

std::shared_ptr<sdk::IRemoteContext> Plugin::create_context(const AnyMap& params) const {
    return non_null(call([&] { return m_impl->create_context(params); }), "create_context");
}

std::shared_ptr<sdk::IRemoteContext> Plugin::get_default_context(const AnyMap& params) const {
    return non_null(call([&] { return m_impl->get_default_context(params); }),
                    "get_default_context");
}

std::vector<PropertyName> Plugin::supported_properties_or_empty() const {
    try {
        const Any value = m_impl->get_property(supported_properties.name(), {});
        if (value.is<std::vector<std::string>>()) {  // plain names: take them as read-write
            const auto names = value.as<std::vector<std::string>>();
            return std::vector<PropertyName>(names.begin(), names.end());
        }
        return value.as<std::vector<PropertyName>>();
    } catch (...) {
        return {};
    }
}

}  // namespace vireo::runtime
