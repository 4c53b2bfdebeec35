// Declares MappedFile, the whole contents of a file (the IR's .xml or .bin), either mapped
// read-only or read into memory the object owns.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace vireo::ir {

/// How MappedFile holds a file's bytes.
enum class FileAccess {
    kMap,   ///< mmap(PROT_READ, MAP_PRIVATE): nothing is copied, but a later truncation or
            ///< in-place rewrite of the file shows through (SIGBUS or changed bytes)
    kRead,  ///< read() into an owned, 64-byte aligned block: later changes to the file do not
            ///< matter
};

/// The contents of `path` for the life of the object. A 0-byte file is valid and holds nothing
/// (data() is nullptr, size() is 0). Not copyable or movable: share it through a shared_ptr,
/// which is what Constants hold as their owner.
///
/// The file is opened non-blocking and its type checked before any read, so a FIFO, socket or
/// device is refused at once instead of blocking the caller.
/// Throws NotFound if the file does not exist, InvalidArgument if it is not a regular file or
/// cannot be opened, read, mapped or allocated (the message names the path and the reason).
class MappedFile {
  public:
    explicit MappedFile(const std::string& path, FileAccess access = FileAccess::kMap);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const char* data() const { return m_data; }
    size_t size() const { return m_size; }
    const std::string& path() const { return m_path; }
    /// True when data() points into a mapping of the file rather than owned memory.
    bool is_mapped() const { return m_mapped; }

  private:
    std::string m_path;
    const char* m_data = nullptr;
    size_t m_size = 0;
    bool m_mapped = false;
};

}  // namespace vireo::ir
