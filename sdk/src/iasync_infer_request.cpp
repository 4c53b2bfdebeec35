// Implements IAsyncInferRequest: the idle/busy/cancelled/stopped state machine, stage chaining
// over executors, the completion (callback, then waiters), cancel and stop_and_wait.
#include "vireo/sdk/iasync_infer_request.hpp"

#include "vireo/exception.hpp"
#include "vireo/log.hpp"
#include "vireo/sdk/ivariable_state.hpp"
#include "vireo/trace.hpp"

namespace vireo::sdk {

struct IAsyncInferRequest::Run {
    RunContext context;       // its cancel flag is set under m_mutex (cancel_locked)
    bool done = false;        // the completion has finished; guarded by m_mutex
    bool owner_gone = false;  // the request was destroyed from this run's own callback
    std::exception_ptr error;
};

namespace {

// The completion running on this thread (a callback is being called), so that wait() and
// stop_and_wait() called from inside that callback can avoid waiting for themselves.
struct Completing {
    const void* request = nullptr;
    void* run = nullptr;  // an IAsyncInferRequest::Run
};
thread_local Completing t_completing;

bool is_cancelled_error(const std::exception_ptr& error) {
    if (!error) return false;
    try {
        std::rethrow_exception(error);
    } catch (const Exception& e) {
        return e.kind() == ErrorKind::kCancelled;
    } catch (...) {
        return false;
    }
}

// Tells the trace observer (vireo/trace.hpp) about a finished stage; only called when tracing.
void emit_stage(const void* request, size_t stage, size_t count, bool completion, bool sync,
                std::chrono::steady_clock::time_point begin) {
    trace::StageEvent event;
    event.request = request;
    event.stage = stage;
    event.stage_count = count;
    event.completion = completion;
    event.sync = sync;
    event.begin = begin;
    event.end = std::chrono::steady_clock::now();
    trace::emit(std::move(event));
}

std::exception_ptr cancelled_error() {
    return std::make_exception_ptr(Cancelled("infer request was cancelled"));
}

void log_callback_error(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        VIREO_LOG(ERR) << "infer request callback threw: " << e.what();
    } catch (...) {
        VIREO_LOG(ERR) << "infer request callback threw a non-std exception";
    }
}

}  // namespace

IAsyncInferRequest::IAsyncInferRequest(const std::shared_ptr<ISyncInferRequest>& request,
                                       const std::shared_ptr<ITaskExecutor>& task_executor,
                                       const std::shared_ptr<ITaskExecutor>& callback_executor,
                                       OnDestroy on_destroy)
    : m_sync_request(request), m_callback_executor(callback_executor), m_on_destroy(on_destroy) {
    if (!m_sync_request)
        throw_error<InvalidArgument>("IAsyncInferRequest: the sync request is null");
    m_pipeline = {{task_executor, [this](RunContext& run) { m_sync_request->infer(run); }}};
    m_sync_pipeline = {{std::make_shared<ImmediateExecutor>(),
                        [this](RunContext& run) { m_sync_request->infer(run); }}};
}

IAsyncInferRequest::~IAsyncInferRequest() {
    if (m_on_destroy == OnDestroy::kCancel)
        cancel_and_stop();
    else
        stop_and_wait();
}

void IAsyncInferRequest::check_state_locked(const char* what, bool read) const {
    switch (m_state) {
        case State::kIdle:
            return;
        case State::kBusy:
            throw_error<Busy>("infer request is busy: cannot ", what,
                              " while an inference is running");
        case State::kCancelled:
            throw_error<Busy>("infer request is busy: cannot ", what,
                              " while a cancelled inference is stopping");
        case State::kStopped:
            // A callback that started before the destruction may still read its outputs: the
            // destructor waits for it, so the sync request is alive.
            if (read && t_completing.request == this) return;
            throw_error<Exception>("infer request is being destroyed: cannot ", what);
    }
}

void IAsyncInferRequest::check_state() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    check_state_locked("use it");
}

std::shared_ptr<IAsyncInferRequest::Run> IAsyncInferRequest::begin_run_locked(const char* what) {
    check_state_locked(what);
    // Validated before the state changes: a bad tensor fails the call, not the run.
    m_sync_request->check_tensors();
    auto run = std::make_shared<Run>();
    m_state = State::kBusy;
    m_current_run = run;
    ++m_unfinished;
    return run;
}

void IAsyncInferRequest::start_async() {
    std::shared_ptr<Run> run;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        run = begin_run_locked("start_async");
        m_last_run = run;
    }
    if (m_pipeline.empty()) {
        finish(run, nullptr);
        return;
    }
    try {
        run_stage(run, 0);
    } catch (...) {
        // The first executor refused the task: nothing ran, so no callback; wait() reports it.
        std::lock_guard<std::mutex> lock(m_mutex);
        run->error = std::current_exception();
        run->done = true;
        --m_unfinished;
        if (m_state != State::kStopped) m_state = State::kIdle;
        if (m_current_run == run) m_current_run.reset();
        m_done_cv.notify_all();
        throw;
    }
}

