// Implements Tokenizer: loading GPT-2 file pairs and tokenizer.json, splitting out added tokens,
// and the byte-level and SentencePiece-style encode/decode paths over BpeModel.
#include "vireo/genai/tokenizer.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vireo/exception.hpp>

#include "bpe_model.hpp"
#include "byte_level.hpp"
#include "json_value.hpp"
#include "unicode.hpp"

namespace vireo::genai {

using detail::BpeModel;
using detail::JsonValue;

namespace {

// Ids index tables, so a corrupt file must not ask for gigabytes; real vocabularies stay < 1M.
constexpr int64_t kMaxTokenId = 16 * 1024 * 1024;

constexpr std::string_view kMetaspace = "\xE2\x96\x81";  // U+2581 LOWER ONE EIGHTH BLOCK

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw_error<NotFound>("tokenizer: cannot open '", path.string(), "'");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
    std::string out;
    out.reserve(s.size());
    size_t pos = 0;
    while (true) {
        const size_t hit = s.find(from, pos);
        if (hit == std::string::npos) break;
        out.append(s, pos, hit - pos);
        out += to;
        pos = hit + from.size();
    }
    out.append(s, pos, std::string::npos);
    s = std::move(out);
}

// "<0x41>" -> 0x41, or -1.
int byte_token_value(std::string_view t) {
    if (t.size() != 6 || t.substr(0, 3) != "<0x" || t[5] != '>') return -1;
    int v = 0;
    for (char c : t.substr(3, 2)) {
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= c - '0';
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            return -1;
    }
    return v;
}

}  // namespace

class Tokenizer::Impl {
  public:
    enum class Prepend { kNever, kFirst, kAlways };

    struct AddedToken {
        std::string content;
        TokenId id;
        bool special;
    };

    TokenizerKind kind = TokenizerKind::kByteLevelBpe;
    BpeModel bpe;
    std::vector<AddedToken> added;  // longest content first, for matching
    std::vector<char> is_added;     // by id
    std::vector<char> is_special;   // by id
    std::string name;               // for messages

    // Byte-level
    bool add_prefix_space = false;
    bool use_regex = true;
    std::array<TokenId, 256> byte_symbol_ids{};
    // SentencePiece-style
    Prepend prepend = Prepend::kNever;
    bool replace_spaces = false;
    bool split_on_metaspace = false;
    bool byte_fallback = false;
    bool fuse_unk = false;
    bool ignore_merges = false;
    std::optional<TokenId> unk_id;
    std::array<TokenId, 256> byte_fallback_ids{};  // -1 when the vocabulary lacks <0xNN>

    void finish() {
        // One past the largest id of the vocabulary and the added tokens.
        size_t n = bpe.size();
        for (const auto& a : added) n = std::max(n, static_cast<size_t>(a.id) + 1);
        vocab_size = n;
        is_added.assign(n, 0);
        is_special.assign(n, 0);
        for (const auto& a : added) {
            is_added[static_cast<size_t>(a.id)] = 1;
            if (a.special) is_special[static_cast<size_t>(a.id)] = 1;
        }
        std::stable_sort(added.begin(), added.end(), [](const AddedToken& a, const AddedToken& b) {
            return a.content.size() > b.content.size();
        });
        byte_fallback_ids.fill(-1);
        for (int b = 0; b < 256; ++b) {
            char name_buf[8];
            std::snprintf(name_buf, sizeof(name_buf), "<0x%02X>", b);
            if (auto id = bpe.find(name_buf)) byte_fallback_ids[b] = *id;
        }
        if (kind == TokenizerKind::kByteLevelBpe) {
            const auto& symbols = detail::byte_to_symbol();
            for (int b = 0; b < 256; ++b) {
                auto id = bpe.find(symbols[b]);
                if (!id)
                    throw_error<InvalidArgument>(
                        name, ": byte-level vocabulary lacks the symbol of byte ", b, " ('",
                        symbols[b], "')");
                byte_symbol_ids[b] = *id;
            }
        }
    }

    size_t vocab_size = 0;

    // ---------------------------------------------------------------- encode

