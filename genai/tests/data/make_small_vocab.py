#!/usr/bin/env python3
# Trains the two small BPE vocabularies the tokenizer tests use (byte-level as GPT-2, SentencePiece
# style with byte fallback as Llama) on a fixed text, and writes the expected ids of sample strings
# computed by an independent Python encoder (the textbook algorithms, not the C++ under test).
"""Usage: genai/tests/data/make_small_vocab.py  (rewrites the files next to it; deterministic)"""
import json
import os
import unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = """The quick brown fox jumps over the lazy dog. It's what they'll do, isn't it? We've seen
the tokenizer split contractions, numbers like 2026 and 3.14159, and punctuation!!! Then the
lines    with   several spaces, tabs\tand newlines.
Vireo runs inference; the tokenizer turns text into tokens and tokens back into text.
Unicode: café, naïve, Größe, Ελληνικά, русский текст, 日本語のテキスト, 中文文本, 한국어, עברית, العربية.
Emoji 🙂🚀 and combining marks: e\u0301 a\u0308 n\u0303.
"""

WHITESPACE = set([0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F,
                  0x205F, 0x3000] + list(range(0x2000, 0x200B)))


def cls(ch):
    c = unicodedata.category(ch)
    if c.startswith("L"):
        return "L"
    if c.startswith("N"):
        return "N"
    if ord(ch) in WHITESPACE:
        return "S"
    return "O"


def gpt2_split(text):
    """GPT-2's pattern, alternative by alternative, as the regex engine would try them."""
    out, i, n = [], 0, len(text)
    while i < n:
        matched = None
        for c in ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d"):
            if text.startswith(c, i):
                matched = c
                break
        if matched:
            out.append(matched)
            i += len(matched)
            continue
        j = i + 1 if text[i] == " " else i
        if j < n and cls(text[j]) != "S":
            k = j
            while k < n and cls(text[k]) == cls(text[j]):
                k += 1
            out.append(text[i:k])
            i = k
            continue
        k = i
        while k < n and cls(text[k]) == "S":
            k += 1
        if k == n or k - i == 1:
            out.append(text[i:k])
            i = k
        else:
            out.append(text[i:k - 1])
            i = k - 1
    return out


def bytes_to_unicode():
    bs = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


B2U = bytes_to_unicode()


def train(words, symbols_of, n_merges):
    """Plain BPE training: merge the most frequent adjacent pair (ties: smallest pair)."""
    seqs = Counter(tuple(symbols_of(w)) for w in words)
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for s, f in seqs.items():
            for a, b in zip(s, s[1:]):
                pairs[(a, b)] += f
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        if pairs[best] < 1:
            break
        merges.append(best)
        new = Counter()
        for s, f in seqs.items():
            out, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and (s[i], s[i + 1]) == best:
                    out.append(s[i] + s[i + 1])
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            new[tuple(out)] += f
        seqs = new
    return merges


def bpe(symbols, ranks):
    """Textbook BPE: merge the lowest-ranked adjacent pair, leftmost first, until none is left."""
    symbols = list(symbols)
    while len(symbols) > 1:
        best = None
        for i in range(len(symbols) - 1):
            r = ranks.get((symbols[i], symbols[i + 1]))
            if r is not None and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            break
        i = best[1]
        symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
    return symbols


SAMPLES = [
    "The quick brown fox jumps over the lazy dog.",
    "It's what they'll do, isn't it?",
    "numbers like 2026 and 3.14159",
    "lines    with   several spaces\n\n and\ttabs ",
    "café naïve Größe русский 日本語 🙂🚀 e\u0301",
    "tokens  back\ninto text!!!",
    "Zebras xylophone QQQ",
]


