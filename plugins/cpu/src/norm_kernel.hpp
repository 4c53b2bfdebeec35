// Declares norm_kernel: LayerNorm or RMSNorm over trailing axes with an optional per-element scale
// and shift, as one step of a dynamic graph (the written-out form is 7-9 reference steps, each
// a pass over the tensor and a trip through the executor: a decoder's token runs 25 of them).
#pragma once

#include <memory>
#include <string>

#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

struct NormSpec {
    std::string what;           ///< the node it stands for, for errors
    bool subtract_mean = true;  ///< false: RMSNorm
    float epsilon = 0.f;
    size_t axes = 1;  ///< trailing axes normalized together (D: the product of their lengths)
    bool gamma = false, beta = false;  ///< inputs 1 (and 2): D values each
};

/// Inputs x (f32, contiguous) [, gamma] [, beta]; output [same shape as x]: each row of D values
/// y = (x - mean) / sqrt(mean((x - mean)^2) + eps) * gamma + beta, or without the mean for
/// RMSNorm. Rows are split over the calling thread's OpenMP team when there are many. A gamma
/// or beta that is not D values is an InvalidArgument naming `what`.
std::shared_ptr<const reference::Kernel> norm_kernel(NormSpec spec);

}  // namespace vireo::cpu_plugin
