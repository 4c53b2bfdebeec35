// Declares InferRequest, the application's handle to one inference request of a compiled
// model: its tensors, synchronous and asynchronous runs, callback, cancel, profiling and state.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vireo/model.hpp"
#include "vireo/plugin_object.hpp"
#include "vireo/profiling_info.hpp"
#include "vireo/tensor.hpp"
#include "vireo/variable_state.hpp"

namespace vireo {
namespace sdk {
class IAsyncInferRequest;
class ICompiledModel;
}  // namespace sdk

class CompiledModel;

/// One inference request, from CompiledModel::create_infer_request().
///
///     InferRequest request = compiled.create_infer_request();
///     request.set_tensor("input", input);                  // zero copy: the request reads it
///     request.infer();                                     // or start_async() + wait()
///     const float* out = request.get_output_tensor(0).data<float>();
///
///     request.set_callback([&](std::exception_ptr error) { /* runs once per start_async */ });
///     request.start_async();
///     request.wait();                                      // rethrows the run's error
///
/// Tensors are addressed by tensor name, by port (an Output of CompiledModel::inputs()/
/// outputs(), or of the original model's inputs/outputs) or by index. Names are looked up in
/// the inputs first, then the outputs; an unknown name throws NotFound listing the known ones.
///
/// Ownership: a handle; copies share the request. It keeps the compiled model and the plugin
/// library alive, so it may outlive the Core and the CompiledModel it came from. Tensors it
/// returns keep the library loaded too.
///
/// Thread safety: start_async/wait/wait_for/cancel may be called from any thread; while a run
/// is in flight (start_async until wait returns) set_tensor, set_callback, start_async and infer
/// throw Busy. The callback runs on a plugin thread, once per start_async, never for infer(),
/// and may call start_async() on the same request.
///
/// Errors: plugin errors are rethrown as vireo::Exception of the same kind (Busy, Cancelled,
/// InvalidArgument for a tensor of the wrong type or shape, ...), prefixed with the device name
/// (a foreign exception as the general kind, also naming the operation: "TEMPLATE: infer: ...";
/// see PluginObject). A default-constructed handle throws InvalidArgument.
class InferRequest {
  public:
    using Callback = std::function<void(std::exception_ptr)>;

    InferRequest() = default;
    /// Used by the core: adopts a plugin's request; `so` keeps the plugin library loaded.
    InferRequest(std::shared_ptr<sdk::IAsyncInferRequest> impl, std::shared_ptr<void> so,
                 std::shared_ptr<sdk::ICompiledModel> compiled_model, bool loaded_from_cache);
    ~InferRequest();
    InferRequest(const InferRequest&) = default;
    InferRequest(InferRequest&&) noexcept = default;
    /// Assignments release the old implementations before the old library reference
    /// (PluginObject's assignment order).
    InferRequest& operator=(const InferRequest& other);
    InferRequest& operator=(InferRequest&& other) noexcept;

    /// Sets the tensor of an input or output (outputs are written into a tensor you provide).
    /// The request keeps a handle to `tensor` and reads/writes its memory during runs.
    void set_tensor(const std::string& tensor_name, const Tensor& tensor);
    void set_tensor(const Output& port, const Tensor& tensor);
    Tensor get_tensor(const std::string& tensor_name) const;
    Tensor get_tensor(const Output& port) const;

    /// By index into CompiledModel::inputs()/outputs(); throws InvalidArgument out of range.
    void set_input_tensor(size_t index, const Tensor& tensor);
    /// The only input; throws InvalidArgument if the model has several.
    void set_input_tensor(const Tensor& tensor);
    void set_output_tensor(size_t index, const Tensor& tensor);
    void set_output_tensor(const Tensor& tensor);
    Tensor get_input_tensor(size_t index) const;
    Tensor get_input_tensor() const;
    Tensor get_output_tensor(size_t index) const;
    Tensor get_output_tensor() const;

    /// Batched input: N tensors of batch 1 for one input of batch N (plugins may not support it:
    /// NotImplemented). One tensor is the same as set_tensor.
    void set_tensors(const std::string& tensor_name, const std::vector<Tensor>& tensors);
    void set_tensors(const Output& port, const std::vector<Tensor>& tensors);
    void set_input_tensors(size_t index, const std::vector<Tensor>& tensors);

    /// Runs one inference on the caller's thread; throws the run's error.
    void infer();
    /// Starts one inference and returns; wait() or the callback report the end.
    void start_async();
    /// Waits for the last start_async; rethrows its error (Cancelled after cancel()). Returns at
    /// once if nothing was started.
    void wait();
    /// Like wait() with a timeout; false if still running. Throws InvalidArgument if negative.
    bool wait_for(std::chrono::milliseconds timeout);
    /// Called with the error (null on success) when a start_async run ends. Throws Busy while
    /// a run is in flight.
    void set_callback(Callback callback);
    /// Stops a run in flight before its next stage (wait() then throws Cancelled); no-op when idle.
    void cancel();

    /// Per-stage (and, with enable_profiling, per-op) timings of the last run.
    std::vector<ProfilingInfo> get_profiling_info() const;
    /// The variables of a stateful model, one handle per variable.
    std::vector<VariableState> query_state() const;
    /// Resets every variable to its initial value.
    void reset_state();
    /// The compiled model this request belongs to.
    CompiledModel get_compiled_model() const;

    explicit operator bool() const { return static_cast<bool>(m_object); }
    bool operator==(const InferRequest& other) const { return impl() == other.impl(); }
    const std::shared_ptr<sdk::IAsyncInferRequest>& impl() const { return m_object.impl(); }

  private:
    const PluginObject<sdk::IAsyncInferRequest>& checked() const;
    Output find_port(const std::string& tensor_name) const;
    Output input_port(size_t index) const;
    Output output_port(size_t index) const;
    Tensor held(const Tensor& tensor) const;

    // Both hold the plugin library; each releases its implementation before its reference.
    PluginObject<sdk::ICompiledModel> m_compiled_model;
    PluginObject<sdk::IAsyncInferRequest> m_object;  // named by the device name
    bool m_loaded_from_cache = false;
};

}  // namespace vireo
