// Implements BlobWriter and BlobReader (vireo/sdk/blob_io.hpp), deprecated: kept for plugins
// built against them until they go.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include "vireo/sdk/blob_io.hpp"

#include <algorithm>
#include <vector>

#include "vireo/dev/memory_limits.hpp"
#include "vireo/exception.hpp"

namespace vireo::sdk {

BlobWriter::BlobWriter(std::ostream& out, std::string owner)
    : m_out(out), m_owner(std::move(owner)) {}

void BlobWriter::put(uint64_t value, int bytes) {
    char buffer[8];
    for (int i = 0; i < bytes; ++i) buffer[i] = static_cast<char>((value >> (8 * i)) & 0xff);
    m_out.write(buffer, bytes);
}

void BlobWriter::bytes(const void* data, size_t size) {
    m_out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

void BlobWriter::string(std::string_view text) {
    u64(text.size());
    bytes(text.data(), text.size());
}

void BlobWriter::check() const {
    if (!m_out)
        throw_error<Unavailable>(m_owner, ": writing the exported model failed (stream error)");
}

BlobReader::BlobReader(std::istream& in, std::string owner, uint64_t max_length)
    : m_in(in), m_owner(std::move(owner)), m_max_length(max_length) {}

void BlobReader::bytes(void* to, size_t size, const char* what) {
    m_in.read(static_cast<char*>(to), static_cast<std::streamsize>(size));
    const auto got = m_in.gcount();
    if (static_cast<size_t>(got) != size)
        throw_error<InvalidArgument>(m_owner, " blob is truncated: reading ", what, " needed ",
                                     size, " bytes, found ", got);
}

uint64_t BlobReader::get(int size, const char* what) {
    unsigned char buffer[8] = {};
    bytes(buffer, static_cast<size_t>(size), what);
    uint64_t value = 0;
    for (int i = size - 1; i >= 0; --i) value = (value << 8) | buffer[i];
    return value;
}

uint64_t BlobReader::length(const char* what) {
    const uint64_t size = u64(what);
    if (size > m_max_length || size > physical_memory_bytes())
        throw_error<InvalidArgument>(m_owner, " blob is damaged: ", what, " claims ", size,
                                     " bytes");
    // A seekable stream (the core hands import_model one) tells what is left, so a damaged size
    // below the bounds is refused here rather than allocated by the caller and then cut short.
    const std::streampos here = m_in.tellg();
    if (here != std::streampos(-1)) {
        m_in.seekg(0, std::ios::end);
        const std::streampos end = m_in.tellg();
        m_in.clear();
        m_in.seekg(here);
        if (end != std::streampos(-1) && static_cast<uint64_t>(end - here) < size)
            throw_error<InvalidArgument>(m_owner, " blob is truncated: reading ", what, " needed ",
                                         size, " bytes, found ", static_cast<uint64_t>(end - here));
    }
    return size;
}

std::string BlobReader::string_of(uint64_t size, const char* what) {
    constexpr uint64_t kBlock = uint64_t{1} << 20;
    std::string text;
    while (text.size() < size) {
        const size_t at = text.size();
        const size_t block = static_cast<size_t>(std::min<uint64_t>(kBlock, size - at));
        text.resize(at + block);
        m_in.read(text.data() + at, static_cast<std::streamsize>(block));
        const auto got = static_cast<size_t>(m_in.gcount());
        if (got != block)
            throw_error<InvalidArgument>(m_owner, " blob is truncated: reading ", what, " needed ",
                                         size, " bytes, found ", at + got);
    }
    return text;
}

void BlobReader::expect_magic(std::string_view magic) {
    std::vector<char> found(magic.size());
    m_in.read(found.data(), static_cast<std::streamsize>(found.size()));
    const auto got = static_cast<size_t>(m_in.gcount());
    if (got != magic.size() || !std::equal(magic.begin(), magic.end(), found.begin()))
        throw_error<InvalidArgument>("not a blob exported by the ", m_owner,
                                     " plugin: expected the magic '", magic, "', found '",
                                     std::string(found.data(), got), "'");
}

}  // namespace vireo::sdk

#pragma GCC diagnostic pop
