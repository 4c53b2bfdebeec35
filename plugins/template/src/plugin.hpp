// Declares Plugin, the TEMPLATE device: a reference interpreter that compiles any model the
// reference kernels cover and runs it on host streams.
#pragma once

#include <memory>

#include "config.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo::template_plugin {

/// The TEMPLATE plugin: one device instance (available_devices {""}).
///
/// Properties (an sdk::PropertyTable, see config.cpp): RW PERFORMANCE_HINT, NUM_STREAMS,
/// INFERENCE_NUM_THREADS, PERFORMANCE_HINT_NUM_REQUESTS, PERF_COUNT, DEVICE_ID ("" or "0"); RO
/// FULL_DEVICE_NAME, OPTIMIZATION_CAPABILITIES, SUPPORTED_PROPERTIES, AVAILABLE_DEVICES. Unknown
/// key -> NotFound listing the supported ones; bad value -> InvalidArgument naming key and value.
///
/// Thread safety: every method may be called concurrently (the settings are under a mutex).
class Plugin : public sdk::IPlugin {
  public:
    Plugin();
    ~Plugin() override;

    /// Clones and transforms the model, builds the plan. Throws NotImplemented naming every op
    /// without a reference kernel in one message.
    std::shared_ptr<sdk::ICompiledModel> compile_model(const std::shared_ptr<const Model>& model,
                                                       const AnyMap& properties) const override;
    /// Reads what CompiledModel::export_model wrote. Throws InvalidArgument for a blob of
    /// another plugin or plugin version, or a damaged one.
    std::shared_ptr<sdk::ICompiledModel> import_model(std::istream& blob,
                                                      const AnyMap& properties) const override;
    /// Every op (by friendly name) that runs after transformations: folded ones included.
    sdk::SupportedOpsMap query_model(const std::shared_ptr<const Model>& model,
                                     const AnyMap& properties) const override;
    void set_property(const AnyMap& properties) override;
    Any get_property(const std::string& name, const AnyMap& arguments) const override;

    /// The plugin's version string (the build's VIREO_PLUGIN_VERSION).
    static const char* version();

  private:
    Config config_with(const AnyMap& properties) const;
    std::shared_ptr<sdk::ICompiledModel> compile_transformed(std::shared_ptr<Model> model,
                                                             const Config& config,
                                                             bool loaded_from_cache,
                                                             Tensor weights) const;

    std::unique_ptr<sdk::PropertyTable> m_properties;
};

}  // namespace vireo::template_plugin
