// Declares Plugin, the CPU device: compiles models with the oneDNN graph compiler and runs them on
// host streams.
#pragma once

#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "graph.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo::cpu_plugin {

/// The CPU plugin: one device instance (available_devices {""}).
///
/// Properties: the table of make_property_table() (config.hpp), with its standard errors.
///
/// Thread safety: every method may be called concurrently.
class Plugin : public sdk::IPlugin {
  public:
    Plugin();
    ~Plugin() override;

    /// Clones the model and compiles it (graph_compiler.hpp). Throws NotImplemented naming every
    /// op that cannot run, in one message.
    std::shared_ptr<sdk::ICompiledModel> compile_model(const std::shared_ptr<const Model>& model,
                                                       const AnyMap& properties) const override;
    /// Reads what CompiledModel::export_model wrote and compiles it again. Throws InvalidArgument
    /// for a blob of another plugin or version, or a damaged one.
    std::shared_ptr<sdk::ICompiledModel> import_model(std::istream& blob,
                                                      const AnyMap& properties) const override;
    /// Every op (by friendly name) that has a reference kernel; If and Loop when every op of their
    /// bodies does and the bodies use no variables (subgraph_runner.hpp).
    sdk::SupportedOpsMap query_model(const std::shared_ptr<const Model>& model,
                                     const AnyMap& properties) const override;
    void set_property(const AnyMap& properties) override;
    Any get_property(const std::string& name, const AnyMap& arguments) const override;

    /// A streams executor of `config` that no compiled model holds any more, or a new one: models
    /// compiled one after another reuse the threads (and their OpenMP teams) of those destroyed.
    /// The plugin holds them; they end with it, or with the last model still using one.
    std::shared_ptr<sdk::CPUStreamsExecutor> streams_executor(
        const sdk::StreamsConfig& config) const;

    static const char* version();

  private:
    Config config_with(const AnyMap& properties) const;
    std::shared_ptr<sdk::ICompiledModel> compile(std::shared_ptr<Model> model, const Config& config,
                                                 bool loaded_from_cache,
                                                 const PackedWeightsMap* packed = nullptr) const;

    std::unique_ptr<sdk::PropertyTable> m_properties;
    mutable std::mutex m_executors_mutex;
    mutable std::vector<std::shared_ptr<sdk::CPUStreamsExecutor>> m_executors;
};

}  // namespace vireo::cpu_plugin
