// benchmark_app: measures latency and throughput of a model on a device, in the manner of
// OpenVINO's benchmark_app (sync or async API, N requests in flight, input files, batch, config
// files, per-op counters, JSON and CSV reports, runtime graph, trace file). docs/samples.md lists
// every flag.
#include <gflags/gflags.h>
#include <glog/logging.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>

#include "inputs.hpp"
#include "reports.hpp"
#include "sample_utils.hpp"
#include "statistics.hpp"
#include "trace_writer.hpp"
#include "vireo/core.hpp"
#include "vireo/infer_request.hpp"
#include "vireo/ir.hpp"

DEFINE_string(m, "", "Required. Path to the model (.xml IR or .onnx).");
DEFINE_string(d, "TEMPLATE",
              "Device to run on: TEMPLATE, MOCK_REMOTE.0, ... (see hello_query_device).");
DEFINE_string(
    i, "",
    "Input data from .npy files: file.npy, a folder of .npy files, or name:file.npy,other:dir "
    "(comma-separated, or repeated: -i a:x.npy -i b:y.npy; requests take the files in turn). "
    "Without -i: random data. With -i every input needs data unless -random_inputs is given.");
DEFINE_bool(random_inputs, false,
            "With -i: fill the inputs -i gives no file for with random data (without it, an "
            "input left without data is an error).");
DEFINE_string(api, "async",
              "API to measure: sync (one request, infer()) or async (start_async with callbacks).");
DEFINE_uint32(nireq, 0,
              "Infer requests in flight (async). 0: the compiled model's optimal number.");
DEFINE_uint64(niter, 0, "Number of iterations. With -t as well, runs until both are reached.");
DEFINE_double(t, 0, "Duration in seconds. Default when neither -niter nor -t is given: 10 s.");
DEFINE_string(hint, "throughput", "Performance hint: throughput, latency or none.");
DEFINE_int32(
    nstreams, 0,
    "Number of streams (needs -hint none to take effect over the hint; 0: device default).");
DEFINE_int32(nthreads, 0, "Threads for inference (0: device default).");
DEFINE_string(infer_precision, "",
              "Inference precision hint (INFERENCE_PRECISION_HINT), e.g. f32 or bf16 (default: the "
              "device's).");
DEFINE_string(shape, "",
              "Input shapes to reshape the model to (any input, static or dynamic): [1,3,224,224] "
              "or name[1,3,224,224],other[1,10].");
DEFINE_string(data_shape, "",
              "Shapes of the input tensors for a model that stays dynamic: [1,3,224,224] or "
              "name[1,3,224,224],other[1,10].");
DEFINE_int64(b, 0,
             "Batch size: sets dimension N of every input (from -layout; else the first "
             "dimension). 0: the model's.");
DEFINE_string(layout, "", "Input layouts, for -b: [NCHW] or name[NCHW],other[NC].");
DEFINE_bool(pc, false, "Report per-op performance counters of one request (enables profiling).");
DEFINE_bool(pc_summary, false,
            "Report one request's time per op type and per implementation (oneDNN kernel, "
            "reference kernel, view) and the share spent in reorders (enables profiling).");
DEFINE_string(pcsort, "",
              "Report counters with each op's share of the total: sort (by time), no_sort (model "
              "order) or simple_sort (executed ops only). Implies -pc.");
DEFINE_uint32(latency_percentile, 50,
              "Latency percentile to report as the latency (1..100; 50: the median).");
DEFINE_bool(inference_only, true,
            "Measure inference only. false: setting the next input data is part of each iteration "
            "(with -i, iterations cycle through the files).");
DEFINE_string(cache_dir, "", "Model cache directory (compiled blobs are stored and reused).");
DEFINE_string(load_config, "",
              "JSON file of device properties: {\"DEVICE\": {\"KEY\": \"VALUE\"}}. Command-line "
              "flags given explicitly override it.");
DEFINE_string(dump_config, "",
              "Write the device properties used to this JSON file (readable by -load_config).");
DEFINE_string(exec_graph_path, "",
              "Write the compiled model's runtime graph as IR (file.xml, with file.bin).");
