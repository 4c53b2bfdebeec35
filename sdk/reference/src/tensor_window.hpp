// Declares the sliding-window geometry convolutions and pooling share: attributes read once per
// node, resolved against actual shapes (auto_pad) into a fixed 3-D form per call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vireo/node.hpp"

namespace vireo::reference::tensor {

/// Window attributes as the node gives them (strides, dilations, pads_begin, pads_end,
/// auto_pad). Empty lists (allowed by some ops) read as all-1 strides/dilations, zero pads.
struct WindowAttrs {
    std::vector<int64_t> strides, dilations, pads_begin, pads_end;
    std::string auto_pad = "explicit";

    /// Reads the attributes of `node`; `with_dilations` false for ops without them (MaxPool-1,
    /// AvgPool), which then use 1.
    static WindowAttrs read(const Node& node, bool with_dilations);
};

/// The geometry of one call with spatial rank 1-3, padded to three axes (depth, height, width)
/// with size-1 leading axes, so kernels have a single loop nest.
struct Window {
    size_t rank = 0;  ///< real number of spatial axes
    size_t in[3] = {1, 1, 1};
    size_t out[3] = {1, 1, 1};
    size_t kernel[3] = {1, 1, 1};
    size_t stride[3] = {1, 1, 1};
    size_t dilation[3] = {1, 1, 1};
    int64_t pad_begin[3] = {0, 0, 0};
    int64_t pad_end[3] = {0, 0, 0};

    size_t in_size() const { return in[0] * in[1] * in[2]; }
    size_t out_size() const { return out[0] * out[1] * out[2]; }
    size_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
    /// True for a 1x1 window, stride 1, no padding: the input already is the im2col matrix.
    bool is_pointwise() const;
};

/// Resolves `attrs` for spatial input sizes `in`, window sizes `kernel` and output sizes `out`
/// (the caller's output tensor). same_upper/same_lower pads come from the sizes, valid means
/// zero pads. Throws InvalidArgument naming `who` when list lengths do not match the rank or a
/// value is not positive.
Window make_window(const WindowAttrs& attrs, const std::vector<size_t>& in,
                   const std::vector<size_t>& kernel, const std::vector<size_t>& out,
                   const std::string& who);

}  // namespace vireo::reference::tensor
