// Implements Scheduler: compiles on the candidate devices, lends worker requests, hands requests
// over from the host device to the chosen one, and moves to the next device after a failure.
#include "scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <exception>

#include "log.hpp"
#include "vireo/exception.hpp"
#include "vireo/properties.hpp"

namespace auto_plugin {
using namespace vireo;

namespace {

std::string what_of(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "unknown exception";
    }
}

uint32_t optimal_of(const sdk::CompiledModelHandle& compiled) {
    try {
        return std::max<uint32_t>(1, compiled.get_property(optimal_number_of_infer_requests));
    } catch (const Exception&) {
        return 1;  // a device that does not answer gets one worker at a time
    }
}

}  // namespace

Scheduler::Scheduler(std::shared_ptr<const Model> model,
                     std::function<std::shared_ptr<sdk::ICore>()> core, SchedulerConfig config)
    : m_model(std::move(model)),
      m_core(std::move(core)),
      m_config(std::move(config)),
      m_runtime_fallback(m_config.runtime_fallback) {
    for (const auto& device : m_config.devices) {
        Slot slot;
        slot.config = device;
        m_slots.push_back(std::move(slot));
    }
}

Scheduler::~Scheduler() {
    if (m_background.joinable()) m_background.join();
}

bool Scheduler::compile_locked(std::unique_lock<std::mutex>& lock, size_t i, std::string* error,
                               bool recorded) {
    Slot& slot = m_slots[i];
    slot.state = State::kCompiling;
    if (!recorded) {
        slot.compile_record = m_compiles.size();
        m_compiles.push_back(slot.config.name + " (compiling)");
    }
    const DeviceConfig device = slot.config;
    lock.unlock();
    sdk::CompiledModelHandle compiled;
    std::exception_ptr failure;
    try {
        compiled = m_core()->compile_model(m_model, device.name, device.properties);
    } catch (...) {
        failure = std::current_exception();
    }
    const uint32_t optimal = failure ? 1 : optimal_of(compiled);
    lock.lock();
    if (failure) {
        slot.state = State::kFailed;
        m_compiles[slot.compile_record] = device.name + " (failed)";
        if (error) *error = what_of(failure);
    } else {
        slot.state = State::kReady;
        slot.compiled = std::move(compiled);
        slot.optimal = optimal;
        m_compiles[slot.compile_record] = device.name;
    }
    m_changed.notify_all();
    return !failure;
}

void Scheduler::start() {
    std::unique_lock<std::mutex> lock(m_mutex);
    std::string failures;
    auto note = [&](size_t i, const std::string& error) {
        failures += (failures.empty() ? "" : "; ") + m_slots[i].config.name + ": " + error;
        log_warning(vireo::detail::concat(m_config.owner, ": compiling model '",
                                          m_model->get_name(), "' on ", m_slots[i].config.name,
                                          " failed: ", error));
    };
    if (m_config.mode == Mode::kMulti) {
        // Every device compiles at once, each on its own thread: a 200 ms device and a fast one
        // take 200 ms together, not the sum.
        std::vector<std::thread> threads;
        std::vector<std::string> errors(m_slots.size());
        std::vector<char> ok(m_slots.size(), 0);
        for (size_t i = 0; i < m_slots.size();
             ++i) {  // recorded in priority order, not finish order
            m_slots[i].compile_record = m_compiles.size();
            m_compiles.push_back(m_slots[i].config.name + " (compiling)");
        }
        lock.unlock();
        for (size_t i = 0; i < m_slots.size(); ++i)
            threads.emplace_back([this, i, &errors, &ok] {
                std::unique_lock<std::mutex> own(m_mutex);
                ok[i] = compile_locked(own, i, &errors[i], /*recorded=*/true);
            });
        for (auto& t : threads) t.join();
        lock.lock();
        bool any = false;
        for (size_t i = 0; i < m_slots.size(); ++i) {
            if (ok[i])
                any = true;
            else
                note(i, errors[i]);
        }
        if (!any)
            throw_error<Unavailable>(m_config.owner, ": no listed device compiled model '",
                                     m_model->get_name(), "' (", failures, ")");
        return;
    }
    const bool accelerate =
        m_config.host > 0 && static_cast<size_t>(m_config.host) < m_slots.size();
    if (accelerate) {
        std::string error;
        const size_t host = static_cast<size_t>(m_config.host);
        if (compile_locked(lock, host, &error)) {
            m_serving = static_cast<int>(host);
            m_chosen = 0;
            m_slots[0].state = State::kCompiling;
            m_slots[0].compile_record = m_compiles.size();
            m_compiles.push_back(m_slots[0].config.name + " (compiling)");
            log_info(vireo::detail::concat(m_config.owner, ": model '", m_model->get_name(),
                                           "' serves on ", m_slots[host].config.name, " while ",
                                           m_slots[0].config.name, " compiles"));
            m_background = std::thread([this] { compile_in_background(0); });
            return;
        }
        note(host, error);  // no acceleration: wait for the devices in order below
    }
    for (size_t i = 0; i < m_slots.size(); ++i) {
        if (m_slots[i].state == State::kFailed) continue;
        std::string error;
        if (compile_locked(lock, i, &error)) {
            m_serving = m_chosen = static_cast<int>(i);
            return;
        }
        note(i, error);
    }
    throw_error<Unavailable>(m_config.owner, ": no listed device compiled model '",
                             m_model->get_name(), "' (", failures, ")");
}

