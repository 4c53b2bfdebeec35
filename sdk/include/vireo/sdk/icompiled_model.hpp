// Declares ICompiledModel: a model compiled for one device, which creates infer requests.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "vireo/any.hpp"
#include "vireo/model.hpp"
#include "vireo/sdk/itask_executor.hpp"

namespace vireo::sdk {

class IPlugin;
class ISyncInferRequest;
class IAsyncInferRequest;

/// A compiled model. The base class keeps private copies of the model's input and output ports
/// (so the caller's model may change or die after compilation), the plugin, and the executors
/// the default async request uses.
///
/// Thread safety: create_infer_request, export_model, get_runtime_model and get_property may be
/// called concurrently; set_property may not race with them.
class ICompiledModel : public std::enable_shared_from_this<ICompiledModel> {
  public:
    /// `task_executor` null: a CPUStreamsExecutor {"Default", 1 stream} is made.
    /// `callback_executor` null: callbacks run on the thread that finished the last stage.
    /// The private copies: each Parameter becomes a new Parameter with the same friendly name,
    /// type, shape, tensor names and rt_info (node's and port's); each Result becomes a new
    /// Result (same friendly name, names, rt_info) fed by a new Parameter of its type and shape.
    /// Throws InvalidArgument for a null model. `plugin` may be null only in tests.
    ICompiledModel(const std::shared_ptr<const Model>& model,
                   const std::shared_ptr<const IPlugin>& plugin,
                   std::shared_ptr<ITaskExecutor> task_executor = nullptr,
                   std::shared_ptr<ITaskExecutor> callback_executor = nullptr);
    virtual ~ICompiledModel();

    /// Parameters' outputs of the private copy, in model order; their names and shapes match
    /// the compiled model's view (after the plugin's own changes, if any).
    const OutputVector& inputs() const { return m_inputs; }
    /// Results' outputs of the private copy, in model order.
    const OutputVector& outputs() const { return m_outputs; }

    /// A new request. Default: the plugin's sync request in a one-stage pipeline on the task
    /// executor (IAsyncInferRequest's default).
    virtual std::shared_ptr<IAsyncInferRequest> create_infer_request() const;
    /// Writes what IPlugin::import_model reads back. Default throws NotImplemented.
    virtual void export_model(std::ostream& blob) const;
    /// The graph that runs, with execution info in rt_info (see docs/plugin_author_guide.md).
    virtual std::shared_ptr<const Model> get_runtime_model() const = 0;
    virtual void set_property(const AnyMap& properties) = 0;
    virtual Any get_property(const std::string& name) const = 0;

    std::shared_ptr<const IPlugin> get_plugin() const { return m_plugin; }
    const std::shared_ptr<ITaskExecutor>& get_task_executor() const { return m_task_executor; }
    const std::shared_ptr<ITaskExecutor>& get_callback_executor() const {
        return m_callback_executor;
    }

  protected:
    /// The plugin's synchronous request.
    virtual std::shared_ptr<ISyncInferRequest> create_sync_infer_request() const = 0;
    void set_task_executor(std::shared_ptr<ITaskExecutor> executor) {
        m_task_executor = std::move(executor);
    }
    void set_callback_executor(std::shared_ptr<ITaskExecutor> executor) {
        m_callback_executor = std::move(executor);
    }

  private:
    std::shared_ptr<const IPlugin> m_plugin;
    OutputVector m_inputs;
    OutputVector m_outputs;
    std::shared_ptr<ITaskExecutor> m_task_executor;
    std::shared_ptr<ITaskExecutor> m_callback_executor;
};

}  // namespace vireo::sdk
