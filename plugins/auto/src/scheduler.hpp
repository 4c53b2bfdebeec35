// Declares Scheduler: the devices of one AUTO or MULTI compiled model, their compiled copies and
// pools of worker requests, and which device serves the next inference (selection, start-up
// hand-over, runtime fallback, MULTI spreading).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/model.hpp"
#include "vireo/sdk/device_handles.hpp"
#include "vireo/sdk/icore.hpp"
#include "vireo/sdk/run_context.hpp"

namespace auto_plugin {

/// How a compiled model spreads requests.
enum class Mode {
    kAuto,   ///< one serving device at a time (LATENCY / THROUGHPUT hints)
    kMulti,  ///< every device at once (MULTI, or AUTO with CUMULATIVE_THROUGHPUT)
};

/// One candidate device: its name as listed ("MOCK_REMOTE.0") and the properties its compile
/// gets (forwarded keys and its DEVICE_PROPERTIES entry).
struct DeviceConfig {
    std::string name;
    vireo::AnyMap properties;
};

struct SchedulerConfig {
    std::string owner;  ///< "AUTO" or "MULTI", starts every message
    Mode mode = Mode::kAuto;
    /// Devices able to run the model (query_model covers every op), most preferred first.
    std::vector<DeviceConfig> devices;
    bool runtime_fallback = true;
    /// AUTO: index in `devices` of the host device for start-up acceleration, or -1 (none).
    int host = -1;
};

/// A worker request lent to one inference: the device's index and a request of its compiled
/// model (the device's own IAsyncInferRequest with its module). Give it back with
/// Scheduler::release.
struct Lease {
    size_t device = 0;
    vireo::sdk::InferRequestHandle request;
    explicit operator bool() const { return static_cast<bool>(request); }
};

/// Thread safety: every method may be called from several threads at once. Compiles run outside
/// the lock (on the calling thread or on the one background thread), so a slow device never
/// blocks requests served by another one.
class Scheduler {
  public:
    /// `core` gives the core when a compile is needed (it may throw Unavailable once the Core is
    /// gone). Nothing is compiled until start().
    Scheduler(std::shared_ptr<const vireo::Model> model,
              std::function<std::shared_ptr<vireo::sdk::ICore>()> core, SchedulerConfig config);
    /// Joins the background compile, if one runs.
    ~Scheduler();

    /// Compiles what compile_model must wait for. AUTO: the first device that compiles (the
    /// host device first when start-up acceleration applies, the chosen one then compiling in
    /// the background); MULTI: every device, in parallel, keeping those that compile. Throws the
    /// error of the first device (InvalidArgument naming every failure) when none compiles.
    void start();

    /// Lends a worker request on a device not in `excluded` (indexes into the config's devices):
    /// AUTO: the serving device (compiled on demand after a fallback); MULTI: the most preferred
    /// device with a free worker (each device lends at most its optimal number of requests).
    /// Blocks until one is free, until `cancelled` (checked whenever woken: call wake() after
    /// setting it) is true (then throws Cancelled), or returns an empty lease when no device is
    /// left (all excluded or failed).
    Lease acquire(const std::vector<bool>& excluded, const vireo::sdk::RunContext& run);
    /// Gives a worker back (it is dropped if its device's copy was released meanwhile).
    void release(Lease lease);
    /// Records that an inference on `device` failed with a device error and will be re-run
    /// elsewhere. AUTO: the device is not used again by this compiled model, and the serving
    /// device moves to the next one; logs a WARNING.
    void report_failure(size_t device, const std::string& error);
    /// "DEVICE: error" of the last failure reported, empty if none: what later requests quote
    /// once no device is left.
    std::string last_failure() const;
    /// Wakes every acquire() waiting, so it re-checks its `cancelled` flag.
    void wake();

    bool runtime_fallback() const { return m_runtime_fallback.load(); }
    void set_runtime_fallback(bool on) { m_runtime_fallback.store(on); }
    const SchedulerConfig& config() const { return m_config; }

    /// AUTO: {serving device} (with the host device too while the chosen one compiles);
    /// MULTI: the devices that compiled.
    std::vector<std::string> execution_devices() const;
    /// True when the compiled model serving requests (MULTI: every ready one) was loaded from the
    /// model cache, as that device reports it.
    bool loaded_from_cache() const;
    /// AUTO: the chosen device's optimal number; MULTI: the sum over compiled devices.
    uint32_t optimal_number_of_infer_requests() const;
    /// See auto_device::compiles.
    std::vector<std::string> compiles() const;
    uint64_t failovers() const { return m_failovers.load(); }
    /// A compiled model that serves (or served) requests, for the runtime model and properties.
    vireo::sdk::CompiledModelHandle any_compiled() const;

  private:
    enum class State { kIdle, kCompiling, kReady, kFailed };
    struct Slot {
        DeviceConfig config;
        State state = State::kIdle;
        vireo::sdk::CompiledModelHandle compiled;
        std::vector<vireo::sdk::InferRequestHandle> idle;
        size_t lent = 0;
        uint32_t optimal = 1;
        size_t compile_record = 0;  // index of its last entry in m_compiles
    };

    /// Compiles slot `i` on this thread; the lock is released during the compile and held on
    /// return. Returns true on success; on failure the slot is kFailed and `error` says why.
    /// `recorded`: its AUTO_COMPILES entry was made already (MULTI records in priority order).
    bool compile_locked(std::unique_lock<std::mutex>& lock, size_t i, std::string* error,
                        bool recorded = false);
    /// AUTO: the first device in priority order that is not failed (or -1).
    int first_usable_locked() const;
    /// AUTO: the background compile of the chosen device, then the hand-over.
    void compile_in_background(size_t chosen);
    Lease lend_locked(size_t i);

    std::shared_ptr<const vireo::Model> m_model;
    std::function<std::shared_ptr<vireo::sdk::ICore>()> m_core;
    SchedulerConfig m_config;
    std::atomic<bool> m_runtime_fallback;
    std::atomic<uint64_t> m_failovers{0};

    mutable std::mutex m_mutex;
    std::string m_last_failure;         // guarded by m_mutex
    std::condition_variable m_changed;  // a worker returned, a compile ended, a device failed
    std::vector<Slot> m_slots;
    int m_serving = -1;  // AUTO: the device requests go to
    int m_chosen = -1;   // AUTO: the selected device (compiled in the background)
    std::vector<std::string> m_compiles;
    std::thread m_background;
};

}  // namespace auto_plugin
