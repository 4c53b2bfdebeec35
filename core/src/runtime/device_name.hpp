// Declares DeviceName, the parsed form of "NAME" and "NAME.N".
#pragma once

#include <string>

namespace vireo::runtime {

/// "TEMPLATE" -> {TEMPLATE, ""}; "MOCK_REMOTE.1" -> {MOCK_REMOTE, "1"}. The split is at the
/// first '.', so "GPU.0.1" has id "0.1".
struct DeviceName {
    std::string name;  ///< the registered plugin name
    std::string id;    ///< the instance id, empty for the plugin's default instance

    /// Throws InvalidArgument for an empty name, an empty part ("X.", ".1") or whitespace.
    static DeviceName parse(const std::string& device);
    std::string full() const { return id.empty() ? name : name + "." + id; }
};

/// Throws InvalidArgument unless `name` can be registered: not empty, no '.', no whitespace.
void check_registrable_name(const std::string& name);

}  // namespace vireo::runtime
