// Declares the runtime's logging: the level (the LOG_LEVEL property) and VIREO_LOG, through which
// every Vireo component writes a line.
#pragma once

#include <functional>
#include <sstream>
#include <string_view>

#include "vireo/properties.hpp"

namespace vireo {

/// Sets how much Vireo logs: lines above `level` are dropped before they are formatted (default
/// WARNING, whether or not set_log_level was ever called). Vireo's level filters Vireo's lines
/// only: the application's glog flags stay the application's. Thread-safe. Also settable as the
/// global property log::level ("LOG_LEVEL").
void set_log_level(log::Level level);
log::Level get_log_level();
/// True when a line of `level` is written at the current level (never for Level::NO).
bool log_enabled(log::Level level);

/// Receives each line Vireo writes (the level's filter applied first), text without a newline.
using LogSink = std::function<void(log::Level level, std::string_view text)>;
/// Sends Vireo's lines to `sink` instead of glog or stderr, e.g. into the application's own
/// logger; an empty sink restores the default. Calls come from whichever thread logs, one at a
/// time (never concurrently); a sink must not block for long. A line the sink itself causes Vireo
/// to log, and any exception it throws, go to stderr instead. Thread-safe; returns the sink that
/// was installed before.
LogSink set_log_sink(LogSink sink);

namespace detail {
/// One log line, written when it is destroyed: to the sink set_log_sink installed, else through
/// glog once the application initialised it
/// (google::InitGoogleLogging; its sinks and files then see the line, ERR as ERROR, DEBUG and
/// TRACE as INFO), else straight to stderr as "[vireo WARNING] text", so a process that never
/// initialised glog (Python, most applications) gets no "Logging before InitGoogleLogging()".
class LogLine {
  public:
    LogLine(log::Level level, const char* file, int line)
        : m_level(level), m_file(file), m_line(line) {}
    LogLine(const LogLine&) = delete;
    LogLine& operator=(const LogLine&) = delete;
    ~LogLine();
    std::ostream& stream() { return m_text; }

  private:
    log::Level m_level;
    const char* m_file;
    int m_line;
    std::ostringstream m_text;
};
struct LogVoidify {
    void operator&(std::ostream&) {}
};
}  // namespace detail

}  // namespace vireo

/// Writes one line at `level` (NO, ERR, WARNING, INFO, DEBUG or TRACE) when the level allows it;
/// the streamed values are not evaluated otherwise.
///
///     VIREO_LOG(WARNING) << "model cache: cannot store '" << path << "'";
#define VIREO_LOG(level)                              \
    !::vireo::log_enabled(::vireo::log::Level::level) \
        ? (void)0                                     \
        : ::vireo::detail::LogVoidify() &             \
              ::vireo::detail::LogLine(::vireo::log::Level::level, __FILE__, __LINE__).stream()