    std::vector<TokenId> encode(std::string_view text, const EncodeOptions& options) const {
        std::vector<TokenId> out;
        size_t segment_index = 0;
        auto plain = [&](std::string_view segment) {
            if (!segment.empty()) encode_segment(segment, segment_index == 0, out);
            ++segment_index;
        };
        if (!options.parse_special_tokens || added.empty()) {
            plain(text);
            return out;
        }
        size_t start = 0, pos = 0;
        while (pos < text.size()) {
            const AddedToken* hit = nullptr;
            for (const auto& a : added) {  // longest first
                if (!a.content.empty() && text.compare(pos, a.content.size(), a.content) == 0) {
                    hit = &a;
                    break;
                }
            }
            if (!hit) {
                ++pos;
                continue;
            }
            plain(text.substr(start, pos - start));
            out.push_back(hit->id);
            pos += hit->content.size();
            start = pos;
        }
        plain(text.substr(start));
        return out;
    }

    void encode_segment(std::string_view segment, bool first, std::vector<TokenId>& out) const {
        if (kind == TokenizerKind::kByteLevelBpe)
            encode_byte_level(segment, out);
        else
            encode_sentencepiece(segment, first, out);
    }

    void encode_byte_level(std::string_view segment, std::vector<TokenId>& out) const {
        std::string prefixed;
        if (add_prefix_space && segment.front() != ' ') {
            prefixed = " ";
            prefixed += segment;
            segment = prefixed;
        }
        std::vector<std::string_view> pieces;
        if (use_regex)
            pieces = detail::split_gpt2_pattern(segment);
        else
            pieces.push_back(segment);
        std::vector<TokenId> symbols;
        for (std::string_view piece : pieces) {
            if (ignore_merges) {
                std::string mapped;
                for (unsigned char b : piece) mapped += detail::byte_to_symbol()[b];
                if (auto id = bpe.find(mapped)) {
                    out.push_back(*id);
                    continue;
                }
            }
            symbols.clear();
            for (unsigned char b : piece) symbols.push_back(byte_symbol_ids[b]);
            bpe.merge(symbols);
            out.insert(out.end(), symbols.begin(), symbols.end());
        }
    }

    void encode_sentencepiece(std::string_view segment, bool first,
                              std::vector<TokenId>& out) const {
        std::string text;
        if (prepend == Prepend::kAlways || (prepend == Prepend::kFirst && first)) text = kMetaspace;
        text += segment;
        if (replace_spaces) replace_all(text, " ", kMetaspace);

        std::vector<std::string_view> words;
        if (split_on_metaspace) {
            // Metaspace's split: each word starts at a "▁" (merged with what follows it).
            size_t start = 0;
            size_t pos = text.find(kMetaspace, 1);
            while (pos != std::string::npos) {
                words.push_back(std::string_view(text).substr(start, pos - start));
                start = pos;
                pos = text.find(kMetaspace, pos + kMetaspace.size());
            }
            words.push_back(std::string_view(text).substr(start));
        } else {
            words.push_back(text);
        }

        std::vector<TokenId> symbols;
        for (std::string_view word : words) {
            if (word.empty()) continue;
            if (ignore_merges) {
                if (auto id = bpe.find(word)) {
                    out.push_back(*id);
                    continue;
                }
            }
            symbols.clear();
            bool last_unknown = false;
            for (const auto& u : detail::decode_utf8(word)) {
                const std::string_view ch = word.substr(u.offset, u.length);
                if (u.valid) {
                    if (auto id = bpe.find(ch)) {
                        symbols.push_back(*id);
                        last_unknown = false;
                        continue;
                    }
                }
                if (byte_fallback && fallback_bytes(ch, symbols)) {
                    last_unknown = false;
                    continue;
                }
                if (!unk_id)
                    throw_error<InvalidArgument>(
                        name, ": cannot encode the character at byte ", u.offset,
                        " of a segment: not in the vocabulary, "
                        "and the model has no byte fallback nor unknown token");
                if (!(fuse_unk && last_unknown)) symbols.push_back(*unk_id);
                last_unknown = true;
            }
            bpe.merge(symbols);
            out.insert(out.end(), symbols.begin(), symbols.end());
        }
    }

    bool fallback_bytes(std::string_view ch, std::vector<TokenId>& symbols) const {
        for (unsigned char b : ch)
            if (byte_fallback_ids[b] < 0) return false;
        for (unsigned char b : ch) symbols.push_back(byte_fallback_ids[b]);
        return true;
    }

    // ---------------------------------------------------------------- decode

