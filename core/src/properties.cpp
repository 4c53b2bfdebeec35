// Implements the text forms of the standard enum-valued properties.
#include "vireo/properties.hpp"

#include <array>
#include <sstream>

namespace vireo {
namespace {

template <typename E, size_t N>
std::istream& read_enum(std::istream& in, E& value,
                        const std::array<std::pair<E, const char*>, N>& names, const char* what) {
    std::string text;
    in >> text;
    for (const auto& [v, n] : names) {
        if (text == n) {
            value = v;
            return in;
        }
    }
    std::string known;
    for (const auto& [v, n] : names) known += std::string(known.empty() ? "" : ", ") + n;
    throw_error<InvalidArgument>("unknown ", what, " '", text, "' (expected one of: ", known, ")");
}

template <typename E, size_t N>
std::ostream& write_enum(std::ostream& out, E value,
                         const std::array<std::pair<E, const char*>, N>& names) {
    for (const auto& [v, n] : names)
        if (v == value) return out << n;
    return out << "UNKNOWN";
}

constexpr std::array<std::pair<hint::PerformanceMode, const char*>, 3> kModes{{
    {hint::PerformanceMode::LATENCY, "LATENCY"},
    {hint::PerformanceMode::THROUGHPUT, "THROUGHPUT"},
    {hint::PerformanceMode::CUMULATIVE_THROUGHPUT, "CUMULATIVE_THROUGHPUT"},
}};

constexpr std::array<std::pair<log::Level, const char*>, 6> kLevels{{
    {log::Level::NO, "LOG_NONE"},
    {log::Level::ERR, "LOG_ERROR"},
    {log::Level::WARNING, "LOG_WARNING"},
    {log::Level::INFO, "LOG_INFO"},
    {log::Level::DEBUG, "LOG_DEBUG"},
    {log::Level::TRACE, "LOG_TRACE"},
}};

constexpr std::array<std::pair<device::Type, const char*>, 5> kDeviceTypes{{
    {device::Type::DISCRETE, "DISCRETE"},
    {device::Type::INTEGRATED, "INTEGRATED"},
    {device::Type::HOST, "HOST"},
    {device::Type::REFERENCE, "REFERENCE"},
    {device::Type::SIMULATED, "SIMULATED"},
}};

}  // namespace

namespace device {
std::ostream& operator<<(std::ostream& out, Type type) {
    return write_enum(out, type, kDeviceTypes);
}
std::istream& operator>>(std::istream& in, Type& type) {
    return read_enum(in, type, kDeviceTypes, "device type");
}
}  // namespace device

namespace hint {
std::ostream& operator<<(std::ostream& out, PerformanceMode mode) {
    return write_enum(out, mode, kModes);
}
std::istream& operator>>(std::istream& in, PerformanceMode& mode) {
    return read_enum(in, mode, kModes, "performance mode");
}
}  // namespace hint

namespace log {
std::ostream& operator<<(std::ostream& out, Level level) {
    return write_enum(out, level, kLevels);
}
std::istream& operator>>(std::istream& in, Level& level) {
    // OpenVINO's numbers (ov::log::Level: NO = -1 ... TRACE = 4) as well as the names.
    std::string text;
    in >> text;
    static const std::array<const char*, 6> kNumbers{"-1", "0", "1", "2", "3", "4"};
    for (size_t i = 0; i < kNumbers.size(); ++i)
        if (text == kNumbers[i]) {
            level = kLevels[i].first;
            return in;
        }
    std::istringstream named(text);
    try {
        read_enum(named, level, kLevels, "log level");
    } catch (const Exception& e) {
        throw_error<InvalidArgument>(e.what(), " or -1 (none) to 4 (trace)");
    }
    return in;
}
}  // namespace log

}  // namespace vireo
