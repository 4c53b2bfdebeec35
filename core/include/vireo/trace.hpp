// Declares the pipeline trace hook: an optional observer told about every pipeline stage any
// infer request runs (for benchmark_app's -trace and other profilers).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace vireo::trace {

/// One executed pipeline stage of one request.
struct StageEvent {
    const void* request = nullptr;  ///< identifies the request (stable while it lives)
    size_t stage = 0;               ///< index in the pipeline; stage_count for the completion
    size_t stage_count = 0;         ///< stages in the pipeline
    bool completion = false;        ///< true for the completion (state reset + user callback)
    bool sync = false;              ///< true when run by infer() rather than start_async()
    std::string thread_name;        ///< name of the thread that ran it ("TemplateStreams/0")
    size_t thread_id = 0;           ///< hash of the std::thread::id
    std::chrono::steady_clock::time_point begin;
    std::chrono::steady_clock::time_point end;
};

using Observer = std::function<void(const StageEvent&)>;

/// Installs `observer` (empty clears it). Thread-safe. The observer is called on the thread
/// that ran the stage, right after it, possibly from many threads at once, so it must be
/// thread-safe and quick. When no observer is set, requests pay one relaxed atomic load per stage.
void set_observer(Observer observer);

/// True when an observer is installed.
bool enabled();

/// Reports an event to the observer, if any (called by the SDK's IAsyncInferRequest).
void emit(StageEvent event);

}  // namespace vireo::trace
