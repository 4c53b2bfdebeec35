// vireo_conformance: runs the conformance suite against one device, each test in its own child
// process (fork + exec of this program) with a timeout, and reports per category.
//
//   vireo_conformance --device NAME[.N] [--plugin lib.so] [--gtest_filter=PATTERNS]
//                     [--report-json FILE] [--report-junit FILE] [--expectations FILE]
//                     [--timeout S] [--jobs N] [--property KEY=VALUE]... [--probe] [--list]
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "runner.hpp"
#include "vireo/conformance/suite.hpp"

namespace vireo::conformance::runner {
namespace {

constexpr const char* kChildFlag = "--vireo-conformance-child=";

struct Arguments {
    std::string device;
    std::string plugin;
    std::string filter = "*";
    std::string report_json;
    std::string report_junit;
    std::string expectations;
    std::vector<std::string> properties;  // KEY=VALUE
    double timeout_seconds = 60;
    int jobs = 1;
    long require_run = -1;  // --require-run N: fewer tests run to a verdict fails the run
    bool probe = false;
    bool list = false;
    std::string child_result;             // internal: run one test, write its result here
    std::vector<std::string> gtest_args;  // passed through to GoogleTest in child mode
};

/// Prints the usage; exits 2 after an error, 0 for --help (empty `error`).
[[noreturn]] void usage(const std::string& error) {
    std::ostream& out = error.empty() ? std::cout : std::cerr;
    if (!error.empty()) out << "vireo_conformance: " << error << "\n";
    out << "usage: vireo_conformance --device NAME[.N] [--plugin lib.so] "
           "[--gtest_filter=PATTERNS]\n"
        << "         [--report-json FILE] [--report-junit FILE] [--expectations FILE] "
           "[--timeout S]\n"
        << "         [--jobs N] [--property KEY=VALUE]... [--require-run N] [--probe] [--list]\n"
        << "docs/conformance.md describes the categories, the expectations file and the reports.\n";
    std::exit(error.empty() ? 0 : 2);
}

Arguments parse(int argc, char** argv) {
    Arguments a;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        std::string value;
        bool has_value = false;
        if (arg.rfind(kChildFlag, 0) == 0) {
            a.child_result = arg.substr(std::strlen(kChildFlag));
            continue;
        }
        if (arg.rfind("--gtest_", 0) == 0) {
            if (arg.rfind("--gtest_filter=", 0) == 0) a.filter = arg.substr(15);
            a.gtest_args.push_back(arg);
            continue;
        }
        if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
            has_value = true;
        }
        auto next = [&]() -> std::string {
            if (has_value) return value;
            if (i + 1 >= argc) usage(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--device")
            a.device = next();
        else if (arg == "--plugin")
            a.plugin = next();
        else if (arg == "--report-json")
            a.report_json = next();
        else if (arg == "--report-junit")
            a.report_junit = next();
        else if (arg == "--expectations")
            a.expectations = next();
        else if (arg == "--property")
            a.properties.push_back(next());
        else if (arg == "--timeout") {
            const std::string t = next();
            char* end = nullptr;
            a.timeout_seconds = std::strtod(t.c_str(), &end);
            if (end == t.c_str() || *end || a.timeout_seconds <= 0)
                usage("--timeout needs a positive number of seconds");
        } else if (arg == "--jobs") {
            a.jobs = std::atoi(next().c_str());
            if (a.jobs < 1) usage("--jobs needs a positive count");
        } else if (arg == "--require-run") {
            a.require_run = std::atol(next().c_str());
            if (a.require_run < 0) usage("--require-run needs a count >= 0");
        } else if (arg == "--probe")
            a.probe = true;
        else if (arg == "--list")
            a.list = true;
        else if (arg == "--help" || arg == "-h")
            usage("");
        else
            usage("unknown argument '" + arg + "'");
    }
    if (a.device.empty() && !a.list) usage("--device is required");
    return a;
}

/// GoogleTest's filter syntax: POSITIVE[:POSITIVE...][-NEGATIVE[:NEGATIVE...]] with * and ?.
bool glob(const char* pattern, const char* text) {
    if (*pattern == '\0') return *text == '\0';
    if (*pattern == '*') return glob(pattern + 1, text) || (*text && glob(pattern, text + 1));
    if (*text && (*pattern == '?' || *pattern == *text)) return glob(pattern + 1, text + 1);
    return false;
}

bool any_match(const std::string& patterns, const std::string& name) {
    std::istringstream in(patterns);
    std::string p;
    while (std::getline(in, p, ':'))
        if (!p.empty() && glob(p.c_str(), name.c_str())) return true;
    return false;
}

bool filter_matches(const std::string& filter, const std::string& name) {
    const auto dash = filter.find('-');
    std::string positive = dash == std::string::npos ? filter : filter.substr(0, dash);
    const std::string negative = dash == std::string::npos ? "" : filter.substr(dash + 1);
    if (positive.empty()) positive = "*";
    return any_match(positive, name) && !any_match(negative, name);
}

std::vector<std::pair<std::string, std::string>> list_tests(const std::string& filter) {
    std::vector<std::pair<std::string, std::string>> tests;  // {full name, category}
    auto* unit = ::testing::UnitTest::GetInstance();
    for (int s = 0; s < unit->total_test_suite_count(); ++s) {
        const auto* suite = unit->GetTestSuite(s);
        for (int t = 0; t < suite->total_test_count(); ++t) {
            const std::string name =
                std::string(suite->name()) + "." + suite->GetTestInfo(t)->name();
            if (filter_matches(filter, name)) tests.emplace_back(name, suite->name());
        }
    }
    return tests;
}

AnyMap parse_properties(const std::vector<std::string>& items) {
    AnyMap map;
    for (const auto& item : items) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            usage("--property needs KEY=VALUE, found '" + item + "'");
        map[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return map;
}

// ---- Child side: run one test, write "status\nmessage" to the result file ----

class ResultWriter : public ::testing::EmptyTestEventListener {
  public:
    explicit ResultWriter(std::string path) : m_path(std::move(path)) {}
    void OnTestEnd(const ::testing::TestInfo& info) override {
        const auto* result = info.result();
        std::string message;
        for (int i = 0; i < result->total_part_count(); ++i) {
            const auto& part = result->GetTestPartResult(i);
            if (!message.empty()) message += "\n";
            // A skip's reason stands alone; a failure names its source file (without the build's
            // directory layout) and line.
            if (part.file_name() && !part.skipped()) {
                const std::string file = part.file_name();
                message += file.substr(file.find_last_of('/') + 1) + ":" +
                           std::to_string(part.line_number()) + ": ";
            }
            message += part.message();
        }
        const char* status = result->Skipped() ? "skipped" : result->Failed() ? "failed" : "passed";
        // A test whose only failures say its model could not be built from the device's ops
        // (ModelUnavailable) did not run: it is reported as such, never as passed or failed.
        if (result->Failed()) {
            bool only_unavailable = true;
            std::string reason;
            for (int i = 0; i < result->total_part_count(); ++i) {
                const auto& part = result->GetTestPartResult(i);
                if (!part.failed()) continue;
                const std::string text = part.message();
                const auto at = text.find(kNotRunMarker);
                if (at == std::string::npos) {
                    only_unavailable = false;
                    break;
                }
                if (reason.empty()) {
                    reason = text.substr(at + std::strlen(kNotRunMarker));
                    reason = reason.substr(0, reason.rfind("\" thrown in"));
                }
            }
            if (only_unavailable) {
                status = "not-run";
                message = reason;
            }
        }
        std::ofstream out(m_path, std::ios::trunc);
        out << status << '\n' << message;
    }

  private:
    std::string m_path;
};

int run_child(const Arguments& a, char* argv0) {
    std::vector<std::string> storage{argv0};
    storage.insert(storage.end(), a.gtest_args.begin(), a.gtest_args.end());
    std::vector<char*> args;
    for (auto& s : storage) args.push_back(s.data());
    int count = static_cast<int>(args.size());
    ::testing::InitGoogleTest(&count, args.data());
    ::testing::UnitTest::GetInstance()->listeners().Append(new ResultWriter(a.child_result));
    return RUN_ALL_TESTS();
}

// ---- Parent side ----

struct Child {
    std::string test;
    std::string category;
    pid_t pid = -1;
    std::chrono::steady_clock::time_point start;
    std::string result_path;
    std::string log_path;
};

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string tail(const std::string& text, size_t max_chars) {
    if (text.size() <= max_chars) return text;
    return "..." + text.substr(text.size() - max_chars);
}

Child spawn(const Arguments& a, const std::string& self, const std::string& dir, size_t index,
            const std::pair<std::string, std::string>& test) {
    Child c;
    c.test = test.first;
    c.category = test.second;
    c.result_path = dir + "/result_" + std::to_string(index);
    c.log_path = dir + "/log_" + std::to_string(index);
    std::vector<std::string> args{self, kChildFlag + c.result_path, "--device=" + a.device,
                                  "--gtest_filter=" + c.test, "--gtest_color=no"};
    if (!a.plugin.empty()) args.push_back("--plugin=" + a.plugin);
    if (!a.expectations.empty()) args.push_back("--expectations=" + a.expectations);
    for (const auto& p : a.properties) args.push_back("--property=" + p);
    std::vector<char*> argv;
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    c.start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid < 0) throw_error<Unavailable>("fork failed for ", c.test, ": ", std::strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);  // its own group: a timeout kills the test and anything it started
        const int fd = open(c.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execv(self.c_str(), argv.data());
        _exit(127);
    }
    c.pid = pid;
    return c;
}

Outcome finish(const Child& c, int wait_status, bool timed_out, double timeout) {
    Outcome o;
    o.test = c.test;
    o.category = c.category;
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
    const std::string result = read_file(c.result_path);
    const std::string log = read_file(c.log_path);
    const auto newline = result.find('\n');
    const std::string reported = result.substr(0, newline);
    const std::string message = newline == std::string::npos ? "" : result.substr(newline + 1);
    if (timed_out) {
        o.status = Status::kTimedOut;
        std::ostringstream text;
        text << "timed out after " << timeout << " s (killed); output: " << tail(log, 1500);
        o.message = text.str();
    } else if (WIFSIGNALED(wait_status)) {
        o.status = Status::kCrashed;
        const int sig = WTERMSIG(wait_status);
        o.message = "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")" +
                    (reported.empty() ? "" : " after the test reported '" + reported + "'") +
                    "; output: " + tail(log, 1500);
    } else if (reported.empty()) {
        o.status = Status::kCrashed;
        o.message = "exited with code " + std::to_string(WEXITSTATUS(wait_status)) +
                    " without reporting a result; output: " + tail(log, 1500);
    } else if (reported == "passed") {
        o.status = Status::kPassed;
        if (WEXITSTATUS(wait_status) != 0) {
            o.status = Status::kCrashed;
            o.message = "passed but exited with code " + std::to_string(WEXITSTATUS(wait_status)) +
                        " (a sanitizer report or an error at exit?); output: " + tail(log, 1500);
        }
    } else {
        o.status = reported == "skipped"   ? Status::kSkipped
                   : reported == "not-run" ? Status::kNotRun
                                           : Status::kFailed;
        o.message = message;
    }
    return o;
}

void apply_expectation(Outcome& o, const Expectations& e) {
    // "unsupported": a permanent gap, so the suite itself must skip the test on this device (the
    // op-aware tests skip when query_model leaves their ops out). A test that runs to a verdict
    // anyway is a stale or wrong entry, and fails the run as an unexpected pass does.
    if (const auto u = e.unsupported.find(o.test); u != e.unsupported.end()) {
        if (o.status == Status::kSkipped || o.status == Status::kNotRun) {
            o.message = "unsupported: " + u->second + (o.message.empty() ? "" : "; " + o.message);
        } else if (o.status == Status::kPassed) {
            o.status = Status::kUnexpectedPass;
            o.message = "listed as unsupported (" + u->second +
                        ") but it ran and passed on this device: remove the entry";
        } else {
            o.message = "listed as unsupported (" + u->second +
                        ") but the suite runs it on this device (nothing it needs is missing); "
                        "list it as a known failure (\"<test> : <reason>\") or fix it. Was " +
                        to_string(o.status) + ": " + o.message;
            o.status = Status::kFailed;
        }
        return;
    }
    const auto it = e.expected_failures.find(o.test);
    if (it == e.expected_failures.end()) return;
    if (o.status == Status::kPassed) {
        o.status = Status::kUnexpectedPass;
        o.message = "listed as an expected failure (" + it->second +
                    ") but passed: remove it from the list";
    } else if (o.status == Status::kFailed || o.status == Status::kCrashed ||
               o.status == Status::kTimedOut) {
        o.message =
            "expected failure (" + it->second + "); was " + to_string(o.status) + ": " + o.message;
        o.status = Status::kExpectedFailure;
    }
}

int run_parent(const Arguments& a) {
    Expectations expectations;
    if (!a.expectations.empty()) expectations = read_expectations(a.expectations);
    // Every entry of the expectations file must name a test of the suite (a renamed or removed
    // test would otherwise leave a stale entry behind).
    std::set<std::string> known;
    for (const auto& test : list_tests("*")) known.insert(test.first);
    std::string stale;
    for (const auto* list : {&expectations.expected_failures, &expectations.unsupported})
        for (const auto& entry : *list)
            if (!known.count(entry.first)) stale += " " + entry.first;
    if (!stale.empty()) {
        std::cerr << "vireo_conformance: " << a.expectations
                  << " names tests the suite does not have:" << stale << "\n";
        return 1;
    }
    const auto tests = list_tests(a.filter);
    if (tests.empty()) {
        std::cerr << "vireo_conformance: no test matches the filter '" << a.filter << "'\n";
        return 1;
    }
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    std::string dir_template =
        (std::filesystem::temp_directory_path() / "vireo_conformance.XXXXXX").string();
    if (!mkdtemp(dir_template.data()))
        throw_error<Unavailable>("cannot create a temporary directory");
    const std::string dir = dir_template;

    std::cout << "vireo_conformance: " << tests.size() << " tests on " << a.device
              << (a.plugin.empty() ? "" : " (plugin " + a.plugin + ")") << ", timeout "
              << a.timeout_seconds << " s, " << a.jobs << " at a time\n"
              << std::flush;
    std::vector<Outcome> outcomes(tests.size());
    std::deque<size_t> pending;
    for (size_t i = 0; i < tests.size(); ++i) pending.push_back(i);  // "unsupported" ones too
    std::vector<std::pair<size_t, Child>> running;
    while (!pending.empty() || !running.empty()) {
        while (!pending.empty() && running.size() < static_cast<size_t>(a.jobs)) {
            const size_t i = pending.front();
            pending.pop_front();
            running.emplace_back(i, spawn(a, self, dir, i, tests[i]));
        }
        bool progressed = false;
        for (auto it = running.begin(); it != running.end();) {
            const Child& c = it->second;
            int status = 0;
            bool done = waitpid(c.pid, &status, WNOHANG) == c.pid;
            bool timed_out = false;
            if (!done && std::chrono::steady_clock::now() - c.start >
                             std::chrono::duration<double>(a.timeout_seconds)) {
                kill(-c.pid, SIGKILL);
                kill(c.pid, SIGKILL);
                waitpid(c.pid, &status, 0);
                done = timed_out = true;
            }
            if (!done) {
                ++it;
                continue;
            }
            Outcome o = finish(c, status, timed_out, a.timeout_seconds);
            apply_expectation(o, expectations);
            std::cout << "[ " << to_string(o.status) << " ] " << o.test << " ("
                      << static_cast<int>(o.seconds * 1000) << " ms)";
            if (o.status != Status::kPassed) std::cout << "\n    " << tail(o.message, 3000);
            std::cout << '\n' << std::flush;
            outcomes[it->first] = std::move(o);
            it = running.erase(it);
            progressed = true;
        }
        if (!progressed) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::filesystem::remove_all(dir);

    print_summary(std::cout, a.device, outcomes);
    if (!a.report_json.empty()) write_json_report(a.report_json, a.device, outcomes);
    if (!a.report_junit.empty()) write_junit_report(a.report_junit, a.device, outcomes);
    for (const auto& o : outcomes)
        if (is_failure(o.status)) return 1;
    // Without --require-run, at least one test must run to a verdict: a device whose every test
    // skipped has proven nothing.
    const size_t required = a.require_run >= 0 ? static_cast<size_t>(a.require_run) : 1;
    size_t run = 0;
    for (const auto& o : outcomes)
        if (o.status != Status::kSkipped && o.status != Status::kNotRun) ++run;
    if (run < required) {
        std::cout << "vireo_conformance: only " << run << " tests ran to a verdict; "
                  << (a.require_run >= 0 ? "--require-run asks for " : "at least ") << required
                  << (a.require_run >= 0 ? "" : " must (--require-run N asks for more)") << "\n";
        return 1;
    }
    return 0;
}

}  // namespace
}  // namespace vireo::conformance::runner

int main(int argc, char** argv) {
    using namespace vireo::conformance;
    const auto a = runner::parse(argc, argv);
    if (a.list) {
        for (const auto& [name, category] : runner::list_tests(a.filter)) std::cout << name << '\n';
        return 0;
    }
    try {
        SuiteOptions opts;
        opts.device = a.device;
        opts.plugin_path = a.plugin;
        opts.properties = runner::parse_properties(a.properties);
        if (!a.expectations.empty()) {
            const auto e = runner::read_expectations(a.expectations);
            opts.capabilities_declared = e.has_capabilities;
            opts.declared_capabilities = e.capabilities;
        }
        set_options(opts);
        if (!a.child_result.empty()) return runner::run_child(a, argv[0]);
        if (a.probe) return runner::probe(a.device, a.plugin, std::cout);
        return runner::run_parent(a);
    } catch (const std::exception& e) {
        std::cerr << "vireo_conformance: " << e.what() << '\n';
        return 1;
    }
}
