// Implements writing and validating the TEMPLATE export blob.
#include "blob_format.hpp"

#include <cstring>
#include <string_view>

#include "vireo/sdk/blob_io.hpp"

namespace vireo::template_plugin {
namespace {

constexpr std::string_view kMagic{"VIREOTPL", 8};

uint64_t fnv1a(const std::string& data) {
    uint64_t hash = 1469598103934665603ull;
    for (const unsigned char c : data) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    return hash;
}

template <typename T>
void put(std::string& out, T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

void put_string(std::string& out, const std::string& s) {
    put<uint64_t>(out, s.size());
    out += s;
}

// Reads the payload back with bounds checks on every field.
class PayloadReader {
  public:
    explicit PayloadReader(const std::string& data) : m_data(data) {}
    template <typename T>
    T get(const char* what) {
        need(sizeof(T), what);
        T value;
        std::memcpy(&value, m_data.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return value;
    }
    std::string get_string(const char* what) {
        const auto size = get<uint64_t>(what);
        need(size, what);
        std::string s = m_data.substr(m_pos, size);
        m_pos += size;
        return s;
    }
    bool at_end() const { return m_pos == m_data.size(); }

  private:
    void need(uint64_t bytes, const char* what) const {
        if (bytes > m_data.size() - m_pos)
            throw_error<InvalidArgument>("TEMPLATE blob: the payload is inconsistent: ", what,
                                         " needs ", bytes, " bytes, ", m_data.size() - m_pos,
                                         " left");
    }
    const std::string& m_data;
    size_t m_pos = 0;
};

}  // namespace

void write_blob(std::ostream& out, const BlobContents& blob) {
    std::string payload;
    put_string(payload, blob.plugin_version);
    put<uint32_t>(payload, static_cast<uint32_t>(blob.properties.size()));
    for (const auto& [key, value] : blob.properties) {
        put_string(payload, key);
        put_string(payload, value.to_string());
    }
    put_string(payload, blob.xml);
    put_string(payload, blob.weights);
    sdk::BlobWriter writer(out, "TEMPLATE");
    writer.bytes(kMagic.data(), kMagic.size());
    writer.u32(kBlobFormatVersion);
    writer.u64(payload.size());
    writer.bytes(payload.data(), payload.size());
    writer.u64(fnv1a(payload));
    writer.check();
}

BlobContents read_blob(std::istream& in) {
    sdk::BlobReader stream(in, "TEMPLATE");
    stream.expect_magic(kMagic);
    const uint32_t version = stream.u32("the format version");
    if (version != kBlobFormatVersion)
        throw_error<InvalidArgument>("TEMPLATE blob: format version ", version,
                                     " is not supported (expected ", kBlobFormatVersion, ")");
    // Read in blocks, so that a damaged size cannot make us allocate more than the stream has.
    const std::string payload = stream.string_of(stream.length("the payload size"), "the payload");
    const uint64_t checksum = stream.u64("the checksum");
    if (checksum != fnv1a(payload))
        throw_error<InvalidArgument>("TEMPLATE blob: damaged: the payload checksum does not match");
    PayloadReader reader(payload);
    BlobContents blob;
    blob.plugin_version = reader.get_string("plugin version");
    const auto count = reader.get<uint32_t>("property count");
    for (uint32_t i = 0; i < count; ++i) {
        std::string key = reader.get_string("property key");
        blob.properties[key] = reader.get_string("property value");
    }
    blob.xml = reader.get_string("model xml");
    blob.weights = reader.get_string("model weights");
    if (!reader.at_end())
        throw_error<InvalidArgument>("TEMPLATE blob: the payload is inconsistent: trailing bytes");
    return blob;
}

}  // namespace vireo::template_plugin
