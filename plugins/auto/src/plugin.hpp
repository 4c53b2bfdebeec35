// Declares Plugin: the AUTO and MULTI meta-devices (one module registered under both names; the
// name the core gives it chooses the behaviour), which compile through the core handle.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "scheduler.hpp"
#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/property_table.hpp"

namespace auto_plugin {

/// A compile's settings, resolved from the table and the call.
struct AutoConfig {
    Mode mode = Mode::kAuto;
    vireo::hint::PerformanceMode hint = vireo::hint::PerformanceMode::LATENCY;
    bool runtime_fallback = true;
    bool startup_fallback = true;
    /// Every listed device (or the default order), with the properties its compile gets.
    std::vector<DeviceConfig> devices;
};

/// Registered as AUTO and as MULTI (plugins.xml lists the module twice). Device properties:
/// MULTI_DEVICE_PRIORITIES, DEVICE_PROPERTIES, PERFORMANCE_HINT, PERFORMANCE_HINT_NUM_REQUESTS,
/// PERF_COUNT, ENABLE_RUNTIME_FALLBACK, ENABLE_STARTUP_FALLBACK; read-only FULL_DEVICE_NAME and
/// OPTIMIZATION_CAPABILITIES (what every listed device can do, of FP32, FP16, DYNAMIC_SHAPES
/// and PROFILING). docs/virtual_devices.md has the contract.
///
/// Thread safety: every method may be called from several threads at once.
class Plugin : public vireo::sdk::IPlugin {
  public:
    Plugin();

    /// Selection (the devices whose query_model covers every op, in priority order), then the
    /// Scheduler compiles. Throws InvalidArgument for a bad list or property, NotImplemented
    /// when no listed device runs every op (naming, per device, an op it lacks), Unavailable
    /// when no able device compiles.
    std::shared_ptr<vireo::sdk::ICompiledModel> compile_model(
        const std::shared_ptr<const vireo::Model>& model,
        const vireo::AnyMap& properties) const override;
    /// Not supported: AUTO/MULTI do not export (NotImplemented).
    std::shared_ptr<vireo::sdk::ICompiledModel> import_model(
        std::istream& blob, const vireo::AnyMap& properties) const override;
    /// An op is supported when any listed device supports it (mapped to this device's name).
    vireo::sdk::SupportedOpsMap query_model(const std::shared_ptr<const vireo::Model>& model,
                                            const vireo::AnyMap& properties) const override;
    void set_property(const vireo::AnyMap& properties) override;
    vireo::Any get_property(const std::string& name, const vireo::AnyMap& arguments) const override;

  private:
    vireo::sdk::PropertyTable& table() const;
    AutoConfig config_for(const vireo::AnyMap& properties) const;
    /// AUTO alone: every available device, accelerators (in registration order) before CPU
    /// before TEMPLATE; meta-devices left out.
    std::vector<std::string> default_devices() const;
    std::vector<std::string> listed_devices(const vireo::AnyMap& arguments) const;

    mutable std::once_flag m_table_once;
    mutable std::unique_ptr<vireo::sdk::PropertyTable> m_properties;  // owner = the device name
};

}  // namespace auto_plugin
