// Declares ProfilingInfo, the per-stage and per-op timing record every plugin reports.
#pragma once

#include <chrono>
#include <string>

namespace vireo {

/// One row of InferRequest::get_profiling_info(): a pipeline stage or an executed op.
/// Plugins report the five pipeline stages first ("input preprocessing", "input transfer",
/// "execution", "output transfer", "output postprocessing"; zero where a stage does nothing),
/// then per-op rows when `enable_profiling` is on.
struct ProfilingInfo {
    enum class Status { NOT_RUN, OPTIMIZED_OUT, EXECUTED };
    Status status = Status::NOT_RUN;
    std::string node_name;  ///< friendly name of the op, or the stage name
    std::string node_type;  ///< op type, or "Stage"
    std::string exec_type;  ///< implementation ("ref", "device", "host")
    std::chrono::microseconds real_time{0};
    std::chrono::microseconds cpu_time{0};
};

inline constexpr const char* kStageInputPreprocessing = "input preprocessing";
inline constexpr const char* kStageInputTransfer = "input transfer";
inline constexpr const char* kStageExecution = "execution";
inline constexpr const char* kStageOutputTransfer = "output transfer";
inline constexpr const char* kStageOutputPostprocessing = "output postprocessing";

}  // namespace vireo
