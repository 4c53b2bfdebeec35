// Fuzz target: the .npy reader must reject malformed files with vireo::Exception, nothing else.
#include <cstdint>
#include <string>

#include "npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        vireo::Tensor t =
            vireo::npy::read_npy_bytes(std::string(reinterpret_cast<const char*>(data), size));
        volatile size_t n = t.get_byte_size();
        (void)n;
    } catch (const vireo::Exception&) {
    }
    return 0;
}
