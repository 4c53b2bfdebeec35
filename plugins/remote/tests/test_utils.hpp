// Helpers for the REMOTE tests: a vireo_server child process on a free loopback port, a Core on
// the build tree's plugins.xml, small models and value comparisons.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "vireo/core.hpp"
#include "vireo/ir.hpp"
#include "vireo/ops.hpp"
#include "vireo/remote/properties.hpp"

extern char** environ;

namespace vireo::remote::test {

/// A vireo_server child process on 127.0.0.1 with a port the server picks (--port -1), read from
/// its log; started in the constructor (which waits for "ready"), stopped by stop() (SIGTERM),
/// kill() (SIGKILL: a crash) or the destructor. A thread drains its log.
class ServerProcess {
  public:
    explicit ServerProcess(std::vector<std::string> args = {}, int port = -1) { start(args, port); }
    ~ServerProcess() { kill(); }
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;

    const std::string& url() const { return m_url; }
    int port() const { return m_port; }
    bool running() const { return m_pid > 0; }

    void start(std::vector<std::string> args, int port = -1) {
        std::vector<std::string> argv = {VIREO_SERVER_BINARY,
                                         "--port",
                                         std::to_string(port),
                                         "--rest_port",
                                         "0",
                                         "--grpc_bind_address",
                                         "127.0.0.1",
                                         "--shutdown_grace_seconds",
                                         "5"};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<char*> cargv;
        for (auto& a : argv) cargv.push_back(a.data());
        cargv.push_back(nullptr);
        int fds[2];
        if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
        posix_spawn_file_actions_addclose(&actions, fds[0]);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        pid_t pid = 0;
        const int rc = posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(fds[1]);
        if (rc != 0) {
            close(fds[0]);
            throw std::runtime_error(std::string("cannot start ") + VIREO_SERVER_BINARY);
        }
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_pid = pid;
            m_log.clear();
            m_eof = false;
        }
        m_reader = std::thread([this, fd = fds[0]] { read_log(fd); });
        const std::smatch port_match = wait_for(R"(gRPC listening on [\d.]+:(\d+))");
        m_port = std::stoi(port_match[1].str());
        m_url = "127.0.0.1:" + std::to_string(m_port);
        wait_for(R"(\[info\] ready)");
    }

    /// SIGKILL, as a crash.
    void kill() { end(SIGKILL); }
    /// SIGTERM, a clean shutdown.
    void stop() { end(SIGTERM); }

    std::string log() const {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_log;
    }

  private:
    void end(int signal) {
        pid_t pid;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            pid = m_pid;
            m_pid = 0;
        }
        if (pid > 0) {
            ::kill(pid, signal);
            int status = 0;
            waitpid(pid, &status, 0);
        }
        if (m_reader.joinable()) m_reader.join();
    }

    void read_log(int fd) {
        char buffer[4096];
        for (;;) {
            const ssize_t n = read(fd, buffer, sizeof(buffer));
            if (n <= 0) break;
            std::lock_guard<std::mutex> lock(m_mutex);
            m_log.append(buffer, static_cast<size_t>(n));
            m_cv.notify_all();
        }
        close(fd);
        std::lock_guard<std::mutex> lock(m_mutex);
        m_eof = true;
        m_cv.notify_all();
    }

    std::smatch wait_for(const std::string& pattern) {
        const std::regex regex(pattern);
        std::unique_lock<std::mutex> lock(m_mutex);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        for (;;) {
            std::smatch match;
            m_matched = m_log;
            if (std::regex_search(m_matched, match, regex)) return match;
            if (m_eof)
                throw std::runtime_error("vireo_server exited before '" + pattern + "':\n" + m_log);
            if (m_cv.wait_until(lock, deadline) == std::cv_status::timeout)
                throw std::runtime_error("no '" + pattern + "' in the server log:\n" + m_log);
        }
    }

    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::string m_log;
    std::string m_matched;
    bool m_eof = false;
    pid_t m_pid = 0;
    std::thread m_reader;
    int m_port = 0;
    std::string m_url;
};

inline Core make_core() {
    return Core(std::string(VIREO_BUILD_LIB_DIR) + "/plugins.xml");
}

/// y = x + 1 over f32 `shape`, input "x", output "y".
inline std::shared_ptr<Model> add_one_model(const PartialShape& shape = PartialShape{1, 8},
                                            const std::string& name = "add_one") {
    auto x = op::parameter(element::f32, shape, "x");
    auto y = op::add(x, op::constant<float>(element::f32, {1}, {1.f}));
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, name);
}

/// y = relu(a * b - 2) and z = a + b: two inputs, two outputs.
inline std::shared_ptr<Model> two_io_model(const Shape& shape = {2, 3}) {
    auto a = op::parameter(element::f32, PartialShape(shape), "a");
    auto b = op::parameter(element::f32, PartialShape(shape), "b");
    auto y =
        op::relu(op::subtract(op::multiply(a, b), op::constant<float>(element::f32, {1}, {2.f})));
    y->output(0).set_names({"y"});
    auto z = op::add(a, b);
    z->output(0).set_names({"z"});
    return std::make_shared<Model>(OutputVector{y, z}, ParameterVector{a, b}, "two_io");
}

inline Tensor make_tensor(const Shape& shape, float start = 0.f, float step = 1.f) {
    Tensor t(element::f32, shape);
    float* p = t.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i) p[i] = start + step * static_cast<float>(i);
    return t;
}

inline std::vector<float> values(const Tensor& t) {
    Tensor host = t.is_continuous() ? t : t.clone();
    const float* p = host.data<float>();
    return std::vector<float>(p, p + host.get_size());
}

/// A temporary folder removed at the end of the test.
class TempDir {
  public:
    TempDir() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "vireo_remote_XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        m_path = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    const std::string& path() const { return m_path; }

  private:
    std::string m_path;
};

/// Writes `model` as <dir>/<name>/1/model.xml (a server repository folder); returns <dir>/<name>.
inline std::string write_repository_model(const Model& model, const std::string& dir,
                                          const std::string& name) {
    const std::string base = dir + "/" + name;
    std::filesystem::create_directories(base + "/1");
    serialize(model, base + "/1/model.xml", base + "/1/model.bin");
    return base;
}

/// Arguments serving `base` as `name` on MOCK_REMOTE with `latency_ms` per inference (a sleep on
/// the server, not CPU time) and `nireq` requests.
inline std::vector<std::string> slow_model_args(const std::string& base, const std::string& name,
                                                uint32_t latency_ms, int nireq = 4) {
    return {"--model_path",
            base,
            "--model_name",
            name,
            "--target_device",
            "MOCK_REMOTE",
            "--nireq",
            std::to_string(nireq),
            "--plugin_config",
            "{\"MOCK_REMOTE_LATENCY_US\":\"" + std::to_string(latency_ms * 1000) +
                "\",\"MOCK_REMOTE_COMPILE_MS\":\"0\"}"};
}

}  // namespace vireo::remote::test
