#!/usr/bin/env bash
# Times CPU inference next to busy processes (issue 29, "threading that survives a busy machine"):
# for each model, benchmark_app's median latency (sync API, one stream, LATENCY-style fixed
# threads) quiet at 1 and 2 threads, then at 1 and 2 threads while BUSY shell loops spin, for each
# given build, interleaved. Prints a Markdown table: the busy/quiet ratio of each cell says how much
# the lost core cost (about 2x is proportional on 2 cores with one busy loop).
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/bench_busy.sh --model ONNX [--model ONNX ...] [--build DIR ...] [--busy N] [--niter N] [--reps N]
  --model ONNX  a model file (repeatable)
  --build DIR   a Release build with benchmark_app and the CPU plugin (repeatable; default
                <repo>/build); several builds are timed interleaved, for an A/B
  --busy N      busy loops running during the busy cells (default 1)
  --niter N     iterations per benchmark_app run (default 200)
  --reps N      runs per cell, the median is reported (default 3)
EOF
}

repo=$(cd "$(dirname "$0")/.." && pwd)
models=(); builds=(); busy=1; niter=200; reps=3
while [ $# -gt 0 ]; do
  case $1 in
    --model) models+=("$2"); shift ;;
    --build) builds+=("$2"); shift ;;
    --busy) busy=$2; shift ;;
    --niter) niter=$2; shift ;;
    --reps) reps=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench_busy.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
((${#models[@]})) || { echo "bench_busy.sh: give at least one --model" >&2; exit 2; }
((${#builds[@]})) || builds=("$repo/build")
for b in "${builds[@]}"; do
  [ -x "$b/bin/benchmark_app" ] || { echo "bench_busy.sh: no $b/bin/benchmark_app" >&2; exit 2; }
done

pids=()
start_busy() {
  for ((i = 0; i < busy; ++i)); do
    sh -c 'while :; do :; done' &
    pids+=($!)
  done
  sleep 0.5
}
stop_busy() {
  ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  pids=()
}
trap stop_busy EXIT

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

latency() {  # BUILD MODEL THREADS
  # The build's own libraries: a copied build directory keeps its RUNPATH into the original tree.
  LD_LIBRARY_PATH="$1/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$1/bin/benchmark_app" -m "$2" -d CPU -api sync -hint none -nstreams 1 -nthreads "$3" \
    -niter "$niter" 2>/dev/null | awk '/Median:/ {print $2}'
}

declare -A cell
for ((r = 0; r < reps; ++r)); do
  for state in quiet busy; do
    [ $state = busy ] && start_busy
    for m in "${models[@]}"; do
      for t in 1 2; do
        for b in "${builds[@]}"; do
          cell["$m|$b|$state|$t"]+="$(latency "$b" "$m" "$t") "
        done
      done
    done
    [ $state = busy ] && stop_busy
  done
done

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
  "$(nproc) logical CPUs, $busy busy loop(s) in the busy columns; median latency in ms of $reps" \
  "runs of $niter iterations (benchmark_app -api sync -hint none -nstreams 1 -nthreads T)."
echo
echo "| model | build | quiet 1T | quiet 2T | busy 1T | busy 2T | busy 2T / quiet 2T | busy 2T / busy 1T |"
echo "|---|---|---|---|---|---|---|---|"
for m in "${models[@]}"; do
  for b in "${builds[@]}"; do
    q1=$(echo ${cell["$m|$b|quiet|1"]} | tr ' ' '\n' | median)
    q2=$(echo ${cell["$m|$b|quiet|2"]} | tr ' ' '\n' | median)
    b1=$(echo ${cell["$m|$b|busy|1"]} | tr ' ' '\n' | median)
    b2=$(echo ${cell["$m|$b|busy|2"]} | tr ' ' '\n' | median)
    printf '| %s | %s | %s | %s | %s | %s | %.2fx | %.2fx |\n' "$(basename "$(dirname "$m")")" \
      "$b" "$q1" "$q2" "$b1" "$b2" \
      "$(echo "$b2 / $q2" | bc -l)" "$(echo "$b2 / $b1" | bc -l)"
  done
done
