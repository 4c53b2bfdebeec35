// Declares ZeroedBuffer: zero-filled bytes, 64-byte aligned, with large buffers backed by
// transparent huge pages where the kernel allows it (device buffers, imported weights).
#pragma once

#include <cstddef>

namespace vireo::mock_remote {

/// Zero-filled bytes at a 64-byte aligned address: the simulated device's buffers
/// (DeviceStorage) and the weights an import reads, which the model's Constants share.
///
/// Buffers of kLargeBytes or more are private anonymous mappings (the kernel hands them out
/// zero-filled, so nothing is written twice), aligned to kLargeBytes and advised to use
/// transparent huge pages. Weights are written once per compile or import into memory no one
/// touched before: in 4 KiB pages each 4 MiB of them took 1,024 page faults, which on a virtual
/// machine cost about 12 ms; in huge pages it takes two. Smaller buffers come from the heap.
///
/// Not copyable or movable (holders share it through a shared_ptr). Not thread-safe by itself.
class ZeroedBuffer {
  public:
    static constexpr size_t kLargeBytes = size_t{2} << 20;  // a huge page on x86-64 and arm64
    static constexpr size_t kAlignment = 64;

    /// Throws std::bad_alloc when the memory cannot be had.
    explicit ZeroedBuffer(size_t bytes);
    ~ZeroedBuffer();
    ZeroedBuffer(const ZeroedBuffer&) = delete;
    ZeroedBuffer& operator=(const ZeroedBuffer&) = delete;

    std::byte* data() { return m_data; }
    const std::byte* data() const { return m_data; }
    size_t size() const { return m_size; }

  private:
    std::byte* m_data = nullptr;
    size_t m_size = 0;
    size_t m_mapped = 0;  // length of the mapping at m_data; 0 for heap memory
};

}  // namespace vireo::mock_remote
