// Implements the MOCK_REMOTE export format: the settings plus the model as IR v11, checked on read.
#include "blob.hpp"

#include <cstdint>
#include <sstream>
#include <string_view>

#include "vireo/exception.hpp"
#include "vireo/ir.hpp"
#include "vireo/sdk/blob_io.hpp"
#include "zeroed_buffer.hpp"

namespace vireo::mock_remote {
namespace {

constexpr char kMagic[] = "VIREO_MOCK_REMOTE";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;
constexpr uint32_t kFormatVersion = 1;
// Bounds that reject garbage lengths before allocating (a model blob, not a data set).
constexpr uint64_t kMaxString = uint64_t{1} << 36;
constexpr uint32_t kMaxSettings = 1024;

// An output buffer that counts the bytes written to it and, when given a target, passes them
// on to it unbuffered. export writes the weights straight into the caller's stream through one,
// instead of collecting them in a string stream first and copying that into the caller's.
class CountingBuffer : public std::streambuf {
  public:
    explicit CountingBuffer(std::streambuf* target = nullptr) : m_target(target) {}
    uint64_t size() const { return m_size; }

  protected:
    std::streamsize xsputn(const char* data, std::streamsize count) override {
        const std::streamsize written = m_target ? m_target->sputn(data, count) : count;
        m_size += static_cast<uint64_t>(written);
        return written;
    }
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        const char byte = traits_type::to_char_type(c);
        return xsputn(&byte, 1) == 1 ? c : traits_type::eof();
    }

  private:
    std::streambuf* m_target;
    uint64_t m_size = 0;
};

}  // namespace

void write_blob(std::ostream& out, const Model& model,
                const std::vector<std::pair<std::string, std::string>>& settings,
                const std::string& plugin_version) {
    // The weights' length comes before them, so the model is serialized twice: once to get the
    // xml and count the weights, once to write the weights straight into `out`. The writer's
    // output is deterministic; the second count is checked against the first all the same.
    std::ostringstream xml;
    CountingBuffer weights_counter;
    std::ostream weights_sizing(&weights_counter);
    serialize(model, xml, weights_sizing);

    sdk::BlobWriter header(out, "MOCK_REMOTE");
    header.bytes(kMagic, kMagicSize);
    header.u32(kFormatVersion);
    header.string(plugin_version);
    header.u32(static_cast<uint32_t>(settings.size()));
    for (const auto& [key, value] : settings) {
        header.string(key);
        header.string(value);
    }
    header.string(xml.view());
    header.u64(weights_counter.size());
    if (!out || !out.rdbuf())
        throw_error<InvalidArgument>(
            "MOCK_REMOTE: writing the exported model failed (stream error)");

    CountingBuffer xml_discard;
    std::ostream xml_again(&xml_discard);
    CountingBuffer weights_writer(out.rdbuf());
    std::ostream weights(&weights_writer);
    try {
        serialize(model, xml_again, weights);
    } catch (const Exception& e) {
        out.setstate(std::ios::badbit);
        throw_error<InvalidArgument>("MOCK_REMOTE: writing the exported model failed after ",
                                     weights_writer.size(), " of ", weights_counter.size(),
                                     " bytes of weights: ", e.what());
    }
    if (weights_writer.size() != weights_counter.size()) {
        out.setstate(std::ios::badbit);
        throw_error<Exception>("MOCK_REMOTE: the model's weights serialized to ",
                               weights_counter.size(), " bytes, then to ", weights_writer.size(),
                               " bytes; the export is not usable");
    }
}

Blob read_blob(std::istream& in, const std::string& plugin_version) {
    sdk::BlobReader reader(in, "MOCK_REMOTE", kMaxString);
    reader.expect_magic(std::string_view(kMagic, kMagicSize));
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
    // The constants of the model share the weights' memory, which the tensor keeps alive; the
    // weights are read from the stream once, into that memory.
    // In a buffer of its own (64-byte aligned like the offsets the IR writer gives constants, huge
    // pages when large), so that the model's Constants can share it.
    const uint64_t weights_size = reader.length("the model weights");
    const auto weights = std::make_shared<ZeroedBuffer>(static_cast<size_t>(weights_size));
    if (weights_size) reader.bytes(weights->data(), weights_size, "the model weights");
    Tensor weights_tensor =
        weights->size() == 0
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
