// Declares DeviceStorage: the zero-filled bytes of one simulated device buffer, with large
// buffers backed by transparent huge pages where the kernel allows it.
#pragma once

#include <cstddef>

namespace vireo::mock_remote {

/// The bytes of one device buffer, zero-filled when created. Only the device (its worker, and
/// the transfer functions of Device) touches them; the host holds handles (see DeviceMemory).
///
/// Buffers of kLargeBytes or more are private anonymous mappings (the kernel hands them out
/// zero-filled, so nothing is written twice), aligned to kLargeBytes and advised to use
/// transparent huge pages. Weights are uploaded once per compile or import, into memory no one
/// touched before: in 4 KiB pages each 4 MiB buffer took 1,024 page faults, which on a virtual
/// machine cost about 12 ms; in huge pages it takes two. Smaller buffers come from the heap.
///
/// Not copyable or movable (jobs hold it through a shared_ptr). Not thread-safe by itself.
class DeviceStorage {
  public:
    static constexpr size_t kLargeBytes = size_t{2} << 20;  // a huge page on x86-64 and arm64

    /// Throws std::bad_alloc when the memory cannot be had.
    explicit DeviceStorage(size_t bytes);
    ~DeviceStorage();
    DeviceStorage(const DeviceStorage&) = delete;
    DeviceStorage& operator=(const DeviceStorage&) = delete;

    std::byte* data() { return m_data; }
    const std::byte* data() const { return m_data; }
    size_t size() const { return m_size; }

  private:
    std::byte* m_data = nullptr;
    size_t m_size = 0;
    size_t m_mapped = 0;  // length of the mapping at m_data; 0 for heap memory
};

}  // namespace vireo::mock_remote
