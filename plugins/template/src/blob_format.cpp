// Implements writing and validating the TEMPLATE export blob.
#include "blob_format.hpp"

#include <cstring>
#include <vector>

namespace vireo::template_plugin {
namespace {

constexpr char kMagic[8] = {'V', 'I', 'R', 'E', 'O', 'T', 'P', 'L'};

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

template <typename T>
T read_raw(std::istream& in, const char* what) {
    T value{};
    in.read(reinterpret_cast<char*>(&value), sizeof(T));
    if (in.gcount() != static_cast<std::streamsize>(sizeof(T)))
        throw_error<InvalidArgument>("TEMPLATE blob: truncated while reading the ", what);
    return value;
}

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
    std::string header(kMagic, sizeof(kMagic));
    put<uint32_t>(header, kBlobFormatVersion);
    put<uint64_t>(header, payload.size());
    std::string trailer;
    put<uint64_t>(trailer, fnv1a(payload));
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    out.write(trailer.data(), static_cast<std::streamsize>(trailer.size()));
    if (!out)
        throw_error<Unavailable>("TEMPLATE: writing the exported model failed (stream error)");
}

BlobContents read_blob(std::istream& in) {
    char magic[sizeof(kMagic)] = {};
    in.read(magic, sizeof(magic));
    if (in.gcount() != static_cast<std::streamsize>(sizeof(magic)) ||
        std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
        throw_error<InvalidArgument>(
            "TEMPLATE blob: not a blob exported by the TEMPLATE plugin (expected magic "
            "'VIREOTPL' at the start)");
    const auto version = read_raw<uint32_t>(in, "format version");
    if (version != kBlobFormatVersion)
        throw_error<InvalidArgument>("TEMPLATE blob: format version ", version,
                                     " is not supported (expected ", kBlobFormatVersion, ")");
    const auto size = read_raw<uint64_t>(in, "payload size");
    // Read in chunks, so that a damaged size cannot make us allocate more than the stream has.
    std::string payload;
    constexpr uint64_t kChunk = 1 << 20;
    std::vector<char> chunk;
    while (payload.size() < size) {
        const uint64_t want = std::min<uint64_t>(kChunk, size - payload.size());
        chunk.resize(want);
        in.read(chunk.data(), static_cast<std::streamsize>(want));
        payload.append(chunk.data(), static_cast<size_t>(in.gcount()));
        if (static_cast<uint64_t>(in.gcount()) != want)
            throw_error<InvalidArgument>("TEMPLATE blob: truncated: the payload should have ", size,
                                         " bytes, the stream "
                                         "ended after ",
                                         payload.size());
    }
    const auto checksum = read_raw<uint64_t>(in, "checksum");
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
