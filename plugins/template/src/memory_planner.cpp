// Implements the arena and slot planners used by the execution plan.
#include "memory_planner.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <queue>
#include <utility>

namespace vireo::template_plugin {
namespace {

size_t align_up(size_t value, size_t alignment) {
    return (value + alignment - 1) & ~(alignment - 1);
}

bool overlaps(const BufferUse& a, const BufferUse& b) {
    return a.first <= b.last && b.first <= a.last;
}

}  // namespace

ArenaLayout plan_arena(const std::vector<BufferUse>& uses, size_t alignment) {
    ArenaLayout layout;
    layout.offsets.assign(uses.size(), 0);
    std::vector<size_t> order(uses.size());
    std::iota(order.begin(), order.end(), 0);
    // Largest first: big buffers are the hardest to fit, small ones fill the gaps they leave.
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return uses[a].bytes > uses[b].bytes; });

    std::vector<size_t> placed;  // indices already given an offset
    std::vector<std::pair<size_t, size_t>>
        busy;  // [begin, end) of placed buffers alive at the same time
    for (const size_t i : order) {
        const size_t size = align_up(std::max<size_t>(uses[i].bytes, 1), alignment);
        busy.clear();
        for (const size_t j : placed)
            if (overlaps(uses[i], uses[j]))
                busy.emplace_back(
                    layout.offsets[j],
                    layout.offsets[j] + align_up(std::max<size_t>(uses[j].bytes, 1), alignment));
        std::sort(busy.begin(), busy.end());
        // Best fit: the smallest gap between busy ranges that holds the buffer, else the end.
        size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
        for (const auto& [begin, end] : busy) {
            if (begin > cursor && begin - cursor >= size && begin - cursor < best_gap) {
                best = cursor;
                best_gap = begin - cursor;
            }
            cursor = std::max(cursor, end);
        }
        if (best == SIZE_MAX) best = cursor;
        layout.offsets[i] = best;
        layout.total_bytes = std::max(layout.total_bytes, best + size);
        placed.push_back(i);
    }
    return layout;
}

SlotAssignment plan_slots(const std::vector<BufferUse>& uses) {
    SlotAssignment out;
    out.slot_of.assign(uses.size(), 0);
    std::vector<size_t> order(uses.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return uses[a].first < uses[b].first; });
    // (last step, slot) of the slots in use, earliest release on top; free slots, lowest first.
    using Busy = std::pair<size_t, size_t>;
    std::priority_queue<Busy, std::vector<Busy>, std::greater<>> in_use;
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> free_slots;
    for (const size_t i : order) {
        while (!in_use.empty() && in_use.top().first < uses[i].first) {
            free_slots.push(in_use.top().second);
            in_use.pop();
        }
        size_t slot;
        if (!free_slots.empty()) {
            slot = free_slots.top();
            free_slots.pop();
        } else {
            slot = out.slot_count++;
        }
        out.slot_of[i] = slot;
        in_use.emplace(uses[i].last, slot);
    }
    return out;
}

}  // namespace vireo::template_plugin
