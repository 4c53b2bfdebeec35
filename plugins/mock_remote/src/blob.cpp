// Implements the MOCK_REMOTE export format: the settings plus the model as IR v11, checked on read.
#include "blob.hpp"

#include <cstdint>
#include <cstring>
#include <sstream>

#include "vireo/exception.hpp"
#include "vireo/ir.hpp"

namespace vireo::mock_remote {
namespace {

constexpr char kMagic[] = "VIREO_MOCK_REMOTE";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;
constexpr uint32_t kFormatVersion = 1;
// Bounds that reject garbage lengths before allocating (a model blob, not a data set).
constexpr uint64_t kMaxString = uint64_t{1} << 36;
constexpr uint32_t kMaxSettings = 1024;

void write_u32(std::ostream& out, uint32_t v) {
    out.write(reinterpret_cast<const char*>(&v), sizeof(v));
}
void write_string(std::ostream& out, const std::string& s) {
    const uint64_t size = s.size();
    out.write(reinterpret_cast<const char*>(&size), sizeof(size));
    out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

class Reader {
  public:
    explicit Reader(std::istream& in) : m_in(in) {}
    void read(void* dst, size_t bytes, const char* what) {
        m_in.read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes));
        if (static_cast<size_t>(m_in.gcount()) != bytes)
            throw_error<InvalidArgument>("MOCK_REMOTE blob is truncated: reading ", what,
                                         " needed ", bytes, " bytes, found ", m_in.gcount());
    }
    uint32_t u32(const char* what) {
        uint32_t v = 0;
        read(&v, sizeof(v), what);
        return v;
    }
    std::string string(const char* what) {
        uint64_t size = 0;
        read(&size, sizeof(size), what);
        if (size > kMaxString)
            throw_error<InvalidArgument>("MOCK_REMOTE blob is damaged: ", what, " claims ", size,
                                         " bytes");
        std::string s(size, '\0');
        if (size) read(s.data(), size, what);
        return s;
    }

  private:
    std::istream& m_in;
};

}  // namespace

void write_blob(std::ostream& out, const Model& model,
                const std::vector<std::pair<std::string, std::string>>& settings,
                const std::string& plugin_version) {
    std::ostringstream xml;
    std::ostringstream bin(std::ios::binary);
    serialize(model, xml, bin);
    out.write(kMagic, kMagicSize);
    write_u32(out, kFormatVersion);
    write_string(out, plugin_version);
    write_u32(out, static_cast<uint32_t>(settings.size()));
    for (const auto& [key, value] : settings) {
        write_string(out, key);
        write_string(out, value);
    }
    write_string(out, xml.str());
    write_string(out, bin.str());
    if (!out)
        throw_error<InvalidArgument>(
            "MOCK_REMOTE: writing the exported model failed (stream error)");
}

Blob read_blob(std::istream& in, const std::string& plugin_version) {
    Reader reader(in);
    char magic[kMagicSize] = {};
    reader.read(magic, kMagicSize, "the magic");
    if (std::memcmp(magic, kMagic, kMagicSize) != 0)
        throw_error<InvalidArgument>("not a MOCK_REMOTE blob: expected the magic '", kMagic,
                                     "', found '", std::string(magic, kMagicSize), "'");
    const uint32_t format = reader.u32("the format version");
    if (format != kFormatVersion)
        throw_error<InvalidArgument>("MOCK_REMOTE blob format ", format,
                                     " is not supported (expected ", kFormatVersion, ")");
    const std::string version = reader.string("the plugin version");
    if (version != plugin_version)
        throw_error<InvalidArgument>("MOCK_REMOTE blob was written by plugin version ", version,
                                     ", this plugin is version ", plugin_version);
    Blob blob;
    const uint32_t count = reader.u32("the setting count");
    if (count > kMaxSettings)
        throw_error<InvalidArgument>("MOCK_REMOTE blob is damaged: ", count, " settings");
    for (uint32_t i = 0; i < count; ++i) {
        std::string key = reader.string("a setting key");
        std::string value = reader.string("a setting value");
        blob.settings.emplace_back(std::move(key), std::move(value));
    }
    const std::string xml = reader.string("the model xml");
    auto weights = std::make_shared<std::string>(reader.string("the model weights"));
    // The constants of the model share the weights' memory; the shared string keeps it alive.
    Tensor weights_tensor =
        weights->empty()
            ? Tensor()
            : Tensor::wrap_shared(element::u8, Shape{weights->size()}, weights->data(), weights);
    try {
        blob.model = read_model_from_string(xml, weights_tensor);
    } catch (const Exception& e) {
        throw_error<InvalidArgument>("MOCK_REMOTE blob holds a damaged model: ", e.what());
    }
    return blob;
}

}  // namespace vireo::mock_remote
