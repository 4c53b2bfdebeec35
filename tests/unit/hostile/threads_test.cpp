// Issue 23 item 2: when the system refuses a thread, CPUStreamsExecutor's constructor (and so
// compile_model) throws Unavailable after joining what it started, instead of std::terminate;
// stream and thread counts have a sane common range (sdk::kMaxStreams, sdk::kMaxThreads).
// The refusal is simulated by interposing pthread_create (this binary exports its symbols), so
// the test does not depend on process limits (which root ignores).
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <future>

#include "hostile_util.hpp"
#include "vireo/ops.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace {
// Threads still allowed; negative: unlimited.
std::atomic<int> g_threads_allowed{-1};
}  // namespace

extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                              void* arg) {
    using Real = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
    static const Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "pthread_create"));
    for (int allowed = g_threads_allowed.load(); allowed >= 0;) {
        if (allowed == 0) return EAGAIN;
        if (g_threads_allowed.compare_exchange_weak(allowed, allowed - 1)) break;
    }
    return real(thread, attr, start, arg);
}

namespace vireo::hostile {
namespace {

size_t thread_count() {
    size_t n = 0;
    for ([[maybe_unused]] const auto& entry :
         std::filesystem::directory_iterator("/proc/self/task"))
        ++n;
    return n;
}

// Limits thread creation for the scope of one test.
struct ThreadLimit {
    explicit ThreadLimit(int allowed) { g_threads_allowed = allowed; }
    ~ThreadLimit() { g_threads_allowed = -1; }
};

TEST(ThreadFailure, ExecutorThrowsUnavailableAndJoinsWhatStarted) {
    const size_t before = thread_count();
    {
        ThreadLimit limit(3);
        expect_error<Unavailable>(
            [] {
                sdk::CPUStreamsExecutor executor(sdk::StreamsConfig{"Limited", 8, 1});
            },
            {"Limited", "cannot start thread 4 of 8"});
    }
    EXPECT_EQ(thread_count(), before);  // the three started workers were joined
    // Nothing is broken: the same configuration works once threads are available again.
    sdk::CPUStreamsExecutor executor(sdk::StreamsConfig{"Limited", 8, 1});
    std::promise<int> ran;
    executor.run([&] { ran.set_value(7); });
    EXPECT_EQ(ran.get_future().get(), 7);
}

TEST(ThreadFailure, HelperThreadFailureIsCleanedUpToo) {
    const size_t before = thread_count();
    {
        ThreadLimit limit(4);  // stream 0: worker + 2 helpers; stream 1: worker, then refused
        expect_error<Unavailable>(
            [] {
                sdk::CPUStreamsExecutor executor(sdk::StreamsConfig{"Helpers", 2, 3});
            },
            {"Helpers", "cannot start thread 5 of 6", "2 streams x 3"});
    }
    EXPECT_EQ(thread_count(), before);
}

TEST(ThreadFailure, TemplateCompileFailsAndTheCoreStaysUsable) {
    auto x = op::parameter(element::f32, PartialShape(Shape{4}), "x");
    auto y = op::relu(x);
    y->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "relu");
    Core core = make_core();
    const AnyMap config{num_streams(7), inference_num_threads(1)};
    {
        ThreadLimit limit(2);
        expect_error<Unavailable>([&] { core.compile_model(model, "TEMPLATE", config); },
                                  {"TEMPLATE", "cannot start thread 3 of 7"});
    }
    auto compiled = core.compile_model(model, "TEMPLATE", config);
    auto request = compiled.create_infer_request();
    Tensor in(element::f32, Shape{4});
    for (int i = 0; i < 4; ++i) in.data<float>()[i] = static_cast<float>(i) - 2.0f;  // -2 -1 0 1
    request.set_tensor("x", in);
    request.infer();
    const float* out = request.get_tensor("y").data<float>();
    EXPECT_EQ(out[0], 0.0f);
    EXPECT_EQ(out[1], 0.0f);
    EXPECT_EQ(out[2], 0.0f);
    EXPECT_EQ(out[3], 1.0f);
}

TEST(ThreadRange, ExecutorRefusesCountsBeyondTheCommonRange) {
    expect_error<InvalidArgument>(
        [] {
            sdk::CPUStreamsExecutor e(sdk::StreamsConfig{"Big", 257, 1});
        },
        {"Big", "streams must be 1..256", "257"});
    expect_error<InvalidArgument>(
        [] {
            sdk::CPUStreamsExecutor e(sdk::StreamsConfig{"Big", 1, 1025});
        },
        {"Big", "threads_per_stream must be 1..1024", "1025"});
    expect_error<InvalidArgument>(
        [] {
            sdk::CPUStreamsExecutor e(sdk::StreamsConfig{"Big", 256, 5});
        },
        {"Big", "256 streams x 5 threads", "1024"});
}

TEST(ThreadRange, TemplateRefusesHugeStreamAndThreadCountsAtSetProperty) {
    Core core = make_core();
    expect_error<InvalidArgument>([&] { core.set_property("TEMPLATE", {num_streams(2147483647)}); },
                                  {"TEMPLATE", "NUM_STREAMS", "2147483647", "256"});
    expect_error<InvalidArgument>([&] { core.set_property("TEMPLATE", {num_streams(257)}); },
                                  {"NUM_STREAMS", "257"});
    expect_error<InvalidArgument>(
        [&] { core.set_property("TEMPLATE", {inference_num_threads(1000000)}); },
        {"TEMPLATE", "INFERENCE_NUM_THREADS", "1000000", "1024"});
    core.set_property("TEMPLATE",
                      {num_streams(256), inference_num_threads(1024)});  // each in range
    EXPECT_EQ(core.get_property("TEMPLATE", num_streams.name()).as<int32_t>(), 256);
}

}  // namespace
}  // namespace vireo::hostile
