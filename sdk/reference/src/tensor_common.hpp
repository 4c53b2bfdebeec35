// Declares helpers shared by the tensor kernel group (MatMul, convolutions, pooling, data
// movement): kernels from lambdas, reading index inputs, axis checks, per-file registration.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "vireo/reference/dispatch.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::reference::tensor {

// One registration function per source file of the group; builtin_kernels_tensor.cpp calls them.
void register_matmul_kernels(KernelRegistry& registry);
void register_conv_kernels(KernelRegistry& registry);
void register_conv_backprop_kernels(KernelRegistry& registry);
void register_pool_kernels(KernelRegistry& registry);
void register_movement_kernels(KernelRegistry& registry);
void register_split_concat_kernels(KernelRegistry& registry);
void register_slice_kernels(KernelRegistry& registry);
void register_gather_kernels(KernelRegistry& registry);
void register_broadcast_kernels(KernelRegistry& registry);
void register_pad_kernels(KernelRegistry& registry);
void register_shape_kernels(KernelRegistry& registry);
void register_interpolate_kernels(KernelRegistry& registry);
void register_topk_kernels(KernelRegistry& registry);
void register_einsum_kernels(KernelRegistry& registry);
void register_scatter_nd_kernels(KernelRegistry& registry);   // tensor_scatter_nd.cpp
void register_space_depth_kernels(KernelRegistry& registry);  // tensor_space_depth.cpp
void register_sequence_kernels(KernelRegistry& registry);     // tensor_sequence.cpp
void register_one_hot_kernels(KernelRegistry& registry);      // tensor_one_hot.cpp
void register_unique_kernels(KernelRegistry& registry);       // tensor_unique.cpp
void register_nms_kernels(KernelRegistry& registry);          // tensor_nms.cpp
void register_roi_align_kernels(KernelRegistry& registry);    // tensor_roi_align.cpp
void register_grid_sample_kernels(KernelRegistry& registry);  // tensor_grid_sample.cpp
void register_signal_kernels(KernelRegistry& registry);       // tensor_signal.cpp
void register_recurrent_kernels(KernelRegistry& registry);    // tensor_recurrent.cpp
void register_random_kernels(KernelRegistry& registry);       // tensor_random.cpp
void register_attention_kernels(KernelRegistry& registry);    // tensor_attention.cpp

/// A kernel whose execute() is a callable `void(const std::vector<Tensor>&, std::vector<Tensor>&)`.
/// The callable must be safe to call from several threads at once (capture by value, no
/// mutable state).
template <typename Execute>
class FunctionKernel final : public Kernel {
  public:
    FunctionKernel(Execute execute, double flops_per_output)
        : m_execute(std::move(execute)), m_flops_per_output(flops_per_output) {}
    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        m_execute(inputs, outputs);
    }
    double flops(const std::vector<Tensor>& inputs,
                 const std::vector<Tensor>& outputs) const override {
        return m_flops_per_output * Kernel::flops(inputs, outputs);
    }

  private:
    Execute m_execute;
    double m_flops_per_output;
};

/// Wraps a lambda as a Kernel. `flops_per_output` scales the default work estimate (0 for pure
/// data movement).
template <typename Execute>
std::unique_ptr<Kernel> make_kernel(Execute execute, double flops_per_output = 0.0) {
    return std::make_unique<FunctionKernel<Execute>>(std::move(execute), flops_per_output);
}

/// Untyped element access: Tensor::data<T>() refuses boolean as uint8_t, kernels that work by
/// byte size or treat boolean as bytes go through these.
template <typename T>
const T* tensor_data(const Tensor& t) {
    return static_cast<const T*>(t.data());
}
template <typename T>
T* tensor_data(Tensor& t) {
    return static_cast<T*>(t.data());
}

/// The values of an integer or real tensor as int64 (indices, axes, shapes, pads). Throws
/// InvalidArgument naming `who` and `what` (e.g. "input 1 (axes)") for other element types.
std::vector<int64_t> read_ints(const Tensor& t, const std::string& who, const char* what);

/// True when input `i` of `node` comes straight from a Constant.
bool is_constant_input(const Node& node, size_t i);

