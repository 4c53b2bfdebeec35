// Implements the AUTO/MULTI plugin's serialised log calls.
#include "log.hpp"

#include <glog/logging.h>

#include <mutex>

namespace auto_plugin {
namespace {
std::mutex& log_mutex() {
    static std::mutex mutex;
    return mutex;
}
}  // namespace

void log_warning(const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mutex());
    LOG(WARNING) << line;
}

void log_info(const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mutex());
    LOG(INFO) << line;
}

void log_debug(const std::string& line) {
    if (!VLOG_IS_ON(1)) return;
    std::lock_guard<std::mutex> lock(log_mutex());
    VLOG(1) << line;
}

}  // namespace auto_plugin
