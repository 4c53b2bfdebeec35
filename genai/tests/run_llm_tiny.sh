#!/usr/bin/env bash
# ctest's vireo_genai_llm_tiny: exports the --tiny GPT-2- and Llama-style decoders (with their
# PyTorch greedy and beam-4 references) into OUT, then runs vireo_genai_tests' LlmTiny* tests on
# them (greedy and beam search against PyTorch, stateful and explicit past, CPU and TEMPLATE).
#   genai/tests/run_llm_tiny.sh OUT path/to/vireo_genai_tests
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
