// Implements the helpers shared by the tensor kernel group: index inputs, axes, strides.
#include "tensor_common.hpp"

namespace vireo::reference::tensor {

std::vector<int64_t> read_ints(const Tensor& t, const std::string& who, const char* what) {
    std::vector<int64_t> out;
    const size_t n = t.get_size();
    out.reserve(n);
    const element::Type type = t.get_element_type();
    if (!type.is_integral_number() && !type.is_real())
        throw_error<InvalidArgument>(who, ": ", what, " must hold integers, found element type ",
                                     type);
    dispatch(NumericTypes{}, type, what, [&](auto tag) {
        using T = decltype(tag);
        const T* p = tensor_data<T>(t);
        for (size_t i = 0; i < n; ++i) {
            if constexpr (std::is_integral_v<T>) {
                out.push_back(static_cast<int64_t>(p[i]));
            } else {
                out.push_back(static_cast<int64_t>(static_cast<double>(p[i])));
            }
        }
    });
    return out;
}

bool is_constant_input(const Node& node, size_t i) {
    if (i >= node.get_input_size()) return false;
    const Output& source = node.input_value(i);
    return source && source.get_node()->get_type_name() == "Constant" &&
           static_cast<bool>(source.get_node()->get_constant_value());
}

size_t normalize_axis(int64_t axis, size_t rank, const std::string& who, const char* what) {
    const auto r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r)
        throw_error<InvalidArgument>(who, ": ", what, " ", axis, " is out of range [", -r, ", ",
                                     r - 1, "] for rank ", rank);
    return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

std::vector<size_t> element_strides(const Shape& shape) {
    std::vector<size_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    return strides;
}

const float* f32_view(const Tensor& t, std::vector<float>& storage) {
    const element::Type type = t.get_element_type();
    if (type == element::f32) return tensor_data<float>(t);
    storage.resize(t.get_size());
    if (type == element::f16) {
        const auto* p = tensor_data<float16>(t);
        for (size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<float>(p[i]);
    } else if (type == element::bf16) {
        const auto* p = tensor_data<bfloat16>(t);
        for (size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<float>(p[i]);
    } else {
        throw_error<InvalidArgument>("f32_view: element type ", type, " is not f32, f16 or bf16");
    }
    return storage.data();
}

void store_f32(const float* src, Tensor& dst) {
    const element::Type type = dst.get_element_type();
    const size_t n = dst.get_size();
    if (type == element::f32) {
        if (tensor_data<float>(dst) != src) std::memcpy(dst.data(), src, n * sizeof(float));
    } else if (type == element::f16) {
        auto* p = tensor_data<float16>(dst);
        for (size_t i = 0; i < n; ++i) p[i] = float16(src[i]);
    } else if (type == element::bf16) {
        auto* p = tensor_data<bfloat16>(dst);
        for (size_t i = 0; i < n; ++i) p[i] = bfloat16(src[i]);
    } else {
        throw_error<InvalidArgument>("store_f32: element type ", type, " is not f32, f16 or bf16");
    }
}

void check_arity(const std::vector<Tensor>& inputs, size_t min_inputs,
                 const std::vector<Tensor>& outputs, size_t min_outputs, const std::string& who) {
    if (inputs.size() < min_inputs)
        throw_error<InvalidArgument>(who, ": expected at least ", min_inputs,
                                     " input tensors, got ", inputs.size());
    if (outputs.size() < min_outputs)
        throw_error<InvalidArgument>(who, ": expected at least ", min_outputs,
                                     " output tensors, got ", outputs.size());
}

}  // namespace vireo::reference::tensor
