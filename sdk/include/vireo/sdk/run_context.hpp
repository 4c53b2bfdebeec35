// Declares RunContext: what one run of an infer request (one start_async or infer()) hands to
// its pipeline stages and to ISyncInferRequest::infer — the run's cancel token and its
// profiling sink.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vireo/profiling_info.hpp"

namespace vireo::sdk {

class IAsyncInferRequest;
namespace detail {
struct RunCancelState;  // run_context.cpp
}  // namespace detail

/// The five pipeline stages every plugin reports first in its profiling rows, in this order
/// (names: vireo/profiling_info.hpp).
enum class PipelineStage {
    kInputPreprocessing,
    kInputTransfer,
    kExecution,
    kOutputTransfer,
    kOutputPostprocessing,
};
inline constexpr size_t kPipelineStageCount = 5;
/// The stage's row name ("input preprocessing", ...).
const char* pipeline_stage_name(PipelineStage stage);

/// One run. IAsyncInferRequest creates it when start_async() or infer() begins, passes the same
/// object to every stage of that run (stages run one after another, possibly on different
/// threads), and ends it when the run completes. A stage must not keep it past its own return.
///
/// Cancel token — the one way a run learns it was cancelled (IAsyncInferRequest::cancel(), or
/// the request being destroyed by cancel_and_stop()):
/// - cancelled(): an atomic load, cheap enough to poll between ops;
/// - throw_if_cancelled(what): throws Cancelled naming `what`;
/// - on_cancel(fn): for work that blocks (a device queue, a wait for another request): `fn` runs
///   once, on the cancelling thread, when the run is cancelled — at once, on the calling thread,
///   if it already was. It runs without the async request's lock held but must still be quick
///   and must not call the async request. The returned registration removes it when destroyed;
///   destroying it waits for a call of `fn` in progress on another thread, so after that `fn`'s
///   captures may die. A registration may outlive its run (kept in a member across stages):
///   once the run is over it does nothing.
/// A run that was cancelled ends with Cancelled whatever its stages did (later stages are
/// skipped); a stage may therefore also just return early.
///
/// Profiling sink — rows for get_profiling_info(), so a plugin need not keep its own:
/// - stage(s, time[, status, exec_type]): the row of a pipeline stage (a later call for the same
///   stage adds its time); time_stage(s) returns a timer that records on destruction (an error
///   included). Stages never recorded are reported NOT_RUN;
/// - op(row): a per-op row, in the order recorded (a plugin records them when its
///   `ENABLE_PROFILING` is on); op_rows(source): rows built only when asked for, after the op()
///   rows — nothing per op is formatted on the inference path (reference::record_step_rows).
/// When the run ends, ISyncInferRequest's default get_profiling_info() returns the five stage
/// rows (in the order above) followed by the op rows of that run. A plugin that overrides
/// get_profiling_info() may ignore the sink.
///
/// Thread safety: cancelled(), on_cancel() and registrations may be used from any thread; the
/// profiling sink only from the stage running.
class RunContext {
  public:
    using Clock = std::chrono::steady_clock;

    /// Removes an on_cancel function when destroyed (see the class comment). Movable.
    class CancelRegistration {
      public:
        CancelRegistration() = default;
        CancelRegistration(CancelRegistration&& other) noexcept;
        CancelRegistration& operator=(CancelRegistration&& other) noexcept;
        CancelRegistration(const CancelRegistration&) = delete;
        CancelRegistration& operator=(const CancelRegistration&) = delete;
        ~CancelRegistration();
        /// Removes it now (idempotent).
        void reset();

      private:
        friend class RunContext;
        std::weak_ptr<detail::RunCancelState> m_state;
        size_t m_id = 0;
    };

    /// Records the stage's time when destroyed (also when the stage throws).
    class StageTimer {
      public:
        /// `exec_type` must outlive the run (a string literal).
        StageTimer(RunContext& context, PipelineStage stage, const char* exec_type);
        StageTimer(const StageTimer&) = delete;
        StageTimer& operator=(const StageTimer&) = delete;
        ~StageTimer();

      private:
        RunContext& m_context;
        PipelineStage m_stage;
        const char* m_exec_type;
        Clock::time_point m_start;
    };

    RunContext();
    ~RunContext();
    RunContext(const RunContext&) = delete;
    RunContext& operator=(const RunContext&) = delete;

    bool cancelled() const noexcept { return m_cancelled.load(std::memory_order_acquire); }
    /// Throws Cancelled("<what>: the inference was cancelled") when cancelled().
    void throw_if_cancelled(const std::string& what) const;
    [[nodiscard]] CancelRegistration on_cancel(std::function<void()> fn);

    void stage(PipelineStage stage, std::chrono::microseconds time,
               ProfilingInfo::Status status = ProfilingInfo::Status::EXECUTED,
               const char* exec_type = "host");
    /// `exec_type` (here and in stage()): a string that outlives the run, such as a literal; the
    /// sink keeps the pointer and copies it only when rows are asked for.
    [[nodiscard]] StageTimer time_stage(PipelineStage stage, const char* exec_type = "host") {
        return StageTimer(*this, stage, exec_type);
    }
    void op(ProfilingInfo row);
    /// Appends its rows when profiling_rows() is called (after the run, when the user asks).
    /// What it reads must outlive the context: capture shared pointers, or members of the sync
    /// request (the request keeps its last run's context, so they stay those of that run).
    using RowSource = std::function<void(std::vector<ProfilingInfo>& rows)>;
    void op_rows(RowSource source);
    /// The rows recorded so far: five stage rows, then the op rows.
    std::vector<ProfilingInfo> profiling_rows() const;

    /// Marks the run cancelled and calls the registered functions (each once). Idempotent.
    /// Called by IAsyncInferRequest; code that runs a sync request without one (a test) may call
    /// it too.
    void cancel();

  private:
    friend class IAsyncInferRequest;
    /// Only the flag (the async request sets it under its own lock, then calls cancel() after
    /// releasing it, so the functions never run under that lock).
    void mark_cancelled() noexcept { m_cancelled.store(true, std::memory_order_release); }

    std::atomic<bool> m_cancelled{false};
    // The on_cancel functions, shared with the registrations so that one outliving the run is
    // harmless; made by the first on_cancel (most runs register none), under m_state_mutex.
    std::mutex m_state_mutex;
    std::shared_ptr<detail::RunCancelState> m_cancel_state;
    // Stage rows are kept compact and named only in profiling_rows(): a run that never reports
    // its profile costs no string.
    struct StageRecord {
        ProfilingInfo::Status status = ProfilingInfo::Status::NOT_RUN;
        std::chrono::microseconds time{0};
        const char* exec_type = "";
    };
    StageRecord m_stages[kPipelineStageCount];
    std::vector<ProfilingInfo> m_ops;
    std::vector<RowSource> m_row_sources;
};

}  // namespace vireo::sdk
