// The server's log lines on stderr.
#include "server_log.hpp"

#include <cstdio>
#include <ctime>

namespace vireo::server {

void log_line(const char* level, const std::string& text) {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &utc);
    // One fprintf per line: stdio locks the stream for the call, so lines never interleave.
    std::fprintf(stderr, "%s [%s] %s\n", stamp, level, text.c_str());
}

}  // namespace vireo::server
