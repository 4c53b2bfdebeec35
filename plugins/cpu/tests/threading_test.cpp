// Runs under contention: TeamChoice (which of a request's runs use one thread instead of the team)
// on made-up run times, and CPU's values while busy threads take every core.
#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <thread>

#include "../src/team_choice.hpp"
#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

using cpu_plugin::TeamChoice;

// Runs `runs` runs with the given wall time per choice and CPU share for team runs; returns how
// many used one thread.
size_t drive(TeamChoice& choice, size_t runs, double team_ms, double serial_ms, double share) {
    size_t serial = 0;
    for (size_t i = 0; i < runs; ++i) {
        const bool one = choice.serial_next();
        serial += one;
        const double wall = one ? serial_ms : team_ms;
        choice.record(one, wall, one ? wall : share * wall);
    }
    return serial;
}

TEST(TeamChoice, AQuietMachineKeepsTheTeam) {
    TeamChoice choice;
    EXPECT_EQ(drive(choice, 1000, 3.0, 5.0, 0.99), 0u);  // the share never says contended
    EXPECT_FALSE(choice.serial());
}

TEST(TeamChoice, ContentionSwitchesToOneThreadAndBack) {
    TeamChoice choice;
    EXPECT_EQ(drive(choice, 10, 3.0, 5.0, 0.99), 0u);
    // Another process takes a core: team runs take 24 ms and the thread gets half its time. The
    // first contended run is followed by a one-thread probe, which wins.
    EXPECT_FALSE(choice.serial_next());
    choice.record(false, 24.0, 12.0);
    EXPECT_TRUE(choice.serial_next());
    const size_t serial = drive(choice, 200, 24.0, 7.0, 0.5);
    EXPECT_TRUE(choice.serial());
    // Every 16th run (then every 32nd, ... as the team keeps losing) probes the team.
    EXPECT_GE(serial, 190u);
    EXPECT_LT(serial, 200u);
    // The machine is quiet again: the next team probe wins and the team stays.
    const size_t after = drive(choice, 300, 3.0, 5.0, 0.99);
    EXPECT_FALSE(choice.serial());
    EXPECT_LE(after, static_cast<size_t>(TeamChoice::kMaxInterval));
    EXPECT_EQ(drive(choice, 500, 3.0, 5.0, 0.99), 0u);
}

TEST(TeamChoice, AProbeThatLosesIsTriedLessOften) {
    // The share says contended but one thread is slower (the model's runs sleep for other
    // reasons): probes lose and come at doubling intervals, so few runs pay for them.
    TeamChoice choice;
    const size_t serial = drive(choice, 4000, 3.0, 5.0, 0.5);
    EXPECT_FALSE(choice.serial());
    // 16 + 32 + 64 + 128 + 256 + 256 + ... : at most 1 + 4000 / 256 + 5 probes.
    EXPECT_GE(serial, 5u);
    EXPECT_LE(serial, 1u + 4000u / TeamChoice::kMaxInterval + 5u);
}

// A convolution network at two threads while busy threads (one per core) spin in this process:
// TEMPLATE's values on every run, whichever of team and one thread each run used (the
// compiled model counts the latter in CPU_SERIAL_RUNS).
TEST(Threading, ValuesHoldWhileOtherThreadsTakeTheCores) {
    auto x = op::parameter(element::f32, Shape{1, 16, 28, 28}, "x");
    Output y = x;
    for (unsigned i = 0; i < 4; ++i) {
        auto w = op::constant(random_tensor({16, 16, 3, 3}, 200 + i, -0.2f, 0.2f));
        y = op::relu(op::convolution(y, w, {1, 1}, {1, 1}, {1, 1}, {1, 1}));
    }
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "busy");
    Core core = make_core();
    const std::vector<Tensor> inputs{random_tensor({1, 16, 28, 28}, 210)};
    const auto expected = run_model(core, model, "TEMPLATE", inputs);
    auto compiled = core.compile_model(model, "CPU", {{inference_num_threads.name(), 2}});
    auto request = compiled.create_infer_request();
    request.set_input_tensor(0, inputs[0]);

    std::atomic<bool> stop{false};
    std::vector<std::thread> busy;
    const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < cores; ++i)
        busy.emplace_back([&stop] {
            volatile uint64_t n = 0;
            while (!stop.load(std::memory_order_relaxed)) n = n + 1;
        });
    size_t wrong = 0;
    for (int run = 0; run < 120; ++run) {
        request.infer();
        wrong += !all_close(request.get_output_tensor(0), expected[0], 1e-4, 1e-5);
    }
    stop = true;
    for (auto& t : busy) t.join();
    EXPECT_EQ(wrong, 0u);
    const auto serial = compiled.get_property("CPU_SERIAL_RUNS").as<uint64_t>();
    EXPECT_LE(serial, 120u);
    std::cout << "runs on one thread: " << serial << " of 120\n";
}

}  // namespace
}  // namespace vireo::cpu_test
