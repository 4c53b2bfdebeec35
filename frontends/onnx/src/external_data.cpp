// Implements ExternalData: path checks that keep every location inside the model's folder, one
// read-only mapping per file, and bounds checks of offset and length against the file.
#include "external_data.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "vireo/exception.hpp"

namespace vireo::onnx_import {
namespace fs = std::filesystem;

namespace {

// One external data file in memory: mapped (`mapped` true) or read into `copy`.
struct Mapped {
    void* data = nullptr;
    size_t size = 0;
    bool mapped = false;
    std::vector<char> copy;
    ~Mapped() {
        if (data && mapped) ::munmap(data, size);
    }
};

uint64_t parse_u64(const std::string& text, const std::string& what, const std::string& key) {
    if (text.empty() || text.size() > 20 ||
        text.find_first_not_of("0123456789") != std::string::npos)
        throw_error<InvalidArgument>(what, ": external data '", key,
                                     "' is not a non-negative integer: '", text, "'");
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE)
        throw_error<InvalidArgument>(what, ": external data '", key, "' overflows: '", text, "'");
    return v;
}

}  // namespace

ExternalData::ExternalData(std::string model_dir, bool enable_mmap)
    : m_model_dir(std::move(model_dir)), m_enable_mmap(enable_mmap) {}

std::shared_ptr<void> ExternalData::map_file(const std::string& location, const std::string& what,
                                             size_t& size) {
    if (auto it = m_files.find(location); it != m_files.end()) {
        size = it->second.size;
        return it->second.owner;
    }
    const fs::path rel(location);
    if (location.empty() || rel.is_absolute())
        throw_error<InvalidArgument>(what, ": external data location '", location,
                                     "' must be a relative path inside the model's folder");
    for (const auto& part : rel)
        if (part == "..")
            throw_error<InvalidArgument>(what, ": external data location '", location,
                                         "' leaves the model's folder ('..')");
    std::error_code ec;
    const fs::path dir =
        fs::canonical(m_model_dir.empty() ? fs::path(".") : fs::path(m_model_dir), ec);
    if (ec)
        throw_error<InvalidArgument>(what, ": model folder '", m_model_dir, "': ", ec.message());
    const fs::path full = fs::weakly_canonical(dir / rel, ec);
    if (ec) throw_error<InvalidArgument>(what, ": external data '", location, "': ", ec.message());
    const std::string full_text = full.string(), dir_text = dir.string() + "/";
    if (full_text.compare(0, dir_text.size(), dir_text) != 0)
        throw_error<InvalidArgument>(what, ": external data location '", location,
                                     "' resolves outside the model's folder (to '", full_text,
                                     "')");

    const int fd = ::open(full_text.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        throw_error<InvalidArgument>(what, ": external data file '", location,
                                     "' cannot be opened: ", std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw_error<InvalidArgument>(what, ": external data '", location,
                                     "' is not a regular file");
    }
    auto mapped = std::make_shared<Mapped>();
    mapped->size = static_cast<size_t>(st.st_size);
    if (mapped->size > 0 && !m_enable_mmap) {
        try {
            mapped->copy.resize(mapped->size);
        } catch (const std::bad_alloc&) {
            ::close(fd);
            throw_error<InvalidArgument>(what, ": external data '", location, "' (", mapped->size,
                                         " bytes) does not fit in memory");
        }
        size_t done = 0;
        while (done < mapped->size) {
            const ssize_t got = ::read(fd, mapped->copy.data() + done, mapped->size - done);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                const int error = got < 0 ? errno : 0;
                ::close(fd);
                throw_error<InvalidArgument>(
                    what, ": external data '", location, "' cannot be read: ",
                    error ? std::strerror(error) : "the file shrank while it was read");
            }
            done += static_cast<size_t>(got);
        }
        mapped->data = mapped->copy.data();
    } else if (mapped->size > 0) {
        void* p = ::mmap(nullptr, mapped->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            const int error = errno;
            ::close(fd);
            throw_error<InvalidArgument>(what, ": external data '", location,
                                         "' cannot be mapped: ", std::strerror(error));
        }
        mapped->data = p;
        mapped->mapped = true;
    }
    ::close(fd);
    size = mapped->size;
    m_files[location] = Mapping{mapped, mapped->size};
    m_file_list.push_back(full_text);
    return mapped;
}

ExternalData::Bytes ExternalData::read(const onnx::TensorProto& proto, size_t expected,
                                       const std::string& what) {
    if (m_model_dir.empty())
        throw_error<InvalidArgument>(what,
                                     ": external data needs the model's folder; read the model "
                                     "from its file, not from memory");
    std::string location;
    uint64_t offset = 0;
    bool has_length = false;
    uint64_t length = 0;
    for (const auto& entry : proto.external_data()) {
        if (entry.key() == "location")
            location = entry.value();
        else if (entry.key() == "offset")
            offset = parse_u64(entry.value(), what, "offset");
        else if (entry.key() == "length") {
            length = parse_u64(entry.value(), what, "length");
            has_length = true;
        }
    }
    if (location.empty())
        throw_error<InvalidArgument>(what, ": external data without a 'location'");
    if (has_length && length != expected)
        throw_error<InvalidArgument>(what, ": external data length ", length,
                                     " disagrees with the ", expected,
                                     " bytes its type and shape need");
    size_t file_size = 0;
    std::shared_ptr<void> owner = map_file(location, what, file_size);
    if (offset > file_size || expected > file_size - offset)
        throw_error<InvalidArgument>(what, ": external data [", offset, ", ", offset, " + ",
                                     expected, ") lies outside '", location, "' (", file_size,
                                     " bytes)");
    const auto* base = static_cast<const char*>(static_cast<Mapped*>(owner.get())->data);
    return Bytes{base ? base + offset : nullptr, expected, owner};
}

}  // namespace vireo::onnx_import
