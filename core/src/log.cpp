// Implements the logging level and VIREO_LOG's line writer (the application's sink, else glog when
// initialised, else stderr).
#include "vireo/log.hpp"

#include <glog/logging.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>

namespace vireo {
namespace {
std::atomic<log::Level> g_level{log::Level::WARNING};

// The application's sink: replaced under g_sink_mutex, called under g_call_mutex (one call at a
// time), so set_log_sink never waits for a sink that is running.
std::mutex g_sink_mutex;
std::shared_ptr<const LogSink> g_sink;
std::mutex g_call_mutex;
thread_local bool t_in_sink = false;

std::shared_ptr<const LogSink> current_sink() {
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    return g_sink;
}

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

LogSink set_log_sink(LogSink sink) {
    auto next = sink ? std::make_shared<const LogSink>(std::move(sink)) : nullptr;
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    std::swap(g_sink, next);
    return next ? *next : LogSink{};
}

namespace {
void write_stderr(log::Level level, const std::string& text) {
    // One write per line, lines from several threads never interleaved.
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    std::fprintf(stderr, "[vireo %s] %s\n", level_name(level), text.c_str());
    std::fflush(stderr);
}
}  // namespace

detail::LogLine::~LogLine() {
    const std::string text = m_text.str();
    if (!t_in_sink) {
        if (const auto sink = current_sink()) {
            std::lock_guard<std::mutex> lock(g_call_mutex);
            t_in_sink = true;
            try {
                (*sink)(m_level, text);
                t_in_sink = false;
                return;
            } catch (const std::exception& e) {
                t_in_sink = false;
                write_stderr(m_level, text + " (the log sink threw: " + e.what() + ")");
                return;
            } catch (...) {
                t_in_sink = false;
                write_stderr(m_level, text + " (the log sink threw)");
                return;
            }
        }
    }
    if (google::IsGoogleLoggingInitialized()) {
        const google::LogSeverity severity = m_level == log::Level::ERR       ? google::GLOG_ERROR
                                             : m_level == log::Level::WARNING ? google::GLOG_WARNING
                                                                              : google::GLOG_INFO;
        google::LogMessage(m_file, m_line, severity).stream() << text;
        return;
    }
    write_stderr(m_level, text);
}

}  // namespace vireo
