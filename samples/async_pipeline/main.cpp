// async_pipeline: keeps N infer requests in flight on a device, each callback chaining the next
// inference of its own request until M are done; checks every result against a synchronous
// run, then prints throughput and the per-stage profiling of one request.
#include <gflags/gflags.h>
#include <glog/logging.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "sample_utils.hpp"
#include "vireo/core.hpp"
#include "vireo/infer_request.hpp"
#include "vireo/properties.hpp"

DEFINE_string(m, "", "Required. Path to the model (.xml IR or .onnx).");
DEFINE_string(d, "TEMPLATE", "Device to run on (see hello_query_device).");
DEFINE_uint32(nireq, 4, "Number of infer requests kept in flight.");
DEFINE_uint32(niter, 64, "Total number of inferences to run (chained from the callbacks).");
DEFINE_string(shape, "", "Shapes for dynamic inputs: [1,64] or name[1,64],other[2,3].");
DEFINE_uint32(top, 5, "How many of the slowest ops to list after the stage rows.");
DEFINE_string(plugins_xml, "", "plugins.xml to use instead of the default.");

namespace {

/// What the callbacks share with the main thread.
struct Progress {
    std::mutex mutex;
    std::condition_variable done_cv;
    uint32_t started = 0;
    uint32_t completed = 0;
    uint32_t mismatches = 0;
    uint32_t in_flight = 0;
    std::string error;
};

bool same_bytes(const vireo::Tensor& a, const vireo::Tensor& b) {
    return a.get_shape() == b.get_shape() && a.get_byte_size() == b.get_byte_size() &&
           std::memcmp(a.data(), b.data(), a.get_byte_size()) == 0;
}

std::string stage_line(const vireo::ProfilingInfo& row) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-24s %-12s %-16s %8lld us", row.node_name.c_str(),
                  row.node_type.c_str(), row.exec_type.c_str(),
                  static_cast<long long>(row.real_time.count()));
    return line;
}

int run(int argc, char** argv) {
    gflags::SetUsageMessage(
        "async_pipeline -m model.xml [-d DEVICE] [-nireq N] [-niter M] [-shape ...]");
    if (vireo::samples::show_help_if_asked(argc, argv, "samples/async_pipeline/")) return 0;
    gflags::ParseCommandLineFlags(&argc, &argv, true);
    google::InitGoogleLogging(argv[0]);
    FLAGS_logtostderr = true;
    if (FLAGS_m.empty())
        vireo::throw_error<vireo::InvalidArgument>("-m is required (path to the model .xml)");
    if (FLAGS_nireq == 0 || FLAGS_niter == 0)
        vireo::throw_error<vireo::InvalidArgument>("-nireq and -niter must be at least 1");

    vireo::Core core(FLAGS_plugins_xml);
    auto model = core.read_model(FLAGS_m);
    if (!FLAGS_shape.empty()) {
        std::map<std::string, vireo::PartialShape> shapes;
        for (const auto& [name, shape] : vireo::samples::parse_shape_argument(FLAGS_shape))
            shapes[name.empty() ? model->input().get_any_name() : name] = shape;
        model->reshape(shapes);
    }
    auto compiled = core.compile_model(model, FLAGS_d, {vireo::enable_profiling(true)});
    std::printf("Compiled %s on %s; optimal number of requests: %u\n", model->get_name().c_str(),
                FLAGS_d.c_str(), compiled.get_property(vireo::optimal_number_of_infer_requests));

    // Each request gets its own inputs; its expected outputs come from one synchronous run.
    const uint32_t nireq = std::min(FLAGS_nireq, FLAGS_niter);
    std::vector<vireo::InferRequest> requests(nireq);
    std::vector<std::vector<vireo::Tensor>> expected(nireq);
    for (uint32_t r = 0; r < nireq; ++r) {
        requests[r] = compiled.create_infer_request();
        for (size_t k = 0; k < compiled.inputs().size(); ++k) {
            const auto& port = compiled.inputs()[k];
            if (port.get_partial_shape().is_dynamic())
                vireo::throw_error<vireo::InvalidArgument>(
                    "input '", port.get_any_name(), "' has dynamic shape ",
                    port.get_partial_shape(), "; give it with -shape");
            vireo::Tensor t(port.get_element_type(), port.get_shape());
            vireo::samples::fill_random(t, 1000 * r + k);
            requests[r].set_input_tensor(k, t);
        }
        requests[r].infer();
        for (size_t k = 0; k < compiled.outputs().size(); ++k) {
            const vireo::Tensor out = requests[r].get_output_tensor(k);
            vireo::Tensor copy(out.get_element_type(), out.get_shape());
            out.copy_to(copy);
            expected[r].push_back(copy);
        }
    }

    Progress progress;
    for (uint32_t r = 0; r < nireq; ++r) {
        vireo::InferRequest* request = &requests[r];  // the vector outlives every callback
        request->set_callback([&progress, &expected, request, r](std::exception_ptr error) {
            bool mismatch = false;
            if (!error) {
                for (size_t k = 0; k < expected[r].size(); ++k)
                    mismatch =
                        mismatch || !same_bytes(request->get_output_tensor(k), expected[r][k]);
            }
            std::unique_lock lock(progress.mutex);
            ++progress.completed;
            progress.mismatches += mismatch;
            if (error && progress.error.empty()) {
                try {
                    std::rethrow_exception(error);
                } catch (const std::exception& e) {
                    progress.error = e.what();
                }
            }
            if (progress.error.empty() && progress.started < FLAGS_niter) {
                ++progress.started;
                lock.unlock();
                request->start_async();  // chain the next inference on this request
                return;
            }
            --progress.in_flight;
            if (progress.in_flight == 0) progress.done_cv.notify_all();
        });
    }

    const auto begin = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(progress.mutex);
        progress.started = nireq;
        progress.in_flight = nireq;
    }
    for (auto& request : requests) request.start_async();
    {
        std::unique_lock lock(progress.mutex);
        progress.done_cv.wait(lock, [&] { return progress.in_flight == 0; });
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    for (auto& request : requests) request.wait();  // the last callbacks have returned
    if (!progress.error.empty())
        vireo::throw_error<vireo::Exception>("inference failed: ", progress.error);
    if (progress.mismatches != 0)
        vireo::throw_error<vireo::Exception>(
            progress.mismatches, " of ", progress.completed,
            " asynchronous results differ from the synchronous ones");

    std::printf("Completed %u inferences with %u requests in flight in %.2f ms\n",
                progress.completed, nireq, seconds * 1e3);
    std::printf("Throughput: %.2f FPS\n", progress.completed / seconds);
    std::printf("All results match the synchronous run of the same inputs\n");

    const auto rows = requests[0].get_profiling_info();
    std::printf("Profiling of request 0 (last inference):\n");
    std::vector<vireo::ProfilingInfo> ops;
    for (const auto& row : rows) {
        if (row.node_type == "Stage")
            std::printf("%s\n", stage_line(row).c_str());
        else if (row.status == vireo::ProfilingInfo::Status::EXECUTED)
            ops.push_back(row);
    }
    std::sort(ops.begin(), ops.end(),
              [](const auto& a, const auto& b) { return a.real_time > b.real_time; });
    if (!ops.empty()) std::printf("Slowest ops (of %zu executed):\n", ops.size());
    for (size_t i = 0; i < ops.size() && i < FLAGS_top; ++i)
        std::printf("%s\n", stage_line(ops[i]).c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return vireo::samples::run_main(run, argc, argv);
}
