#!/usr/bin/env bash
# Times the CPU plugin against TEMPLATE and ONNX Runtime on the golden mlp/cnn and the real models
# (ResNet-50, MobileNet-V2, a BERT-like encoder) at 1 and 2 threads, interleaved in one run, plus
# the THROUGHPUT hint and compile time / peak memory. Prints a Markdown section (scripts/bench.sh
# includes it in docs/performance.md).
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/bench_cpu.sh [--build DIR] [--ort SCRIPT|none] [--onnx DIR] [--real DIR] [--reps N] [--quick]
  --build DIR   Release build with benchmark_app and the CPU and TEMPLATE plugins (default
                $VIREO_BUILD_DIR or <repo>/build)
  --ort SCRIPT  ort_bench.sh (default <repo>/../shared/bench/ort_bench.sh); "none" skips ORT
  --onnx DIR    golden ONNX models for ORT, DIR/<model>/model.onnx (default <ort dir>/../models/golden)
  --real DIR    exported real models, DIR/{resnet50,mobilenet_v2,encoder}/model.onnx (default
                $VIREO_REAL_MODELS or <repo>/../bench-models); when missing and PyTorch is installed
                they are exported there with <ort dir>/export_models.py, else their rows say "not run"
  --reps N      runs per cell, the median is reported (default 3; --quick: 1)
  --models LIST comma-separated subset of mlp,cnn,resnet50,mobilenet_v2,encoder (default all)
EOF
}

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${VIREO_BUILD_DIR:-$repo/build}
ort=${VIREO_ORT_BENCH:-$repo/../shared/bench/ort_bench.sh}
onnx_dir=""; real=${VIREO_REAL_MODELS:-$repo/../bench-models}; reps=3; quick=0
models=mlp,cnn,resnet50,mobilenet_v2,encoder
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift ;;
    --ort) ort=$2; shift ;;
    --onnx) onnx_dir=$2; shift ;;
    --real) real=$2; shift ;;
    --reps) reps=$2; shift ;;
    --quick) quick=1; reps=1 ;;
    --models) models=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench_cpu.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
bin=$build/bin
[ -x "$bin/benchmark_app" ] || { echo "bench_cpu.sh: $bin/benchmark_app is missing" >&2; exit 1; }
[ -z "$onnx_dir" ] && onnx_dir=$(dirname "$ort")/../models/golden
have_ort=0
[ "$ort" != none ] && [ -x "$ort" ] && command -v node >/dev/null && have_ort=1
tmp=$(mktemp -d /tmp/vireo_bench_cpu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Median of numbers (one a line), with 3 significant digits ("n/a" when there are none).
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit }
    m = v[int((NR + 1) / 2)]; if (m >= 100) printf "%.0f\n", m; else if (m >= 10) printf "%.1f\n", m;
    else if (m >= 1) printf "%.2f\n", m; else printf "%.3f\n", m }'
}
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}
bapp() { "$bin/benchmark_app" -json_report "$tmp/ba.json" "$@" > "$tmp/ba.log" 2>&1 || { cat "$tmp/ba.log" >&2; return 1; }; }
json_num() { grep -o "\"$2\": *[-0-9.eE+]*" "$1" | head -1 | sed 's/.*: *//'; }
# Median latency (ms) of benchmark_app on DEVICE with T threads, one stream, sync API.
vireo_ms() {
  local model=$1 device=$2 t=$3 niter=$4; : > "$tmp/lat.txt"
  for _ in $(seq "$reps"); do
    bapp -m "$model" -d "$device" -api sync -hint none -nstreams 1 -nthreads "$t" -niter "$niter" &&
      json_num "$tmp/ba.json" median >> "$tmp/lat.txt"
  done
  median < "$tmp/lat.txt"
}
ort_ms() {
  local model=$1 t=$2 niter=$3; : > "$tmp/ort.txt"
  [ $have_ort = 1 ] && [ -f "$model" ] || { echo "not run"; return; }
  for _ in $(seq "$reps"); do
    "$ort" "$model" "$t" "$niter" 2> "$tmp/ort.err" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' >> "$tmp/ort.txt" ||
      cat "$tmp/ort.err" >&2
  done
  median < "$tmp/ort.txt"
}

