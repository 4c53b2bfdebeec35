// Implements RunContext: the run's cancel flag and cancel functions, and its profiling rows.
#include "vireo/sdk/run_context.hpp"

#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>
#include <utility>

#include "vireo/exception.hpp"
#include "vireo/log.hpp"

namespace vireo::sdk {

const char* pipeline_stage_name(PipelineStage stage) {
    switch (stage) {
        case PipelineStage::kInputPreprocessing:
            return kStageInputPreprocessing;
        case PipelineStage::kInputTransfer:
            return kStageInputTransfer;
        case PipelineStage::kExecution:
            return kStageExecution;
        case PipelineStage::kOutputTransfer:
            return kStageOutputTransfer;
        case PipelineStage::kOutputPostprocessing:
            return kStageOutputPostprocessing;
    }
    return "unknown stage";
}

// The on_cancel functions of one run. `calling` and `calling_thread` describe a cancel() in
// progress, so that a registration removed while its function runs waits for it (unless it is
// removed from inside that function).
namespace detail {
struct RunCancelState {
    struct Callback {
        size_t id;
        std::function<void()> fn;
    };
    std::mutex mutex;
    std::condition_variable call_done;
    std::list<Callback> callbacks;
    size_t next_id = 1;
    size_t calling = 0;
    std::thread::id calling_thread;
    bool called = false;  // cancel() has taken the list

    void remove(size_t id) {
        std::unique_lock<std::mutex> lock(mutex);
        for (auto it = callbacks.begin(); it != callbacks.end(); ++it) {
            if (it->id == id) {
                callbacks.erase(it);
                return;
            }
        }
        // Not in the list: being called now, or done. Wait for a call on another thread, so the
        // function's captures outlive it; from inside the function there is nothing to wait.
        if (calling_thread == std::this_thread::get_id()) return;
        call_done.wait(lock, [&] { return calling != id; });
    }
};
}  // namespace detail

RunContext::CancelRegistration::CancelRegistration(CancelRegistration&& other) noexcept
    : m_state(std::move(other.m_state)), m_id(std::exchange(other.m_id, 0)) {
    other.m_state.reset();
}

RunContext::CancelRegistration& RunContext::CancelRegistration::operator=(
    CancelRegistration&& other) noexcept {
    if (this != &other) {
        reset();
        m_state = std::move(other.m_state);
        other.m_state.reset();
        m_id = std::exchange(other.m_id, 0);
    }
    return *this;
}

RunContext::CancelRegistration::~CancelRegistration() {
    reset();
}

void RunContext::CancelRegistration::reset() {
    if (auto state = m_state.lock()) state->remove(m_id);
    m_state.reset();
    m_id = 0;
}

RunContext::StageTimer::StageTimer(RunContext& context, PipelineStage stage, const char* exec_type)
    : m_context(context), m_stage(stage), m_exec_type(exec_type), m_start(Clock::now()) {}

RunContext::StageTimer::~StageTimer() {
    m_context.stage(m_stage,
                    std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - m_start),
                    ProfilingInfo::Status::EXECUTED, m_exec_type);
}

RunContext::RunContext() = default;

RunContext::~RunContext() = default;

void RunContext::throw_if_cancelled(const std::string& what) const {
    if (cancelled()) throw_error<Cancelled>(what, ": the inference was cancelled");
}

RunContext::CancelRegistration RunContext::on_cancel(std::function<void()> fn) {
    CancelRegistration registration;
    if (!fn) return registration;
    std::shared_ptr<detail::RunCancelState> shared;
    {
        std::lock_guard<std::mutex> lock(m_state_mutex);
        if (!m_cancel_state) m_cancel_state = std::make_shared<detail::RunCancelState>();
        shared = m_cancel_state;
    }
    {
        detail::RunCancelState& state = *shared;
        std::lock_guard<std::mutex> lock(state.mutex);
        // Checked under the lock: cancel() sets the flag before it takes the lock to take the
        // list, so a function added here while the flag is clear is called by that cancel().
        if (!cancelled()) {
            registration.m_state = shared;
            registration.m_id = state.next_id++;
            state.callbacks.push_back({registration.m_id, std::move(fn)});
            return registration;
        }
    }
    fn();  // already cancelled: at once, on this thread
    return registration;
}

void RunContext::cancel() {
    mark_cancelled();
    std::shared_ptr<detail::RunCancelState> shared;
    {
        // An on_cancel that makes the state after this sees the flag and calls its function
        // itself.
        std::lock_guard<std::mutex> lock(m_state_mutex);
        shared = m_cancel_state;
    }
    if (!shared) return;
    detail::RunCancelState& state = *shared;
    std::unique_lock<std::mutex> lock(state.mutex);
    if (state.called) return;
    state.called = true;
    state.calling_thread = std::this_thread::get_id();
    while (!state.callbacks.empty()) {
        detail::RunCancelState::Callback callback = std::move(state.callbacks.front());
        state.callbacks.pop_front();
        state.calling = callback.id;
        lock.unlock();  // the function may register or remove others
        try {
            callback.fn();
        } catch (const std::exception& e) {
            VIREO_LOG(ERR) << "infer request: a cancel function threw: " << e.what();
        } catch (...) {
            VIREO_LOG(ERR) << "infer request: a cancel function threw a non-std exception";
        }
        callback.fn = nullptr;  // its captures die before a waiting remove() returns
        lock.lock();
        state.calling = 0;
        state.call_done.notify_all();
    }
    state.calling_thread = std::thread::id();
}

void RunContext::stage(PipelineStage stage, std::chrono::microseconds time,
                       ProfilingInfo::Status status, const char* exec_type) {
    StageRecord& record = m_stages[static_cast<size_t>(stage)];
    record.time += time;
    if (status > record.status) record.status = status;
    record.exec_type = exec_type ? exec_type : "";
}

void RunContext::op(ProfilingInfo row) {
    m_ops.push_back(std::move(row));
}

void RunContext::op_rows(RowSource source) {
    if (source) m_row_sources.push_back(std::move(source));
}

std::vector<ProfilingInfo> RunContext::profiling_rows() const {
    std::vector<ProfilingInfo> rows;
    rows.reserve(kPipelineStageCount + m_ops.size());
    for (size_t i = 0; i < kPipelineStageCount; ++i) {
        ProfilingInfo row;
        row.node_name = pipeline_stage_name(static_cast<PipelineStage>(i));
        row.node_type = "Stage";
        row.status = m_stages[i].status;
        row.exec_type = m_stages[i].exec_type;
        row.real_time = row.cpu_time = m_stages[i].time;
        rows.push_back(std::move(row));
    }
    rows.insert(rows.end(), m_ops.begin(), m_ops.end());
    for (const auto& source : m_row_sources) source(rows);
    return rows;
}

}  // namespace vireo::sdk
