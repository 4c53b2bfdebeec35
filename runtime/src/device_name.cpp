// Implements device-name parsing (plain names and the meta-device grammar) and the rules for
// registrable names.
#include "device_name.hpp"

#include <algorithm>
#include <cctype>

#include "vireo/exception.hpp"

namespace vireo::runtime {
namespace {

constexpr const char* kExpected =
    "expected \"NAME\", \"NAME.N\", \"META:A,B\" or, for a batch device, \"META:A(N)\"";

bool has_space(const std::string& s) {
    return std::any_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}

DeviceName parse_plain(const std::string& device, const std::string& whole) {
    if (device.find_first_of(":,()") != std::string::npos)
        throw_error<InvalidArgument>("device name '", whole, "' is malformed at '", device, "'; ",
                                     kExpected, " (meta-device lists do not nest)");
    const size_t dot = device.find('.');
    DeviceName parsed;
    if (dot == std::string::npos) {
        parsed.name = device;
        return parsed;
    }
    parsed.name = device.substr(0, dot);
    parsed.id = device.substr(dot + 1);
    if (parsed.name.empty() || parsed.id.empty())
        throw_error<InvalidArgument>("device name '", whole, "' is malformed at '", device, "'; ",
                                     kExpected);
    return parsed;
}

}  // namespace

DeviceName DeviceName::parse(const std::string& device, const GrammarOf& grammar_of) {
    if (device.empty()) throw_error<InvalidArgument>("device name is empty; ", kExpected);
    if (has_space(device))
        throw_error<InvalidArgument>("device name '", device, "' contains whitespace; ", kExpected);
    const size_t colon = device.find(':');
    if (colon == std::string::npos) return parse_plain(device, device);

    DeviceName parsed;
    parsed.meta = true;
    parsed.name = device.substr(0, colon);
    if (parsed.name.empty() || parsed.name.find_first_of(".,()") != std::string::npos)
        throw_error<InvalidArgument>("device name '", device, "': the meta-device name '",
                                     parsed.name, "' is malformed; ", kExpected);
    const std::string list = device.substr(colon + 1);
    if (list.empty())
        throw_error<InvalidArgument>("device name '", device, "' lists no device after ':'; ",
                                     kExpected);
    const bool batch = grammar_of && grammar_of(parsed.name) == MetaDeviceGrammar::kBatch;
    size_t start = 0;
    while (true) {
        const size_t comma = list.find(',', start);
        std::string item =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty())
            throw_error<InvalidArgument>("device name '", device,
                                         "' has an empty entry in its device list; ", kExpected);
        if (batch && item.back() == ')') {
            const size_t open = item.find('(');
            const std::string digits =
                open == std::string::npos ? "" : item.substr(open + 1, item.size() - open - 2);
            const bool numeric = !digits.empty() && digits.size() <= 9 &&
                                 std::all_of(digits.begin(), digits.end(),
                                             [](unsigned char c) { return std::isdigit(c) != 0; });
            if (!numeric || std::stoul(digits) == 0)
                throw_error<InvalidArgument>("device name '", device, "': batch size '", digits,
                                             "' in '", item, "' is not a positive integer; ",
                                             kExpected);
            parsed.batch_size = static_cast<uint32_t>(std::stoul(digits));
            item = item.substr(0, open);
        }
        parse_plain(item, device);  // checks the entry
        parsed.devices.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (batch && parsed.devices.size() != 1)
        throw_error<InvalidArgument>("device name '", device, "': ", parsed.name,
                                     " is a batch device (META_DEVICE BATCH) and takes exactly "
                                     "one device, got ",
                                     parsed.devices.size());
    return parsed;
}

std::string DeviceName::full() const {
    if (meta) {
        std::string out = name + ":" + priorities();
        if (batch_size) out += "(" + std::to_string(batch_size) + ")";
        return out;
    }
    return id.empty() ? name : name + "." + id;
}

std::string DeviceName::priorities() const {
    std::string out;
    for (const auto& d : devices) out += (out.empty() ? "" : ",") + d;
    return out;
}

void check_registrable_name(const std::string& name) {
    if (name.empty())
        throw_error<InvalidArgument>("cannot register a plugin under an empty device name");
    if (name.find('.') != std::string::npos)
        throw_error<InvalidArgument>(
            "device name '", name,
            "' contains '.', which separates the instance id (\"NAME.N\"); "
            "register the plugin as '",
            name.substr(0, name.find('.')), "'");
    if (name.find_first_of(":,()") != std::string::npos)
        throw_error<InvalidArgument>("device name '", name,
                                     "' contains one of ':', ',', '(' or ')', which the "
                                     "meta-device grammar (\"HETERO:A,B\") uses");
    if (has_space(name))
        throw_error<InvalidArgument>("device name '", name, "' contains whitespace");
}

}  // namespace vireo::runtime
