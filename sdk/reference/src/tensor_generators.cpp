// Implements the ops whose output shape comes from values or shapes: Broadcast-1/3 (numpy, pdpd,
// explicit, bidirectional) and Tile as strided copies with zero strides, ShapeOf-1/3, Range-1/4.
#include <cmath>

#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

using RangeTypes = NumericTypes;

std::unique_ptr<Kernel> make_broadcast_kernel(const Node& node) {
    const std::string mode = node.get_attribute<std::string>("mode");
    return make_kernel([who = node.describe(), mode](const std::vector<Tensor>& inputs,
                                                     std::vector<Tensor>& outputs) {
        check_arity(inputs, 2, outputs, 1, who);
        const Shape& data = inputs[0].get_shape();
        const Shape& out = outputs[0].get_shape();
        const std::vector<size_t> in_strides = element_strides(data);
        // For each output axis, the data axis that feeds it (or none).
        std::vector<int64_t> source_axis(out.size(), -1);
        if (mode == "explicit") {
            if (inputs.size() < 3)
                throw_error<InvalidArgument>(who, ": mode 'explicit' needs input 2 (axes_mapping)");
            const auto mapping = read_ints(inputs[2], who, "input 2 (axes_mapping)");
            if (mapping.size() != data.size())
                throw_error<InvalidArgument>(who, ": axes_mapping has ", mapping.size(),
                                             " values for data ", data);
            for (size_t i = 0; i < mapping.size(); ++i)
                source_axis[normalize_axis(mapping[i], out.size(), who, "axes_mapping value")] =
                    static_cast<int64_t>(i);
        } else {
            // numpy, pdpd (axis -1) and bidirectional align data to the right of the output.
            if (data.size() > out.size())
                throw_error<InvalidArgument>(who, ": data ", data,
                                             " has a higher rank than the output ", out);
            for (size_t i = 0; i < data.size(); ++i)
                source_axis[out.size() - data.size() + i] = static_cast<int64_t>(i);
        }
        std::vector<int64_t> strides(out.size(), 0);
        for (size_t a = 0; a < out.size(); ++a) {
            if (source_axis[a] < 0) continue;
            const auto d = static_cast<size_t>(source_axis[a]);
            if (data[d] == out[a]) {
                strides[a] = static_cast<int64_t>(in_strides[d]);
            } else if (data[d] != 1) {
                throw_error<InvalidArgument>(who, ": data ", data, " axis ", d, " (", data[d],
                                             ") cannot broadcast to output ", out, " axis ", a,
                                             " (", out[a], ")");
            }
        }
        dispatch_by_size(inputs[0].get_element_type(), who, [&](auto tag) {
            using U = decltype(tag);
            copy_strided(tensor_data<U>(inputs[0]), 0, strides, out, tensor_data<U>(outputs[0]));
        });
    });
}

std::unique_ptr<Kernel> make_tile_kernel(const Node& node) {
    return make_kernel([who = node.describe()](const std::vector<Tensor>& inputs,
                                               std::vector<Tensor>& outputs) {
        check_arity(inputs, 2, outputs, 1, who);
        const auto repeats = read_ints(inputs[1], who, "input 1 (repeats)");
        Shape data = inputs[0].get_shape();
        const size_t rank = std::max(data.size(), repeats.size());
        while (data.size() < rank) data.insert(data.begin(), 1);
        std::vector<int64_t> reps(rank - repeats.size(), 1);
        reps.insert(reps.end(), repeats.begin(), repeats.end());
        // The output [r0*d0, r1*d1, ...] is, row-major, the array [r0, d0, r1, d1, ...] whose
        // repeat axes read the data with stride 0.
        const std::vector<size_t> in_strides = element_strides(data);
        Shape expanded;
        std::vector<int64_t> strides;
        Shape expected;
        for (size_t a = 0; a < rank; ++a) {
            if (reps[a] < 0)
                throw_error<InvalidArgument>(who, ": repeats must be non-negative, got ", reps[a]);
            expanded.push_back(static_cast<size_t>(reps[a]));
            strides.push_back(0);
            expanded.push_back(data[a]);
            strides.push_back(static_cast<int64_t>(in_strides[a]));
            expected.push_back(static_cast<size_t>(reps[a]) * data[a]);
        }
        if (expected != outputs[0].get_shape())
            throw_error<InvalidArgument>(who, ": output ", outputs[0].get_shape(),
                                         " differs from the expected ", expected);
        dispatch_by_size(inputs[0].get_element_type(), who, [&](auto tag) {
            using U = decltype(tag);
            copy_strided(tensor_data<U>(inputs[0]), 0, strides, expanded,
                         tensor_data<U>(outputs[0]));
        });
    });
}

