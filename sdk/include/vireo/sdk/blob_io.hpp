// Declares BlobWriter and BlobReader, deprecated: a plugin's export blob field by field (little-
// endian integers, length-prefixed strings, a magic). Replaced by the sections of the one blob
// container (vireo/sdk/blob_sections.hpp: BlobSectionWriter / BlobSectionReader, blob format 4);
// kept working, unchanged, for one release (CHANGELOG.md has the migration), then removed.
#pragma once

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>

namespace vireo::sdk {

/// Writes blob fields to `out`. Integers are little-endian whatever the host.
class [[deprecated(
    "use sdk::BlobSectionWriter (vireo/sdk/blob_sections.hpp); see CHANGELOG.md")]] BlobWriter {
  public:
    /// `owner` starts the error message, e.g. "TEMPLATE".
    BlobWriter(std::ostream & out, std::string owner);

    void u8(uint8_t value) {
        put(value, 1);
    }
    void u32(uint32_t value) {
        put(value, 4);
    }
    void u64(uint64_t value) {
        put(value, 8);
    }
    /// Raw bytes, no length (a magic, a payload whose length was written before).
    void bytes(const void* data, size_t size);
    /// A u64 length, then the bytes.
    void string(std::string_view text);
    /// Throws Unavailable "<owner>: writing the exported model failed (stream error)" if the
    /// stream has failed; call once after the last field.
    void check() const;

  private:
    void put(uint64_t value, int bytes);
    std::ostream& m_out;
    std::string m_owner;
};

/// Reads blob fields from `in`. Errors are InvalidArgument starting with `owner`, e.g.
/// "TEMPLATE blob is truncated: reading the model xml needed 40 bytes, found 12".
class [[deprecated(
    "use sdk::BlobSectionReader (vireo/sdk/blob_sections.hpp); see CHANGELOG.md")]] BlobReader {
  public:
    /// `max_length` bounds every length prefix (physical memory bounds it as well).
    BlobReader(std::istream & in, std::string owner, uint64_t max_length = uint64_t{1} << 40);

    uint8_t u8(const char* what) {
        return static_cast<uint8_t>(get(1, what));
    }
    uint32_t u32(const char* what) {
        return static_cast<uint32_t>(get(4, what));
    }
    uint64_t u64(const char* what) {
        return get(8, what);
    }
    /// Exactly `size` bytes into `to`, or "truncated".
    void bytes(void* to, size_t size, const char* what);
    /// A u64 length prefix, checked against the bounds ("damaged: <what> claims N bytes") and,
    /// when the stream is seekable, against the bytes left in it ("truncated: reading <what>
    /// needed N bytes, found M"), for a caller that allocates its own buffer and fills it with
    /// bytes().
    uint64_t length(const char* what);
    /// `size` bytes as a string, read in blocks of 1 MiB so that a damaged size costs at most
    /// what the stream holds (plus one block), not the size claimed.
    std::string string_of(uint64_t size, const char* what);
    /// length() then string_of().
    std::string string(const char* what) {
        return string_of(length(what), what);
    }
    /// The magic at the start, else "not a blob exported by the <owner> plugin" with what was
    /// expected and what was found.
    void expect_magic(std::string_view magic);

  private:
    uint64_t get(int bytes, const char* what);
    std::istream& m_in;
    std::string m_owner;
    uint64_t m_max_length;
};

}  // namespace vireo::sdk
