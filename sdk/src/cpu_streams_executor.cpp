// Implements CPUStreamsExecutor: stream worker threads over one FIFO queue, per-stream helper
// threads for parallel_for, thread naming and optional pinning.
#include "vireo/sdk/cpu_streams_executor.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "vireo/exception.hpp"
#include "vireo/log.hpp"

namespace vireo::sdk {
namespace {

// The helper threads of one stream and the chunks of parallel_for waiting for them. Only the
// stream's worker posts chunks, and it waits for (and helps with) them before it returns.
struct StreamHelpers {
    std::mutex mutex;
    std::condition_variable job_cv;   // a job was posted, or stopping
    std::condition_variable done_cv;  // a job finished
    std::deque<std::function<void()>> jobs;
    std::atomic<size_t> queued{0};  // jobs.size(), written under the mutex, read by spinners
    bool stopping = false;
};

// How long a helper, and a worker waiting for its helpers, spin before they sleep on a condition
// variable. An inference calls parallel_for once per heavy op, microseconds to a few hundred
// microseconds apart; waking a sleeping thread costs tens of microseconds (a futex wake and a
// reschedule, more in a VM), which made two threads slower than one on small models. Spinning
// this long keeps the helpers awake across the gaps between ops and gives a core back soon
// after the inference ends (OpenMP and ONNX Runtime's thread pool spin for the same reason).
constexpr std::chrono::microseconds kSpinTime{100};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Spins until done() or kSpinTime has passed; returns done()'s last value.
template <typename Done>
bool spin_until(Done&& done) {
    const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
    for (;;) {
        for (int i = 0; i < 64; ++i) {
            if (done()) return true;
            cpu_relax();
        }
        if (std::chrono::steady_clock::now() >= deadline) return done();
    }
}

// What the calling thread is, for current_stream_id() and parallel_for().
thread_local int t_stream_id = -1;
thread_local StreamHelpers* t_helpers = nullptr;  // set on a stream's worker thread only
thread_local int t_stream_threads = 1;

void log_task_error(const std::string& executor, std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        VIREO_LOG(ERR) << "executor '" << executor << "': a task threw: " << e.what();
    } catch (...) {
        VIREO_LOG(ERR) << "executor '" << executor << "': a task threw a non-std exception";
    }
}

std::vector<int> allowed_cpus() {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
    return cpus;
}

// State the threads share. Held by shared_ptr from every thread, so a thread that had to be
// detached (the executor was destroyed from one of its own tasks) can finish safely.
struct ExecutorShared {
    StreamsConfig config;
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<Task> queue;
    bool stopping = false;
    size_t idle = 0;  // workers waiting for a task (start_on_demand starts one when none is)
    std::vector<std::unique_ptr<StreamHelpers>> helpers;  // one per stream
    std::vector<int> cpus;                                // for pinning
};

}  // namespace

struct CPUStreamsExecutor::Impl {
    std::shared_ptr<ExecutorShared> shared;
    std::vector<std::thread> workers;
    std::vector<std::thread> helper_threads;
};

std::string thread_name(const std::string& name, int stream, int thread) {
    constexpr size_t kLimit = 15;  // Linux's limit, without the terminating zero
    std::string suffix = "/" + std::to_string(stream);
    if (thread > 0) suffix += "." + std::to_string(thread);
    if (name.size() + suffix.size() <= kLimit) return name + suffix;
    const size_t room = suffix.size() < kLimit ? kLimit - suffix.size() : 0;
    std::string base = name;
    // "DEV.1/wait" -> "DEV.1w": a role after the last '/' shrinks to its first letter, or goes.
    if (const size_t slash = base.rfind('/'); slash != std::string::npos) {
        const std::string letter = slash + 1 < base.size() ? base.substr(slash + 1, 1) : "";
        base = base.substr(0, slash) + letter;
        if (base.size() <= room) return base + suffix;
        base.resize(slash);
    }
    if (base.size() <= room) return base + suffix;
    // Still too long: cut the device's name, never its instance id (from the first '.').
    const size_t dot = base.find('.');
    if (dot != std::string::npos && base.size() - dot < room)
        return base.substr(0, room - (base.size() - dot)) + base.substr(dot) + suffix;
    return base.substr(0, room) + suffix;
}

namespace {

void name_and_pin(const StreamsConfig& config, const std::vector<int>& cpus, int stream,
                  int thread) {
    const std::string name = thread_name(config.name, stream, thread);
    pthread_setname_np(pthread_self(), name.c_str());
    if (config.pin_threads && !cpus.empty()) {
        const size_t index =
            (static_cast<size_t>(stream) * config.threads_per_stream + thread) % cpus.size();
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpus[index], &set);
        if (const int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set); rc != 0)
            VIREO_LOG(WARNING) << "executor '" << config.name << "': cannot pin thread " << name
                               << " to cpu " << cpus[index] << " (error " << rc << ")";
    }
}

