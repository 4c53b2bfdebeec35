// Implements BlobSectionWriter and BlobSectionReader (vireo/sdk/blob_sections.hpp).
#include "vireo/sdk/blob_sections.hpp"

#include <algorithm>
#include <sstream>

#include "vireo/exception.hpp"
#include "vireo/ir.hpp"

namespace vireo::sdk {
namespace {

constexpr std::string_view kPropertyPrefix = "property:";
constexpr std::string_view kReservedPrefix = "vireo.";

void put_le(std::ostream& out, uint64_t value, int bytes) {
    char buffer[8];
    for (int i = 0; i < bytes; ++i) buffer[i] = static_cast<char>((value >> (8 * i)) & 0xff);
    out.write(buffer, bytes);
}

// An output buffer that counts the bytes written to it and, when given a target, passes them on
// to it unbuffered: model() writes the weights straight into the export stream through one.
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

BlobSectionWriter::BlobSectionWriter(std::ostream& out, std::string owner)
    : m_out(out), m_owner(std::move(owner)) {}

void BlobSectionWriter::header(std::string_view name, uint64_t size) {
    check();
    if (name.empty() || name.size() > kMaxBlobSectionName || name.starts_with(kReservedPrefix))
        throw_error<InvalidArgument>(m_owner, ": blob section name '", name, "' is empty, longer ",
                                     "than ", kMaxBlobSectionName, " bytes or reserved (vireo.)");
    if (std::find(m_names.begin(), m_names.end(), name) != m_names.end())
        throw_error<InvalidArgument>(m_owner, ": blob section '", name, "' is written twice");
    m_names.emplace_back(name);
    put_le(m_out, name.size(), 4);
    m_out.write(name.data(), static_cast<std::streamsize>(name.size()));
    put_le(m_out, size, 8);
}

void BlobSectionWriter::section(std::string_view name, std::string_view bytes) {
    header(name, bytes.size());
    m_out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void BlobSectionWriter::properties(const AnyMap& values) {
    for (const auto& [key, value] : values)
        section(std::string(kPropertyPrefix) + key, value.to_string());
}

void BlobSectionWriter::model(const Model& model) {
    // The weights' size comes before them, so the model is serialized twice: once for the xml
    // and the weights' size, once to write the weights straight into the stream (no copy of them
    // in memory). The writer is deterministic; the second size is checked all the same.
    std::ostringstream xml;
    CountingBuffer sizing;
    std::ostream weights_sizing(&sizing);
    serialize(model, xml, weights_sizing);
    section("ir.xml", xml.view());
    header("ir.bin", sizing.size());
    check();
    CountingBuffer xml_discard;
    std::ostream xml_again(&xml_discard);
    CountingBuffer writer(m_out.rdbuf());
    std::ostream weights(&writer);
    try {
        serialize(model, xml_again, weights);
    } catch (const Exception& e) {
        m_out.setstate(std::ios::badbit);
        throw_error<Unavailable>(m_owner, ": writing the exported model failed after ",
                                 writer.size(), " of ", sizing.size(),
                                 " bytes of weights: ", e.what());
    }
    if (writer.size() != sizing.size()) {
        m_out.setstate(std::ios::badbit);
        throw_error<Unavailable>(m_owner, ": writing the exported model failed: its weights took ",
                                 sizing.size(), " bytes, then ", writer.size());
    }
}

std::ostream& BlobSectionWriter::begin_section(std::string_view name, uint64_t size) {
    header(name, size);
    const std::streampos here = m_out.tellp();
    if (here != std::streampos(-1)) m_open_end = here + static_cast<std::streamoff>(size);
    return m_out;
}

void BlobSectionWriter::check() {
    if (!m_out)
        throw_error<Unavailable>(m_owner, ": writing the exported model failed (stream error)");
    if (m_open_end == std::streampos(-1)) return;
    const std::streampos end = std::exchange(m_open_end, std::streampos(-1));
    const std::streampos here = m_out.tellp();
    if (here != end)
        throw_error<Exception>(m_owner, ": blob section '", m_names.back(), "' was announced as ",
                               "ending at byte ", static_cast<std::streamoff>(end),
                               ", its bytes end at ", static_cast<std::streamoff>(here));
}

BlobSectionReader::BlobSectionReader(std::istream& in, std::string owner)
    : m_in(&in), m_owner(std::move(owner)) {
    std::streampos start = in.tellg(), end = std::streampos(-1);
    if (start != std::streampos(-1)) {
        in.seekg(0, std::ios::end);
        end = in.tellg();
        in.clear();
        in.seekg(start);
    }
    if (start == std::streampos(-1) || end == std::streampos(-1) || end < start) {
        // Unseekable (a pipe): read what it holds, in blocks, so a short stream costs little.
        in.clear();
        std::string bytes;
        char block[1 << 16];
        while (in.read(block, sizeof(block)) || in.gcount() > 0)
            bytes.append(block, static_cast<size_t>(in.gcount()));
        end = static_cast<std::streamoff>(bytes.size());
        m_owned = std::make_unique<std::istringstream>(std::move(bytes), std::ios::binary);
        m_in = m_owned.get();
        start = 0;
    }
    m_start = start;
    const auto total = static_cast<uint64_t>(end - start);
    uint64_t at = 0;  // from m_start
    // Reads `bytes` little-endian bytes of the table at `at`, or says the blob ends there.
    auto get = [&](int bytes, const std::string& what) {
        if (total - at < static_cast<uint64_t>(bytes))
            fail(what + " at byte " + std::to_string(at) + " is truncated: it needs " +
                 std::to_string(bytes) + " bytes, " + std::to_string(total - at) + " are left");
        unsigned char buffer[8] = {};
        m_in->seekg(m_start + static_cast<std::streamoff>(at));
        m_in->read(reinterpret_cast<char*>(buffer), bytes);
        at += static_cast<uint64_t>(bytes);
        uint64_t value = 0;
        for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | buffer[i];
        return value;
    };
    while (at < total) {
        const uint64_t name_size = get(4, "a section's name length");
        if (name_size == 0 || name_size > kMaxBlobSectionName)
            fail("the section name at byte " + std::to_string(at - 4) + " claims " +
                 std::to_string(name_size) + " bytes (1 to " + std::to_string(kMaxBlobSectionName) +
                 " expected): not blob sections");
        if (name_size > total - at)
            fail("the section name at byte " + std::to_string(at - 4) +
                 " is truncated: it claims " + std::to_string(name_size) + " bytes, " +
                 std::to_string(total - at) + " are left");
        std::string name(static_cast<size_t>(name_size), '\0');
        m_in->read(name.data(), static_cast<std::streamsize>(name_size));
        at += name_size;
        const uint64_t size = get(8, "the size of section '" + name + "'");
        if (size > total - at)
            fail("section '" + name + "' is truncated: it claims " + std::to_string(size) +
                 " bytes, " + std::to_string(total - at) + " are left");
        if (!m_index.emplace(name, m_entries.size()).second)
            fail("duplicate section '" + name + "'");
        m_entries.push_back({std::move(name), at, size});
        at += size;
    }
    m_in->clear();
}

BlobSectionReader::~BlobSectionReader() = default;

void BlobSectionReader::fail(const std::string& what) const {
    throw_error<InvalidArgument>(m_owner, " blob: ", what);
}

const BlobSectionReader::Entry& BlobSectionReader::entry(std::string_view name) const {
    const auto it = m_index.find(name);
    if (it == m_index.end()) fail("missing required section '" + std::string(name) + "'");
    return m_entries[it->second];
}

bool BlobSectionReader::has(std::string_view name) const {
    return m_index.contains(name);
}

std::vector<std::string> BlobSectionReader::names(std::string_view prefix) const {
    std::vector<std::string> out;
    for (const Entry& e : m_entries)
        if (e.name.starts_with(prefix)) out.push_back(e.name);
    return out;
}

uint64_t BlobSectionReader::size(std::string_view name) const {
    return entry(name).size;
}

void BlobSectionReader::read(std::string_view name, void* to) {
    Entry& e = m_entries[&entry(name) - m_entries.data()];
    e.read = true;
    m_in->clear();
    m_in->seekg(m_start + static_cast<std::streamoff>(e.offset));
    m_in->read(static_cast<char*>(to), static_cast<std::streamsize>(e.size));
    if (static_cast<uint64_t>(m_in->gcount()) != e.size)  // the stream changed under us
        fail("section '" + e.name + "' cannot be read back");
}

std::string BlobSectionReader::string(std::string_view name) {
    std::string text(static_cast<size_t>(size(name)), '\0');
    read(name, text.data());
    return text;
}

AnyMap BlobSectionReader::properties() {
    AnyMap values;
    for (const std::string& name : names(kPropertyPrefix))
        values[name.substr(kPropertyPrefix.size())] = string(name);
    return values;
}

std::shared_ptr<Model> BlobSectionReader::model(Tensor weights) {
    const std::string xml = string("ir.xml");
    const uint64_t size = this->size("ir.bin");
    if (!weights && size != 0) weights = Tensor(element::u8, Shape{static_cast<size_t>(size)});
    const size_t given = weights ? weights.get_byte_size() : 0;
    if (given != size)
        throw_error<InvalidArgument>(m_owner, ": the weights tensor for section 'ir.bin' has ",
                                     given, " bytes, the section ", size);
    read("ir.bin", weights ? weights.data() : nullptr);
    try {
        return read_model_from_string(xml, weights);
    } catch (const Exception& e) {
        fail(std::string("sections 'ir.xml' and 'ir.bin' hold a damaged model: ") + e.what());
    }
}

void BlobSectionReader::expect_all_read() const {
    for (const Entry& e : m_entries)
        if (!e.read) fail("unknown section '" + e.name + "'");
}

}  // namespace vireo::sdk
