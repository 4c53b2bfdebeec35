// Implements the logging level and VIREO_LOG's line writer (glog when initialised, else stderr).
#include "vireo/log.hpp"

#include <glog/logging.h>

#include <atomic>
#include <cstdio>
#include <mutex>

namespace vireo {
namespace {
std::atomic<log::Level> g_level{log::Level::WARNING};

const char* level_name(log::Level level) {
    switch (level) {
        case log::Level::ERR:
            return "ERROR";
        case log::Level::WARNING:
            return "WARNING";
        case log::Level::INFO:
            return "INFO";
        case log::Level::DEBUG:
            return "DEBUG";
        default:
            return "TRACE";
    }
}
}  // namespace

void set_log_level(log::Level level) {
    g_level = level;
}

log::Level get_log_level() {
    return g_level;
}

bool log_enabled(log::Level level) {
    return level != log::Level::NO && static_cast<int>(level) <= static_cast<int>(g_level.load());
}

detail::LogLine::~LogLine() {
    const std::string text = m_text.str();
    if (google::IsGoogleLoggingInitialized()) {
        const google::LogSeverity severity = m_level == log::Level::ERR       ? google::GLOG_ERROR
                                             : m_level == log::Level::WARNING ? google::GLOG_WARNING
                                                                              : google::GLOG_INFO;
        google::LogMessage(m_file, m_line, severity).stream() << text;
        return;
    }
    // One write per line, lines from several threads never interleaved.
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    std::fprintf(stderr, "[vireo %s] %s\n", level_name(m_level), text.c_str());
    std::fflush(stderr);
}

}  // namespace vireo
