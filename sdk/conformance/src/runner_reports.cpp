// The runner's expectations file reader and its reports: the summary table on stdout, a JSON
// file and a JUnit XML file, each with (test, category, status, duration, message).
#include <array>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "runner.hpp"
#include "vireo/exception.hpp"

namespace vireo::conformance::runner {
namespace {

std::string trim(const std::string& text) {
    const auto b = text.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    const auto e = text.find_last_not_of(" \t\r\n");
    return text.substr(b, e - b + 1);
}

std::string json_escape(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out;
}

std::string xml_escape(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\n':
                out += "&#10;";
                break;
            default:
                if (c < 0x20 && c != '\t') continue;  // not allowed in XML 1.0
                out += static_cast<char>(c);
        }
    }
    return out;
}

constexpr size_t kStatusCount = 8;
constexpr std::array<Status, kStatusCount> kAllStatuses = {
    Status::kPassed,   Status::kFailed,          Status::kSkipped,        Status::kCrashed,
    Status::kTimedOut, Status::kExpectedFailure, Status::kUnexpectedPass, Status::kNotRun};

using Counts = std::array<size_t, kStatusCount>;

std::map<std::string, Counts> count_by_category(const std::vector<Outcome>& outcomes,
                                                Counts& total) {
    std::map<std::string, Counts> counts;
    total = {};
    for (const auto& o : outcomes) {
        auto& row = counts[o.category];
        ++row[static_cast<size_t>(o.status)];
        ++total[static_cast<size_t>(o.status)];
    }
    return counts;
}

size_t count_run(const Counts& c) {
    size_t run = 0;
    for (size_t i = 0; i < kStatusCount; ++i)
        if (kAllStatuses[i] != Status::kSkipped && kAllStatuses[i] != Status::kNotRun) run += c[i];
    return run;
}

std::ofstream open_report(const std::string& path) {
    std::ofstream out(path);
    if (!out) throw_error<InvalidArgument>("cannot write the report '", path, "'");
    return out;
}

}  // namespace

const char* to_string(Status status) {
    switch (status) {
        case Status::kPassed:
            return "passed";
        case Status::kFailed:
            return "failed";
        case Status::kSkipped:
            return "skipped";
        case Status::kCrashed:
            return "crashed";
        case Status::kTimedOut:
            return "timed-out";
        case Status::kExpectedFailure:
            return "xfail";
        case Status::kUnexpectedPass:
            return "unexpected-pass";
        case Status::kNotRun:
            return "not-run";
    }
    return "unknown";
}

bool is_failure(Status status) {
    return status == Status::kFailed || status == Status::kCrashed || status == Status::kTimedOut ||
           status == Status::kUnexpectedPass;
}

Expectations read_expectations(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw_error<NotFound>("cannot open the expectations file '", path, "'");
    Expectations result;
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        line = trim(line);
        if (line.empty() || line[0] == '#') continue;
        if (line.rfind("capabilities:", 0) == 0) {
            result.has_capabilities = true;
            std::istringstream list(line.substr(13));
            std::string item;
            while (std::getline(list, item, ','))
                if (!trim(item).empty()) result.capabilities.push_back(trim(item));
            continue;
        }
        const auto colon = line.find(" : ");
        if (colon == std::string::npos || trim(line.substr(colon + 3)).empty())
            throw_error<InvalidArgument>(path, ":", number,
                                         ": expected '<test> : <reason>' or 'unsupported <test> : ",
                                         "<reason>', found '", line, "'");
        std::string test = trim(line.substr(0, colon));
        const std::string reason = trim(line.substr(colon + 3));
        if (test.rfind("unsupported ", 0) == 0) {
            result.unsupported[trim(test.substr(12))] = reason;
        } else {
            result.expected_failures[test] = reason;
        }
    }
    return result;
}

