// Declares grid_sample_kernel: the CPU plugin's f32 GridSample (bilinear or nearest, any padding
// mode), its sampling taps computed once per output pixel and its channel planes split over the
// OpenMP team, instead of the reference kernel's per-channel recomputation in double.
#pragma once

#include <memory>

#include "vireo/node.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

/// A GridSample-9 kernel for `node` (data [N, C, H, W], grid [N, Ho, Wo, 2], f32): for each
/// output pixel the four bilinear taps (or the nearest one) and their weights are computed once,
/// with the padding mode (zeros: taps outside read 0; border; reflection) and align_corners
/// applied as PyTorch does, then every channel plane is a weighted gather over them, planes and
/// pixels split over the calling thread's OpenMP team. Bicubic mode, other types or ranks and
/// empty images run `fallback`, the reference kernel. Thread-safe: scratch is per call.
std::shared_ptr<const reference::Kernel> grid_sample_kernel(
    const Node& node, std::unique_ptr<reference::Kernel> fallback);

}  // namespace vireo::cpu_plugin
