// Declares ISyncInferRequest: the plugin's synchronous request, with the tensor bookkeeping and
// validation every plugin needs.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "vireo/model.hpp"
#include "vireo/profiling_info.hpp"
#include "vireo/sdk/run_context.hpp"
#include "vireo/tensor.hpp"

namespace vireo::sdk {

class IAsyncInferRequest;
class ICompiledModel;
class IVariableState;

/// Base of a plugin's synchronous request. It owns one tensor slot per input and output port,
/// finds ports, and validates every tensor a user sets.
///
/// Ports: a port is found by handle (same node and index as the compiled model's inputs() /
/// outputs()), else as a port of another copy of the model (the caller's original or a clone):
/// a Parameter's output matches the input with the same output index whose tensor names include
/// all of the port's names (its friendly name when it has none); a Result's (or any other
/// node's) output matches the output whose names include the port's names.
///
/// Validation (set_tensor, and check_tensors() before every inference):
/// - unknown port: NotFound naming the port and listing the inputs and outputs;
/// - empty handle: InvalidArgument;
/// - element type differs from the port's: InvalidArgument with both types;
/// - shape not within the port's partial shape: InvalidArgument with both shapes (a dynamic
///   output also accepts a zero-element placeholder, which the plugin resizes in infer());
/// - a host tensor without memory: InvalidArgument (remote tensors never have host memory).
/// - an input that is a strided view (a region of interest) whose byte strides do not decrease
///   from the first axis to the last over its dimensions longer than 1 (a permuted view):
///   InvalidArgument. Views that keep the axis order are accepted, with any element type of
///   whole bytes (Tensor refuses strides for sub-byte types); the plugin gathers them into
///   its dense input (a contiguous tensor is used as is, without a copy).
/// Messages name the port by tensor name ("input 'x'") or index ("input #0 (Parameter 'p')").
/// A tensor that passes is stored as given (zero copy); the plugin reads it in infer().
///
/// Port tensors are created lazily: a port's slot stays empty until something needs it
/// (get_tensor, check_tensors before a run, input_tensor/output_tensor), and is then filled by
/// create_port_tensor() — unless the user set a tensor first, in which case nothing is
/// allocated for that port at all. The default create_port_tensor() gives a host tensor:
/// zero-filled of the port's shape when it is static, an empty one of shape {0} when it is
/// dynamic (a dynamic input must be set before inference), an empty handle for a dynamic element
/// type. A plugin whose ports live elsewhere (device memory) overrides create_port_tensor();
/// allocate_tensor() stores a tensor for a port at any time.
///
/// A plugin derives and implements infer(RunContext&); get_profiling_info() defaults to the rows
/// the last run recorded in its RunContext, query_state() to no states. Cancel and profiling
/// reach infer() through the RunContext (see run_context.hpp). Not thread-safe: the async
/// request serialises access.
class ISyncInferRequest {
  public:
    explicit ISyncInferRequest(const std::shared_ptr<const ICompiledModel>& compiled_model);
    virtual ~ISyncInferRequest();

    /// Runs one inference on the current tensors. `run` carries the cancel token (poll
    /// run.cancelled() between ops; register run.on_cancel() around blocking waits) and the
    /// profiling sink. (The trailing comment is what a compiler quotes to the author of a plugin
    /// written for ABI 4, whose request does not implement it.)
    virtual void infer(RunContext& run) = 0;  // ABI 5 replaced infer(), cancel(): CHANGELOG.md
    /// Gone in ABI 5 (cancellation reaches infer() through its RunContext); declared final so
    /// that a request written for ABI 4 that still overrides it fails to compile at this line,
    /// which points at the migration note, and deprecated so that no one calls it.
    [[deprecated("removed in ABI 5: CHANGELOG.md")]] virtual void cancel() final {}  // ABI 4 only
    /// Default: the rows recorded in the last finished run's RunContext (five stage rows, then
    /// op rows); before any run, the five stage rows NOT_RUN.
    virtual std::vector<ProfilingInfo> get_profiling_info() const;
    /// Default: no states.
    virtual std::vector<std::shared_ptr<IVariableState>> query_state() const;

