// Declares DeviceMemory: the simulated device's own memory space, addressed by handles, never by
// host pointers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "vireo/sdk/memory_limits.hpp"
#include "zeroed_buffer.hpp"

namespace vireo::mock_remote {

using sdk::physical_memory_bytes;  // no buffer may be larger (checked before allocating)

/// The bytes of one device buffer, zero-filled when created. Only the device (its worker, and
/// the transfer functions of Device) touches them; the host holds handles.
using DeviceStorage = ZeroedBuffer;

/// A device address. 0 is never a valid handle.
using BufferHandle = uint64_t;

/// Device-owned map of handles to byte buffers, with accounting. A buffer freed while a job
/// still uses it stays alive for that job (the job resolved it to a shared storage) but no
/// longer counts as allocated and can no longer be resolved.
///
/// Thread-safe: every method may be called from any thread.
class DeviceMemory {
  public:
    /// A new zero-filled buffer of `bytes` bytes (0 allowed). Throws InvalidArgument if `bytes`
    /// exceeds physical_memory_bytes().
    BufferHandle allocate(size_t bytes);
    /// Frees `handle`. Unknown handles are ignored (double free is harmless), so RAII owners may
    /// free during teardown without coordination.
    void free(BufferHandle handle);
    /// The storage behind `handle`, or null when it was freed or never existed.
    std::shared_ptr<DeviceStorage> resolve(BufferHandle handle) const;

    size_t allocated_bytes() const;
    size_t buffer_count() const;

  private:
    mutable std::mutex m_mutex;
    std::unordered_map<BufferHandle, std::shared_ptr<DeviceStorage>> m_buffers;
    BufferHandle m_next = 1;
    size_t m_allocated = 0;
};

}  // namespace vireo::mock_remote
