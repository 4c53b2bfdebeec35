// Fuzz target: plugins.xml parsing (the file the Core reads at construction and in
// register_plugins). The input is written to a scratch file, parsed directly and through a Core,
// then removed; anything but vireo::Exception is a finding. Nothing is loaded.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "plugin_descriptor.hpp"
#include "vireo/core.hpp"

namespace {
const std::string& scratch_path() {
    static const std::string path = [] {
        const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        return std::string(dir) + "/vireo_fuzz_plugins_" + std::to_string(getpid()) + ".xml";
    }();
    return path;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string& path = scratch_path();
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        if (size) std::fwrite(data, 1, size, f);
        std::fclose(f);
    } else {
        return 0;
    }
    try {
        for (const auto& descriptor : vireo::runtime::parse_plugins_xml(path))
            (void)descriptor.candidates.size();
    } catch (const vireo::Exception&) {
    }
    try {
        vireo::Core core(path);  // registers (validates names and duplicates), loads nothing
    } catch (const vireo::Exception&) {
    }
    std::remove(path.c_str());
    return 0;
}
