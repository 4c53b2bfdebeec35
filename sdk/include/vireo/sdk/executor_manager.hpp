// Declares ExecutorManager, which shares executors between plugins and models by name.
// Deprecated: hold executors in the objects that use them (see the class comment).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::sdk {

/// **Deprecated** (CHANGELOG.md, "Unreleased", SDK): a process-wide registry makes objects of
/// different cores share threads by a string name, and cached executors outlive the models (and
/// the plugin library) that made them. Replacement: own the executor where it is used —
/// `std::make_shared<CPUStreamsExecutor>(config)` as a member of the device-instance or plugin
/// object for shared ones (a wait executor per instance), or of the compiled model for its own
/// streams; requests hold what they run on through their pipeline stages. Still works; kept for
/// at least one release after the one that deprecates it (docs/plugin_author_guide.md,
/// "Versioning policy"), then removed. Marked `[[deprecated]]`: no plugin in the tree uses it
/// (the CPU plugin keeps its idle streams executors itself since 29 Nov).
///
/// Shares executors by name. A device instance's wait executor is get_executor("<device>/wait"),
/// so every compiled model on that instance waits on the same thread(s).
/// Thread-safe. The manager lives while anybody holds it (get() keeps only a weak reference), and
/// with it the executors it caches; an executor handed out lives on with its holders after
/// clear() or the manager's end. Executors are destroyed (drained) outside the manager's lock.
///
///     auto manager = ExecutorManager::get();   // keep it, e.g. as a plugin member
///     auto wait = manager->get_executor("MYDEV.1/wait");
class [[deprecated(
    "hold executors where they are used (CHANGELOG.md, SDK migration note)")]] ExecutorManager {
  public:
    static std::shared_ptr<ExecutorManager> get();

    /// The executor named `id`, created on first use with `config` (its name is set to `id`).
    /// Later calls return the same executor whatever config they pass.
    std::shared_ptr<CPUStreamsExecutor> get_executor(const std::string& id,
                                                     StreamsConfig config = {});
    /// A cached streams executor with an equal config that nobody else holds, or a new one
    /// (cached too). Lets compiled models created one after another reuse threads.
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
