// Declares the MOCK_REMOTE plugin's own property keys: the simulated device's timing model,
// fault injection and the device counters tests read.
#pragma once

#include <cstdint>

#include "vireo/properties.hpp"

/// Every key below is set like any other property, as a typed value or as text:
///
///     core.set_property("MOCK_REMOTE.1", {mock_remote::latency_us(500)});       // one instance
///     core.compile_model(model, "MOCK_REMOTE.0", {mock_remote::fail_nth(3)});   // one model
///     auto depth = core.get_property("MOCK_REMOTE.0", mock_remote::max_queue_depth);
///
/// Timing and fault keys are read when a model is compiled: device values are the defaults,
/// compile properties override them, and CompiledModel::set_property changes them afterwards
/// for that model only. Counters are per device instance and only grow (ALLOCATED_BYTES
/// excepted); a new Core starts with fresh instances. Defaults are in
/// plugins/mock_remote/README.md.
namespace vireo::mock_remote {

/// Number of device instances ("MOCK_REMOTE.0" ... ); plugin-wide, default 2, 1..16.
inline constexpr Property<uint32_t> device_count{"MOCK_REMOTE_DEVICE_COUNT"};

// ---- Timing model ----
/// Fixed device time of every inference, microseconds.
inline constexpr Property<uint32_t> latency_us{"MOCK_REMOTE_LATENCY_US"};
/// Modelled compute throughput, GFLOP/s (> 0): each op costs Kernel::flops / throughput.
inline constexpr Property<double> gflops{"MOCK_REMOTE_GFLOPS"};
/// Modelled device-memory bandwidth, GB/s (> 0): each op costs its input+output bytes / bandwidth.
inline constexpr Property<double> device_gbps{"MOCK_REMOTE_DEVICE_GBPS"};
/// Modelled host<->device bus bandwidth, GB/s (> 0), for uploads and downloads.
inline constexpr Property<double> bus_gbps{"MOCK_REMOTE_BUS_GBPS"};
/// Fixed cost of one host<->device transfer, microseconds.
inline constexpr Property<uint32_t> bus_latency_us{"MOCK_REMOTE_BUS_LATENCY_US"};
/// Modelled compile time, milliseconds (an imported model skips it).
inline constexpr Property<uint32_t> compile_ms{"MOCK_REMOTE_COMPILE_MS"};

// ---- Fault injection (executions are counted per compiled model, from 1) ----
/// Execution N fails with a device error (Unavailable); 0 = never.
inline constexpr Property<uint64_t> fail_nth{"MOCK_REMOTE_FAIL_NTH"};
/// Fraction [0, 1] of executions that fail, drawn from a RNG seeded with `seed`.
inline constexpr Property<double> fail_rate{"MOCK_REMOTE_FAIL_RATE"};
/// Execution N never completes until its request is cancelled; 0 = never.
inline constexpr Property<uint64_t> hang_nth{"MOCK_REMOTE_HANG_NTH"};
/// Adds a uniformly drawn 0..N microseconds to each execution.
inline constexpr Property<uint32_t> jitter_us{"MOCK_REMOTE_JITTER_US"};
/// Seed of the fault/jitter RNG of each compiled model.
inline constexpr Property<uint64_t> seed{"MOCK_REMOTE_SEED"};

// ---- Device counters (read-only, per instance: pass device::id or use "MOCK_REMOTE.N") ----
/// Largest number of jobs queued or running on the device at once.
inline constexpr Property<uint64_t, PropertyMutability::RO> max_queue_depth{
    "MOCK_REMOTE_MAX_QUEUE_DEPTH"};
/// Jobs that finished successfully.
inline constexpr Property<uint64_t, PropertyMutability::RO> jobs_completed{
    "MOCK_REMOTE_JOBS_COMPLETED"};
/// Jobs that ended with a device error (injected failures, device shutdown).
inline constexpr Property<uint64_t, PropertyMutability::RO> jobs_failed{"MOCK_REMOTE_JOBS_FAILED"};
/// Jobs dropped from the queue or aborted by cancel().
inline constexpr Property<uint64_t, PropertyMutability::RO> jobs_cancelled{
    "MOCK_REMOTE_JOBS_CANCELLED"};
/// Bytes of device memory currently allocated (weights, request buffers, remote tensors).
inline constexpr Property<uint64_t, PropertyMutability::RO> allocated_bytes{
    "MOCK_REMOTE_ALLOCATED_BYTES"};

/// Remote tensor property: the device buffer handle behind the tensor.
inline constexpr const char* kBufferHandle = "MOCK_REMOTE_BUFFER_HANDLE";

}  // namespace vireo::mock_remote
