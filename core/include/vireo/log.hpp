// Declares the runtime's logging controls (messages go through glog).
#pragma once

#include "vireo/properties.hpp"

namespace vireo {

/// Sets how much the runtime logs (glog severities: ERR -> ERROR, WARNING, INFO; DEBUG and TRACE
/// enable verbose levels 1 and 2). Thread-safe. Also settable as the global property log::level.
void set_log_level(log::Level level);
log::Level get_log_level();

}  // namespace vireo
