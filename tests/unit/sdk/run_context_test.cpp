// Tests of RunContext (the run's cancel token and profiling sink), of how IAsyncInferRequest hands
// it to stages and keeps its rows, and of ISyncInferRequest's lazy port tensors.
#include "vireo/sdk/run_context.hpp"

#include <chrono>
#include <thread>

#include "async_test_request.hpp"

namespace vireo::sdk::test {
namespace {

using Status = ProfilingInfo::Status;
using namespace std::chrono_literals;

TEST(RunContext, CancelSetsTheFlagAndThrowIfCancelledNamesTheCaller) {
    RunContext run;
    EXPECT_FALSE(run.cancelled());
    EXPECT_NO_THROW(run.throw_if_cancelled("DEV"));
    run.cancel();
    EXPECT_TRUE(run.cancelled());
    expect_throw_with<Cancelled>([&] { run.throw_if_cancelled("DEV before op 'conv1'"); },
                                 {"DEV before op 'conv1'", "cancelled"});
}

TEST(RunContext, CancelCallsEachFunctionOnceInOrderOnTheCancellingThread) {
    RunContext run;
    std::vector<int> calls;
    std::thread::id caller;
    auto first = run.on_cancel([&] {
        calls.push_back(1);
        caller = std::this_thread::get_id();
    });
    auto second = run.on_cancel([&] { calls.push_back(2); });
    EXPECT_TRUE(calls.empty());
    std::thread canceller([&] { run.cancel(); });
    const auto canceller_id = canceller.get_id();
    canceller.join();
    EXPECT_EQ(calls, (std::vector<int>{1, 2}));
    EXPECT_EQ(caller, canceller_id);
    run.cancel();  // idempotent: nothing is called twice
    EXPECT_EQ(calls.size(), 2u);
}

TEST(RunContext, AFunctionRegisteredAfterTheCancelRunsAtOnceOnTheRegisteringThread) {
    RunContext run;
    run.cancel();
    int calls = 0;
    std::thread::id where;
    auto registration = run.on_cancel([&] {
        ++calls;
        where = std::this_thread::get_id();
    });
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(where, std::this_thread::get_id());
    registration.reset();
    EXPECT_EQ(calls, 1);
}

TEST(RunContext, ARemovedFunctionIsNeverCalled) {
    RunContext run;
    int calls = 0;
    {
        auto registration = run.on_cancel([&] { ++calls; });
    }
    auto kept = run.on_cancel([&] { calls += 10; });
    auto moved = std::move(kept);  // the registration moves; the function stays registered once
    run.cancel();
    EXPECT_EQ(calls, 10);
}

TEST(RunContext, RemovingARegistrationWaitsForItsFunctionRunningOnAnotherThread) {
    RunContext run;
    Gate entered, release;
    std::atomic<bool> function_done{false};
    auto registration = run.on_cancel([&] {
        entered.open();
        release.wait();
        function_done = true;
    });
    std::thread canceller([&] { run.cancel(); });
    entered.wait();
    std::atomic<bool> removed{false};
    std::thread remover([&] {
        registration.reset();
        removed = true;
        EXPECT_TRUE(function_done);  // reset() returned only after the function did
    });
    std::this_thread::sleep_for(20ms);  // gives reset() the chance to return too early
    EXPECT_FALSE(removed);
    release.open();
    remover.join();
    canceller.join();
    EXPECT_TRUE(removed);
}

TEST(RunContext, AFunctionMayRemoveItsOwnRegistrationOrAddAnother) {
    RunContext run;
    RunContext::CancelRegistration self;
    int inner = 0;
    RunContext::CancelRegistration added;
    self = run.on_cancel([&] {
        self.reset();                             // from inside: does not wait for itself
        added = run.on_cancel([&] { ++inner; });  // cancelled already: runs at once
    });
    run.cancel();
    EXPECT_EQ(inner, 1);
}

TEST(RunContext, ARegistrationMayOutliveItsRun) {
    RunContext::CancelRegistration registration;
    int calls = 0;
    {
        RunContext run;
        registration = run.on_cancel([&] { ++calls; });
    }
    registration.reset();  // the run is gone: nothing to remove, nothing called
    EXPECT_EQ(calls, 0);
}

TEST(RunContext, ProfilingSinkGivesFiveStageRowsInOrderThenOpRows) {
    RunContext run;
    run.stage(PipelineStage::kExecution, 5us);
    run.stage(PipelineStage::kExecution, 7us, Status::EXECUTED, "dev");  // adds up
    run.stage(PipelineStage::kInputTransfer, 0us, Status::OPTIMIZED_OUT);
    ProfilingInfo op;
    op.node_name = "conv1";
    op.node_type = "Convolution";
    op.status = Status::EXECUTED;
    op.real_time = 3us;
    run.op(op);
    const auto rows = run.profiling_rows();
    ASSERT_EQ(rows.size(), 6u);
    const char* names[] = {"input preprocessing", "input transfer", "execution", "output transfer",
                           "output postprocessing"};
    for (size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(rows[i].node_name, names[i]);
        EXPECT_EQ(rows[i].node_type, "Stage");
    }
    EXPECT_EQ(rows[0].status, Status::NOT_RUN);
    EXPECT_EQ(rows[1].status, Status::OPTIMIZED_OUT);
    EXPECT_EQ(rows[2].status, Status::EXECUTED);
    EXPECT_EQ(rows[2].real_time, 12us);
    EXPECT_EQ(rows[2].exec_type, "dev");
    EXPECT_EQ(rows[4].status, Status::NOT_RUN);
    EXPECT_EQ(rows[5].node_name, "conv1");
    EXPECT_EQ(rows[5].real_time, 3us);
}

TEST(RunContext, RowSourcesRunOnlyWhenRowsAreAskedForAfterTheOpRows) {
    RunContext run;
    int built = 0;
    run.op_rows([&](std::vector<ProfilingInfo>& rows) {
        ++built;
        ProfilingInfo row;
        row.node_name = "late";
        rows.push_back(row);
    });
    ProfilingInfo early;
    early.node_name = "early";
    run.op(early);
    EXPECT_EQ(built, 0);  // nothing built on the inference path
    const auto rows = run.profiling_rows();
    EXPECT_EQ(built, 1);
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_EQ(rows[5].node_name, "early");
    EXPECT_EQ(rows[6].node_name, "late");
}

TEST(RunContext, AStageTimerRecordsItsStageAlsoWhenTheStageThrows) {
    RunContext run;
    try {
        auto timer = run.time_stage(PipelineStage::kOutputPostprocessing, "host");
        std::this_thread::sleep_for(2ms);
        throw std::runtime_error("stage failed");
    } catch (const std::runtime_error&) {
    }
    const auto rows = run.profiling_rows();
    EXPECT_EQ(rows[4].status, Status::EXECUTED);
    EXPECT_GE(rows[4].real_time, 2000us);
    EXPECT_EQ(rows[4].exec_type, "host");
}

// Through the async request: every stage gets the same context, its cancel functions are
// called by cancel(), and the rows of the finished run become get_profiling_info().
TEST(RunContextInPipeline, StagesShareOneContextPerRunAndTheRowsOutliveIt) {
    auto parts = make_async({make_streams("A"), make_streams("B")});
    auto& request = *parts.request;
    std::vector<const RunContext*> seen(2, nullptr);
    request.pipeline() = {{make_streams("A"),
                           [&](RunContext& run) {
                               seen[0] = &run;
                               run.stage(PipelineStage::kInputPreprocessing, 4us);
                           }},
                          {make_streams("B"), [&](RunContext& run) {
                               seen[1] = &run;
                               run.stage(PipelineStage::kExecution, 9us);
                           }}};
    request.start_async();
    request.wait();
    EXPECT_NE(seen[0], nullptr);
    EXPECT_EQ(seen[0], seen[1]);
    auto rows = request.get_profiling_info();
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[0].real_time, 4us);
    EXPECT_EQ(rows[2].real_time, 9us);
    EXPECT_EQ(rows[2].status, Status::EXECUTED);
    // The next run has a fresh context: no rows carried over.
    request.pipeline().pop_back();
    request.start_async();
    request.wait();
    rows = request.get_profiling_info();
    EXPECT_EQ(rows[0].real_time, 4us);
    EXPECT_EQ(rows[2].status, Status::NOT_RUN);
}

TEST(RunContextInPipeline, CancelWakesAStageBlockedOnItsOwnWait) {
    auto parts = make_async({make_streams("A")});
    auto& request = *parts.request;
    Gate waiting;
    request.pipeline() = {{make_streams("A"), [&](RunContext& run) {
                               // A device wait with no polling: only on_cancel ends it.
                               std::mutex mutex;
                               std::condition_variable woken;
                               bool stop = false;
                               auto wake = run.on_cancel([&] {
                                   std::lock_guard<std::mutex> lock(mutex);
                                   stop = true;
                                   woken.notify_all();
                               });
                               waiting.open();
                               std::unique_lock<std::mutex> lock(mutex);
                               woken.wait(lock, [&] { return stop; });
                           }}};
    request.start_async();
    waiting.wait();
    request.cancel();
    expect_throw_with<Cancelled>([&] { request.wait(); }, {"cancelled"});
    EXPECT_NO_THROW(request.check_state());
}

// Lazy port tensors: nothing is created until a port is used, each port once, and a port the
// user set first never gets one.
TEST(LazyPortTensors, CreatedOnFirstUseOncePerPortAndNeverForPortsSetFirst) {
    auto compiled = make_compiled(make_relu_model(), std::make_shared<ImmediateExecutor>());
    auto request = compiled->make_sync_request();
    EXPECT_EQ(request->created, 0);
    Tensor in = request->get_tensor(compiled->inputs()[0]);
    EXPECT_EQ(request->created, 1);
    EXPECT_EQ(request->get_tensor(compiled->inputs()[0]), in);  // the same tensor, not a new one
    EXPECT_EQ(request->created, 1);
    request->check_tensors();  // creates the output's
    EXPECT_EQ(request->created, 2);
    request->infer_once();
    EXPECT_EQ(request->created, 2);

    auto other = compiled->make_sync_request();
    Tensor mine_in(element::f32, Shape{1, 3});
    Tensor mine_out(element::f32, Shape{1, 3});
    other->set_tensor(compiled->inputs()[0], mine_in);
    other->set_tensor(compiled->outputs()[0], mine_out);
    other->check_tensors();
    other->infer_once();
    EXPECT_EQ(other->created, 0);
    EXPECT_EQ(other->get_tensor(compiled->outputs()[0]), mine_out);
}

TEST(LazyPortTensors, SmallestPortTensorFitsEachKindOfPort) {
    auto port = [](const PartialShape& shape, element::Type type = element::f32) {
        return op::parameter(type, shape, "p")->output(0);
    };
    Tensor bounded = TestSyncRequest::smallest_port_tensor(
        port(PartialShape{Dimension(2, 5), Dimension(), Dimension(3)}));
    EXPECT_EQ(bounded.get_shape(), (Shape{2, 0, 3}));
    EXPECT_EQ(bounded.get_element_type(), element::f32);
    EXPECT_EQ(TestSyncRequest::smallest_port_tensor(port(PartialShape::dynamic())).get_shape(),
              (Shape{0}));
    EXPECT_EQ(
        TestSyncRequest::smallest_port_tensor(port(PartialShape{4, 2}, element::i8)).get_shape(),
        (Shape{4, 2}));
    EXPECT_FALSE(TestSyncRequest::smallest_port_tensor(port(PartialShape{1}, element::dynamic)));
}

}  // namespace
}  // namespace vireo::sdk::test
