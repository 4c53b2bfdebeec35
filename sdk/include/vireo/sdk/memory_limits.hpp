// physical_memory_bytes() for plugin authors: defined in the core (vireo/dev/memory_limits.hpp).
#pragma once
#include "vireo/dev/memory_limits.hpp"