void Scheduler::compile_in_background(size_t chosen) {
    const auto begin = std::chrono::steady_clock::now();
    sdk::CompiledModelHandle compiled;
    std::exception_ptr failure;
    DeviceConfig device;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        device = m_slots[chosen].config;
    }
    try {
        compiled = m_core()->compile_model(m_model, device.name, device.properties);
    } catch (...) {
        failure = std::current_exception();
    }
    const uint32_t optimal = failure ? 1 : optimal_of(compiled);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - begin);
    // What the hand-over releases is destroyed after the lock is dropped.
    sdk::CompiledModelHandle released;
    std::vector<sdk::InferRequestHandle> released_workers;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        Slot& slot = m_slots[chosen];
        if (failure) {
            slot.state = State::kFailed;
            m_compiles[slot.compile_record] = device.name + " (failed)";
            log_warning(vireo::detail::concat(
                m_config.owner, ": compiling model '", m_model->get_name(), "' on ", device.name,
                " failed: ", what_of(failure), "; requests stay on ",
                m_serving >= 0 ? m_slots[m_serving].config.name : std::string("no device")));
        } else {
            slot.state = State::kReady;
            slot.compiled = std::move(compiled);
            slot.optimal = optimal;
            m_compiles[slot.compile_record] = device.name;
            const int host = m_serving;
            m_serving = first_usable_locked();
            if (host >= 0 && host != m_serving) {
                // The hand-over: later requests go to the chosen device; the host copy goes
                // once its lent workers come back (release() drops them).
                Slot& old = m_slots[host];
                released = std::move(old.compiled);
                old.compiled = {};
                released_workers.swap(old.idle);
                old.state = State::kIdle;
                log_info(vireo::detail::concat(m_config.owner, ": ", device.name,
                                               " compiled model '", m_model->get_name(), "' in ",
                                               ms.count(), " ms; requests move from ",
                                               old.config.name, ", whose copy is released"));
            }
        }
        m_changed.notify_all();
    }
}

int Scheduler::first_usable_locked() const {
    for (size_t i = 0; i < m_slots.size(); ++i)
        if (m_slots[i].state != State::kFailed) return static_cast<int>(i);
    return -1;
}

Lease Scheduler::lend_locked(size_t i) {
    Slot& slot = m_slots[i];
    Lease lease;
    lease.device = i;
    if (!slot.idle.empty()) {
        lease.request = std::move(slot.idle.back());
        slot.idle.pop_back();
    } else {
        lease.request = slot.compiled.create_infer_request();
    }
    ++slot.lent;
    return lease;
}

Lease Scheduler::acquire(const std::vector<bool>& excluded, const sdk::RunContext& run) {
    auto is_excluded = [&](size_t i) { return i < excluded.size() && excluded[i]; };
    std::unique_lock<std::mutex> lock(m_mutex);
    while (true) {
        if (run.cancelled())
            throw_error<Cancelled>(m_config.owner, ": the inference was cancelled");
        if (m_config.mode == Mode::kMulti) {
            bool any_left = false;
            for (size_t i = 0; i < m_slots.size(); ++i) {
                const Slot& slot = m_slots[i];
                if (is_excluded(i) || slot.state != State::kReady) continue;
                any_left = true;
                if (!slot.idle.empty() || slot.lent < slot.optimal) return lend_locked(i);
            }
            if (!any_left) return {};
            m_changed.wait(lock);
            continue;
        }
        // AUTO: the serving device, unless this request already failed there.
        int target = m_serving;
        if (target >= 0 && (is_excluded(target) || m_slots[target].state == State::kFailed))
            target = -1;
        if (target < 0) {
            target = -1;
            for (size_t i = 0; i < m_slots.size(); ++i)
                if (!is_excluded(i) && m_slots[i].state != State::kFailed) {
                    target = static_cast<int>(i);
                    break;
                }
            if (target < 0) return {};
        }
        Slot& slot = m_slots[target];
        if (slot.state == State::kReady) {
            // Creating a request may take a while on some devices; it is rare (pool misses).
            return lend_locked(static_cast<size_t>(target));
        }
        if (slot.state == State::kCompiling) {
            m_changed.wait(lock);  // another thread (or the background) is compiling it
            continue;
        }
        // kIdle: compile on demand (a fallback target, or a released host copy).
        std::string error;
        const std::string name = slot.config.name;
        if (!compile_locked(lock, static_cast<size_t>(target), &error)) {
            log_warning(vireo::detail::concat(m_config.owner, ": compiling model '",
                                              m_model->get_name(), "' on ", name,
                                              " for runtime fallback failed: ", error));
        } else if (m_serving < 0 || m_slots[m_serving].state == State::kFailed) {
            m_serving = target;
        }
    }
}