if [ ! -f "$real/resnet50/model.onnx" ] && /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then
  echo "== exporting the real models into $real" >&2
  mkdir -p "$real" && /usr/bin/python3 "$(dirname "$ort")/export_models.py" "$real" >&2 || true
fi

echo "### Compute: CPU vs TEMPLATE vs ONNX Runtime 1.30"
echo ""
echo "Median latency of one synchronous inference in ms (median of $reps runs; CPU and TEMPLATE:"
echo "\`benchmark_app -api sync -hint none -nstreams 1 -nthreads T\`; ORT: \`ort_bench.sh\` with T intra-op"
echo "threads). Target: CPU / ORT ≤ 1.0 at 1 thread; goal ≤ 0.8 on every row."
echo ""
echo "| model | threads | CPU ms | TEMPLATE ms | ORT ms | CPU / ORT | CPU / TEMPLATE | target 1 thread |"
echo "|---|---|---|---|---|---|---|---|"
declare -A cpu_lat ort_lat
specs="mlp:$repo/tests/data/models/golden/mlp/model.xml:$onnx_dir/mlp/model.onnx:200"
specs+=" cnn:$repo/tests/data/models/golden/cnn/model.xml:$onnx_dir/cnn/model.onnx:200"
for m in resnet50 mobilenet_v2 encoder; do
  iters=20; [ $m = mobilenet_v2 ] && iters=60; [ $m = encoder ] && iters=60
  [ $quick = 1 ] && iters=$(( iters / 4 ))
  specs+=" $m:$real/$m/model.onnx:$real/$m/model.onnx:$iters"
done
wanted() { [[ ",$models," == *",$1,"* ]]; }
for spec in $specs; do
  IFS=: read -r name model onnx niter <<< "$spec"
  wanted "$name" || continue
  if [ ! -f "$model" ]; then
    echo "| $name | 1, 2 | not run (no $model; export it with export_models.py, needs PyTorch) | | | | | |"
    continue
  fi
  for t in 1 2; do
    c=$(vireo_ms "$model" CPU $t "$niter"); r=$(vireo_ms "$model" TEMPLATE $t "$niter"); o=$(ort_ms "$onnx" $t "$niter")
    cpu_lat[$name.$t]=$c; ort_lat[$name.$t]=$o
    v="—"; if [ $t = 1 ]; then v=$(awk -v x="$(ratio "$c" "$o")" 'BEGIN { if (x == "n/a") print "n/a"; else print (x <= 1.0) ? "met" : "**missed**" }'); fi
    echo "| $name | $t | $c | $r | $o | $(ratio "$c" "$o") | $(ratio "$c" "$r") | $v |"
  done
done
echo ""
echo "Speed-up of 2 threads over 1 (one inference at a time); targets: ≥ 1.8x on resnet50, ≥ 1.6x on"
echo "mobilenet_v2 and encoder."
echo ""
echo "| model | CPU 1 / 2 threads | ORT 1 / 2 threads |"
echo "|---|---|---|"
for name in mlp cnn resnet50 mobilenet_v2 encoder; do
  [ -n "${cpu_lat[$name.1]:-}" ] || continue
  echo "| $name | $(ratio "${cpu_lat[$name.1]}" "${cpu_lat[$name.2]}")x | $(ratio "${ort_lat[$name.1]:-n/a}" "${ort_lat[$name.2]:-n/a}")x |"
