// Memory: the liveness planners, and a static model's requests allocating their working memory
// once (at creation) and never per inference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "config.hpp"
#include "memory_planner.hpp"
#include "test_utils.hpp"
#include "vireo/ir.hpp"
#include "vireo/ops.hpp"

namespace vireo::template_test {
namespace {

using template_plugin::BufferUse;

bool overlap_in_time(const BufferUse& a, const BufferUse& b) {
    return a.first <= b.last && b.first <= a.last;
}

TEST(TemplateMemoryPlanner, ChainReusesMemoryOfDeadValues) {
    // A chain a -> b -> c -> d: each value is read only by the next step, so two buffers suffice.
    const std::vector<BufferUse> uses{{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}, {1000, 3, 4}};
    const auto layout = template_plugin::plan_arena(uses, 64);
    EXPECT_EQ(layout.total_bytes, 2 * 1024u);
    EXPECT_EQ(layout.offsets[0], layout.offsets[2]);
    EXPECT_NE(layout.offsets[0], layout.offsets[1]);
}

TEST(TemplateMemoryPlanner, LiveAtTheSameTimeNeverOverlapInMemory) {
    std::vector<BufferUse> uses;
    for (size_t i = 0; i < 40; ++i)
        uses.push_back({(i * 37) % 300 + 1, (i * 7) % 11, (i * 7) % 11 + i % 5});
    const auto layout = template_plugin::plan_arena(uses, 64);
    for (size_t i = 0; i < uses.size(); ++i) {
        EXPECT_EQ(layout.offsets[i] % 64, 0u);
        EXPECT_LE(layout.offsets[i] + uses[i].bytes, layout.total_bytes);
        for (size_t j = i + 1; j < uses.size(); ++j) {
            if (!overlap_in_time(uses[i], uses[j])) continue;
            const bool apart = layout.offsets[i] + uses[i].bytes <= layout.offsets[j] ||
                               layout.offsets[j] + uses[j].bytes <= layout.offsets[i];
            EXPECT_TRUE(apart) << "buffers " << i << " and " << j;
        }
    }
    size_t sum = 0;
    for (const auto& u : uses) sum += (u.bytes + 63) / 64 * 64;
    EXPECT_LT(layout.total_bytes, sum);  // some reuse happened
}

// Checks that buffers alive at the same time never share a byte: sorts by offset and sweeps,
// O(n log n + overlapping pairs) so it can check large layouts.
void expect_valid_layout(const std::vector<BufferUse>& uses,
                         const template_plugin::ArenaLayout& layout) {
    ASSERT_EQ(layout.offsets.size(), uses.size());
    std::vector<size_t> by_offset(uses.size());
    for (size_t i = 0; i < uses.size(); ++i) {
        by_offset[i] = i;
        EXPECT_EQ(layout.offsets[i] % 64, 0u);
        EXPECT_LE(layout.offsets[i] + uses[i].bytes, layout.total_bytes);
    }
    std::sort(by_offset.begin(), by_offset.end(),
              [&](size_t a, size_t b) { return layout.offsets[a] < layout.offsets[b]; });
    size_t bad = 0;
    for (size_t k = 0; k < by_offset.size(); ++k) {
        const size_t i = by_offset[k];
        for (size_t m = k + 1;
             m < by_offset.size() &&
             layout.offsets[by_offset[m]] < layout.offsets[i] + std::max<size_t>(uses[i].bytes, 1);
             ++m)
            if (overlap_in_time(uses[i], uses[by_offset[m]])) ++bad;
    }
    EXPECT_EQ(bad, 0u);
}

// Issue 23 item 5: one Split into 200k outputs, all alive at once. The pairwise planner took
// minutes for this (quadratic); the sweep takes milliseconds and packs them end to end.
TEST(TemplateMemoryPlanner, ManyValuesAliveAtOnceArePlannedInNLogN) {
    const size_t n = 200000;
    std::vector<BufferUse> uses(n, BufferUse{100, 1, 2});
    uses.insert(uses.begin(), BufferUse{400, 0, 1});  // the Split's input
    const auto layout = template_plugin::plan_arena(uses, 64);
    expect_valid_layout(uses, layout);
    EXPECT_EQ(layout.total_bytes, 448u + n * 128u);  // nothing can be reused: all overlap step 1
}

TEST(TemplateMemoryPlanner, LargePlansReuseMemoryAndStayValid) {
    // 5000 buffers in a pseudo-random pattern (a plain LCG): valid, and with reuse.
    std::vector<BufferUse> uses;
    uint64_t state = 12345;
    auto next = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<size_t>(state >> 33);
    };
    for (size_t i = 0; i < 5000; ++i) {
        const size_t first = next() % 3000;
        uses.push_back({next() % 5000 + 1, first, first + next() % 20});
    }
    const auto layout = template_plugin::plan_arena(uses, 64);
    expect_valid_layout(uses, layout);
    size_t sum = 0;
    for (const auto& u : uses) sum += (u.bytes + 63) / 64 * 64;
    EXPECT_LT(layout.total_bytes, sum / 4);  // at most ~35 of the 5000 are alive at once
    // A chain of 3000 (each alive for two steps) needs two buffers, as the pairwise planner finds.
    std::vector<BufferUse> chain;
    for (size_t i = 0; i < 3000; ++i) chain.push_back({1000, i, i + 1});
    EXPECT_EQ(template_plugin::plan_arena(chain, 64).total_bytes, 2 * 1024u);
}

TEST(TemplateMemoryPlanner, SlotsAreReusedOnlyAfterTheirValueDied) {
    const std::vector<BufferUse> uses{{0, 0, 2}, {0, 1, 1}, {0, 2, 3}, {0, 3, 3}};
    const auto slots = template_plugin::plan_slots(uses);
    EXPECT_EQ(slots.slot_count, 2u);
    EXPECT_NE(slots.slot_of[0], slots.slot_of[1]);
    EXPECT_NE(slots.slot_of[0], slots.slot_of[2]);  // 0 lives until step 2, when 2 is written
    EXPECT_EQ(slots.slot_of[2], slots.slot_of[1]);  // 1 died at step 1
    EXPECT_NE(slots.slot_of[3], slots.slot_of[2]);
}

TEST(TemplateStaticMemory, OneAllocationPerRequestAtCreationNonePerInference) {
    Core core = make_core();
    CompiledModel compiled =
        core.compile_model(read_model(data_dir() + "/models/golden/cnn/model.xml"), "TEMPLATE");
    EXPECT_EQ(compiled.get_property(template_plugin::arena_allocations), 0u);
    EXPECT_GT(compiled.get_property(template_plugin::arena_bytes), 0u);
    InferRequest first = compiled.create_infer_request();
    InferRequest second = compiled.create_infer_request();
    EXPECT_EQ(compiled.get_property(template_plugin::arena_allocations), 2u);
    Tensor x(element::f32, Shape{1, 3, 64, 64});
    fill_pattern(x, 11);
    first.set_input_tensor(x);
    second.set_input_tensor(x);
    const void* output = first.get_output_tensor().data();
    for (int i = 0; i < 5; ++i) {
        first.infer();
        second.infer();
    }
    EXPECT_EQ(compiled.get_property(template_plugin::arena_allocations), 2u);
    EXPECT_EQ(first.get_output_tensor().data(), output);
}

TEST(TemplateStaticMemory, ArenaIsSmallerThanTheSumOfIntermediates) {
    // A chain of 10 Relus over 1024 floats: ten 4 KiB intermediates, two alive at a time, plus
    // the input's staging room.
    auto x = op::parameter(element::f32, PartialShape(Shape{1024}), "x");
    Output cur = x;
    for (int i = 0; i < 10; ++i) cur = op::relu(cur);
    auto model = std::make_shared<Model>(OutputVector{cur}, ParameterVector{x}, "chain");
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "TEMPLATE");
    const uint64_t arena = compiled.get_property(template_plugin::arena_bytes);
    EXPECT_LE(arena, 4u * 4096u);
    EXPECT_GE(arena, 2u * 4096u);
}

}  // namespace
}  // namespace vireo::template_test
