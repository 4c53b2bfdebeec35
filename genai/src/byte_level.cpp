// Implements GPT-2's pre-tokenization pattern as a scanner over code points (the alternatives are
// tried in the pattern's order at each position) and the byte <-> character map.
#include "byte_level.hpp"

#include "unicode.hpp"

namespace vireo::genai::detail {

namespace {

enum class CharClass { kLetter, kNumber, kSpace, kOther };

CharClass classify(const Utf8Unit& u) {
    if (!u.valid) return CharClass::kOther;
    if (is_letter(u.code_point)) return CharClass::kLetter;
    if (is_number(u.code_point)) return CharClass::kNumber;
    if (is_whitespace(u.code_point)) return CharClass::kSpace;
    return CharClass::kOther;
}

// Length in units of the contraction starting at i ('s 't 're 've 'm 'll 'd), or 0.
size_t contraction_at(const std::vector<Utf8Unit>& u, size_t i) {
    auto is = [&](size_t k, char c) {
        return k < u.size() && u[k].valid && u[k].code_point == static_cast<uint32_t>(c);
    };
    if (!is(i, '\'')) return 0;
    if (is(i + 1, 's') || is(i + 1, 't') || is(i + 1, 'm') || is(i + 1, 'd')) return 2;
    if ((is(i + 1, 'r') && is(i + 2, 'e')) || (is(i + 1, 'v') && is(i + 2, 'e')) ||
        (is(i + 1, 'l') && is(i + 2, 'l')))
        return 3;
    return 0;
}

}  // namespace

std::vector<std::string_view> split_gpt2_pattern(std::string_view text) {
    const std::vector<Utf8Unit> u = decode_utf8(text);
    std::vector<CharClass> cls(u.size());
    for (size_t k = 0; k < u.size(); ++k) cls[k] = classify(u[k]);
    const size_t n = u.size();

    std::vector<std::string_view> pieces;
    auto emit = [&](size_t from, size_t to) {  // units [from, to)
        const size_t begin = u[from].offset;
        const size_t end = to < n ? u[to].offset : text.size();
        pieces.push_back(text.substr(begin, end - begin));
    };
    auto run_end = [&](size_t k, CharClass c) {
        while (k < n && cls[k] == c) ++k;
        return k;
    };

    size_t i = 0;
    while (i < n) {
        if (size_t len = contraction_at(u, i)) {
            emit(i, i + len);
            i += len;
            continue;
        }
        // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": an optional ASCII space, then a run.
        const bool space = u[i].valid && u[i].code_point == ' ';
        const size_t j = space ? i + 1 : i;
        if (j < n && cls[j] != CharClass::kSpace) {
            const size_t end = run_end(j, cls[j]);
            emit(i, end);
            i = end;
            continue;
        }
        // "\s+(?!\S)" then "\s+": a white-space run gives up its last character to a following
        // non-space (which then takes it as its " ?" prefix or starts after it), unless the run
        // is a single character, which "\s+" takes alone.
        const size_t end = run_end(i, CharClass::kSpace);
        if (end == n || end - i == 1) {
            emit(i, end);
            i = end;
        } else {
            emit(i, end - 1);
            i = end - 1;
        }
    }
    return pieces;
}

const std::array<std::string, 256>& byte_to_symbol() {
    static const std::array<std::string, 256> table = [] {
        std::array<std::string, 256> t;
        uint32_t next = 256;
        for (uint32_t b = 0; b < 256; ++b) {
            const bool printable =
                (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
            append_utf8(t[b], printable ? b : next++);
        }
        return t;
    }();
    return table;
}

int symbol_to_byte(uint32_t code_point) {
    static const std::array<int, 324> inverse = [] {
        std::array<int, 324> t;
        t.fill(-1);
        uint32_t next = 256;
        for (uint32_t b = 0; b < 256; ++b) {
            const bool printable =
                (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
            t[printable ? b : next++] = static_cast<int>(b);
        }
        return t;
    }();
    return code_point < inverse.size() ? inverse[code_point] : -1;
}

}  // namespace vireo::genai::detail
