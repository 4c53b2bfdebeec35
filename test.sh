#!/usr/bin/env bash
# Installs the dependencies, builds and runs every test with ctest; fails on any failure.
#
#   ./test.sh              source checks (scripts/check_tree.sh: clang-format, layering), then a
#                          Release build in build/ and the whole suite (what CI runs first)
#   ./test.sh --sanitize   AddressSanitizer+UndefinedBehaviorSanitizer build of the whole suite
#                          (build-asan/), then ThreadSanitizer on the threading, async, executor
#                          and plugin-loading tests (build-tsan/)
#   ./test.sh --fuzz [S]   builds the libFuzzer targets with clang and runs each for S seconds
#                          (default 60) over its committed corpus (build-fuzz/)
#   ./test.sh --stress [S] builds the stress test in build/ (Release) and runs it for S seconds
#                          (default 60) instead of its 3-second ctest run
set -euo pipefail
cd "$(dirname "$0")"

mode="${1:-default}"
jobs=$(nproc)

configure_and_build() {  # dir, extra cmake args... [-- targets...]
  local dir=$1; shift
  local args=() targets=()
  while (($#)); do
    if [[ $1 == -- ]]; then shift; targets=("$@"); break; fi
    args+=("$1"); shift
  done
  cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
  if ((${#targets[@]})); then
    cmake --build "$dir" -j "$jobs" --target "${targets[@]}"
  else
    cmake --build "$dir" -j "$jobs"
  fi
}

case "$mode" in
  default)
    ./scripts/install_deps.sh
    ./scripts/check_tree.sh  # formatting and layering, before spending time on a build
    configure_and_build build -DCMAKE_BUILD_TYPE=Release
    (cd build && ctest --output-on-failure -j "$jobs")
    if [[ -x scripts/out_of_tree_check.sh ]]; then
      ./scripts/out_of_tree_check.sh build
    fi
    ;;
  --sanitize)
    ./scripts/install_deps.sh
    # One build per sanitizer, at -O1 (quicker to build than -O2; the usual level for sanitizers).
    # Each phase prints its time; docs/reliability.md records the figures and the CI budget.
    sanitize_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1"
                    -DVIREO_BUILD_BENCHMARKS=OFF)
    # ASan + UBSan (LeakSanitizer included) over the whole suite; no benchmarks.
    start=$SECONDS
    configure_and_build build-asan "${sanitize_flags[@]}" -DVIREO_SANITIZE=address,undefined
    echo "== asan build: $((SECONDS - start)) s"
    start=$SECONDS
    (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --output-on-failure -j "$jobs" -LE "no_asan")
    echo "== asan tests: $((SECONDS - start)) s"
    # TSan over the threading-labelled tests (runtime: plugin loading and concurrency; stress;
    # the conformance runs), the SDK (executors, async pipeline) and MOCK_REMOTE (its device
    # threads). Only their targets are built; a new threading-labelled test needs its target here.
    start=$SECONDS
    configure_and_build build-tsan "${sanitize_flags[@]}" -DVIREO_SANITIZE=thread -DVIREO_BUILD_SAMPLES=OFF \
      -- vireo_sdk_tests vireo_runtime_tests vireo_mock_remote_tests vireo_stress_tests vireo_conformance \
      vireo_hetero_tests vireo_auto_tests vireo_batch_tests
    echo "== tsan build: $((SECONDS - start)) s"
    start=$SECONDS
    (cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
      ctest --output-on-failure -j "$jobs" -L "threading|sdk|mock_remote")
    echo "== tsan tests: $((SECONDS - start)) s"
    ;;
  --stress)
    seconds="${2:-60}"
    ./scripts/install_deps.sh
    configure_and_build build -DCMAKE_BUILD_TYPE=Release -- vireo_stress_tests
    build/bin/vireo_stress_tests --seconds "$seconds"
    ;;
  --fuzz)
    seconds="${2:-60}"
    ./scripts/install_deps.sh --fuzz
    ./scripts/run_fuzzers.sh "$seconds"
    ;;
  *)
    echo "usage: $0 [--sanitize | --fuzz [seconds] | --stress [seconds]]" >&2
    exit 2
    ;;
esac
