// Implements the AUTO/MULTI plugin's serialised log calls.
#include "log.hpp"

#include <mutex>

#include "vireo/log.hpp"

namespace auto_plugin {
namespace {
std::mutex& log_mutex() {
    static std::mutex mutex;
    return mutex;
}
}  // namespace

void log_warning(const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mutex());
    VIREO_LOG(WARNING) << line;
}

void log_info(const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mutex());
    VIREO_LOG(INFO) << line;
}

void log_debug(const std::string& line) {
    if (!vireo::log_enabled(vireo::log::Level::DEBUG)) return;
    std::lock_guard<std::mutex> lock(log_mutex());
    VIREO_LOG(DEBUG) << line;
}

}  // namespace auto_plugin