void Scheduler::release(Lease lease) {
    if (!lease) return;
    sdk::InferRequestHandle dropped;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        Slot& slot = m_slots[lease.device];
        if (slot.lent) --slot.lent;
        if (slot.state == State::kReady)
            slot.idle.push_back(std::move(lease.request));
        else
            dropped = std::move(lease.request);  // its copy was released or failed
        m_changed.notify_all();
    }
}

std::string Scheduler::last_failure() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_last_failure;
}

void Scheduler::report_failure(size_t device, const std::string& error) {
    ++m_failovers;
    std::vector<sdk::InferRequestHandle> dropped;
    sdk::CompiledModelHandle released;
    std::lock_guard<std::mutex> lock(m_mutex);
    Slot& slot = m_slots[device];
    m_last_failure = slot.config.name + ": " + error;
    if (m_config.mode == Mode::kMulti) {
        log_warning(vireo::detail::concat(m_config.owner, ": inference of model '",
                                          m_model->get_name(), "' failed on ", slot.config.name,
                                          " (", error, "); re-running it on another device"));
        return;
    }
    if (slot.state == State::kFailed) return;  // another request already moved on
    slot.state = State::kFailed;
    dropped.swap(slot.idle);
    released = std::move(slot.compiled);
    slot.compiled = {};
    if (m_serving == static_cast<int>(device)) m_serving = first_usable_locked();
    log_warning(vireo::detail::concat(
        m_config.owner, ": inference of model '", m_model->get_name(), "' failed on ",
        slot.config.name, " (", error, "); ",
        m_serving >= 0 ? "re-running it and later requests on " + m_slots[m_serving].config.name
                       : std::string("no device left")));
    m_changed.notify_all();
}

void Scheduler::wake() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_changed.notify_all();
}

std::vector<std::string> Scheduler::execution_devices() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<std::string> out;
    if (m_config.mode == Mode::kMulti) {
        for (const auto& slot : m_slots)
            if (slot.state == State::kReady) out.push_back(slot.config.name);
        return out;
    }
    if (m_serving >= 0) out.push_back(m_slots[m_serving].config.name);
    if (m_chosen >= 0 && m_chosen != m_serving && m_slots[m_chosen].state == State::kCompiling)
        out.push_back(m_slots[m_chosen].config.name);
    return out;
}

bool Scheduler::loaded_from_cache() const {
    std::vector<sdk::CompiledModelHandle> serving;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_config.mode == Mode::kMulti) {
            for (const auto& slot : m_slots)
                if (slot.state == State::kReady) serving.push_back(slot.compiled);
        } else if (m_serving >= 0 && m_slots[m_serving].state == State::kReady) {
            serving.push_back(m_slots[m_serving].compiled);
        }
    }
    if (serving.empty()) return false;
    for (const auto& compiled : serving) {  // outside the lock: a device call
        try {
            if (!compiled || !compiled.get_property(vireo::loaded_from_cache)) return false;
        } catch (const std::exception&) {
            return false;
        }
    }
    return true;
}

uint32_t Scheduler::optimal_number_of_infer_requests() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_config.mode == Mode::kMulti) {
        uint32_t sum = 0;
        for (const auto& slot : m_slots)
            if (slot.state == State::kReady) sum += slot.optimal;
        return std::max<uint32_t>(1, sum);
    }
    // While the chosen device compiles its number is not known yet: the host's serves.
    if (m_chosen >= 0 && m_slots[m_chosen].state == State::kReady) return m_slots[m_chosen].optimal;
    if (m_serving >= 0) return m_slots[m_serving].optimal;
    return 1;
}

std::vector<std::string> Scheduler::compiles() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_compiles;
}

sdk::CompiledModelHandle Scheduler::any_compiled() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_serving >= 0 && m_slots[m_serving].compiled) return m_slots[m_serving].compiled;
    for (const auto& slot : m_slots)
        if (slot.state == State::kReady && slot.compiled) return slot.compiled;
    throw_error<Unavailable>(m_config.owner, ": model '", m_model->get_name(),
                             "' is compiled on no device now");
}

}  // namespace auto_plugin
