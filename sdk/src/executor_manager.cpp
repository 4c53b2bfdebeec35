// Implements ExecutorManager: a process-wide, weakly held registry of shared streams executors.
#include "vireo/sdk/executor_manager.hpp"

#include <map>
#include <vector>

// The deprecated class's own definitions.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace vireo::sdk {

struct ExecutorManager::Impl {
    mutable std::mutex mutex;
    std::map<std::string, std::shared_ptr<CPUStreamsExecutor>> by_id;
    std::vector<std::shared_ptr<CPUStreamsExecutor>>
        streams;  // handed out by get_idle_streams_executor
};

ExecutorManager::ExecutorManager() : m_impl(std::make_shared<Impl>()) {}

std::shared_ptr<ExecutorManager> ExecutorManager::get() {
    // Only a weak reference: the manager (and the executors it caches) dies with its last user,
    // so no executor thread outlives main() through a static.
    static std::mutex mutex;
    static std::weak_ptr<ExecutorManager> instance;
    std::lock_guard<std::mutex> lock(mutex);
    auto manager = instance.lock();
    if (!manager) {
        manager = std::make_shared<ExecutorManager>();
        instance = manager;
    }
    return manager;
}

std::shared_ptr<CPUStreamsExecutor> ExecutorManager::get_executor(const std::string& id,
                                                                  StreamsConfig config) {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    auto& slot = m_impl->by_id[id];
    if (!slot) {
        config.name = id;
        slot = std::make_shared<CPUStreamsExecutor>(std::move(config));
    }
    return slot;
}

std::shared_ptr<CPUStreamsExecutor> ExecutorManager::get_idle_streams_executor(
    const StreamsConfig& config) {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    for (const auto& executor : m_impl->streams) {
        // use_count() == 1: only this cache holds it, and nobody can copy it but us (under the
        // lock), so the check cannot race.
        if (executor.use_count() == 1 && executor->get_config() == config) return executor;
    }
    auto executor = std::make_shared<CPUStreamsExecutor>(config);
    m_impl->streams.push_back(executor);
    return executor;
}

void ExecutorManager::clear(const std::string& id) {
    // Executors are destroyed (which drains and joins them) after the lock is released: a task
    // being drained may itself call the manager.
    std::vector<std::shared_ptr<CPUStreamsExecutor>> dropped;
    {
        std::lock_guard<std::mutex> lock(m_impl->mutex);
        if (id.empty()) {
            for (auto& [name, executor] : m_impl->by_id) dropped.push_back(std::move(executor));
            m_impl->by_id.clear();
            for (auto& executor : m_impl->streams) dropped.push_back(std::move(executor));
            m_impl->streams.clear();
        } else {
            if (auto it = m_impl->by_id.find(id); it != m_impl->by_id.end()) {
                dropped.push_back(std::move(it->second));
                m_impl->by_id.erase(it);
            }
            auto& streams = m_impl->streams;
            for (auto it = streams.begin(); it != streams.end();) {
                if ((*it)->get_config().name == id) {
                    dropped.push_back(std::move(*it));
                    it = streams.erase(it);
                } else {
                    ++it;
                }
            }
        }
    }
    dropped.clear();
}

size_t ExecutorManager::get_executors_number() const {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    return m_impl->by_id.size();
}

size_t ExecutorManager::get_idle_streams_executors_number() const {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    return m_impl->streams.size();
}

}  // namespace vireo::sdk
