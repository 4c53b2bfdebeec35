// Implements HostVariableState: reset, user writes and Assign commits.
#include "vireo/sdk/host_variable_state.hpp"

#include <algorithm>
#include <cstring>

namespace vireo::sdk {
namespace {

Shape zero_shape(const PartialShape& shape) {
    if (!shape.rank_is_static()) return Shape{0};
    Shape out;
    for (const auto& d : shape)
        out.push_back(d.is_static() ? static_cast<size_t>(d.get_length()) : 0);
    return out;
}

}  // namespace

HostVariableState::HostVariableState(const VariableInfo& info)
    : IVariableState(info.id, Tensor(info.type, zero_shape(info.shape)), info.shape),
      m_info(info) {}

void HostVariableState::reset() {
    if (m_shared) {  // zeros of the initial shape in a buffer of its own: no need to copy first
        m_state = Tensor(m_info.type, zero_shape(m_info.shape));
        m_capacity = 0;
        m_shared = false;
        m_reset = true;
        return;
    }
    const Shape initial = zero_shape(m_info.shape);
    if (m_state.get_shape() != initial) m_state.set_shape(initial);
    if (m_state.get_byte_size() != 0) std::memset(m_state.data(), 0, m_state.get_byte_size());
    m_reset = true;
}

void HostVariableState::set_state(const Tensor& state) {
    if (!state)
        throw_error<InvalidArgument>("variable '", m_name, "': set_state got an empty tensor");
    if (state.get_element_type() != m_info.type)
        throw_error<InvalidArgument>("variable '", m_name, "': set_state got element type ",
                                     state.get_element_type(), ", expected ", m_info.type);
    if (!m_info.shape.relaxes(PartialShape(state.get_shape())))
        throw_error<InvalidArgument>("variable '", m_name, "': set_state got shape ",
                                     state.get_shape(), ", expected a shape that fits ",
                                     m_info.shape);
    commit(state);
}

void HostVariableState::commit(const Tensor& value) {
    if (value.data() == m_state.data() && value.get_shape() == m_state.get_shape()) {
        mark_written();  // the graph handed back the state itself (a variable read and rewritten)
        return;
    }
    if (m_shared) {  // never write into the owner's memory
        m_state = value.clone();
        m_capacity = 0;
        m_shared = false;
        mark_written();
        return;
    }
    const Shape& shape = value.get_shape();
    if (m_state.get_shape() != shape) {
        const size_t need = shape_size(shape);
        if (need > std::max(m_capacity, m_state.get_size())) {
            m_capacity = need + need / 2;
            m_state = Tensor(m_info.type, Shape{m_capacity});
        }
        m_state.set_shape(shape);
    }
    value.copy_to(m_state);
    mark_written();
}

std::pair<Tensor, size_t> HostVariableState::exchange(Tensor value, size_t capacity) {
    std::pair<Tensor, size_t> previous{m_state, std::max(m_capacity, m_state.get_size())};
    if (m_shared) previous = {Tensor(), 0};  // the owner's memory, not the state's to give
    m_state = std::move(value);
    m_capacity = std::max(capacity, m_state.get_size());
    m_shared = false;
    mark_written();
    return previous;
}

void HostVariableState::share(Tensor view) {
    m_state = std::move(view);
    m_capacity = 0;
    m_shared = true;
    mark_written();
}

Tensor HostVariableState::get_state() const {
    return m_shared ? m_state.clone() : m_state;
}

}  // namespace vireo::sdk
