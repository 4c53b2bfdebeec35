// vireo_onnx_backend: runs ONNX's backend test corpus (model.onnx + test_data_set_*/input_k.pb,
// output_k.pb) on any Vireo device and judges as ONNX's own runner does: same element type, same
// shape, |actual - expected| <= atol + rtol * |expected| (rtol 1e-3, atol 1e-7), NaN matching NaN.
// Each test runs in a child process with a timeout, so a crash or hang is one failed test; the
// libraries the first child loads (the device's plugin, the ONNX frontend and what they link) are
// then loaded into the runner too, so later children inherit them instead of each loading and
// relocating them again (most of a small test's time under the sanitizers). An
// expectations file lists every test that does not pass, with its reason; an unexpected pass or a
// stale entry fails the run as surely as an unexpected failure (an entry marked nondeterministic,
// a test of unseeded random draws, accepts either outcome).
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_proto.hpp"
#include "vireo/core.hpp"
#include "vireo/float16.hpp"

// LeakSanitizer's on-demand check, present only in sanitizer builds.
extern "C" int __lsan_do_recoverable_leak_check() __attribute__((weak));

namespace fs = std::filesystem;
using namespace vireo;

namespace {

constexpr const char* kUsage = R"(usage: vireo_onnx_backend [options]
  --data DIR            the corpus root (default /usr/share/libonnx-testdata/data)
  --folders A,B,...     folders under it (default node,simple,pytorch-converted,pytorch-operator)
  --device NAME         device to run on (default TEMPLATE)
  --plugin LIB          register LIB as device NAME first (an out-of-tree plugin)
  --plugins_xml FILE    plugins.xml for the Core (default: the one next to libvireo)
  --config KEY=VALUE    set a device property before compiling (repeatable)
  --expectations FILE   tests expected to fail, one per line: "<test> <reason>"; '#' comments
                        (repeatable: a device's own file on top of the shared one). A reason
                        starting "nondeterministic:" accepts a pass too (a test whose outputs are
                        random draws, which match the expected data only by chance)
  --filter REGEX        only tests whose name matches
  --sample N            only every Nth test of those (the 1st, N+1th, ...; default 1: all);
                        the summary says how many ran. No stale-expectation check then
  --timeout S           seconds per test (default 60)
  --report FILE         write per-folder figures as Markdown
  --list-failures       print every failure with its message (default: unexpected ones only)
  -h, --help            this text
Exit status 0 when every outcome matches the expectations and no entry is stale.
)";

struct Options {
    std::string data = "/usr/share/libonnx-testdata/data";
    std::vector<std::string> folders{"node", "simple", "pytorch-converted", "pytorch-operator"};
    std::string device = "TEMPLATE", plugin, plugins_xml, filter, report;
    std::vector<std::string> expectations;
    AnyMap config;
    int timeout = 60;
    int sample = 1;
    bool list_failures = false;
};

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

std::shared_ptr<onnx::TensorProto> load_tensor(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path.string());
    auto proto = std::make_shared<onnx::TensorProto>();
    if (!proto->ParseFromIstream(&in))
        throw std::runtime_error(path.filename().string() + " is not a TensorProto");
    return proto;
}

double value_at(const Tensor& t, size_t i) {
    const void* p = t.data();
    switch (t.get_element_type().id()) {
        case element::TypeId::f32:
            return static_cast<const float*>(p)[i];
        case element::TypeId::f64:
            return static_cast<const double*>(p)[i];
        case element::TypeId::f16:
            return static_cast<float>(static_cast<const float16*>(p)[i]);
        case element::TypeId::bf16:
            return static_cast<float>(static_cast<const bfloat16*>(p)[i]);
        case element::TypeId::i8:
            return static_cast<const int8_t*>(p)[i];
        case element::TypeId::u8:
            return static_cast<const uint8_t*>(p)[i];
        case element::TypeId::i16:
            return static_cast<const int16_t*>(p)[i];
        case element::TypeId::u16:
            return static_cast<const uint16_t*>(p)[i];
        case element::TypeId::i32:
            return static_cast<const int32_t*>(p)[i];
        case element::TypeId::u32:
            return static_cast<const uint32_t*>(p)[i];
        case element::TypeId::i64:
            return static_cast<double>(static_cast<const int64_t*>(p)[i]);
        case element::TypeId::u64:
            return static_cast<double>(static_cast<const uint64_t*>(p)[i]);
        case element::TypeId::boolean:
            return static_cast<const bool*>(p)[i] ? 1 : 0;
        default:
            throw std::runtime_error("cannot compare element type " +
                                     std::string(t.get_element_type().name()));
    }
}

