// benchmark_app: measures latency and throughput of a model on a device, in the manner of
// OpenVINO's benchmark_app (sync or async API, N requests in flight, JSON report, trace file).
#include <gflags/gflags.h>
#include <glog/logging.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>

#include "sample_utils.hpp"
#include "statistics.hpp"
#include "trace_writer.hpp"
#include "vireo/core.hpp"
#include "vireo/infer_request.hpp"

DEFINE_string(m, "", "Required. Path to the model (.xml IR or .onnx).");
DEFINE_string(d, "TEMPLATE", "Device to run on: TEMPLATE, MOCK_REMOTE.0, ... (see hello_query_device).");
DEFINE_string(api, "async", "API to measure: sync (one request, infer()) or async (start_async with callbacks).");
DEFINE_uint32(nireq, 0, "Infer requests in flight (async). 0: the compiled model's optimal number.");
DEFINE_uint64(niter, 0, "Number of iterations. With -t as well, runs until both are reached.");
DEFINE_double(t, 0, "Duration in seconds. Default when neither -niter nor -t is given: 10 s.");
DEFINE_string(hint, "throughput", "Performance hint: throughput, latency or none.");
DEFINE_int32(nstreams, 0, "Number of streams (needs -hint none to take effect over the hint; 0: device default).");
DEFINE_int32(nthreads, 0, "Threads for inference (0: device default).");
DEFINE_string(shape, "", "Input shapes to reshape the model to (any input, static or dynamic): [1,3,224,224] or name[1,3,224,224],other[1,10].");
DEFINE_bool(pc, false, "Report per-op performance counters of one request (enables profiling).");
DEFINE_string(cache_dir, "", "Model cache directory (compiled blobs are stored and reused).");
DEFINE_string(json_report, "", "Write the results as JSON to this file.");
DEFINE_string(trace, "", "Write a Chrome trace event file (chrome://tracing, Perfetto) of the pipeline stages.");
DEFINE_string(plugins_xml, "", "plugins.xml to use instead of the default.");

