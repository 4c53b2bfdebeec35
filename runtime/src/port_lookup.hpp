// Declares the port lookups CompiledModel and InferRequest share: by tensor name (NotFound
// listing the known names), by index (range-checked) and "the only one".
#pragma once

#include <string>

#include "vireo/node.hpp"

namespace vireo::runtime {

/// The port among `ports` with `tensor_name` in its names, or an empty Output. Throws
/// InvalidArgument naming both when two ports of different tensors carry the name (two Results
/// of one value are one tensor and may).
Output find_port_named(const OutputVector& ports, const std::string& tensor_name);
/// Same, but throws NotFound listing the names of `ports` (`kind` is "input" or "output").
Output port_named(const OutputVector& ports, const std::string& tensor_name, const char* kind);
/// Throws InvalidArgument naming the count when `index` is out of range.
const Output& port_at(const OutputVector& ports, size_t index, const char* kind);
/// Throws InvalidArgument unless there is exactly one port.
const Output& single_port(const OutputVector& ports, const char* kind);
/// "'a', 'b' (input 0), ..." for messages.
std::string describe_ports(const OutputVector& ports);

}  // namespace vireo::runtime
