// Declares the socket look-up and the liveness check with which a REST handler notices that its
// client closed the connection while the handler waits for an inference.
#pragma once

#include <string>

namespace vireo::server {

/// A TCP connection's two ends as cpp-httplib's Request reports them: numeric addresses in
/// getnameinfo(NI_NUMERICHOST) form ("127.0.0.1", "::1") and port numbers.
struct ConnectionEnds {
    std::string local_addr;
    int local_port = -1;
    std::string remote_addr;
    int remote_port = -1;
};

/// The file descriptor of this process's connected TCP socket whose ends are `ends`, or -1 when
/// no open socket has them.
///
/// Why a search: cpp-httplib 0.11.4 (Debian 12's) does not give a handler its socket — Request has
/// no socket and no is_connection_closed(), and the socket options hook runs on the listening
/// socket only. The address pair names an established connection uniquely, so the search scans
/// /proc/self/fd and compares each socket's getsockname/getpeername with `ends`.
///
/// Cost: about three system calls per open descriptor; call it once per request that waits, not
/// per poll. Thread safety: may be called from any thread. The descriptor found stays this
/// connection's for as long as the caller's handler runs (cpp-httplib closes a connection's
/// socket on the thread that runs its handlers, after they return); it must not be closed.
int find_connection_socket(const ConnectionEnds& ends);

/// Whether the peer of connected socket `fd` has closed its end or reset the connection. Does not
/// block and reads nothing (bytes the client sent are left for the HTTP layer).
///
/// A client that only shuts down its sending side (shutdown(SHUT_WR)) while still reading counts
/// as closed: HTTP/1.1 clients do not half-close while waiting for an answer.
bool peer_closed(int fd);

/// Lets listening socket `fd` queue as many accepted-but-not-yet-taken connections as the system
/// allows (SOMAXCONN, capped by net.core.somaxconn). cpp-httplib 0.11.4 listens with a backlog of
/// 5 (compiled into Debian's library): in a burst of new connections the kernel then drops the
/// handshakes beyond it, and those clients wait for a retransmission (1 s, then 3 s, ...) or time
/// out — vireo_loadgen saw REST requests fail after 5 s at 64 concurrent clients. Returns false
/// (errno set) when listen() fails.
bool raise_listen_backlog(int fd);

}  // namespace vireo::server
