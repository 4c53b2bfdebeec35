// Declares Plugin, the core's wrapper around a loaded IPlugin: it holds the library, and every
// call through it is guarded (errors keep their kind and get the device name in front).
#pragma once

#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "shared_library.hpp"
#include "vireo/any.hpp"
#include "vireo/model.hpp"
#include "vireo/properties.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo::sdk {
class ICompiledModel;
class IRemoteContext;
}  // namespace vireo::sdk

namespace vireo::runtime {

/// A loaded plugin. Thread-safe as IPlugin is. Results that come from the plugin are returned
/// as they are; callers pair them with library() (the holder) before giving them to the user.
class Plugin {
  public:
    Plugin(std::shared_ptr<sdk::IPlugin> impl, SharedLibrary library, std::string library_path);

    const std::string& device_name() const { return m_impl->get_device_name(); }
    const Version& version() const { return m_impl->get_version(); }
    const SharedLibrary& library() const { return m_library; }
    const std::string& library_path() const { return m_library_path; }
    /// Hands the plugin its core handle (before any other call but naming and versioning).
    void set_core(std::weak_ptr<sdk::ICore> core) const { m_impl->set_core(std::move(core)); }

    std::shared_ptr<sdk::ICompiledModel> compile_model(const std::shared_ptr<const Model>& model,
                                                       const AnyMap& properties) const;
    std::shared_ptr<sdk::ICompiledModel> compile_model(
        const std::shared_ptr<const Model>& model, const AnyMap& properties,
        const std::shared_ptr<sdk::IRemoteContext>& context) const;
    std::shared_ptr<sdk::ICompiledModel> import_model(std::istream& blob,
                                                      const AnyMap& properties) const;
    sdk::SupportedOpsMap query_model(const std::shared_ptr<const Model>& model,
                                     const AnyMap& properties) const;
    void set_property(const AnyMap& properties) const;
    /// The value holds the library (Any::set_shared_object).
    Any get_property(const std::string& name, const AnyMap& arguments = {}) const;
    std::shared_ptr<sdk::IRemoteContext> create_context(const AnyMap& params) const;
    std::shared_ptr<sdk::IRemoteContext> get_default_context(const AnyMap& params) const;

    /// The plugin's supported_properties; empty if the plugin cannot answer (then the core
    /// leaves key validation to the plugin).
    std::vector<PropertyName> supported_properties_or_empty() const;

  private:
    template <typename Call>
    decltype(auto) call(Call&& fn) const;
    template <typename T>
    const T& non_null(const T& result, const char* method) const;

    // m_library first: members die in reverse order, so the library outlives the plugin object.
    SharedLibrary m_library;
    std::shared_ptr<sdk::IPlugin> m_impl;
    std::string m_library_path;
};

}  // namespace vireo::runtime
