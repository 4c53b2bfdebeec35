// Declares SharedMemory: the system shared memory regions clients registered (Triton's
// system_shared_memory extension), and the checked reads and writes of tensors in them that the
// gRPC and REST front ends share.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "infer_job.hpp"
#include "status.hpp"
#include "vireo/tensor.hpp"

namespace vireo::server {

/// One registered region: the window [offset, offset + byte_size) of the POSIX shared memory
/// object `key`, mapped read-write into the server. The mapping (and the object's descriptor,
/// which `check_backed` reads) is released when the last shared_ptr to the region goes, so a
/// request that holds one keeps it usable after an unregister.
class SharedMemoryRegion {
  public:
    /// Takes ownership of `fd`, the object's descriptor.
    SharedMemoryRegion(std::string name, std::string key, uint64_t offset, uint64_t byte_size,
                       void* mapping, size_t mapping_length, size_t page_offset, int fd);
    ~SharedMemoryRegion();
    SharedMemoryRegion(const SharedMemoryRegion&) = delete;
    SharedMemoryRegion& operator=(const SharedMemoryRegion&) = delete;

    const std::string& name() const { return m_name; }
    const std::string& key() const { return m_key; }
    uint64_t offset() const { return m_offset; }
    uint64_t byte_size() const { return m_byte_size; }
    /// The region's first byte (the object's byte `offset`).
    char* data() const { return static_cast<char*>(m_mapping) + m_page_offset; }
    /// Whether the object still holds the whole window: a client that shrank it (ftruncate)
    /// after registering would make an access past its new end fault (SIGBUS). kInvalidArgument
    /// naming `what`, the region and the sizes when it does not. Checked right before every read
    /// and write; a client that shrinks the object during the copy itself still faults the server.
    Status check_backed(const std::string& what) const;

  private:
    std::string m_name;
    std::string m_key;
    uint64_t m_offset;
    uint64_t m_byte_size;
    void* m_mapping;  // mmap's result: starts at the page holding `offset`
    size_t m_mapping_length;
    size_t m_page_offset;  // offset - the page-aligned start of the mapping
    int m_fd;              // the object, open for check_backed
};

/// The shared_memory_* parameters of one input or requested output, as the request gave them
/// (each may be absent); the front ends fill it from protobuf or JSON parameters.
struct SharedMemoryParams {
    std::optional<std::string> region;
    std::optional<int64_t> byte_size;
    std::optional<int64_t> offset;

    bool any() const { return region || byte_size || offset; }
};

/// Where a tensor lives in a region. Holding `region` keeps its mapping alive for the request.
struct SharedMemoryRef {
    std::shared_ptr<const SharedMemoryRegion> region;
    uint64_t offset = 0;     // into the region
    uint64_t byte_size = 0;  // as the request declared it
};

/// Requested outputs that go to shared memory instead of the response, by output name.
using SharedMemoryOutputs = std::map<std::string, SharedMemoryRef>;

/// Usage (what the front ends do):
///
///     SharedMemory shm;
///     Status s = shm.register_region("in", "/my_shm", 0, 4096);   // after the client's shm_open
///     SharedMemoryRef ref;
///     s = shm.resolve("input 'x'", params, ref);                    // in an infer request
///     s = read_shared_memory_input("x", ref, tensor);              // copies into the tensor
///     shm.unregister("in");                                         // ref stays valid
///
/// Thread safety: every method may be called from any thread at once (one mutex guards the
/// name table; reads and writes of region bytes take no lock: the client owns their contents).
/// Errors: kAlreadyExists for a name in use; kNotFound for an unknown region (status, resolve);
/// kInvalidArgument for a key that cannot be opened or mapped, a window past the object's end,
/// bad parameters or sizes, naming the region and the tensor.
class SharedMemory {
  public:
    /// `enabled` false (vireo_server without --allow_client_shm): register_region and resolve
    /// answer kUnavailable saying how to turn the extension on; status lists nothing.
    explicit SharedMemory(bool enabled = true) : m_enabled(enabled) {}
    SharedMemory(const SharedMemory&) = delete;
    SharedMemory& operator=(const SharedMemory&) = delete;

    /// Opens the POSIX shared memory object `key` (shm_open, O_RDWR), checks it holds at least
    /// offset + byte_size bytes and maps that window under `name`. byte_size must be positive.
    /// The object may be unlinked by its creator afterwards: the mapping stays.
    Status register_region(const std::string& name, const std::string& key, uint64_t offset,
                           uint64_t byte_size);
    /// Forgets region `name` (every region when empty). Requests that hold it finish with the
    /// mapping they have; the unmap happens when the last one ends. An unknown name is not an
    /// error (as in Triton: unregistering is idempotent).
    void unregister(const std::string& name);
    /// Region `name`, or every region (sorted by name) when `name` is empty; kNotFound for an
    /// unknown name.
    Status status(const std::string& name,
                  std::vector<std::shared_ptr<const SharedMemoryRegion>>& out) const;
    /// Checks `params` (region and byte size together, offset optional, none negative), finds the
    /// region and checks offset + byte_size lies inside it. `tensor` ("input 'x'", "output 'y'")
    /// starts every error message.
    Status resolve(const std::string& tensor, const SharedMemoryParams& params,
                   SharedMemoryRef& out) const;

    bool enabled() const { return m_enabled; }

  private:
    const bool m_enabled;
    mutable std::mutex m_mutex;
    std::map<std::string, std::shared_ptr<const SharedMemoryRegion>> m_regions;
};

/// Copies input `name`'s bytes from `ref` into `tensor`; kInvalidArgument naming the input and
/// the region when the declared byte size is not the tensor's (shape x datatype).
Status read_shared_memory_input(const std::string& name, const SharedMemoryRef& ref,
                                Tensor& tensor);

/// Writes each output that has an entry in `targets` into its region. Every size is checked
/// before anything is written: an output larger than its declared byte size fails the whole
/// request (kInvalidArgument naming the output and the region) and nothing is written.
Status write_shared_memory_outputs(const SharedMemoryOutputs& targets,
                                   const std::vector<OutputData>& outputs);

}  // namespace vireo::server
