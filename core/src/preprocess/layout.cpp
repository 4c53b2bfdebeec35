// Implements vireo::Layout: parsing of the letter and bracket forms, index lookups and the
// canonical string, plus the N/C/D/H/W helpers.
#include "vireo/layout.hpp"

#include <algorithm>
#include <cctype>

#include "vireo/exception.hpp"

namespace vireo {
namespace {

constexpr const char* kUnnamed = "?";

std::string upper(std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

bool is_name(const std::string& token) {
    if (token.empty() || !std::isalpha(static_cast<unsigned char>(token[0]))) return false;
    return std::all_of(token.begin(), token.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    const auto last = text.find_last_not_of(" \t");
    return text.substr(first, last - first + 1);
}

// Splits the text into tokens: names, "?" and "...".
std::vector<std::string> tokenize(const std::string& text) {
    std::vector<std::string> tokens;
    const std::string body = trim(text);
    if (!body.empty() && body.front() == '[') {
        if (body.back() != ']')
            throw_error<InvalidArgument>("layout '", text, "': missing the closing ']'");
        const std::string inner = trim(body.substr(1, body.size() - 2));
        if (inner.empty()) return tokens;  // "[]": a scalar
        size_t start = 0;
        while (true) {
            const size_t comma = inner.find(',', start);
            const std::string token = trim(inner.substr(
                start, comma == std::string::npos ? std::string::npos : comma - start));
            if (token.empty())
                throw_error<InvalidArgument>("layout '", text,
                                             "': an empty dimension name between commas");
            if (token != "..." && token != kUnnamed && !is_name(token))
                throw_error<InvalidArgument>(
                    "layout '", text, "': '", token,
                    "' is not a dimension name (letters, digits, '_'), '?' or '...'");
            tokens.push_back(upper(token));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return tokens;
    }
    for (size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (body.compare(i, 3, "...") == 0) {
            tokens.emplace_back("...");
            i += 2;
        } else if (c == '?') {
            tokens.emplace_back(kUnnamed);
        } else if (std::isalpha(static_cast<unsigned char>(c))) {
            tokens.emplace_back(1, static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
        } else {
            throw_error<InvalidArgument>(
                "layout '", text, "': unexpected character '", c, "' at position ", i,
                " (expected a letter, '?' or '...'; use \"[a,b]\" for longer names)");
        }
    }
    return tokens;
}

}  // namespace

Layout::Layout(const char* text) : Layout(std::string(text ? text : "")) {}

Layout::Layout(const std::string& text) {
    const std::vector<std::string> tokens = tokenize(text);
    if (trim(text).empty()) return;  // "": the empty layout
    m_ellipsis = false;
    std::vector<std::string> seen;
    for (const auto& token : tokens) {
        if (token == "...") {
            if (m_ellipsis)
                throw_error<InvalidArgument>("layout '", text, "': '...' may appear only once");
            m_ellipsis = true;
            continue;
        }
        if (token != kUnnamed) {
            if (std::find(seen.begin(), seen.end(), token) != seen.end())
                throw_error<InvalidArgument>("layout '", text, "': dimension '", token,
                                             "' appears twice");
            seen.push_back(token);
        }
        (m_ellipsis ? m_back : m_front).push_back(token);
    }
}

Layout Layout::scalar() {
    Layout l;
    l.m_ellipsis = false;
    return l;
}

bool Layout::empty() const {
    return m_ellipsis && m_front.empty() && m_back.empty();
}

std::optional<size_t> Layout::rank() const {
    if (m_ellipsis) return std::nullopt;
    return m_front.size();
}

bool Layout::has_dim(const std::string& name) const {
    const std::string key = upper(name);
    if (key == kUnnamed) return false;
    return std::find(m_front.begin(), m_front.end(), key) != m_front.end() ||
           std::find(m_back.begin(), m_back.end(), key) != m_back.end();
}

int64_t Layout::get_index(const std::string& name) const {
    const std::string key = upper(name);
    if (key != kUnnamed) {
        auto front = std::find(m_front.begin(), m_front.end(), key);
        if (front != m_front.end()) return front - m_front.begin();
        auto back = std::find(m_back.begin(), m_back.end(), key);
        if (back != m_back.end())
            return (back - m_back.begin()) - static_cast<int64_t>(m_back.size());
    }
    throw_error<NotFound>("layout '", to_string(), "' has no dimension '", name, "'");
}

bool Layout::fits_rank(size_t rank) const {
    const size_t named = m_front.size() + m_back.size();
    return m_ellipsis ? named <= rank : named == rank;
}

size_t Layout::get_index(const std::string& name, size_t rank) const {
    const int64_t index = get_index(name);
    if (!fits_rank(rank))
        throw_error<InvalidArgument>("layout '", to_string(), "' does not fit a tensor of rank ",
                                     rank);
    return index >= 0 ? static_cast<size_t>(index) : rank - static_cast<size_t>(-index);
}

std::vector<std::string> Layout::names_for_rank(size_t rank) const {
    if (!fits_rank(rank))
        throw_error<InvalidArgument>("layout '", to_string(), "' does not fit a tensor of rank ",
                                     rank);
    std::vector<std::string> names(m_front);
    names.resize(rank - m_back.size(), kUnnamed);
    names.insert(names.end(), m_back.begin(), m_back.end());
    return names;
}

std::string Layout::to_string() const {
    if (empty()) return "";
    if (!m_ellipsis && m_front.empty()) return "[]";
    auto all_short = [](const std::vector<std::string>& names) {
        return std::all_of(names.begin(), names.end(),
                           [](const std::string& n) { return n.size() == 1; });
    };
    std::string out;
    if (all_short(m_front) && all_short(m_back)) {
        for (const auto& n : m_front) out += n;
        if (m_ellipsis) out += "...";
        for (const auto& n : m_back) out += n;
        return out;
    }
    std::vector<std::string> all(m_front);
    if (m_ellipsis) all.emplace_back("...");
    all.insert(all.end(), m_back.begin(), m_back.end());
    out = "[";
    for (size_t i = 0; i < all.size(); ++i) out += (i ? "," : "") + all[i];
    return out + "]";
}

bool Layout::operator==(const Layout& other) const {
    return m_ellipsis == other.m_ellipsis && m_front == other.m_front && m_back == other.m_back;
}

namespace layout {
bool has_batch(const Layout& l) {
    return l.has_dim("N");
}
int64_t batch_idx(const Layout& l) {
    return l.get_index("N");
}
bool has_channels(const Layout& l) {
    return l.has_dim("C");
}
int64_t channels_idx(const Layout& l) {
    return l.get_index("C");
}
bool has_depth(const Layout& l) {
    return l.has_dim("D");
}
int64_t depth_idx(const Layout& l) {
    return l.get_index("D");
}
bool has_height(const Layout& l) {
    return l.has_dim("H");
}
int64_t height_idx(const Layout& l) {
    return l.get_index("H");
}
bool has_width(const Layout& l) {
    return l.has_dim("W");
}
int64_t width_idx(const Layout& l) {
    return l.get_index("W");
}
}  // namespace layout

}  // namespace vireo
