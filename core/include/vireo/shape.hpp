// Declares Shape, Strides and Coordinate: static tensor dimensions and byte strides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

namespace vireo {

/// A static shape: one size per axis. An empty Shape is a scalar (one element).
class Shape : public std::vector<size_t> {
  public:
    using std::vector<size_t>::vector;
    Shape() = default;
    Shape(const std::vector<size_t>& dims) : std::vector<size_t>(dims) {}  // NOLINT
    Shape(std::initializer_list<size_t> dims) : std::vector<size_t>(dims) {}
    size_t rank() const { return size(); }
    std::string to_string() const;
};

/// Byte strides, one per axis (row-major for a contiguous tensor).
class Strides : public std::vector<size_t> {
  public:
    using std::vector<size_t>::vector;
    Strides() = default;
    Strides(std::initializer_list<size_t> s) : std::vector<size_t>(s) {}
};

/// An index per axis (e.g. the begin corner of a region of interest).
using Coordinate = std::vector<size_t>;

/// Number of elements of `shape` (1 for a scalar, 0 when any axis is 0 — even if the product of
/// the others would overflow). Throws InvalidArgument naming the shape when the product
/// overflows size_t.
size_t shape_size(const std::vector<size_t>& shape);

/// Row-major byte strides of `shape` for elements of `element_bytes` bytes.
Strides row_major_strides(const Shape& shape, size_t element_bytes);

std::ostream& operator<<(std::ostream& out, const Shape& shape);

}  // namespace vireo
