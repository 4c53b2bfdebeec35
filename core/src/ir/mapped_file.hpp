// Declares MappedFile, a read-only private memory mapping of a whole file (the IR's .bin).
#pragma once

#include <cstddef>
#include <string>

namespace vireo::ir {

/// Maps `path` read-only (PROT_READ, MAP_PRIVATE) for the life of the object. A 0-byte file is
/// valid and maps nothing (data() is nullptr, size() is 0). Not copyable or movable: share it
/// through a shared_ptr, which is what Constants hold as their owner.
/// Throws NotFound if the file does not exist, InvalidArgument if it is not a regular file or
/// cannot be opened or mapped (the message names the path and the system's reason).
class MappedFile {
public:
    explicit MappedFile(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const char* data() const { return m_data; }
    size_t size() const { return m_size; }
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
    const char* m_data = nullptr;
    size_t m_size = 0;
};

}  // namespace vireo::ir
