// Implements the arena and slot planners used by the graph plan.
#include "vireo/reference/memory_planner.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <queue>
#include <utility>

namespace vireo::reference {
namespace {

size_t align_up(size_t value, size_t alignment) {
    return (value + alignment - 1) & ~(alignment - 1);
}

bool overlaps(const BufferUse& a, const BufferUse& b) {
    return a.first <= b.last && b.first <= a.last;
}

// Above this many buffers the pairwise best fit below (O(n^2): each buffer looks at every
// placed one) gives way to an O(n log n) sweep. 50k outputs of one Split took 14 s to plan.
constexpr size_t kPairwiseLimit = 2048;

// The sweep: buffers in order of their first step; before each is placed, every buffer whose
// last step is earlier is released into a free list (coalesced with its free neighbours); the
// buffer takes the smallest free block that holds it, else grows the arena at its end. Each
// step is a few map operations, O(log n).
ArenaLayout plan_arena_sweep(const std::vector<BufferUse>& uses, size_t alignment) {
    ArenaLayout layout;
    layout.offsets.assign(uses.size(), 0);
    std::vector<size_t> order(uses.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return uses[a].first != uses[b].first ? uses[a].first < uses[b].first
                                              : uses[a].bytes > uses[b].bytes;
    });
    auto size_of = [&](size_t i) {
        return align_up(std::max<size_t>(uses[i].bytes, 1), alignment);
    };
    std::map<size_t, size_t> free_by_offset;     // offset -> size
    std::multimap<size_t, size_t> free_by_size;  // size -> offset
    auto erase_free = [&](std::map<size_t, size_t>::iterator it) {
        auto [lo, hi] = free_by_size.equal_range(it->second);
        for (auto s = lo; s != hi; ++s)
            if (s->second == it->first) {
                free_by_size.erase(s);
                break;
            }
        return free_by_offset.erase(it);
    };
    auto release = [&](size_t offset, size_t size) {
        auto next = free_by_offset.lower_bound(offset);
        if (next != free_by_offset.end() && offset + size == next->first) {
            size += next->second;
            next = erase_free(next);
        }
        if (next != free_by_offset.begin()) {
            auto prev = std::prev(next);
            if (prev->first + prev->second == offset) {
                offset = prev->first;
                size += prev->second;
                erase_free(prev);
            }
        }
        if (offset + size == layout.total_bytes) {  // the arena's tail: give it back to the end
            layout.total_bytes = offset;
            return;
        }
        free_by_offset.emplace(offset, size);
        free_by_size.emplace(size, offset);
    };
    size_t high_water = 0;
    using Live = std::pair<size_t, size_t>;  // (last step, buffer)
    std::priority_queue<Live, std::vector<Live>, std::greater<>> live;
    for (const size_t i : order) {
        while (!live.empty() && live.top().first < uses[i].first) {
            release(layout.offsets[live.top().second], size_of(live.top().second));
            live.pop();
        }
        const size_t size = size_of(i);
        if (auto fit = free_by_size.lower_bound(size); fit != free_by_size.end()) {
            const size_t block = fit->first, offset = fit->second;
            free_by_size.erase(fit);
            free_by_offset.erase(offset);
            layout.offsets[i] = offset;
            if (block > size) {
                free_by_offset.emplace(offset + size, block - size);
                free_by_size.emplace(block - size, offset + size);
            }
        } else {
            layout.offsets[i] = layout.total_bytes;  // the end (total_bytes is the current end)
            layout.total_bytes += size;
        }
        high_water = std::max(high_water, layout.total_bytes);
        live.emplace(uses[i].last, i);
    }
    layout.total_bytes = high_water;
    return layout;
}

}  // namespace

ArenaLayout plan_arena(const std::vector<BufferUse>& uses, size_t alignment) {
    if (uses.size() > kPairwiseLimit) return plan_arena_sweep(uses, alignment);
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

}  // namespace vireo::reference
