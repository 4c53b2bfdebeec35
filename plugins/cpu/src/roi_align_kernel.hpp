// Declares roi_align_kernel: the CPU plugin's f32 ROIAlign-9 (Faster, Mask and Keypoint R-CNN's
// box and mask heads), its sampling taps computed once per roi and applied to every channel in
// f32, rois and channels split over the OpenMP team, instead of the reference kernel's copy of
// the whole feature map to double and its single thread outside a stream.
#pragma once

#include <memory>

#include "vireo/node.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

/// A ROIAlign-9 kernel for `node` (data [N, C, H, W] f32, rois [R, 4] f32, batch indices [R] i32
/// or i64): the reference kernel's sampling (ONNX/Caffe2 rules, every aligned_mode, avg and max,
/// sampling_ratio or the adaptive grid), each sample's position and weights computed in double
/// once per roi and the weighted sums taken in f32. Other types, a batch index out of range and
/// grids too large for the per-call table run `fallback`, the reference kernel, which reports
/// the errors. Thread-safe: scratch is per call.
std::shared_ptr<const reference::Kernel> roi_align_kernel(
    const Node& node, std::unique_ptr<reference::Kernel> fallback);

}  // namespace vireo::cpu_plugin
