// Declares the AUTO/MULTI plugin's log calls: glog lines written one at a time.
#pragma once

#include <string>

namespace auto_plugin {

/// Writes one VIREO_LOG line at WARNING / INFO / DEBUG. Calls are serialised by a mutex of this
/// module: glog formats the time with localtime_r, whose tzset keeps global state under a libc
/// lock ThreadSanitizer cannot see, so two of our threads logging at once (two background
/// compiles) were reported as a race. Thread-safe.
void log_warning(const std::string& line);
void log_info(const std::string& line);
void log_debug(const std::string& line);

}  // namespace auto_plugin
