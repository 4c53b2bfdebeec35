// Implements OneHot-1, Eye-9 and NonZero-3.
//
// Eye: ones at [..., i, i + diagonal_index], zeros elsewhere, the same matrix in every batch entry.
// OneHot: an index i in [-depth, -1] counts from the end (i + depth), as ONNX's OneHot does; an
// index outside [-depth, depth - 1] gives a row of off_value only. NonZero: the coordinates of the
// non-zero elements in row-major order, one row per input axis ([rank, count]); NaN is non-zero.
#include "math_common.hpp"
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

std::unique_ptr<Kernel> make_one_hot(const Node& node) {
    const int64_t axis_attr = node.get_attribute<int64_t>("axis");
    return make_kernel([who = node.describe(), axis_attr](const std::vector<Tensor>& in,
                                                          std::vector<Tensor>& out) {
        check_arity(in, 4, out, 1, who);
        const Shape& ishape = in[0].get_shape();
        const auto depth_values = read_ints(in[1], who, "input 1 (depth)");
        if (depth_values.size() != 1 || depth_values[0] < 0)
            throw_error<InvalidArgument>(who, ": depth must be one non-negative value");
        const auto depth = static_cast<size_t>(depth_values[0]);
        const size_t axis = normalize_axis(axis_attr, ishape.size() + 1, who, "axis");
        if (in[2].get_size() != 1 || in[3].get_size() != 1 ||
            in[2].get_element_type() != out[0].get_element_type() ||
            in[3].get_element_type() != out[0].get_element_type())
            throw_error<InvalidArgument>(
                who, ": on_value and off_value must be single values of the output type ",
                out[0].get_element_type());
        size_t outer = 1, inner = 1;
        for (size_t i = 0; i < axis; ++i) outer *= ishape[i];
        for (size_t i = axis; i < ishape.size(); ++i) inner *= ishape[i];
        if (out[0].get_size() != outer * depth * inner)
            throw_error<InvalidArgument>(who, ": output ", out[0].get_shape(),
                                         " does not match indices ", ishape, " with depth ", depth,
                                         " at axis ", axis);
        const auto indices = read_ints(in[0], who, "input 0 (indices)");
        const auto d = static_cast<int64_t>(depth);
        dispatch_by_size(out[0].get_element_type(), who, [&](auto tag) {
            using U = decltype(tag);
            const U on = tensor_data<U>(in[2])[0], off = tensor_data<U>(in[3])[0];
            U* o = tensor_data<U>(out[0]);
            for (size_t a = 0; a < outer; ++a)
                for (size_t j = 0; j < depth; ++j)
                    for (size_t b = 0; b < inner; ++b) {
                        int64_t idx = indices[a * inner + b];
                        if (idx < 0) idx += d;
                        o[(a * depth + j) * inner + b] = idx == static_cast<int64_t>(j) ? on : off;
                    }
        });
    });
}

std::unique_ptr<Kernel> make_eye(const Node& node) {
    return make_kernel(
        [who = node.describe()](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            check_arity(in, 3, out, 1, who);
            auto one_value = [&](size_t i, const char* what) {
                const auto v = read_ints(in[i], who, what);
                if (v.size() != 1)
                    throw_error<InvalidArgument>(who, ": ", what, " must hold one value, got ",
                                                 v.size());
                return v[0];
            };
            const int64_t rows = one_value(0, "input 0 (num_rows)");
            const int64_t cols = one_value(1, "input 1 (num_columns)");
            const int64_t diagonal = one_value(2, "input 2 (diagonal_index)");
            const Shape& shape = out[0].get_shape();
            if (rows < 0 || cols < 0 || shape.size() < 2 ||
                shape[shape.size() - 2] != static_cast<size_t>(rows) ||
                shape[shape.size() - 1] != static_cast<size_t>(cols))
                throw_error<InvalidArgument>(who, ": output ", shape, " does not end with [", rows,
                                             ", ", cols, "]");
            const size_t matrix = static_cast<size_t>(rows * cols);
            const size_t batches = matrix ? out[0].get_size() / matrix : 0;
            dispatch(NumericTypes{}, out[0].get_element_type(), who.c_str(), [&](auto tag) {
                using T = decltype(tag);
                T* o = tensor_data<T>(out[0]);
                const T zero = T(0.0f), one = T(1.0f);
                for (size_t e = 0; e < out[0].get_size(); ++e) o[e] = zero;
                for (size_t b = 0; b < batches; ++b)
                    for (int64_t r = 0; r < rows; ++r) {
                        const int64_t c = r + diagonal;
                        if (c >= 0 && c < cols)
                            o[b * matrix + static_cast<size_t>(r * cols + c)] = one;
                    }
            });
        });
}

std::unique_ptr<Kernel> make_non_zero(const Node& node) {
    return make_kernel(
        [who = node.describe()](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            check_arity(in, 1, out, 1, who);
            const Shape& shape = in[0].get_shape();
            const size_t total = in[0].get_size();
            std::vector<uint8_t> nonzero(total, 0);
            const element::Type type = in[0].get_element_type();
            if (type.is_real()) {
                dispatch(RealTypes{}, type, who.c_str(), [&](auto tag) {
                    using T = decltype(tag);
                    const T* x = tensor_data<T>(in[0]);
                    for (size_t p = 0; p < total; ++p) nonzero[p] = math::to_compute(x[p]) != 0;
                });
            } else {
                dispatch_by_size(type, who, [&](auto tag) {
                    using U = decltype(tag);
                    const U* x = tensor_data<U>(in[0]);
                    for (size_t p = 0; p < total; ++p) nonzero[p] = x[p] != 0;
                });
            }
            size_t count = 0;
            for (uint8_t v : nonzero) count += v;
            const size_t rank = shape.size();
            if (out[0].get_size() != rank * count)
                throw_error<InvalidArgument>(who, ": output ", out[0].get_shape(),
                                             " does not hold [", rank, ", ", count,
                                             "] coordinates of ", count, " non-zero elements");
            auto write = [&](auto tag) {
                using I = decltype(tag);
                I* o = tensor_data<I>(out[0]);
                std::vector<size_t> coord(rank, 0);
                size_t k = 0;
                for (size_t p = 0; p < total; ++p) {
                    if (nonzero[p]) {
                        for (size_t i = 0; i < rank; ++i)
                            o[i * count + k] = static_cast<I>(coord[i]);
                        ++k;
                    }
                    for (size_t i = rank; i-- > 0;) {
                        if (++coord[i] < shape[i]) break;
                        coord[i] = 0;
                    }
                }
            };
            if (out[0].get_element_type() == element::i32)
                write(int32_t{});
            else if (out[0].get_element_type() == element::i64)
                write(int64_t{});
            else
                throw_error<InvalidArgument>(who, ": output type must be i32 or i64, got ",
                                             out[0].get_element_type());
        });
}

}  // namespace

void register_one_hot_kernels(KernelRegistry& registry) {
    registry.add("OneHot", make_one_hot);
    registry.add("Eye", make_eye);
    registry.add("NonZero", make_non_zero);
}

}  // namespace vireo::reference::tensor