DEFINE_string(json_report, "",
              "Write the results, the command line and the configuration as JSON to this file.");
DEFINE_string(
    report_type, "",
    "CSV reports as OpenVINO writes them: no_counters, average_counters or detailed_counters.");
DEFINE_string(report_folder, "",
              "Folder for the -report_type files (default: the current directory).");
DEFINE_string(
    trace, "",
    "Write a Chrome trace event file (chrome://tracing, Perfetto) of the pipeline stages.");
DEFINE_string(plugins_xml, "", "plugins.xml to use instead of the default.");
DEFINE_string(
    extensions, "",
    "Extension libraries with custom ops to load first (comma-separated; Core::add_extension).");

namespace {

using Clock = std::chrono::steady_clock;
using vireo::benchmark::LatencyStatistics;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void step(int n, const char* what) {
    std::printf("[Step %d/11] %s\n", n, what);
}

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

bool given(const char* flag) {
    return !gflags::GetCommandLineFlagInfoOrDie(flag).is_default;
}

// The flags of this program the user set, in their declared order, for the reports.
std::vector<std::pair<std::string, std::string>> command_line() {
    std::vector<gflags::CommandLineFlagInfo> flags;
    gflags::GetAllFlags(&flags);
    std::vector<std::pair<std::string, std::string>> set;
    for (const auto& flag : flags) {
        if (!flag.is_default && flag.filename.find("benchmark_app/main.cpp") != std::string::npos)
            set.emplace_back("-" + flag.name, flag.current_value);
    }
    return set;
}

std::string xml_to_bin(const std::string& xml) {
    const size_t dot = xml.rfind('.');
    const size_t slash = xml.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        return xml + ".bin";
    return xml.substr(0, dot) + ".bin";
}

int run(int argc, char** argv) {
    gflags::SetUsageMessage(
        "benchmark_app -m model.xml|model.onnx [-d DEVICE] [-i inputs] [-api sync|async] [-nireq "
        "N] "
        "[-niter N] [-t S] [-hint H] [-b N] [-shape S] [-data_shape S] [-pc] [-pc_summary] "
        "[-report_type T] ...");
    if (vireo::samples::show_help_if_asked(argc, argv, "samples/benchmark_app/")) return 0;
    const std::string inputs_text = vireo::samples::repeated_flag_values(argc, argv, "i");
    gflags::ParseCommandLineFlags(&argc, &argv, true);
    FLAGS_i = inputs_text;  // every -i, not only the last
    google::InitGoogleLogging(argv[0]);
    FLAGS_logtostderr = true;
    using vireo::InvalidArgument;
    using vireo::throw_error;

    step(1, "Parsing and validating input arguments");
    if (FLAGS_m.empty())
        throw_error<InvalidArgument>("-m is required (path to the model .xml or .onnx)");
    if (FLAGS_api != "sync" && FLAGS_api != "async")
        throw_error<InvalidArgument>("-api must be sync or async, got '", FLAGS_api, "'");
    if (FLAGS_hint != "throughput" && FLAGS_hint != "tput" && FLAGS_hint != "latency" &&
        FLAGS_hint != "none")
        throw_error<InvalidArgument>("-hint must be throughput, latency or none, got '", FLAGS_hint,
                                     "'");
    if (FLAGS_latency_percentile < 1 || FLAGS_latency_percentile > 100)
        throw_error<InvalidArgument>("-latency_percentile must be in 1..100, got ",
                                     FLAGS_latency_percentile);
    if (given("b") && FLAGS_b <= 0)
        throw_error<InvalidArgument>("-b must be positive, got ", FLAGS_b);
    const auto counter_sort = vireo::benchmark::parse_counter_sort(FLAGS_pcsort);
    if (!FLAGS_report_type.empty() && FLAGS_report_type != "no_counters" &&
        FLAGS_report_type != "average_counters" && FLAGS_report_type != "detailed_counters")
        throw_error<InvalidArgument>(
            "-report_type must be no_counters, average_counters or detailed_counters, got '",
            FLAGS_report_type, "'");
    const bool print_counters = FLAGS_pc || counter_sort != vireo::benchmark::CounterSort::kNone;
    const bool print_summary = FLAGS_pc_summary;
    const bool counters_in_report =
        FLAGS_report_type == "average_counters" || FLAGS_report_type == "detailed_counters";
    const auto shapes = FLAGS_shape.empty() ? std::map<std::string, vireo::PartialShape>{}
                                            : vireo::samples::parse_shape_argument(FLAGS_shape);
    const auto data_shapes = FLAGS_data_shape.empty()
                                 ? std::map<std::string, vireo::PartialShape>{}
                                 : vireo::samples::parse_shape_argument(FLAGS_data_shape);
    const auto layouts = vireo::benchmark::parse_layout_argument(FLAGS_layout);
    const double seconds = FLAGS_niter == 0 && FLAGS_t == 0 ? 10.0 : FLAGS_t;
    vireo::benchmark::DeviceConfigs file_configs;
    if (!FLAGS_load_config.empty())
        file_configs = vireo::benchmark::load_config_file(FLAGS_load_config);

    step(2, "Loading the runtime");
    vireo::Core core(FLAGS_plugins_xml);
    for (size_t begin = 0; begin < FLAGS_extensions.size();) {
        const size_t comma = std::min(FLAGS_extensions.find(',', begin), FLAGS_extensions.size());
        if (comma > begin) core.add_extension(FLAGS_extensions.substr(begin, comma - begin));
        begin = comma + 1;
    }
    for (const auto& [device, version] : core.get_versions(FLAGS_d))
        std::printf("       %s: %s %s\n", device.c_str(), version.description.c_str(),
                    version.build_number.c_str());

    step(3, "Setting device configuration");
    // The file's properties for -d go to compile_model with the flags; explicitly given flags
    // win. Properties for other devices are set on the core (devices a meta-device may use).
    vireo::AnyMap config;
    for (const auto& [device, properties] : file_configs) {
        vireo::AnyMap values;
        for (const auto& [key, value] : properties) values.emplace(key, value);
        if (device == FLAGS_d)
            config = values;
        else
            core.set_property(device, values);
    }
    const std::string hint_key = vireo::hint::performance_mode.name();
    if (given("hint") || !config.count(hint_key)) {
        config.erase(hint_key);
        if (FLAGS_hint == "latency")
            config.insert(vireo::hint::performance_mode(vireo::hint::PerformanceMode::LATENCY));
        if (FLAGS_hint == "throughput" || FLAGS_hint == "tput")
            config.insert(vireo::hint::performance_mode(vireo::hint::PerformanceMode::THROUGHPUT));
    }
    if (FLAGS_nstreams > 0)
        config.insert_or_assign(vireo::num_streams.name(), vireo::Any(FLAGS_nstreams));
    if (FLAGS_nthreads > 0)
        config.insert_or_assign(vireo::inference_num_threads.name(), vireo::Any(FLAGS_nthreads));
    if (!FLAGS_infer_precision.empty())
        config.insert_or_assign(vireo::hint::inference_precision.name(),
                                vireo::Any(FLAGS_infer_precision));
    if (print_counters || print_summary || counters_in_report)
        config.insert_or_assign(vireo::enable_profiling.name(), vireo::Any(true));
    if (!FLAGS_cache_dir.empty()) core.set_property({vireo::cache_dir(FLAGS_cache_dir)});
    vireo::benchmark::RunSummary summary;
    for (const auto& [key, value] : config) summary.config[key] = value.as<std::string>();

    step(4, "Reading the model");
    auto start = Clock::now();
    auto model = core.read_model(FLAGS_m);
    summary.read_ms = ms_since(start);
    std::printf("       Read model took %.2f ms\n", summary.read_ms);

    step(5, "Resizing the model to match the input shapes and batch");
    if (!shapes.empty()) {
        std::map<std::string, vireo::PartialShape> by_name;
        for (const auto& [name, shape] : shapes)
            by_name[name.empty() ? model->input().get_any_name() : name] = shape;
        model->reshape(by_name);
    }
    if (FLAGS_b > 0) vireo::benchmark::set_batch(*model, FLAGS_b, layouts);
    for (const auto& in : model->inputs())
        std::printf("       input '%s': %s %s\n", in.get_any_name().c_str(),
                    std::string(in.get_element_type().name()).c_str(),
                    in.get_partial_shape().to_string().c_str());

    step(6, "Reading the input data");
    vireo::benchmark::InputData input_data;
    if (!FLAGS_i.empty()) {
        input_data = vireo::benchmark::load_input_data(FLAGS_i, *model, FLAGS_random_inputs);
        for (size_t k = 0; k < input_data.size(); ++k) {
            if (input_data[k].empty())
                std::printf("       input '%s': random data (-random_inputs)\n",
                            model->input(k).get_any_name().c_str());
            else
                std::printf("       input '%s': %zu file(s)\n",
                            model->input(k).get_any_name().c_str(), input_data[k].size());
        }
    } else {
        std::printf("       random data\n");
    }

    step(7, "Compiling the model");
    start = Clock::now();
    vireo::CompiledModel compiled = core.compile_model(model, FLAGS_d, config);
    summary.compile_ms = ms_since(start);
    std::printf("       Compile model took %.2f ms\n", summary.compile_ms);
    if (!FLAGS_exec_graph_path.empty()) {
        vireo::serialize(*compiled.get_runtime_model(), FLAGS_exec_graph_path,
                         xml_to_bin(FLAGS_exec_graph_path));
        std::printf("       Runtime graph written to %s\n", FLAGS_exec_graph_path.c_str());
    }
    if (!FLAGS_dump_config.empty()) {
        vireo::benchmark::dump_config_file(FLAGS_dump_config, {{FLAGS_d, summary.config}});
        std::printf("       Configuration written to %s\n", FLAGS_dump_config.c_str());
    }

    step(8, "Querying the compiled model's properties");
    uint32_t nireq = FLAGS_nireq;
    if (nireq == 0)
        nireq = FLAGS_api == "sync"
                    ? 1
                    : std::max(1u, compiled.get_property(vireo::optimal_number_of_infer_requests));
    if (FLAGS_api == "sync") nireq = 1;
    for (const auto& key : compiled.get_property(vireo::supported_properties)) {
        if (key == vireo::supported_properties.name()) continue;
        try {
            summary.properties.emplace_back(key, compiled.get_property(key).as<std::string>());
        } catch (const std::exception&) {
        }
    }
    for (const auto& [k, v] : summary.properties)
        std::printf("       %s: %s\n", k.c_str(), v.c_str());

    step(9, "Creating infer requests and filling input data");
    std::vector<vireo::InferRequest> requests;
    for (uint32_t i = 0; i < nireq; ++i) {
        requests.push_back(compiled.create_infer_request());
        vireo::benchmark::fill_request_inputs(requests.back(), compiled, input_data, data_shapes,
                                              i);
    }
    std::printf("       %u request(s), api %s%s\n", nireq, FLAGS_api.c_str(),
                FLAGS_inference_only ? "" : ", input setting measured");

    step(10, "Measuring performance");
    start = Clock::now();
    requests[0].infer();
    summary.first_ms = ms_since(start);
    std::printf("       First inference took %.2f ms\n", summary.first_ms);

    std::unique_ptr<vireo::benchmark::TraceWriter> tracer;
    if (!FLAGS_trace.empty()) {
        tracer = std::make_unique<vireo::benchmark::TraceWriter>();
        for (size_t i = 0; i < requests.size(); ++i)
            tracer->set_request_index(requests[i].impl().get(), i);
    }
    // A progress line on a terminal, for runs long enough to want one.
    const bool progress = isatty(STDOUT_FILENO) && (seconds >= 2 || FLAGS_niter >= 1000);
    auto done = [&](uint64_t count, Clock::time_point t0) {
        const bool iters_ok = FLAGS_niter == 0 || count >= FLAGS_niter;
        const bool time_ok = seconds == 0 || ms_since(t0) >= seconds * 1000.0;
        return iters_ok && time_ok;
    };
    // With -inference_only false each iteration first sets its input data (the next files).
    auto next_inputs = [&](vireo::InferRequest& request, uint64_t iteration) {
        if (!FLAGS_inference_only)
            vireo::benchmark::fill_request_inputs(request, compiled, input_data, data_shapes,
                                                  iteration);
    };
    std::vector<double> latencies;
    const Clock::time_point bench_start = Clock::now();
    if (FLAGS_api == "sync") {
        uint64_t count = 0;
        while (!done(count, bench_start)) {
            const auto t0 = Clock::now();
            next_inputs(requests[0], count);
            requests[0].infer();
            latencies.push_back(ms_since(t0));
            ++count;
            if (progress && count % 100 == 0)
                std::printf("\r       %.1f s, %" PRIu64 " done", ms_since(bench_start) / 1000.0,
                            count),
                    std::fflush(stdout);
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
                    const uint64_t iteration = state.launched++;
                    state.started[i] = Clock::now();
                    lock.unlock();
                    try {
                        next_inputs(requests[i], iteration);
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
        while (!state.idle.wait_for(lock, std::chrono::milliseconds(500),
                                    [&] { return state.in_flight == 0; })) {
            if (progress)
                std::printf("\r       %.1f s, %zu done", ms_since(bench_start) / 1000.0,
                            state.latencies.size()),
                    std::fflush(stdout);
        }
        latencies = state.latencies;
        lock.unlock();
        for (auto& r : requests) r.wait();  // the completions are over; rethrows a request's error
        if (state.error) std::rethrow_exception(state.error);
    }
    summary.duration_ms = ms_since(bench_start);
    if (progress) std::printf("\n");

    step(11, "Dumping statistics report");
    std::vector<std::vector<vireo::ProfilingInfo>> counters;
    if (print_counters || print_summary || counters_in_report) {
        for (auto& request : requests) counters.push_back(request.get_profiling_info());
    }
    if (print_counters) {
        std::printf("Performance counters of request 0:\n");
        vireo::benchmark::print_counters(counters[0], counter_sort);
    }
    if (print_summary) {
        std::printf("Where the time of request 0 went:\n");
        vireo::benchmark::print_counter_summary(counters[0]);
    }
    const auto& stats = summary.latency =
        LatencyStatistics::from(latencies, static_cast<int>(FLAGS_latency_percentile));
    summary.fps = stats.count / (summary.duration_ms / 1000.0);
    std::printf("Count:               %zu iterations\n", stats.count);
    std::printf("Duration:            %.2f ms\n", summary.duration_ms);
    std::printf("Latency:\n");
    std::printf("   Median:           %.2f ms\n", stats.median);
    std::printf("   Average:          %.2f ms\n", stats.average);
    std::printf("   Min:              %.2f ms\n", stats.min);
    std::printf("   Max:              %.2f ms\n", stats.max);
    std::printf("   p90:              %.2f ms\n", stats.p90);
    std::printf("   p99:              %.2f ms\n", stats.p99);
    if (stats.percentile != 50 && stats.percentile != 90 && stats.percentile != 99)
        std::printf("   %-18s%.2f ms\n", ("p" + std::to_string(stats.percentile) + ":").c_str(),
                    stats.at_percentile);
    std::printf("Throughput:          %.2f FPS\n", summary.fps);

    if (tracer) {
        tracer->write(FLAGS_trace);
        std::printf("Trace with %zu stage spans written to %s\n", tracer->event_count(),
                    FLAGS_trace.c_str());
        tracer.reset();
    }
    summary.command_line = command_line();
    summary.model = FLAGS_m;
    summary.device = FLAGS_d;
    summary.api = FLAGS_api;
    summary.hint = config.count(hint_key) ? config.at(hint_key).as<std::string>() : "none";
    summary.nireq = nireq;
    if (!FLAGS_json_report.empty()) vireo::benchmark::write_json_report(FLAGS_json_report, summary);
    if (!FLAGS_report_type.empty()) {
        for (const auto& file : vireo::benchmark::write_csv_reports(
                 FLAGS_report_folder, FLAGS_report_type, summary, counters))
            std::printf("Report written to %s\n", file.c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return vireo::samples::run_main(run, argc, argv);
}
