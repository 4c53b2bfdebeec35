// A controllable async request for the state-machine tests: every stage records where it ran,
// can hold on a gate, can throw; the last stage runs the sync request.
#pragma once

#include <pthread.h>

#include <vector>

#include "sdk_test_helpers.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::sdk::test {

struct StageProbe {
    Gate entered;       // opened when the stage starts (its first run)
    Gate release;       // a holding stage waits for it
    bool hold = false;  // set before start_async
    bool fail = false;  // throw Unavailable("stage <i> failed")
    std::atomic<int> runs{0};
    // Written by the stage, read after wait() (which orders them).
    std::thread::id thread;
    int stream_id = -2;
    std::string thread_name;
    bool saw_cancelled = false;
};

class TestAsyncRequest : public IAsyncInferRequest {
  public:
    TestAsyncRequest(const std::shared_ptr<TestSyncRequest>& sync,
                     const std::vector<std::shared_ptr<ITaskExecutor>>& executors,
                     const std::shared_ptr<ITaskExecutor>& callback_executor)
        : IAsyncInferRequest(sync, executors.empty() ? nullptr : executors[0], callback_executor),
          m_sync(sync) {
        m_pipeline.clear();
        for (size_t i = 0; i < executors.size(); ++i) {
            probes.push_back(std::make_unique<StageProbe>());
            m_pipeline.push_back({executors[i], [this, i](RunContext& run) { stage(i, run); }});
        }
    }
    ~TestAsyncRequest() override { stop_and_wait(); }

    using IAsyncInferRequest::cancel_and_stop;
    using IAsyncInferRequest::check_state;
    using IAsyncInferRequest::m_sync_pipeline;
    using IAsyncInferRequest::stop_and_wait;

    StageProbe& probe(size_t i) { return *probes[i]; }
    /// The start_async pipeline, for tests that replace the probing stages.
    Pipeline& pipeline() { return m_pipeline; }
    std::vector<int> order() const {
        std::lock_guard<std::mutex> lock(m_order_mutex);
        return m_order;
    }

    std::vector<std::unique_ptr<StageProbe>> probes;

  private:
    void stage(size_t i, RunContext& run) {
        StageProbe& p = *probes[i];
        // The running stage is told of a cancel (counted on the sync request).
        auto told = run.on_cancel([this] { ++m_sync->cancels; });
        p.thread = std::this_thread::get_id();
        p.stream_id = CPUStreamsExecutor::current_stream_id();
        char name[32] = {};
        pthread_getname_np(pthread_self(), name, sizeof(name));
        p.thread_name = name;
        {
            std::lock_guard<std::mutex> lock(m_order_mutex);
            m_order.push_back(static_cast<int>(i));
        }
        ++p.runs;
        p.entered.open();
        if (p.hold) p.release.wait();
        p.saw_cancelled = run.cancelled();
        if (p.fail) throw_error<Unavailable>("stage ", i, " failed");
        if (i + 1 == probes.size()) m_sync->infer(run);
    }

    std::shared_ptr<TestSyncRequest> m_sync;
    mutable std::mutex m_order_mutex;
    std::vector<int> m_order;
};

/// A request over `stages` executors (all of them `shared` unless given), on the Relu model.
struct AsyncFixtureParts {
    std::shared_ptr<TestCompiledModel> compiled;
    std::shared_ptr<TestSyncRequest> sync;
    std::shared_ptr<TestAsyncRequest> request;
};

inline AsyncFixtureParts make_async(
    const std::vector<std::shared_ptr<ITaskExecutor>>& executors,
    const std::shared_ptr<ITaskExecutor>& callback_executor = nullptr) {
    AsyncFixtureParts parts;
    parts.compiled = make_compiled(make_relu_model(), std::make_shared<ImmediateExecutor>());
    parts.sync = parts.compiled->make_sync_request();
    parts.request = std::make_shared<TestAsyncRequest>(parts.sync, executors, callback_executor);
    return parts;
}

inline std::shared_ptr<CPUStreamsExecutor> make_streams(const std::string& name, int streams = 1) {
    StreamsConfig config;
    config.name = name;
    config.streams = streams;
    return std::make_shared<CPUStreamsExecutor>(config);
}

}  // namespace vireo::sdk::test
