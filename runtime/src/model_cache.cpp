// Implements the model cache: key computation, lookup with full validation, atomic writes.
#include "model_cache.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ext/stdio_filebuf.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vireo/ir.hpp"
#include "vireo/log.hpp"
#include "vireo/plugin_object.hpp"
#include "vireo/properties.hpp"
#include "vireo/sdk/blob_container.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/plugin_entry.hpp"

namespace vireo::runtime {
namespace fs = std::filesystem;

namespace {

constexpr const char* kKeyFormat = "vireo-model-cache-key-2";

uint64_t fnv1a64(const void* data, size_t size, uint64_t hash = 0xcbf29ce484222325ULL) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
    return hash;
}

// FNV-1a 64 over a sequence of fields, each preceded by its length so that field boundaries
// are part of the hash ("ab"+"c" differs from "a"+"bc").
class KeyHash {
  public:
    void add(const std::string& bytes) {
        const uint64_t size = bytes.size();
        m_hash = fnv1a64(&size, sizeof(size), m_hash);
        m_hash = fnv1a64(bytes.data(), bytes.size(), m_hash);
    }
    std::string hex() const {
        std::ostringstream out;
        out << std::hex;
        out.width(16);
        out.fill('0');
        out << m_hash;
        return out.str();
    }

  private:
    uint64_t m_hash = fnv1a64(nullptr, 0);
};

// An output buffer that hashes and counts the bytes written to it and keeps none: the model's
// weights are hashed as the IR writer produces them instead of being copied into a string
// first. The hash takes 8 bytes per step (FNV-1a's xor-multiply on 64-bit little-endian words,
// then an xor-shift so high bits reach the low ones; the last 0-7 bytes go through byte-wise
// FNV-1a): byte-wise FNV-1a, one multiply per byte, was most of a cache lookup for a model with
// megabytes of weights. The result depends only on the bytes, not on how the writes split them.
class HashingBuffer : public std::streambuf {
  public:
    uint64_t hash() const { return fnv1a64(m_tail, m_tail_size, m_hash); }
    uint64_t size() const { return m_size; }

  protected:
    std::streamsize xsputn(const char* data, std::streamsize count) override {
        const char* p = data;
        size_t n = static_cast<size_t>(count);
        m_size += n;
        while (m_tail_size > 0 && n > 0) {  // complete the word a previous write started
            m_tail[m_tail_size++] = *p++;
            --n;
            if (m_tail_size == sizeof(uint64_t)) {
                mix(m_tail);
                m_tail_size = 0;
            }
        }
        for (; n >= sizeof(uint64_t); p += sizeof(uint64_t), n -= sizeof(uint64_t)) mix(p);
        std::memcpy(m_tail + m_tail_size, p, n);
        m_tail_size += n;
        return count;
    }
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        const char byte = traits_type::to_char_type(c);
        xsputn(&byte, 1);
        return c;
    }

  private:
    void mix(const char* bytes) {
        uint64_t word = 0;
        for (size_t i = 0; i < sizeof(uint64_t); ++i)  // little-endian whatever the host
            word |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
        m_hash = (m_hash ^ word) * 0x100000001b3ULL;
        m_hash ^= m_hash >> 29;
    }

    uint64_t m_hash = fnv1a64(nullptr, 0);
    uint64_t m_size = 0;
    char m_tail[sizeof(uint64_t)] = {};
    size_t m_tail_size = 0;
};

// What to reserve for an export of `model`: the bytes of its Constants, plus an eighth and
// 64 KiB for what exports add around them (IR xml, alignment, headers). Exports that carry the
// weights (MOCK_REMOTE's and TEMPLATE's do) are at least as large as the Constants, and a string
// stream that starts empty doubles its buffer as it fills, copying all it holds each time and
// touching fresh pages: for 12 MB of weights that was twice the payload in copies and page
// faults. Reserved pages that an export never writes are never touched, so reserving too much
// costs only address space; too little costs one more doubling.
size_t export_size_hint(const Model& model) {
    size_t bytes = 0;
    for (const auto& node : model.get_ordered_ops())
        if (node->get_type_name() == "Constant") {
            const Tensor& value = node->get_constant_value();
            if (value && !value.is_remote()) bytes += value.get_byte_size();
        }
    return bytes + bytes / 8 + (size_t{64} << 10);
}

// A meta-device's capabilities depend on its device list, so that is passed when the call has one.
bool can_export(const Plugin& plugin, const AnyMap& config) {
    AnyMap arguments;
    if (auto it = config.find(device::priorities.name()); it != config.end())
        arguments[it->first] = it->second;
    std::vector<std::string> capabilities;
    try {
        capabilities = plugin.get_property(device::capabilities.name(), arguments)
                           .as<std::vector<std::string>>();
    } catch (const std::exception&) {
        return true;  // the plugin does not say: try, and let export_model tell
    }
    return std::find(capabilities.begin(), capabilities.end(), device::capability::kExportImport) !=
           capabilities.end();
}