std::unique_ptr<Kernel> make_shape_of_kernel(const Node& node) {
    return make_kernel(
        [who = node.describe()](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
            check_arity(inputs, 1, outputs, 1, who);
            const Shape& shape = inputs[0].get_shape();
            Tensor& out = outputs[0];
            if (out.get_size() != shape.size())
                throw_error<InvalidArgument>(who, ": output holds ", out.get_size(),
                                             " values for rank ", shape.size());
            if (out.get_element_type() == element::i32) {
                auto* p = tensor_data<int32_t>(out);
                for (size_t i = 0; i < shape.size(); ++i) p[i] = static_cast<int32_t>(shape[i]);
            } else if (out.get_element_type() == element::i64) {
                auto* p = tensor_data<int64_t>(out);
                for (size_t i = 0; i < shape.size(); ++i) p[i] = static_cast<int64_t>(shape[i]);
            } else {
                throw_error<NotImplemented>(who, ": output type ", out.get_element_type(),
                                            " is not i32 or i64");
            }
        });
}

// The first element of a numeric scalar as a double.
double scalar_of(const Tensor& t, const std::string& who, const char* what) {
    if (t.get_size() != 1)
        throw_error<InvalidArgument>(who, ": ", what, " must be a scalar, got ", t.get_shape());
    return dispatch(RangeTypes{}, t.get_element_type(), what, [&](auto tag) {
        using T = decltype(tag);
        return static_cast<double>(tensor_data<T>(t)[0]);
    });
}

std::unique_ptr<Kernel> make_range_kernel(const Node& node) {
    return make_kernel(
        [who = node.describe()](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
            check_arity(inputs, 3, outputs, 1, who);
            Tensor& out = outputs[0];
            const element::Type type = out.get_element_type();
            double start = scalar_of(inputs[0], who, "input 0 (start)");
            double step = scalar_of(inputs[2], who, "input 2 (step)");
            if (type.is_integral_number()) {
                // Integer ranges truncate their bounds first, as shape inference does.
                start = std::trunc(start);
                step = std::trunc(step);
            }
            const size_t n = out.get_size();
            dispatch(RangeTypes{}, type, who.c_str(), [&](auto tag) {
                using T = decltype(tag);
                T* p = tensor_data<T>(out);
                if constexpr (std::is_integral_v<T>) {
                    const auto s = static_cast<int64_t>(start), d = static_cast<int64_t>(step);
                    for (size_t i = 0; i < n; ++i)
                        p[i] = static_cast<T>(s + static_cast<int64_t>(i) * d);
                } else {
                    for (size_t i = 0; i < n; ++i)
                        p[i] = static_cast<T>(start + static_cast<double>(i) * step);
                }
            });
        });
}

}  // namespace

void register_broadcast_kernels(KernelRegistry& registry) {
    registry.add("Broadcast", make_broadcast_kernel);
    registry.add("Tile", make_tile_kernel);
}

void register_shape_kernels(KernelRegistry& registry) {
    registry.add("ShapeOf", make_shape_of_kernel);
    registry.add("Range", make_range_kernel);
}

}  // namespace vireo::reference::tensor
