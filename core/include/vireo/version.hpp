// Declares Version, what a plugin or the runtime reports as its name and build.
#pragma once

#include <string>

#define VIREO_STRINGIFY_IMPL(x) #x
#define VIREO_STRINGIFY(x) VIREO_STRINGIFY_IMPL(x)

/// The C++ standard library and its ABI flavour: modules (plugins, frontends) pass std:: types
/// across the boundary, so a module built against another library is refused at load time.
#if defined(_LIBCPP_VERSION)
#define VIREO_TOOLCHAIN_TAG "libc++"
#elif defined(__GLIBCXX__)
#define VIREO_TOOLCHAIN_TAG "libstdc++/cxx11abi=" VIREO_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#else
#define VIREO_TOOLCHAIN_TAG "unknown"
#endif

namespace vireo {

struct Version {
    std::string build_number;  ///< e.g. "0.1.0"
    std::string description;   ///< e.g. "vireo_template_plugin"
};

/// The runtime library's own version.
const Version& get_version();

}  // namespace vireo
