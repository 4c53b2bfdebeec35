// Declares CompiledModel: a BATCH compiled model (the model compiled batched to N and as given on
// one device) and its Batcher.
#pragma once

#include <memory>

#include "batcher.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/property_table.hpp"

namespace batch_plugin {

class Plugin;

/// Properties: NETWORK_NAME, EXECUTION_DEVICES ({device}), OPTIMAL_NUMBER_OF_INFER_REQUESTS
/// (N x the batched model's own), AUTO_BATCH_SIZE (RO), AUTO_BATCH_TIMEOUT (RW: later requests
/// use the new value), BATCH_BATCHES_RUN and BATCH_RAN_ALONE (RO counters).
class CompiledModel : public vireo::sdk::ICompiledModel {
  public:
    CompiledModel(const std::shared_ptr<const vireo::Model>& model,
                  const std::shared_ptr<const Plugin>& plugin, std::shared_ptr<Batcher> batcher,
                  std::string device);

    std::shared_ptr<vireo::sdk::IAsyncInferRequest> create_infer_request() const override;
    std::shared_ptr<const vireo::Model> get_runtime_model() const override;
    void set_property(const vireo::AnyMap& properties) override;
    vireo::Any get_property(const std::string& name) const override;

    const std::shared_ptr<Batcher>& batcher() const { return m_batcher; }

  protected:
    std::shared_ptr<vireo::sdk::ISyncInferRequest> create_sync_infer_request() const override;

  private:
    std::shared_ptr<Batcher> m_batcher;
    std::unique_ptr<vireo::sdk::PropertyTable> m_properties;
};

}  // namespace batch_plugin
