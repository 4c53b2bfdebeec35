// Implements ISyncInferRequest: tensor slots per port, port lookup, and the validation of
// single and batched tensors a user sets.
#include "vireo/sdk/isync_infer_request.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "vireo/exception.hpp"
#include "vireo/layout.hpp"
#include "vireo/sdk/icompiled_model.hpp"

namespace vireo::sdk {
namespace {

// "input 'data'" or "input #0 (Parameter 'p')" when the port has no tensor name.
std::string describe_port(const Output& port, bool is_input, size_t index) {
    std::ostringstream out;
    out << (is_input ? "input " : "output ");
    if (!port.get_names().empty())
        out << "'" << port.get_any_name() << "'";
    else
        out << "#" << index << " (" << port.get_node()->describe() << ")";
    return out.str();
}

// A port the request does not know, as the caller gave it.
std::string describe_foreign_port(const Output& port) {
    if (!port) return "<null port>";
    std::ostringstream out;
    out << "port " << port.get_index() << " of " << port.get_node()->describe();
    if (!port.get_names().empty()) out << " (tensor '" << port.get_any_name() << "')";
    return out.str();
}

std::string list_ports(const OutputVector& ports) {
    std::ostringstream out;
    out << "[";
    for (size_t i = 0; i < ports.size(); ++i) {
        if (i) out << ", ";
        if (ports[i].get_names().empty())
            out << "#" << i;
        else
            out << "'" << ports[i].get_any_name() << "'";
    }
    out << "]";
    return out.str();
}

bool names_match(const Output& theirs, const Output& ours) {
    const auto& their_names = theirs.get_names();
    if (their_names.empty())
        return theirs.get_node()->get_friendly_name() == ours.get_node()->get_friendly_name();
    const auto& our_names = ours.get_names();
    return std::all_of(their_names.begin(), their_names.end(),
                       [&](const std::string& name) { return our_names.count(name) != 0; });
}

// Index of the batch axis: "N" of the port's layout in rt_info ("NCHW", "[N,C,H,W]", "...N",
// or the bracket form without brackets, "...,N,C"), else 0. Throws InvalidArgument if the layout
// has no N or does not fit the rank.
size_t batch_axis(const Output& port, const std::string& what, size_t rank) {
    const Any* text = nullptr;
    const auto& rt = port.get_rt_info();
    if (auto it = rt.find("layout"); it != rt.end()) text = &it->second;
    const auto& node_rt = port.get_node()->get_rt_info();
    if (!text) {
        if (auto it = node_rt.find("layout"); it != node_rt.end()) text = &it->second;
    }
    if (!text) return 0;
    std::string spelled = text->to_string();
    if (spelled.find(',') != std::string::npos && spelled.find('[') == std::string::npos)
        spelled = "[" + spelled + "]";
    const Layout layout(spelled);
    if (!layout::has_batch(layout))
        throw_error<InvalidArgument>(what, ": layout '", text->to_string(),
                                     "' has no batch dimension 'N'");
    if (!layout.fits_rank(rank))
        throw_error<InvalidArgument>(what, ": layout '", text->to_string(), "' does not fit rank ",
                                     rank);
    return layout.get_index("N", rank);
}

// A strided input must keep the axis order: over the dimensions longer than 1, byte strides
// strictly decrease from the first axis to the last, so it can be gathered row by row.
void check_axis_order(const Tensor& tensor, const std::string& what) {
    if (tensor.is_remote() || tensor.is_continuous()) return;
    const Shape& shape = tensor.get_shape();
    const Strides& strides = tensor.get_strides();
    size_t previous = std::numeric_limits<size_t>::max();
    for (size_t axis = 0; axis < shape.size() && axis < strides.size(); ++axis) {
        if (shape[axis] <= 1) continue;
        if (strides[axis] >= previous) {
            std::ostringstream list;
            for (size_t i = 0; i < strides.size(); ++i) list << (i ? "," : "") << strides[i];
            throw_error<InvalidArgument>(
                what, ": the strided tensor of shape ", shape.to_string(), " has byte strides [",
                list.str(),
                "] that do not decrease from the first axis to the last (a permuted "
                "view); only views that keep the axis order are accepted: copy it into a "
                "dense tensor or transpose it in the model (PrePostProcessor)");
        }
        previous = strides[axis];
    }
}

}  // namespace

ISyncInferRequest::ISyncInferRequest(const std::shared_ptr<const ICompiledModel>& compiled_model)
    : m_compiled_model(compiled_model) {
    if (!m_compiled_model)
        throw_error<InvalidArgument>("ISyncInferRequest: the compiled model is null");
    // Empty slots: filled on first need by create_port_tensor() (a virtual, so not here).
    m_input_tensors.resize(get_inputs().size());
    m_output_tensors.resize(get_outputs().size());
    // The compiled model's own ports, found by handle in O(log n): a plugin that looks up each
    // port once while creating a request (allocate_tensor) stays linear in the port count.
    for (size_t i = 0; i < get_inputs().size(); ++i)
        m_own_ports.emplace(std::make_pair(get_inputs()[i].get_node(), get_inputs()[i].get_index()),
                            FoundPort{i, FoundPort::Type::kInput});
    for (size_t i = 0; i < get_outputs().size(); ++i)
        m_own_ports.emplace(
            std::make_pair(get_outputs()[i].get_node(), get_outputs()[i].get_index()),
            FoundPort{i, FoundPort::Type::kOutput});
}

ISyncInferRequest::~ISyncInferRequest() = default;

Tensor ISyncInferRequest::create_port_tensor(const Output& port, bool /*is_input*/) const {
    // Zero-filled for a static port, an empty {0} placeholder for a dynamic one (an input must
    // then be set; an output is resized by the plugin).
    const auto& type = port.get_element_type();
    if (type.is_dynamic()) return Tensor();
    const auto& shape = port.get_partial_shape();
    return shape.is_static() ? Tensor(type, shape.to_shape()) : Tensor(type, Shape{0});
}

Tensor ISyncInferRequest::smallest_port_tensor(const Output& port) {
    const auto& type = port.get_element_type();
    if (type.is_dynamic()) return Tensor();
    const PartialShape& ps = port.get_partial_shape();
    if (ps.is_static()) return Tensor(type, ps.to_shape());
    Shape shape;
    if (ps.rank_is_static()) {
        for (const auto& d : ps) shape.push_back(static_cast<size_t>(d.get_min_length()));
    } else {
        shape = Shape{0};
    }
    return Tensor(type, shape);
}

Tensor& ISyncInferRequest::input_tensor(size_t index) const {
    Tensor& slot = m_input_tensors.at(index);
    if (!slot) slot = create_port_tensor(get_inputs()[index], true);
    return slot;
}

Tensor& ISyncInferRequest::output_tensor(size_t index) const {
    Tensor& slot = m_output_tensors.at(index);
    if (!slot) slot = create_port_tensor(get_outputs()[index], false);
    return slot;
}

const std::vector<Tensor>& ISyncInferRequest::input_tensors() const {
    for (size_t i = 0; i < m_input_tensors.size(); ++i) input_tensor(i);
    return m_input_tensors;
}

std::vector<Tensor>& ISyncInferRequest::output_tensors() const {
    for (size_t i = 0; i < m_output_tensors.size(); ++i) output_tensor(i);
    return m_output_tensors;
}

std::vector<ProfilingInfo> ISyncInferRequest::get_profiling_info() const {
    if (m_last_run) return m_last_run->profiling_rows();
    return RunContext().profiling_rows();
}

std::vector<std::shared_ptr<IVariableState>> ISyncInferRequest::query_state() const {
    return {};
}

const OutputVector& ISyncInferRequest::get_inputs() const {
    return m_compiled_model->inputs();
}

const OutputVector& ISyncInferRequest::get_outputs() const {
    return m_compiled_model->outputs();
}

ISyncInferRequest::FoundPort ISyncInferRequest::find_port(const Output& port) const {
    FoundPort found;
    if (!port) return found;
    const auto& inputs = get_inputs();
    const auto& outputs = get_outputs();
    if (auto own = m_own_ports.find({port.get_node(), port.get_index()}); own != m_own_ports.end())
        return own->second;
    // A handle from another copy of the model (the caller's original, or a clone): the same
    // kind of port with matching names.
    const std::string& type = port.get_node()->get_type_name();
    if (type == "Parameter") {
        for (size_t i = 0; i < inputs.size(); ++i)
            if (inputs[i].get_index() == port.get_index() && names_match(port, inputs[i]))
                return {i, FoundPort::Type::kInput};
        return found;
    }
    if (type == "Result") {
        for (size_t i = 0; i < outputs.size(); ++i)
            if (names_match(port, outputs[i])) return {i, FoundPort::Type::kOutput};
        return found;
    }
    // Any other node's output can only be a model output (a Result shares its source's names).
    if (!port.get_names().empty()) {
        for (size_t i = 0; i < outputs.size(); ++i)
            if (names_match(port, outputs[i])) return {i, FoundPort::Type::kOutput};
    }
    return found;
}

namespace {
[[noreturn]] void throw_not_found(const Output& port, const OutputVector& inputs,
                                  const OutputVector& outputs) {
    throw_error<NotFound>("infer request has no ", describe_foreign_port(port), "; inputs are ",
                          list_ports(inputs), ", outputs are ", list_ports(outputs));
}
}  // namespace

Tensor& ISyncInferRequest::tensor_slot(const Output& port) {
    const FoundPort found = find_port(port);
    if (!found.found()) throw_not_found(port, get_inputs(), get_outputs());
    return found.is_input() ? input_tensor(found.index) : output_tensor(found.index);
}

Tensor ISyncInferRequest::get_tensor(const Output& port) const {
    const FoundPort found = find_port(port);
    if (!found.found()) throw_not_found(port, get_inputs(), get_outputs());
    return found.is_input() ? input_tensor(found.index) : output_tensor(found.index);
}

void ISyncInferRequest::check_tensor(const Output& port, const Tensor& tensor) const {
    const FoundPort found = find_port(port);
    if (!found.found()) throw_not_found(port, get_inputs(), get_outputs());
    const Output& ours = found.is_input() ? get_inputs()[found.index] : get_outputs()[found.index];
    // The port's description is built only for an error message: formatting it on every call
    // cost more than all the checks (this runs before every inference).
    const auto what = [&] { return describe_port(ours, found.is_input(), found.index); };
    if (!tensor)
        throw_error<InvalidArgument>(what(),
                                     ": the tensor is empty (a default-constructed handle)");
    const auto& type = ours.get_element_type();
    if (!type.is_dynamic() && tensor.get_element_type() != type)
        throw_error<InvalidArgument>(what(), ": element type mismatch: expected ", type, ", got ",
                                     tensor.get_element_type());
    const auto& expected = ours.get_partial_shape();
    const Shape& shape = tensor.get_shape();
    // A dynamic output may hold a zero-element placeholder: the plugin sets its shape in infer().
    const bool placeholder = found.is_output() && expected.is_dynamic() && shape_size(shape) == 0;
    if (!placeholder && !expected.relaxes(PartialShape(shape)))
        throw_error<InvalidArgument>(what(), ": shape mismatch: expected ", expected, ", got ",
                                     shape.to_string());
    if (!tensor.is_remote() && tensor.data() == nullptr && tensor.get_byte_size() != 0)
        throw_error<InvalidArgument>(what(), ": the host tensor of shape ", shape.to_string(),
                                     " has no memory");
    if (found.is_input() && !tensor.is_remote() && !tensor.is_continuous())
        check_axis_order(tensor, what());
}

void ISyncInferRequest::set_tensor(const Output& port, const Tensor& tensor) {
    const FoundPort found = find_port(port);
    if (!found.found()) throw_not_found(port, get_inputs(), get_outputs());
    check_tensor(port, tensor);
    if (found.is_input()) {
        m_input_tensors[found.index] = tensor;
        m_batched_tensors.erase(found.index);  // a later set_tensor wins over set_tensors
    } else {
        m_output_tensors[found.index] = tensor;
    }
}

std::vector<Tensor> ISyncInferRequest::get_tensors(const Output& port) const {
    const FoundPort found = find_port(port);
    if (!found.found()) throw_not_found(port, get_inputs(), get_outputs());
    if (!found.is_input()) return {};
    auto it = m_batched_tensors.find(found.index);
    return it == m_batched_tensors.end() ? std::vector<Tensor>{} : it->second;
}

void ISyncInferRequest::set_tensors(const Output& port, const std::vector<Tensor>& tensors) {
    const FoundPort found = find_port(port);
    if (!found.found()) throw_not_found(port, get_inputs(), get_outputs());
    const Output& ours = found.is_input() ? get_inputs()[found.index] : get_outputs()[found.index];
    const std::string what = "set_tensors: " + describe_port(ours, found.is_input(), found.index);
    if (!found.is_input())
        throw_error<InvalidArgument>(what, ": batched tensors can only be set on inputs");
    if (tensors.empty()) throw_error<InvalidArgument>(what, ": the list of tensors is empty");
    if (tensors.size() == 1) {
        set_tensor(port, tensors[0]);
        return;
    }
    const PartialShape& expected = ours.get_partial_shape();
    if (!expected.rank_is_static())
        throw_error<InvalidArgument>(what, ": the port's rank is dynamic (", expected,
                                     "); no batch axis");
    const size_t rank = expected.size();
    const size_t axis = batch_axis(ours, what, rank);
    if (axis >= rank)
        throw_error<InvalidArgument>(what, ": batch axis ", axis, " is outside the port's rank ",
                                     rank);
    const Dimension batch = expected[axis];
    if (!batch.relaxes(Dimension(static_cast<Dimension::value_type>(tensors.size()))))
        throw_error<InvalidArgument>(what, ": ", tensors.size(),
                                     " tensors given, but the batch dimension ", axis, " of ",
                                     expected, " is ", batch);
    for (size_t i = 0; i < tensors.size(); ++i) {
        const Tensor& item = tensors[i];
        if (!item) throw_error<InvalidArgument>(what, ": tensor #", i, " is empty");
        if (item.get_element_type() != ours.get_element_type() &&
            !ours.get_element_type().is_dynamic())
            throw_error<InvalidArgument>(what, ": tensor #", i, " has element type ",
                                         item.get_element_type(), ", expected ",
                                         ours.get_element_type());
        const Shape& shape = item.get_shape();
        if (shape.size() != rank || shape[axis] != 1)
            throw_error<InvalidArgument>(what, ": tensor #", i, " has shape ", shape.to_string(),
                                         ", expected rank ", rank, " with 1 on batch axis ", axis);
        if (i > 0 && (shape != tensors[0].get_shape() ||
                      item.get_element_type() != tensors[0].get_element_type()))
            throw_error<InvalidArgument>(what, ": tensor #", i, " is ", item.get_element_type(),
                                         " ", shape.to_string(), " but tensor #0 is ",
                                         tensors[0].get_element_type(), " ",
                                         tensors[0].get_shape().to_string(), "; all must be alike");
        if (!item.is_remote() && item.data() == nullptr && item.get_byte_size() != 0)
            throw_error<InvalidArgument>(what, ": tensor #", i, " has no memory");
    }
    Shape full = tensors[0].get_shape();
    full[axis] = tensors.size();
    if (!expected.relaxes(PartialShape(full)))
        throw_error<InvalidArgument>(what, ": the batch of shape ", full.to_string(),
                                     " does not fit ", expected);
    set_tensors_impl(ours, tensors);
}

void ISyncInferRequest::set_tensors_impl(const Output& port, const std::vector<Tensor>& tensors) {
    const size_t index = find_port(port).index;
    m_batched_tensors[index] = tensors;
    // The slot becomes a buffer of the whole batch that convert_batched_tensors() fills; never
    // the caller's own tensor, which must not be overwritten.
    const size_t axis = batch_axis(port, "set_tensors", port.get_partial_shape().size());
    Shape full = tensors[0].get_shape();
    full[axis] = tensors.size();
    m_input_tensors[index] = Tensor(tensors[0].get_element_type(), full);
}

void ISyncInferRequest::convert_batched_tensors() {
    for (const auto& [index, items] : m_batched_tensors) {
        const Output& port = get_inputs()[index];
        const size_t axis =
            batch_axis(port, describe_port(port, true, index), port.get_partial_shape().size());
        Shape full = items[0].get_shape();
        full[axis] = items.size();
        Tensor& slot = m_input_tensors[index];
        if (!slot || slot.is_remote() || slot.get_shape() != full)
            slot = Tensor(items[0].get_element_type(), full);
        copy_batched_tensors(index, slot);
    }
}

void ISyncInferRequest::copy_batched_tensors(size_t index, Tensor& destination) const {
    auto it = m_batched_tensors.find(index);
    if (it == m_batched_tensors.end() || it->second.empty()) return;
    const auto& items = it->second;
    const Output& port = get_inputs()[index];
    const std::string what = describe_port(port, true, index);
    const size_t axis = batch_axis(port, what, port.get_partial_shape().size());
    Shape full = items[0].get_shape();
    full[axis] = items.size();
    if (destination.is_remote() || destination.get_shape() != full)
        throw_error<InvalidArgument>(what, ": the batch buffer is ",
                                     destination.get_shape().to_string(),
                                     ", expected a host tensor of ", full.to_string());
    for (size_t k = 0; k < items.size(); ++k) {
        Coordinate begin(full.size(), 0);
        Coordinate end(full.begin(), full.end());
        begin[axis] = k;
        end[axis] = k + 1;
        Tensor view(destination, begin, end);
        items[k].copy_to(view);
    }
}

void ISyncInferRequest::allocate_tensor(const Output& port, const Tensor& tensor) {
    const FoundPort found = find_port(port);
    if (!found.found()) throw_not_found(port, get_inputs(), get_outputs());
    (found.is_input() ? m_input_tensors : m_output_tensors)[found.index] = tensor;
}

void ISyncInferRequest::check_tensors() const {
    const auto& inputs = get_inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (m_batched_tensors.count(i)) continue;  // validated by set_tensors
        check_tensor(inputs[i], input_tensor(i));
    }
    const auto& outputs = get_outputs();
    for (size_t i = 0; i < outputs.size(); ++i) check_tensor(outputs[i], output_tensor(i));
}

}  // namespace vireo::sdk
