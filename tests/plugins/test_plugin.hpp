// Declares the TEST plugin used by the runtime tests: a minimal, working device that adds a
// configurable constant to each f32 input, with properties, export/import, a variable state and
// a remote context, plus counters the tests read back as properties.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vireo/properties.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo::test_plugin {

// Plugin-specific keys (the TEST_ prefix keeps them apart from the standard ones).
inline constexpr Property<float> addend{"TEST_ADDEND"};  // added to every input
inline constexpr Property<std::vector<std::string>> device_ids{
    "TEST_DEVICE_IDS"};                                         // available_devices
inline constexpr Property<bool> exportable{"TEST_EXPORTABLE"};  // lists EXPORT_IMPORT
/// When set, the plugin lists META_DEVICE (read-only) and reports this text as its value.
inline constexpr Property<std::string> declared_meta_device{"TEST_META_DEVICE"};
inline constexpr Property<uint64_t, PropertyMutability::RO> instance_id{"TEST_INSTANCE_ID"};
inline constexpr Property<uint64_t, PropertyMutability::RO> compile_count{"TEST_COMPILE_COUNT"};
inline constexpr Property<uint64_t, PropertyMutability::RO> import_count{"TEST_IMPORT_COUNT"};
/// set_property calls this plugin object received.
inline constexpr Property<uint64_t, PropertyMutability::RO> set_count{"TEST_SET_COUNT"};
/// Sync requests the compiled models of this plugin object created (one per request, whoever asks:
/// the application's CompiledModel or a meta-device driving its parts).
inline constexpr Property<uint64_t, PropertyMutability::RO> request_count{"TEST_REQUEST_COUNT"};
/// "KEY=VALUE;..." of the properties the last compile_model/import_model received.
inline constexpr Property<std::string, PropertyMutability::RO> last_config{"TEST_LAST_CONFIG"};

/// Thread-safe: the settings are guarded by a mutex, the counters are atomics.
class Plugin : public sdk::IPlugin {
  public:
    Plugin();

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

    /// Called by each new sync request of this plugin's compiled models.
    void count_request() const { ++m_request_count; }

  private:
    struct Settings {
        float addend = 1.0f;
        std::vector<std::string> device_ids;
        bool exportable = true;
        bool profiling = false;
        int32_t num_streams = 1;
        std::string device_id;
        log::Level log_level = log::Level::WARNING;
        std::string meta_device;
    };
    /// Checks keys (NotFound listing the supported ones; InvalidArgument for read-only keys or
    /// bad values) and returns `base` with `properties` applied.
    Settings apply(Settings base, const AnyMap& properties) const;
    /// The settings of the instance `arguments` name by DEVICE_ID (the device's without one).
    Settings settings(const AnyMap& arguments = {}) const;
    void remember(const AnyMap& properties) const;

    const uint64_t m_instance_id;
    mutable std::mutex m_mutex;
    Settings m_settings;
    std::map<std::string, AnyMap> m_instances;  // per-instance overrides, by DEVICE_ID
    mutable std::string m_last_config;
    mutable std::atomic<uint64_t> m_compile_count{0};
    mutable std::atomic<uint64_t> m_import_count{0};
    std::atomic<uint64_t> m_set_count{0};
    mutable std::atomic<uint64_t> m_request_count{0};
};

}  // namespace vireo::test_plugin
