// Google Benchmark micro-benchmarks of the runtime's per-call costs: sync and async inference of
// the tiny model (y = x + 1 on 10 floats) on TEMPLATE and MOCK_REMOTE, set_tensor, request
// creation, executor dispatch, Core construction with the first plugin load, read_model.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "vireo/core.hpp"
#include "vireo/ir.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/ops.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace {

// The golden models: $VIREO_MODELS_DIR or the source tree's tests/data/models/golden.
std::string golden(const std::string& model) {
    const char* env = std::getenv("VIREO_MODELS_DIR");
    const std::string dir = env && *env ? env : VIREO_GOLDEN_DIR;
    return dir + "/" + model + "/model.xml";
}

// MOCK_REMOTE with every modelled cost at zero (or as small as allowed), so a round trip
// measures the pipeline's own overhead: three stages over two executors plus the device worker.
vireo::AnyMap mock_zero_latency() {
    namespace mr = vireo::mock_remote;
    return {mr::latency_us(0u), mr::bus_latency_us(0u), mr::compile_ms(0u),
            mr::gflops(1e9),    mr::device_gbps(1e9),   mr::bus_gbps(1e9)};
}

vireo::Tensor input_of_tiny() {
    vireo::Tensor x(vireo::element::f32, vireo::Shape{1, 10});
    for (size_t i = 0; i < 10; ++i) x.data<float>()[i] = static_cast<float>(i);
    return x;
}

// The baseline: the arithmetic of the tiny model with no runtime around it.
void BM_BareArithmetic(benchmark::State& state) {
    std::vector<float> x(10), y(10);
    for (size_t i = 0; i < 10; ++i) x[i] = static_cast<float>(i);
    for (auto _ : state) {
        benchmark::DoNotOptimize(x.data());
        for (size_t i = 0; i < 10; ++i) y[i] = x[i] + 1.f;
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_BareArithmetic);

// InferRequest::infer() of the tiny model on TEMPLATE. threads = INFERENCE_NUM_THREADS: 1 runs
// inline on the caller's thread; 0 (the device default: 2 threads on 2 cores) hops to a stream.
void BM_TemplateInferSync(benchmark::State& state) {
    vireo::Core core;
    auto compiled =
        core.compile_model(golden("tiny"), "TEMPLATE",
                           {vireo::inference_num_threads(static_cast<int32_t>(state.range(0)))});
    auto request = compiled.create_infer_request();
    request.set_tensor("x", input_of_tiny());
    request.infer();
    for (auto _ : state) request.infer();
    if (request.get_tensor("y").data<float>()[9] != 10.f) state.SkipWithError("wrong result");
}
BENCHMARK(BM_TemplateInferSync)->ArgName("threads")->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

// start_async() + wait() round trip of the tiny model.
void round_trip(benchmark::State& state, const std::string& device, const vireo::AnyMap& props) {
    vireo::Core core;
    auto compiled = core.compile_model(golden("tiny"), device, props);
    auto request = compiled.create_infer_request();
    request.set_tensor("x", input_of_tiny());
    request.start_async();
    request.wait();
    for (auto _ : state) {
        request.start_async();
        request.wait();
    }
    const vireo::Tensor y = request.get_tensor("y");
    const vireo::Tensor host = y.is_remote() ? y.clone() : y;
    if (host.data<float>()[9] != 10.f) state.SkipWithError("wrong result");
}
void BM_TemplateAsyncRoundTrip(benchmark::State& state) {
    round_trip(state, "TEMPLATE", {vireo::inference_num_threads(1)});
}
BENCHMARK(BM_TemplateAsyncRoundTrip)->Unit(benchmark::kMicrosecond);
void BM_MockRemoteAsyncRoundTrip(benchmark::State& state) {
    round_trip(state, "MOCK_REMOTE.0", mock_zero_latency());
}
BENCHMARK(BM_MockRemoteAsyncRoundTrip)->Unit(benchmark::kMicrosecond);

// set_tensor with a user buffer (wrapped, not copied), the per-call cost of binding.
void BM_SetTensorUserBuffer(benchmark::State& state) {
    vireo::Core core;
    auto compiled =
        core.compile_model(golden("tiny"), "TEMPLATE", {vireo::inference_num_threads(1)});
    auto request = compiled.create_infer_request();
    std::vector<float> buffer(10, 1.f);
    for (auto _ : state) {
        request.set_tensor("x", vireo::Tensor(vireo::element::f32, {1, 10}, buffer.data()));
    }
}
BENCHMARK(BM_SetTensorUserBuffer);

// create_infer_request() (allocates the request's arena and the async wrapper) and its release.
void BM_CreateInferRequest(benchmark::State& state) {
    vireo::Core core;
    const std::string device = state.range(0) == 0 ? "TEMPLATE" : "MOCK_REMOTE.0";
    auto compiled = core.compile_model(golden(state.range(1) == 0 ? "tiny" : "cnn"), device,
                                       state.range(0) == 0 ? vireo::AnyMap{} : mock_zero_latency());
    for (auto _ : state) {
        auto request = compiled.create_infer_request();
        benchmark::DoNotOptimize(request);
    }
    state.SetLabel(device + (state.range(1) == 0 ? " tiny" : " cnn"));
}
BENCHMARK(BM_CreateInferRequest)
    ->ArgNames({"mock", "cnn"})
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Unit(benchmark::kMicrosecond);

// An executor's dispatch: run() of a task that signals back, waited for with an atomic wait;
// the time from run() to the task's start plus one wake-up of the caller.
void dispatch(benchmark::State& state, vireo::sdk::CPUStreamsExecutor& executor) {
    std::atomic<uint64_t> done{0};
    uint64_t expected = 0;
    for (auto _ : state) {
        ++expected;
        executor.run([&done] {
            done.fetch_add(1, std::memory_order_release);
            done.notify_one();
        });
        for (uint64_t seen = done.load(std::memory_order_acquire); seen != expected;
             seen = done.load(std::memory_order_acquire))
            done.wait(seen, std::memory_order_acquire);
    }
}
void BM_DispatchStreamsExecutor(benchmark::State& state) {
    vireo::sdk::CPUStreamsExecutor executor({"BenchStreams", static_cast<int>(state.range(0)), 1});
    dispatch(state, executor);
}
BENCHMARK(BM_DispatchStreamsExecutor)
    ->ArgName("streams")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMicrosecond);
