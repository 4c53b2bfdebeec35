// Implements get_version() for the runtime library.
#include "vireo/version.hpp"

#ifndef VIREO_VERSION_STRING
#define VIREO_VERSION_STRING "0.0.0"
#endif

namespace vireo {

const Version& get_version() {
    static const Version version{VIREO_VERSION_STRING, "vireo runtime"};
    return version;
}

}  // namespace vireo