// The reason prefix of an expectation whose test may pass or fail from run to run.
constexpr std::string_view kNondeterministic = "nondeterministic:";

// Empty string when `actual` matches `expected`, else what differs.
std::string compare(const Tensor& actual, const Tensor& expected, const std::string& name) {
    if (actual.get_element_type() != expected.get_element_type())
        return name + ": element type " + std::string(actual.get_element_type().name()) +
               ", expected " + std::string(expected.get_element_type().name());
    if (actual.get_shape() != expected.get_shape())
        return name + ": shape " + actual.get_shape().to_string() + ", expected " +
               expected.get_shape().to_string();
    const size_t n = shape_size(expected.get_shape());
    const bool integral = expected.get_element_type().is_integral();
    size_t bad = 0, first = 0;
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
        const double a = value_at(actual, i), e = value_at(expected, i);
        bool ok;
        if (integral) {
            // Exact for integers (doubles hold the test values exactly).
            ok = a == e;
        } else if (std::isnan(e) || std::isnan(a)) {
            ok = std::isnan(e) && std::isnan(a);
        } else if (std::isinf(e) || std::isinf(a)) {
            ok = a == e;
        } else {
            ok = std::fabs(a - e) <= 1e-7 + 1e-3 * std::fabs(e);
        }
        if (!ok) {
            if (bad++ == 0) first = i;
            worst = std::max(worst, std::fabs(a - e));
        }
    }
    if (bad == 0) return {};
    std::ostringstream out;
    out << name << ": " << bad << " of " << n << " values differ (first at " << first << ": "
        << value_at(actual, first) << " vs " << value_at(expected, first) << ", max abs diff "
        << worst << ")";
    return out.str();
}

// numpy has no bfloat16, so ONNX's corpus stores bf16 tensors as uint16 bits: read them back as
// bf16 where the model's port is bf16.
Tensor as_bf16_if(const Tensor& t, element::Type wanted) {
    if (wanted != element::bf16 || t.get_element_type() != element::u16) return t;
    Tensor out(element::bf16, t.get_shape());
    std::memcpy(out.data(), t.data(), t.get_byte_size());
    return out;
}

// Runs one test in this (child) process; returns the failure message, empty on success.
std::string run_test(const Options& options, const fs::path& dir) {
    std::unique_ptr<Core> core = options.plugins_xml.empty()
                                     ? std::make_unique<Core>()
                                     : std::make_unique<Core>(options.plugins_xml);
    if (!options.plugin.empty()) {
        const std::string name = options.device.substr(0, options.device.find('.'));
        core->register_plugin(options.plugin, name);
    }
    auto model = core->read_model((dir / "model.onnx").string());
    auto compiled = core->compile_model(model, options.device, options.config);
    auto request = compiled.create_infer_request();
    std::vector<fs::path> sets;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.is_directory() &&
            entry.path().filename().string().rfind("test_data_set_", 0) == 0)
            sets.push_back(entry.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) return "no test_data_set_* folder";
    for (const auto& set : sets) {
        std::vector<std::shared_ptr<onnx::TensorProto>> keep;
        const auto inputs = compiled.inputs();
        for (size_t k = 0;; ++k) {
            const fs::path file = set / ("input_" + std::to_string(k) + ".pb");
            if (!fs::exists(file)) {
                if (k != inputs.size())
                    return set.filename().string() + " has " + std::to_string(k) +
                           " inputs, the model " + std::to_string(inputs.size());
                break;
            }
            if (k >= inputs.size()) return "more input files than model inputs";
            keep.push_back(load_tensor(file));
            Tensor t = onnx_import::to_tensor(*keep.back(), keep.back(), nullptr,
                                              file.filename().string());
            request.set_tensor(inputs[k], as_bf16_if(t, inputs[k].get_element_type()));
        }
        request.infer();
        const auto outputs = compiled.outputs();
        size_t k = 0;
        for (;; ++k) {
            const fs::path file = set / ("output_" + std::to_string(k) + ".pb");
            if (!fs::exists(file)) break;
            if (k >= outputs.size()) return "more expected outputs than model outputs";
            auto proto = load_tensor(file);
            Tensor expected =
                onnx_import::to_tensor(*proto, proto, nullptr, file.filename().string());
            expected = as_bf16_if(expected, outputs[k].get_element_type());
            const std::string diff =
                compare(request.get_tensor(outputs[k]), expected, "output " + std::to_string(k));
            if (!diff.empty()) return set.filename().string() + " " + diff;
        }
        if (k != outputs.size())
            return "the model has " + std::to_string(outputs.size()) + " outputs, " +
                   std::to_string(k) + " expected";
    }
    return {};
}

