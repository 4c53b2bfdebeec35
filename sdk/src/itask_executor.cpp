// Implements ITaskExecutor::run_and_wait, the fan-out/join every executor gets by default.
#include "vireo/sdk/itask_executor.hpp"

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <utility>

namespace vireo::sdk {

void ITaskExecutor::run_and_wait(const std::vector<Task>& tasks) {
    // The join state is shared with the wrappers so a wrapper that finishes after an early
    // return (impossible here, but cheap to rule out) never touches a dead stack frame.
    struct Join {
        std::mutex mutex;
        std::condition_variable cv;
        size_t pending = 0;
        std::exception_ptr first_error;
    };
    auto join = std::make_shared<Join>();
    join->pending = tasks.size();
    for (const Task& task : tasks) {
        // The tasks vector outlives the wait below, so each wrapper refers to its task instead
        // of copying it.
        const Task* task_ptr = &task;
        auto wrapper = [join, task_ptr] {
            std::exception_ptr error;
            try {
                (*task_ptr)();
            } catch (...) {
                error = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(join->mutex);
            if (error && !join->first_error) join->first_error = std::move(error);
            // Drop our reference under the lock: the waiter then frees the exception, and no
            // release on this thread races with it (libstdc++'s exception_ptr count is opaque
            // to ThreadSanitizer).
            error = nullptr;
            if (--join->pending == 0) join->cv.notify_all();
        };
        try {
            run(std::move(wrapper));
        } catch (...) {
            // The executor refused the task: count it as done with that error.
            std::lock_guard<std::mutex> lock(join->mutex);
            if (!join->first_error) join->first_error = std::current_exception();
            --join->pending;
        }
    }
    std::unique_lock<std::mutex> lock(join->mutex);
    join->cv.wait(lock, [&] { return join->pending == 0; });
    if (auto error = std::exchange(join->first_error, nullptr)) std::rethrow_exception(error);
}

}  // namespace vireo::sdk
