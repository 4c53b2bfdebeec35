// Implements the pipeline trace hook.
#include "vireo/trace.hpp"

#include <pthread.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

namespace vireo::trace {
namespace {

std::atomic<bool> g_enabled{false};
std::mutex g_mutex;
std::shared_ptr<const Observer> g_observer;

}  // namespace

void set_observer(Observer observer) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_observer = observer ? std::make_shared<const Observer>(std::move(observer)) : nullptr;
    g_enabled.store(g_observer != nullptr, std::memory_order_release);
}

bool enabled() {
    return g_enabled.load(std::memory_order_relaxed);
}

void emit(StageEvent event) {
    if (!enabled()) return;
    std::shared_ptr<const Observer> observer;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        observer = g_observer;
    }
    if (!observer) return;
    char name[32] = {0};
    if (pthread_getname_np(pthread_self(), name, sizeof name) == 0) event.thread_name = name;
    event.thread_id = std::hash<std::thread::id>{}(std::this_thread::get_id());
    (*observer)(event);
}

}  // namespace vireo::trace
