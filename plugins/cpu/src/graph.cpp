// Implements Graph::plan_memory: value lifetimes and their placement in the per-request arena.
#include "graph.hpp"

#include <algorithm>

namespace vireo::cpu_plugin {
namespace {

constexpr size_t kAlignment = 64;  // a cache line; oneDNN's AVX-512 kernels like 64-byte rows

size_t align_up(size_t n) {
    return (n + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

void Graph::plan_memory() {
    const size_t end = steps.size();
    for (auto& v : values) v.last_use = v.producer;
    for (size_t s = 0; s < steps.size(); ++s) {
        auto use = [&](size_t id) { values[id].last_use = std::max(values[id].last_use, s); };
        for (size_t id : steps[s].inputs) use(id);
        if (steps[s].dnnl)
            for (const auto& a : steps[s].dnnl->args)
                if (a.is_value) use(a.value);
        if (steps[s].wavefront)  // the deferred first layer's values too
            for (const auto& layer : steps[s].wavefront->chunks)
                for (const auto& op : layer)
                    for (const auto& a : op->args)
                        if (a.is_value) use(a.value);
    }
    // Two steps that run at the same time are one step for lifetimes: what the first reads
    // lives until the second is done, so the second's outputs cannot take its memory.
    for (size_t s = 0; s + 1 < steps.size(); ++s) {
        if (!steps[s].concurrent_with_next) continue;
        for (auto& v : values)
            if (v.last_use == s) v.last_use = s + 1;
    }
    for (size_t id : result_values) values[id].last_use = end;
    for (size_t s : assign_steps)
        for (size_t id : steps[s].inputs) values[id].last_use = end;
    // A view is read through its source's memory: the source lives as long as its views are read.
    // Views come after their sources and point at the root (never at another view).
    for (size_t id = values.size(); id-- > 0;) {
        Value& v = values[id];
        if (v.alias == SIZE_MAX) continue;
        Value& source = values[v.alias];
        source.last_use = std::max({source.last_use, v.last_use, v.producer});
    }
    // One scratchpad every step uses in turn; the second of two concurrent steps has its own
    // after the first's.
    scratchpad_bytes = 0;
    for (size_t s = 0; s < steps.size(); ++s) {
        Step& step = steps[s];
        if (!step.dnnl) continue;
        step.scratchpad_offset = 0;
        if (s > 0 && steps[s - 1].concurrent_with_next && steps[s - 1].dnnl)
            step.scratchpad_offset = align_up(steps[s - 1].dnnl->scratchpad_bytes);
        scratchpad_bytes =
            std::max(scratchpad_bytes, step.scratchpad_offset + step.dnnl->scratchpad_bytes);
        if (step.wavefront) {  // both layers' chunks at once: the second's after the first's
            size_t offset = 0;
            for (size_t layer = 0; layer < 2; ++layer) {
                size_t most = 0;
                for (const auto& op : step.wavefront->chunks[layer])
                    most = std::max(most, op->scratchpad_bytes);
                step.wavefront->scratchpad_offset[layer] = offset;
                offset = align_up(offset + most);
            }
            scratchpad_bytes = std::max(scratchpad_bytes, offset);
        }
    }
    arena_bytes = 0;
    if (dynamic) return;

    // Values in order of production; each takes the lowest offset that does not overlap a
    // placed value alive at the same time (a step's inputs and outputs never share memory).
    struct Placed {
        size_t first, last, offset, bytes;
    };
    std::vector<Placed> placed;
    for (auto& v : values) {
        if (v.kind != ValueKind::kComputed || v.alias != SIZE_MAX) continue;
        v.bytes = align_up(std::max<size_t>(1, shape_size(v.shape.to_shape()) * v.type.size()));
        std::vector<std::pair<size_t, size_t>> busy;
        for (const auto& p : placed)
            if (p.first <= v.last_use && v.producer <= p.last) busy.emplace_back(p.offset, p.bytes);
        std::sort(busy.begin(), busy.end());
        size_t offset = 0;
        for (const auto& [start, bytes] : busy) {
            if (offset + v.bytes <= start) break;
            offset = std::max(offset, start + bytes);
        }
        v.offset = offset;
        placed.push_back({v.producer, v.last_use, offset, v.bytes});
        arena_bytes = std::max(arena_bytes, offset + v.bytes);
    }
    for (auto& v : values)
        if (v.alias != SIZE_MAX) v.offset = values[v.alias].offset;
}

}  // namespace vireo::cpu_plugin
