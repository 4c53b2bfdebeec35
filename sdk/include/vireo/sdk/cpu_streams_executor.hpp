// Declares CPUStreamsExecutor: N streams, each a worker thread plus helper threads for parallel_for.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "vireo/sdk/itask_executor.hpp"

namespace vireo::sdk {

struct StreamsConfig {
    std::string name = "StreamsExecutor";  ///< thread names are "<name>/<stream>" (truncated to 15 chars)
    int streams = 1;                        ///< tasks run on up to this many streams at once
    int threads_per_stream = 1;             ///< threads a task may use through parallel_for
    bool pin_threads = false;               ///< pin stream s to core s % cores
    bool operator==(const StreamsConfig& other) const {
        return name == other.name && streams == other.streams && threads_per_stream == other.threads_per_stream &&
               pin_threads == other.pin_threads;
    }
};

/// A pool of streams pulling tasks from one FIFO queue. Each stream has one worker thread that
/// runs tasks, and threads_per_stream - 1 helpers that parallel_for() from a task on that
/// stream may use. Destruction drains: every task queued before the destructor runs, then the
/// threads join. An exception escaping a task is caught and logged; the stream keeps working.
///
///     auto exec = std::make_shared<CPUStreamsExecutor>(StreamsConfig{"Infer", 2, 1});
///     exec->run([] { ... });
class CPUStreamsExecutor : public ITaskExecutor {
public:
    explicit CPUStreamsExecutor(StreamsConfig config = {});
    ~CPUStreamsExecutor() override;
    CPUStreamsExecutor(const CPUStreamsExecutor&) = delete;
    CPUStreamsExecutor& operator=(const CPUStreamsExecutor&) = delete;

    void run(Task task) override;
    const StreamsConfig& get_config() const;
    int get_streams_num() const;
    /// Tasks queued and not started yet.
    size_t queued() const;

    /// Stream id (0..streams-1) of the calling thread if it is a worker of *some* streams
    /// executor, else -1.
    static int current_stream_id();
    /// Runs body(i) for i in [0, n), splitting the range over the calling stream's threads;
    /// outside a stream (or with one thread per stream) it runs serially in the caller.
    /// Rethrows the first exception from body.
    static void parallel_for(size_t n, const std::function<void(size_t begin, size_t end)>& body);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace vireo::sdk
