// Declares TEMPLATE's names for the SDK's memory planner (vireo/reference/memory_planner.hpp),
// which places the plan's tensors by liveness in one arena (static shapes) or in reusable slots.
#pragma once

#include "vireo/reference/memory_planner.hpp"

namespace vireo::template_plugin {

using reference::ArenaLayout;
using reference::BufferUse;
using reference::plan_arena;
using reference::plan_slots;
using reference::SlotAssignment;
using sdk::physical_memory_bytes;  // no buffer may be larger (checked before allocating)

}  // namespace vireo::template_plugin
