// Declares InferJob, one inference request on its way through a model version's queue and pool,
// and TensorInfo/OutputData, the transport-neutral description of tensors.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "status.hpp"
#include "vireo/element_type.hpp"
#include "vireo/tensor.hpp"

namespace vireo::server {

/// A model input or output as the protocol describes it: -1 for a dynamic dimension.
struct TensorInfo {
    std::string name;
    element::Type type;
    std::vector<int64_t> shape;
};

/// One output of a finished inference: its bytes are little-endian and row-major.
struct OutputData {
    std::string name;
    element::Type type;
    std::vector<int64_t> shape;
    std::string bytes;
};

using Clock = std::chrono::steady_clock;

/// A request for one inference. The transport fills `inputs` (index of the model input and a
/// tensor that the job owns), `outputs` (indices of the model outputs to return), `deadline`
/// and `on_done`; the model version runs it. `on_done` is called exactly once, on the thread
/// that completes the job (a device callback thread, or the caller of submit()/cancel()), and must
/// not block.
struct InferJob {
    std::vector<std::pair<size_t, Tensor>> inputs;
    std::vector<size_t> outputs;
    Clock::time_point deadline = Clock::time_point::max();
    std::function<void(Status, std::vector<OutputData>)> on_done;

    // Scheduler state, guarded by the model version's mutex.
    Clock::time_point enqueued;
    int slot = -1;  // the infer request running it, -1 when queued or not started
    // Set by the scheduler before it calls finish(), so on_done may read them: the time from
    // submit() to the start of the job's run, and the run's (its batch's) duration on the device.
    // Zero for a job that never ran.
    Clock::duration queued_for{};
    Clock::duration ran_for{};

    /// Calls on_done the first time; later calls do nothing. Returns whether this call did.
    /// on_done is released once called, with whatever it captured (a transport's state often
    /// holds this job, so keeping the callback would keep both alive).
    bool finish(Status status, std::vector<OutputData> outputs = {}) {
        if (m_finished.exchange(true)) return false;
        auto done = std::move(on_done);
        on_done = nullptr;
        if (done) done(std::move(status), std::move(outputs));
        return true;
    }
    bool finished() const { return m_finished.load(); }

  private:
    std::atomic<bool> m_finished{false};
};

/// Whole microseconds / nanoseconds of a duration, for statistics and metrics.
uint64_t micros(Clock::duration d);
uint64_t nanos(Clock::duration d);

/// The Status of an inference's error: Cancelled past the job's deadline is kDeadlineExceeded,
/// InvalidArgument stays, Busy/Unavailable become kUnavailable, anything else kInternal.
Status status_of(std::exception_ptr error, const InferJob& job);

}  // namespace vireo::server
