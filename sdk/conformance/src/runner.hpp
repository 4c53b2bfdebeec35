// Private to the vireo_conformance runner: test outcomes, the expectations file, the reports
// (summary table, JSON, JUnit) and --probe.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace vireo::conformance::runner {

enum class Status {
    kPassed,
    kFailed,
    kSkipped,
    kCrashed,
    kTimedOut,
    kExpectedFailure,
    kUnexpectedPass,
    kNotRun  ///< the test's model could not be built from the ops the device supports
};

/// "passed", "failed", "skipped", "crashed", "timed-out", "xfail", "unexpected-pass", "not-run".
const char* to_string(Status status);
/// True for the statuses that make the run fail.
bool is_failure(Status status);

struct Outcome {
    std::string test;      ///< "Category.Name"
    std::string category;  ///< the GoogleTest suite name
    Status status = Status::kPassed;
    double seconds = 0;
    std::string message;
};

/// A plugin's conformance file (plugins/<name>/conformance.txt):
///     # comment
///     capabilities: FP32, EXPORT_IMPORT          (optional: what the device must report)
///     unsupported <test> : <reason>              (permanent gap: not run, reported skipped)
///     <test> : <reason>                          (known failure: run, reported xfail)
struct Expectations {
    std::map<std::string, std::string> expected_failures;
    std::map<std::string, std::string> unsupported;
    bool has_capabilities = false;
    std::vector<std::string> capabilities;
};

/// Reads an expectations file. Throws vireo::InvalidArgument naming the file and line for a
/// malformed line (no " : reason") and vireo::NotFound when the file cannot be opened.
Expectations read_expectations(const std::string& path);

/// The per-category table of counts and the totals.
void print_summary(std::ostream& out, const std::string& device,
                   const std::vector<Outcome>& outcomes);
/// Write the reports; throw vireo::Exception if the file cannot be written.
void write_json_report(const std::string& path, const std::string& device,
                       const std::vector<Outcome>& outcomes);
void write_junit_report(const std::string& path, const std::string& device,
                        const std::vector<Outcome>& outcomes);

/// --probe: loads the plugin and prints what it is, or why it cannot be loaded. Returns the
/// process exit code (0 when the device loads and answers).
int probe(const std::string& device, const std::string& plugin_path, std::ostream& out);

}  // namespace vireo::conformance::runner
