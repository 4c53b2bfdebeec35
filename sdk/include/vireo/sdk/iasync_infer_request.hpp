// Declares IAsyncInferRequest: the asynchronous request as a pipeline of {executor, task}
// stages, with the state machine every plugin shares.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "vireo/sdk/isync_infer_request.hpp"
#include "vireo/sdk/itask_executor.hpp"
#include "vireo/sdk/run_context.hpp"

namespace vireo::sdk {

/// An asynchronous request. The derived class sets m_pipeline in its constructor: stages run in
/// order, each on its executor, each given the run's RunContext (run_context.hpp) (a null executor
/// runs the stage inline on the thread that ended the previous one); after the last stage (or the
/// first failing one, or a cancel noticed between stages) the completion runs on the callback
/// executor (inline if there is none): the state returns to idle, the user callback gets the error
/// (or null), then wait() returns or rethrows.
///
/// States: idle -> busy (start_async/infer) -> idle. While busy (or cancelled and still
/// winding down), set_tensor(s)/get_tensor(s)/set_callback/start_async/infer/
/// get_profiling_info/query_state throw Busy. start_async() and infer() validate the tensors
/// (ISyncInferRequest::check_tensors) before anything starts, so a bad tensor fails the call
/// itself: no callback, and wait() is unaffected.
///
/// Cancel: cancel() while busy cancels the run's RunContext — the one cancel token: stages not
/// started yet are skipped, a running stage sees RunContext::cancelled() and its on_cancel
/// functions are called (on the cancelling thread, after this request's lock is released) — and
/// the run ends with Cancelled (even if its last stage completed: its outputs may be partial).
/// The request is then idle and usable again. cancel() while idle does nothing.
///
/// Profiling: when a run ends, the sync request keeps its RunContext, so ISyncInferRequest's
/// default get_profiling_info() returns the rows the stages recorded in it.
///
/// The callback: called exactly once per start_async, never for infer(); it may call
/// start_async() on its own request (chaining: the state is idle inside it), set_callback()
/// (the new one serves later runs), or drop the last reference to the request (its destructor
/// then does not wait for the run whose callback is running). It must not call wait() for its
/// own run: that throws Exception instead of deadlocking. An exception it throws is caught,
/// logged and reported once by the next wait() (it replaces a stage's success, never its error).
/// The callable is held by shared_ptr, never copied. A callback already running when another
/// thread starts destroying the request finishes first (the destructor waits for it) and may
/// still read the request (get_tensor(s), get_profiling_info, query_state); anything else it
/// tries then throws "being destroyed".
///
/// wait() / wait_for(): for the last start_async; wait() rethrows its error every time it is
/// called. With nothing started, wait() returns and wait_for() returns true at once.
///
/// A derived class MUST call stop_and_wait() (or cancel_and_stop()) first thing in its
/// destructor, so that no stage runs on a half-destroyed object. Destroying a running request is
/// then safe: it waits for the pipeline (without calling the callback, which is dropped). After
/// stop_and_wait(), start_async and infer throw Exception.
///
/// Thread safety: all public methods may be called from any thread.
class IAsyncInferRequest {
  public:
    using Callback = std::function<void(std::exception_ptr)>;
    using Task = std::function<void(RunContext&)>;
    /// One stage: {executor, task}. The task takes the run's context; a task that needs no
    /// context may be a callable without arguments.
    struct Stage {
        std::shared_ptr<ITaskExecutor> executor;
        Task task;

        Stage(std::shared_ptr<ITaskExecutor> stage_executor, Task stage_task)
            : executor(std::move(stage_executor)), task(std::move(stage_task)) {}
        template <typename F,
                  std::enable_if_t<std::is_invocable_v<F&> && !std::is_invocable_v<F&, RunContext&>,
                                   int> = 0>
        Stage(std::shared_ptr<ITaskExecutor> stage_executor, F stage_task)
            : executor(std::move(stage_executor)),
              task([f = std::move(stage_task)](RunContext&) mutable { f(); }) {}
    };
    using Pipeline = std::vector<Stage>;

    /// What destroying a request does while its pipeline still runs.
    enum class OnDestroy {
        kWait,    ///< stop_and_wait(): the run completes first (the default)
        kCancel,  ///< cancel_and_stop(): the run is cancelled first — for stages that may block
                  ///< for long (a device that hangs, a worker of another device)
    };

