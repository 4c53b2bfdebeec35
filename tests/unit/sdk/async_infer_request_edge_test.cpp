// Tests IAsyncInferRequest's less common paths: null and empty pipelines, refusing executors,
// forwarding while idle, callback errors with chaining, construction errors, and a callback that
// reads its request while another thread destroys it.
#include <gtest/gtest.h>

#include <future>

#include "async_test_request.hpp"

namespace vireo::sdk::test {
namespace {

/// Refuses every task (as an executor that is shutting down might).
class RefusingExecutor : public ITaskExecutor {
  public:
    void run(Task) override { throw_error<Unavailable>("executor refuses tasks"); }
};

TEST(AsyncInferRequestEdges, ConstructionNeedsASyncRequest) {
    expect_throw_with<InvalidArgument>(
        [] { IAsyncInferRequest request(nullptr, nullptr, nullptr); }, {"sync request"});
}

TEST(AsyncInferRequestEdges, AStageWithoutExecutorRunsOnThePreviousStagesThread) {
    auto a = make_streams("A");
    auto parts = make_async({a, nullptr});
    parts.request->start_async();
    parts.request->wait();
    EXPECT_EQ(parts.request->probe(1).thread, parts.request->probe(0).thread);
    EXPECT_EQ(parts.request->probe(1).thread_name, "A/0");
}

TEST(AsyncInferRequestEdges, AllInlineStagesCompleteInsideStartAsync) {
    auto parts = make_async({nullptr, std::make_shared<ImmediateExecutor>()});
    std::thread::id callback_thread;
    parts.request->set_callback(
        [&](std::exception_ptr) { callback_thread = std::this_thread::get_id(); });
    parts.request->start_async();
    EXPECT_TRUE(parts.request->wait_for(std::chrono::milliseconds(0)));
    EXPECT_EQ(callback_thread, std::this_thread::get_id());
    EXPECT_EQ(parts.sync->infers, 1);
}

TEST(AsyncInferRequestEdges, AnEmptyPipelineCompletesAtOnceWithItsCallback) {
    auto parts = make_async({});
    std::atomic<int> calls{0};
    parts.request->set_callback([&](std::exception_ptr error) {
        EXPECT_EQ(error, nullptr);
        ++calls;
    });
    parts.request->start_async();
    parts.request->wait();
    EXPECT_EQ(calls, 1);
}

TEST(AsyncInferRequestEdges, AFirstExecutorThatRefusesFailsStartAsyncWithoutCallback) {
    auto parts = make_async({std::make_shared<RefusingExecutor>()});
    std::atomic<int> calls{0};
    parts.request->set_callback([&](std::exception_ptr) { ++calls; });
    expect_throw_with<Unavailable>([&] { parts.request->start_async(); }, {"refuses"});
    EXPECT_EQ(calls, 0);
    EXPECT_NO_THROW(parts.request->check_state());  // idle again
    expect_throw_with<Unavailable>([&] { parts.request->wait(); }, {"refuses"});
}

TEST(AsyncInferRequestEdges, ALaterExecutorThatRefusesEndsTheRunWithItsError) {
    auto parts = make_async({make_streams("A"), std::make_shared<RefusingExecutor>()});
    std::string seen;
    parts.request->set_callback([&](std::exception_ptr error) {
        try {
            if (error) std::rethrow_exception(error);
        } catch (const Unavailable& e) {
            seen = e.what();
        }
    });
    parts.request->start_async();
    expect_throw_with<Unavailable>([&] { parts.request->wait(); }, {"refuses"});
    EXPECT_EQ(seen, "executor refuses tasks");
    EXPECT_EQ(parts.request->probe(0).runs, 1);
    EXPECT_EQ(parts.request->probe(1).runs, 0);
}

TEST(AsyncInferRequestEdges, ARefusingCallbackExecutorCompletesInline) {
    auto parts = make_async({make_streams("A")}, std::make_shared<RefusingExecutor>());
    std::atomic<int> calls{0};
    parts.request->set_callback([&](std::exception_ptr) { ++calls; });
    parts.request->start_async();
    parts.request->wait();
    EXPECT_EQ(calls, 1);
}

TEST(AsyncInferRequestEdges, ACallbackErrorAfterChainingIsReportedByTheNextWait) {
    auto parts = make_async({make_streams("A")});
    auto& request = *parts.request;
    std::atomic<int> calls{0};
    Gate second_done;
    request.set_callback([&](std::exception_ptr) {
        if (++calls == 1) {
            request.start_async();
            throw std::runtime_error("first callback broke after chaining");
        }
        second_done.open();
    });
    request.start_async();
    second_done.wait();
    expect_throw_with<std::runtime_error>([&] { request.wait(); }, {"first callback broke"});
    EXPECT_NO_THROW(request.wait());
    EXPECT_EQ(calls, 2);
}

TEST(AsyncInferRequestEdges, ForwardsToTheSyncRequestWhileIdle) {
    auto parts = make_async({make_streams("A")});
    auto& request = *parts.request;
    // The SDK's defaults before any run: the five stage rows, not run; no states.
    const auto rows = request.get_profiling_info();
    ASSERT_EQ(rows.size(), 5u);
    for (const auto& row : rows) EXPECT_EQ(row.status, ProfilingInfo::Status::NOT_RUN);
    EXPECT_TRUE(request.query_state().empty());
    EXPECT_TRUE(request.get_tensors(request.get_inputs()[0]).empty());
    EXPECT_EQ(&request.get_inputs(), &parts.sync->get_inputs());
    EXPECT_EQ(&request.get_outputs(), &parts.sync->get_outputs());
    EXPECT_EQ(request.get_sync_request(), parts.sync);
    Tensor t(element::f32, Shape{1, 3});
    request.set_tensor(request.get_inputs()[0], t);
    EXPECT_EQ(parts.sync->get_tensor(parts.sync->get_inputs()[0]), t);
    expect_throw_with<InvalidArgument>(
        [&] { request.set_tensor(request.get_inputs()[0], Tensor(element::f32, Shape{9})); },
        {"input 'x'"});
}

TEST(AsyncInferRequestEdges, ASetCallbackOfNullStopsCallbacks) {
    auto parts = make_async({make_streams("A")});
    std::atomic<int> calls{0};
    parts.request->set_callback([&](std::exception_ptr) { ++calls; });
    parts.request->set_callback(nullptr);
    parts.request->start_async();
    parts.request->wait();
    EXPECT_EQ(calls, 0);
}

// The REMOTE stress test met this: a run completes, its callback starts, and another thread
// destroys the request; the callback then read its output and got "being destroyed". The
// destructor waits for the callback, so reads are allowed there; anything else is refused.
TEST(AsyncInferRequestEdges, ARunningCallbackMayReadWhileAnotherThreadDestroysTheRequest) {
    auto parts = make_async({make_streams("A")});
    std::promise<void> in_callback;
    std::atomic<bool> destroying{false};
    std::atomic<int> reads{0}, refused{0};
    TestAsyncRequest* raw = parts.request.get();
    raw->set_callback([&, raw](std::exception_ptr error) {
        EXPECT_EQ(error, nullptr);
        in_callback.set_value();
        while (!destroying) std::this_thread::yield();
        // Long enough for the destructor to mark the request stopped and wait for this callback.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        try {
            EXPECT_EQ(raw->get_tensor(raw->get_outputs()[0]).get_shape(), (Shape{1, 3}));
            EXPECT_FALSE(raw->get_profiling_info().empty());
            ++reads;
        } catch (const Exception& e) {
            ADD_FAILURE() << e.what();
        }
        try {
            raw->set_callback(nullptr);
        } catch (const Exception& e) {
            EXPECT_NE(std::string(e.what()).find("being destroyed"), std::string::npos) << e.what();
            ++refused;
        }
    });
    raw->start_async();
    in_callback.get_future().wait();
    destroying = true;
    parts.request.reset();  // waits for the callback
    EXPECT_EQ(reads, 1);
    EXPECT_EQ(refused, 1);
}

TEST(AsyncInferRequestEdges, RequestsFromSeveralThreadsAtOnce) {
    auto executor = make_streams("Shared", 2);
    constexpr int kThreads = 4;
    constexpr int kRuns = 20;
    std::vector<AsyncFixtureParts> all;
    for (int t = 0; t < kThreads; ++t) all.push_back(make_async({executor, executor}));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kRuns; ++i) {
                if (i % 3 == 0) {
                    all[t].request->infer();
                } else {
                    all[t].request->start_async();
                    all[t].request->wait();
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (auto& parts : all) EXPECT_EQ(parts.sync->infers, kRuns);
}

TEST(ExecutorEdges, RunAndWaitCountsARefusedTaskAsFailed) {
    RefusingExecutor executor;
    expect_throw_with<Unavailable>([&] { executor.run_and_wait({[] {}, [] {}}); }, {"refuses"});
}

TEST(CompiledModelEdges, NeedsAModel) {
    expect_throw_with<InvalidArgument>([] { make_compiled(nullptr); }, {"model is null"});
}

}  // namespace
}  // namespace vireo::sdk::test
