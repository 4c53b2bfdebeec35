// Implements BlobContainer (vireo/sdk/blob_container.hpp): the header's checks, the checksum over
// the whole blob, and the plugin's sections stored as written.
#include "vireo/sdk/blob_container.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <optional>

#include "vireo/dev/memory_limits.hpp"
#include "vireo/exception.hpp"
#include "vireo/sdk/blob_sections.hpp"
#include "vireo/sdk/plugin_entry.hpp"

namespace vireo::sdk {
namespace {

constexpr char kMagic[8] = {'V', 'I', 'R', 'E', 'O', 'B', 'L', 'B'};
constexpr uint32_t kMaxHeaderString = 4096;  // a header string longer than this is garbage
constexpr size_t kReadChunk = 1 << 20;       // unseekable streams are read in chunks
constexpr std::string_view kRawSection = "vireo.raw";

constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ULL, kFnvPrime = 0x100000001b3ULL;

uint64_t fnv1a(const unsigned char* bytes, size_t size, uint64_t hash) {
    for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * kFnvPrime;
    return hash;
}

uint64_t load_le64(const unsigned char* p) {
    uint64_t word = 0;
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&word, p, sizeof(word));
    } else {
        for (size_t i = 0; i < sizeof(word); ++i) word |= static_cast<uint64_t>(p[i]) << (8 * i);
    }
    return word;
}

uint64_t mix(uint64_t hash, uint64_t word) {
    hash = (hash ^ word) * kFnvPrime;
    return hash ^ (hash >> 29);
}

// blob_checksum fed in pieces (the header, then the payload) without joining them.
class Checksum {
  public:
    Checksum() {
        for (size_t j = 0; j < kLanes; ++j) m_lane[j] = kFnvBasis + j;
    }
    void update(const void* data, size_t size) {
        const auto* bytes = static_cast<const unsigned char*>(data);
        m_size += size;
        if (m_pending) {  // complete the block a previous piece began
            const size_t take = std::min(size, kBlock - m_pending);
            std::memcpy(m_block + m_pending, bytes, take);
            m_pending += take, bytes += take, size -= take;
            if (m_pending < kBlock) return;
            add_block(m_block);
            m_pending = 0;
        }
        for (; size >= kBlock; bytes += kBlock, size -= kBlock) add_block(bytes);
        std::memcpy(m_block, bytes, size);
        m_pending = size;
    }
    uint64_t value() const {
        uint64_t hash = mix(kFnvBasis, m_size);
        for (size_t j = 0; j < kLanes; ++j) hash = mix(hash, m_lane[j]);
        return fnv1a(m_block, m_pending, hash);
    }

  private:
    static constexpr size_t kLanes = 4, kBlock = kLanes * sizeof(uint64_t);
    void add_block(const unsigned char* p) {
        for (size_t j = 0; j < kLanes; ++j) m_lane[j] = mix(m_lane[j], load_le64(p + j * 8));
    }
    uint64_t m_lane[kLanes];
    unsigned char m_block[kBlock];
    size_t m_pending = 0;
    uint64_t m_size = 0;
};