    std::string decode(std::span<const TokenId> ids, const DecodeOptions& options) const {
        std::string out;
        bool first_piece = true;
        for (TokenId id : ids) {
            if (id < 0 || static_cast<size_t>(id) >= vocab_size)
                throw_error<InvalidArgument>(name, ": decode: token id ", id, " is outside [0, ",
                                             vocab_size, ")");
            const auto uid = static_cast<size_t>(id);
            if (options.skip_special_tokens && is_special[uid]) continue;
            const bool was_first = first_piece;
            first_piece = false;
            if (is_added[uid]) {
                out += added_content(id);
                continue;
            }
            const std::string& token = bpe.token(id);
            if (kind == TokenizerKind::kByteLevelBpe) {
                for (const auto& u : detail::decode_utf8(token)) {
                    const int b = u.valid ? detail::symbol_to_byte(u.code_point) : -1;
                    if (b >= 0)
                        out.push_back(static_cast<char>(b));
                    else
                        out.append(token, u.offset, u.length);
                }
                continue;
            }
            if (const int b = byte_token_value(token); b >= 0 && byte_fallback) {
                out.push_back(static_cast<char>(b));
                continue;
            }
            std::string piece = token;
            if (replace_spaces || prepend != Prepend::kNever) replace_all(piece, kMetaspace, " ");
            // The encoder's prepended "▁" comes back as a leading space of the first piece.
            if (was_first && prepend != Prepend::kNever && !piece.empty() && piece.front() == ' ')
                piece.erase(0, 1);
            out += piece;
        }
        return out;
    }

    std::string added_content(TokenId id) const {
        for (const auto& a : added)
            if (a.id == id) return a.content;
        return bpe.token(id);
    }
};

// -------------------------------------------------------------------- loading

namespace {

using Impl = Tokenizer::Impl;

void load_vocab_object(const JsonValue& vocab, BpeModel& bpe, std::string_view name) {
    if (!vocab.is_object())
        throw_error<InvalidArgument>(name, ": the vocabulary is not a JSON object");
    for (const auto& [token, id] : vocab.as_object()) {
        if (!id.is_number())
            throw_error<InvalidArgument>(name, ": the id of vocabulary entry '", token,
                                         "' is not a number");
        const int64_t value = id.as_int();
        if (value < 0 || value > kMaxTokenId)
            throw_error<InvalidArgument>(name, ": vocabulary entry '", token, "' has id ", value,
                                         ", expected 0..", kMaxTokenId);
        bpe.add_token(token, static_cast<TokenId>(value));
    }
}

// One merge "left right"; returns false for a line that is not a pair.
bool split_merge_line(std::string_view line, std::string_view& left, std::string_view& right) {
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 >= line.size()) return false;
    left = line.substr(0, space);
    right = line.substr(space + 1);
    return right.find(' ') == std::string_view::npos;
}

void add_merge_checked(BpeModel& bpe, std::string_view left, std::string_view right, int rank,
                       std::string_view name) {
    if (!bpe.add_merge(left, right, rank))
        throw_error<InvalidArgument>(name, ": merge ", rank, " ('", left, "' '", right,
                                     "') names a token missing from the vocabulary");
}

const JsonValue* member(const JsonValue* v, std::string_view key) {
    return v ? v->find(key) : nullptr;
}

std::string type_of(const JsonValue* v) {
    const JsonValue* t = member(v, "type");
    return t && t->is_string() ? t->as_string() : std::string();
}

bool flag(const JsonValue* v, std::string_view key, bool fallback) {
    const JsonValue* f = member(v, key);
    return f && f->is_bool() ? f->as_bool() : fallback;
}

// Flattens {"type": "Sequence", <list_key>: [...]} into its elements (or the value itself).
std::vector<const JsonValue*> flatten(const JsonValue* v, std::string_view list_key) {
    std::vector<const JsonValue*> out;
    if (!v || v->is_null()) return out;
    if (type_of(v) == "Sequence") {
        if (const JsonValue* list = member(v, list_key); list && list->is_array())
            for (const auto& e : list->as_array())
                for (const JsonValue* x : flatten(&e, list_key)) out.push_back(x);
        return out;
    }
    out.push_back(v);
    return out;
}

}  // namespace

Tokenizer::Tokenizer(std::shared_ptr<const Impl> impl) : m_impl(std::move(impl)) {}

