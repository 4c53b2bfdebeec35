// Declares the memory planner of the graph plan: places the tensors a plan computes in reusable
// memory by liveness, as offsets in one arena (static shapes) or as reusable slots (dynamic).
// Any plugin may use it directly for its own buffers.
#pragma once

#include <cstddef>
#include <vector>

#include "vireo/sdk/memory_limits.hpp"

namespace vireo::reference {

/// One buffer the plan needs: its size and the steps during which it must hold its data
/// (`first` is the step that writes it, `last` the last step that reads it; both inclusive).
struct BufferUse {
    size_t bytes = 0;
    size_t first = 0;
    size_t last = 0;
};

/// Where each buffer lives in the arena, and how large the arena is.
struct ArenaLayout {
    std::vector<size_t> offsets;  ///< one per BufferUse, aligned
    size_t total_bytes = 0;       ///< a multiple of the alignment
};

/// Places buffers in one arena so that two buffers whose lifetimes overlap never share a byte,
/// while buffers that live at different times reuse the same memory. Up to 2048 buffers: greedy,
/// largest first, each in the smallest gap that fits between the buffers already placed whose
/// lifetimes overlap it (O(n^2), the tightest layouts). Beyond: a sweep in step order over a
/// best-fit free list, O(n log n), so a model with 100k values (one Split) plans in
/// milliseconds. `alignment` must be a power of two.
ArenaLayout plan_arena(const std::vector<BufferUse>& uses, size_t alignment = 64);

using sdk::physical_memory_bytes;  // no buffer may be larger (checked before allocating)

/// Reusable slots for buffers whose sizes are unknown until run time: two buffers with
/// overlapping lifetimes never share a slot; a slot is reused once its last buffer is dead.
struct SlotAssignment {
    std::vector<size_t> slot_of;  ///< one per BufferUse
    size_t slot_count = 0;
};
SlotAssignment plan_slots(const std::vector<BufferUse>& uses);

}  // namespace vireo::reference
