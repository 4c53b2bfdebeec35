// System shared memory regions: shm_open + fstat + mmap on register, munmap when the last user
// lets go, and the bounds and size checks of tensors read from and written to them.
#include "shared_memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tensor_conversion.hpp"

namespace vireo::server {

namespace {

Status invalid(std::string message) {
    return {StatusCode::kInvalidArgument, std::move(message)};
}

std::string quoted(const std::string& name) {
    return "'" + name + "'";
}

Status disabled(const std::string& what) {
    return {StatusCode::kUnavailable,
            what +
                ": system shared memory is off on this server (start vireo_server with "
                "--allow_client_shm to let clients register regions)"};
}

// Closes a descriptor on every path out of register_region.
struct FdCloser {
    int fd;
    ~FdCloser() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

SharedMemoryRegion::SharedMemoryRegion(std::string name, std::string key, uint64_t offset,
                                       uint64_t byte_size, void* mapping, size_t mapping_length,
                                       size_t page_offset, int fd)
    : m_name(std::move(name)),
      m_key(std::move(key)),
      m_offset(offset),
      m_byte_size(byte_size),
      m_mapping(mapping),
      m_mapping_length(mapping_length),
      m_page_offset(page_offset),
      m_fd(fd) {}

Status SharedMemoryRegion::check_backed(const std::string& what) const {
    struct stat info {};
    if (::fstat(m_fd, &info) != 0) {
        return invalid(what + ": cannot stat shared memory object " + quoted(m_key) + ": " +
                       std::strerror(errno));
    }
    const uint64_t size = info.st_size > 0 ? static_cast<uint64_t>(info.st_size) : 0;
    if (size < m_offset + m_byte_size) {
        return invalid(what + ": shared memory object " + quoted(m_key) + " of region " +
                       quoted(m_name) + " was cut to " + std::to_string(size) +
                       " bytes after it was registered; the region needs " +
                       std::to_string(m_offset + m_byte_size));
    }
    return {};
}

SharedMemoryRegion::~SharedMemoryRegion() {
    ::munmap(m_mapping, m_mapping_length);
    ::close(m_fd);
}

Status SharedMemory::register_region(const std::string& name, const std::string& key,
                                     uint64_t offset, uint64_t byte_size) {
    const std::string what = "shared memory region " + quoted(name);
    if (!m_enabled) return disabled(what);
    if (name.empty()) return invalid("a shared memory region needs a name");
    if (key.empty()) return invalid(what + ": the key (shared memory object name) is empty");
    if (byte_size == 0) return invalid(what + ": byte_size must be positive");
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_regions.count(name)) {
            return {StatusCode::kAlreadyExists, what + " is already registered"};
        }
    }
    FdCloser fd{::shm_open(key.c_str(), O_RDWR, 0)};
    if (fd.fd < 0) {
        return invalid(what + ": cannot open shared memory object " + quoted(key) + ": " +
                       std::strerror(errno));
    }
    struct stat info {};
    if (::fstat(fd.fd, &info) != 0) {
        return invalid(what + ": cannot stat shared memory object " + quoted(key) + ": " +
                       std::strerror(errno));
    }
    const uint64_t object_size = info.st_size > 0 ? static_cast<uint64_t>(info.st_size) : 0;
    if (offset > object_size || byte_size > object_size - offset) {
        return invalid(what + ": offset " + std::to_string(offset) + " + byte_size " +
                       std::to_string(byte_size) + " runs past the end of shared memory object " +
                       quoted(key) + " (" + std::to_string(object_size) + " bytes)");
    }
    // mmap wants a page-aligned file offset: map from the page holding `offset`.
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t start = offset - offset % page;
    const size_t page_offset = static_cast<size_t>(offset - start);
    const size_t length = static_cast<size_t>(byte_size) + page_offset;
    void* mapping = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd.fd,
                           static_cast<off_t>(start));
    if (mapping == MAP_FAILED) {
        return invalid(what + ": cannot map shared memory object " + quoted(key) + ": " +
                       std::strerror(errno));
    }
    auto region = std::make_shared<const SharedMemoryRegion>(name, key, offset, byte_size, mapping,
                                                             length, page_offset, fd.fd);
    fd.fd = -1;  // the region owns it now
    std::lock_guard<std::mutex> lock(m_mutex);
    // Another register of the same name may have won while this one mapped: that one stays and
    // this mapping goes with `region`.
    if (!m_regions.emplace(name, std::move(region)).second) {
        return {StatusCode::kAlreadyExists, what + " is already registered"};
    }
    return {};
}

