// Cancel between ops, counted: a chain of probe + Add pairs is cancelled once the probe count shows
// execution started; far fewer ops ran than the chain has, and the next inference is correct.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::template_test {
namespace {

constexpr size_t kPairs = 40;  // 80 ops: probe, +1, probe, +1, ...

std::shared_ptr<Model> probe_add_chain() {
    auto x = op::parameter(element::f32, PartialShape(Shape{8}), "x");
    Output cur = x;
    for (size_t i = 0; i < kPairs; ++i)
        cur = op::add(probe(cur), op::constant<float>(element::f32, {1}, {1.f}));
    cur.set_names({"y"});
    return std::make_shared<Model>(OutputVector{cur}, ParameterVector{x}, "probe_add_chain");
}

Tensor input_of(float start) {
    Tensor t(element::f32, Shape{8});
    for (size_t i = 0; i < 8; ++i) t.data<float>()[i] = start + static_cast<float>(i);
    return t;
}

TEST(TemplateCancelValues, StopsFarBeforeTheEndAndTheNextInferenceIsCorrect) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(probe_add_chain(), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("x", input_of(0.f));
    probe_log().reset();
    probe_log().block_at = 3;  // the third probe (op 5 of 80) holds until released
    request.start_async();
    probe_log().wait_blocked();
    request.cancel();
    probe_log().release();
    EXPECT_THROW(request.wait(), Cancelled);
    EXPECT_EQ(probe_log().executions, 3u);  // of kPairs probes: nothing after the running op
    EXPECT_LT(probe_log().executions, kPairs / 4);

    probe_log().reset();
    request.set_tensor("x", input_of(100.f));
    request.infer();
    EXPECT_EQ(probe_log().executions, kPairs);
    const Tensor y = request.get_tensor("y");
    for (size_t i = 0; i < 8; ++i)
        EXPECT_EQ(y.data<float>()[i], 100.f + static_cast<float>(i) + static_cast<float>(kPairs));
}

}  // namespace
}  // namespace vireo::template_test