/// Normalises a possibly negative axis against `rank`; throws InvalidArgument naming `who`,
/// `what` and the allowed range.
size_t normalize_axis(int64_t axis, size_t rank, const std::string& who, const char* what);

/// Row-major element strides of `shape` (the last axis has stride 1).
std::vector<size_t> element_strides(const Shape& shape);

/// Calls f(U{}) with U an unsigned integer of the element's byte size (1, 2, 4 or 8): data
/// movement kernels copy elements without caring what they mean. Sub-byte types throw
/// NotImplemented naming `who`.
template <typename F>
void dispatch_by_size(element::Type type, const std::string& who, F&& f) {
    if (type.is_sub_byte() || !type.is_static())
        throw_error<NotImplemented>(who, ": element type ", type,
                                    " is not supported (needs whole bytes)");
    switch (type.size()) {
        case 1:
            f(uint8_t{});
            break;
        case 2:
            f(uint16_t{});
            break;
        case 4:
            f(uint32_t{});
            break;
        case 8:
            f(uint64_t{});
            break;
        default:
            throw_error<NotImplemented>(who, ": element type ", type, " is not supported");
    }
}

/// Copies a strided view of `src` into contiguous `dst`: output element (i0, ..., in) comes from
/// src[offset + sum(ik * src_strides[k])] (strides in elements; negative strides walk backwards,
/// zero strides repeat). The innermost axis is copied with memcpy when its stride is 1.
template <typename U>
void copy_strided(const U* src, int64_t offset, const std::vector<int64_t>& src_strides,
                  const Shape& out_shape, U* dst) {
    const size_t total = shape_size(out_shape);
    if (total == 0) return;
    const size_t rank = out_shape.size();
    if (rank == 0) {
        dst[0] = src[offset];
        return;
    }
    const size_t run = out_shape[rank - 1];
    const int64_t step = src_strides[rank - 1];
    std::vector<size_t> index(rank, 0);
    int64_t at = offset;
    for (size_t out = 0; out < total; out += run) {
        if (step == 1) {
            std::memcpy(dst + out, src + at, run * sizeof(U));
        } else {
            const U* s = src + at;
            for (size_t i = 0; i < run; ++i) dst[out + i] = s[static_cast<int64_t>(i) * step];
        }
        for (size_t axis = rank - 1; axis-- > 0;) {
            at += src_strides[axis];
            if (++index[axis] < out_shape[axis]) break;
            at -= src_strides[axis] * static_cast<int64_t>(out_shape[axis]);
            index[axis] = 0;
        }
    }
}

/// f32, f16 and bf16 run on the f32 GEMM engine: half-precision operands are widened first and
/// results rounded once at the end (more accurate than accumulating in 16 bits).
inline bool runs_on_f32_engine(element::Type t) {
    return t == element::f32 || t == element::f16 || t == element::bf16;
}
/// The elements of an f32/f16/bf16 tensor as floats: the tensor's own memory for f32, else a
/// widened copy in `storage`.
const float* f32_view(const Tensor& t, std::vector<float>& storage);
/// Writes `src` (dst.get_size() floats) into an f32/f16/bf16 tensor, rounding to nearest even.
void store_f32(const float* src, Tensor& dst);

/// Runs `kernel(a, b, y)` — an f32 computation of two inputs into one output — for f32, f16 and
/// bf16 tensors: inputs other than f32 are widened to f32 copies, and an output other than f32 is
/// computed into an f32 buffer and narrowed back (store_f32). f32 tensors are used in place.
template <typename Kernel>
void run_widened(const Tensor& a, const Tensor& b, Tensor& y, Kernel&& kernel) {
    std::vector<float> wide_a, wide_b, wide_y;
    const float* pa = f32_view(a, wide_a);
    const float* pb = f32_view(b, wide_b);
    if (y.get_element_type() == element::f32) {
        kernel(pa, pb, tensor_data<float>(y));
        return;
    }
    wide_y.resize(y.get_size());
    kernel(pa, pb, wide_y.data());
    store_f32(wide_y.data(), y);
}

/// Throws InvalidArgument naming `who` when the tensor counts differ from the kernel's needs.
void check_arity(const std::vector<Tensor>& inputs, size_t min_inputs,
                 const std::vector<Tensor>& outputs, size_t min_outputs, const std::string& who);

}  // namespace vireo::reference::tensor