void put(std::string& out, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

void put_string(std::string& out, const std::string& s) {
    put(out, s.size(), 4);
    out += s;
}

// The header of the one section "vireo.raw" that holds `size` bytes a plugin wrote that are not
// sections.
std::string raw_header(uint64_t size) {
    std::string header;
    put(header, kRawSection.size(), 4);
    header += kRawSection;
    put(header, size, 8);
    return header;
}

// An input stream buffer over bytes someone else owns, seekable within them.
class ViewBuf : public std::streambuf {
  public:
    explicit ViewBuf(std::string_view bytes) {
        char* begin = const_cast<char*>(bytes.data());  // read-only: no put area is ever set
        setg(begin, begin, begin + bytes.size());
    }

  protected:
    pos_type seekoff(off_type offset, std::ios_base::seekdir direction,
                     std::ios_base::openmode which) override {
        if (!(which & std::ios_base::in)) return pos_type(off_type(-1));
        const off_type size = egptr() - eback();
        const off_type base = direction == std::ios_base::beg   ? 0
                              : direction == std::ios_base::cur ? gptr() - eback()
                                                                : size;
        const off_type target = base + offset;
        if (target < 0 || target > size) return pos_type(off_type(-1));
        setg(eback(), eback() + target, egptr());
        return pos_type(target);
    }
    pos_type seekpos(pos_type position, std::ios_base::openmode which) override {
        return seekoff(off_type(position), std::ios_base::beg, which);
    }
};

// True when `bytes` are sections with none of the core's names: they are stored as they are.
bool is_section_list(std::string_view bytes) {
    ViewBuf view(bytes);
    std::istream in(&view);
    try {
        return BlobSectionReader(in, "plugin").names("vireo.").empty();
    } catch (const InvalidArgument&) {
        return false;
    }
}

// Reads the header's fields, keeping their bytes for the checksum.
class HeaderReader {
  public:
    HeaderReader(std::istream& in, const std::string& source) : m_in(in), m_source(source) {}
    uint64_t get(int size, const char* what) {
        unsigned char buffer[8] = {};
        if (!m_in.read(reinterpret_cast<char*>(buffer), size)) truncated(what);
        m_bytes.append(reinterpret_cast<const char*>(buffer), static_cast<size_t>(size));
        uint64_t value = 0;
        for (int i = size - 1; i >= 0; --i) value = (value << 8) | buffer[i];
        return value;
    }
    std::string get_string(const char* what) {
        const auto size = static_cast<uint32_t>(get(4, what));
        if (size > kMaxHeaderString)
            throw_error<InvalidArgument>(m_source, ": damaged blob header: ", what, " is ", size,
                                         " bytes long, at most ", kMaxHeaderString, " expected");
        std::string s(size, '\0');
        if (size && !m_in.read(s.data(), size)) truncated(what);
        m_bytes += s;
        return s;
    }
    const std::string& bytes() const { return m_bytes; }

  private:
    [[noreturn]] void truncated(const char* what) {
        throw_error<InvalidArgument>(
            m_source, ": truncated blob: it ends inside the header (reading ", what, ")");
    }
    std::istream& m_in;
    const std::string& m_source;
    std::string m_bytes;
};

// Bytes between the read position and the end, for seekable streams.
std::optional<uint64_t> bytes_left(std::istream& in) {
    const std::istream::pos_type here = in.tellg();
    if (here == std::istream::pos_type(-1)) {
        in.clear();  // tellg() fails (and sets failbit) on an unseekable stream
        return std::nullopt;
    }
    in.seekg(0, std::ios::end);
    const std::istream::pos_type end = in.tellg();
    in.clear();
    in.seekg(here);  // back to the payload, whatever the seek to the end did
    if (end == std::istream::pos_type(-1) || !in || end < here) return std::nullopt;
    return static_cast<uint64_t>(end - here);
}

std::string read_payload(std::istream& in, uint64_t size, const std::string& source) {
    // A damaged size must not make us allocate terabytes: when the stream can tell how many bytes
    // it has left (a cache file, a string stream), a size beyond them is refused before
    // allocating and the payload is read in one go into a buffer of exactly that size;
    // otherwise it is read in chunks.
    const std::optional<uint64_t> left = bytes_left(in);
    if (left && size > *left)
        throw_error<InvalidArgument>(source, ": truncated blob: the header announces a payload of ",
                                     size, " bytes, found only ", *left);
    if (!left && size > physical_memory_bytes())
        throw_error<InvalidArgument>(source, ": damaged blob: the header announces a payload of ",
                                     size, " bytes, more than the ", physical_memory_bytes(),
                                     " bytes of memory this machine has");
    std::string payload;
    // Unseekable: reserve at most 256 MiB up front (a damaged size below the machine's memory is
    // then caught by the read running dry, not by a huge allocation); beyond, it grows.
    payload.reserve(static_cast<size_t>(left ? size : std::min<uint64_t>(size, 256u << 20)));
    while (payload.size() < size) {
        const size_t chunk =
            left ? static_cast<size_t>(size)
                 : static_cast<size_t>(std::min<uint64_t>(kReadChunk, size - payload.size()));
        const size_t old = payload.size();
        payload.resize(old + chunk);
        in.read(payload.data() + old, static_cast<std::streamsize>(chunk));
        if (static_cast<size_t>(in.gcount()) != chunk)
            throw_error<InvalidArgument>(source,
                                         ": truncated blob: the header announces a payload of ",
                                         size, " bytes, found only ", old + in.gcount());
    }
    return payload;
}

}  // namespace

