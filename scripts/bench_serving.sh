#!/usr/bin/env bash
# Serving overhead (issue 31): vireo_server on two small IR models — tiny (y = x + 1 over 10 floats)
# and mlp (three 1024x1024 MatMuls on one row) — measured with vireo_loadgen over gRPC (unary
# ModelInfer), gRPC streaming (ModelStreamInfer) and REST (binary tensors) at a sweep of
# concurrency levels, next to the same models in process (benchmark_app: sync median latency, and
# async throughput with the server's nireq). Client, server and benchmark_app share the machine,
# so the figures include the client's own CPU. Prints a Markdown table with the date, commit and
# load average.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/bench_serving.sh [--build DIR] [--device DEV] [--nireq N] [--seconds S]
                                [--concurrency 1,4,16]
  --build DIR        a build with vireo_server, vireo_loadgen and benchmark_app (default <repo>/build)
  --device DEV       the server's and benchmark_app's device (default TEMPLATE)
  --nireq N          infer requests per model in the server and in benchmark_app's async run (2)
  --seconds S        seconds per concurrency level (default 5)
  --concurrency L    comma-separated concurrency levels (default 1,4,16)
EOF
}

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build; device=TEMPLATE; nireq=2; seconds=5; levels=1,4,16
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift ;;
    --device) device=$2; shift ;;
    --nireq) nireq=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --concurrency) levels=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench_serving.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
for tool in vireo_server vireo_loadgen benchmark_app; do
  [ -x "$build/bin/$tool" ] || { echo "bench_serving.sh: no $build/bin/$tool" >&2; exit 2; }
done
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

/usr/bin/python3 - "$work" "$repo/server/tests" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[2])
import model_ir
model_ir.add_model(os.path.join(sys.argv[1], "tiny", "1"), 1.0, size=10)
model_ir.matmul_model(os.path.join(sys.argv[1], "mlp", "1"), rows=1, size=1024, layers=3)
EOF
cat > "$work/config.json" <<EOF
{"model_config_list": [
  {"config": {"name": "tiny", "base_path": "$work/tiny", "target_device": "$device", "nireq": $nireq,
              "max_queue_size": 256}},
  {"config": {"name": "mlp", "base_path": "$work/mlp", "target_device": "$device", "nireq": $nireq,
              "max_queue_size": 256}}]}
EOF

"$build/bin/vireo_server" --config_path "$work/config.json" --port -1 --rest_port -1 \
  --grpc_bind_address 127.0.0.1 --rest_bind_address 127.0.0.1 2> "$work/server.log" &
server_pid=$!
for _ in $(seq 600); do
  grep -q "\[info\] ready" "$work/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
grpc=$(sed -n 's/.*gRPC listening on \([0-9.]*:[0-9]*\).*/\1/p' "$work/server.log" | head -1)
rest=$(sed -n 's/.*REST listening on \([0-9.]*:[0-9]*\).*/\1/p' "$work/server.log" | head -1)
[ -n "$grpc" ] && [ -n "$rest" ] || { echo "bench_serving.sh: no listening ports in the log" >&2; exit 1; }

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "### vireo_server overhead ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown))"
echo
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') ($(nproc) logical CPUs); device $device, nireq $nireq; load average at the start $(load)."
echo
header="| model | transport |"
rule="|---|---|"
IFS=, read -ra level_list <<< "$levels"
for c in "${level_list[@]}"; do header+=" c=$c infer/s (p50 us) |"; rule+="---|"; done
echo "$header errors |"
echo "$rule---|"

# One loadgen sweep -> one table row; args: model transport-label loadgen-args...
row() {
  local model=$1 label=$2; shift 2
  local out cells="" errors=0
  out=$(VIREO_LOADGEN_GRPC=$grpc "$build/bin/vireo_loadgen" "$@" --model "$model" \
          --concurrency "$levels" --seconds "$seconds")
  while read -r c rate p50 _ _ err _; do
    cells+=" $(printf '%.0f' "$rate") ($(printf '%.0f' "$p50")) |"
    errors=$((errors + err))
  done < <(echo "$out" | tail -n +2)
  echo "| $model | $label |$cells $errors |"
}

for model in tiny mlp; do
  row "$model" "gRPC" --grpc "$grpc"
  row "$model" "gRPC stream" --grpc "$grpc" --streaming 1
  row "$model" "REST binary" --rest "$rest"
done
echo
for model in tiny mlp; do
  xml="$work/$model/1/model.xml"
  # The sync run's mean time per inference from its throughput (benchmark_app prints latencies in
  # ms with two decimals, too coarse for tiny).
  sync=$("$build/bin/benchmark_app" -m "$xml" -d "$device" -api sync -t "$seconds" 2>&1 |
           sed -n 's/^Throughput: *\([0-9.]*\) FPS.*/\1/p' | head -1)
  async=$("$build/bin/benchmark_app" -m "$xml" -d "$device" -api async -nireq "$nireq" -t "$seconds" 2>&1 |
            sed -n 's/^Throughput: *\([0-9.]*\) FPS.*/\1/p' | head -1)
  echo "In process, $model: sync $(awk -v f="${sync:-0}" 'BEGIN { printf "%.1f", (f > 0 ? 1e6 / f : 0) }') us per inference (${sync:-?} infer/s), async nireq $nireq ${async:-?} infer/s."
done
echo
echo "Load average at the end: $(load)."
