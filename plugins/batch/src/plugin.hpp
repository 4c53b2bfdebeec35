// Declares BATCH's Plugin: compiles a model batched (reshaped to N along dim 0) and as given on
// one device through the core handle, for requests gathered N at a time.
#pragma once

#include <memory>

#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/property_table.hpp"

namespace batch_plugin {

/// Device properties: MULTI_DEVICE_PRIORITIES (the one device; "BATCH:A(N)" sets it),
/// AUTO_BATCH_SIZE (N; "BATCH:A(N)" sets it; 0: 4), AUTO_BATCH_TIMEOUT, DEVICE_PROPERTIES,
/// PERFORMANCE_HINT. A model is batched when every input and output is static with 1 as dim 0
/// and the copy reshaped to N compiles; any other model runs every request unbatched
/// (AUTO_BATCH_SIZE reads 1, a WARNING names the reason). Thread safety: every method may be called
/// concurrently.
class Plugin : public vireo::sdk::IPlugin {
  public:
    Plugin();
    std::shared_ptr<vireo::sdk::ICompiledModel> compile_model(
        const std::shared_ptr<const vireo::Model>& model,
        const vireo::AnyMap& properties) const override;
    std::shared_ptr<vireo::sdk::ICompiledModel> import_model(
        std::istream& blob, const vireo::AnyMap& properties) const override;
    /// The device's answer, mapped to "BATCH".
    vireo::sdk::SupportedOpsMap query_model(const std::shared_ptr<const vireo::Model>& model,
                                            const vireo::AnyMap& properties) const override;
    void set_property(const vireo::AnyMap& properties) override;
    vireo::Any get_property(const std::string& name, const vireo::AnyMap& arguments) const override;

  private:
    vireo::sdk::PropertyTable m_properties;
};

}  // namespace batch_plugin
