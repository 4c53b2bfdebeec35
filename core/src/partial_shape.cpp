// Implements Dimension and PartialShape: parsing, printing, merging and numpy broadcasting.
#include "vireo/partial_shape.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "vireo/exception.hpp"

namespace vireo {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() &&
           (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool parse_int(std::string_view s, int64_t& out) {
    s = trim(s);
    if (s.empty()) return false;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && ptr == s.data() + s.size();
}

int64_t add_sat(int64_t a, int64_t b) {
    if (a == Dimension::kInfinity || b == Dimension::kInfinity) return Dimension::kInfinity;
    if (a > Dimension::kInfinity - b) return Dimension::kInfinity;
    return a + b;
}

int64_t mul_sat(int64_t a, int64_t b) {
    if (a == 0 || b == 0) return 0;
    if (a == Dimension::kInfinity || b == Dimension::kInfinity) return Dimension::kInfinity;
    if (a > Dimension::kInfinity / b) return Dimension::kInfinity;
    return a * b;
}

}  // namespace

Dimension::Dimension(value_type size) {
    if (size == -1) return;
    if (size < -1)
        throw_error<InvalidArgument>("dimension ", size,
                                     " is invalid (must be >= -1, where -1 is dynamic)");
    m_min = m_max = size;
}

Dimension::Dimension(value_type min, value_type max) {
    if (min < 0 || max < 0 || min > max)
        throw_error<InvalidArgument>("dimension interval [", min, ", ", max, "] is invalid");
    m_min = min;
    m_max = max;
}

Dimension Dimension::parse(std::string_view text) {
    const std::string_view t = trim(text);
    if (t == "?" || t == "-1") return Dimension();
    const auto dots = t.find("..");
    int64_t v = 0;
    if (dots == std::string_view::npos) {
        if (!parse_int(t, v) || v < 0)
            throw_error<InvalidArgument>("cannot read dimension '", text,
                                         "' (expected N, ?, -1 or min..max)");
        return Dimension(v);
    }
    const auto lo = trim(t.substr(0, dots));
    const auto hi = trim(t.substr(dots + 2));
    int64_t min = 0, max = kInfinity;
    if (!lo.empty() && (!parse_int(lo, min) || min < 0))
        throw_error<InvalidArgument>("cannot read dimension '", text, "': bad lower bound");
    if (!hi.empty() && (!parse_int(hi, max) || max < 0))
        throw_error<InvalidArgument>("cannot read dimension '", text, "': bad upper bound");
    if (min > max)
        throw_error<InvalidArgument>("cannot read dimension '", text,
                                     "': lower bound above upper bound");
    return Dimension(min, max);
}

Dimension::value_type Dimension::get_length() const {
    if (!is_static())
        throw_error<InvalidArgument>("dimension ", to_string(),
                                     " is dynamic; a static length was expected");
    return m_min;
}

bool Dimension::compatible(const Dimension& other) const {
    return std::max(m_min, other.m_min) <= std::min(m_max, other.m_max);
}

bool Dimension::relaxes(const Dimension& other) const {
    return m_min <= other.m_min && m_max >= other.m_max;
}

bool Dimension::merge(Dimension& dst, const Dimension& a, const Dimension& b) {
    const int64_t lo = std::max(a.m_min, b.m_min);
    const int64_t hi = std::min(a.m_max, b.m_max);
    if (lo > hi) return false;
    dst.m_min = lo;
    dst.m_max = hi;
    return true;
}

bool Dimension::broadcast_merge(Dimension& dst, const Dimension& a, const Dimension& b) {
    if (a.is_static() && a.m_min == 1) {
        dst = b;
        return true;
    }
    if (b.is_static() && b.m_min == 1) {
        dst = a;
        return true;
    }
    if (a.is_dynamic() && b.is_dynamic()) {
        // Either may turn out to be 1; the result is anything either allows.
        dst = Dimension(std::min(a.m_min, b.m_min), std::max(a.m_max, b.m_max));
        return true;
    }
    if (a.is_dynamic() || b.is_dynamic()) {
        const Dimension& s = a.is_static() ? a : b;
        const Dimension& d = a.is_static() ? b : a;
        // d is 1 (broadcast) or equal to s.
        if (!d.compatible(s) && !d.compatible(Dimension(1))) return false;
        dst = s;
        return true;
    }
    return merge(dst, a, b);
}

Dimension Dimension::operator+(const Dimension& o) const {
    return Dimension(add_sat(m_min, o.m_min), add_sat(m_max, o.m_max));
}

Dimension Dimension::operator-(const Dimension& o) const {
    if (is_static() && o.is_static()) return Dimension(std::max<int64_t>(m_min - o.m_min, 0));
    const int64_t lo = o.m_max == kInfinity ? 0 : std::max<int64_t>(m_min - o.m_max, 0);
    const int64_t hi = m_max == kInfinity ? kInfinity : std::max<int64_t>(m_max - o.m_min, 0);
    return Dimension(lo, std::max(lo, hi));
}

Dimension Dimension::operator*(const Dimension& o) const {
    return Dimension(mul_sat(m_min, o.m_min), mul_sat(m_max, o.m_max));
}

std::string Dimension::to_string() const {
    if (is_static()) return std::to_string(m_min);
    if (m_min == 0 && m_max == kInfinity) return "?";
    std::string out = m_min == 0 ? "" : std::to_string(m_min);
    out += "..";
    if (m_max != kInfinity) out += std::to_string(m_max);
    return out;
}

std::ostream& operator<<(std::ostream& out, const Dimension& dim) {
    return out << dim.to_string();
}

PartialShape::PartialShape(const Shape& shape) {
    m_dims.reserve(shape.size());
    for (size_t d : shape) {
        if (d > static_cast<size_t>(Dimension::kInfinity - 1))
            throw_error<InvalidArgument>("dimension ", d, " is too large");
        m_dims.emplace_back(static_cast<int64_t>(d));
    }
}

PartialShape::PartialShape(const std::vector<int64_t>& dims) {
    m_dims.reserve(dims.size());
    for (int64_t d : dims) m_dims.emplace_back(d);
}

PartialShape PartialShape::dynamic(std::optional<size_t> rank) {
    PartialShape p;
    if (rank) {
        p.m_dims.assign(*rank, Dimension());
    } else {
        p.m_dynamic_rank = true;
    }
    return p;
}

PartialShape PartialShape::parse(std::string_view text) {
    std::string_view t = trim(text);
    if (!t.empty() && t.front() == '[') {
        if (t.back() != ']')
            throw_error<InvalidArgument>("cannot read shape '", text, "': missing ']'");
        t = trim(t.substr(1, t.size() - 2));
    }
    if (t.empty()) return PartialShape();
    if (t == "...") return dynamic();
    PartialShape p;
    size_t start = 0;
    while (true) {
        const size_t comma = t.find(',', start);
        const auto item = t.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        try {
            p.m_dims.push_back(Dimension::parse(item));
        } catch (const Exception& e) {
            throw_error<InvalidArgument>("cannot read shape '", text, "': ", e.what());
        }
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return p;
}

Dimension PartialShape::rank() const {
    return m_dynamic_rank ? Dimension() : Dimension(static_cast<int64_t>(m_dims.size()));
}

size_t PartialShape::size() const {
    if (m_dynamic_rank) throw_error<InvalidArgument>("shape of dynamic rank has no size");
    return m_dims.size();
}

bool PartialShape::is_static() const {
    return !m_dynamic_rank && std::all_of(m_dims.begin(), m_dims.end(),
                                          [](const Dimension& d) { return d.is_static(); });
}

Shape PartialShape::to_shape() const {
    if (!is_static())
        throw_error<InvalidArgument>("shape ", to_string(),
                                     " is dynamic; a static shape was expected");
    Shape s;
    s.reserve(m_dims.size());
    for (const auto& d : m_dims) s.push_back(static_cast<size_t>(d.get_length()));
    return s;
}

Shape PartialShape::get_max_shape() const {
    if (m_dynamic_rank) throw_error<InvalidArgument>("shape of dynamic rank has no upper bound");
    Shape s;
    for (const auto& d : m_dims) {
        if (!d.is_bounded())
            throw_error<InvalidArgument>("shape ", to_string(), " has an unbounded dimension");
        s.push_back(static_cast<size_t>(d.get_max_length()));
    }
    return s;
}

bool PartialShape::compatible(const PartialShape& other) const {
    if (m_dynamic_rank || other.m_dynamic_rank) return true;
    if (m_dims.size() != other.m_dims.size()) return false;
    for (size_t i = 0; i < m_dims.size(); ++i)
        if (!m_dims[i].compatible(other.m_dims[i])) return false;
    return true;
}

bool PartialShape::relaxes(const PartialShape& other) const {
    if (m_dynamic_rank) return true;
    if (other.m_dynamic_rank || m_dims.size() != other.m_dims.size()) return false;
    for (size_t i = 0; i < m_dims.size(); ++i)
        if (!m_dims[i].relaxes(other.m_dims[i])) return false;
    return true;
}

bool PartialShape::same_scheme(const PartialShape& other) const {
    return *this == other;
}

bool PartialShape::merge_into(PartialShape& dst, const PartialShape& src) {
    if (dst.m_dynamic_rank) {
        dst = src;
        return true;
    }
    if (src.m_dynamic_rank) return true;
    if (dst.m_dims.size() != src.m_dims.size()) return false;
    for (size_t i = 0; i < dst.m_dims.size(); ++i)
        if (!Dimension::merge(dst.m_dims[i], dst.m_dims[i], src.m_dims[i])) return false;
    return true;
}

bool PartialShape::broadcast_merge_into(PartialShape& dst, const PartialShape& src) {
    if (dst.m_dynamic_rank || src.m_dynamic_rank) {
        dst = dynamic();
        return true;
    }
    const size_t rank = std::max(dst.m_dims.size(), src.m_dims.size());
    std::vector<Dimension> out(rank);
    for (size_t i = 0; i < rank; ++i) {
        const size_t from_end = rank - 1 - i;
        const Dimension a = from_end < dst.m_dims.size()
                                ? dst.m_dims[dst.m_dims.size() - 1 - from_end]
                                : Dimension(1);
        const Dimension b = from_end < src.m_dims.size()
                                ? src.m_dims[src.m_dims.size() - 1 - from_end]
                                : Dimension(1);
        if (!Dimension::broadcast_merge(out[i], a, b)) return false;
    }
    dst.m_dims = std::move(out);
    return true;
}

Dimension& PartialShape::operator[](size_t i) {
    if (m_dynamic_rank || i >= m_dims.size())
        throw_error<InvalidArgument>("axis ", i, " is out of range for shape ", to_string());
    return m_dims[i];
}

const Dimension& PartialShape::operator[](size_t i) const {
    if (m_dynamic_rank || i >= m_dims.size())
        throw_error<InvalidArgument>("axis ", i, " is out of range for shape ", to_string());
    return m_dims[i];
}

std::string PartialShape::to_string() const {
    if (m_dynamic_rank) return "[...]";
    std::string out = "[";
    for (size_t i = 0; i < m_dims.size(); ++i) {
        if (i) out += ',';
        out += m_dims[i].to_string();
    }
    return out + "]";
}

std::ostream& operator<<(std::ostream& out, const PartialShape& shape) {
    return out << shape.to_string();
}

size_t normalize_axis(int64_t axis, int64_t rank, const std::string& what) {
    if (axis < -rank || axis >= rank)
        throw_error<InvalidArgument>(what, ": axis ", axis, " is out of range [", -rank, ", ",
                                     rank - 1, "]");
    return static_cast<size_t>(axis < 0 ? axis + rank : axis);
}

}  // namespace vireo
