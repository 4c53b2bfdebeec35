// Implements ZeroedBuffer: aligned heap memory for small buffers, aligned anonymous mappings
// advised to use transparent huge pages for large ones.
#include "zeroed_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
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
    const size_t reserved = mapped + ZeroedBuffer::kLargeBytes;
    void* address =
        ::mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (address == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(address);
    const uintptr_t aligned = round_up(start, ZeroedBuffer::kLargeBytes);
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

ZeroedBuffer::ZeroedBuffer(size_t bytes) : m_size(bytes) {
    if (bytes >= kLargeBytes) {
        m_data = map_aligned(bytes, m_mapped);
    } else {
        const size_t rounded = round_up(bytes ? bytes : 1, kAlignment);
        m_data = static_cast<std::byte*>(std::aligned_alloc(kAlignment, rounded));
        if (m_data) std::memset(m_data, 0, rounded);
    }
    if (!m_data) throw std::bad_alloc();
}

ZeroedBuffer::~ZeroedBuffer() {
    if (m_mapped)
        ::munmap(m_data, m_mapped);
    else
        std::free(m_data);
}

}  // namespace vireo::mock_remote
