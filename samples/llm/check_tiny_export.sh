#!/usr/bin/env bash
# ctest's vireo_llm_export_tiny: exports the --tiny GPT-2- and Llama-style decoders with
# samples/llm/export_decoders.py into OUT and, when node and onnxruntime-node are there, checks that
# ONNX Runtime's greedy ids equal PyTorch's reference (scripts/llm_ort_bench.mjs --check).
#   samples/llm/check_tiny_export.sh OUT
# Exits 77 (skip) when PyTorch or onnx is not installed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: check_tiny_export.sh OUT}
py=${VIREO_PYTHON:-/usr/bin/python3}
rc=0
"$py" "$repo/samples/llm/export_decoders.py" "$out" --tiny --new-tokens 32 --no-weights >"$out.log" 2>&1 || rc=$?
if [ $rc = 77 ]; then
  echo "SKIP: $(tail -1 "$out.log")"
  exit 77
elif [ $rc != 0 ]; then
  cat "$out.log" >&2
  exit $rc
fi
for m in gpt2-tiny llama-tiny; do
  for f in model.onnx genai_config.json reference_greedy.json; do
    [ -s "$out/$m/$f" ] || { echo "FAIL: $out/$m/$f missing" >&2; exit 1; }
  done
done
ort_dir=${VIREO_ORT_NODE_MODULES:-$HOME/.cache/vireo-ort/node_modules}
if ! command -v node >/dev/null || [ ! -d "$ort_dir/onnxruntime-node" ]; then
  echo "exported; ONNX Runtime check not run (no node or no $ort_dir/onnxruntime-node)"
  exit 0
fi
for m in gpt2-tiny llama-tiny; do
  NODE_PATH=$ort_dir node "$repo/scripts/llm_ort_bench.mjs" "$out/$m" --check --reps 1 --threads 1 >"$out/$m/ort_check.json"
  grep -o '"reference_agreement":"[^"]*"' "$out/$m/ort_check.json" | sed "s/^/$m: ORT vs PyTorch /"
done
