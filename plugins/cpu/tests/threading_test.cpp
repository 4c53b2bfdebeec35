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
    // second contended run in a row is followed by a one-thread probe, which wins.
    for (int i = 0; i < 2; ++i) {
        EXPECT_FALSE(choice.serial_next());
        choice.record(false, 24.0, 12.0);
    }
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
    // One slow run alone (a hiccup) changes nothing.
    choice.record(false, 30.0, 30.0);
    EXPECT_EQ(drive(choice, 100, 3.0, 5.0, 0.99), 0u);
}

TEST(TeamChoice, SlowTeamRunsAreContendedWhateverTheirCpuShare) {
    // The calling thread spins at the barriers for a descheduled thread: its CPU share stays
    // about 1, but the runs take four times the quiet ones.
    TeamChoice choice;
    EXPECT_EQ(drive(choice, 10, 3.0, 5.0, 0.99), 0u);
    EXPECT_GE(drive(choice, 100, 12.0, 6.0, 0.99), 90u);
    EXPECT_TRUE(choice.serial());
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

TEST(TeamChoice, AShortModelTriesOneThreadOnceAndKeepsTheFaster) {
    // Run times in seconds here (kShortRun is one): a 50 us model whose team only adds barriers
    // switches to one thread at its first probe after kFirstProbe runs, and probes the team back
    // at doubling intervals...
    TeamChoice slow_team;
    const size_t serial = drive(slow_team, 1000, 53e-6, 27e-6, 0.99);
    EXPECT_TRUE(slow_team.serial());
    EXPECT_GE(serial, 1000u - TeamChoice::kFirstProbe - 1000u / TeamChoice::kFirstInterval);
    // ... while a short model that the team does speed up pays kShortProbes slow runs.
    TeamChoice fast_team;
    EXPECT_EQ(drive(fast_team, 1000, 300e-6, 520e-6, 0.99), TeamChoice::kShortProbes);
    EXPECT_FALSE(fast_team.serial());
    // A long model on a quiet machine is never probed (AQuietMachineKeepsTheTeam).
    TeamChoice long_model;
    EXPECT_EQ(drive(long_model, 1000, 3e-3, 5e-3, 0.99), 0u);
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

// A network of every kind of parallel step (convolutions, a MatMul, pooling, a small LSTM) asked
// for two threads: TEMPLATE's values. CMakeLists.txt runs it again under OMP_THREAD_LIMIT=1,
// OMP_MAX_ACTIVE_LEVELS=0 and OMP_DYNAMIC=true, where OpenMP gives a region fewer threads than
// asked: the team must shrink to what OpenMP gives, or a oneDNN primitive made for two threads
// leaves half its work undone.
TEST(Threading, ValuesHoldWhateverTheOpenMPSettings) {
    auto x = op::parameter(element::f32, Shape{1, 16, 20, 20}, "x");
    Output y = x;
    for (unsigned i = 0; i < 2; ++i) {
        auto w = op::constant(random_tensor({16, 16, 3, 3}, 220 + i, -0.2f, 0.2f));
        y = op::relu(op::convolution(y, w, {1, 1}, {1, 1}, {1, 1}, {1, 1}));
    }
    // [1, 16, 20, 20] -> [1, 20, 320] (a sequence of 20 steps) -> LSTM -> MatMul
    auto seq = op::reshape(y, op::constant<int64_t>(element::i64, Shape{3}, {1, 20, 320}), false);
    const size_t H = 8;
    auto lstm = make_node(
        "LSTMSequence",
        {seq, op::constant<float>(element::f32, Shape{1, 1, H}, std::vector<float>(H, 0.f)),
         op::constant<float>(element::f32, Shape{1, 1, H}, std::vector<float>(H, 0.f)),
         op::constant<int64_t>(element::i64, Shape{1}, {20}),
         op::constant(random_tensor({1, 4 * H, 320}, 230, -0.1f, 0.1f)),
         op::constant(random_tensor({1, 4 * H, H}, 231, -0.3f, 0.3f)),
         op::constant(random_tensor({1, 4 * H}, 232, -0.3f, 0.3f))},
        {{"hidden_size", static_cast<int64_t>(H)}, {"direction", std::string("forward")}}, 5);
    auto out = op::matmul(lstm->output(0), op::constant(random_tensor({H, 4}, 233)));
    auto model = std::make_shared<Model>(OutputVector{out, y}, ParameterVector{x}, "omp_settings");
    Core core = make_core();
    const std::vector<Tensor> inputs{random_tensor({1, 16, 20, 20}, 234)};
    const auto expected = run_model(core, model, "TEMPLATE", inputs);
    const auto actual = run_model(core, model, "CPU", inputs, {{inference_num_threads.name(), 2}});
    ASSERT_EQ(actual.size(), 2u);
    EXPECT_TRUE(all_close(actual[0], expected[0], 1e-4, 1e-5));
    EXPECT_TRUE(all_close(actual[1], expected[1], 1e-4, 1e-5));
}

}  // namespace
}  // namespace vireo::cpu_test