done
echo ""
echo "bf16 (\`-infer_precision bf16\`: convolutions and weight MatMuls in bf16, f32 elsewhere) against"
echo "CPU f32 and ORT f32 from the table above; accuracy: largest absolute difference from PyTorch's"
echo "expected output and whether the arg-max agrees (Python bindings of this build)."
echo ""
echo "| model | threads | CPU bf16 ms | CPU f32 ms | ORT f32 ms | bf16 / ORT | max abs error vs PyTorch | same arg-max |"
echo "|---|---|---|---|---|---|---|---|"
for m in resnet50 mobilenet_v2 encoder; do
  wanted "$m" || continue
  model=$real/$m/model.onnx
  [ -f "$model" ] || { echo "| $m | 1, 2 | not run | | | | | |"; continue; }
  acc="n/a | n/a"
  if [ -d "$build/python/vireo" ] && [ -f "$real/$m/expected.npy" ]; then
    acc=$(PYTHONPATH="$build/python" /usr/bin/python3 - "$real/$m" <<'PY' 2>/dev/null || echo "n/a | n/a"
import sys, numpy as np, vireo
d = sys.argv[1]
x, e = np.load(f"{d}/input.npy"), np.load(f"{d}/expected.npy")
c = vireo.Core().compile_model(f"{d}/model.onnx", "CPU", {"INFERENCE_PRECISION_HINT": "bf16"})
y = np.array(list(c.create_infer_request().infer({0: x}).values())[0])
same = bool((y.reshape(len(y), -1).argmax(-1) == e.reshape(len(e), -1).argmax(-1)).all())
print(f"{np.abs(y - e).max():.2g} | {'yes' if same else 'no'}")
PY
)
  fi
  for t in 1 2; do
    iters=20; [ $m != resnet50 ] && iters=60; [ $quick = 1 ] && iters=$(( iters / 4 ))
    : > "$tmp/lat.txt"
    for _ in $(seq "$reps"); do
      bapp -m "$model" -d CPU -api sync -hint none -nstreams 1 -nthreads "$t" -niter "$iters" -infer_precision bf16 &&
        json_num "$tmp/ba.json" median >> "$tmp/lat.txt"
    done
    b=$(median < "$tmp/lat.txt")
    echo "| $m | $t | $b | ${cpu_lat[$m.$t]:-n/a} | ${ort_lat[$m.$t]:-n/a} | $(ratio "$b" "${ort_lat[$m.$t]:-n/a}") | $acc |"
  done
done
echo ""
echo "Throughput on CPU (\`benchmark_app -t S\`, FPS, median of $reps runs): one stream × one thread"
echo "against the THROUGHPUT hint (one stream per core, one thread each); target ≥ 1.8x. Compile time"
echo "and peak RSS of the whole benchmark_app process (LATENCY hint)."
echo ""
echo "| model | 1 stream × 1 thread FPS | THROUGHPUT FPS | ratio | compile ms | peak RSS MiB | weights MiB (.onnx size) |"
echo "|---|---|---|---|---|---|---|"
secs=3; [ $quick = 1 ] && secs=1
for spec in "cnn:$repo/tests/data/models/golden/cnn/model.xml" "resnet50:$real/resnet50/model.onnx" \
            "mobilenet_v2:$real/mobilenet_v2/model.onnx" "encoder:$real/encoder/model.onnx"; do
  name=${spec%%:*}; model=${spec#*:}
  wanted "$name" || continue
  [ -f "$model" ] || { echo "| $name | not run | | | | | |"; continue; }
  : > "$tmp/one.txt"; : > "$tmp/tp.txt"; : > "$tmp/cm.txt"; : > "$tmp/rss.txt"
  for _ in $(seq "$reps"); do
    bapp -m "$model" -d CPU -hint none -nstreams 1 -nthreads 1 -t $secs && json_num "$tmp/ba.json" throughput_fps >> "$tmp/one.txt"
    bapp -m "$model" -d CPU -hint throughput -t $secs && json_num "$tmp/ba.json" throughput_fps >> "$tmp/tp.txt"
    /usr/bin/time -f %M -o "$tmp/time.txt" "$bin/benchmark_app" -m "$model" -d CPU -hint latency -niter 1 \
      -json_report "$tmp/ba.json" > "$tmp/ba.log" 2>&1 && json_num "$tmp/ba.json" compile_ms >> "$tmp/cm.txt"
    awk '{ printf "%.0f\n", $1 / 1024 }' "$tmp/time.txt" >> "$tmp/rss.txt"
  done
  one=$(median < "$tmp/one.txt"); tp=$(median < "$tmp/tp.txt")
  weights=$model; [ "${model##*.}" = xml ] && weights=${model%.xml}.bin
  size=$(du -m "$weights" | cut -f1)
  echo "| $name | $one | $tp | $(ratio "$tp" "$one")x | $(median < "$tmp/cm.txt") | $(median < "$tmp/rss.txt") | $size |"
done
echo ""