void worker_loop(std::shared_ptr<ExecutorShared> shared, int stream) {
    name_and_pin(shared->config, shared->cpus, stream, 0);
    t_stream_id = stream;
    t_helpers = shared->helpers[stream].get();
    t_stream_threads = shared->config.threads_per_stream;
    for (;;) {
        Task task;
        {
            std::unique_lock<std::mutex> lock(shared->mutex);
            ++shared->idle;
            shared->cv.wait(lock, [&] { return shared->stopping || !shared->queue.empty(); });
            --shared->idle;
            if (shared->queue.empty()) break;  // stopping, and drained
            task = std::move(shared->queue.front());
            shared->queue.pop_front();
        }
        try {
            task();
        } catch (...) {
            log_task_error(shared->config.name, std::current_exception());
        }
    }
}

void helper_loop(std::shared_ptr<ExecutorShared> shared, int stream, int thread) {
    name_and_pin(shared->config, shared->cpus, stream, thread);
    t_stream_id = stream;
    StreamHelpers& helpers = *shared->helpers[stream];
    for (;;) {
        // Spin for the next job first (see kSpinTime); sleep only if none comes.
        spin_until([&] { return helpers.queued.load(std::memory_order_acquire) > 0; });
        std::function<void()> job;
        {
            std::unique_lock<std::mutex> lock(helpers.mutex);
            helpers.job_cv.wait(lock, [&] { return helpers.stopping || !helpers.jobs.empty(); });
            if (helpers.jobs.empty()) break;
            job = std::move(helpers.jobs.front());
            helpers.jobs.pop_front();
            helpers.queued.store(helpers.jobs.size(), std::memory_order_release);
        }
        job();  // parallel_for's jobs never throw: they record their error
    }
}

void join_or_detach(std::thread& thread) {
    if (!thread.joinable()) return;
    if (thread.get_id() == std::this_thread::get_id())
        thread.detach();  // destroyed from its own task: it finishes on its own, holding Shared
    else
        thread.join();
}

}  // namespace

CPUStreamsExecutor::CPUStreamsExecutor(StreamsConfig config) : m_impl(std::make_unique<Impl>()) {
    if (config.streams < 1 || config.streams > kMaxStreams)
        throw_error<InvalidArgument>("CPUStreamsExecutor '", config.name, "': streams must be 1..",
                                     kMaxStreams, ", got ", config.streams);
    if (config.threads_per_stream < 1 || config.threads_per_stream > kMaxThreads)
        throw_error<InvalidArgument>("CPUStreamsExecutor '", config.name,
                                     "': threads_per_stream must be 1..", kMaxThreads, ", got ",
                                     config.threads_per_stream);
    if (static_cast<int64_t>(config.streams) * config.threads_per_stream > kMaxThreads)
        throw_error<InvalidArgument>("CPUStreamsExecutor '", config.name, "': ", config.streams,
                                     " streams x ", config.threads_per_stream,
                                     " threads per stream exceeds the limit of ", kMaxThreads,
                                     " threads");
    auto shared = std::make_shared<ExecutorShared>();
    shared->config = std::move(config);
    if (shared->config.pin_threads) shared->cpus = allowed_cpus();
    for (int s = 0; s < shared->config.streams; ++s)
        shared->helpers.push_back(std::make_unique<StreamHelpers>());
    m_impl->shared = shared;
    const int total = shared->config.streams * shared->config.threads_per_stream;
    m_impl->workers.reserve(static_cast<size_t>(shared->config.streams));
    m_impl->helper_threads.reserve(static_cast<size_t>(total - shared->config.streams));
    if (shared->config.start_on_demand) return;  // run() starts streams as tasks need them
    try {
        for (int s = 0; s < shared->config.streams; ++s) start_stream();
    } catch (const std::system_error& e) {
        // A joinable std::thread destroyed unjoined calls std::terminate: stop and join what
        // started before reporting, so the process survives a thread limit.
        const size_t started = m_impl->workers.size() + m_impl->helper_threads.size();
        stop_and_join();
        throw_error<Unavailable>("CPUStreamsExecutor '", shared->config.name,
                                 "': cannot start thread ", started + 1, " of ", total, " (",
                                 shared->config.streams, " streams x ",
                                 shared->config.threads_per_stream, "): ", e.what());
    }
}

void CPUStreamsExecutor::start_stream() {
    const auto& shared = m_impl->shared;
    const int s = static_cast<int>(m_impl->workers.size());
    m_impl->workers.emplace_back(worker_loop, shared, s);
    for (int t = 1; t < shared->config.threads_per_stream; ++t)
        m_impl->helper_threads.emplace_back(helper_loop, shared, s, t);
}

CPUStreamsExecutor::~CPUStreamsExecutor() {
    stop_and_join();
}

void CPUStreamsExecutor::stop_and_join() {
    auto& shared = *m_impl->shared;
    {
        std::lock_guard<std::mutex> lock(shared.mutex);
        shared.stopping = true;
    }
    shared.cv.notify_all();
    for (auto& worker : m_impl->workers) join_or_detach(worker);
    // Workers are done (or detached and able to run parallel_for chunks themselves): stop helpers.
    for (auto& helpers : shared.helpers) {
        {
            std::lock_guard<std::mutex> lock(helpers->mutex);
            helpers->stopping = true;
        }
        helpers->job_cv.notify_all();
    }
    for (auto& helper : m_impl->helper_threads) join_or_detach(helper);
}

