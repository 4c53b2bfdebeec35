// Declares helpers shared by the op definitions in core/src/ops (internal).
#pragma once

#include <string>
#include <vector>

#include "vireo/op_registry.hpp"

namespace vireo::ops_impl {

void register_io_ops(OpRegistry& registry);

}  // namespace vireo::ops_impl
