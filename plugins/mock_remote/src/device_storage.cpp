// Implements DeviceStorage: heap memory for small device buffers, aligned anonymous mappings
// advised to use transparent huge pages for large ones.
#include "device_storage.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace vireo::mock_remote {
namespace {

size_t round_up(size_t value, size_t step) {
    return (value + step - 1) / step * step;
}

// A zero-filled mapping of `bytes` (rounded up to pages) starting on a kLargeBytes boundary, so
// that every whole huge page inside it can be one. Maps kLargeBytes more than needed and unmaps
// the unaligned head and the unused tail. Returns null on failure.
std::byte* map_aligned(size_t bytes, size_t& mapped) {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    mapped = round_up(bytes, page);
    const size_t reserved = mapped + DeviceStorage::kLargeBytes;
    void* address =
        ::mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (address == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(address);
    const uintptr_t aligned = round_up(start, DeviceStorage::kLargeBytes);
    if (aligned > start) ::munmap(address, aligned - start);
    const uintptr_t end = aligned + mapped;
    if (start + reserved > end) ::munmap(reinterpret_cast<void*>(end), start + reserved - end);
#ifdef MADV_HUGEPAGE
    // Advice only: without transparent huge pages the mapping works in small pages.
    ::madvise(reinterpret_cast<void*>(aligned), mapped, MADV_HUGEPAGE);
#endif
    return reinterpret_cast<std::byte*>(aligned);
}

}  // namespace

DeviceStorage::DeviceStorage(size_t bytes) : m_size(bytes) {
    if (bytes >= kLargeBytes) {
        m_data = map_aligned(bytes, m_mapped);
    } else {
        // calloc, not new + memset: zero-filled in one step, and for fresh memory the
        // allocator knows it is zero already.
        m_data = static_cast<std::byte*>(std::calloc(bytes ? bytes : 1, 1));
    }
    if (!m_data) throw std::bad_alloc();
}

DeviceStorage::~DeviceStorage() {
    if (m_mapped)
        ::munmap(m_data, m_mapped);
    else
        std::free(m_data);
}

}  // namespace vireo::mock_remote