void IAsyncInferRequest::run_stage(const std::shared_ptr<Run>& run, size_t stage) {
    auto task = [this, run, stage] {
        // Cancelled: this and every later stage are skipped; the completion reports Cancelled.
        if (run->context.cancelled()) {
            finish(run, nullptr);
            return;
        }
        std::exception_ptr error;
        const bool tracing = trace::enabled();
        const auto begin =
            tracing ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
        try {
            m_pipeline[stage].task(run->context);
        } catch (...) {
            error = std::current_exception();
        }
        if (tracing) emit_stage(this, stage, m_pipeline.size(), false, false, begin);
        if (error || stage + 1 == m_pipeline.size()) {
            finish(run, std::move(error));
            return;  // `this` may be gone now
        }
        try {
            run_stage(run, stage + 1);
        } catch (...) {
            finish(run, std::current_exception());
        }
    };
    // Once the task is queued it may finish the run, and the request (and with it the last
    // reference to an executor) may die before run() returns: run() must not touch the executor
    // after queueing (CPUStreamsExecutor notifies under its lock), and nothing here may touch
    // `this` afterwards. No local copy of the executor is kept on purpose: releasing the last
    // reference here, on another executor's thread, could make two executors join each other.
    const auto& executor = m_pipeline[stage].executor;
    if (executor)
        executor->run(std::move(task));
    else
        task();
}

void IAsyncInferRequest::finish(const std::shared_ptr<Run>& run, std::exception_ptr error) {
    if (m_callback_executor) {  // no local copy of the executor: see run_stage
        try {
            m_callback_executor->run(
                [this, run, error]() mutable { complete(run, std::move(error)); });
            return;
        } catch (...) {
            VIREO_LOG(ERR)
                << "infer request: the callback executor refused the completion; completing inline";
        }
    }
    complete(run, std::move(error));
}

void IAsyncInferRequest::complete(const std::shared_ptr<Run>& run, std::exception_ptr error) {
    std::shared_ptr<Callback> callback;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (run->context.cancelled() && !is_cancelled_error(error)) error = cancelled_error();
        // Idle before the callback, so the callback may start the request again; the profile
        // is the sync request's from now on.
        if (m_state != State::kStopped) m_state = State::kIdle;
        if (m_current_run == run) m_current_run.reset();
        m_sync_request->set_last_run(std::shared_ptr<const RunContext>(run, &run->context));
        callback =
            m_callback;  // shares the callable; a set_callback() inside replaces only m_callback
    }
    std::exception_ptr callback_error;
    if (callback && *callback) {
        const Completing outer = t_completing;
        t_completing = {this, run.get()};
        const bool tracing = trace::enabled();
        const auto begin =
            tracing ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
        const size_t stages = m_pipeline.size();
        try {
            (*callback)(error);
        } catch (...) {
            callback_error = std::current_exception();
            log_callback_error(callback_error);
        }
        if (tracing) emit_stage(this, stages, stages, true, false, begin);  // `this` only as an id
        t_completing = outer;
        callback.reset();
        if (run->owner_gone) return;  // destroyed from its own callback: `this` is gone
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    // Moved under the lock so this thread holds no reference to an exception once a waiter can
    // run (libstdc++'s exception_ptr count is opaque to ThreadSanitizer).
    if (callback_error && !error) m_callback_error = std::move(callback_error);
    callback_error = nullptr;
    run->error = std::move(error);
    run->done = true;
    --m_unfinished;
    // Notified under the lock: once it is released, stop_and_wait() may let `this` die.
    m_done_cv.notify_all();
}

void IAsyncInferRequest::infer() {
    std::shared_ptr<Run> run;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        run = begin_run_locked("infer");
    }
    std::exception_ptr error;
    for (size_t stage = 0; stage < m_sync_pipeline.size(); ++stage) {
        // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const Stage& current = m_sync_pipeline[stage];
        const auto& executor = current.executor;
        if (run->context.cancelled()) break;
        const bool tracing = trace::enabled();
        const auto begin =
            tracing ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
        try {
            RunContext& context = run->context;
            if (!executor || dynamic_cast<ImmediateExecutor*>(executor.get()))
                current.task(context);
            else
                executor->run_and_wait({[&current, &context] { current.task(context); }});
        } catch (...) {
            error = std::current_exception();
        }
        if (tracing) emit_stage(this, stage, m_sync_pipeline.size(), false, true, begin);
        if (error) break;
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (run->context.cancelled() && !is_cancelled_error(error)) error = cancelled_error();
        if (m_state != State::kStopped) m_state = State::kIdle;
        if (m_current_run == run) m_current_run.reset();
        m_sync_request->set_last_run(std::shared_ptr<const RunContext>(run, &run->context));
        run->error = error;
        run->done = true;
        --m_unfinished;
        m_done_cv.notify_all();
    }
    if (error) std::rethrow_exception(error);
}

