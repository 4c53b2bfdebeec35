// Implements physical_memory_bytes() from sysconf's page count and page size.
#include "vireo/dev/memory_limits.hpp"

#include <unistd.h>

#include <cstdint>

namespace vireo::sdk {

size_t physical_memory_bytes() {
    static const size_t bytes = [] {
        const long pages = sysconf(_SC_PHYS_PAGES);
        const long page_size = sysconf(_SC_PAGESIZE);
        if (pages <= 0 || page_size <= 0) return SIZE_MAX / 2;
        return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
    }();
    return bytes;
}

}  // namespace vireo::sdk
