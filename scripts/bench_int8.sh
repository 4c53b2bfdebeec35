#!/usr/bin/env bash
# Times int8 against f32 on the CPU plugin, and against ONNX Runtime 1.30 on the same QDQ file: for
# each model it quantizes the corpus export with tools/quantize/vireo_quantize.py (once, random
# calibration data unless --calib), then runs benchmark_app f32, benchmark_app int8 and
# ort_bench.sh int8 interleaved, REPS times per thread count, and prints a Markdown table of medians.
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
usage() { echo "usage: scripts/bench_int8.sh [--dynamic] [--models a,b] [--reps N] [--niter N (default: 2x the corpus' niter)] [--threads '1 2'] [--out-dir DIR]"; }
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
if [ -z "$models" ]; then
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
