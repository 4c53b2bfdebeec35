// Declares CPUStreamsExecutor: N streams, each a worker thread plus helper threads for
// parallel_for.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "vireo/sdk/itask_executor.hpp"

namespace vireo::sdk {

/// The common sane range of stream and thread counts, for every plugin's NUM_STREAMS and
/// INFERENCE_NUM_THREADS and for CPUStreamsExecutor itself: at most kMaxStreams streams and at
/// most kMaxThreads threads in one executor (streams x threads_per_stream). A value beyond them
/// is a configuration error (an InvalidArgument), not a reason to exhaust the process's threads.
inline constexpr int kMaxStreams = 256;
inline constexpr int kMaxThreads = 1024;

struct StreamsConfig {
    /// Thread names are "<name>/<stream>" for a stream's worker and "<name>/<stream>.<t>" for its
    /// helpers, shortened to fit Linux's 15 characters by thread_name().
    std::string name = "StreamsExecutor";
    int streams = 1;             ///< tasks run on up to this many streams at once
    int threads_per_stream = 1;  ///< threads a task may use through parallel_for
    /// Pin thread t of stream s (t = 0 is the worker) to the (s * threads_per_stream + t)-th CPU
    /// of the process's affinity mask, modulo its size; with one thread per stream, stream s
    /// runs on CPU s % cores. A failure to pin is logged, not thrown.
    bool pin_threads = false;
    /// Start a stream's threads when a task finds no idle worker (up to `streams`), instead of
    /// all of them in the constructor: for executors sized for the worst case that usually run a
    /// few tasks at once (a meta-device's requests that wait for other devices). Started threads
    /// stay until the executor is destroyed.
    bool start_on_demand = false;
    bool operator==(const StreamsConfig& other) const {
        return name == other.name && streams == other.streams &&
               threads_per_stream == other.threads_per_stream && pin_threads == other.pin_threads &&
               start_on_demand == other.start_on_demand;
    }
};

/// The name of thread `thread` (0: the worker) of `stream` of an executor called `name`:
/// "<name>/<stream>[.<thread>]" when it fits Linux's 15 characters. Otherwise a role after the
/// last '/' shrinks to its first letter ("VENDORX.0/wait" -> "VENDORX.0w/0"), or is dropped
/// ("MOCK_REMOTE.1/wait" -> "MOCK_REMOTE.1/0"); then the device name before the first '.' is
/// cut, keeping the instance id ("AVERYLONGVENDOR.12/wait" -> "AVERYLONGV.12/0"); only then is
/// the name cut from its end.
std::string thread_name(const std::string& name, int stream, int thread);

/// A pool of streams pulling tasks from one FIFO queue. Each stream has one worker thread that
/// runs tasks, and threads_per_stream - 1 helpers that parallel_for() from a task on that
/// stream may use. With one stream, tasks run one at a time in the order they were queued.
///
/// Why plain std::thread and not TBB or OpenMP: no new dependency, named and pinned threads
/// under our control, and a shutdown we can define exactly (drain, then join); parallel_for
/// only needs a static split of a range, which a handful of helper threads do well.
///
/// Lifetime: the destructor drains: every task queued before it (and every task those tasks
/// queue) runs, then the threads join. Destroying the executor from one of its own tasks is
/// allowed: that thread is detached and finishes the queue on its own. Destroying it from a
/// task of *another* executor joins there, so two executors must never drop each other's last
/// reference from their tasks (each would wait for the other).
/// Errors: an exception escaping a task is caught and logged (glog ERROR); the stream keeps
/// working. The constructor throws InvalidArgument for streams or threads_per_stream < 1, for
/// streams > kMaxStreams and for streams x threads_per_stream > kMaxThreads; and Unavailable
/// when the system refuses a thread (a process or memory limit): every thread started so far
/// is stopped and joined first, so a failed construction leaves nothing running. With
/// start_on_demand, run() starts threads: when none can start and no worker exists yet, run()
/// throws Unavailable and the task is not queued; with workers running, it is queued for them.
/// Thread safety: every method may be called from any thread, including from its tasks.
///
///     auto exec = std::make_shared<CPUStreamsExecutor>(StreamsConfig{"Infer", 2, 1});
///     exec->run([] { ... });
class CPUStreamsExecutor : public ITaskExecutor {
  public:
    explicit CPUStreamsExecutor(StreamsConfig config = {});
    ~CPUStreamsExecutor() override;
    CPUStreamsExecutor(const CPUStreamsExecutor&) = delete;
    CPUStreamsExecutor& operator=(const CPUStreamsExecutor&) = delete;

    /// Queues `task` (FIFO). Throws InvalidArgument for an empty task.
    void run(Task task) override;
    const StreamsConfig& get_config() const;
    int get_streams_num() const;
    /// Tasks queued and not started yet.
    size_t queued() const;
    /// Stream worker threads started so far (`streams` unless start_on_demand).
    int started_streams() const;

    /// Stream id (0..streams-1) of the calling thread if it is a worker or helper of *some*
    /// streams executor, else -1.
    static int current_stream_id();
    /// Calls body(begin, end) on min(n, threads_per_stream) contiguous chunks that cover [0, n)
    /// exactly once, the chunks running on the calling stream's worker (this thread) and its
    /// helpers; returns when all are done. Outside a stream, inside a helper, or with one thread
    /// per stream it calls body(0, n) in the caller. Nested calls are allowed. Every chunk runs
    /// even if one throws; then the first exception is rethrown. Helpers, and the caller
    /// waiting for them, spin for about 100 us before they sleep, so back-to-back calls (one
    /// per op of an inference) do not pay a thread wake-up each; an idle executor sleeps.
    ///
    ///     CPUStreamsExecutor::parallel_for(rows, [&](size_t b, size_t e) { for (...) ... });
    static void parallel_for(size_t n, const std::function<void(size_t begin, size_t end)>& body);

  private:
    /// Stops every started thread after the queue drains and joins it (detaches the caller's own).
    void stop_and_join();
    /// Starts the next stream's worker and helpers (constructor, or run() under the lock).
    void start_stream();

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace vireo::sdk
