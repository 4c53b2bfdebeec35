// Implements InferRequest: the public handle over a plugin's IAsyncInferRequest.
#include "vireo/infer_request.hpp"

#include "port_lookup.hpp"
#include "vireo/compiled_model.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/ivariable_state.hpp"

namespace vireo {
namespace {

// The device name of the plugin that compiled `compiled`, which errors are prefixed with. Read
// once here: get_plugin and get_device_name are the SDK base classes' stored values.
std::string device_of(const std::shared_ptr<sdk::ICompiledModel>& compiled) {
    auto plugin = compiled ? compiled->get_plugin() : nullptr;
    return plugin ? plugin->get_device_name() : std::string("infer request");
}

std::string device_of_compiled(const sdk::ICompiledModel& compiled) {
    auto plugin = compiled.get_plugin();
    return plugin ? plugin->get_device_name() : std::string("compiled model");
}

}  // namespace

InferRequest::InferRequest(std::shared_ptr<sdk::IAsyncInferRequest> impl, std::shared_ptr<void> so,
                           std::shared_ptr<sdk::ICompiledModel> compiled_model,
                           bool loaded_from_cache)
    : m_compiled_model(compiled_model, so, device_of_compiled, "compiled model"),
      m_object(std::move(impl), std::move(so), device_of(compiled_model)),
      m_loaded_from_cache(loaded_from_cache) {}

InferRequest::~InferRequest() = default;
InferRequest& InferRequest::operator=(const InferRequest& other) = default;
InferRequest& InferRequest::operator=(InferRequest&& other) noexcept = default;

const PluginObject<sdk::IAsyncInferRequest>& InferRequest::checked() const {
    return m_object.checked("InferRequest");
}

Tensor InferRequest::held(const Tensor& tensor) const {
    if (!tensor || tensor.shared_object()) return tensor;
    return Tensor(tensor.impl(), m_object.module());
}

// get_inputs() and get_outputs() are the SDK base class's stored ports, not plugin code: no guard.
Output InferRequest::find_port(const std::string& tensor_name) const {
    const auto& object = checked();
    const auto& impl = object.impl();
    if (Output port = runtime::find_port_named(impl->get_inputs(), tensor_name)) return port;
    if (Output port = runtime::find_port_named(impl->get_outputs(), tensor_name)) return port;
    throw_error<NotFound>(object.name(), ": no input or output with tensor name '", tensor_name,
                          "'; inputs: ", runtime::describe_ports(impl->get_inputs()),
                          "; outputs: ", runtime::describe_ports(impl->get_outputs()));
}

Output InferRequest::input_port(size_t index) const {
    return runtime::port_at(checked().impl()->get_inputs(), index, "input");
}

Output InferRequest::output_port(size_t index) const {
    return runtime::port_at(checked().impl()->get_outputs(), index, "output");
}

void InferRequest::set_tensor(const std::string& tensor_name, const Tensor& tensor) {
    set_tensor(find_port(tensor_name), tensor);
}

void InferRequest::set_tensor(const Output& port, const Tensor& tensor) {
    checked().call("set_tensor",
                   [&](sdk::IAsyncInferRequest& request) { request.set_tensor(port, tensor); });
}

Tensor InferRequest::get_tensor(const std::string& tensor_name) const {
    return get_tensor(find_port(tensor_name));
}

Tensor InferRequest::get_tensor(const Output& port) const {
    return held(checked().call(
        "get_tensor", [&](sdk::IAsyncInferRequest& request) { return request.get_tensor(port); }));
}

void InferRequest::set_input_tensor(size_t index, const Tensor& tensor) {
    set_tensor(input_port(index), tensor);
}
void InferRequest::set_input_tensor(const Tensor& tensor) {
    set_tensor(runtime::single_port(checked().impl()->get_inputs(), "input"), tensor);
}
void InferRequest::set_output_tensor(size_t index, const Tensor& tensor) {
    set_tensor(output_port(index), tensor);
}
void InferRequest::set_output_tensor(const Tensor& tensor) {
    set_tensor(runtime::single_port(checked().impl()->get_outputs(), "output"), tensor);
}
Tensor InferRequest::get_input_tensor(size_t index) const {
    return get_tensor(input_port(index));
}
Tensor InferRequest::get_input_tensor() const {
    return get_tensor(runtime::single_port(checked().impl()->get_inputs(), "input"));
}
Tensor InferRequest::get_output_tensor(size_t index) const {
    return get_tensor(output_port(index));
}
Tensor InferRequest::get_output_tensor() const {
    return get_tensor(runtime::single_port(checked().impl()->get_outputs(), "output"));
}

void InferRequest::set_tensors(const std::string& tensor_name, const std::vector<Tensor>& tensors) {
    set_tensors(find_port(tensor_name), tensors);
}

void InferRequest::set_tensors(const Output& port, const std::vector<Tensor>& tensors) {
    checked().call("set_tensors",
                   [&](sdk::IAsyncInferRequest& request) { request.set_tensors(port, tensors); });
}

void InferRequest::set_input_tensors(size_t index, const std::vector<Tensor>& tensors) {
    set_tensors(input_port(index), tensors);
}

void InferRequest::infer() {
    checked().call("infer", [&](sdk::IAsyncInferRequest& request) { request.infer(); });
}

void InferRequest::start_async() {
    checked().call("start_async", [&](sdk::IAsyncInferRequest& request) { request.start_async(); });
}

void InferRequest::wait() {
    checked().call("wait", [&](sdk::IAsyncInferRequest& request) { request.wait(); });
}

bool InferRequest::wait_for(std::chrono::milliseconds timeout) {
    const auto& object = checked();
    if (timeout.count() < 0)
        throw_error<InvalidArgument>("wait_for: the timeout must not be negative, found ",
                                     timeout.count(), " ms");
    return object.call("wait_for",
                       [&](sdk::IAsyncInferRequest& request) { return request.wait_for(timeout); });
}

void InferRequest::set_callback(Callback callback) {
    checked().call("set_callback", [&](sdk::IAsyncInferRequest& request) {
        request.set_callback(std::move(callback));
    });
}

void InferRequest::cancel() {
    checked().call("cancel", [&](sdk::IAsyncInferRequest& request) { request.cancel(); });
}

std::vector<ProfilingInfo> InferRequest::get_profiling_info() const {
    return checked().call("get_profiling_info", [&](sdk::IAsyncInferRequest& request) {
        return request.get_profiling_info();
    });
}

std::vector<VariableState> InferRequest::query_state() const {
    auto states = checked().call(
        "query_state", [&](sdk::IAsyncInferRequest& request) { return request.query_state(); });
    std::vector<VariableState> out;
    out.reserve(states.size());
    for (auto& state : states) out.emplace_back(std::move(state), m_object.module());
    return out;
}

void InferRequest::reset_state() {
    for (VariableState& state : query_state()) state.reset();
}

CompiledModel InferRequest::get_compiled_model() const {
    const auto& object = checked();
    return CompiledModel(m_compiled_model.impl(), object.module(), m_loaded_from_cache);
}

}  // namespace vireo
