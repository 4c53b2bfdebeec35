// Declares the server's log lines: one line per event on stderr, prefixed with the time and level
// (Kubernetes collects a container's stderr).
#pragma once

#include <string>

namespace vireo::server {

/// Writes "YYYY-mm-ddTHH:MM:SSZ [level] text" to stderr. Thread-safe; lines never interleave.
void log_line(const char* level, const std::string& text);

}  // namespace vireo::server
