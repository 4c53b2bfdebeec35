// Cancel: a long chain stops between ops (counted, not timed), the request is usable after.
#include <gtest/gtest.h>

#include <thread>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::template_test {
namespace {

constexpr size_t kChain = 50;

std::shared_ptr<Model> probe_chain() {
    auto x = op::parameter(element::f32, PartialShape(Shape{16}), "x");
    Output cur = x;
    for (size_t i = 0; i < kChain; ++i) cur = probe(cur);
    cur.set_names({"y"});
    return std::make_shared<Model>(OutputVector{cur}, ParameterVector{x}, "probe_chain");
}

size_t executed_op_rows(const InferRequest& request) {
    size_t n = 0;
    for (const auto& row : request.get_profiling_info())
        n += row.node_type != "Stage" && row.status == ProfilingInfo::Status::EXECUTED;
    return n;
}

TEST(TemplateCancel, StopsBetweenOpsAndStaysUsable) {
    Core core = make_core();
    CompiledModel compiled =
        core.compile_model(probe_chain(), "TEMPLATE", {enable_profiling(true)});
    InferRequest request = compiled.create_infer_request();
    probe_log().reset();
    probe_log().block_at = 10;
    request.start_async();
    probe_log().wait_blocked();  // op 10 of 50 is running
    request.cancel();
    probe_log().release();
    EXPECT_THROW(request.wait(), Cancelled);
    EXPECT_EQ(probe_log().executions, 10u);  // op 11 never started
    EXPECT_EQ(executed_op_rows(request), 10u);

    // The request runs normally afterwards.
    probe_log().reset();
    request.infer();
    EXPECT_EQ(probe_log().executions, kChain);
    EXPECT_EQ(executed_op_rows(request), kChain);
}

TEST(TemplateCancel, CancelWhileIdleHasNoEffect) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(probe_chain(), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    request.cancel();
    probe_log().reset();
    request.start_async();
    request.wait();
    EXPECT_EQ(probe_log().executions, kChain);
}

TEST(TemplateCancel, SyncInferCancelledFromAnotherThread) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(probe_chain(), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    probe_log().reset();
    probe_log().block_at = 3;
    std::thread canceller([&] {
        probe_log().wait_blocked();
        request.cancel();
        probe_log().release();
    });
    EXPECT_THROW(request.infer(), Cancelled);
    canceller.join();
    EXPECT_EQ(probe_log().executions, 3u);
    probe_log().reset();
}

}  // namespace
}  // namespace vireo::template_test