def main():
    # ---- byte-level (GPT-2 style)
    words = [w for line in [CORPUS] for w in gpt2_split(line)]
    to_syms = lambda w: [B2U[b] for b in w.encode("utf-8")]
    merges = train(words, to_syms, 300)
    vocab = {B2U[b]: i for i, b in enumerate(sorted(B2U))}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    vocab["<|endoftext|>"] = len(vocab)
    ranks = {m: r for r, m in enumerate(merges)}
    with open(os.path.join(HERE, "small_bytelevel_vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=0)
    with open(os.path.join(HERE, "small_bytelevel_merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")
    tj = {"version": "1.0", "truncation": None, "padding": None,
          "added_tokens": [{"id": vocab["<|endoftext|>"], "content": "<|endoftext|>", "single_word": False,
                            "lstrip": False, "rstrip": False, "normalized": True, "special": True}],
          "normalizer": None,
          "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                            "use_regex": True},
          "post_processor": None, "decoder": {"type": "ByteLevel"},
          "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                    "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                    "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]}}
    with open(os.path.join(HERE, "small_bytelevel_tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tj, f, ensure_ascii=False)
    bl_expected = []
    for s in SAMPLES:
        ids = []
        for piece in gpt2_split(s):
            ids += [vocab[t] for t in bpe(to_syms(piece), ranks)]
        bl_expected.append({"text": s, "ids": ids})

    # ---- SentencePiece style (Llama): ▁ for spaces, one ▁ prepended, byte fallback
    meta = "\u2581"
    sp_text = meta + CORPUS.replace(" ", meta)
    chars = sorted(set(ch for ch in sp_text if ord(ch) < 0x250 or ch == meta))  # Latin only: the
    # rest (Greek, CJK, emoji...) must take the byte fallback
    sp_vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        sp_vocab[f"<0x{b:02X}>"] = len(sp_vocab)
    for ch in chars:
        sp_vocab.setdefault(ch, len(sp_vocab))
    sp_words = [meta + w for w in CORPUS.replace("\n", " ").split(" ") if w]
    sp_merges = train(sp_words, lambda w: [c for c in w if c in sp_vocab], 200)
    for a, b in sp_merges:
        sp_vocab.setdefault(a + b, len(sp_vocab))
    sp_ranks = {m: r for r, m in enumerate(sp_merges)}
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for t, i in (("<unk>", 0), ("<s>", 1), ("</s>", 2))]
    sj = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
          "normalizer": {"type": "Sequence", "normalizers": [
              {"type": "Prepend", "prepend": meta},
              {"type": "Replace", "pattern": {"String": " "}, "content": meta}]},
          "pre_tokenizer": None, "post_processor": None,
          "decoder": {"type": "Sequence", "decoders": [
              {"type": "Replace", "pattern": {"String": meta}, "content": " "}, {"type": "ByteFallback"},
              {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
          "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                    "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True,
                    "vocab": sp_vocab, "merges": [[a, b] for a, b in sp_merges]}}
    with open(os.path.join(HERE, "small_sentencepiece_tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(sj, f, ensure_ascii=False)
    sp_expected = []
    for s in SAMPLES:
        syms = []
        for ch in meta + s.replace(" ", meta):
            if ch in sp_vocab:
                syms.append(ch)
            else:
                syms += [f"<0x{b:02X}>" for b in ch.encode("utf-8")]
        sp_expected.append({"text": s, "ids": [sp_vocab[t] for t in bpe(syms, sp_ranks)]})

    with open(os.path.join(HERE, "small_expected.json"), "w", encoding="utf-8") as f:
        f.write('{"note": "ids computed by make_small_vocab.py\'s Python encoders",\n')
        for key, rows in (("bytelevel", bl_expected), ("sentencepiece", sp_expected)):
            f.write(f' "{key}": [\n')
            f.write(",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in rows))
            f.write("\n ]" + ("," if key == "bytelevel" else "") + "\n")
        f.write("}\n")
    print(f"byte-level: {len(vocab)} tokens, {len(merges)} merges; "
          f"sentencepiece: {len(sp_vocab)} tokens, {len(sp_merges)} merges")


if __name__ == "__main__":
    main()
