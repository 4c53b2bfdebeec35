// Implements MappedFile over POSIX open/fstat/mmap.
#include "ir/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "vireo/exception.hpp"

namespace vireo::ir {
namespace {

// Closes the descriptor on every path out of the constructor; the mapping outlives it.
struct FdCloser {
    int fd;
    ~FdCloser() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

MappedFile::MappedFile(const std::string& path) : m_path(path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR)
            throw_error<NotFound>("file '", path, "' does not exist");
        throw_error<InvalidArgument>("cannot open '", path, "': ", std::strerror(err));
    }
    FdCloser closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) != 0)
        throw_error<InvalidArgument>("cannot stat '", path, "': ", std::strerror(errno));
    if (!S_ISREG(info.st_mode)) throw_error<InvalidArgument>("'", path, "' is not a regular file");
    if (info.st_size == 0) return;
    m_size = static_cast<size_t>(info.st_size);
    void* address = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (address == MAP_FAILED) {
        m_size = 0;
        throw_error<InvalidArgument>("cannot map '", path, "' into memory: ", std::strerror(errno));
    }
    m_data = static_cast<const char*>(address);
}

MappedFile::~MappedFile() {
    if (m_data) ::munmap(const_cast<char*>(m_data), m_size);
}

}  // namespace vireo::ir
