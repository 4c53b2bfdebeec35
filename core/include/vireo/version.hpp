// Declares Version, what a plugin or the runtime reports as its name and build.
#pragma once

#include <string>

namespace vireo {

struct Version {
    std::string build_number;  ///< e.g. "0.1.0"
    std::string description;   ///< e.g. "vireo_template_plugin"
};

/// The runtime library's own version.
const Version& get_version();

}  // namespace vireo
