#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan) and runs each for a bounded time over its
# committed corpus. A crash fails the run; the reproducer is left in build-fuzz/crashes/<target>/
# and must be added to tests/fuzz/corpus/<target>/ once fixed, so the plain test suite replays it.
#   scripts/run_fuzzers.sh [seconds per target, default 60]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
jobs=$(nproc)

# Every object gets libFuzzer's coverage instrumentation (fuzzer-no-link), not only the targets:
# without it the fuzzer is blind to the reader code it is meant to explore.
start=$SECONDS
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1" "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link" \
  -DVIREO_SANITIZE=address,undefined -DVIREO_BUILD_FUZZERS=ON \
  -DVIREO_BUILD_TESTS=ON -DVIREO_BUILD_SAMPLES=OFF -DVIREO_BUILD_BENCHMARKS=OFF >/dev/null
targets=$(cd build-fuzz && ninja -t targets all | sed -n 's/^\(fuzz_[a-z_]*\): phony$/\1/p' | sort -u)
cmake --build build-fuzz -j "$jobs" --target $targets
echo "== fuzz build: $((SECONDS - start)) s"

status=0
for t in $targets; do
  name=${t#fuzz_}
  work=build-fuzz/corpus_work/$name
  crashes=build-fuzz/crashes/$name
  mkdir -p "$work" "$crashes"
  echo "== fuzzing $name for ${seconds}s"
  # GLOG_minloglevel=2: the readers' warnings about odd inputs would flood the log.
  if ! GLOG_minloglevel=2 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
      LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp" \
      "build-fuzz/bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$crashes/" -print_final_stats=1 "$work" "tests/fuzz/corpus/$name" \
      2>"build-fuzz/$name.log"; then
    echo "!! $name: crash; see build-fuzz/$name.log and $crashes/"
    tail -40 "build-fuzz/$name.log"
    status=1
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "build-fuzz/$name.log" | sed "s/^/   $name /" || true
  echo "   $name corpus: $(ls "tests/fuzz/corpus/$name" | wc -l) committed + $(ls "$work" | wc -l) found"
done
exit $status