namespace {

using Clock = std::chrono::steady_clock;
using vireo::benchmark::LatencyStatistics;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void step(int n, const char* what) { std::printf("[Step %d/11] %s\n", n, what); }

// Runs async requests until the stop condition; each callback records its latency and starts
// its request again (chaining), so every request stays busy.
struct AsyncRun {
    std::mutex mutex;
    std::condition_variable idle;
    std::vector<double> latencies;
    std::vector<Clock::time_point> started;
    std::atomic<uint64_t> launched{0};
    size_t in_flight = 0;
    std::exception_ptr error;
};

std::string json_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

int run(int argc, char** argv) {
    gflags::SetUsageMessage("benchmark_app -m model.xml [-d DEVICE] [-api sync|async] [-nireq N] [-niter N] [-t S] ...");
    if (vireo::samples::show_help_if_asked(argc, argv, "samples/benchmark_app/")) return 0;
    gflags::ParseCommandLineFlags(&argc, &argv, true);
    google::InitGoogleLogging(argv[0]);
    FLAGS_logtostderr = true;

    step(1, "Parsing and validating input arguments");
    if (FLAGS_m.empty()) vireo::throw_error<vireo::InvalidArgument>("-m is required (path to the model .xml)");
    if (FLAGS_api != "sync" && FLAGS_api != "async")
        vireo::throw_error<vireo::InvalidArgument>("-api must be sync or async, got '", FLAGS_api, "'");
    if (FLAGS_hint != "throughput" && FLAGS_hint != "tput" && FLAGS_hint != "latency" && FLAGS_hint != "none")
        vireo::throw_error<vireo::InvalidArgument>("-hint must be throughput, latency or none, got '", FLAGS_hint, "'");
    const auto shapes = FLAGS_shape.empty() ? std::map<std::string, vireo::PartialShape>{}
                                            : vireo::samples::parse_shape_argument(FLAGS_shape);
    const double seconds = FLAGS_niter == 0 && FLAGS_t == 0 ? 10.0 : FLAGS_t;

    step(2, "Loading the runtime");
    vireo::Core core(FLAGS_plugins_xml);
    for (const auto& [device, version] : core.get_versions(FLAGS_d))
        std::printf("       %s: %s %s\n", device.c_str(), version.description.c_str(), version.build_number.c_str());

    step(3, "Setting device configuration");
    vireo::AnyMap config;
    if (FLAGS_hint == "latency") config.insert(vireo::hint::performance_mode(vireo::hint::PerformanceMode::LATENCY));
    if (FLAGS_hint == "throughput" || FLAGS_hint == "tput")
        config.insert(vireo::hint::performance_mode(vireo::hint::PerformanceMode::THROUGHPUT));
    if (FLAGS_nstreams > 0) config.insert(vireo::num_streams(FLAGS_nstreams));
    if (FLAGS_nthreads > 0) config.insert(vireo::inference_num_threads(FLAGS_nthreads));
    if (FLAGS_pc) config.insert(vireo::enable_profiling(true));
    if (!FLAGS_cache_dir.empty()) core.set_property({vireo::cache_dir(FLAGS_cache_dir)});

    step(4, "Reading the model");
    auto start = Clock::now();
    auto model = core.read_model(FLAGS_m);
    std::printf("       Read model took %.2f ms\n", ms_since(start));

    step(5, "Resizing the model to match the input shapes");
    if (!shapes.empty()) {
        std::map<std::string, vireo::PartialShape> by_name;
        for (const auto& [name, shape] : shapes) by_name[name.empty() ? model->input().get_any_name() : name] = shape;
        model->reshape(by_name);
    }
    for (const auto& in : model->inputs()) {
        if (in.get_partial_shape().is_dynamic())
            vireo::throw_error<vireo::InvalidArgument>("input '", in.get_any_name(), "' has dynamic shape ",
                                                       in.get_partial_shape(), "; give it with -shape");
    }

    step(6, "Configuring the model's inputs (nothing to do)");
    step(7, "Compiling the model");
    start = Clock::now();
    vireo::CompiledModel compiled = core.compile_model(model, FLAGS_d, config);
    const double compile_ms = ms_since(start);
    std::printf("       Compile model took %.2f ms\n", compile_ms);

    step(8, "Querying the compiled model's properties");
    uint32_t nireq = FLAGS_nireq;
    if (nireq == 0) nireq = FLAGS_api == "sync" ? 1 : std::max(1u, compiled.get_property(vireo::optimal_number_of_infer_requests));
    if (FLAGS_api == "sync") nireq = 1;
    std::vector<std::pair<std::string, std::string>> properties;
    for (const auto& key : compiled.get_property(vireo::supported_properties)) {
        if (key == vireo::supported_properties.name()) continue;
        try {
            properties.emplace_back(key, compiled.get_property(key).as<std::string>());
        } catch (const std::exception&) {
        }
    }
    for (const auto& [k, v] : properties) std::printf("       %s: %s\n", k.c_str(), v.c_str());

    step(9, "Creating infer requests and filling input data");
    std::vector<vireo::InferRequest> requests;
    for (uint32_t i = 0; i < nireq; ++i) {
        requests.push_back(compiled.create_infer_request());
        for (size_t k = 0; k < compiled.inputs().size(); ++k) {
            vireo::Tensor t = requests.back().get_input_tensor(k);
            vireo::samples::fill_random(t, 1000 * i + k);
        }
    }
    std::printf("       %u request(s), api %s\n", nireq, FLAGS_api.c_str());

    step(10, "Measuring performance");
    start = Clock::now();
    requests[0].infer();
    const double first_ms = ms_since(start);
    std::printf("       First inference took %.2f ms\n", first_ms);

    std::unique_ptr<vireo::benchmark::TraceWriter> tracer;
    if (!FLAGS_trace.empty()) {
        tracer = std::make_unique<vireo::benchmark::TraceWriter>();
        for (size_t i = 0; i < requests.size(); ++i) tracer->set_request_index(requests[i].impl().get(), i);
    }
    const bool progress = isatty(STDOUT_FILENO) && (seconds >= 5 || FLAGS_niter >= 1000);
    auto done = [&](uint64_t count, Clock::time_point t0) {
        const bool iters_ok = FLAGS_niter == 0 || count >= FLAGS_niter;
        const bool time_ok = seconds == 0 || ms_since(t0) >= seconds * 1000.0;
        return iters_ok && time_ok;
    };
    std::vector<double> latencies;
    const Clock::time_point bench_start = Clock::now();
    if (FLAGS_api == "sync") {
        uint64_t count = 0;
        while (!done(count, bench_start)) {
            const auto t0 = Clock::now();
            requests[0].infer();
            latencies.push_back(ms_since(t0));
            ++count;
            if (progress && count % 100 == 0) std::printf("\r       %.1f s", ms_since(bench_start) / 1000.0), std::fflush(stdout);
        }
    } else {
        AsyncRun state;
        state.started.resize(requests.size());
        for (size_t i = 0; i < requests.size(); ++i) {
            requests[i].set_callback([&, i](std::exception_ptr error) {
                std::unique_lock<std::mutex> lock(state.mutex);
                state.latencies.push_back(ms_since(state.started[i]));
                if (error && !state.error) state.error = error;
                if (!state.error && !done(state.launched.load(), bench_start)) {
                    ++state.launched;
                    state.started[i] = Clock::now();
                    lock.unlock();
                    try {
                        requests[i].start_async();
                        return;
                    } catch (...) {
                        lock.lock();
                        state.error = std::current_exception();
                    }
                }
                if (!lock.owns_lock()) lock.lock();
                --state.in_flight;
                state.idle.notify_all();
            });
        }
        {
            std::lock_guard<std::mutex> lock(state.mutex);
            state.in_flight = requests.size();
            for (size_t i = 0; i < requests.size(); ++i) state.started[i] = Clock::now();
            state.launched = requests.size();
        }
        for (auto& r : requests) r.start_async();
        std::unique_lock<std::mutex> lock(state.mutex);
        while (!state.idle.wait_for(lock, std::chrono::milliseconds(500), [&] { return state.in_flight == 0; })) {
            if (progress) std::printf("\r       %.1f s, %zu done", ms_since(bench_start) / 1000.0, state.latencies.size()), std::fflush(stdout);
        }
        latencies = state.latencies;
        lock.unlock();
        for (auto& r : requests) r.wait();  // the completions are over; rethrows a request's error
        if (state.error) std::rethrow_exception(state.error);
    }
    const double duration_ms = ms_since(bench_start);
    if (progress) std::printf("\n");

    step(11, "Dumping statistics report");
    if (FLAGS_pc) {
        std::printf("Performance counters of request 0:\n");
        for (const auto& row : requests[0].get_profiling_info())
            std::printf("  %-40s %-20s %-10s realTime (ms): %.3f  cpuTime (ms): %.3f\n", row.node_name.c_str(),
                        row.node_type.c_str(), row.exec_type.c_str(), row.real_time.count() / 1000.0,
                        row.cpu_time.count() / 1000.0);
    }
    const auto stats = LatencyStatistics::from(latencies);
    const double fps = stats.count / (duration_ms / 1000.0);
    std::printf("Count:               %zu iterations\n", stats.count);
    std::printf("Duration:            %.2f ms\n", duration_ms);
    std::printf("Latency:\n");
    std::printf("   Median:           %.2f ms\n", stats.median);
    std::printf("   Average:          %.2f ms\n", stats.average);
    std::printf("   Min:              %.2f ms\n", stats.min);
    std::printf("   Max:              %.2f ms\n", stats.max);
    std::printf("   p90:              %.2f ms\n", stats.p90);
    std::printf("   p99:              %.2f ms\n", stats.p99);
    std::printf("Throughput:          %.2f FPS\n", fps);

    if (tracer) {
        tracer->write(FLAGS_trace);
        std::printf("Trace with %zu stage spans written to %s\n", tracer->event_count(), FLAGS_trace.c_str());
        tracer.reset();
    }
    if (!FLAGS_json_report.empty()) {
        std::ofstream out(FLAGS_json_report);
        if (!out) vireo::throw_error<vireo::NotFound>("cannot create JSON report '", FLAGS_json_report, "'");
        out << "{\n  \"model\": \"" << json_escape(FLAGS_m) << "\",\n  \"device\": \"" << json_escape(FLAGS_d)
            << "\",\n  \"api\": \"" << FLAGS_api << "\",\n  \"hint\": \"" << FLAGS_hint << "\",\n  \"nireq\": " << nireq
            << ",\n  \"compile_ms\": " << compile_ms << ",\n  \"first_inference_ms\": " << first_ms
            << ",\n  \"count\": " << stats.count << ",\n  \"duration_ms\": " << duration_ms
            << ",\n  \"throughput_fps\": " << fps << ",\n  \"latency_ms\": {\"median\": " << stats.median
            << ", \"average\": " << stats.average << ", \"min\": " << stats.min << ", \"max\": " << stats.max
            << ", \"p90\": " << stats.p90 << ", \"p99\": " << stats.p99 << "},\n  \"properties\": {";
        for (size_t i = 0; i < properties.size(); ++i)
            out << (i ? ", " : "") << "\"" << json_escape(properties[i].first) << "\": \""
                << json_escape(properties[i].second) << "\"";
        out << "}\n}\n";
        out.close();  // a full device shows only when the buffer is flushed
        if (!out)
            vireo::throw_error<vireo::Exception>("failed writing JSON report '", FLAGS_json_report,
                                                 "': ", std::strerror(errno));
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) { return vireo::samples::run_main(run, argc, argv); }
