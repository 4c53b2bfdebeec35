// Fuzz target: the compiled-model blob reader (the model cache's entries and import_model's
// input, header included) must reject malformed blobs with vireo::Exception, nothing else, from
// a seekable stream and from an unseekable one, with and without an expected origin.
#include <cstdint>
#include <sstream>
#include <streambuf>
#include <string>

#include "blob_format.hpp"
#include "vireo/exception.hpp"
#include "vireo/sdk/plugin_entry.hpp"

namespace {

// A stream buffer that cannot seek, like a pipe.
class Unseekable : public std::streambuf {
  public:
    explicit Unseekable(std::string bytes) : m_bytes(std::move(bytes)) {
        setg(m_bytes.data(), m_bytes.data(), m_bytes.data() + m_bytes.size());
    }

  private:
    std::string m_bytes;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    const vireo::runtime::BlobIdentity reader{"vireo_mock_remote_plugin", "0",
                                              VIREO_PLUGIN_ABI_VERSION};
    const std::string key = "0123456789abcdef";
    for (const std::string* origin : {static_cast<const std::string*>(nullptr), &key}) {
        try {
            std::istringstream seekable(bytes, std::ios::binary);
            volatile size_t n = vireo::runtime::read_blob(seekable, reader, "fuzz", origin).size();
            (void)n;
        } catch (const vireo::Exception&) {
        }
        try {
            Unseekable buffer(bytes);
            std::istream unseekable(&buffer);
            volatile size_t n =
                vireo::runtime::read_blob(unseekable, reader, "fuzz", origin).size();
            (void)n;
        } catch (const vireo::Exception&) {
        }
    }
    return 0;
}
