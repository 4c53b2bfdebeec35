// Implements StridedSlice-1 (begin/end/new-axis/shrink/ellipsis masks) and Slice-8 as one strided
// copy: each output axis gets a start offset and a (possibly negative or zero) source stride.
#include <algorithm>

#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

// One output axis of a slice: where it starts in the input axis, its step, and its length.
struct AxisSlice {
    int64_t start = 0;
    int64_t step = 1;
    size_t count = 0;
};

// Python-style slice of an axis of size `dim`: missing bounds mean the whole axis in the step's
// direction, negative bounds count from the end, out-of-range bounds are clamped.
// (std::optional is avoided here: GCC 12 reports false maybe-uninitialized warnings on it.)
AxisSlice resolve_slice(int64_t dim, bool has_begin, int64_t begin, bool has_end, int64_t end,
                        int64_t step, const std::string& who) {
    if (step == 0) throw_error<InvalidArgument>(who, ": a slice step must not be 0");
    AxisSlice s;
    s.step = step;
    if (step > 0) {
        int64_t b = has_begin ? begin : 0, e = has_end ? end : dim;
        if (b < 0) b += dim;
        if (e < 0) e += dim;
        b = std::clamp<int64_t>(b, 0, dim);
        e = std::clamp<int64_t>(e, 0, dim);
        s.start = b;
        s.count = e > b ? static_cast<size_t>((e - b + step - 1) / step) : 0;
    } else {
        // Walking backwards the end sentinel is -1 ("before element 0"), never wrapped.
        int64_t b = has_begin ? begin : dim - 1, e = -1;
        if (b < 0) b += dim;
        if (has_end) {
            e = end < 0 ? end + dim : end;
            e = std::clamp<int64_t>(e, -1, dim - 1);
        }
        b = std::clamp<int64_t>(b, -1, dim - 1);
        s.start = b;
        s.count = b > e ? static_cast<size_t>((b - e - step - 1) / -step) : 0;
    }
    return s;
}

bool bit(const std::vector<int64_t>& mask, size_t i) {
    return i < mask.size() && mask[i] != 0;
}

// Copies the slices: `axes` lists the output axes in order (a source stride and a start
// contribution each), then checks the result has the output tensor's shape.
struct SlicePlan {
    int64_t offset = 0;
    std::vector<int64_t> strides;
    Shape shape;
    void add(int64_t start, int64_t step, size_t count, size_t in_stride) {
        offset += start * static_cast<int64_t>(in_stride);
        strides.push_back(step * static_cast<int64_t>(in_stride));
        shape.push_back(count);
    }
};

void run_plan(const SlicePlan& plan, const Tensor& in, Tensor& out, const std::string& who) {
    if (shape_size(plan.shape) != out.get_size())
        throw_error<InvalidArgument>(who, ": the slice of ", in.get_shape(), " has shape ",
                                     plan.shape, " but the output is ", out.get_shape());
    if (out.get_size() == 0) return;
    dispatch_by_size(in.get_element_type(), who, [&](auto tag) {
        using U = decltype(tag);
        copy_strided(tensor_data<U>(in), plan.offset, plan.strides, plan.shape,
                     tensor_data<U>(out));
    });
}

