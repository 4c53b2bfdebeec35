// A Loop whose scan output grows without end (issue 35: a trip count of 2^62 grew to hundreds of
// MB and then blamed "4 bytes for shape [1,1]"): the runners stop it once the scan outputs hold
// a quarter of the memory the process may use, naming the Loop. The memory limit is the tighter of
// physical memory and `ulimit -d` (also issue 35: limits other than physical memory were
// ignored), so the test runs itself again in a child process with a 2 GiB data limit: the Loop
// must stop near 512 MiB instead of exhausting the machine.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "hostile_util.hpp"
#include "vireo/ops.hpp"
#include "vireo/sdk/memory_limits.hpp"

namespace vireo::hostile {
namespace {

constexpr const char* kChildDevice = "VIREO_LOOP_GROWTH_DEVICE";
constexpr rlim_t kDataLimit = rlim_t{2} << 30;

// acc -> (acc, acc): the back edge keeps a 1 MiB value, the scan output concatenates it every
// iteration; the trip count (input "trip") is a run-time value.
std::shared_ptr<Model> growing_loop() {
    auto trip = op::parameter(element::i64, PartialShape{}, "trip");
    auto init = op::parameter(element::f32, PartialShape{1, 262144}, "init");
    auto acc = op::parameter(element::f32, PartialShape{1, 262144}, "acc");
    auto body = std::make_shared<Model>(OutputVector{acc, acc}, ParameterVector{acc}, "body");
    op::LoopPorts ports;
    ports.back_edges = {0};
    ports.output_slicing = {-1, 0, 1, -1, 1, 0, 0, 1, -1, 1};
    auto loop = op::loop(trip, op::constant<int>(element::boolean, {}, {1}), {init}, body, ports);
    return std::make_shared<Model>(OutputVector{loop->output(1)}, ParameterVector{trip, init},
                                   "growing_loop");
}

// Run only as the child below (DISABLED_: never by a plain run of the suite).
TEST(LoopGrowth, DISABLED_ChildStopsNearAQuarterOfTheDataLimit) {
    const char* device = std::getenv(kChildDevice);
    ASSERT_NE(device, nullptr) << "run by LoopGrowth.ScanOutputsStopAtAQuarterOfTheMemoryLimit";
    ASSERT_LE(sdk::physical_memory_bytes(), kDataLimit);  // the limit is seen
    Core core = make_core();
    InferRequest request = core.compile_model(growing_loop(), device).create_infer_request();
    Tensor trip(element::i64, Shape{});
    *trip.data<int64_t>() = int64_t{1} << 62;
    request.set_tensor("trip", trip);
    request.set_tensor("init", Tensor(element::f32, Shape{1, 262144}));
    expect_error<InvalidArgument>([&] { request.infer(); },
                                  {"Loop", "scan outputs hold", "trip count 4611686018427387904",
                                   "more than a quarter of the memory available"});
}

void run_child(const std::string& device) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        struct rlimit limit {
            kDataLimit, kDataLimit
        };
        ::setrlimit(RLIMIT_DATA, &limit);
        ::setenv(kChildDevice, device.c_str(), 1);
        const char* args[] = {
            "/proc/self/exe",
            "--gtest_filter=LoopGrowth.DISABLED_ChildStopsNearAQuarterOfTheDataLimit",
            "--gtest_also_run_disabled_tests", nullptr};
        ::execv("/proc/self/exe", const_cast<char* const*>(args));
        ::_exit(127);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "the child on " << device << " died (signal "
                                   << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the child on " << device << " failed (its output above)";
}

TEST(LoopGrowth, ScanOutputsStopAtAQuarterOfTheMemoryLimit) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "a sanitizer's shadow memory does not fit under a 2 GiB data limit";
#endif
    run_child("TEMPLATE");
    const auto devices = make_core().get_available_devices();
    if (std::find(devices.begin(), devices.end(), "CPU") != devices.end()) run_child("CPU");
}

}  // namespace
}  // namespace vireo::hostile