void CPUStreamsExecutor::run(Task task) {
    if (!task)
        throw_error<InvalidArgument>("CPUStreamsExecutor '", get_config().name,
                                     "': run() got an empty task");
    auto& shared = *m_impl->shared;
    // Notified under the lock: once the task has run, its effects may lead another thread to
    // destroy this executor, and the condition variable must not be touched after that.
    std::lock_guard<std::mutex> lock(shared.mutex);
    shared.queue.push_back(std::move(task));
    // On demand: a stream starts when the tasks waiting outnumber the idle workers. The worker
    // vectors change only here and in the constructor, under this lock, and never once stopping
    // (stop_and_join reads them after setting it).
    if (shared.config.start_on_demand && !shared.stopping && shared.queue.size() > shared.idle &&
        m_impl->workers.size() < static_cast<size_t>(shared.config.streams)) {
        try {
            start_stream();
        } catch (const std::system_error& e) {
            if (m_impl->workers.empty()) {
                shared.queue.pop_back();
                throw_error<Unavailable>("CPUStreamsExecutor '", shared.config.name,
                                         "': cannot start a thread for the task: ", e.what());
            }
            VIREO_LOG(WARNING) << "executor '" << shared.config.name << "': cannot start stream "
                               << m_impl->workers.size() << " (" << e.what()
                               << "); the task waits for a running one";
        }
    }
    shared.cv.notify_one();
}

int CPUStreamsExecutor::started_streams() const {
    std::lock_guard<std::mutex> lock(m_impl->shared->mutex);
    return static_cast<int>(m_impl->workers.size());
}

const StreamsConfig& CPUStreamsExecutor::get_config() const {
    return m_impl->shared->config;
}

int CPUStreamsExecutor::get_streams_num() const {
    return m_impl->shared->config.streams;
}

size_t CPUStreamsExecutor::queued() const {
    std::lock_guard<std::mutex> lock(m_impl->shared->mutex);
    return m_impl->shared->queue.size();
}

int CPUStreamsExecutor::current_stream_id() {
    return t_stream_id;
}

void CPUStreamsExecutor::parallel_for(size_t n, const std::function<void(size_t, size_t)>& body) {
    if (n == 0) return;
    StreamHelpers* helpers = t_helpers;
    if (!helpers || t_stream_threads <= 1 || n == 1) {
        body(0, n);
        return;
    }
    const size_t chunks = std::min(n, static_cast<size_t>(t_stream_threads));
    // Decremented under helpers->mutex (the sleeping wait below relies on it); also read without
    // the lock while spinning. The jobs write first_error before their decrement (release).
    std::atomic<size_t> pending{chunks - 1};
    std::exception_ptr first_error;
    auto chunk = [&](size_t k) {
        std::exception_ptr error;
        try {
            body(k * n / chunks, (k + 1) * n / chunks);
        } catch (...) {
            error = std::current_exception();
        }
        return error;
    };
    {
        std::lock_guard<std::mutex> lock(helpers->mutex);
        for (size_t k = 1; k < chunks; ++k) {
            helpers->jobs.push_back([&, k] {
                std::exception_ptr error = chunk(k);
                std::lock_guard<std::mutex> job_lock(helpers->mutex);
                if (error && !first_error) first_error = std::move(error);
                error = nullptr;  // released under the lock, before the waiter may free it
                // Last use of the waiter's frame: once `pending` reads 0 the waiter may return
                // (a spinning waiter does not take the lock). done_cv and the mutex outlive it.
                pending.fetch_sub(1, std::memory_order_acq_rel);
                helpers->done_cv.notify_all();
            });
        }
        helpers->queued.store(helpers->jobs.size(), std::memory_order_release);
    }
    helpers->job_cv.notify_all();
    std::exception_ptr own_error = chunk(0);
    // Wait for the helpers, running still-queued chunks here (so progress never depends on the
    // helpers, e.g. for a nested parallel_for or while the executor shuts down); spin a little
    // before sleeping, as the helpers are usually about to finish.
    std::unique_lock<std::mutex> lock(helpers->mutex);
    bool spun = false;
    while (pending.load(std::memory_order_acquire) > 0) {
        if (!helpers->jobs.empty()) {
            auto job = std::move(helpers->jobs.front());
            helpers->jobs.pop_front();
            helpers->queued.store(helpers->jobs.size(), std::memory_order_release);
            lock.unlock();
            job();
            lock.lock();
            continue;
        }
        if (!spun) {
            spun = true;
            lock.unlock();
            spin_until([&] { return pending.load(std::memory_order_acquire) == 0; });
            lock.lock();
            continue;
        }
        helpers->done_cv.wait(lock);
    }
    if (own_error) std::rethrow_exception(own_error);
    if (first_error) std::rethrow_exception(first_error);
}

}  // namespace vireo::sdk
