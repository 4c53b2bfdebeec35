// Implements the IR text codecs: number and list parsing, attribute values, tensor names.
#include "ir/ir_text.hpp"

#include <charconv>

namespace vireo::ir {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

template <typename T>
bool parse_whole(std::string_view text, T& out) {
    text = trim(text);
    if (text.empty()) return false;
    // from_chars rejects a leading '+'; IR writers never emit one, but hand-written files might.
    if (text.front() == '+' && text.size() > 1 && text[1] != '-') text.remove_prefix(1);
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size();
}

[[noreturn]] void expected(const char* what, const std::string& text) {
    throw_error<InvalidArgument>("expected ", what, ", found '", text, "'");
}

}  // namespace

std::string_view trim(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}

bool parse_int64(std::string_view text, int64_t& out) {
    return parse_whole(text, out);
}

bool parse_uint64(std::string_view text, uint64_t& out) {
    // from_chars accepts "-0" for unsigned types on some libraries; refuse any sign explicitly.
    const auto t = trim(text);
    if (!t.empty() && t.front() == '-') return false;
    return parse_whole(t, out);
}

bool parse_double(std::string_view text, double& out) {
    return parse_whole(text, out);
}

std::vector<std::string> split_list(std::string_view text) {
    std::vector<std::string> items;
    if (trim(text).empty()) return items;
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        const auto item = text.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        items.emplace_back(trim(item));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return items;
}

AttrValue parse_attribute(AttrType type, const std::string& text) {
    switch (type) {
        case AttrType::kBool: {
            std::string lower(trim(text));
            for (auto& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            if (lower == "true") return true;
            if (lower == "false") return false;
            expected("'true' or 'false'", text);
        }
        case AttrType::kInt: {
            int64_t v = 0;
            if (!parse_int64(text, v)) expected("an integer", text);
            return v;
        }
        case AttrType::kFloat: {
            double v = 0;
            if (!parse_double(text, v)) expected("a number", text);
            return v;
        }
        case AttrType::kString:
            return text;
        case AttrType::kIntList: {
            std::vector<int64_t> values;
            for (const auto& item : split_list(text)) {
                int64_t v = 0;
                if (!parse_int64(item, v)) expected("a comma-separated list of integers", text);
                values.push_back(v);
            }
            return values;
        }
        case AttrType::kFloatList: {
            std::vector<double> values;
            for (const auto& item : split_list(text)) {
                double v = 0;
                if (!parse_double(item, v)) expected("a comma-separated list of numbers", text);
                values.push_back(v);
            }
            return values;
        }
        case AttrType::kStringList:
            return split_list(text);
        case AttrType::kElementType:
            return element::Type::from_name(trim(text));
        case AttrType::kShape:
            return PartialShape::parse(text);
    }
    throw_error<InvalidArgument>("attribute of unknown kind");
}

std::set<std::string> parse_tensor_names(std::string_view text) {
    std::set<std::string> names;
    std::string current;
    auto flush = [&] {
        auto name = trim(current);
        if (!name.empty()) names.emplace(name);
        current.clear();
    };
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ',') {
            current += ',';
            ++i;
        } else if (text[i] == ',') {
            flush();
        } else {
            current += text[i];
        }
    }
    flush();
    return names;
}

std::string format_tensor_names(const std::set<std::string>& names) {
    std::string out;
    for (const auto& name : names) {
        if (!out.empty()) out += ',';
        for (char c : name) {
            if (c == ',') out += '\\';
            out += c;
        }
    }
    return out;
}

}  // namespace vireo::ir