void IAsyncInferRequest::wait() {
    std::unique_lock<std::mutex> lock(m_mutex);
    auto run = m_last_run;
    if (!run) return;
    if (t_completing.run == run.get())
        throw_error<Exception>(
            "infer request: wait() called from the callback of the run it waits for "
            "(it would never return)");
    m_done_cv.wait(lock, [&] { return run->done; });
    if (run->error) std::rethrow_exception(run->error);
    if (m_callback_error) std::rethrow_exception(std::exchange(m_callback_error, nullptr));
}

bool IAsyncInferRequest::wait_for(std::chrono::milliseconds timeout) {
    if (timeout.count() < 0)
        throw_error<InvalidArgument>("infer request: wait_for timeout must be >= 0 ms, got ",
                                     timeout.count(), " ms");
    std::unique_lock<std::mutex> lock(m_mutex);
    auto run = m_last_run;
    if (!run) return true;
    if (!m_done_cv.wait_for(lock, timeout, [&] { return run->done; })) return false;
    if (run->error) std::rethrow_exception(run->error);
    if (m_callback_error) std::rethrow_exception(std::exchange(m_callback_error, nullptr));
    return true;
}

std::shared_ptr<IAsyncInferRequest::Run> IAsyncInferRequest::cancel_locked() {
    if (m_state != State::kBusy || !m_current_run) return nullptr;
    m_state = State::kCancelled;
    // The flag under the lock, so a completion that takes the lock after this reports
    // Cancelled, and the request cannot have moved on to another run in the meantime.
    m_current_run->context.mark_cancelled();
    return m_current_run;
}

void IAsyncInferRequest::cancel_functions(const std::shared_ptr<Run>& run) {
    // Outside the lock: the functions may wait for a device or another request. The run (held
    // here) outlives the call even if it completes meanwhile; its registrations are removed by
    // then or wait for the call in progress.
    if (run) run->context.cancel();
}

void IAsyncInferRequest::cancel() {
    std::shared_ptr<Run> run;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        run = cancel_locked();
    }
    cancel_functions(run);
}

void IAsyncInferRequest::set_callback(Callback callback) {
    std::lock_guard<std::mutex> lock(m_mutex);
    check_state_locked("set_callback");
    m_callback = callback ? std::make_shared<Callback>(std::move(callback)) : nullptr;
}

void IAsyncInferRequest::stop_and_wait() {
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_state == State::kStopped) return;
    m_state = State::kStopped;
    m_callback.reset();
    // Destroyed from inside its own callback: that run cannot finish before we return, so it is
    // told to leave `this` alone; every other run is waited for.
    size_t own = 0;
    if (t_completing.request == this) {
        static_cast<Run*>(t_completing.run)->owner_gone = true;
        own = 1;
    }
    m_done_cv.wait(lock, [&] { return m_unfinished <= own; });
}

void IAsyncInferRequest::cancel_and_stop() {
    std::shared_ptr<Run> run;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_state == State::kStopped) return;
        m_callback.reset();  // before the cancel, so the cancelled run's completion finds none
        run = cancel_locked();
    }
    cancel_functions(run);
    run.reset();
    stop_and_wait();
}

Tensor IAsyncInferRequest::get_tensor(const Output& port) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    check_state_locked("get_tensor", true);
    return m_sync_request->get_tensor(port);
}

void IAsyncInferRequest::set_tensor(const Output& port, const Tensor& tensor) {
    std::lock_guard<std::mutex> lock(m_mutex);
    check_state_locked("set_tensor");
    m_sync_request->set_tensor(port, tensor);
}

std::vector<Tensor> IAsyncInferRequest::get_tensors(const Output& port) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    check_state_locked("get_tensors", true);
    return m_sync_request->get_tensors(port);
}

void IAsyncInferRequest::set_tensors(const Output& port, const std::vector<Tensor>& tensors) {
    std::lock_guard<std::mutex> lock(m_mutex);
    check_state_locked("set_tensors");
    m_sync_request->set_tensors(port, tensors);
}

std::vector<ProfilingInfo> IAsyncInferRequest::get_profiling_info() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    check_state_locked("get_profiling_info", true);
    return m_sync_request->get_profiling_info();
}

std::vector<std::shared_ptr<IVariableState>> IAsyncInferRequest::query_state() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    check_state_locked("query_state", true);
    return m_sync_request->query_state();
}

}  // namespace vireo::sdk