// Temporaries are "<key>.blob.tmp.<pid>.<6 random characters>": the pid lets a later writer see
// that the writer died, the random part (mkstemp) makes the name unpredictable.
constexpr const char* kTempMarker = ".blob.tmp.";
// A temporary older than this is removed whoever wrote it (a writer on another host, a pid
// reused by another process): no export takes an hour.
constexpr auto kStaleTemporaryAge = std::chrono::hours(1);

// Closes a descriptor on every path out.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// The directory may hold cache entries only if strangers cannot plant or swap files in it: it
// is owned by this user or root, and if every user may write to it, it has the sticky bit (as
// /tmp, where nobody can rename or delete another user's files). A group-writable directory is
// accepted (umask 002 makes them; the group is trusted). Returns why not, or "".
std::string unsafe_directory_reason(const std::string& directory) {
    struct stat info {};
    if (::stat(directory.c_str(), &info) != 0)
        return std::string("cannot stat it: ") + std::strerror(errno);
    if (!S_ISDIR(info.st_mode)) return "it is not a directory";
    if (info.st_uid != ::geteuid() && info.st_uid != 0)
        return "it is owned by uid " + std::to_string(info.st_uid) + ", not by this user (uid " +
               std::to_string(::geteuid()) + ") or root";
    if ((info.st_mode & S_IWOTH) && !(info.st_mode & S_ISVTX))
        return "every user may write to it (mode " + [&] {
            char text[8];
            std::snprintf(text, sizeof(text), "%04o", static_cast<unsigned>(info.st_mode & 07777));
            return std::string(text);
        }() + ") and it has no sticky bit";
    return "";
}

// Removes this user's temporaries left by writers that died (their pid is gone) or that are
// older than kStaleTemporaryAge. Errors are ignored: cleaning is best effort.
void remove_stale_temporaries(const std::string& directory) {
    std::error_code ec;
    const auto now = fs::file_time_type::clock::now();
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const size_t marker = name.find(kTempMarker);
        if (marker == std::string::npos) continue;
        struct stat info {};
        if (::lstat(it->path().c_str(), &info) != 0 || !S_ISREG(info.st_mode) ||
            info.st_uid != ::geteuid())
            continue;
        const std::string rest = name.substr(marker + std::strlen(kTempMarker));
        const long pid = std::strtol(rest.c_str(), nullptr, 10);
        const bool writer_dead =
            pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
        std::error_code time_ec;
        const auto written = fs::last_write_time(it->path(), time_ec);
        const bool too_old = !time_ec && now - written > kStaleTemporaryAge;
        if (writer_dead || too_old) {
            std::error_code remove_ec;
            if (fs::remove(it->path(), remove_ec))
                VIREO_LOG(WARNING)
                    << "model cache: removed the stale temporary '" << it->path().string() << "' ("
                    << (writer_dead ? "its writer, pid " + std::to_string(pid) + ", is gone"
                                    : "older than an hour")
                    << ")";
        }
    }
}

}  // namespace

ModelCache::ModelCache(std::string directory) : m_directory(std::move(directory)) {}

std::string ModelCache::entry_path(const std::string& key) const {
    return (fs::path(m_directory) / (key + ".blob")).string();
}

std::string ModelCache::compute_key(const Model& model, const std::string& device,
                                    const AnyMap& config, const Version& plugin_version) {
    std::ostringstream xml;
    HashingBuffer weights;
    std::ostream bin(&weights);
    serialize(model, xml, bin);
    KeyHash hash;
    hash.add(kKeyFormat);
    hash.add(xml.str());
    hash.add(std::to_string(weights.size()) + " bytes, hash " + std::to_string(weights.hash()));
    hash.add(device);
    for (const auto& [key, value] : config) hash.add(key + "=" + value.to_string());
    hash.add(plugin_version.description);
    hash.add(plugin_version.build_number);
    hash.add(std::to_string(VIREO_PLUGIN_ABI_VERSION));
    return hash.hex();
}