    /// Default pipelines: one stage {task_executor, request->infer(run)} for start_async, and
    /// the same task inline for infer(). `on_destroy` is what the base destructor does; a
    /// request with the default pipelines needs no subclass of its own:
    ///
    ///     return std::make_shared<sdk::IAsyncInferRequest>(
    ///         create_sync_infer_request(), get_task_executor(), get_callback_executor(),
    ///         sdk::IAsyncInferRequest::OnDestroy::kCancel);
    IAsyncInferRequest(const std::shared_ptr<ISyncInferRequest>& request,
                       const std::shared_ptr<ITaskExecutor>& task_executor,
                       const std::shared_ptr<ITaskExecutor>& callback_executor,
                       OnDestroy on_destroy = OnDestroy::kWait);
    virtual ~IAsyncInferRequest();

    virtual void start_async();
    /// Runs the sync pipeline in the caller's thread; throws the stage's error.
    virtual void infer();
    /// Waits for the last start_async; rethrows its error (Cancelled if cancelled). Returns at
    /// once if nothing was started.
    virtual void wait();
    /// Like wait() with a timeout; false if still running (then nothing is rethrown). Throws
    /// InvalidArgument if negative.
    virtual bool wait_for(std::chrono::milliseconds timeout);
    virtual void cancel();
    virtual void set_callback(Callback callback);

    virtual Tensor get_tensor(const Output& port) const;
    virtual void set_tensor(const Output& port, const Tensor& tensor);
    virtual std::vector<Tensor> get_tensors(const Output& port) const;
    virtual void set_tensors(const Output& port, const std::vector<Tensor>& tensors);
    virtual std::vector<ProfilingInfo> get_profiling_info() const;
    virtual std::vector<std::shared_ptr<IVariableState>> query_state() const;

    const OutputVector& get_inputs() const { return m_sync_request->get_inputs(); }
    const OutputVector& get_outputs() const { return m_sync_request->get_outputs(); }
    const std::shared_ptr<ISyncInferRequest>& get_sync_request() const { return m_sync_request; }

  protected:
    /// Waits for the running pipeline (and a completion in progress), drops the callback and
    /// refuses new starts. Idempotent. Call first thing in the derived destructor.
    void stop_and_wait();
    /// stop_and_wait() for a request whose stages may block for long (a device that hangs, a
    /// worker of another device): drops the callback, cancels the running pipeline's RunContext
    /// (its later stages are skipped; a running stage sees it), then waits for it. The callback is
    /// not called for that run. Idempotent; call first thing in the derived destructor instead of
    /// stop_and_wait().
    void cancel_and_stop();
    /// Throws Busy if a pipeline is running (or being cancelled), Exception once stopped.
    void check_state() const;

    Pipeline m_pipeline;       ///< for start_async
    Pipeline m_sync_pipeline;  ///< for infer(); run inline in order

  private:
    enum class State { kIdle, kBusy, kCancelled, kStopped };
    struct Run;  // one start_async or infer(): its context, result and completion flag

    void run_stage(const std::shared_ptr<Run>& run, size_t stage);
    void finish(const std::shared_ptr<Run>& run, std::exception_ptr error);
    void complete(const std::shared_ptr<Run>& run, std::exception_ptr error);
    /// Marks the current run cancelled (m_mutex held); returns it for cancel_functions().
    std::shared_ptr<Run> cancel_locked();
    /// Calls the run's on_cancel functions; m_mutex must not be held.
    static void cancel_functions(const std::shared_ptr<Run>& run);
    /// Throws Busy (busy or cancelling) or Exception (stopped); m_mutex must be held. `read`: a
    /// read from inside this request's running callback is allowed while it is stopped.
    void check_state_locked(const char* what, bool read = false) const;
    std::shared_ptr<Run> begin_run_locked(const char* what);

    std::shared_ptr<ISyncInferRequest> m_sync_request;
    std::shared_ptr<ITaskExecutor> m_callback_executor;
    OnDestroy m_on_destroy;
    mutable std::mutex m_mutex;
    std::condition_variable m_done_cv;
    State m_state = State::kIdle;
    // Held by shared_ptr so a completion can call it without moving it out of the request: a
    // callback that chains start_async() then still has a callback for the chained run.
    std::shared_ptr<Callback> m_callback;
    std::shared_ptr<Run> m_last_run;      // the last start_async, for wait()
    std::shared_ptr<Run> m_current_run;   // the running start_async or infer(), for cancel()
    size_t m_unfinished = 0;              // runs whose completion has not finished yet
    std::exception_ptr m_callback_error;  // thrown by a callback, for the next wait()
};

}  // namespace vireo::sdk
