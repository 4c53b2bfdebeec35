// Declares ExecutorManager, which shares executors between plugins and models by name.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::sdk {

/// Shares executors by name. A device instance's wait executor is get_executor("<device>/wait"),
/// so every compiled model on that instance waits on the same thread(s).
/// Thread-safe. The manager lives while anybody holds it (get() keeps only a weak reference).
class ExecutorManager {
public:
    static std::shared_ptr<ExecutorManager> get();

    /// The executor named `id`, created on first use with `config` (its name is set to `id`).
    /// Later calls return the same executor whatever config they pass.
    std::shared_ptr<CPUStreamsExecutor> get_executor(const std::string& id, StreamsConfig config = {});
    /// A streams executor with an equal config that nobody else holds, or a new one.
    std::shared_ptr<CPUStreamsExecutor> get_idle_streams_executor(const StreamsConfig& config);
    /// Forgets executors: `id` and every idle executor whose config name is `id`; all if empty.
    /// Executors still held elsewhere live on with their holders.
    void clear(const std::string& id = "");
    size_t get_executors_number() const;
    size_t get_idle_streams_executors_number() const;

private:
    struct Impl;
    std::shared_ptr<Impl> m_impl;
public:
    ExecutorManager();
};

}  // namespace vireo::sdk
