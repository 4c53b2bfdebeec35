// Tests that many threads using a device for the first time at once load its plugin exactly
// once, and that one Core serves concurrent compiles, property reads and inferences.
#include <latch>
#include <thread>

#include "runtime_test_utils.hpp"

namespace vireo::runtime_test {
namespace {

constexpr int kThreads = 8;

TEST(Concurrency, FirstUseFromEightThreadsLoadsOnce) {
    ScratchDir dir;
    for (int round = 0; round < 5; ++round) {
        Core core = empty_core(dir);
        core.register_plugin(test_plugin_path(), "TEST");
        std::latch start(kThreads);
        std::vector<uint64_t> seen(kThreads, 0);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                start.arrive_and_wait();  // all threads ask at the same moment
                seen[t] = core.get_property("TEST", tp::instance_id);
            });
        }
        for (auto& thread : threads) thread.join();
        for (int t = 0; t < kThreads; ++t)
            EXPECT_EQ(seen[t], seen[0]) << "thread " << t << ", round " << round;
        // No compile happened while loading, and a later query sees the same plugin object.
        EXPECT_EQ(core.get_property("TEST", tp::instance_id), seen[0]);
        EXPECT_EQ(core.get_property("TEST", tp::compile_count), 0u);
    }
}

TEST(Concurrency, ConcurrentCompileAndInferOnOneCore) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(test_plugin_path(), "TEST");
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    std::vector<int> failures(kThreads, 0);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            start.arrive_and_wait();
            try {
                const float addend = static_cast<float>(t);
                CompiledModel compiled = core.compile_model(
                    tiny_model(), "TEST." + std::to_string(t % 3), {tp::addend(addend)});
                InferRequest request = compiled.create_infer_request();
                for (int i = 0; i < 10; ++i) {
                    Tensor x = input_values();
                    request.set_tensor("x", x);
                    request.start_async();
                    request.wait();
                    const float* y = request.get_tensor("y").data<float>();
                    for (int k = 0; k < 6; ++k)
                        if (y[k] != static_cast<float>(k) - 2.0f + addend) ++failures[t];
                }
            } catch (const std::exception& e) {
                ++failures[t];
                ADD_FAILURE() << "thread " << t << ": " << e.what();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
    EXPECT_EQ(core.get_property("TEST", tp::compile_count), static_cast<uint64_t>(kThreads));
}

TEST(Concurrency, RegisterAndUnloadWhileOthersUseTheCore) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(test_plugin_path(), "TEST");
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            start.arrive_and_wait();
            for (int i = 0; i < 20; ++i) {
                if (t == 0) {
                    core.unload_plugin("TEST");
                } else if (t == 1) {
                    core.register_plugin(test_plugin_path(), "EXTRA_" + std::to_string(i));
                } else {
                    CompiledModel compiled = core.compile_model(tiny_model(), "TEST");
                    InferRequest request = compiled.create_infer_request();
                    expect_adds(request, 1.0f);
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(core.get_available_devices().size(), 21u);  // TEST and EXTRA_0..19
}

}  // namespace
}  // namespace vireo::runtime_test
