// Bounded stress test of requests on TEMPLATE and MOCK_REMOTE (fault injection on): worker threads
// create requests, set tensors, run sync and async, wait with timeouts, cancel and chain from
// callbacks while another thread cancels at random; every start must be accounted for once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "vireo/core.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/ops.hpp"

namespace vireo::stress {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

const Shape kShape{2, 16};
constexpr float kScale = 3.f;
constexpr float kBias = -5.f;

/// y = x * 3 - 5: exact in f32 for the small integers the workers feed it.
std::shared_ptr<Model> affine_model() {
    auto x = op::parameter(element::f32, PartialShape(kShape), "x");
    auto scaled = op::multiply(x, op::constant<float>(element::f32, {1}, {kScale}));
    auto y = op::add(scaled, op::constant<float>(element::f32, {1}, {kBias}));
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "stress_affine");
}

/// The run length: `--seconds N` on the command line (gtest leaves unknown flags alone), else
/// VIREO_STRESS_SECONDS, else 3.
double run_seconds() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    for (size_t start = 0; start < all.size();) {
        const size_t end = all.find('\0', start);
        args.push_back(all.substr(start, end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    for (size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--seconds") return std::stod(args[i + 1]);
    if (const char* env = std::getenv("VIREO_STRESS_SECONDS")) return std::stod(env);
    return 3.0;
}

enum class Outcome { kOk, kFault, kCancelled, kOther };

/// Injected faults are MOCK_REMOTE's Unavailable "device error"; anything unexpected is kOther.
Outcome classify(const std::exception_ptr& error, bool faults_possible, std::string* message) {
    if (!error) return Outcome::kOk;
    try {
        std::rethrow_exception(error);
    } catch (const Exception& e) {
        *message = e.what();
        if (e.kind() == ErrorKind::kCancelled) return Outcome::kCancelled;
        if (faults_possible && e.kind() == ErrorKind::kUnavailable &&
            message->find("device error") != std::string::npos)
            return Outcome::kFault;
    } catch (const std::exception& e) {
        *message = e.what();
    } catch (...) {
        *message = "unknown exception";
    }
    return Outcome::kOther;
}

struct Totals {
    std::atomic<uint64_t> async_started{0}, callbacks{0}, async_ok{0}, async_faults{0},
        async_cancelled{0}, sync_started{0}, sync_ok{0}, sync_faults{0}, sync_cancelled{0},
        other_errors{0}, wrong_outputs{0}, outcome_mismatches{0}, cancels_issued{0},
        wait_for_timeouts{0}, requests_created{0}, chains{0}, bad_tensors_rejected{0}, abandoned{0},
        verified_outputs{0};
    std::mutex mutex;
    std::vector<std::string> first_errors;  // the first few unexpected messages, for the log

    void note(const std::string& what) {
        other_errors++;
        std::lock_guard<std::mutex> lock(mutex);
        if (first_errors.size() < 10) first_errors.push_back(what);
    }
};

/// One request, its input and what its callback saw (written by the callback, read by the
/// owning worker after the run: the request's completion orders the two).
struct Slot {
    Tensor input{element::f32, kShape};
    bool faults_possible = false;
    Totals* totals = nullptr;
    std::atomic<int64_t> starts{0}, callbacks{0};
    std::atomic<int> chain_left{0};
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = true;
    Outcome last = Outcome::kOk;
    std::string last_message;
    InferRequest request;  // last: destroyed first, while the state its callback uses exists
};

void on_complete(Slot* s, std::exception_ptr error) {
    s->callbacks++;
    s->totals->callbacks++;
    if (!error && s->chain_left.load() > 0) {
        s->chain_left--;
        // Counted before starting: the chained run may end before start_async() returns here.
        s->starts++;
        s->totals->async_started++;
        try {
            s->request.start_async();  // chaining: the request is idle inside its callback
            s->totals->async_ok++;     // this run succeeded; the chained one reports itself
            return;
        } catch (...) {
            s->starts--;  // nothing started: no callback will come for it
            s->totals->async_started--;
            error = std::current_exception();  // ends the chain with an unexpected error
        }
    }
    std::string message;
    const Outcome outcome = classify(error, s->faults_possible, &message);
    switch (outcome) {
        case Outcome::kOk:
            s->totals->async_ok++;
            break;
        case Outcome::kFault:
            s->totals->async_faults++;
            break;
        case Outcome::kCancelled:
            s->totals->async_cancelled++;
            break;
        case Outcome::kOther:
            s->totals->note("callback: " + message);
            break;
    }
    {
        std::lock_guard<std::mutex> lock(s->mutex);
        s->last = outcome;
        s->last_message = message;
        s->done = true;
    }
    s->done_cv.notify_all();
}

std::shared_ptr<Slot> make_slot(CompiledModel& compiled, bool faults_possible, Totals& totals,
                                bool own_output) {
    auto s = std::make_shared<Slot>();
    s->request = compiled.create_infer_request();
    s->faults_possible = faults_possible;
    s->totals = &totals;
    s->request.set_tensor("x", s->input);
    if (own_output) s->request.set_tensor("y", Tensor(element::f32, kShape));
    Slot* raw = s.get();  // the slot outlives its request's runs (workers wait before leaving)
    s->request.set_callback([raw](std::exception_ptr error) { on_complete(raw, error); });
    totals.requests_created++;
    return s;
}

void fill_input(Tensor& input, std::mt19937& rng) {
    std::uniform_int_distribution<int> value(-50, 50);
    float* p = input.data<float>();
    for (size_t i = 0; i < input.get_size(); ++i) p[i] = static_cast<float>(value(rng));
}

bool output_correct(const InferRequest& request, const Tensor& input) {
    Tensor y = request.get_tensor("y");
    if (y.is_remote() || !y.is_continuous()) y = y.clone();
    if (y.get_shape() != kShape) return false;
    const float* in = input.data<float>();
    const float* out = y.data<float>();
    for (size_t i = 0; i < input.get_size(); ++i) {
        const float expected = in[i] * kScale + kBias;  // the model, by hand
        if (out[i] != expected) return false;
    }
    return true;
}

class Worker {
  public:
    Worker(int index, CompiledModel compiled, bool faults_possible, Totals& totals,
           Clock::time_point deadline)
        : m_rng(1000u + static_cast<unsigned>(index)),
          m_compiled(std::move(compiled)),
          m_faults_possible(faults_possible),
          m_totals(totals),
          m_deadline(deadline) {
        for (int i = 0; i < 2; ++i)
            m_slots.push_back(make_slot(m_compiled, faults_possible, totals, (index + i) % 2 == 0));
    }
    const std::vector<std::shared_ptr<Slot>>& slots() const { return m_slots; }

    void run() {
        while (Clock::now() < m_deadline) {
            Slot& s = *m_slots[m_rng() % m_slots.size()];
            try {
                step(s, m_rng() % 8);
            } catch (const std::exception& e) {
                m_totals.note(std::string("worker: ") + e.what());
            }
        }
    }

  private:
    void step(Slot& s, unsigned op) {
        fill_input(s.input, m_rng);
        switch (op) {
            case 0:
                sync_infer(s);
                break;
            case 1:
                async_wait(s, 0, false, false);
                break;
            case 2:
                async_wait(s, 0, true, false);
                break;  // cancel it ourselves
            case 3:
                async_wait(s, 0, false, true);
                break;  // poll with wait_for
            case 4:
                async_wait(s, 1 + m_rng() % 4, false, false);
                break;  // chain 2..5 runs
            case 5:
                fresh_request();
                break;
            case 6:
                bad_tensor(s);
                break;
            default: {  // a new input tensor, then a run
                Tensor input(element::f32, kShape);
                fill_input(input, m_rng);
                s.request.set_tensor("x", input);
                s.input = input;
                async_wait(s, 0, false, false);
            }
        }
    }

    void check_output(const Slot& s) {
        if (output_correct(s.request, s.input))
            m_totals.verified_outputs++;
        else
            m_totals.wrong_outputs++;
    }

    void sync_infer(Slot& s) {
        m_totals.sync_started++;
        std::exception_ptr error;
        try {
            s.request.infer();
        } catch (...) {
            error = std::current_exception();
        }
        std::string message;
        switch (classify(error, s.faults_possible, &message)) {
            case Outcome::kOk:
                m_totals.sync_ok++;
                check_output(s);
                break;
            case Outcome::kFault:
                m_totals.sync_faults++;
                break;
            case Outcome::kCancelled:
                m_totals.sync_cancelled++;
                break;
            case Outcome::kOther:
                m_totals.note("infer: " + message);
                break;
        }
    }

    void async_wait(Slot& s, int chain, bool cancel, bool poll) {
        {
            std::lock_guard<std::mutex> lock(s.mutex);
            s.done = false;
        }
        s.chain_left = chain;
        if (chain > 0) m_totals.chains++;
        s.starts++;
        m_totals.async_started++;
        try {
            s.request.start_async();
        } catch (...) {
            s.starts--;
            m_totals.async_started--;
            throw;
        }
        if (cancel) {
            std::this_thread::sleep_for(std::chrono::microseconds(m_rng() % 400));
            s.request.cancel();
            m_totals.cancels_issued++;
        }
        if (poll) {
            try {  // once the run is over, wait_for rethrows its error like wait() (checked below)
                while (!s.request.wait_for(std::chrono::milliseconds(m_rng() % 3)))
                    m_totals.wait_for_timeouts++;
            } catch (const Exception&) {
            }
        }
        {
            // A chain's wait() follows only the last start, so wait for the chain's end first.
            std::unique_lock<std::mutex> lock(s.mutex);
            s.done_cv.wait(lock, [&] { return s.done; });
        }
        std::exception_ptr error;
        try {
            s.request.wait();
        } catch (...) {
            error = std::current_exception();
        }
        std::string message;
        const Outcome outcome = classify(error, s.faults_possible, &message);
        Outcome seen;
        {
            std::lock_guard<std::mutex> lock(s.mutex);
            seen = s.last;
        }
        if (seen != outcome) m_totals.outcome_mismatches++;
        if (outcome == Outcome::kOk) check_output(s);
        if (s.starts.load() != s.callbacks.load())
            m_totals.note("request with " + std::to_string(s.starts.load()) + " starts saw " +
                          std::to_string(s.callbacks.load()) + " callbacks");
    }

    /// A request made, run once and dropped, sometimes while still running (allowed: its
    /// destructor waits for the pipeline and drops the callback).
    void fresh_request() {
        auto s = make_slot(m_compiled, m_faults_possible, m_totals, m_rng() % 2 == 0);
        fill_input(s->input, m_rng);
        if (m_rng() % 2 == 0) {
            async_wait(*s, 0, false, false);
        } else {
            InferRequest request = s->request;
            request.set_callback([](std::exception_ptr) {});  // the slot is gone before it runs
            request.start_async();
            m_totals.abandoned++;
        }
    }

    void bad_tensor(Slot& s) {
        try {
            s.request.set_tensor("x", Tensor(element::f32, Shape{3, 5}));
            s.request.infer();
            m_totals.note("a {3,5} input for a {2,16} parameter was accepted");
        } catch (const Exception& e) {
            if (e.kind() == ErrorKind::kInvalidArgument)
                m_totals.bad_tensors_rejected++;
            else
                m_totals.note(std::string("bad tensor: ") + e.what());
        }
        s.request.set_tensor("x", s.input);
    }

    std::mt19937 m_rng;
    CompiledModel m_compiled;
    bool m_faults_possible;
    Totals& m_totals;
    Clock::time_point m_deadline;
    std::vector<std::shared_ptr<Slot>> m_slots;
};

/// Fails the test (abort with the counts) instead of letting a stuck thread hang ctest.
class Watchdog {
  public:
    Watchdog(std::chrono::seconds limit, const Totals& totals)
        : m_thread([this, limit, &totals] {
              std::unique_lock<std::mutex> lock(m_mutex);
              if (!m_cv.wait_for(lock, limit, [this] { return m_finished; })) {
                  std::fprintf(stderr,
                               "stress watchdog: not finished after %lld s (async started %llu, "
                               "callbacks %llu, sync started %llu); a thread is stuck\n",
                               static_cast<long long>(limit.count()),
                               static_cast<unsigned long long>(totals.async_started.load()),
                               static_cast<unsigned long long>(totals.callbacks.load()),
                               static_cast<unsigned long long>(totals.sync_started.load()));
                  std::abort();
              }
          }) {}
    ~Watchdog() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_finished = true;
        }
        m_cv.notify_all();
        m_thread.join();
    }

  private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_finished = false;
    std::thread m_thread;
};

uint64_t failed_jobs(Core& core, const std::string& device) {
    return core.get_property(device, mock_remote::jobs_failed);
}

TEST(Stress, RequestsOnTemplateAndFaultyMockRemoteAreAllAccountedFor) {
    const double seconds = run_seconds();
    Totals totals;
    // Generous: sanitizer builds on a loaded machine are slow, but a hang is not.
    Watchdog watchdog(std::chrono::seconds(static_cast<long long>(seconds) + 240), totals);

    Core core(std::string(VIREO_BUILD_LIB_DIR) + "/plugins.xml");
    auto model = affine_model();
    const AnyMap mock_settings{mock_remote::latency_us(300u),    mock_remote::compile_ms(0u),
                               mock_remote::bus_latency_us(0u),  mock_remote::gflops(1000.0),
                               mock_remote::device_gbps(1000.0), mock_remote::bus_gbps(100.0),
                               mock_remote::fail_rate(0.1),      mock_remote::jitter_us(400u)};
    auto with_seed = [&](uint64_t s) {
        AnyMap settings = mock_settings;
        const auto entry = mock_remote::seed(s);
        settings[entry.first] = entry.second;
        return settings;
    };
    struct Target {
        CompiledModel compiled;
        bool faults;
    };
    std::vector<Target> targets{
        {core.compile_model(model, "TEMPLATE"), false},
        {core.compile_model(model, "TEMPLATE", {num_streams(2)}), false},
        {core.compile_model(model, "MOCK_REMOTE.0", with_seed(7)), true},
        {core.compile_model(model, "MOCK_REMOTE.1", with_seed(11)), true},
    };
    const uint64_t failed_before =
        failed_jobs(core, "MOCK_REMOTE.0") + failed_jobs(core, "MOCK_REMOTE.1");

    const auto deadline =
        Clock::now() + std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
    constexpr int kWorkers = 6;
    std::vector<std::unique_ptr<Worker>> workers;
    std::vector<std::shared_ptr<Slot>> all_slots;
    for (int i = 0; i < kWorkers; ++i) {
        const Target& t = targets[i % targets.size()];
        workers.push_back(std::make_unique<Worker>(i, t.compiled, t.faults, totals, deadline));
        for (const auto& s : workers.back()->slots()) all_slots.push_back(s);
    }

    std::vector<std::thread> threads;
    for (auto& w : workers) threads.emplace_back([&w] { w->run(); });
    threads.emplace_back([&] {  // cancels other threads' requests at random
        std::mt19937 rng(99);
        while (Clock::now() < deadline) {
            all_slots[rng() % all_slots.size()]->request.cancel();
            totals.cancels_issued++;
            std::this_thread::sleep_for(std::chrono::microseconds(100 + rng() % 900));
        }
    });
    for (auto& t : threads) t.join();

    for (const auto& s : all_slots) {
        bool finished = true;
        try {
            finished = s->request.wait_for(std::chrono::milliseconds(0));
        } catch (const Exception&) {  // the last run's error, already accounted for
        }
        EXPECT_TRUE(finished) << "a request still runs";
        EXPECT_EQ(s->starts.load(), s->callbacks.load()) << "lost or doubled callback";
    }
    const uint64_t failed_after =
        failed_jobs(core, "MOCK_REMOTE.0") + failed_jobs(core, "MOCK_REMOTE.1");
    const uint64_t injected = failed_after - failed_before;

    const uint64_t async_started = totals.async_started;  // abandoned runs are not counted in it
    std::printf(
        "stress: %.1f s, %d workers + 1 canceller\n"
        "  async runs %llu (ok %llu, faults %llu, cancelled %llu), chains %llu, callbacks %llu\n"
        "  sync runs %llu (ok %llu, faults %llu, cancelled %llu)\n"
        "  outputs verified %llu, requests created %llu, abandoned while running %llu\n"
        "  cancels issued %llu, wait_for timeouts %llu, bad tensors rejected %llu\n"
        "  faults injected by MOCK_REMOTE %llu\n",
        seconds, kWorkers, static_cast<unsigned long long>(async_started),
        static_cast<unsigned long long>(totals.async_ok.load()),
        static_cast<unsigned long long>(totals.async_faults.load()),
        static_cast<unsigned long long>(totals.async_cancelled.load()),
        static_cast<unsigned long long>(totals.chains.load()),
        static_cast<unsigned long long>(totals.callbacks.load()),
        static_cast<unsigned long long>(totals.sync_started.load()),
        static_cast<unsigned long long>(totals.sync_ok.load()),
        static_cast<unsigned long long>(totals.sync_faults.load()),
        static_cast<unsigned long long>(totals.sync_cancelled.load()),
        static_cast<unsigned long long>(totals.verified_outputs.load()),
        static_cast<unsigned long long>(totals.requests_created.load()),
        static_cast<unsigned long long>(totals.abandoned.load()),
        static_cast<unsigned long long>(totals.cancels_issued.load()),
        static_cast<unsigned long long>(totals.wait_for_timeouts.load()),
        static_cast<unsigned long long>(totals.bad_tensors_rejected.load()),
        static_cast<unsigned long long>(injected));
    for (const auto& e : totals.first_errors) ADD_FAILURE() << "unexpected: " << e;

    EXPECT_EQ(totals.other_errors.load(), 0u);
    EXPECT_EQ(totals.wrong_outputs.load(), 0u);
    EXPECT_EQ(totals.outcome_mismatches.load(), 0u) << "callback and wait() disagreed";
    // Every awaited start ended exactly once, in exactly one of the expected ways.
    EXPECT_EQ(async_started, totals.async_ok + totals.async_faults + totals.async_cancelled + 0u);
    EXPECT_EQ(totals.sync_started.load(),
              totals.sync_ok + totals.sync_faults + totals.sync_cancelled + 0u);
    // Faults the requests saw were injected by the device (a cancelled run may hide one).
    EXPECT_LE(totals.async_faults + totals.sync_faults + 0u, injected);
    EXPECT_GT(totals.async_ok + totals.sync_ok + 0u, 0u);
    EXPECT_GT(totals.verified_outputs.load(), 0u);
}

}  // namespace
}  // namespace vireo::stress
