#!/usr/bin/env bash
# ctest's vireo_genai_llm_tiny: exports the --tiny GPT-2- and Llama-style decoders (with their
# PyTorch greedy and beam-4 references) into OUT, then runs vireo_genai_tests' LlmTiny* tests on
# them (greedy and beam search against PyTorch, stateful and explicit past, CPU and TEMPLATE).
#   genai/tests/run_llm_tiny.sh OUT path/to/vireo_genai_tests [path/to/vireo_generate]
# Exits 77 (skip) when PyTorch or onnx is not installed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run_llm_tiny.sh OUT TEST_BINARY}
bin=${2:?usage: run_llm_tiny.sh OUT TEST_BINARY}
py=${VIREO_PYTHON:-/usr/bin/python3}
rc=0
"$py" "$repo/samples/llm/export_decoders.py" "$out" --tiny --no-weights >"$out.log" 2>&1 || rc=$?
if [ $rc = 77 ]; then
  echo "SKIP: $(tail -1 "$out.log")"
  exit 77
elif [ $rc != 0 ]; then
  cat "$out.log" >&2
  exit $rc
fi
VIREO_LLM_TINY_DIR=$out "$bin" --gtest_color=no --gtest_filter='*LlmTiny*'
# The sample: vireo_generate --prompt_ids ... --print_ids gives PyTorch's greedy ids (stateful
# and explicit past) and its beam-4 best sequence.
gen=${3:-}
[ -n "$gen" ] || exit 0
for m in gpt2-tiny llama-tiny; do
  for kind in greedy beam4; do
    read -r prompt expected < <("$py" -c "import json,sys; r=json.load(open(sys.argv[1])); print(','.join(map(str,r['prompt_ids'])), ','.join(map(str,r['generated_ids'])))" "$out/$m/reference_$kind.json")
    flags=""
    [ $kind = beam4 ] && flags="--num_beams 4"
    for past in "" --explicit_past; do
      got=$("$gen" -m "$out/$m" --prompt_ids "$prompt" --print_ids -n 64 --ignore_eos $flags $past -d TEMPLATE 2>/dev/null)
      if [ "$got" != "$expected" ]; then
        echo "FAIL: vireo_generate $m $kind $past: got $got, PyTorch $expected" >&2
        exit 1
      fi
      echo "vireo_generate $m $kind ${past:-stateful}: equal to PyTorch"
    done
  done
done
