#!/usr/bin/env bash
# Times int8 against f32 on the CPU plugin, and against ONNX Runtime 1.30 on the same QDQ file: for
# each model it quantizes the corpus export with tools/quantize/vireo_quantize.py (once, random
# calibration data unless --calib), then runs benchmark_app f32, benchmark_app int8 and
# ort_bench.sh int8 interleaved, REPS times per thread count, and prints a Markdown table of medians.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${VIREO_BUILD_DIR:-$repo/build}
models_dir=${VIREO_CORPUS_MODELS:-$repo/../bench-models/corpus}
ort=${VIREO_ORT_BENCH:-$repo/../shared/bench/ort_bench.sh}
py=${VIREO_PYTHON:-/usr/bin/python3}
reps=3; niter=""; threads="1 2"; models="resnet50 mobilenet_v2"; out_dir=${TMPDIR:-/tmp}/vireo-int8
usage() { echo "usage: scripts/bench_int8.sh [--models a,b] [--reps N] [--niter N (default: 2x the corpus' niter)] [--threads '1 2'] [--out-dir DIR]"; }
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=${2//,/ }; shift ;;
    --reps) reps=$2; shift ;;
    --niter) niter=$2; shift ;;
    --threads) threads=${2//,/ }; shift ;;
    --out-dir) out_dir=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out_dir"
bapp() {  # model threads -> median ms of one benchmark_app run
  "$build/bin/benchmark_app" -json_report "$out_dir/ba.json" -m "$1" -d CPU -api sync -hint none \
    -nstreams 1 -nthreads "$2" -niter "$n" > "$out_dir/ba.log" 2>&1
  grep -o '"median": *[-0-9.eE+]*' "$out_dir/ba.json" | head -1 | sed 's/.*: *//'
}
ort_run() { "$ort" "$1" "$2" "$n" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p'; }
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}'; }

echo "| model | threads | CPU f32 ms | CPU int8 ms | ORT int8 ms | int8 speed-up over f32 | CPU int8 / ORT int8 |"
echo "|---|---|---|---|---|---|---|"
for m in $models; do
  f32="$models_dir/$m/model.onnx"
  q="$out_dir/$m.qdq.onnx"
  # Iterations: --niter, else the corpus' own (chosen for 1-3 s of f32 per run), doubled for int8.
  n=${niter:-$(( 2 * $(sed -n 's/.*"niter": *\([0-9]*\).*/\1/p' "$models_dir/$m/info.json") ))}
  if [ ! -f "$q" ]; then
    PYTHONPATH="$build/python" "$py" "$repo/tools/quantize/vireo_quantize.py" "$f32" "$q" >&2
  fi
  for t in $threads; do
    : > "$out_dir/f32"; : > "$out_dir/int8"; : > "$out_dir/ort"
    for _ in $(seq "$reps"); do
      bapp "$f32" "$t" >> "$out_dir/f32"; echo >> "$out_dir/f32"
      bapp "$q" "$t" >> "$out_dir/int8"; echo >> "$out_dir/int8"
      ort_run "$q" "$t" >> "$out_dir/ort"
    done
    a=$(grep . "$out_dir/f32" | median); b=$(grep . "$out_dir/int8" | median); c=$(grep . "$out_dir/ort" | median)
    echo "| $m | $t | $a | $b | $c | $(awk "BEGIN{printf \"%.2fx\", $a/$b}") | $(awk "BEGIN{printf \"%.2f\", $b/$c}") |"
  done
done
