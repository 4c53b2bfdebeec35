// Implements the compiled-model blob format (header checks, word-wise payload checksum).
#include "blob_format.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "vireo/dev/memory_limits.hpp"
#include "vireo/exception.hpp"
#include "vireo/sdk/plugin_entry.hpp"

namespace vireo::runtime {
namespace {

constexpr uint32_t kMaxNameLength = 4096;  // a header string longer than this is garbage
constexpr size_t kReadChunk = 1 << 20;     // unseekable streams are read in chunks

template <typename T>
void put(std::ostream& out, T value) {
    unsigned char bytes[sizeof(T)];
    for (size_t i = 0; i < sizeof(T); ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
    out.write(reinterpret_cast<const char*>(bytes), sizeof(T));
}

void put_string(std::ostream& out, const std::string& s) {
    put<uint32_t>(out, static_cast<uint32_t>(s.size()));
    out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

class Reader {
  public:
    Reader(std::istream& in, const std::string& source) : m_in(in), m_source(source) {}

    template <typename T>
    T get(const char* what) {
        unsigned char bytes[sizeof(T)];
        if (!m_in.read(reinterpret_cast<char*>(bytes), sizeof(T))) truncated(what);
        T value = 0;
        for (size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(bytes[i]) << (8 * i);
        return value;
    }
    std::string get_string(const char* what) {
        const uint32_t size = get<uint32_t>(what);
        if (size > kMaxNameLength)
            throw_error<InvalidArgument>(m_source, ": damaged blob header: ", what, " is ", size,
                                         " bytes long, at most ", kMaxNameLength, " expected");
        std::string s(size, '\0');
        if (size && !m_in.read(s.data(), size)) truncated(what);
        return s;
    }
    std::string get_payload(uint64_t size) {
        // A damaged size must not make us allocate terabytes: when the stream can tell how many
        // bytes it has left (a cache file, a string stream), a size beyond them is refused before
        // allocating and the payload is read in one go into a buffer of exactly that size;
        // otherwise it is read in chunks.
        const std::optional<uint64_t> left = bytes_left();
        if (left && size > *left)
            throw_error<InvalidArgument>(m_source,
                                         ": truncated blob: the header announces a payload of ",
                                         size, " bytes, found only ", *left);
        if (!left && size > sdk::physical_memory_bytes())
            throw_error<InvalidArgument>(m_source,
                                         ": damaged blob: the header announces a payload of ", size,
                                         " bytes, more than the ", sdk::physical_memory_bytes(),
                                         " bytes of memory this machine has");
        std::string payload;
        // Unseekable: reserve at most 256 MiB up front (a damaged size below the machine's memory
        // is then caught by the read running dry, not by a huge allocation); beyond, it grows.
        payload.reserve(static_cast<size_t>(left ? size : std::min<uint64_t>(size, 256u << 20)));
        while (payload.size() < size) {
            const size_t chunk =
                left ? static_cast<size_t>(size)
                     : static_cast<size_t>(std::min<uint64_t>(kReadChunk, size - payload.size()));
            const size_t old = payload.size();
            payload.resize(old + chunk);
            m_in.read(payload.data() + old, static_cast<std::streamsize>(chunk));
            if (static_cast<size_t>(m_in.gcount()) != chunk)
                throw_error<InvalidArgument>(
                    m_source, ": truncated blob: the header announces a payload of ", size,
                    " bytes, found only ", old + static_cast<size_t>(m_in.gcount()));
        }
        return payload;
    }
    // Bytes between the read position and the end, for seekable streams.
    std::optional<uint64_t> bytes_left() {
        const std::istream::pos_type here = m_in.tellg();
        if (here == std::istream::pos_type(-1)) {
            m_in.clear();  // tellg() fails (and sets failbit) on an unseekable stream
            return std::nullopt;
        }
        m_in.seekg(0, std::ios::end);
        const std::istream::pos_type end = m_in.tellg();
        m_in.clear();
        m_in.seekg(here);  // back to the payload, whatever the seek to the end did
        if (end == std::istream::pos_type(-1) || !m_in || end < here) return std::nullopt;
        return static_cast<uint64_t>(end - here);
    }
    [[noreturn]] void truncated(const char* what) {
        throw_error<InvalidArgument>(
            m_source, ": truncated blob: it ends inside the header (reading ", what, ")");
    }

  private:
    std::istream& m_in;
    const std::string& m_source;
};

}  // namespace

BlobIdentity blob_identity_of(const Version& version) {
    return {version.description, version.build_number, VIREO_PLUGIN_ABI_VERSION};
}

uint64_t fnv1a64(const void* data, size_t size, uint64_t seed) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    uint64_t hash = seed;
    for (size_t i = 0; i < size; ++i) {
        hash ^= bytes[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

namespace {

uint64_t load_le64(const unsigned char* p) {
    uint64_t word = 0;
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&word, p, sizeof(word));
    } else {
        for (size_t i = 0; i < sizeof(word); ++i) word |= static_cast<uint64_t>(p[i]) << (8 * i);
    }
    return word;
}

constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

uint64_t mix(uint64_t hash, uint64_t word) {
    hash = (hash ^ word) * kFnvPrime;
    return hash ^ (hash >> 29);
}

}  // namespace

uint64_t payload_checksum(const void* data, size_t size) {
    constexpr size_t kLanes = 4, kBlock = kLanes * sizeof(uint64_t);
    const auto* bytes = static_cast<const unsigned char*>(data);
    const uint64_t basis = fnv1a64(nullptr, 0);
    uint64_t lane[kLanes];
    for (size_t j = 0; j < kLanes; ++j) lane[j] = basis + j;
    size_t i = 0;
    for (; i + kBlock <= size; i += kBlock)
        for (size_t j = 0; j < kLanes; ++j)
            lane[j] = mix(lane[j], load_le64(bytes + i + j * sizeof(uint64_t)));
    uint64_t hash = mix(basis, size);
    for (size_t j = 0; j < kLanes; ++j) hash = mix(hash, lane[j]);
    return fnv1a64(bytes + i, size - i, hash);
}

void write_blob(std::ostream& out, const BlobIdentity& writer, const std::string& payload,
                const std::string& origin) {
    out.write(kBlobMagic, sizeof(kBlobMagic));
    put<uint32_t>(out, kBlobFormatVersion);
    put<uint32_t>(out, writer.abi_version);
    put_string(out, writer.plugin_name);
    put_string(out, writer.plugin_version);
    put_string(out, origin);
    put<uint64_t>(out, payload.size());
    put<uint64_t>(out, payload_checksum(payload.data(), payload.size()));
    errno = 0;
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    if (!out) {
        // errno is the failed write's (ENOSPC for a full disk, EDQUOT, EIO) when a file is behind
        // the stream; a stream with no system call behind it leaves it 0.
        const int error = errno;
        throw_error<Exception>("cannot write the compiled-model blob: ",
                               error ? std::strerror(error) : "the output stream failed");
    }
}

std::string read_blob(std::istream& in, const BlobIdentity& reader, const std::string& source,
                      const std::string* expected_origin) {
    Reader r(in, source);
    char magic[sizeof(kBlobMagic)] = {};
    if (!in.read(magic, sizeof(magic)) || std::memcmp(magic, kBlobMagic, sizeof(magic)) != 0)
        throw_error<InvalidArgument>(
            source,
            ": not a Vireo compiled-model blob (expected the magic \"VIREOBLB\" "
            "that CompiledModel::export_model writes)");
    const uint32_t format = r.get<uint32_t>("format version");
    if (format != kBlobFormatVersion)
        throw_error<InvalidArgument>(source, ": blob format version ", format,
                                     ", this runtime reads version ", kBlobFormatVersion);
    BlobIdentity writer;
    writer.abi_version = r.get<uint32_t>("ABI version");
    writer.plugin_name = r.get_string("plugin name");
    writer.plugin_version = r.get_string("plugin version");
    const std::string origin = r.get_string("origin");
    const uint64_t size = r.get<uint64_t>("payload size");
    const uint64_t checksum = r.get<uint64_t>("payload checksum");
    if (writer.plugin_name != reader.plugin_name ||
        writer.plugin_version != reader.plugin_version || writer.abi_version != reader.abi_version)
        throw_error<InvalidArgument>(source, ": the blob was exported by plugin '",
                                     writer.plugin_name, "' version '", writer.plugin_version,
                                     "' (ABI ", writer.abi_version,
                                     "), but it is being imported by plugin '", reader.plugin_name,
                                     "' version '", reader.plugin_version, "' (ABI ",
                                     reader.abi_version, "); re-export it with this plugin");
    if (expected_origin && origin != *expected_origin)
        throw_error<InvalidArgument>(source, ": the blob was compiled from '", origin,
                                     "', expected '", *expected_origin,
                                     "' (a blob copied under another model's key)");
    std::string payload = r.get_payload(size);
    const uint64_t actual = payload_checksum(payload.data(), payload.size());
    if (actual != checksum)
        throw_error<InvalidArgument>(source, ": damaged blob: payload checksum ", std::hex, actual,
                                     " does not match the header's ", checksum);
    return payload;
}

}  // namespace vireo::runtime
