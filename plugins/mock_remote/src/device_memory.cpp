// Implements DeviceMemory: handle allocation, lookup and accounting of the simulated device memory.
#include "device_memory.hpp"

#include "vireo/exception.hpp"

namespace vireo::mock_remote {

BufferHandle DeviceMemory::allocate(size_t bytes) {
    if (bytes > physical_memory_bytes())
        throw_error<InvalidArgument>("MOCK_REMOTE device memory: cannot allocate ", bytes,
                                     " bytes, more than the ", physical_memory_bytes(),
                                     " bytes of memory this machine has");
    // Allocate outside the lock: zero-filling a large buffer should not stall other users.
    auto storage = std::make_shared<DeviceStorage>(bytes);
    std::lock_guard<std::mutex> lock(m_mutex);
    const BufferHandle handle = m_next++;
    m_buffers.emplace(handle, std::move(storage));
    m_allocated += bytes;
    return handle;
}

void DeviceMemory::free(BufferHandle handle) {
    std::shared_ptr<DeviceStorage> released;  // destroyed after the lock is dropped
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_buffers.find(handle);
    if (it == m_buffers.end()) return;
    m_allocated -= it->second->size();
    released = std::move(it->second);
    m_buffers.erase(it);
}

std::shared_ptr<DeviceStorage> DeviceMemory::resolve(BufferHandle handle) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_buffers.find(handle);
    return it == m_buffers.end() ? nullptr : it->second;
}

size_t DeviceMemory::allocated_bytes() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_allocated;
}

size_t DeviceMemory::buffer_count() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_buffers.size();
}

}  // namespace vireo::mock_remote
