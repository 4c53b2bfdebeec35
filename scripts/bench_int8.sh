#!/usr/bin/env bash
# Times int8 against f32 on the CPU plugin, and against ONNX Runtime 1.30 on the same QDQ file: for
# each model it quantizes the corpus export with tools/quantize/vireo_quantize.py (once, random
# calibration data unless --calib), then runs benchmark_app f32, benchmark_app int8 and
# ort_bench.sh int8 interleaved, REPS times per thread count, and prints a Markdown table of medians.
# `--models all` takes every model of the corpus directory and adds the geometric means (int8 over
# f32, int8 against ORT int8) per thread count; a model that fails to quantize or run gets a row
# that says so (and is left out of the means) instead of ending the run. The SQNR column is the
# int8 model's output against the f32 model's on CPU, for the corpus' held-out input_*.npy.
# --dynamic times dynamic quantization instead (docs/quantization.md): benchmark_app on the f32 file
# without and with CPU_DYNAMIC_QUANTIZATION, and ONNX Runtime on the same f32 file (its own dynamic
# quantizer is Python-only, not in the npm package); default models encoder gpt_decoder seq2seq.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${VIREO_BUILD_DIR:-$repo/build}
models_dir=${VIREO_CORPUS_MODELS:-$repo/../bench-models/corpus}
ort=${VIREO_ORT_BENCH:-$repo/../shared/bench/ort_bench.sh}
py=${VIREO_PYTHON:-/usr/bin/python3}
reps=3; niter=""; threads="1 2"; models=""; out_dir=${TMPDIR:-/tmp}/vireo-int8; dynamic=0
usage() { echo "usage: scripts/bench_int8.sh [--dynamic] [--models a,b|all] [--reps N] [--niter N (default: 2x the corpus' niter)] [--threads '1 2'] [--out-dir DIR]"; }
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=${2//,/ }; shift ;;
    --reps) reps=$2; shift ;;
    --niter) niter=$2; shift ;;
    --threads) threads=${2//,/ }; shift ;;
    --out-dir) out_dir=$2; shift ;;
    --dynamic) dynamic=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done
if [ "$models" = all ]; then
  models=$(for d in "$models_dir"/*/; do [ -f "$d/model.onnx" ] && [ -f "$d/info.json" ] && basename "$d"; done | tr '\n' ' ')
elif [ -z "$models" ]; then
  if ((dynamic)); then models="encoder gpt_decoder seq2seq"; else models="resnet50 mobilenet_v2"; fi
fi
mkdir -p "$out_dir"
echo '{"CPU": {"CPU_DYNAMIC_QUANTIZATION": "YES"}}' > "$out_dir/dynamic.json"
bapp() {  # model threads [benchmark_app options] -> median ms of one benchmark_app run
  local model=$1 t=$2; shift 2
  "$build/bin/benchmark_app" -json_report "$out_dir/ba.json" -m "$model" -d CPU -api sync -hint none \
    -nstreams 1 -nthreads "$t" -niter "$n" "$@" > "$out_dir/ba.log" 2>&1
  grep -o '"median": *[-0-9.eE+]*' "$out_dir/ba.json" | head -1 | sed 's/.*: *//'
}
ort_run() { "$ort" "$1" "$2" "$n" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p'; }
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}'; }

if ((dynamic)); then
  echo "| model | threads | CPU f32 ms | CPU dynamic int8 ms | ORT f32 ms | speed-up over f32 | dynamic / ORT f32 |"
  echo "|---|---|---|---|---|---|---|"
  for m in $models; do
    f32="$models_dir/$m/model.onnx"
    n=${niter:-$(( 2 * $(sed -n 's/.*"niter": *\([0-9]*\).*/\1/p' "$models_dir/$m/info.json") ))}
    for t in $threads; do
      : > "$out_dir/f32"; : > "$out_dir/int8"; : > "$out_dir/ort"
      for _ in $(seq "$reps"); do
        bapp "$f32" "$t" >> "$out_dir/f32"; echo >> "$out_dir/f32"
        bapp "$f32" "$t" -load_config "$out_dir/dynamic.json" >> "$out_dir/int8"; echo >> "$out_dir/int8"
        ort_run "$f32" "$t" >> "$out_dir/ort"
      done
      a=$(grep . "$out_dir/f32" | median); b=$(grep . "$out_dir/int8" | median); c=$(grep . "$out_dir/ort" | median)
      echo "| $m | $t | $a | $b | $c | $(awk "BEGIN{printf \"%.2fx\", $a/$b}") | $(awk "BEGIN{printf \"%.2f\", $b/$c}") |"
    done
  done
  exit 0
