// Declares ISyncInferRequest: the plugin's synchronous request, with the tensor bookkeeping and
// validation every plugin needs.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "vireo/model.hpp"
#include "vireo/profiling_info.hpp"
#include "vireo/tensor.hpp"

namespace vireo::sdk {

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
/// Default tensors: the constructor gives every port a host tensor: zero-filled of the port's
/// shape when it is static, an empty one of shape {0} when it is dynamic (a dynamic input must
/// be set before inference). A plugin may replace them with allocate_tensor() (e.g. device
/// tensors); ports of dynamic element type start with an empty handle.
///
/// A plugin derives and implements infer(), get_profiling_info() and query_state(), and
/// cancel() if an inference can stop early. Not thread-safe: the async request serialises
/// access (cancel() excepted: it may be called while infer() runs on another thread).
class ISyncInferRequest {
  public:
    explicit ISyncInferRequest(const std::shared_ptr<const ICompiledModel>& compiled_model);
    virtual ~ISyncInferRequest();

    /// Runs one inference on the current tensors.
    virtual void infer() = 0;
    virtual std::vector<ProfilingInfo> get_profiling_info() const = 0;
    virtual std::vector<std::shared_ptr<IVariableState>> query_state() const = 0;
    /// Asks a running infer() to stop soon (between ops). Default: nothing to stop. Called from
    /// another thread while infer() may run, with the async request's lock held: it must be
    /// quick, must not block on the running inference, and must not call the async request
    /// (is_cancelled() included). It may also arrive just after infer() returned.
    virtual void cancel() {}

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
    Tensor& tensor_slot(const Output& port);

    std::vector<Tensor> m_input_tensors;
    std::vector<Tensor> m_output_tensors;
    std::map<size_t, std::vector<Tensor>> m_batched_tensors;  // input index -> tensors

  private:
    std::shared_ptr<const ICompiledModel> m_compiled_model;
    std::map<std::pair<const Node*, size_t>, FoundPort> m_own_ports;  // by (node, output index)
};

}  // namespace vireo::sdk
