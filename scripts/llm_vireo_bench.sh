#!/usr/bin/env bash
# Vireo's greedy generation (vireo_generate, CPU, stateful) next to ONNX Runtime's
# (scripts/llm_ort_bench.mjs) on the same explicit-past model folder, interleaved round by round so
# both see the same machine load: a 128-token prompt (ids 0..127), 128 new tokens, 1 and 2 threads.
#   scripts/llm_vireo_bench.sh MODEL_DIR [BUILD_DIR] [ROUNDS] [COMPRESSED_DIR[,COMPRESSED_DIR...]]
# Prints each run's summary lines; each round is one Vireo process (warm-up + 3 generations) and
# one ORT process (warm-up + 3 generations) per thread count. Each COMPRESSED_DIR, a copy of
# MODEL_DIR made with vireo_compress (genai_config.json naming its model.xml), is timed in the same
# rounds and labelled with its folder name.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: llm_vireo_bench.sh MODEL_DIR [BUILD_DIR] [ROUNDS] [COMPRESSED_DIR,...]}
build=${2:-$repo/build}
rounds=${3:-2}
compressed=${4:-}
prompt=$(seq -s, 0 127)
ort_dir=${VIREO_ORT_NODE_MODULES:-$HOME/.cache/vireo-ort/node_modules}
for round in $(seq 1 "$rounds"); do
  for t in 1 2; do
    echo "== round $round, $t thread(s), load $(cut -d' ' -f1-3 /proc/loadavg)"
    "$build/bin/vireo_generate" -m "$dir" --prompt_ids "$prompt" -n 128 --ignore_eos --print_ids \
        --threads "$t" --reps 4 2>&1 >/dev/null | grep "runs:" | sed "s/^/vireo threads=$t: /"
    for extra in ${compressed//,/ }; do
      "$build/bin/vireo_generate" -m "$extra" --prompt_ids "$prompt" -n 128 --ignore_eos \
          --print_ids --threads "$t" --reps 4 2>&1 >/dev/null | grep "runs:" |
        sed "s/^/vireo $(basename "$extra") threads=$t: /"
    done
    if command -v node >/dev/null && [ -d "$ort_dir/onnxruntime-node" ]; then
      NODE_PATH=$ort_dir node "$repo/scripts/llm_ort_bench.mjs" "$dir" --prompt-len 128 \
          --new-tokens 128 --threads "$t" --reps 3 |
        sed -E 's/,?"ids":(\[[^]]*\]|"[^"]*")//' | sed "s/^/ort threads=$t: /"
    fi
  done
done
