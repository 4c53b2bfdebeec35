// Declares physical_memory_bytes(): the ceiling the core and plugins check sizes against before
// allocating, so a huge shape is a clear error rather than an allocator failure. A core dev
// header (host tensors use it); plugins include it through the SDK (sdk/memory_limits.hpp).
#pragma once

#include <cstddef>

namespace vireo::sdk {

/// The memory this process may use, in bytes, read once: the machine's physical memory (sysconf;
/// SIZE_MAX / 2 if the system does not say), or less when the address-space or data limit
/// (`ulimit -v`, `ulimit -d`) or the process's cgroup memory limit (a container's) is lower. No
/// single buffer can be larger. Thread-safe.
size_t physical_memory_bytes();

}  // namespace vireo::sdk