// True when every graph input and output of the test's model is a tensor of a numeric or boolean
// type: the part of the corpus a tensor runtime can be judged on (no strings, sequences, maps,
// optionals).
bool is_numeric_test(const fs::path& dir) {
    onnx::ModelProto model;
    std::ifstream in(dir / "model.onnx", std::ios::binary);
    if (!in || !model.ParseFromIstream(&in)) return false;
    auto numeric = [](const onnx::ValueInfoProto& v) {
        if (!v.type().has_tensor_type()) return false;
        const int t = v.type().tensor_type().elem_type();
        return t != onnx::TensorProto::STRING && t != onnx::TensorProto::COMPLEX64 &&
               t != onnx::TensorProto::COMPLEX128 && t != onnx::TensorProto::UNDEFINED;
    };
    for (const auto& v : model.graph().input())
        if (!numeric(v)) return false;
    for (const auto& v : model.graph().output())
        if (!numeric(v)) return false;
    return true;
}

struct Outcome {
    bool passed = false;
    std::string message;
};

std::string one_line(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text.size() > 400 ? text.substr(0, 400) + "..." : text;
}

// The shared libraries mapped into this process (from /proc/self/maps).
std::set<std::string> mapped_libraries() {
    std::set<std::string> paths;
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);) {
        const size_t slash = line.find('/');
        if (slash == std::string::npos) continue;
        const std::string path = line.substr(slash);
        const std::string file = fs::path(path).filename().string();
        if (file.find(".so") != std::string::npos) paths.insert(path);
    }
    return paths;
}

// Runs one test in a child process. With `loaded` set, the child also reports the libraries it
// mapped that this process had not, and they are stored there.
Outcome run_isolated(const Options& options, const fs::path& dir,
                     std::vector<std::string>* loaded = nullptr) {
    const std::set<std::string> before = loaded ? mapped_libraries() : std::set<std::string>{};
    int fds[2];
    if (pipe(fds) != 0) return {false, "pipe failed"};
    std::cout.flush();  // the child exits through exit(): nothing buffered may be written twice
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) return {false, "fork failed"};
    if (pid == 0) {
        close(fds[0]);
        std::string result;
        try {
            result = run_test(options, dir);
            result = result.empty() ? "PASS" : "FAIL " + result;
        } catch (const std::exception& e) {
            result = std::string("FAIL ") + e.what();
        }
        result = one_line(result);
        if (loaded)
            for (const auto& path : mapped_libraries())
                if (!before.count(path)) result += "\n" + path;
        ssize_t ignored = write(fds[1], result.data(), result.size());
        (void)ignored;
        close(fds[1]);
        // Under LeakSanitizer a leak fails this test with a non-zero status: the check runs here,
        // then _exit skips the static destructors of every loaded library (most of a small
        // test's exit under ASan); without it, exit() as usual.
        if (&__lsan_do_recoverable_leak_check) _exit(__lsan_do_recoverable_leak_check() ? 23 : 0);
        std::exit(0);
    }
    close(fds[1]);
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout);
    bool timed_out = false;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
        char buffer[4096];
        const ssize_t got = read(fds[0], buffer, sizeof buffer);
        if (got <= 0) break;
        text.append(buffer, static_cast<size_t>(got));
    }
    close(fds[0]);
    if (timed_out) kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (timed_out) return {false, "timed out after " + std::to_string(options.timeout) + " s"};
    if (WIFSIGNALED(status))
        return {false, "crashed with signal " + std::to_string(WTERMSIG(status))};
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        return {false, "exited with status " + std::to_string(WEXITSTATUS(status))};
    if (loaded) {
        std::istringstream lines(text);
        std::getline(lines, text);  // the verdict; then one library per line
        for (std::string path; std::getline(lines, path);) loaded->push_back(path);
    }
    if (text.rfind("PASS", 0) == 0) return {true, {}};
    if (text.rfind("FAIL ", 0) == 0) return {false, text.substr(5)};
    return {false, "no result reported"};
}