void SharedMemory::unregister(const std::string& name) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (name.empty())
        m_regions.clear();
    else
        m_regions.erase(name);
}

Status SharedMemory::status(const std::string& name,
                            std::vector<std::shared_ptr<const SharedMemoryRegion>>& out) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (name.empty()) {
        for (const auto& entry : m_regions) out.push_back(entry.second);
        return {};
    }
    auto it = m_regions.find(name);
    if (it == m_regions.end()) {
        return {StatusCode::kNotFound,
                "shared memory region " + quoted(name) + " is not registered"};
    }
    out.push_back(it->second);
    return {};
}

Status SharedMemory::resolve(const std::string& tensor, const SharedMemoryParams& params,
                             SharedMemoryRef& out) const {
    if (!m_enabled) return disabled(tensor);
    if (!params.region || !params.byte_size) {
        return invalid(tensor +
                       ": shared_memory_region and shared_memory_byte_size must be given together"
                       " (shared_memory_offset is optional)");
    }
    const std::string& name = *params.region;
    if (*params.byte_size < 0 || params.offset.value_or(0) < 0) {
        return invalid(tensor + ": shared_memory_byte_size and shared_memory_offset for region " +
                       quoted(name) + " must not be negative");
    }
    std::shared_ptr<const SharedMemoryRegion> region;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_regions.find(name);
        if (it != m_regions.end()) region = it->second;
    }
    if (!region) {
        return {StatusCode::kNotFound,
                tensor + ": shared memory region " + quoted(name) + " is not registered"};
    }
    const auto offset = static_cast<uint64_t>(params.offset.value_or(0));
    const auto size = static_cast<uint64_t>(*params.byte_size);
    if (offset > region->byte_size() || size > region->byte_size() - offset) {
        return invalid(tensor + ": shared_memory_offset " + std::to_string(offset) +
                       " + shared_memory_byte_size " + std::to_string(size) +
                       " runs past the end of shared memory region " + quoted(name) + " (" +
                       std::to_string(region->byte_size()) + " bytes)");
    }
    out.region = std::move(region);
    out.offset = offset;
    out.byte_size = size;
    return {};
}

Status read_shared_memory_input(const std::string& name, const SharedMemoryRef& ref,
                                Tensor& tensor) {
    Status backed = ref.region->check_backed("input " + quoted(name));
    if (!backed.ok()) return backed;
    // fill_raw checks the declared size against shape x datatype and names this field.
    return fill_raw("input " + quoted(name) + " in shared memory region " +
                        quoted(ref.region->name()) + " (shared_memory_byte_size)",
                    tensor, ref.region->data() + ref.offset, static_cast<size_t>(ref.byte_size));
}

Status write_shared_memory_outputs(const SharedMemoryOutputs& targets,
                                   const std::vector<OutputData>& outputs) {
    for (const auto& out : outputs) {
        auto it = targets.find(out.name);
        if (it == targets.end()) continue;
        if (out.bytes.size() > it->second.byte_size) {
            return invalid(
                "output " + quoted(out.name) + " needs " + std::to_string(out.bytes.size()) +
                " bytes, its shared_memory_byte_size in region " +
                quoted(it->second.region->name()) + " is " + std::to_string(it->second.byte_size));
        }
        Status backed = it->second.region->check_backed("output " + quoted(out.name));
        if (!backed.ok()) return backed;
    }
    for (const auto& out : outputs) {
        auto it = targets.find(out.name);
        if (it == targets.end() || out.bytes.empty()) continue;
        std::memcpy(it->second.region->data() + it->second.offset, out.bytes.data(),
                    out.bytes.size());
    }
    return {};
}

}  // namespace vireo::server
