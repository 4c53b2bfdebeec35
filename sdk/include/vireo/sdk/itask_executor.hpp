// Declares ITaskExecutor, the interface every executor (streams, immediate, wait) implements.
#pragma once

#include <functional>
#include <vector>

namespace vireo::sdk {

using Task = std::function<void()>;

/// Runs tasks somewhere. Implementations are thread-safe: run() may be called from any thread,
/// including from inside a task. run() does not wait; a task's exception is the task's own
/// business (executors catch and log what escapes, so one failing task never kills a worker).
class ITaskExecutor {
  public:
    virtual ~ITaskExecutor() = default;
    /// Queues `task` for execution (or runs it at once, for an immediate executor).
    virtual void run(Task task) = 0;
    /// Runs every task and waits for all of them; rethrows the first exception a task threw
    /// (after all finished). The tasks are referenced, not copied. Must not be called from a
    /// task of the same single-threaded executor (it would deadlock).
    virtual void run_and_wait(const std::vector<Task>& tasks);
};

/// Runs each task in the caller's thread, at once.
class ImmediateExecutor : public ITaskExecutor {
  public:
    void run(Task task) override { task(); }
};

}  // namespace vireo::sdk
