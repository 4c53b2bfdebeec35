// Declares rotary_kernel: the rotary position embedding ("rotate half") as one step of a dynamic
// graph, where exporters write it as seven ops per tensor (two Multiply, two Slice, Negative,
// Concat, Add): a Llama-style decoder's token runs it on its queries and keys in every layer.
#pragma once

#include <memory>
#include <string>

#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

/// Inputs x (f32 [..., D], D even), cos, sin (f32, broadcasting to x without widening it);
/// output [x's shape] = x * cos + Concat(-x[..., D/2:], x[..., :D/2]) * sin, computed in the
/// written form's order. A cos or sin that does not broadcast to x is an InvalidArgument naming
/// `what`.
std::shared_ptr<const reference::Kernel> rotary_kernel(std::string what);

}  // namespace vireo::cpu_plugin