Tokenizer Tokenizer::from_gpt2_files(const std::filesystem::path& vocab,
                                     const std::filesystem::path& merges) {
    auto impl = std::make_shared<Impl>();
    impl->name = vocab.parent_path().string();
    impl->kind = TokenizerKind::kByteLevelBpe;
    const std::string vocab_text = read_file(vocab);
    load_vocab_object(JsonValue::parse(vocab_text, vocab.string()), impl->bpe, vocab.string());
    const std::string merges_text = read_file(merges);
    std::istringstream lines(merges_text);
    std::string line;
    int rank = 0;
    bool first = true;
    while (std::getline(lines, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (first && line.rfind("#version", 0) == 0) {
            first = false;
            continue;
        }
        first = false;
        if (line.empty()) continue;
        std::string_view left, right;
        if (!split_merge_line(line, left, right))
            throw_error<InvalidArgument>(merges.string(), ": merge line ", rank + 1, " '", line,
                                         "' is not 'left right'");
        add_merge_checked(impl->bpe, left, right, rank++, merges.string());
    }
    // GPT-2's files do not list <|endoftext|> as special; mark it so skip_special_tokens works.
    if (auto eot = impl->bpe.find("<|endoftext|>"))
        impl->added.push_back({"<|endoftext|>", *eot, true});
    impl->finish();
    return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::from_tokenizer_json(const std::filesystem::path& path) {
    return from_tokenizer_json_text(read_file(path), path.string());
}

Tokenizer Tokenizer::from_tokenizer_json_text(std::string_view json, std::string_view name) {
    const JsonValue doc = JsonValue::parse(json, name);
    auto impl = std::make_shared<Impl>();
    impl->name = std::string(name);
    const JsonValue* model = doc.find("model");
    if (!model || !model->is_object()) throw_error<InvalidArgument>(name, ": no \"model\" object");
    const std::string model_type = type_of(model);
    if (!model_type.empty() && model_type != "BPE")
        throw_error<NotImplemented>(name, ": model type '", model_type,
                                    "' is not supported (only BPE)");
    for (std::string_view k : {"continuing_subword_prefix", "end_of_word_suffix"})
        if (const JsonValue* v = model->find(k); v && v->is_string() && !v->as_string().empty())
            throw_error<NotImplemented>(name, ": BPE with ", k, " is not supported");
    const JsonValue* vocab = model->find("vocab");
    if (!vocab) throw_error<InvalidArgument>(name, ": model has no vocab");
    load_vocab_object(*vocab, impl->bpe, name);

    if (const JsonValue* added = doc.find("added_tokens"); added && added->is_array()) {
        for (const auto& a : added->as_array()) {
            const JsonValue* id = a.find("id");
            const JsonValue* content = a.find("content");
            if (!id || !content || !id->is_number() || !content->is_string())
                throw_error<InvalidArgument>(name, ": an added token lacks id or content");
            if (id->as_int() < 0 || id->as_int() > kMaxTokenId)
                throw_error<InvalidArgument>(name, ": added token '", content->as_string(),
                                             "' has id ", id->as_int(), ", expected 0..",
                                             kMaxTokenId);
            const auto tid = static_cast<TokenId>(id->as_int());
            impl->added.push_back({content->as_string(), tid, flag(&a, "special", false)});
            if (!impl->bpe.find(content->as_string()) &&
                impl->bpe.token(tid).empty())  // keep id_to_token() meaningful
                impl->bpe.add_token(content->as_string(), tid);
        }
    }

    // Pre-tokenizers and normalizers decide the kind.
    bool byte_level = false, sentencepiece = false;
    for (const JsonValue* p : flatten(doc.find("pre_tokenizer"), "pretokenizers")) {
        const std::string t = type_of(p);
        if (t == "ByteLevel") {
            byte_level = true;
            impl->add_prefix_space = flag(p, "add_prefix_space", false);
            impl->use_regex = flag(p, "use_regex", true);
        } else if (t == "Metaspace") {
            sentencepiece = true;
            impl->replace_spaces = true;
            impl->split_on_metaspace = flag(p, "split", true);
            std::string scheme = "always";
            if (const JsonValue* s = p->find("prepend_scheme"); s && s->is_string())
                scheme = s->as_string();
            else if (!flag(p, "add_prefix_space", true))
                scheme = "never";
            impl->prepend = scheme == "never"   ? Impl::Prepend::kNever
                            : scheme == "first" ? Impl::Prepend::kFirst
                                                : Impl::Prepend::kAlways;
        } else {
            throw_error<NotImplemented>(name, ": pre-tokenizer '", t,
                                        "' is not supported "
                                        "(ByteLevel with GPT-2's pattern, or Metaspace)");
        }
    }
    for (const JsonValue* nrm : flatten(doc.find("normalizer"), "normalizers")) {
        const std::string t = type_of(nrm);
        const JsonValue* prepend = nrm->find("prepend");
        const JsonValue* content = nrm->find("content");
        const JsonValue* pattern = member(nrm->find("pattern"), "String");
        if (t == "Prepend" && prepend && prepend->is_string() &&
            prepend->as_string() == kMetaspace) {
            sentencepiece = true;
            impl->prepend = Impl::Prepend::kAlways;
        } else if (t == "Replace" && pattern && pattern->is_string() &&
                   pattern->as_string() == " " && content && content->is_string() &&
                   content->as_string() == kMetaspace) {
            sentencepiece = true;
            impl->replace_spaces = true;
        } else {
            throw_error<NotImplemented>(name, ": normalizer '", t,
                                        "' is not supported "
                                        "(Prepend(\"▁\") and Replace(\" \", \"▁\") are)");
        }
    }
    impl->byte_fallback = flag(model, "byte_fallback", false);
    impl->fuse_unk = flag(model, "fuse_unk", false);
    impl->ignore_merges = flag(model, "ignore_merges", false);
    if (impl->byte_fallback) sentencepiece = true;
    if (byte_level == sentencepiece)
        throw_error<NotImplemented>(name, byte_level ? ": mixes byte-level and SentencePiece steps"
                                                     : ": neither a ByteLevel pre-tokenizer nor "
                                                       "SentencePiece's ▁ handling; not supported");
    impl->kind = byte_level ? TokenizerKind::kByteLevelBpe : TokenizerKind::kSentencePieceBpe;
    if (const JsonValue* unk = model->find("unk_token"); unk && unk->is_string()) {
        impl->unk_id = impl->bpe.find(unk->as_string());
        if (!impl->unk_id)
            throw_error<InvalidArgument>(name, ": unk_token '", unk->as_string(),
                                         "' is not in the vocabulary");
    }

    const JsonValue* merges = model->find("merges");
    if (!merges || !merges->is_array())
        throw_error<InvalidArgument>(name, ": model has no merges array");
    int rank = 0;
    for (const auto& m : merges->as_array()) {
        std::string_view left, right;
        if (m.is_string()) {
            if (!split_merge_line(m.as_string(), left, right))
                throw_error<InvalidArgument>(name, ": merge ", rank, " '", m.as_string(),
                                             "' is not 'left right'");
        } else if (m.is_array() && m.as_array().size() == 2 && m.as_array()[0].is_string() &&
                   m.as_array()[1].is_string()) {
            left = m.as_array()[0].as_string();
            right = m.as_array()[1].as_string();
        } else {
            throw_error<InvalidArgument>(name, ": merge ", rank,
                                         " is neither \"a b\" nor [\"a\", \"b\"]");
        }
        add_merge_checked(impl->bpe, left, right, rank++, name);
    }
    impl->finish();
    return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::from_folder(const std::filesystem::path& folder) {
    namespace fs = std::filesystem;
    if (fs::exists(folder / "tokenizer.json"))
        return from_tokenizer_json(folder / "tokenizer.json");
    if (fs::exists(folder / "vocab.json") && fs::exists(folder / "merges.txt"))
        return from_gpt2_files(folder / "vocab.json", folder / "merges.txt");
    if (fs::exists(folder / "encoder.json") && fs::exists(folder / "vocab.bpe"))
        return from_gpt2_files(folder / "encoder.json", folder / "vocab.bpe");
    throw_error<NotFound>("tokenizer: '", folder.string(),
                          "' has none of tokenizer.json, "
                          "vocab.json + merges.txt, encoder.json + vocab.bpe");
}

std::vector<TokenId> Tokenizer::encode(std::string_view text, const EncodeOptions& options) const {
    return m_impl->encode(text, options);
}

std::string Tokenizer::decode(std::span<const TokenId> ids, const DecodeOptions& options) const {
    return m_impl->decode(ids, options);
}

const std::string& Tokenizer::id_to_token(TokenId id) const {
    if (id < 0 || static_cast<size_t>(id) >= m_impl->vocab_size)
        throw_error<InvalidArgument>(m_impl->name, ": token id ", id, " is outside [0, ",
                                     m_impl->vocab_size, ")");
    return m_impl->bpe.token(id);
}

std::optional<TokenId> Tokenizer::token_to_id(std::string_view token) const {
    for (const auto& a : m_impl->added)
        if (a.content == token) return a.id;
    return m_impl->bpe.find(token);
}

size_t Tokenizer::vocab_size() const {
    return m_impl->vocab_size;
}

TokenizerKind Tokenizer::kind() const {
    return m_impl->kind;
}

}  // namespace vireo::genai
