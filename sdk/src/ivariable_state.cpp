// Implements IVariableState's host-tensor defaults: reset to zeros, checked set_state, get_state.
#include "vireo/sdk/ivariable_state.hpp"

#include <cstring>
#include <vector>

#include "vireo/exception.hpp"

namespace vireo::sdk {

IVariableState::IVariableState(std::string name, Tensor initial, std::optional<PartialShape> shape)
    : m_name(std::move(name)), m_state(std::move(initial)) {
    if (!m_state)
        throw_error<InvalidArgument>("variable '", m_name, "': the initial state tensor is empty");
    m_shape = shape ? *shape : PartialShape(m_state.get_shape());
}

void IVariableState::reset() {
    if (void* data = m_state.data()) {
        if (m_state.is_continuous()) {
            std::memset(data, 0, m_state.get_byte_size());
        } else {
            Tensor zeros(m_state.get_element_type(), m_state.get_shape());
            zeros.copy_to(m_state);
        }
    } else if (m_state.get_byte_size() != 0) {
        Tensor zeros(m_state.get_element_type(), m_state.get_shape());  // remote: copy zeros in
        zeros.copy_to(m_state);
    }
    m_reset = true;
}

void IVariableState::set_state(const Tensor& state) {
    if (!state)
        throw_error<InvalidArgument>("variable '", m_name, "': set_state got an empty tensor");
    if (state.get_element_type() != m_state.get_element_type())
        throw_error<InvalidArgument>("variable '", m_name, "': element type mismatch: expected ",
                                     m_state.get_element_type(), ", got ",
                                     state.get_element_type());
    if (!m_shape.relaxes(PartialShape(state.get_shape())))
        throw_error<InvalidArgument>("variable '", m_name, "': shape mismatch: expected ", m_shape,
                                     ", got ", state.get_shape().to_string());
    if (state.get_shape() != m_state.get_shape()) m_state.set_shape(state.get_shape());
    state.copy_to(m_state);
    m_reset = false;
}

}  // namespace vireo::sdk
