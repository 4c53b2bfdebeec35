// Finds a REST connection's socket by its address pair and checks whether its client went away.
#include "client_connection.hpp"

#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>

namespace vireo::server {

namespace {

// The port of an IPv4 or IPv6 address, -1 for any other family.
int port_of(const sockaddr_storage& address) {
    if (address.ss_family == AF_INET)
        return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
    if (address.ss_family == AF_INET6)
        return ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
    return -1;
}

// Whether `address` is `host`:`port`, the host compared in the numeric form cpp-httplib uses.
bool same_end(const sockaddr_storage& address, socklen_t length, const std::string& host,
              int port) {
    if (port_of(address) != port) return false;
    char text[NI_MAXHOST];
    if (getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, text, sizeof(text),
                    nullptr, 0, NI_NUMERICHOST) != 0) {
        return false;
    }
    return host == text;
}

bool has_ends(int fd, const ConnectionEnds& ends) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    // The peer first: it rules out listening sockets and most other connections in one call.
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return false;
    if (!same_end(address, length, ends.remote_addr, ends.remote_port)) return false;
    length = sizeof(address);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return false;
    return same_end(address, length, ends.local_addr, ends.local_port);
}

}  // namespace

int find_connection_socket(const ConnectionEnds& ends) {
    if (ends.remote_port < 0 || ends.local_port < 0) return -1;
    DIR* dir = opendir("/proc/self/fd");
    if (!dir) return -1;
    const int own = dirfd(dir);
    int found = -1;
    while (const dirent* entry = readdir(dir)) {
        char* end = nullptr;
        const long fd = std::strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0' || fd == own) continue;  // ".", "..", the scan
        if (has_ends(static_cast<int>(fd), ends)) {
            found = static_cast<int>(fd);
            break;
        }
    }
    closedir(dir);
    return found;
}

bool raise_listen_backlog(int fd) {
    return ::listen(fd, SOMAXCONN) == 0;
}

bool peer_closed(int fd) {
    pollfd p{fd, static_cast<short>(POLLIN | POLLRDHUP), 0};
    int n = 0;
    do {
        n = poll(&p, 1, 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) return true;
    if (p.revents & POLLIN) {
        // Bytes are waiting (a pipelined request, a TLS alert): closed only if a peek finds the
        // end of the stream behind them, which POLLRDHUP would have reported already.
        char byte = 0;
        return recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
    }
    return false;
}

}  // namespace vireo::server
