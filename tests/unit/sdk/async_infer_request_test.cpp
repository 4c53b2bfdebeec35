// Tests IAsyncInferRequest: stage order and executors, busy errors, callbacks, exceptions,
// wait/wait_for, and destruction.
#include <gtest/gtest.h>

#include "async_test_request.hpp"

namespace vireo::sdk::test {
namespace {

std::thread::id worker_thread_of(const std::shared_ptr<CPUStreamsExecutor>& executor) {
    std::thread::id id;
    executor->run_and_wait({[&] { id = std::this_thread::get_id(); }});
    return id;
}

void set_input(IAsyncInferRequest& request, const std::vector<float>& values) {
    Tensor in = request.get_tensor(request.get_inputs()[0]);
    std::copy(values.begin(), values.end(), in.data<float>());
}

std::vector<float> output_values(IAsyncInferRequest& request) {
    Tensor out = request.get_tensor(request.get_outputs()[0]);
    return std::vector<float>(out.data<float>(), out.data<float>() + out.get_size());
}

// Spins until `request` is stopped: check_state() then reports "destroyed" instead of Busy.
void wait_until_stopped(const TestAsyncRequest& request) {
    for (;;) {
        try {
            request.check_state();
        } catch (const Busy&) {
            std::this_thread::yield();
            continue;
        } catch (const Exception& e) {
            EXPECT_NE(std::string(e.what()).find("destroyed"), std::string::npos) << e.what();
            return;
        }
    }
}

TEST(AsyncInferRequest, DefaultPipelineRunsSyncInferOnTheTaskExecutor) {
    auto executor = make_streams("Task");
    auto compiled = make_compiled(make_relu_model(), executor);
    auto request = compiled->create_infer_request();
    auto* sync = dynamic_cast<TestSyncRequest*>(request->get_sync_request().get());
    ASSERT_NE(sync, nullptr);
    set_input(*request, {-1.f, 2.f, -3.f});
    request->start_async();
    request->wait();
    EXPECT_EQ(sync->infers, 1);
    EXPECT_EQ(sync->infer_thread, worker_thread_of(executor));
    EXPECT_EQ(output_values(*request), (std::vector<float>{0.f, 2.f, 0.f}));

    set_input(*request, {4.f, -5.f, 6.f});
    request->infer();  // the sync pipeline runs in this thread
    EXPECT_EQ(sync->infers, 2);
    EXPECT_EQ(sync->infer_thread, std::this_thread::get_id());
    EXPECT_EQ(output_values(*request), (std::vector<float>{4.f, 0.f, 6.f}));
}

TEST(AsyncInferRequest, StagesRunInOrderEachOnItsExecutor) {
    auto a = make_streams("StageA");
    auto b = make_streams("StageB");
    auto parts = make_async({a, b, a});
    auto& request = *parts.request;
    request.start_async();
    request.wait();
    EXPECT_EQ(request.order(), (std::vector<int>{0, 1, 2}));
    const auto a_thread = worker_thread_of(a);
    const auto b_thread = worker_thread_of(b);
    EXPECT_NE(a_thread, b_thread);
    EXPECT_EQ(request.probe(0).thread, a_thread);
    EXPECT_EQ(request.probe(1).thread, b_thread);
    EXPECT_EQ(request.probe(2).thread, a_thread);
    EXPECT_EQ(request.probe(0).thread_name, "StageA/0");
    EXPECT_EQ(request.probe(1).thread_name, "StageB/0");
    EXPECT_EQ(request.probe(0).stream_id, 0);
    EXPECT_EQ(parts.sync->infers, 1);
    EXPECT_EQ(parts.sync->infer_thread, a_thread);  // the last stage runs it
}

TEST(AsyncInferRequest, CallbackRunsOnTheCallbackExecutorBeforeWaitReturns) {
    auto task = make_streams("Task");
    auto callback_executor = make_streams("Callback");
    auto parts = make_async({task}, callback_executor);
    std::atomic<int> calls{0};
    std::thread::id callback_thread;
    std::exception_ptr seen = std::make_exception_ptr(std::runtime_error("not called"));
    parts.request->set_callback([&](std::exception_ptr error) {
        callback_thread = std::this_thread::get_id();
        seen = error;
        ++calls;
    });
    parts.request->start_async();
    parts.request->wait();
    EXPECT_EQ(calls, 1);  // already called when wait() returns
    EXPECT_EQ(seen, nullptr);
    EXPECT_EQ(callback_thread, worker_thread_of(callback_executor));
}

TEST(AsyncInferRequest, WithoutCallbackExecutorTheCallbackRunsOnTheLastStagesThread) {
    auto a = make_streams("A");
    auto b = make_streams("B");
    auto parts = make_async({a, b});
    std::thread::id callback_thread;
    parts.request->set_callback(
        [&](std::exception_ptr) { callback_thread = std::this_thread::get_id(); });
    parts.request->start_async();
    parts.request->wait();
    EXPECT_EQ(callback_thread, worker_thread_of(b));
}

TEST(AsyncInferRequest, BusyWhileRunningAndUsableAfterwards) {
    auto parts = make_async({make_streams("A")});
    auto& request = *parts.request;
    request.probe(0).hold = true;
    request.start_async();
    request.probe(0).entered.wait();
    const Output input = request.get_inputs()[0];
    Tensor tensor(element::f32, Shape{1, 3});
    expect_throw_with<Busy>([&] { request.start_async(); }, {"busy", "start_async"});
    expect_throw_with<Busy>([&] { request.infer(); }, {"busy", "infer"});
    expect_throw_with<Busy>([&] { request.set_tensor(input, tensor); }, {"busy", "set_tensor"});
    expect_throw_with<Busy>([&] { request.set_callback([](std::exception_ptr) {}); },
                            {"busy", "set_callback"});
    expect_throw_with<Busy>([&] { request.get_tensor(input); }, {"busy", "get_tensor"});
    expect_throw_with<Busy>([&] { request.set_tensors(input, {tensor}); }, {"busy", "set_tensors"});
    expect_throw_with<Busy>([&] { request.check_state(); }, {"busy"});
    EXPECT_FALSE(request.wait_for(std::chrono::milliseconds(0)));
    request.probe(0).release.open();
    request.wait();
    EXPECT_TRUE(request.wait_for(std::chrono::milliseconds(0)));
    EXPECT_NO_THROW(request.check_state());
    EXPECT_NO_THROW(request.set_tensor(input, tensor));
    EXPECT_EQ(request.get_tensor(input), tensor);
    EXPECT_EQ(request.probe(0).runs, 1);
}

TEST(AsyncInferRequest, WaitWithNothingStartedReturnsAtOnce) {
    auto parts = make_async({make_streams("A")});
    EXPECT_NO_THROW(parts.request->wait());
    EXPECT_TRUE(parts.request->wait_for(std::chrono::milliseconds(0)));
    expect_throw_with<InvalidArgument>(
        [&] { parts.request->wait_for(std::chrono::milliseconds(-1)); }, {"wait_for", "-1"});
}

TEST(AsyncInferRequest, WaitForTimesOutWhileAStageHolds) {
    auto parts = make_async({make_streams("A"), make_streams("B")});
    auto& request = *parts.request;
    request.probe(1).hold = true;
    request.start_async();
    request.probe(1).entered.wait();
    EXPECT_FALSE(request.wait_for(std::chrono::milliseconds(0)));
    EXPECT_FALSE(request.wait_for(std::chrono::milliseconds(1)));
    request.probe(1).release.open();
    EXPECT_TRUE(request.wait_for(std::chrono::hours(1)));  // returns as soon as it is done
    EXPECT_EQ(request.order(), (std::vector<int>{0, 1}));
}

TEST(AsyncInferRequest, CallbackIsCalledOncePerStartAsyncAndNeverForInfer) {
    auto parts = make_async({make_streams("A"), make_streams("B")});
    std::atomic<int> calls{0};
    parts.request->set_callback([&](std::exception_ptr) { ++calls; });
    for (int i = 0; i < 5; ++i) {
        parts.request->start_async();
        parts.request->wait();
        EXPECT_EQ(calls, i + 1);
    }
    parts.request->infer();
    parts.request->infer();
    EXPECT_EQ(calls, 5);
    EXPECT_EQ(parts.sync->infers, 7);
}

TEST(AsyncInferRequest, InferRunsTheSyncPipelineInTheCallersThreadAndThrowsItsError) {
    auto parts = make_async({make_streams("A")});
    auto& request = *parts.request;
    std::thread::id stage_thread;
    bool fail = false;
    request.m_sync_pipeline = {{std::make_shared<ImmediateExecutor>(),
                                [&] {
                                    stage_thread = std::this_thread::get_id();
                                    if (fail) throw_error<Unavailable>("sync stage failed");
                                }},
                               {nullptr, [&](RunContext& run) { parts.sync->infer(run); }}};
    request.infer();
    EXPECT_EQ(stage_thread, std::this_thread::get_id());
    EXPECT_EQ(parts.sync->infers, 1);
    fail = true;
    expect_throw_with<Unavailable>([&] { request.infer(); }, {"sync stage failed"});
    EXPECT_EQ(parts.sync->infers, 1);  // the stage after the failing one was skipped
    EXPECT_NO_THROW(request.check_state());
}

TEST(AsyncInferRequest, SyncPipelineStageOnAnExecutorRunsThereAndInferWaits) {
    auto parts = make_async({make_streams("A")});
    auto other = make_streams("Other");
    std::thread::id stage_thread;
    parts.request->m_sync_pipeline = {{other, [&] { stage_thread = std::this_thread::get_id(); }}};
    parts.request->infer();
    EXPECT_EQ(stage_thread, worker_thread_of(other));
}

class StageFailure : public ::testing::TestWithParam<int> {};

TEST_P(StageFailure, SkipsLaterStagesAndReachesCallbackAndWait) {
    const int failing = GetParam();
    auto parts = make_async({make_streams("A"), make_streams("B"), make_streams("C")});
    auto& request = *parts.request;
    request.probe(failing).fail = true;
    std::atomic<int> calls{0};
    std::string callback_message;
    request.set_callback([&](std::exception_ptr error) {
        ++calls;
        try {
            if (error) std::rethrow_exception(error);
        } catch (const Unavailable& e) {
            callback_message = e.what();
        }
    });
    request.start_async();
    const std::string expected = "stage " + std::to_string(failing) + " failed";
    expect_throw_with<Unavailable>([&] { request.wait(); }, {expected});
    expect_throw_with<Unavailable>([&] { request.wait(); }, {expected});  // the same result again
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(callback_message, expected);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(request.probe(i).runs, i <= failing ? 1 : 0) << "stage " << i;
    EXPECT_EQ(parts.sync->infers, 0);
    // Usable again.
    request.probe(failing).fail = false;
    request.start_async();
    EXPECT_NO_THROW(request.wait());
    EXPECT_EQ(parts.sync->infers, 1);
    EXPECT_EQ(calls, 2);
}

INSTANTIATE_TEST_SUITE_P(EachStage, StageFailure, ::testing::Values(0, 1, 2));

TEST(AsyncInferRequest, CallbackExceptionIsReportedByTheNextWaitOnly) {
    auto parts = make_async({make_streams("A")});
    auto& request = *parts.request;
    request.set_callback([](std::exception_ptr) { throw std::runtime_error("callback broke"); });
    request.start_async();
    expect_throw_with<std::runtime_error>([&] { request.wait(); }, {"callback broke"});
    EXPECT_NO_THROW(request.wait());  // reported once
    EXPECT_EQ(parts.sync->infers, 1);
}

TEST(AsyncInferRequest, CallbackExceptionDoesNotHideAStageError) {
    auto parts = make_async({make_streams("A")});
    auto& request = *parts.request;
    request.probe(0).fail = true;
    request.set_callback([](std::exception_ptr) { throw std::runtime_error("callback broke"); });
    request.start_async();
    expect_throw_with<Unavailable>([&] { request.wait(); }, {"stage 0 failed"});
}

TEST(AsyncInferRequest, ChainingFromTheCallbackRunsNTimes) {
    constexpr int kRuns = 25;
    auto parts = make_async({make_streams("A"), make_streams("B")});
    auto& request = *parts.request;
    std::atomic<int> calls{0};
    Gate done;
    request.set_callback([&](std::exception_ptr error) {
        EXPECT_EQ(error, nullptr);
        if (++calls < kRuns)
            request.start_async();  // the request is idle inside its callback
        else
            done.open();
    });
    request.start_async();
    done.wait();
    request.wait();
    EXPECT_EQ(calls, kRuns);
    EXPECT_EQ(parts.sync->infers, kRuns);
    EXPECT_EQ(request.probe(0).runs, kRuns);
    EXPECT_EQ(request.probe(1).runs, kRuns);
}

TEST(AsyncInferRequest, ChainingWithImmediateStagesAndACallbackExecutor) {
    constexpr int kRuns = 10;
    auto immediate = std::make_shared<ImmediateExecutor>();
    auto parts = make_async({immediate, immediate}, make_streams("Callback"));
    std::atomic<int> calls{0};
    Gate done;
    parts.request->set_callback([&](std::exception_ptr) {
        if (++calls < kRuns)
            parts.request->start_async();
        else
            done.open();
    });
    parts.request->start_async();
    done.wait();
    parts.request->wait();
    EXPECT_EQ(calls, kRuns);
    EXPECT_EQ(parts.sync->infers, kRuns);
}

TEST(AsyncInferRequest, CallbackMayReplaceItselfAndIsNotCopied) {
    auto parts = make_async({make_streams("A")});
    auto& request = *parts.request;
    auto token = std::make_shared<int>(7);
    long use_count_inside = 0;
    std::atomic<int> second_calls{0};
    request.set_callback([&, token](std::exception_ptr) {
        use_count_inside = token.use_count();  // the test's handle + this lambda's capture
        request.set_callback([&](std::exception_ptr) { ++second_calls; });
    });
    request.start_async();
    request.wait();
    EXPECT_EQ(use_count_inside, 2);
    EXPECT_EQ(token.use_count(), 1);  // the replaced callback was released
    request.start_async();
    request.wait();
    EXPECT_EQ(second_calls, 1);
}

TEST(AsyncInferRequest, WaitFromTheCallbackThrowsInsteadOfDeadlocking) {
    auto parts = make_async({make_streams("A")});
    std::string message;
    parts.request->set_callback([&](std::exception_ptr) {
        try {
            parts.request->wait();
        } catch (const Exception& e) {
            message = e.what();
        }
    });
    parts.request->start_async();
    parts.request->wait();
    EXPECT_NE(message.find("callback"), std::string::npos) << message;
}

TEST(AsyncInferRequest, DestructionWhileRunningWaitsForThePipeline) {
    auto parts = make_async({make_streams("A"), make_streams("B")});
    auto request = std::move(parts.request);
    std::atomic<int> calls{0};
    request->set_callback([&](std::exception_ptr) { ++calls; });
    request->probe(0).hold = true;
    // The probes live inside the request, which cannot be freed before its pipeline ends.
    StageProbe* first = &request->probe(0);
    TestAsyncRequest* owner = request.get();
    request->start_async();
    first->entered.wait();
    std::atomic<bool> destroyed{false};
    std::thread destroyer([&] {
        request.reset();
        destroyed = true;
    });
    EXPECT_FALSE(destroyed);  // not finished yet: the first stage still holds
    // Wait until the destructor has stopped the request (the object stays alive until the
    // held stage returns).
    wait_until_stopped(*owner);
    first->release.open();
    destroyer.join();
    EXPECT_TRUE(destroyed);
    EXPECT_EQ(parts.sync->infers, 1);  // the pipeline ran to its end
    EXPECT_EQ(calls, 0);               // a request being destroyed drops its callback
}

// cancel_and_stop() (for destructors of requests whose stages may hang): the running pipeline is
// cancelled, its later stages skipped, the sync request told, the callback never called.
TEST(AsyncInferRequest, CancelAndStopCancelsTheRunWithoutItsCallback) {
    auto parts = make_async({make_streams("A"), make_streams("B")});
    auto& request = *parts.request;
    std::atomic<int> calls{0};
    request.set_callback([&](std::exception_ptr) { ++calls; });
    request.probe(0).hold = true;
    request.start_async();
    request.probe(0).entered.wait();
    std::thread stopper([&] { request.cancel_and_stop(); });
    wait_until_stopped(request);  // while the first stage still holds
    request.probe(0).release.open();
    stopper.join();
    EXPECT_EQ(parts.sync->cancels, 1);
    EXPECT_TRUE(request.probe(0).saw_cancelled);
    EXPECT_EQ(request.probe(1).runs, 0);  // the stage after the cancel never ran
    EXPECT_EQ(parts.sync->infers, 0);
    EXPECT_EQ(calls, 0);
    request.cancel_and_stop();  // idempotent
    EXPECT_EQ(parts.sync->cancels, 1);
    expect_throw_with<Exception>([&] { request.start_async(); }, {"destroyed", "start_async"});
}

TEST(AsyncInferRequest, StopAndWaitRefusesNewStarts) {
    auto parts = make_async({make_streams("A")});
    parts.request->start_async();
    parts.request->stop_and_wait();
    EXPECT_EQ(parts.sync->infers, 1);
    expect_throw_with<Exception>([&] { parts.request->start_async(); },
                                 {"destroyed", "start_async"});
    expect_throw_with<Exception>([&] { parts.request->infer(); }, {"destroyed", "infer"});
    EXPECT_EQ(parts.sync->infers, 1);
}

TEST(AsyncInferRequest, DestroyingTheRequestFromItsOwnCallbackDoesNotDeadlock) {
    for (bool callback_executor : {false, true}) {
        auto parts =
            make_async({make_streams("A")}, callback_executor ? make_streams("Callback") : nullptr);
        Gate done;
        auto holder = std::make_shared<std::shared_ptr<TestAsyncRequest>>(std::move(parts.request));
        (*holder)->set_callback([holder, &done](std::exception_ptr) {
            holder->reset();  // the last reference: the request dies inside its own callback
            done.open();
        });
        (*holder)->start_async();
        done.wait();
        EXPECT_EQ(parts.sync->infers, 1);
    }
}

TEST(AsyncInferRequest, CancelWhileIdleDoesNothing) {
    auto parts = make_async({make_streams("A")});
    parts.request->cancel();
    EXPECT_EQ(parts.sync->cancels, 0);
    parts.request->start_async();
    EXPECT_NO_THROW(parts.request->wait());
    parts.request->cancel();  // after it finished
    EXPECT_NO_THROW(parts.request->wait());
    EXPECT_EQ(parts.sync->cancels, 0);
    EXPECT_EQ(parts.sync->infers, 1);
}

class CancelAtStage : public ::testing::TestWithParam<int> {};

TEST_P(CancelAtStage, SkipsLaterStagesAndWaitThrowsCancelled) {
    const int stage = GetParam();
    auto parts = make_async({make_streams("A"), make_streams("B"), make_streams("C")});
    auto& request = *parts.request;
    std::atomic<int> calls{0};
    std::atomic<bool> callback_saw_cancelled{false};
    request.set_callback([&](std::exception_ptr error) {
        ++calls;
        try {
            if (error) std::rethrow_exception(error);
        } catch (const Cancelled&) {
            callback_saw_cancelled = true;
        }
    });
    request.probe(stage).hold = true;
    request.start_async();
    request.probe(stage).entered.wait();
    request.cancel();
    EXPECT_EQ(parts.sync->cancels, 1);  // the sync request is asked to stop
    request.cancel();                   // a second cancel while cancelling changes nothing
    EXPECT_EQ(parts.sync->cancels, 1);
    expect_throw_with<Busy>([&] { request.start_async(); }, {"busy"});
    request.probe(stage).release.open();
    expect_throw_with<Cancelled>([&] { request.wait(); }, {"cancelled"});
    EXPECT_EQ(calls, 1);
    EXPECT_TRUE(callback_saw_cancelled);
    EXPECT_TRUE(request.probe(stage).saw_cancelled);  // visible to the running stage
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(request.probe(i).runs, i <= stage ? 1 : 0) << "stage " << i;
    // Reusable: the next run is not cancelled.
    request.probe(stage).hold = false;
    request.start_async();
    EXPECT_NO_THROW(request.wait());
    EXPECT_EQ(calls, 2);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(request.probe(i).runs, i <= stage ? 2 : 1) << "stage " << i;
    EXPECT_FALSE(request.probe(stage).saw_cancelled);
}

INSTANTIATE_TEST_SUITE_P(EachStage, CancelAtStage, ::testing::Values(0, 1, 2));

TEST(AsyncInferRequest, CancelBeforeTheFirstStageStartsSkipsEveryStage) {
    auto executor = make_streams("A");
    auto parts = make_async({executor, make_streams("B")});
    Gate blocker_started, unblock;
    executor->run([&] {  // occupies the only worker, so stage 0 stays queued
        blocker_started.open();
        unblock.wait();
    });
    blocker_started.wait();
    parts.request->start_async();
    parts.request->cancel();
    unblock.open();
    expect_throw_with<Cancelled>([&] { parts.request->wait(); }, {"cancelled"});
    EXPECT_EQ(parts.request->probe(0).runs, 0);
    EXPECT_EQ(parts.request->probe(1).runs, 0);
    EXPECT_EQ(parts.sync->infers, 0);
}

TEST(AsyncInferRequest, CancelDuringSyncInferFromAnotherThread) {
    auto parts = make_async({make_streams("A")});
    Gate entered, release;
    bool second_ran = false;
    parts.request->m_sync_pipeline = {{nullptr,
                                       [&](RunContext& run) {
                                           auto told =
                                               run.on_cancel([&] { ++parts.sync->cancels; });
                                           entered.open();
                                           release.wait();
                                       }},
                                      {nullptr, [&] { second_ran = true; }}};
    std::exception_ptr error;
    std::thread caller([&] {
        try {
            parts.request->infer();
        } catch (...) {
            error = std::current_exception();
        }
    });
    entered.wait();
    parts.request->cancel();
    release.open();
    caller.join();
    EXPECT_TRUE(error);
    expect_throw_with<Cancelled>([&] { std::rethrow_exception(error); }, {"cancelled"});
    EXPECT_FALSE(second_ran);
    EXPECT_EQ(parts.sync->cancels, 1);
    EXPECT_NO_THROW(parts.request->check_state());
}

TEST(AsyncInferRequest, ManyRequestsChainingOnFewThreads) {
    constexpr int kRequests = 16;
    constexpr int kRunsEach = 5;
    auto shared = make_streams("Shared", 2);
    auto callbacks = make_streams("Callbacks");
    std::vector<AsyncFixtureParts> all;
    std::vector<std::unique_ptr<std::atomic<int>>> calls;
    Counter finished;
    for (int r = 0; r < kRequests; ++r) {
        all.push_back(make_async({shared, shared}, r % 2 ? callbacks : nullptr));
        calls.push_back(std::make_unique<std::atomic<int>>(0));
    }
    for (int r = 0; r < kRequests; ++r) {
        auto* request = all[r].request.get();
        auto* count = calls[r].get();
        request->set_callback([request, count, &finished](std::exception_ptr error) {
            EXPECT_EQ(error, nullptr);
            if (++*count < kRunsEach)
                request->start_async();
            else
                finished.increment();
        });
    }
    for (auto& parts : all) parts.request->start_async();
    finished.wait_for_at_least(kRequests);
    for (int r = 0; r < kRequests; ++r) {
        all[r].request->wait();
        EXPECT_EQ(*calls[r], kRunsEach);
        EXPECT_EQ(all[r].sync->infers, kRunsEach);
    }
}

TEST(AsyncInferRequest, ConcurrentCancelsAndWaitsEndOkOrCancelled) {
    auto parts = make_async({make_streams("A"), make_streams("B")});
    auto& request = *parts.request;
    int ok = 0, cancelled = 0;
    for (int i = 0; i < 50; ++i) {
        request.start_async();
        std::thread canceller([&] { request.cancel(); });
        try {
            request.wait();
            ++ok;
        } catch (const Cancelled&) {
            ++cancelled;
        }
        canceller.join();
    }
    EXPECT_EQ(ok + cancelled, 50);
    EXPECT_NO_THROW(request.check_state());
}

TEST(AsyncInferRequest, StartAsyncValidatesTensorsFirst) {
    auto compiled = make_compiled(make_relu_model(PartialShape{-1, 3}), make_streams("A"));
    auto request = compiled->create_infer_request();
    std::atomic<int> calls{0};
    request->set_callback([&](std::exception_ptr) { ++calls; });
    // The dynamic input still holds its {0} placeholder.
    expect_throw_with<InvalidArgument>([&] { request->start_async(); },
                                       {"input 'x'", "[?,3]", "[0]"});
    expect_throw_with<InvalidArgument>([&] { request->infer(); }, {"input 'x'"});
    EXPECT_NO_THROW(request->wait());  // nothing was started
    EXPECT_EQ(calls, 0);
    Tensor in(element::f32, Shape{2, 3});
    in.data<float>()[4] = 5.f;
    in.data<float>()[5] = -5.f;
    request->set_tensor(request->get_inputs()[0], in);
    request->start_async();
    request->wait();
    Tensor out = request->get_tensor(request->get_outputs()[0]);
    EXPECT_EQ(out.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(out.data<float>()[4], 5.f);
    EXPECT_EQ(out.data<float>()[5], 0.f);
    EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace vireo::sdk::test
