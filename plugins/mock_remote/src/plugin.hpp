// Declares the MOCK_REMOTE plugin: a simulated remote device with several instances, each with
// its own queue, memory, worker thread and wait executor.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config.hpp"
#include "device.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo::mock_remote {

class RemoteContext;

/// The plugin object. Device instances are created on first use and shared with the compiled
/// models, contexts and tensors made on them. Settings live in an sdk::PropertyTable, per
/// instance: set_property with
/// device::id (or through "MOCK_REMOTE.N") changes one instance, without it every instance;
/// get_property without device::id answers for the default instance (0 unless device::id alone
/// was set). Thread-safe.
class Plugin : public sdk::IPlugin {
  public:
    Plugin();
    ~Plugin() override;

    std::shared_ptr<sdk::ICompiledModel> compile_model(const std::shared_ptr<const Model>& model,
                                                       const AnyMap& properties) const override;
    std::shared_ptr<sdk::ICompiledModel> compile_model(
        const std::shared_ptr<const Model>& model, const AnyMap& properties,
        const std::shared_ptr<sdk::IRemoteContext>& context) const override;
    std::shared_ptr<sdk::ICompiledModel> import_model(std::istream& blob,
                                                      const AnyMap& properties) const override;
    sdk::SupportedOpsMap query_model(const std::shared_ptr<const Model>& model,
                                     const AnyMap& properties) const override;
    void set_property(const AnyMap& properties) override;
    Any get_property(const std::string& name, const AnyMap& arguments) const override;
    std::shared_ptr<sdk::IRemoteContext> create_context(const AnyMap& params) const override;
    std::shared_ptr<sdk::IRemoteContext> get_default_context(const AnyMap& params) const override;

    /// "MOCK_REMOTE.1" for instance 1 (the registered name, if the core renamed the plugin).
    std::string instance_name(size_t index) const;

  private:
    /// The instance `properties` name through device::id, else the default one. Throws
    /// InvalidArgument for an id that is not a number below the device count.
    size_t instance_index(const AnyMap& properties) const;
    std::shared_ptr<Device> instance(size_t index) const;
    /// The instance's settings (device-wide values overridden by its own).
    Config instance_config(size_t index) const;
    std::shared_ptr<sdk::ICompiledModel> compile(const std::shared_ptr<const Model>& model,
                                                 size_t index, Config config, bool imported) const;

    mutable std::mutex m_mutex;
    std::mutex m_set_mutex;  // one set_property at a time: a count change may be rolled back
    std::unique_ptr<sdk::PropertyTable> m_properties;        // settings of the device and instances
    mutable std::vector<std::shared_ptr<Device>> m_devices;  // created on first use
    mutable std::vector<std::shared_ptr<RemoteContext>> m_default_contexts;
};

}  // namespace vireo::mock_remote
