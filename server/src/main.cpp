// vireo_server: serves Vireo models over KServe v2 gRPC and REST (see docs/serving.md).
#include <csignal>
#include <cstdio>
#include <iostream>

#include "server.hpp"
#include "server_log.hpp"

using vireo::server::ServerOptions;
using vireo::server::Status;

int main(int argc, char** argv) {
    ServerOptions options;
    bool help = false;
    Status s = vireo::server::parse_command_line(argc, argv, options, help);
    if (help) {
        std::cout << vireo::server::usage_text();
        return 0;
    }
    if (!s.ok()) {
        std::cerr << "ERROR: " << s.message << "\n" << vireo::server::usage_text();
        return 2;
    }
    // Block the stop signals in every thread (the threads started later inherit the mask); this
    // thread takes them with sigtimedwait, which also paces the repository polling.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    try {
        vireo::server::Server server(options);
        s = server.start();
        if (!s.ok()) {
            std::cerr << "ERROR: " << s.message << "\n";
            return 1;
        }
        server.load_models();
        while (true) {
            timespec wait{options.poll_wait_seconds > 0 ? options.poll_wait_seconds : 3600, 0};
            const int signal = sigtimedwait(&stop_signals, nullptr, &wait);
            if (signal == SIGTERM || signal == SIGINT) {
                vireo::server::log_line("info", signal == SIGTERM ? "SIGTERM" : "SIGINT");
                break;
            }
            if (options.poll_wait_seconds > 0) {
                Status r = server.reload();
                if (!r.ok()) vireo::server::log_line("error", "repository poll: " + r.message);
            }
        }
        server.shutdown();
    } catch (const std::exception& e) {
        std::cerr << "ERROR: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
