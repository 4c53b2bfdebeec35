// Implements the sliding-window geometry shared by convolutions and pooling.
#include "tensor_window.hpp"

#include <algorithm>

#include "vireo/exception.hpp"

namespace vireo::reference::tensor {

WindowAttrs WindowAttrs::read(const Node& node, bool with_dilations) {
    WindowAttrs a;
    a.strides = node.get_attribute<std::vector<int64_t>>("strides");
    if (with_dilations) a.dilations = node.get_attribute<std::vector<int64_t>>("dilations");
    a.pads_begin = node.get_attribute<std::vector<int64_t>>("pads_begin");
    a.pads_end = node.get_attribute<std::vector<int64_t>>("pads_end");
    if (node.has_attribute("auto_pad")) a.auto_pad = node.get_attribute<std::string>("auto_pad");
    return a;
}

bool Window::is_pointwise() const {
    for (int i = 0; i < 3; ++i) {
        if (kernel[i] != 1 || stride[i] != 1 || pad_begin[i] != 0 || in[i] != out[i]) return false;
    }
    return true;
}

namespace {

size_t positive_at(const std::vector<int64_t>& values, size_t i, const char* name,
                   const std::string& who) {
    if (values.empty()) return 1;
    if (values[i] <= 0)
        throw_error<InvalidArgument>(who, ": attribute '", name, "' must be positive, got ",
                                     values[i]);
    return static_cast<size_t>(values[i]);
}

void check_length(const std::vector<int64_t>& values, size_t rank, const char* name,
                  const std::string& who) {
    if (!values.empty() && values.size() != rank)
        throw_error<InvalidArgument>(who, ": attribute '", name, "' has ", values.size(),
                                     " values, expected ", rank, " (one per spatial axis)");
}

}  // namespace

Window make_window(const WindowAttrs& attrs, const std::vector<size_t>& in,
                   const std::vector<size_t>& kernel, const std::vector<size_t>& out,
                   const std::string& who) {
    const size_t rank = in.size();
    if (rank < 1 || rank > 3 || kernel.size() != rank || out.size() != rank)
        throw_error<InvalidArgument>(
            who, ": expected 1 to 3 spatial axes in input, window and output, got ", rank, ", ",
            kernel.size(), " and ", out.size());
    check_length(attrs.strides, rank, "strides", who);
    check_length(attrs.dilations, rank, "dilations", who);
    const bool same = attrs.auto_pad == "same_upper" || attrs.auto_pad == "same_lower";
    const bool computed = same || attrs.auto_pad == "valid";
    if (!computed) {
        check_length(attrs.pads_begin, rank, "pads_begin", who);
        check_length(attrs.pads_end, rank, "pads_end", who);
    }
    Window w;
    w.rank = rank;
    const size_t lead = 3 - rank;
    for (size_t i = 0; i < rank; ++i) {
        const size_t a = lead + i;
        w.in[a] = in[i];
        w.out[a] = out[i];
        w.kernel[a] = kernel[i];
        w.stride[a] = positive_at(attrs.strides, i, "strides", who);
        w.dilation[a] = positive_at(attrs.dilations, i, "dilations", who);
        if (same) {
            const int64_t dilated = static_cast<int64_t>((kernel[i] - 1) * w.dilation[a] + 1);
            const int64_t needed =
                (static_cast<int64_t>(out[i]) - 1) * static_cast<int64_t>(w.stride[a]) + dilated;
            const int64_t total = std::max<int64_t>(0, needed - static_cast<int64_t>(in[i]));
            // same_upper puts the odd pad at the end, same_lower at the beginning.
            w.pad_begin[a] = attrs.auto_pad == "same_upper" ? total / 2 : total - total / 2;
            w.pad_end[a] = total - w.pad_begin[a];
        } else if (!computed) {
            w.pad_begin[a] = attrs.pads_begin.empty() ? 0 : attrs.pads_begin[i];
            w.pad_end[a] = attrs.pads_end.empty() ? 0 : attrs.pads_end[i];
        }
    }
    return w;
}

}  // namespace vireo::reference::tensor