    Tensor get_tensor(const Output& port) const;
    void set_tensor(const Output& port, const Tensor& tensor);
    /// Batched input: N tensors of batch 1 for one input of batch N. Empty when none are set.
    /// set_tensors() checks: the port is an input (else InvalidArgument), the list is not empty,
    /// its size fits the batch dimension (dim 0, or the "N" of a "layout" entry in the port's or
    /// its node's rt_info: "NCHW", "[N,C,H,W]", "...N"), every item has 1 on that axis and all
    /// share one type and shape, and the assembled shape fits the port. One tensor is a plain
    /// set_tensor(). A later set_tensor() on the input drops the batched tensors.
    std::vector<Tensor> get_tensors(const Output& port) const;
    void set_tensors(const Output& port, const std::vector<Tensor>& tensors);

    const OutputVector& get_inputs() const;
    const OutputVector& get_outputs() const;
    const std::shared_ptr<const ICompiledModel>& get_compiled_model() const {
        return m_compiled_model;
    }
    /// Validates every input and output tensor (used before an inference starts).
    virtual void check_tensors() const;

  protected:
    struct FoundPort {
        enum class Type { kNotFound, kInput, kOutput };
        size_t index = 0;
        Type type = Type::kNotFound;
        bool found() const { return type != Type::kNotFound; }
        bool is_input() const { return type == Type::kInput; }
        bool is_output() const { return type == Type::kOutput; }
    };
    FoundPort find_port(const Output& port) const;
    /// Throws as described in the class comment.
    virtual void check_tensor(const Output& port, const Tensor& tensor) const;
    /// Stores validated batched tensors (`port` is this request's own input). Default: keeps them
    /// in m_batched_tensors and makes the input's slot a fresh buffer of the whole batch, which
    /// convert_batched_tensors() fills. Override to consume them another way (e.g. zero copy).
    virtual void set_tensors_impl(const Output& port, const std::vector<Tensor>& tensors);
    /// Copies every input's batched tensors into its slot (one tensor of the whole batch), for a
    /// plugin to call at the start of infer(). Inputs without batched tensors are untouched.
    void convert_batched_tensors();
    /// Copies input `index`'s batched tensors into `destination`, a host tensor of the whole
    /// batch (e.g. a plugin's staging buffer), each item at its place along the batch axis.
    /// Nothing happens when the input has no batched tensors; InvalidArgument when `destination`
    /// has another shape or is remote.
    void copy_batched_tensors(size_t index, Tensor& destination) const;
    /// Stores a tensor for `port` without validation (the plugin's own allocation).
    void allocate_tensor(const Output& port, const Tensor& tensor);
    /// The slot of `port` (created by create_port_tensor() if still empty); NotFound for a port
    /// of neither list.
    Tensor& tensor_slot(const Output& port);
    /// Input / output `index`'s slot, created by create_port_tensor() if still empty.
    Tensor& input_tensor(size_t index) const;
    Tensor& output_tensor(size_t index) const;
    /// Every input's / output's slot in port order, empty ones created first (for a plugin whose
    /// executor takes the whole list).
    const std::vector<Tensor>& input_tensors() const;
    std::vector<Tensor>& output_tensors() const;
    /// The tensor a port gets when nothing was set for it (see the class comment). Called at
    /// most once per port unless it returns an empty handle; must not call the slot accessors.
    virtual Tensor create_port_tensor(const Output& port, bool is_input) const;
    /// A host tensor of the port's type in the smallest shape it allows (each dimension's lower
    /// bound; {0} for a dynamic rank), so that it already fits the port; an empty handle for a
    /// dynamic element type. What TEMPLATE and CPU give a dynamic port.
    static Tensor smallest_port_tensor(const Output& port);

    std::map<size_t, std::vector<Tensor>> m_batched_tensors;  // input index -> tensors

  private:
    friend class IAsyncInferRequest;
    /// The run that ended last (its profiling rows); set by the async request.
    void set_last_run(std::shared_ptr<const RunContext> run) { m_last_run = std::move(run); }

    std::shared_ptr<const ICompiledModel> m_compiled_model;
    std::map<std::pair<const Node*, size_t>, FoundPort> m_own_ports;  // by (node, output index)
    // Slots, filled lazily (mutable: a const get_tensor may create one).
    mutable std::vector<Tensor> m_input_tensors;
    mutable std::vector<Tensor> m_output_tensors;
    std::shared_ptr<const RunContext> m_last_run;
};

}  // namespace vireo::sdk