sdk::CompiledModelHandle ModelCache::compile(const std::shared_ptr<Plugin>& plugin,
                                             const std::shared_ptr<const Model>& model,
                                             const std::string& device, const AnyMap& config,
                                             const AnyMap& device_settings) const {
    if (!can_export(*plugin, config)) {
        VIREO_LOG(DEBUG) << "model cache: device '" << device
                         << "' cannot export compiled models; compiling without cache";
        return sdk::CompiledModelHandle(plugin->compile_model(model, config), plugin->library());
    }
    std::error_code ec;
    fs::create_directories(m_directory, ec);  // a failure shows in the check below
    if (const std::string reason = unsafe_directory_reason(m_directory); !reason.empty()) {
        VIREO_LOG(WARNING) << "model cache: not using the directory '" << m_directory
                           << "': " << reason << "; compiling without cache";
        return sdk::CompiledModelHandle(plugin->compile_model(model, config), plugin->library());
    }
    // The device's own settings count in the key; the call's values win over them.
    AnyMap keyed = device_settings;
    for (const auto& [k, v] : config) keyed[k] = v;
    const std::string key = compute_key(*model, device, keyed, plugin->version());
    const std::string path = entry_path(key);
    if (auto hit = try_load(*plugin, path, key, config)) return std::move(*hit);

    sdk::CompiledModelHandle compiled(plugin->compile_model(model, config), plugin->library());
    try {
        std::string buffer;
        buffer.reserve(export_size_hint(*model));
        std::ostringstream payload(std::move(buffer), std::ios::binary);
        compiled.object().call("export_model",
                               [&](sdk::ICompiledModel& impl) { impl.export_model(payload); });
        // Moving the string out of the stream (C++20) hands over its buffer instead of copying it.
        store(path, key, sdk::BlobIdentity::of(plugin->version()), std::move(payload).str());
    } catch (const std::exception& e) {
        VIREO_LOG(WARNING) << "model cache: cannot store '" << path << "' for device '" << device
                           << "': " << e.what();
    }
    return compiled;
}

std::optional<sdk::CompiledModelHandle> ModelCache::try_load(const Plugin& plugin,
                                                             const std::string& path,
                                                             const std::string& key,
                                                             const AnyMap& config) const {
    // O_NOFOLLOW: an entry that is a symlink (planted by someone who may write to the
    // directory) is never read; O_NONBLOCK: a FIFO cannot block the open. Only a regular file
    // owned by this user is trusted.
    Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)};
    if (file.fd < 0) {
        if (errno != ENOENT)
            VIREO_LOG(WARNING) << "model cache: entry '" << path << "' cannot be opened ("
                               << std::strerror(errno)
                               << "; a symlink is refused); compiling again and replacing it";
        return std::nullopt;
    }
    try {
        struct stat info {};
        if (::fstat(file.fd, &info) != 0)
            throw_error<Exception>("cannot stat it: ", std::strerror(errno));
        if (!S_ISREG(info.st_mode)) throw_error<Exception>("it is not a regular file");
        if (info.st_uid != ::geteuid())
            throw_error<Exception>("it is owned by uid ", info.st_uid, ", not by this user (uid ",
                                   ::geteuid(), ")");
        __gnu_cxx::stdio_filebuf<char> buffer(file.fd, std::ios::in | std::ios::binary);
        file.fd = -1;  // the buffer closes it
        std::istream in(&buffer);
        sdk::BlobContainer blob(in, sdk::BlobIdentity::of(plugin.version()), "model cache entry",
                                &key);
        return sdk::CompiledModelHandle(plugin.import_model(blob.plugin_stream(), config),
                                        plugin.library(), /*loaded_from_cache=*/true);
    } catch (const std::exception& e) {
        VIREO_LOG(WARNING) << "model cache: entry '" << path << "' is unusable (" << e.what()
                           << "); compiling again and replacing it";
        return std::nullopt;
    }
}

void ModelCache::store(const std::string& path, const std::string& key,
                       const sdk::BlobIdentity& identity, const std::string& payload) const {
    remove_stale_temporaries(m_directory);
    // mkstemp: O_CREAT|O_EXCL (never follows or reuses a planted symlink or file), mode 0600,
    // and an unpredictable name. Readers never see a half-written entry, and concurrent
    // writers of the same key each rename a complete file (the last one wins).
    std::string temp = path.substr(0, path.size() - std::strlen(".blob")) + kTempMarker +
                       std::to_string(::getpid()) + ".XXXXXX";
    Fd out{::mkostemp(temp.data(), O_CLOEXEC)};
    if (out.fd < 0)
        throw_error<Exception>("cannot create a temporary file beside '", path,
                               "': ", std::strerror(errno));
    try {
        {
            __gnu_cxx::stdio_filebuf<char> buffer(out.fd, std::ios::out | std::ios::binary);
            out.fd = -1;  // the buffer closes it
            std::ostream stream(&buffer);
            sdk::BlobContainer::write(stream, identity, payload, key);
            stream.flush();
            if (!stream || !buffer.close())
                throw_error<Exception>("cannot write '", temp, "': ", std::strerror(errno));
        }
        // rename replaces whatever is at the entry's name (a planted symlink included) without
        // following it.
        fs::rename(temp, path);
    } catch (...) {
        std::error_code ec;
        fs::remove(temp, ec);
        throw;
    }
}

}  // namespace vireo::runtime
