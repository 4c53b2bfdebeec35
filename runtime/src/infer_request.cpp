// Implements InferRequest: the public handle over a plugin's IAsyncInferRequest.
#include "vireo/infer_request.hpp"

#include "guard.hpp"
#include "port_lookup.hpp"
#include "vireo/compiled_model.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/ivariable_state.hpp"

namespace vireo {
using runtime::guarded;

InferRequest::InferRequest(std::shared_ptr<sdk::IAsyncInferRequest> impl, std::shared_ptr<void> so,
                           std::shared_ptr<sdk::ICompiledModel> compiled_model,
                           bool loaded_from_cache)
    : m_so(std::move(so)),
      m_compiled_model(std::move(compiled_model)),
      m_impl(std::move(impl)),
      m_loaded_from_cache(loaded_from_cache) {}

InferRequest::~InferRequest() = default;

InferRequest& InferRequest::operator=(const InferRequest& other) {
    m_impl = other.m_impl;
    m_compiled_model = other.m_compiled_model;
    m_so = other.m_so;
    m_loaded_from_cache = other.m_loaded_from_cache;
    return *this;
}

InferRequest& InferRequest::operator=(InferRequest&& other) noexcept {
    m_impl = std::move(other.m_impl);
    m_compiled_model = std::move(other.m_compiled_model);
    m_so = std::move(other.m_so);
    m_loaded_from_cache = other.m_loaded_from_cache;
    return *this;
}

const std::shared_ptr<sdk::IAsyncInferRequest>& InferRequest::checked_impl() const {
    if (!m_impl)
        throw_error<InvalidArgument>("InferRequest is empty (default-constructed or moved from)");
    return m_impl;
}

std::string InferRequest::device_name() const {
    auto plugin = m_compiled_model ? m_compiled_model->get_plugin() : nullptr;
    return plugin ? plugin->get_device_name() : std::string("infer request");
}

Tensor InferRequest::held(const Tensor& tensor) const {
    if (!tensor || tensor.shared_object()) return tensor;
    return Tensor(tensor.impl(), m_so);
}

Output InferRequest::find_port(const std::string& tensor_name) const {
    const auto& impl = checked_impl();
    if (Output port = runtime::find_port_named(impl->get_inputs(), tensor_name)) return port;
    if (Output port = runtime::find_port_named(impl->get_outputs(), tensor_name)) return port;
    throw_error<NotFound>(device_name(), ": no input or output with tensor name '", tensor_name,
                          "'; inputs: ", runtime::describe_ports(impl->get_inputs()),
                          "; outputs: ", runtime::describe_ports(impl->get_outputs()));
}

Output InferRequest::input_port(size_t index) const {
    return runtime::port_at(checked_impl()->get_inputs(), index, "input");
}

Output InferRequest::output_port(size_t index) const {
    return runtime::port_at(checked_impl()->get_outputs(), index, "output");
}

void InferRequest::set_tensor(const std::string& tensor_name, const Tensor& tensor) {
    set_tensor(find_port(tensor_name), tensor);
}

void InferRequest::set_tensor(const Output& port, const Tensor& tensor) {
    const auto& impl = checked_impl();
    guarded([this] { return device_name(); }, [&] { impl->set_tensor(port, tensor); });
}

Tensor InferRequest::get_tensor(const std::string& tensor_name) const {
    return get_tensor(find_port(tensor_name));
}

Tensor InferRequest::get_tensor(const Output& port) const {
    const auto& impl = checked_impl();
    return held(guarded([this] { return device_name(); }, [&] { return impl->get_tensor(port); }));
}

void InferRequest::set_input_tensor(size_t index, const Tensor& tensor) {
    set_tensor(input_port(index), tensor);
}
void InferRequest::set_input_tensor(const Tensor& tensor) {
    set_tensor(runtime::single_port(checked_impl()->get_inputs(), "input"), tensor);
}
void InferRequest::set_output_tensor(size_t index, const Tensor& tensor) {
    set_tensor(output_port(index), tensor);
}
void InferRequest::set_output_tensor(const Tensor& tensor) {
    set_tensor(runtime::single_port(checked_impl()->get_outputs(), "output"), tensor);
}
Tensor InferRequest::get_input_tensor(size_t index) const {
    return get_tensor(input_port(index));
}
Tensor InferRequest::get_input_tensor() const {
    return get_tensor(runtime::single_port(checked_impl()->get_inputs(), "input"));
}
Tensor InferRequest::get_output_tensor(size_t index) const {
    return get_tensor(output_port(index));
}
Tensor InferRequest::get_output_tensor() const {
    return get_tensor(runtime::single_port(checked_impl()->get_outputs(), "output"));
}

void InferRequest::set_tensors(const std::string& tensor_name, const std::vector<Tensor>& tensors) {
    set_tensors(find_port(tensor_name), tensors);
}

void InferRequest::set_tensors(const Output& port, const std::vector<Tensor>& tensors) {
    const auto& impl = checked_impl();
    guarded([this] { return device_name(); }, [&] { impl->set_tensors(port, tensors); });
}

void InferRequest::set_input_tensors(size_t index, const std::vector<Tensor>& tensors) {
    set_tensors(input_port(index), tensors);
}

void InferRequest::infer() {
    const auto& impl = checked_impl();
    guarded([this] { return device_name(); }, [&] { impl->infer(); });
}

void InferRequest::start_async() {
    const auto& impl = checked_impl();
    guarded([this] { return device_name(); }, [&] { impl->start_async(); });
}

void InferRequest::wait() {
    const auto& impl = checked_impl();
    guarded([this] { return device_name(); }, [&] { impl->wait(); });
}

bool InferRequest::wait_for(std::chrono::milliseconds timeout) {
    const auto& impl = checked_impl();
    if (timeout.count() < 0)
        throw_error<InvalidArgument>("wait_for: the timeout must not be negative, found ",
                                     timeout.count(), " ms");
    return guarded([this] { return device_name(); }, [&] { return impl->wait_for(timeout); });
}

void InferRequest::set_callback(Callback callback) {
    const auto& impl = checked_impl();
    guarded([this] { return device_name(); }, [&] { impl->set_callback(std::move(callback)); });
}

void InferRequest::cancel() {
    const auto& impl = checked_impl();
    guarded([this] { return device_name(); }, [&] { impl->cancel(); });
}

std::vector<ProfilingInfo> InferRequest::get_profiling_info() const {
    const auto& impl = checked_impl();
    return guarded([this] { return device_name(); }, [&] { return impl->get_profiling_info(); });
}

std::vector<VariableState> InferRequest::query_state() const {
    const auto& impl = checked_impl();
    auto states = guarded([this] { return device_name(); }, [&] { return impl->query_state(); });
    std::vector<VariableState> out;
    out.reserve(states.size());
    for (auto& state : states) out.emplace_back(std::move(state), m_so);
    return out;
}

void InferRequest::reset_state() {
    for (VariableState& state : query_state()) state.reset();
}

CompiledModel InferRequest::get_compiled_model() const {
    checked_impl();
    return CompiledModel(m_compiled_model, m_so, m_loaded_from_cache);
}

}  // namespace vireo