struct BlobContainer::View {
    explicit View(std::string_view bytes) : buffer(bytes), stream(&buffer) {}
    ViewBuf buffer;
    std::istream stream;
};

BlobIdentity BlobIdentity::of(const Version& version) {
    return {version.description, version.build_number, VIREO_PLUGIN_ABI_VERSION};
}

uint64_t blob_checksum(const void* data, size_t size) {
    Checksum checksum;
    checksum.update(data, size);
    return checksum.value();
}

void BlobContainer::write(std::ostream& out, const BlobIdentity& writer,
                          std::string_view plugin_bytes, const std::string& origin) {
    const bool raw = !is_section_list(plugin_bytes);
    std::string header(kMagic, sizeof(kMagic));
    put(header, kBlobFormatVersion, 4);
    put(header, writer.abi_version, 4);
    put_string(header, writer.plugin_name);
    put_string(header, writer.plugin_version);
    put_string(header, origin);
    const std::string wrap = raw ? raw_header(plugin_bytes.size()) : "";
    put(header, wrap.size() + plugin_bytes.size(), 8);
    header += wrap;
    Checksum checksum;
    checksum.update(header.data(), header.size());
    checksum.update(plugin_bytes.data(), plugin_bytes.size());
    std::string trailer;
    put(trailer, checksum.value(), 8);
    errno = 0;
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(plugin_bytes.data(), static_cast<std::streamsize>(plugin_bytes.size()));
    out.write(trailer.data(), static_cast<std::streamsize>(trailer.size()));
    if (!out) {
        // errno is the failed write's (ENOSPC for a full disk, EDQUOT, EIO) when a file is behind
        // the stream; a stream with no system call behind it leaves it 0.
        const int error = errno;
        throw_error<Exception>("cannot write the compiled-model blob: ",
                               error ? std::strerror(error) : "the output stream failed");
    }
}

BlobContainer::BlobContainer(std::istream& in, const BlobIdentity& reader,
                             const std::string& source, const std::string* expected_origin) {
    char magic[sizeof(kMagic)] = {};
    if (!in.read(magic, sizeof(magic)) || std::memcmp(magic, kMagic, sizeof(magic)) != 0)
        throw_error<InvalidArgument>(source,
                                     ": not a Vireo compiled-model blob (expected the magic "
                                     "\"VIREOBLB\" that CompiledModel::export_model writes)");
    HeaderReader r(in, source);
    const auto format = static_cast<uint32_t>(r.get(4, "format version"));
    if (format != kBlobFormatVersion)
        throw_error<InvalidArgument>(source, ": blob format version ", format,
                                     " is not supported by this build (expected ",
                                     kBlobFormatVersion, "); re-export the model");
    BlobIdentity writer;
    writer.abi_version = static_cast<uint32_t>(r.get(4, "ABI version"));
    writer.plugin_name = r.get_string("plugin name");
    writer.plugin_version = r.get_string("plugin version");
    const std::string origin = r.get_string("origin");
    const uint64_t size = r.get(8, "payload size");
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
    m_payload = read_payload(in, size, source);
    unsigned char stored[8] = {};
    if (!in.read(reinterpret_cast<char*>(stored), sizeof(stored)))
        throw_error<InvalidArgument>(source, ": truncated blob: it ends before the checksum");
    Checksum checksum;
    checksum.update(magic, sizeof(magic));
    checksum.update(r.bytes().data(), r.bytes().size());
    checksum.update(m_payload.data(), m_payload.size());
    const uint64_t expected = load_le64(stored), actual = checksum.value();
    if (actual != expected)
        throw_error<InvalidArgument>(source, ": damaged blob: checksum ", std::hex, actual,
                                     " does not match the stored ", expected);
    // A plugin that wrote other bytes than sections gets them back from the "vireo.raw" section.
    m_plugin_bytes = m_payload;
    const size_t wrap = raw_header(0).size();
    if (m_payload.size() >= wrap && m_plugin_bytes.starts_with(raw_header(m_payload.size() - wrap)))
        m_plugin_bytes.remove_prefix(wrap);
}

BlobContainer::~BlobContainer() = default;

std::istream& BlobContainer::plugin_stream() {
    if (!m_view) m_view = std::make_unique<View>(m_plugin_bytes);
    return m_view->stream;
}

}  // namespace vireo::sdk
