// Fuzz target: the compiled-model blob (the model cache's entries and import_model's input) must
// be rejected, when malformed, with vireo::Exception and nothing else: the container
// (sdk::BlobContainer: header, payload, checksum) from a seekable stream and from an unseekable
// one, with and without an expected origin, then the sections of its payload
// (sdk::BlobSectionReader, as a plugin reads them) read back in full.
#include <cstdint>
#include <sstream>
#include <streambuf>
#include <string>

#include "vireo/exception.hpp"
#include "vireo/sdk/blob_container.hpp"
#include "vireo/sdk/blob_sections.hpp"
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

// What a plugin does with the payload: every section read, then the check for unknown ones.
void read_sections(std::istream& in) {
    vireo::sdk::BlobSectionReader sections(in, "FUZZ");
    volatile size_t n = 0;
    for (const std::string& name : sections.names("")) n = n + sections.string(name).size();
    sections.expect_all_read();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    const vireo::sdk::BlobIdentity reader{"vireo_mock_remote_plugin", "0",
                                          VIREO_PLUGIN_ABI_VERSION};
    const std::string key = "0123456789abcdef";
    for (const std::string* origin : {static_cast<const std::string*>(nullptr), &key}) {
        try {
            std::istringstream seekable(bytes, std::ios::binary);
            vireo::sdk::BlobContainer blob(seekable, reader, "fuzz", origin);
            read_sections(blob.plugin_stream());
        } catch (const vireo::Exception&) {
        }
        try {
            Unseekable buffer(bytes);
            std::istream unseekable(&buffer);
            vireo::sdk::BlobContainer blob(unseekable, reader, "fuzz", origin);
            read_sections(blob.plugin_stream());
        } catch (const vireo::Exception&) {
        }
    }
    // The section reader alone, on the raw bytes (a plugin's import_model called directly).
    try {
        std::istringstream sections(bytes, std::ios::binary);
        read_sections(sections);
    } catch (const vireo::Exception&) {
    }
    try {
        Unseekable buffer(bytes);
        std::istream unseekable(&buffer);
        read_sections(unseekable);
    } catch (const vireo::Exception&) {
    }
    return 0;
}
