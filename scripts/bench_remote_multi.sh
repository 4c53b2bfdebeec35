#!/usr/bin/env bash
# Scale-out over CPU-bound servers (issue 32): two vireo_server processes, each pinned to its own
# core (taskset) and running one CPU inference thread, serve the same compute-bound model (a chain
# of f32 MatMuls, generated here, or --model FILE). benchmark_app measures async throughput on
# REMOTE.0 alone and on MULTI:REMOTE.0,REMOTE.1 in alternating rounds, next to the model on the
# local CPU pinned to one core with one thread (what one server can do at best). Prints a Markdown
# table with the date, commit, CPU and load average. Needs at least two logical CPUs.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/bench_remote_multi.sh [--build DIR] [--model FILE] [--seconds S] [--rounds N]
                                     [--nireq N]
  --build DIR    a build with vireo_server, benchmark_app and the REMOTE plugin (default <repo>/build)
  --model FILE   an IR (.xml) or ONNX model with static input shapes (default: 32 chained
                 32x1024 x 1024x1024 f32 MatMuls, 2.1 GFLOP and 128 KiB in and out per inference)
  --seconds S    seconds per measurement (default 10)
  --rounds N     alternating rounds of the three measurements (default 3)
  --nireq N      requests in flight per server (default 4; MULTI gets twice as many)
EOF
}

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build; model=; seconds=10; rounds=3; nireq=4
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift ;;
    --model) model=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --nireq) nireq=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench_remote_multi.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
for tool in vireo_server benchmark_app; do
  [ -x "$build/bin/$tool" ] || { echo "bench_remote_multi.sh: no $build/bin/$tool" >&2; exit 2; }
done
[ -e "$build/lib/libvireo_remote_plugin.so" ] || {
  echo "bench_remote_multi.sh: no REMOTE plugin in $build/lib (built with the server)" >&2; exit 2; }
command -v taskset > /dev/null || { echo "bench_remote_multi.sh: taskset (util-linux) is needed" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "bench_remote_multi.sh: needs two logical CPUs" >&2; exit 2; }
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The served repository: DIR/1/model.{xml,bin} or DIR/1/model.onnx.
mkdir -p "$work/repo/1"
if [ -z "$model" ]; then
  /usr/bin/python3 - "$work/repo/1" "$repo/server/tests" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
import model_ir
model_ir.matmul_model(sys.argv[1], rows=32, size=1024, layers=32)
EOF
  model=$work/repo/1/model.xml
else
  case $model in
    *.xml) cp "$model" "$work/repo/1/model.xml"; cp "${model%.xml}.bin" "$work/repo/1/model.bin" ;;
    *.onnx) cp "$model" "$work/repo/1/model.onnx" ;;
    *) echo "bench_remote_multi.sh: --model must be .xml or .onnx" >&2; exit 2 ;;
  esac
fi

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
ports=()
for core in 0 1; do
  port=$(free_port)
  taskset -c "$core" "$build/bin/vireo_server" --model_path "$work/repo" --model_name bench \
      --target_device CPU --nireq "$nireq" --port "$port" --rest_port 0 \
      --grpc_bind_address 127.0.0.1 \
      --plugin_config '{"INFERENCE_NUM_THREADS": "1", "NUM_STREAMS": "1", "PERFORMANCE_HINT": "LATENCY"}' \
      > "$work/server$core.log" 2>&1 &
  pids+=($!)
  ports+=("$port")
done
# Wait until both answer: a REMOTE compile with the repository's model name checks its metadata.
cat > "$work/remote.json" <<EOF
{"REMOTE": {"REMOTE_MODEL_NAME": "bench"}}
EOF
export VIREO_REMOTE_URLS="127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}"
for attempt in $(seq 1 100); do
  if "$build/bin/benchmark_app" -m "$model" -d REMOTE.1 -load_config "$work/remote.json" \
       -api sync -niter 1 > /dev/null 2>&1 &&
     "$build/bin/benchmark_app" -m "$model" -d REMOTE.0 -load_config "$work/remote.json" \
       -api sync -niter 1 > /dev/null 2>&1; then
    break
  fi
  [ "$attempt" = 100 ] && { echo "bench_remote_multi.sh: the servers did not come up" >&2;
                            cat "$work"/server*.log >&2; exit 1; }
  sleep 0.2
done

throughput() {  # prints inferences per second from benchmark_app's output
  sed -n 's/^Throughput: *\([0-9.]*\).*/\1/p' | tail -1
}
run_local() {
  taskset -c 0 "$build/bin/benchmark_app" -m "$model" -d CPU -api async -nireq 1 -nstreams 1 \
      -nthreads 1 -hint none -t "$seconds" 2>&1 | throughput
}
run_remote() {  # $1 device, $2 requests in flight
  "$build/bin/benchmark_app" -m "$model" -d "$1" -load_config "$work/remote.json" -api async \
      -nireq "$2" -t "$seconds" 2>&1 | throughput
}

declare -a local_fps one_fps multi_fps
for round in $(seq 1 "$rounds"); do
  local_fps+=("$(run_local)")
  one_fps+=("$(run_remote REMOTE.0 "$nireq")")
  multi_fps+=("$(run_remote MULTI:REMOTE.0,REMOTE.1 $((2 * nireq)))")
  echo "round $round: local ${local_fps[-1]}/s, REMOTE.0 ${one_fps[-1]}/s," \
       "MULTI ${multi_fps[-1]}/s" >&2
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
m_local=$(median "${local_fps[@]}")
m_one=$(median "${one_fps[@]}")
m_multi=$(median "${multi_fps[@]}")

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')," \
     "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1) ($(nproc) logical CPUs)," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; model $(basename "$model")," \
     "$seconds s per measurement, median of $rounds alternating rounds."
echo
echo "| measurement | requests in flight | inferences/s (rounds) | median | vs one server |"
echo "|---|---|---|---|---|"
echo "| CPU in process, one core, 1 thread | 1 | ${local_fps[*]} | $m_local | — |"
echo "| REMOTE.0 (one server on core 0) | $nireq | ${one_fps[*]} | $m_one | 1.00x |"
echo "| MULTI:REMOTE.0,REMOTE.1 (cores 0 and 1) | $((2 * nireq)) | ${multi_fps[*]} | $m_multi |" \
     "$(awk -v a="$m_multi" -v b="$m_one" 'BEGIN {printf "%.2fx", a / b}') |"
