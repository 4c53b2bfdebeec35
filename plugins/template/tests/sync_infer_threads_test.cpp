// Synchronous infer() runs on a stream when streams have several threads (so kernels can use
// them), inline otherwise, and inline from a callback (no self-deadlock).
#include <gtest/gtest.h>

#include <atomic>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::template_test {
namespace {

std::shared_ptr<Model> one_probe() {
    auto x = op::parameter(element::f32, PartialShape(Shape{4}), "x");
    auto y = probe(x);
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "one_probe");
}

TEST(TemplateSyncInfer, RunsOnAStreamWhenStreamsHaveSeveralThreads) {
    Core core = make_core();
    CompiledModel compiled =
        core.compile_model(one_probe(), "TEMPLATE", {num_streams(1), inference_num_threads(2)});
    InferRequest request = compiled.create_infer_request();
    probe_log().reset();
    request.infer();
    EXPECT_EQ(probe_log().executions, 1u);
    EXPECT_TRUE(probe_log().last_on_stream);
}

TEST(TemplateSyncInfer, RunsInlineWithOneThreadPerStream) {
    Core core = make_core();
    CompiledModel compiled =
        core.compile_model(one_probe(), "TEMPLATE", {num_streams(1), inference_num_threads(1)});
    InferRequest request = compiled.create_infer_request();
    probe_log().reset();
    request.infer();
    EXPECT_FALSE(probe_log().last_on_stream);
}

TEST(TemplateSyncInfer, InferFromTheCallbackDoesNotDeadlock) {
    Core core = make_core();
    CompiledModel compiled =
        core.compile_model(one_probe(), "TEMPLATE", {num_streams(1), inference_num_threads(2)});
    InferRequest request = compiled.create_infer_request();
    InferRequest* self = &request;
    std::atomic<bool> inner_ok{false};
    request.set_callback([self, &inner_ok](std::exception_ptr error) {
        if (error) return;
        self->infer();  // on the stream's own thread: must run inline
        inner_ok = true;
    });
    probe_log().reset();
    request.start_async();
    request.wait();
    EXPECT_TRUE(inner_ok);
    EXPECT_EQ(probe_log().executions, 2u);
}

}  // namespace
}  // namespace vireo::template_test
