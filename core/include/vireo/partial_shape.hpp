// Declares Dimension and PartialShape: shapes that may be dynamic, bounded or of unknown rank.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "vireo/shape.hpp"

namespace vireo {

/// One axis of a PartialShape: a static size, an interval [min, max], or fully dynamic.
/// Text forms (as IR and command lines write them): "5", "?" or "-1", "1..10", "2..", "..8".
class Dimension {
  public:
    using value_type = int64_t;
    static constexpr value_type kInfinity = INT64_MAX;

    /// Dynamic: [0, infinity).
    Dimension() = default;
    /// Static size; -1 means dynamic. Throws InvalidArgument for values below -1.
    Dimension(value_type size);  // NOLINT: implicit so {1, 3, 224, 224} builds a PartialShape
    /// Interval [min, max]; max may be kInfinity. Throws InvalidArgument if min > max or min < 0.
    Dimension(value_type min, value_type max);

    static Dimension dynamic() { return Dimension(); }
    /// Parses the text forms above. Throws InvalidArgument naming the text.
    static Dimension parse(std::string_view text);

    bool is_static() const { return m_min == m_max; }
    bool is_dynamic() const { return !is_static(); }
    /// The size of a static dimension; throws InvalidArgument if dynamic.
    value_type get_length() const;
    value_type get_min_length() const { return m_min; }
    value_type get_max_length() const { return m_max; }
    bool is_bounded() const { return m_max != kInfinity; }

    /// True if some value satisfies both dimensions.
    bool compatible(const Dimension& other) const;
    /// True if every value of `other` is allowed by this one (e.g. "1..10" relaxes "5").
    bool relaxes(const Dimension& other) const;
    /// Intersection of the two dimensions into dst; false when they do not intersect.
    static bool merge(Dimension& dst, const Dimension& a, const Dimension& b);
    /// Numpy broadcast of two dimensions into dst; false when they cannot broadcast.
    static bool broadcast_merge(Dimension& dst, const Dimension& a, const Dimension& b);

    Dimension operator+(const Dimension& other) const;
    Dimension operator-(const Dimension& other) const;
    Dimension operator*(const Dimension& other) const;
    bool operator==(const Dimension& other) const {
        return m_min == other.m_min && m_max == other.m_max;
    }
    bool operator!=(const Dimension& other) const { return !(*this == other); }

    std::string to_string() const;

  private:
    value_type m_min = 0;
    value_type m_max = kInfinity;
};

std::ostream& operator<<(std::ostream& out, const Dimension& dim);

/// A shape whose rank and dimensions may be partly unknown.
///
///     PartialShape p = PartialShape::parse("?,3,224..512,224..512");
///     p.rank().is_static();            // true
///     p.relaxes(Shape{1, 3, 300, 300}); // true
class PartialShape {
  public:
    /// A scalar (rank 0, static).
    PartialShape() = default;
    PartialShape(std::initializer_list<Dimension> dims) : m_dims(dims) {}
    PartialShape(std::vector<Dimension> dims) : m_dims(std::move(dims)) {}  // NOLINT
    PartialShape(const Shape& shape);                                       // NOLINT
    PartialShape(const std::vector<int64_t>& dims);                         // NOLINT: -1 = dynamic

    static PartialShape dynamic(std::optional<size_t> rank = std::nullopt);
    /// Parses "1,3,224,224", "[1,3,?,-1]", "1..10,3", "?", "..." (dynamic rank), "" or "[]"
    /// (scalar). Spaces are ignored. Throws InvalidArgument naming the text.
    static PartialShape parse(std::string_view text);

    bool rank_is_static() const { return !m_dynamic_rank; }
    /// Rank as a Dimension (dynamic when the rank is unknown).
    Dimension rank() const;
    /// Number of axes; throws InvalidArgument if the rank is dynamic.
    size_t size() const;
    bool is_static() const;
    bool is_dynamic() const { return !is_static(); }
    /// Static shape; throws InvalidArgument naming this shape if any dimension is dynamic.
    Shape to_shape() const;
    /// Shape made of each dimension's upper bound; throws if any is unbounded.
    Shape get_max_shape() const;

    bool compatible(const PartialShape& other) const;
    bool relaxes(const PartialShape& other) const;
    bool same_scheme(const PartialShape& other) const;
    /// Intersection into dst; false on conflict.
    static bool merge_into(PartialShape& dst, const PartialShape& src);
    /// Numpy-broadcast of dst and src into dst; false when they cannot broadcast.
    static bool broadcast_merge_into(PartialShape& dst, const PartialShape& src);

    Dimension& operator[](size_t i);
    const Dimension& operator[](size_t i) const;
    const std::vector<Dimension>& dims() const { return m_dims; }
    std::vector<Dimension>::const_iterator begin() const { return m_dims.begin(); }
    std::vector<Dimension>::const_iterator end() const { return m_dims.end(); }
    void push_back(const Dimension& d) { m_dims.push_back(d); }
    void insert(size_t pos, const Dimension& d) {
        m_dims.insert(m_dims.begin() + static_cast<long>(pos), d);
    }
    void erase(size_t pos) { m_dims.erase(m_dims.begin() + static_cast<long>(pos)); }

    bool operator==(const PartialShape& other) const {
        return m_dynamic_rank == other.m_dynamic_rank && m_dims == other.m_dims;
    }
    bool operator!=(const PartialShape& other) const { return !(*this == other); }

    /// "[1,3,?,1..10]" or "[...]" for dynamic rank.
    std::string to_string() const;

  private:
    bool m_dynamic_rank = false;
    std::vector<Dimension> m_dims;
};

std::ostream& operator<<(std::ostream& out, const PartialShape& shape);

/// Normalises an axis that may be negative against `rank`; throws InvalidArgument naming `what`
/// when it is out of [-rank, rank).
size_t normalize_axis(int64_t axis, int64_t rank, const std::string& what);

}  // namespace vireo
