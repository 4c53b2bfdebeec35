// Declares MemoryStreamBuf: an input stream buffer over bytes someone else owns, so that a blob
// payload already in memory reaches a plugin's import_model without another copy.
#pragma once

#include <cstddef>
#include <streambuf>

namespace vireo::runtime {

/// Reads `size` bytes at `data` (which must outlive the buffer and the streams using it). Supports
/// tellg/seekg within those bytes, so readers can check how much is left before allocating.
class MemoryStreamBuf : public std::streambuf {
  public:
    MemoryStreamBuf(const char* data, size_t size) {
        char* begin = const_cast<char*>(data);  // read-only: no put area is ever set
        setg(begin, begin, begin + size);
    }

  protected:
    pos_type seekoff(off_type offset, std::ios_base::seekdir direction,
                     std::ios_base::openmode which) override {
        if (!(which & std::ios_base::in)) return pos_type(off_type(-1));
        const off_type size = egptr() - eback();
        const off_type base = direction == std::ios_base::beg   ? 0
                              : direction == std::ios_base::cur ? gptr() - eback()
                                                                : size;
        const off_type target = base + offset;
        if (target < 0 || target > size) return pos_type(off_type(-1));
        setg(eback(), eback() + target, egptr());
        return pos_type(target);
    }
    pos_type seekpos(pos_type position, std::ios_base::openmode which) override {
        return seekoff(off_type(position), std::ios_base::beg, which);
    }
};

}  // namespace vireo::runtime
