// Implements the logging level switch over glog.
#include "vireo/log.hpp"

#include <glog/logging.h>

#include <atomic>

namespace vireo {
namespace {
std::atomic<log::Level> g_level{log::Level::WARNING};
}

void set_log_level(log::Level level) {
    g_level = level;
    switch (level) {
        case log::Level::NO:
            FLAGS_minloglevel = google::GLOG_FATAL;
            break;
        case log::Level::ERR:
            FLAGS_minloglevel = google::GLOG_ERROR;
            break;
        case log::Level::WARNING:
            FLAGS_minloglevel = google::GLOG_WARNING;
            break;
        default:
            FLAGS_minloglevel = google::GLOG_INFO;
            break;
    }
    FLAGS_v = level == log::Level::TRACE ? 2 : level == log::Level::DEBUG ? 1 : 0;
}

log::Level get_log_level() {
    return g_level;
}

}  // namespace vireo
