// Declares read_npy/write_npy: NumPy .npy files (format 1.0-3.0) to and from vireo::Tensor.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "vireo/tensor.hpp"

namespace vireo::npy {

/// Reads a .npy file into a new owning tensor (a FIFO or other non-regular file is refused
/// without blocking; the header is parsed as the dict literal NumPy writes). Supports little-endian
/// dtypes b1, u1, i1, u2, i2, u4, i4, u8, i8, f2, f4, f8 (and '|' byte order), C order, any rank (a
/// scalar has shape
/// ()). Throws InvalidArgument naming the file and the problem (bad magic, unsupported version,
/// Fortran order, big-endian or unknown dtype, malformed header, truncated data) and NotFound
/// when the file cannot be opened.
Tensor read_npy(const std::string& path);
/// Same, from a stream; `name` is used in error messages.
Tensor read_npy(std::istream& in, const std::string& name);
/// Parses a whole .npy image held in memory (for fuzzing and tests).
Tensor read_npy_bytes(const std::string& bytes, const std::string& name = "<memory>");

/// Writes `tensor` (host, any static byte-sized element type) as a version 1.0 .npy file in C
/// order. Strided tensors are written densely. Throws InvalidArgument for types NumPy lacks
/// (bf16, u4, i4, u1) and NotFound if the file cannot be created.
void write_npy(const std::string& path, const Tensor& tensor);
void write_npy(std::ostream& out, const Tensor& tensor);

/// The NumPy dtype string of an element type ("<f4"); throws InvalidArgument if none.
std::string dtype_of(element::Type type);

}  // namespace vireo::npy
