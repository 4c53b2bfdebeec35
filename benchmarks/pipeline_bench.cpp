// Google Benchmark of MOCK_REMOTE pipelines with a modelled device latency L: throughput of
// N requests chaining from their callbacks on one instance or on both instances at once, as
// efficiency against the ideal instances / L.
#include <benchmark/benchmark.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "vireo/core.hpp"
#include "vireo/mock_remote/properties.hpp"

namespace {

// Modelled device latency: $VIREO_BENCH_LATENCY_US or 2000 µs.
uint32_t latency_us() {
    const char* env = std::getenv("VIREO_BENCH_LATENCY_US");
    return env && *env ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : 2000u;
}

std::string tiny_model() {
    const char* env = std::getenv("VIREO_MODELS_DIR");
    return std::string(env && *env ? env : VIREO_GOLDEN_DIR) + "/tiny/model.xml";
}

// Requests on one or more compiled models; each callback restarts its request until `total`
// runs have been started, and the last completion wakes run().
class Chain {
  public:
    void add(vireo::InferRequest request) {
        const size_t index = m_requests.size();
        m_requests.push_back(request);
        m_requests.back().set_callback([this, index](std::exception_ptr error) {
            if (error) m_failed.store(true);
            if (m_started.fetch_add(1) < m_total) {
                m_requests[index].start_async();
                return;
            }
            if (m_completed.fetch_add(1) + 1 == m_requests.size()) {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_done = true;
                m_cv.notify_all();
            }
        });
    }

    // Runs `total` inferences (at least one per request); returns false on any error.
    bool run(uint64_t total) {
        m_total = std::max<uint64_t>(total, m_requests.size());
        m_started.store(m_requests.size());
        m_completed.store(0);
        m_done = false;
        for (auto& request : m_requests) request.start_async();
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [this] { return m_done; });
        lock.unlock();
        for (auto& request : m_requests) request.wait();
        return !m_failed.load();
    }

  private:
    std::vector<vireo::InferRequest> m_requests;
    uint64_t m_total = 0;
    std::atomic<uint64_t> m_started{0};
    std::atomic<size_t> m_completed{0};
    std::atomic<bool> m_failed{false};
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_done = false;
};

// Args: instances (1: MOCK_REMOTE.0; 2: .0 and .1), requests per instance.
void BM_MockRemotePipeline(benchmark::State& state) {
    namespace mr = vireo::mock_remote;
    const auto instances = static_cast<int>(state.range(0));
    const auto nireq = static_cast<int>(state.range(1));
    const uint32_t latency = latency_us();
    vireo::Core core;
    std::vector<vireo::CompiledModel> compiled;
    Chain chain;
    for (int d = 0; d < instances; ++d) {
        compiled.push_back(core.compile_model(tiny_model(), "MOCK_REMOTE." + std::to_string(d),
                                              {mr::latency_us(latency), mr::compile_ms(0u)}));
        for (int r = 0; r < nireq; ++r) chain.add(compiled.back().create_infer_request());
    }
    // Per iteration: 50 device latencies' worth of work per instance (0.1 s at 2 ms).
    const uint64_t per_iteration = 50u * static_cast<uint64_t>(instances);
    if (!chain.run(static_cast<uint64_t>(instances * nireq))) state.SkipWithError("warm-up failed");
    for (auto _ : state) {
        if (!chain.run(per_iteration)) state.SkipWithError("an inference failed");
    }
    const double items =
        static_cast<double>(per_iteration) * static_cast<double>(state.iterations());
    state.SetItemsProcessed(static_cast<int64_t>(items));
    state.counters["fps"] = benchmark::Counter(items, benchmark::Counter::kIsRate);
    // Ideal: every instance busy all the time, one inference per L.
    state.counters["efficiency"] =
        benchmark::Counter(items * latency * 1e-6 / instances, benchmark::Counter::kIsRate);
    state.counters["latency_us"] = latency;
}
BENCHMARK(BM_MockRemotePipeline)
    ->ArgNames({"instances", "nireq"})
    ->ArgsProduct({{1, 2}, {1, 2, 4, 8, 16}})
    ->Iterations(5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
