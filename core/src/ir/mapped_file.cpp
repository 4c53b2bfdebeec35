// Implements MappedFile over POSIX open/fstat and either mmap or read.
#include "ir/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "vireo/exception.hpp"

namespace vireo::ir {
namespace {

constexpr std::align_val_t kReadAlignment{64};

// Closes the descriptor on every path out of the constructor; the mapping outlives it.
struct FdCloser {
    int fd;
    ~FdCloser() {
        if (fd >= 0) ::close(fd);
    }
};

// Reads exactly `size` bytes at offset 0; a file that shrinks meanwhile is an error.
void read_all(int fd, char* out, size_t size, const std::string& path) {
    size_t done = 0;
    while (done < size) {
        const ssize_t got = ::pread(fd, out + done, size - done, static_cast<off_t>(done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0)
            throw_error<InvalidArgument>("cannot read '", path, "': ", std::strerror(errno));
        if (got == 0)
            throw_error<InvalidArgument>("'", path, "' shrank while being read (", done, " of ",
                                         size, " bytes read)");
        done += static_cast<size_t>(got);
    }
}

}  // namespace

MappedFile::MappedFile(const std::string& path, FileAccess access) : m_path(path) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. It has
    // no effect on regular files, the only kind accepted below.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
    const size_t size = static_cast<size_t>(info.st_size);
    if (access == FileAccess::kRead) {
        char* block = nullptr;
        try {
            block = static_cast<char*>(::operator new(size, kReadAlignment));
        } catch (const std::bad_alloc&) {
            throw_error<InvalidArgument>("cannot allocate ", size, " bytes to read '", path, "'");
        }
        try {
            read_all(fd, block, size, path);
        } catch (...) {
            ::operator delete(block, kReadAlignment);
            throw;
        }
        m_data = block;
        m_size = size;
        return;
    }
    void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (address == MAP_FAILED)
        throw_error<InvalidArgument>("cannot map '", path, "' into memory: ", std::strerror(errno));
    m_data = static_cast<const char*>(address);
    m_size = size;
    m_mapped = true;
}

MappedFile::~MappedFile() {
    if (!m_data) return;
    if (m_mapped)
        ::munmap(const_cast<char*>(m_data), m_size);
    else
        ::operator delete(const_cast<char*>(m_data), kReadAlignment);
}

}  // namespace vireo::ir
