// Implements the device-list helpers of meta-plugins.
#include "vireo/sdk/device_list.hpp"

#include <algorithm>

#include "vireo/exception.hpp"
#include "vireo/properties.hpp"

namespace vireo::sdk {

std::vector<std::string> split_device_list(const std::string& owner, const std::string& list) {
    std::vector<std::string> out;
    size_t start = 0;
    while (!list.empty()) {
        const size_t comma = list.find(',', start);
        std::string item =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto b = item.find_first_not_of(' ');
        const auto e = item.find_last_not_of(' ');
        item = b == std::string::npos ? std::string() : item.substr(b, e - b + 1);
        if (item.empty())
            throw_error<InvalidArgument>(owner, ": ", device::priorities.name(), " '", list,
                                         "' has an empty entry");
        if (std::find(out.begin(), out.end(), item) != out.end())
            throw_error<InvalidArgument>(owner, ": ", device::priorities.name(), " '", list,
                                         "' lists '", item, "' twice");
        out.push_back(std::move(item));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

std::string join_device_list(const std::vector<std::string>& devices,
                             const std::string& separator) {
    std::string out;
    for (const auto& device : devices) out += (out.empty() ? "" : separator) + device;
    return out;
}

std::string take_listed_devices(AnyMap& arguments) {
    std::string listed;
    if (auto it = arguments.find(device::priorities.name()); it != arguments.end()) {
        listed = it->second.to_string();
        arguments.erase(it);
    }
    arguments.erase(device::batch_size.name());
    return listed;
}

}  // namespace vireo::sdk