class StridedSliceKernel final : public Kernel {
  public:
    explicit StridedSliceKernel(const Node& node)
        : m_who(node.describe()),
          m_begin_mask(node.get_attribute<std::vector<int64_t>>("begin_mask")),
          m_end_mask(node.get_attribute<std::vector<int64_t>>("end_mask")),
          m_new_axis_mask(node.get_attribute<std::vector<int64_t>>("new_axis_mask")),
          m_shrink_mask(node.get_attribute<std::vector<int64_t>>("shrink_axis_mask")),
          m_ellipsis_mask(node.get_attribute<std::vector<int64_t>>("ellipsis_mask")) {}

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 3, outputs, 1, m_who);
        const Shape& shape = inputs[0].get_shape();
        const std::vector<size_t> in_strides = element_strides(shape);
        const auto begin = read_ints(inputs[1], m_who, "input 1 (begin)");
        const auto end = read_ints(inputs[2], m_who, "input 2 (end)");
        const auto stride = inputs.size() > 3 ? read_ints(inputs[3], m_who, "input 3 (stride)")
                                              : std::vector<int64_t>(begin.size(), 1);
        const size_t n = begin.size();
        if (end.size() != n || stride.size() != n)
            throw_error<InvalidArgument>(m_who, ": begin, end and stride have ", n, ", ",
                                         end.size(), " and ", stride.size(),
                                         " values; they must agree");
        size_t consuming = 0;
        for (size_t i = 0; i < n; ++i)
            if (!bit(m_ellipsis_mask, i) && !bit(m_new_axis_mask, i)) ++consuming;
        if (consuming > shape.size())
            throw_error<InvalidArgument>(m_who, ": ", consuming,
                                         " slice entries need input axes but data ", shape,
                                         " has rank ", shape.size());
        SlicePlan plan;
        size_t axis = 0;
        bool ellipsis_seen = false;
        for (size_t i = 0; i < n; ++i) {
            if (bit(m_ellipsis_mask, i) && !ellipsis_seen) {
                ellipsis_seen = true;
                for (size_t k = 0; k < shape.size() - consuming; ++k, ++axis)
                    plan.add(0, 1, shape[axis], in_strides[axis]);
                continue;
            }
            if (bit(m_new_axis_mask, i)) {
                plan.add(0, 0, 1, 0);
                continue;
            }
            const auto dim = static_cast<int64_t>(shape[axis]);
            if (bit(m_shrink_mask, i)) {
                int64_t b = begin[i] < 0 ? begin[i] + dim : begin[i];
                if (b < 0 || b >= dim)
                    throw_error<InvalidArgument>(m_who, ": shrink_axis_mask takes index ", begin[i],
                                                 " of axis ", axis, " whose size is ", dim);
                plan.offset += b * static_cast<int64_t>(in_strides[axis]);
                ++axis;
                continue;
            }
            const AxisSlice s = resolve_slice(dim, !bit(m_begin_mask, i), begin[i],
                                              !bit(m_end_mask, i), end[i], stride[i], m_who);
            plan.add(s.start, s.step, s.count, in_strides[axis]);
            ++axis;
        }
        for (; axis < shape.size(); ++axis) plan.add(0, 1, shape[axis], in_strides[axis]);
        run_plan(plan, inputs[0], outputs[0], m_who);
    }

  private:
    std::string m_who;
    std::vector<int64_t> m_begin_mask, m_end_mask, m_new_axis_mask, m_shrink_mask, m_ellipsis_mask;
};

std::unique_ptr<Kernel> make_slice_kernel(const Node& node) {
    return make_kernel(
        [who = node.describe()](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
            check_arity(inputs, 4, outputs, 1, who);
            const Shape& shape = inputs[0].get_shape();
            const size_t rank = shape.size();
            const auto start = read_ints(inputs[1], who, "input 1 (start)");
            const auto stop = read_ints(inputs[2], who, "input 2 (stop)");
            const auto step = read_ints(inputs[3], who, "input 3 (step)");
            std::vector<int64_t> axes;
            if (inputs.size() > 4) {
                axes = read_ints(inputs[4], who, "input 4 (axes)");
            } else {
                for (size_t i = 0; i < start.size(); ++i) axes.push_back(static_cast<int64_t>(i));
            }
            if (stop.size() != start.size() || step.size() != start.size() ||
                axes.size() != start.size())
                throw_error<InvalidArgument>(who, ": start, stop, step and axes have ",
                                             start.size(), ", ", stop.size(), ", ", step.size(),
                                             " and ", axes.size(), " values; they must agree");
            std::vector<AxisSlice> slices(rank);
            std::vector<bool> seen(rank, false);
            for (size_t a = 0; a < rank; ++a) slices[a] = {0, 1, shape[a]};
            for (size_t i = 0; i < axes.size(); ++i) {
                const size_t a = normalize_axis(axes[i], rank, who, "axes value");
                if (seen[a]) throw_error<InvalidArgument>(who, ": axes repeat axis ", a);
                seen[a] = true;
                slices[a] = resolve_slice(static_cast<int64_t>(shape[a]), true, start[i], true,
                                          stop[i], step[i], who);
            }
            const std::vector<size_t> in_strides = element_strides(shape);
            SlicePlan plan;
            for (size_t a = 0; a < rank; ++a)
                plan.add(slices[a].start, slices[a].step, slices[a].count, in_strides[a]);
            run_plan(plan, inputs[0], outputs[0], who);
        });
}

}  // namespace

void register_slice_kernels(KernelRegistry& registry) {
    registry.add("StridedSlice",
                 [](const Node& node) { return std::make_unique<StridedSliceKernel>(node); });
    registry.add("Slice", make_slice_kernel);
}

}  // namespace vireo::reference::tensor
