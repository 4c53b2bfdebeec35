// Memory: the liveness planners, and a static model's requests allocating their working memory
// once (at creation) and never per inference.
#include <gtest/gtest.h>

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
