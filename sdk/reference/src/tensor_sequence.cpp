// Implements CumSum-3 (exclusive, reverse; sums in the element type, f16/bf16 in float, integers
// wrap) and ReverseSequence-1 (by element size; every seq_lengths value must be in
// [0, size of seq_axis], 0 and 1 leave the entry as it is).
#include "math_common.hpp"
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

size_t product(const Shape& s, size_t from, size_t to) {
    size_t n = 1;
    for (size_t i = from; i < to; ++i) n *= s[i];
    return n;
}

std::unique_ptr<Kernel> make_cumsum(const Node& node) {
    const bool exclusive = node.has_attribute("exclusive") && node.get_attribute<bool>("exclusive");
    const bool reverse = node.has_attribute("reverse") && node.get_attribute<bool>("reverse");
    const std::string who = node.describe();
    return dispatch(
        NumericTypes{}, node.input_value(0).get_element_type(), who.c_str(),
        [&](auto tag) -> std::unique_ptr<Kernel> {
            using T = decltype(tag);
            using C = math::compute_t<T>;
            return make_kernel([who, exclusive, reverse](const std::vector<Tensor>& in,
                                                         std::vector<Tensor>& out) {
                check_arity(in, 1, out, 1, who);
                const Shape& shape = in[0].get_shape();
                if (shape.empty())
                    throw_error<InvalidArgument>(who, ": arg must have rank >= 1, got a scalar");
                int64_t axis_value = 0;
                if (in.size() > 1 && in[1]) {
                    const auto v = read_ints(in[1], who, "input 1 (axis)");
                    if (v.size() != 1)
                        throw_error<InvalidArgument>(who, ": axis must hold one value, got ",
                                                     v.size());
                    axis_value = v[0];
                }
                const size_t axis = normalize_axis(axis_value, shape.size(), who, "axis");
                const size_t outer = product(shape, 0, axis), len = shape[axis],
                             inner = product(shape, axis + 1, shape.size());
                const T* x = tensor_data<T>(in[0]);
                T* y = tensor_data<T>(out[0]);
                for (size_t o = 0; o < outer; ++o)
                    for (size_t i = 0; i < inner; ++i) {
                        C sum = C(0);
                        for (size_t step = 0; step < len; ++step) {
                            const size_t j = reverse ? len - 1 - step : step;
                            const size_t at = (o * len + j) * inner + i;
                            const C v = math::to_compute(x[at]);
                            C next;
                            if constexpr (std::is_integral_v<C>)
                                next = math::wrap_add(sum, v);
                            else
                                next = sum + v;
                            y[at] = math::from_compute<T>(exclusive ? sum : next);
                            sum = next;
                        }
                    }
            });
        });
}

std::unique_ptr<Kernel> make_reverse_sequence(const Node& node) {
    const int64_t batch_attr = node.get_attribute<int64_t>("batch_axis");
    const int64_t seq_attr = node.get_attribute<int64_t>("seq_axis");
    return make_kernel([who = node.describe(), batch_attr, seq_attr](const std::vector<Tensor>& in,
                                                                     std::vector<Tensor>& out) {
        check_arity(in, 2, out, 1, who);
        const Shape& shape = in[0].get_shape();
        const size_t batch_axis = normalize_axis(batch_attr, shape.size(), who, "batch_axis");
        const size_t seq_axis = normalize_axis(seq_attr, shape.size(), who, "seq_axis");
        const auto lengths = read_ints(in[1], who, "input 1 (seq_lengths)");
        if (batch_axis == seq_axis || lengths.size() != shape[batch_axis])
            throw_error<InvalidArgument>(who, ": seq_lengths of ", lengths.size(),
                                         " values must match axis ", batch_axis, " of data ", shape,
                                         " (seq_axis ", seq_axis, ")");
        for (int64_t l : lengths)
            if (l < 0 || l > static_cast<int64_t>(shape[seq_axis]))
                throw_error<InvalidArgument>(who, ": seq_lengths value ", l,
                                             " is out of range [0, ", shape[seq_axis], "]");
        const auto strides = element_strides(shape);
        dispatch_by_size(in[0].get_element_type(), who, [&](auto tag) {
            using U = decltype(tag);
            const U* src = tensor_data<U>(in[0]);
            U* dst = tensor_data<U>(out[0]);
            const size_t total = in[0].get_size();
            std::vector<size_t> coord(shape.size(), 0);
            for (size_t p = 0; p < total; ++p) {
                const auto len = static_cast<size_t>(lengths[coord[batch_axis]]);
                const size_t s = coord[seq_axis];
                size_t from = p;
                if (s < len) from = p - s * strides[seq_axis] + (len - 1 - s) * strides[seq_axis];
                dst[p] = src[from];
                for (size_t i = shape.size(); i-- > 0;) {
                    if (++coord[i] < shape[i]) break;
                    coord[i] = 0;
                }
            }
        });
    });
}

}  // namespace

void register_sequence_kernels(KernelRegistry& registry) {
    registry.add("CumSum", make_cumsum);
    registry.add("ReverseSequence", make_reverse_sequence);
}

}  // namespace vireo::reference::tensor
