// Declares HETERO's Plugin: one model split over several devices by what each of them runs,
// each part compiled on its device through the core handle.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/itask_executor.hpp"
#include "vireo/sdk/property_table.hpp"

namespace hetero {

inline constexpr const char* kDeviceName = "HETERO";

/// The devices and settings one HETERO call runs with.
struct HeteroConfig {
    std::vector<std::string> devices;  ///< device::priorities, split, in order
    /// Per listed device: device::properties' entry for it (by full name, else by plain name),
    /// over the HETERO keys that device understands (PERF_COUNT, PERFORMANCE_HINT, ...).
    std::vector<vireo::AnyMap> device_properties;
    bool profiling = false;
};

/// The HETERO device. compile_model and query_model ask each listed device (device::priorities,
/// or "HETERO:A,B") through get_core(); nothing here knows any device by name.
///
/// Properties: MULTI_DEVICE_PRIORITIES (required for a compile or query), DEVICE_PROPERTIES,
/// PERF_COUNT, PERFORMANCE_HINT and PERFORMANCE_HINT_NUM_REQUESTS (passed on to every listed
/// device that lists the key; its own DEVICE_PROPERTIES entry wins).
/// Errors: no devices, an empty entry or an unregistered device: InvalidArgument naming it; an
/// op no listed device runs: NotImplemented naming the op and the devices.
/// Export/import when every listed device exports (OPTIMIZATION_CAPABILITIES then has
/// EXPORT_IMPORT, and the model cache stores HETERO as a whole: the parts compile without it).
class Plugin : public vireo::sdk::IPlugin {
  public:
    Plugin();
    std::shared_ptr<vireo::sdk::ICompiledModel> compile_model(
        const std::shared_ptr<const vireo::Model>& model,
        const vireo::AnyMap& properties) const override;
    using vireo::sdk::IPlugin::compile_model;
    /// Reads CompiledModel::export_model's blob: the parts are imported on the devices it names
    /// (their properties from the call's DEVICE_PROPERTIES); the call's device list is not used.
    std::shared_ptr<vireo::sdk::ICompiledModel> import_model(
        std::istream& blob, const vireo::AnyMap& properties) const override;
    /// Each op mapped to the device that would run it (the affinity compile_model uses).
    vireo::sdk::SupportedOpsMap query_model(const std::shared_ptr<const vireo::Model>& model,
                                            const vireo::AnyMap& properties) const override;
    void set_property(const vireo::AnyMap& properties) override;
    vireo::Any get_property(const std::string& name, const vireo::AnyMap& arguments) const override;

    /// The one thread on which every compiled model of this plugin object completes its requests
    /// (runs the user's callback), created on first call. Thread-safe. Compiled models hold it,
    /// so it lives as long as the last of them even after this plugin object is gone.
    std::shared_ptr<vireo::sdk::ITaskExecutor> callback_executor() const;

  private:
    /// `devices` (an import's list) replaces device::priorities when given.
    HeteroConfig config_for(const vireo::AnyMap& properties,
                            const std::string* devices = nullptr) const;
    std::vector<std::string> capabilities_of(const std::string& devices) const;

    vireo::sdk::PropertyTable m_properties;
    mutable std::mutex m_callback_mutex;  // guards m_callback_executor
    mutable std::shared_ptr<vireo::sdk::ITaskExecutor> m_callback_executor;
};

}  // namespace hetero