fi

echo "| model | threads | CPU f32 ms | CPU int8 ms | ORT int8 ms | int8 speed-up over f32 | CPU int8 / ORT int8 | SQNR int8 vs f32 |"
echo "|---|---|---|---|---|---|---|---|"
: > "$out_dir/ratios"
for m in $models; do
  f32="$models_dir/$m/model.onnx"
  q="$out_dir/$m.qdq.onnx"
  # Iterations: --niter, else the corpus' own (chosen for 1-3 s of f32 per run), doubled for int8.
  n=${niter:-$(( 2 * $(sed -n 's/.*"niter": *\([0-9]*\).*/\1/p' "$models_dir/$m/info.json") ))}
  if [ ! -f "$q" ] || [ ! -f "$q.log" ]; then
    # shellcheck disable=SC2046  # one argument per held-out input file
    if ! PYTHONPATH="$build/python" "$py" "$repo/tools/quantize/vireo_quantize.py" "$f32" "$q" \
        --check $(ls "$models_dir/$m"/input_*.npy 2> /dev/null) > "$q.log" 2>&1; then
      rm -f "$q"
      echo "| $m | — | — | — | — | quantization failed: $(grep -v '^ ' "$q.log" | tail -1 | tr '|' '/') | — | — |"
      continue
    fi
  fi
  sqnr=$(sed -n 's/.*output 0: SQNR \([-0-9.inf]*\) dB.*/\1 dB/p' "$q.log" | head -1)
  for t in $threads; do
    : > "$out_dir/f32"; : > "$out_dir/int8"; : > "$out_dir/ort"
    for _ in $(seq "$reps"); do
      (bapp "$f32" "$t" || true) >> "$out_dir/f32"; echo >> "$out_dir/f32"
      (bapp "$q" "$t" || true) >> "$out_dir/int8"; echo >> "$out_dir/int8"
      (ort_run "$q" "$t" || true) >> "$out_dir/ort"; echo >> "$out_dir/ort"
    done
    a=$(grep . "$out_dir/f32" | median); b=$(grep . "$out_dir/int8" | median); c=$(grep . "$out_dir/ort" | median)
    if [ -z "$a" ] || [ -z "$b" ]; then
      echo "| $m | $t | ${a:-failed} | ${b:-failed} | ${c:-failed} | — | — | ${sqnr:-—} |"
      continue
    fi
    if [ -z "$c" ]; then
      echo "| $m | $t | $a | $b | failed | $(awk "BEGIN{printf \"%.2fx\", $a/$b}") | — | ${sqnr:-—} |"
      echo "$t $a $b -" >> "$out_dir/ratios"
      continue
    fi
    echo "| $m | $t | $a | $b | $c | $(awk "BEGIN{printf \"%.2fx\", $a/$b}") | $(awk "BEGIN{printf \"%.2f\", $b/$c}") | ${sqnr:-—} |"
    echo "$t $a $b $c" >> "$out_dir/ratios"
  done
done
# Geometric means per thread count over the rows that ran (int8 / ORT only where ORT ran).
if [ "$(wc -w <<< "$models")" -gt 2 ]; then
  echo
  echo "| threads | models | geometric mean int8 speed-up over f32 | geometric mean CPU int8 / ORT int8 (models) |"
  echo "|---|---|---|---|"
  for t in $threads; do
    awk -v t="$t" '$1 == t { n++; s += log($2 / $3); if ($4 != "-") { k++; o += log($3 / $4) } }
      END { if (n) printf "| %s | %d | %.2fx | %s |\n", t, n, exp(s / n), k ? sprintf("%.2f (%d)", exp(o / k), k) : "—" }' \
      "$out_dir/ratios"
  done
fi
