// Declares helpers every reference kernel uses: element-type dispatch and numpy broadcasting.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vireo/element_type.hpp"
#include "vireo/exception.hpp"
#include "vireo/float16.hpp"
#include "vireo/shape.hpp"

namespace vireo::reference {

/// The C++ type of a static element type (boolean is stored as uint8_t).
template <element::TypeId Id>
struct cpp_type;
template <>
struct cpp_type<element::TypeId::boolean> {
    using type = uint8_t;
};
template <>
struct cpp_type<element::TypeId::u8> {
    using type = uint8_t;
};
template <>
struct cpp_type<element::TypeId::i8> {
    using type = int8_t;
};
template <>
struct cpp_type<element::TypeId::u16> {
    using type = uint16_t;
};
template <>
struct cpp_type<element::TypeId::i16> {
    using type = int16_t;
};
template <>
struct cpp_type<element::TypeId::u32> {
    using type = uint32_t;
};
template <>
struct cpp_type<element::TypeId::i32> {
    using type = int32_t;
};
template <>
struct cpp_type<element::TypeId::u64> {
    using type = uint64_t;
};
template <>
struct cpp_type<element::TypeId::i64> {
    using type = int64_t;
};
template <>
struct cpp_type<element::TypeId::f16> {
    using type = float16;
};
template <>
struct cpp_type<element::TypeId::bf16> {
    using type = bfloat16;
};
template <>
struct cpp_type<element::TypeId::f32> {
    using type = float;
};
template <>
struct cpp_type<element::TypeId::f64> {
    using type = double;
};

/// A compile-time list of element types a kernel instantiates for.
template <element::TypeId... Ids>
struct TypeList {};

using RealTypes = TypeList<element::TypeId::f16, element::TypeId::bf16, element::TypeId::f32,
                           element::TypeId::f64>;
using IntegerTypes = TypeList<element::TypeId::i8, element::TypeId::u8, element::TypeId::i16,
                              element::TypeId::u16, element::TypeId::i32, element::TypeId::u32,
                              element::TypeId::i64, element::TypeId::u64>;
using NumericTypes = TypeList<element::TypeId::f16, element::TypeId::bf16, element::TypeId::f32,
                              element::TypeId::f64, element::TypeId::i8, element::TypeId::u8,
                              element::TypeId::i16, element::TypeId::u16, element::TypeId::i32,
                              element::TypeId::u32, element::TypeId::i64, element::TypeId::u64>;
using AllTypes =
    TypeList<element::TypeId::boolean, element::TypeId::f16, element::TypeId::bf16,
             element::TypeId::f32, element::TypeId::f64, element::TypeId::i8, element::TypeId::u8,
             element::TypeId::i16, element::TypeId::u16, element::TypeId::i32, element::TypeId::u32,
             element::TypeId::i64, element::TypeId::u64>;

/// Calls `f(T{})` with T the C++ type of `type`, for the types in `List`. Returns f's result.
/// Throws NotImplemented naming `what` and the type when `type` is not in the list.
///     dispatch(RealTypes{}, t, "Sigmoid", [&](auto tag) { using T = decltype(tag); ... });
template <element::TypeId... Ids, typename F>
decltype(auto) dispatch(TypeList<Ids...>, element::Type type, const char* what, F&& f) {
    using R = decltype(f(typename cpp_type<element::TypeId::f32>::type{}));
    if constexpr (std::is_void_v<R>) {
        bool done = ((type.id() == Ids ? (f(typename cpp_type<Ids>::type{}), true) : false) || ...);
        if (!done) throw_error<NotImplemented>(what, ": element type ", type, " is not supported");
    } else {
        R result{};
        bool done =
            ((type.id() == Ids ? (result = f(typename cpp_type<Ids>::type{}), true) : false) ||
             ...);
        if (!done) throw_error<NotImplemented>(what, ": element type ", type, " is not supported");
        return result;
    }
}

/// True if `type` is in `List`.
template <element::TypeId... Ids>
bool contains(TypeList<Ids...>, element::Type type) {
    return ((type.id() == Ids) || ...);
}

/// Numpy broadcasting of two inputs to an output shape, prepared once per shape triple: for
/// each output element, the offsets of the matching elements of a and b. Iterates with an
/// inner contiguous run so the caller's loop over the last axis vectorises.
///
///     BroadcastIndex bi(a_shape, b_shape, out_shape);
///     bi.for_each_run([&](size_t out, size_t ia, size_t ib, size_t n, size_t sa, size_t sb) {
///         for (size_t k = 0; k < n; ++k) o[out + k] = fn(a[ia + k * sa], b[ib + k * sb]);
///     });
/// Element strides of a row-major `shape` aligned to the right of an output of rank `rank` (numpy
/// broadcasting): 0 where the dimension is 1 or missing. Does not check that the shapes broadcast.
std::vector<size_t> broadcast_strides(const Shape& shape, size_t rank);

/// An Einsum-7 equation as subscripts of one token per axis: a letter, or '.' for an ellipsis
/// (standing for however many axes the input has beyond its letters).
struct EinsumEquation {
    std::vector<std::vector<char>> inputs;
    std::vector<char> output;  ///< the implicit output when the equation has no "->": the
                               ///< ellipsis, then the letters used once, in ASCII order
};
/// Parses `equation` (spaces ignored) for `input_count` inputs; InvalidArgument naming `who` for
/// a subscript of other characters or a count of subscripts that does not match. The reference
/// Einsum and the CPU plugin's Einsum lowering both read it.
EinsumEquation parse_einsum_equation(const std::string& equation, size_t input_count,
                                     const std::string& who);

/// GridSample's padding modes (PyTorch's grid_sample, ONNX GridSample-16/20).
enum class GridSamplePadding { kZeros, kBorder, kReflection };
/// A source pixel coordinate `x` of an axis of `size` pixels after the padding: zeros leaves it,
/// border clamps it to [0, size - 1], reflection reflects it at the edges (the outer pixels'
/// centres with `align_corners`, else their borders) and clamps. The reference GridSample and
/// the CPU plugin's both use it.
double grid_sample_pad(double x, size_t size, GridSamplePadding padding, bool align_corners);
/// One bilinear sample of ROIAlign at (y, x) of an h x w plane, by ONNX's and Caffe2's rules: a
/// sample beyond [-1, size] on either axis (or a NaN coordinate, or an empty plane) is outside
/// and reads nothing; otherwise a coordinate below 0 clamps to 0 and the last row or column
/// repeats. The four neighbours' element offsets and weights. The reference ROIAlign and the CPU
/// plugin's both use it.
struct RoiAlignSample {
    bool inside = false;
    size_t o00 = 0, o01 = 0, o10 = 0, o11 = 0;
    double w00 = 0, w01 = 0, w10 = 0, w11 = 0;
};
RoiAlignSample roi_align_sample(size_t h, size_t w, double y, double x);
/// ROIAlign-9's bins of one roi on the feature map: the roi [x1, y1, x2, y2] scaled by
/// `spatial_scale` as `aligned_mode` says ("asymmetric", "half_pixel_for_nn", "half_pixel"),
/// split into pooled_h x pooled_w bins of `grid_h` x `grid_w` samples (`sampling_ratio`, or
/// ceil(bin size) when it is 0; a NaN size gives 0, a huge or infinite one a grid past any limit:
/// the caller checks before sampling). y() and x() give sample (iy, ix) of bin (py, px). The
/// reference ROIAlign and the CPU plugin's both use it.
struct RoiAlignBins {
    double y1 = 0, x1 = 0, bin_h = 0, bin_w = 0, grid_h = 0, grid_w = 0;
    double y(size_t py, size_t iy) const {
        return y1 + static_cast<double>(py) * bin_h +
               (static_cast<double>(iy) + 0.5) * bin_h / grid_h;
    }
    double x(size_t px, size_t ix) const {
        return x1 + static_cast<double>(px) * bin_w +
               (static_cast<double>(ix) + 0.5) * bin_w / grid_w;
    }
};
RoiAlignBins roi_align_bins(const double roi[4], double spatial_scale,
                            const std::string& aligned_mode, int64_t sampling_ratio,
                            size_t pooled_h, size_t pooled_w);
/// Round half to even, independent of the FPU's rounding mode (GridSample's nearest mode).
int64_t round_half_even(double v);

class BroadcastIndex {
  public:
    BroadcastIndex(const Shape& a, const Shape& b, const Shape& out);
    /// f(out_offset, a_offset, b_offset, run_length, a_step, b_step): steps are 0 or 1.
    template <typename F>
    void for_each_run(F&& f) const {
        const size_t total = shape_size(m_out);
        if (total == 0) return;
        const size_t rank = m_out.size();
        const size_t run = rank ? m_out[rank - 1] : 1;
        const size_t sa = rank ? m_stride_a[rank - 1] : 0;
        const size_t sb = rank ? m_stride_b[rank - 1] : 0;
        std::vector<size_t> index(rank, 0);
        size_t ia = 0, ib = 0;
        for (size_t out = 0; out < total; out += run) {
            f(out, ia, ib, run, sa, sb);
            // Advance the outer index (all axes but the last).
            for (size_t axis = rank - 1; axis-- > 0;) {
                ia += m_stride_a[axis];
                ib += m_stride_b[axis];
                if (++index[axis] < m_out[axis]) break;
                ia -= m_stride_a[axis] * m_out[axis];
                ib -= m_stride_b[axis] * m_out[axis];
                index[axis] = 0;
            }
        }
    }

  private:
    Shape m_out;
    std::vector<size_t> m_stride_a;  // element strides into a, 0 on broadcast axes
    std::vector<size_t> m_stride_b;
};

}  // namespace vireo::reference
