// Tests of the REST handlers' connection check on real loopback TCP connections: a connection's
// socket found by its address pair, and a peer that closes, resets or keeps sending told apart.
#include "client_connection.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "metrics.hpp"

namespace vireo::server {
namespace {

// A socket listening on a free loopback port with `backlog`; `address` is where it listens.
int loopback_listener(int backlog, sockaddr_in& address) {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    address = {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    EXPECT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), length), 0);
    EXPECT_EQ(::listen(listener, backlog), 0);
    EXPECT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
    return listener;
}

// A connected loopback pair: `client` connected to `server`, the socket accept() returned.
class LoopbackPair {
  public:
    LoopbackPair() {
        sockaddr_in address{};
        const int listener = loopback_listener(1, address);
        const socklen_t length = sizeof(address);
        client = ::socket(AF_INET, SOCK_STREAM, 0);
        EXPECT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), length), 0);
        server = ::accept(listener, nullptr, nullptr);
        EXPECT_GE(server, 0);
        ::close(listener);
    }
    ~LoopbackPair() {
        if (client >= 0) ::close(client);
        if (server >= 0) ::close(server);
    }

    // The server side's ends, as cpp-httplib's Request reports them.
    ConnectionEnds ends() const {
        sockaddr_in local{}, remote{};
        socklen_t length = sizeof(local);
        ::getsockname(server, reinterpret_cast<sockaddr*>(&local), &length);
        length = sizeof(remote);
        ::getpeername(server, reinterpret_cast<sockaddr*>(&remote), &length);
        return {"127.0.0.1", ntohs(local.sin_port), "127.0.0.1", ntohs(remote.sin_port)};
    }

    int client = -1;
    int server = -1;
};

// peer_closed() of `fd`, asked until it says yes or a second passed (a FIN crosses loopback at
// once; the bound only keeps a broken check from hanging the test).
bool closed_within_a_second(int fd) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (std::chrono::steady_clock::now() < until) {
        if (peer_closed(fd)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

TEST(ClientConnection, FindsTheSocketOfAnAddressPair) {
    LoopbackPair a, b;
    EXPECT_EQ(find_connection_socket(a.ends()), a.server);
    EXPECT_EQ(find_connection_socket(b.ends()), b.server);
    // a's local port is its own listener's, so no other port of the peer can match.
    ConnectionEnds other = a.ends();
    other.remote_port = other.remote_port % 65535 + 1;
    EXPECT_EQ(find_connection_socket(other), -1);
    other = a.ends();
    other.remote_addr = "127.0.0.2";
    EXPECT_EQ(find_connection_socket(other), -1);
    EXPECT_EQ(find_connection_socket(ConnectionEnds{}), -1);  // a Request without addresses
}

TEST(ClientConnection, OpenPeerIsNotClosedEvenWithBytesWaiting) {
    LoopbackPair pair;
    EXPECT_FALSE(peer_closed(pair.server));
    ASSERT_EQ(::send(pair.client, "GET", 3, 0), 3);  // a pipelined request
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(peer_closed(pair.server));
    char bytes[4] = {};
    EXPECT_EQ(::recv(pair.server, bytes, sizeof(bytes), MSG_DONTWAIT), 3);  // left unread
}

TEST(ClientConnection, ClosedPeerIsSeen) {
    LoopbackPair pair;
    ::close(pair.client);
    pair.client = -1;
    EXPECT_TRUE(closed_within_a_second(pair.server));
}

TEST(ClientConnection, ClosedPeerIsSeenBehindUnreadBytes) {
    LoopbackPair pair;
    ASSERT_EQ(::send(pair.client, "POST", 4, 0), 4);
    ::shutdown(pair.client, SHUT_WR);
    EXPECT_TRUE(closed_within_a_second(pair.server));
}

TEST(ClientConnection, ResetPeerIsSeen) {
    LoopbackPair pair;
    const linger abort_on_close{1, 0};  // close() sends RST
    ASSERT_EQ(
        ::setsockopt(pair.client, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof(abort_on_close)),
        0);
    ::close(pair.client);
    pair.client = -1;
    EXPECT_TRUE(closed_within_a_second(pair.server));
}

// How many of `count` non-blocking connects to a loopback listener that never accepts complete
// their handshake within half a second. The kernel completes at most backlog + 1 and drops the
// other SYNs while the accept queue is full; their retransmission comes after a second.
int handshakes_completed(bool raise_backlog, int count) {
    sockaddr_in address{};
    const int listener = loopback_listener(5, address);  // cpp-httplib's backlog
    const socklen_t length = sizeof(address);
    if (raise_backlog) {
        EXPECT_TRUE(raise_listen_backlog(listener));
    }
    std::vector<pollfd> clients;
    for (int i = 0; i < count; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        ::connect(fd, reinterpret_cast<sockaddr*>(&address), length);  // EINPROGRESS
        clients.push_back({fd, POLLOUT, 0});
    }
    int completed = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    while (completed < count && std::chrono::steady_clock::now() < until) {
        ::poll(clients.data(), clients.size(), 10);
        completed = 0;
        for (auto& c : clients) {
            int error = 0;
            socklen_t size = sizeof(error);
            if ((c.revents & POLLOUT) &&
                ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0)
                ++completed;
        }
    }
    for (auto& c : clients) ::close(c.fd);
    ::close(listener);
    return completed;
}

TEST(ClientConnection, RaisedBacklogTakesABurstOfConnections) {
    // The control: with cpp-httplib's backlog of 5 a burst of 40 stalls beyond the sixth.
    EXPECT_LE(handshakes_completed(false, 40), 6);
    EXPECT_EQ(handshakes_completed(true, 40), 40);
}

TEST(ClientConnection, CancelledRequestsAreCountedPerInterfaceAndMethod) {
    Metrics metrics;
    metrics.record_cancelled("m", 2, "REST", "ModelInfer");
    metrics.record_cancelled("m", 2, "REST", "ModelInfer");
    metrics.record_cancelled("m", 2, "gRPC", "ModelInfer");
    metrics.record_cancelled("m", 2, "gRPC", "ModelStreamInfer");
    metrics.record_cancelled("m", 2, "gRPC", "ModelStreamInfer");
    metrics.record_cancelled("m", 2, "gRPC", "ModelStreamInfer");
    const std::string text = metrics.render();
    EXPECT_NE(
        text.find(
            R"(vireo_requests_cancelled{api="KServe",interface="REST",method="ModelInfer",name="m",version="2"} 2)"),
        std::string::npos)
        << text;
    EXPECT_NE(
        text.find(
            R"(vireo_requests_cancelled{api="KServe",interface="gRPC",method="ModelInfer",name="m",version="2"} 1)"),
        std::string::npos)
        << text;
    EXPECT_NE(
        text.find(
            R"(vireo_requests_cancelled{api="KServe",interface="gRPC",method="ModelStreamInfer",name="m",version="2"} 3)"),
        std::string::npos)
        << text;
}

}  // namespace
}  // namespace vireo::server