void read_expectations(const std::string& path, std::map<std::string, std::string>& out) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read expectations '" + path + "'");
    for (std::string line; std::getline(in, line);) {
        const size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#') continue;
        const size_t end = line.find_first_of(" \t", start);
        const std::string name = line.substr(start, end - start);
        std::string reason =
            end == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", end));
        if (reason.empty())
            throw std::runtime_error("expectations '" + path + "': '" + name + "' has no reason");
        if (!out.emplace(name, reason).second)
            throw std::runtime_error("expectations: '" + name + "' listed twice");
    }
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << arg << " needs a value\n" << kUsage;
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "-h" || arg == "--help") {
            std::cout << kUsage;
            return 0;
        }
        if (arg == "--data")
            options.data = next();
        else if (arg == "--folders")
            options.folders = split_list(next());
        else if (arg == "--device")
            options.device = next();
        else if (arg == "--plugin")
            options.plugin = next();
        else if (arg == "--plugins_xml")
            options.plugins_xml = next();
        else if (arg == "--expectations")
            options.expectations.push_back(next());
        else if (arg == "--config") {
            const std::string kv = next();
            const size_t eq = kv.find('=');
            if (eq == std::string::npos || eq == 0) {
                std::cerr << "--config needs KEY=VALUE, got '" << kv << "'\n";
                return 2;
            }
            options.config[kv.substr(0, eq)] = kv.substr(eq + 1);
        } else if (arg == "--filter")
            options.filter = next();
        else if (arg == "--sample") {
            const std::string n = next();
            options.sample = n.find_first_not_of("0123456789") == std::string::npos && n.size() < 6
                                 ? std::atoi(n.c_str())
                                 : 0;
            if (options.sample < 1) {
                std::cerr << "--sample needs a whole number from 1, got '" << n << "'\n";
                return 2;
            }
        } else if (arg == "--timeout")
            options.timeout = std::stoi(next());
        else if (arg == "--report")
            options.report = next();
        else if (arg == "--list-failures")
            options.list_failures = true;
        else {
            std::cerr << "unknown option '" << arg << "'\n" << kUsage;
            return 2;
        }
    }
    std::map<std::string, std::string> expected;
    try {
        for (const auto& path : options.expectations) read_expectations(path, expected);
    } catch (const std::exception& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
    std::regex filter(options.filter.empty() ? ".*" : options.filter);
    struct Figures {
        int total = 0, passed = 0, numeric = 0, numeric_passed = 0;
    };
    std::map<std::string, Figures> figures;
    std::set<std::string> seen;
    int unexpected_failures = 0, unexpected_passes = 0, expected_failures = 0, chance_passes = 0;
    bool preloaded = false;
    int matching = 0;  // tests the filter selects, sampled or not
    for (const auto& folder : options.folders) {
        const fs::path root = fs::path(options.data) / folder;
        if (!fs::is_directory(root)) {
            std::cerr << "corpus folder '" << root.string()
                      << "' does not exist (install libonnx-testdata)\n";
            return 2;
        }
        std::vector<fs::path> tests;
        for (const auto& entry : fs::directory_iterator(root))
            if (fs::exists(entry.path() / "model.onnx")) tests.push_back(entry.path());
        std::sort(tests.begin(), tests.end());
        for (const auto& dir : tests) {
            const std::string name = dir.filename().string();
            if (!std::regex_search(name, filter)) continue;
            if (matching++ % options.sample != 0) continue;
            seen.insert(name);
            std::vector<std::string> loaded;
            const Outcome outcome = run_isolated(options, dir, preloaded ? nullptr : &loaded);
            if (!preloaded) {
                // Kept loaded for the whole run (never closed). A library that fails to load here
                // is simply loaded by each child as before.
                for (const auto& path : loaded) dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
                preloaded = true;
            }
            auto& f = figures[folder];
            ++f.total;
            if (outcome.passed) ++f.passed;
            if (is_numeric_test(dir)) {
                ++f.numeric;
                if (outcome.passed) ++f.numeric_passed;
            }
            const auto listed = expected.find(name);
            const bool either =
                listed != expected.end() && listed->second.rfind(kNondeterministic, 0) == 0;
            if (outcome.passed && either) {
                ++chance_passes;
                std::cout << "chance pass " << folder << "/" << name
                          << " (listed: " << listed->second << ")\n";
            } else if (outcome.passed && listed != expected.end()) {
                ++unexpected_passes;
                std::cout << "UNEXPECTED PASS " << folder << "/" << name
                          << " (listed: " << listed->second << ")\n";
            } else if (!outcome.passed && listed == expected.end()) {
                ++unexpected_failures;
                std::cout << "FAIL " << folder << "/" << name << ": " << outcome.message << "\n";
            } else if (!outcome.passed) {
                ++expected_failures;
                if (options.list_failures)
                    std::cout << "expected fail " << folder << "/" << name << ": "
                              << outcome.message << "\n";
            }
        }
    }
    int stale = 0;
    if (options.filter.empty() && options.sample == 1)
        for (const auto& [name, reason] : expected)
            if (!seen.count(name)) {
                ++stale;
                std::cout << "STALE expectation '" << name << "': no such test\n";
            }
    Figures all;
    std::ostringstream table;
    table << std::fixed << std::setprecision(1);
    auto row = [&](const std::string& name, const Figures& f) {
        table << "| " << name << " | " << f.total << " | " << f.passed << " | "
              << (f.total ? 100.0 * f.passed / f.total : 0.0) << " | " << f.numeric << " | "
              << f.numeric_passed << " | "
              << (f.numeric ? 100.0 * f.numeric_passed / f.numeric : 0.0) << " |\n";
    };
    table << "| folder | tests | pass | % | numeric tests | pass | % "
             "|\n|---|---|---|---|---|---|---|\n";
    for (const auto& [folder, f] : figures) {
        all.total += f.total;
        all.passed += f.passed;
        all.numeric += f.numeric;
        all.numeric_passed += f.numeric_passed;
        row(folder, f);
    }
    row("all", all);
    const int total = all.total, passed = all.passed;
    std::cout << "\n" << table.str();
    if (!options.report.empty())
        std::ofstream(options.report) << "Device " << options.device << "\n\n" << table.str();
    std::cout << "device " << options.device << ": " << passed << " of " << total << " tests pass; "
              << expected_failures << " expected failures, " << unexpected_failures
              << " unexpected failures, " << unexpected_passes << " unexpected passes, " << stale
              << " stale expectations\n";
    if (chance_passes) std::cout << chance_passes << " nondeterministic tests passed by chance\n";
    if (options.sample > 1)
        std::cout << "sampled: every " << options.sample << "th test, " << total << " of "
                  << matching << "\n";
    return unexpected_failures || unexpected_passes || stale ? 1 : 0;
}
