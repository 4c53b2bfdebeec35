#!/usr/bin/env bash
# ctest's vireo_genai_llm_full: the full-size exported decoders (samples/llm/export_decoders.py
# without --tiny; default ../bench-models/llm next to the repository, or VIREO_LLM_MODELS_DIR)
# through vireo_generate on CPU: greedy 64 tokens and the beam-4 best sequence must equal
# PyTorch's reference ids. Exits 77 (skip) when the models have not been exported.
#   genai/tests/check_full_models.sh path/to/vireo_generate
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
gen=${1:?usage: check_full_models.sh VIREO_GENERATE}
dir=${VIREO_LLM_MODELS_DIR:-$repo/../bench-models/llm}
py=${VIREO_PYTHON:-python3}
found=0
for m in gpt2 llama; do
  [ -s "$dir/$m/model.onnx" ] && [ -s "$dir/$m/reference_beam4.json" ] || continue
  found=1
  for kind in greedy beam4; do
    read -r prompt expected < <("$py" -c "import json,sys; r=json.load(open(sys.argv[1])); print(','.join(map(str,r['prompt_ids'])), ','.join(map(str,r['generated_ids'])))" "$dir/$m/reference_$kind.json")
    flags=""
    [ $kind = beam4 ] && flags="--num_beams 4"
    got=$("$gen" -m "$dir/$m" --prompt_ids "$prompt" --print_ids -n 64 --ignore_eos $flags 2>/dev/null)
    if [ "$got" != "$expected" ]; then
      echo "FAIL: $m $kind: vireo_generate gave $got, PyTorch $expected" >&2
      exit 1
    fi
    echo "$m $kind: 64 ids equal to PyTorch"
  done
done
if [ $found = 0 ]; then
  echo "SKIP: no exported full-size models in $dir (samples/llm/export_decoders.py $dir)"
  exit 77
fi
