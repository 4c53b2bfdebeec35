// Implements physical_memory_bytes(): the least of the machine's physical memory (sysconf), the
// process's address-space and data limits (ulimit -v / -d) and its cgroup's memory limit.
#include "vireo/dev/memory_limits.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>

namespace vireo::sdk {
namespace {

// A cgroup v2 (memory.max) or v1 (memory.limit_in_bytes) limit of this process's group, read
// from the mounted hierarchy; SIZE_MAX when there is none ("max", absent, unreadable).
size_t cgroup_limit() {
    std::ifstream self("/proc/self/cgroup");
    std::string line, v2_path, v1_path;
    while (std::getline(self, line)) {
        // "0::/path" (v2) or "N:memory:/path" / "N:cpu,memory:/path" (v1).
        const size_t first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        if (controllers.empty())
            v2_path = path;
        else if (("," + controllers + ",").find(",memory,") != std::string::npos)
            v1_path = path;
    }
    auto read_number = [](const std::string& file) -> size_t {
        std::ifstream in(file);
        std::string text;
        if (!(in >> text) || text.empty() ||
            text.find_first_not_of("0123456789") != std::string::npos)
            return SIZE_MAX;  // "max", or nothing readable
        try {
            return static_cast<size_t>(std::stoull(text));
        } catch (...) {
            return SIZE_MAX;
        }
    };
    size_t limit = SIZE_MAX;
    if (!v2_path.empty())
        limit = std::min(limit, read_number("/sys/fs/cgroup" + v2_path + "/memory.max"));
    if (!v1_path.empty())
        limit = std::min(limit,
                         read_number("/sys/fs/cgroup/memory" + v1_path + "/memory.limit_in_bytes"));
    return limit == 0 ? SIZE_MAX : limit;
}

size_t rlimit_bytes(int resource) {
    struct rlimit limit {};
    if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
    return static_cast<size_t>(limit.rlim_cur);
}

}  // namespace

size_t physical_memory_bytes() {
    static const size_t bytes = [] {
        const long pages = sysconf(_SC_PHYS_PAGES);
        const long page_size = sysconf(_SC_PAGESIZE);
        size_t limit = pages <= 0 || page_size <= 0
                           ? SIZE_MAX / 2
                           : static_cast<size_t>(pages) * static_cast<size_t>(page_size);
        // Under `ulimit -v` or a container's memory limit, a request physical memory would allow
        // still fails: the checks use the tighter limit, so the error names the size instead of
        // leaving a bare std::bad_alloc (or the OOM killer) to the caller.
        limit =
            std::min({limit, rlimit_bytes(RLIMIT_AS), rlimit_bytes(RLIMIT_DATA), cgroup_limit()});
        return limit;
    }();
    return bytes;
}

}  // namespace vireo::sdk