void BM_DispatchWaitExecutor(benchmark::State& state) {
    // Configured as a device instance's wait executor (4 single-thread streams, MOCK_REMOTE's).
    vireo::sdk::CPUStreamsExecutor executor({"BENCH.0/wait", 4, 1});
    dispatch(state, executor);
}
BENCHMARK(BM_DispatchWaitExecutor)->Unit(benchmark::kMicrosecond);

// Core construction (reads plugins.xml) and the first use of TEMPLATE (dlopen, ABI check,
// plugin object); the plugin is unloaded with the Core, so every iteration loads it again.
void BM_CoreFirstPluginLoad(benchmark::State& state) {
    for (auto _ : state) {
        vireo::Core core;
        auto versions = core.get_versions("TEMPLATE");
        benchmark::DoNotOptimize(versions);
    }
}
BENCHMARK(BM_CoreFirstPluginLoad)->Unit(benchmark::kMicrosecond);

// read_model of a small IR: tiny (4 layers) and cnn (about 20 layers, 80 KB of weights).
void BM_ReadModel(benchmark::State& state) {
    const std::string path = golden(state.range(0) == 0 ? "tiny" : "cnn");
    for (auto _ : state) {
        auto model = vireo::read_model(path);
        benchmark::DoNotOptimize(model);
    }
    state.SetLabel(state.range(0) == 0 ? "tiny" : "cnn");
}
BENCHMARK(BM_ReadModel)->ArgName("cnn")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
