// Many requests in parallel threads (sync and async) on one compiled model give correct results.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "test_utils.hpp"

namespace vireo::template_test {
namespace {

constexpr size_t kBatch = 2;
constexpr size_t kWidth = 48;

std::vector<float> input_for(size_t thread, size_t iteration) {
    std::vector<float> x(kBatch * kWidth);
    for (size_t i = 0; i < x.size(); ++i)
        x[i] =
            static_cast<float>(static_cast<int>((i * 31 + thread * 17 + iteration * 5) % 41) - 20) /
            10.0f;
    return x;
}

void check(const Tensor& y, const std::vector<float>& expected, size_t thread, size_t iteration,
           bool& ok) {
    for (size_t i = 0; i < expected.size(); ++i) {
        const float got = y.data<float>()[i];
        if (std::fabs(got - expected[i]) > 1e-4f * (1.0f + std::fabs(expected[i]))) {
            ADD_FAILURE() << "thread " << thread << " iteration " << iteration << " element " << i
                          << ": " << got << " vs " << expected[i];
            ok = false;
            return;
        }
    }
}

TEST(TemplateParallel, ManyRequestsInManyThreads) {
    auto model = make_dense_model(kBatch, kWidth);
    Core core = make_core();
    CompiledModel compiled = core.compile_model(
        model, "TEMPLATE",
        {hint::performance_mode(hint::PerformanceMode::THROUGHPUT), num_streams(2)});
    constexpr size_t kThreads = 6;
    constexpr size_t kIterations = 25;
    std::vector<bool> ok(kThreads, true);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            bool good = true;
            InferRequest request = compiled.create_infer_request();
            for (size_t it = 0; it < kIterations && good; ++it) {
                std::vector<float> x = input_for(t, it);
                request.set_tensor("x", Tensor(element::f32, Shape{kBatch, kWidth}, x.data()));
                if ((t + it) % 2) {
                    request.infer();
                } else {
                    request.start_async();
                    request.wait();
                }
                check(request.get_tensor("y"), dense_reference(*model, x, kBatch, kWidth), t, it,
                      good);
            }
            ok[t] = good;
        });
    }
    for (auto& th : threads) th.join();
    for (size_t t = 0; t < kThreads; ++t) EXPECT_TRUE(ok[t]) << "thread " << t;
}

TEST(TemplateParallel, RequestsInFlightTogetherOnStreams) {
    auto model = make_dense_model(kBatch, kWidth);
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "TEMPLATE", {num_streams(2)});
    constexpr size_t kRequests = 8;
    std::vector<InferRequest> requests;
    std::vector<std::vector<float>> inputs;
    for (size_t r = 0; r < kRequests; ++r) {
        requests.push_back(compiled.create_infer_request());
        inputs.push_back(input_for(r, 0));
        requests[r].set_tensor("x", Tensor(element::f32, Shape{kBatch, kWidth}, inputs[r].data()));
    }
    for (auto& r : requests) r.start_async();
    bool good = true;
    for (size_t r = 0; r < kRequests; ++r) {
        requests[r].wait();
        check(requests[r].get_tensor("y"), dense_reference(*model, inputs[r], kBatch, kWidth), r, 0,
              good);
    }
    EXPECT_TRUE(good);
}

}  // namespace
}  // namespace vireo::template_test