void print_summary(std::ostream& out, const std::string& device,
                   const std::vector<Outcome>& outcomes) {
    Counts total{};
    const auto counts = count_by_category(outcomes, total);
    out << "\nConformance of " << device << ": " << outcomes.size() << " tests\n";
    out << std::left << std::setw(20) << "category";
    for (Status s : kAllStatuses) out << std::right << std::setw(16) << to_string(s);
    // "Run" counts the tests that ran to a verdict (neither skipped nor not run).
    out << std::right << std::setw(8) << "run";
    out << '\n';
    auto row = [&](const std::string& name, const Counts& c) {
        out << std::left << std::setw(20) << name;
        for (size_t i = 0; i < kStatusCount; ++i) out << std::right << std::setw(16) << c[i];
        out << std::right << std::setw(8) << count_run(c) << '\n';
    };
    for (const auto& [category, c] : counts) row(category, c);
    row("TOTAL", total);
    bool any = false;
    for (const auto& o : outcomes) {
        if (o.status == Status::kPassed) continue;
        if (!any) out << "\nNot passed:\n";
        any = true;
        std::string first_line = o.message.substr(0, o.message.find('\n'));
        if (first_line.size() > 200) first_line = first_line.substr(0, 200) + "...";
        out << "  " << std::left << std::setw(16) << to_string(o.status) << o.test << "  "
            << first_line << '\n';
    }
}

void write_json_report(const std::string& path, const std::string& device,
                       const std::vector<Outcome>& outcomes) {
    Counts total{};
    count_by_category(outcomes, total);
    std::ofstream out = open_report(path);
    out << "{\n  \"device\": \"" << json_escape(device) << "\",\n  \"summary\": {";
    for (size_t i = 0; i < kStatusCount; ++i)
        out << (i ? ", " : "") << '"' << to_string(kAllStatuses[i]) << "\": " << total[i];
    out << ", \"run\": " << count_run(total) << "},\n  \"tests\": [\n";
    for (size_t i = 0; i < outcomes.size(); ++i) {
        const auto& o = outcomes[i];
        out << "    {\"test\": \"" << json_escape(o.test) << "\", \"category\": \""
            << json_escape(o.category) << "\", \"status\": \"" << to_string(o.status)
            << "\", \"duration\": " << std::fixed << std::setprecision(3) << o.seconds
            << ", \"message\": \"" << json_escape(o.message) << "\"}"
            << (i + 1 < outcomes.size() ? "," : "") << '\n';
    }
    out << "  ]\n}\n";
    if (!out) throw_error<InvalidArgument>("cannot write the report '", path, "'");
}

void write_junit_report(const std::string& path, const std::string& device,
                        const std::vector<Outcome>& outcomes) {
    std::map<std::string, std::vector<const Outcome*>> by_category;
    for (const auto& o : outcomes) by_category[o.category].push_back(&o);
    std::ofstream out = open_report(path);
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"vireo_conformance "
        << xml_escape(device) << "\">\n";
    for (const auto& [category, list] : by_category) {
        size_t failures = 0, errors = 0, skipped = 0;
        double seconds = 0;
        for (const Outcome* o : list) {
            seconds += o->seconds;
            if (o->status == Status::kFailed || o->status == Status::kUnexpectedPass) ++failures;
            if (o->status == Status::kCrashed || o->status == Status::kTimedOut) ++errors;
            if (o->status == Status::kSkipped || o->status == Status::kExpectedFailure ||
                o->status == Status::kNotRun)
                ++skipped;
        }
        out << "  <testsuite name=\"" << xml_escape(category) << "\" tests=\"" << list.size()
            << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\""
            << skipped << "\" time=\"" << std::fixed << std::setprecision(3) << seconds << "\">\n";
        for (const Outcome* o : list) {
            const std::string name = o->test.substr(o->test.find('.') + 1);
            out << "    <testcase classname=\"" << xml_escape(category) << "\" name=\""
                << xml_escape(name) << "\" time=\"" << o->seconds << "\" status=\""
                << to_string(o->status) << "\"";
            const std::string msg = xml_escape(o->message);
            switch (o->status) {
                case Status::kPassed:
                    out << "/>\n";
                    continue;
                case Status::kFailed:
                case Status::kUnexpectedPass:
                    out << ">\n      <failure type=\"" << to_string(o->status) << "\" message=\""
                        << msg << "\"/>\n";
                    break;
                case Status::kCrashed:
                case Status::kTimedOut:
                    out << ">\n      <error type=\"" << to_string(o->status) << "\" message=\""
                        << msg << "\"/>\n";
                    break;
                case Status::kSkipped:
                case Status::kExpectedFailure:
                case Status::kNotRun:
                    out << ">\n      <skipped message=\"" << to_string(o->status) << ": " << msg
                        << "\"/>\n";
                    break;
            }
            out << "    </testcase>\n";
        }
        out << "  </testsuite>\n";
    }
    out << "</testsuites>\n";
    if (!out) throw_error<InvalidArgument>("cannot write the report '", path, "'");
}

}  // namespace vireo::conformance::runner
