// Declares the TEST plugin's compiled model and synchronous request: output i = input i + addend.
#pragma once

#include <istream>
#include <memory>
#include <ostream>
#include <string>

#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/isync_infer_request.hpp"
#include "vireo/sdk/ivariable_state.hpp"

namespace vireo::test_plugin {

/// Accepts models whose inputs are all static f32 and whose outputs match the inputs one to one
/// in shape and type (e.g. Parameter -> Result). Thread-safe after construction, except
/// set_property (as the interface allows).
class CompiledModel : public sdk::ICompiledModel {
  public:
    CompiledModel(const std::shared_ptr<const Model>& model,
                  const std::shared_ptr<const sdk::IPlugin>& plugin, float addend, bool profiling,
                  std::string device_name);

    void export_model(std::ostream& blob) const override;
    /// Reads what export_model wrote; InvalidArgument on anything else.
    static std::shared_ptr<CompiledModel> import(std::istream& blob,
                                                 const std::shared_ptr<const sdk::IPlugin>& plugin,
                                                 std::string device_name);
    std::shared_ptr<const Model> get_runtime_model() const override { return m_model; }
    void set_property(const AnyMap& properties) override;
    Any get_property(const std::string& name) const override;

    float addend_value() const { return m_addend; }

  protected:
    std::shared_ptr<sdk::ISyncInferRequest> create_sync_infer_request() const override;

  private:
    std::shared_ptr<const Model> m_model;
    float m_addend;
    bool m_profiling;
    std::string m_device_name;
};

/// Adds the addend to each input into the matching output; counts runs in the variable
/// "test_counter" (f32 {1}).
class SyncInferRequest : public sdk::ISyncInferRequest {
  public:
    explicit SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);
    void infer(sdk::RunContext& run) override;
    std::vector<ProfilingInfo> get_profiling_info() const override;
    std::vector<std::shared_ptr<sdk::IVariableState>> query_state() const override {
        return {m_counter};
    }

  private:
    float m_addend;
    std::shared_ptr<sdk::IVariableState> m_counter;
};

}  // namespace vireo::test_plugin
