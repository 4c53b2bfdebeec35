// Implements device-name parsing and the rules for registrable names.
#include "runtime/device_name.hpp"

#include <algorithm>
#include <cctype>

#include "vireo/exception.hpp"

namespace vireo::runtime {
namespace {
bool has_space(const std::string& s) {
    return std::any_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}
}  // namespace

DeviceName DeviceName::parse(const std::string& device) {
    if (device.empty())
        throw_error<InvalidArgument>("device name is empty; expected \"NAME\" or \"NAME.N\"");
    if (has_space(device))
        throw_error<InvalidArgument>("device name '", device,
                                     "' contains whitespace; expected \"NAME\" or \"NAME.N\"");
    const size_t dot = device.find('.');
    if (dot == std::string::npos) return {device, ""};
    DeviceName parsed{device.substr(0, dot), device.substr(dot + 1)};
    if (parsed.name.empty() || parsed.id.empty())
        throw_error<InvalidArgument>("device name '", device,
                                     "' is malformed; expected \"NAME\" or \"NAME.N\"");
    return parsed;
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
    if (has_space(name))
        throw_error<InvalidArgument>("device name '", name, "' contains whitespace");
}

}  // namespace vireo::runtime
