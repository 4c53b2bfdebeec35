// Declares HETERO's CompiledModel: the submodels compiled on their devices, the slots that
// connect them, and the merged view (properties, runtime model) of the whole.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "affinity.hpp"
#include "graph_splitter.hpp"
#include "vireo/sdk/device_handles.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/property_table.hpp"

namespace hetero {

class Plugin;

/// A model split over devices. Each part is the device's own compiled model as the core handle
/// returns it (sdk::CompiledModelHandle: it keeps its device's library loaded), so this object may
/// outlive the Core; requests drive the parts' requests directly.
///
/// Properties (read-only unless said): NETWORK_NAME, EXECUTION_DEVICES (every device that runs a
/// part, in execution order, as the parts report them), OPTIMAL_NUMBER_OF_INFER_REQUESTS (the
/// largest of the parts'), MULTI_DEVICE_PRIORITIES (the devices asked), DEVICE_PROPERTIES
/// ({device: {key: value}} from each device's first part), HETERO_NUMBER_OF_SUBMODELS, PERF_COUNT.
/// Thread safety: as ICompiledModel.
class CompiledModel : public vireo::sdk::ICompiledModel {
  public:
    /// One compiled part and where its ports find their tensors.
    struct Part {
        std::string device;
        vireo::sdk::CompiledModelHandle compiled;
        std::vector<Slot> inputs;
        std::vector<Slot> outputs;
    };

    /// `parts` in execution order; `affinity` maps op friendly names to devices. Cuts follow
    /// from the parts' output ports, pass-throughs from `model`.
    CompiledModel(const std::shared_ptr<const vireo::Model>& model,
                  const std::shared_ptr<const Plugin>& plugin, std::vector<Part> parts,
                  std::map<std::string, std::string> affinity, bool profiling,
                  const std::vector<std::string>& devices);
    ~CompiledModel() override;

    std::shared_ptr<vireo::sdk::IAsyncInferRequest> create_infer_request() const override;
    /// The original model, each op once, with rt_info "affinity" / "execution_device" (the device
    /// that ran it), "layerType" and "execOrder" (parts in order, ops in each part's order).
    std::shared_ptr<const vireo::Model> get_runtime_model() const override;
    /// Sections described in the definition; NotImplemented naming the part whose device cannot
    /// export.
    void export_model(std::ostream& blob) const override;
    void set_property(const vireo::AnyMap& properties) override;
    vireo::Any get_property(const std::string& name) const override;

    const std::vector<Part>& parts() const { return m_parts; }
    const std::vector<Cut>& cuts() const { return m_cuts; }
    const std::vector<Passthrough>& passthroughs() const { return m_passthroughs; }

  protected:
    std::shared_ptr<vireo::sdk::ISyncInferRequest> create_sync_infer_request() const override;

  private:
    std::shared_ptr<vireo::Model> m_model;  // a clone of the original, for the runtime model
    std::vector<Part> m_parts;
    std::vector<Cut> m_cuts;
    std::vector<Passthrough> m_passthroughs;
    std::map<std::string, std::string> m_affinity;  // op friendly name -> device
    std::vector<std::string> m_devices;
    std::unique_ptr<vireo::sdk::PropertyTable> m_properties;
};

}  // namespace hetero
