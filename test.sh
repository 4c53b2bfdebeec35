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

# The build targets of the executables the ctest entries with labels matching $2 run in build
# dir $1 (executables in its bin/; interpreters such as python3 are not targets). ctest leaves the
# command out for an executable not built yet, so it is read from the CTestTestfile.cmake files.
tsan_targets() {
  (cd "$1" && ctest -N -L "$2" --show-only=json-v1) | /usr/bin/python3 -c '
import json, os, re, sys
build = os.path.realpath(sys.argv[1])
commands = {}
for root, _, files in os.walk(build):
    if "CTestTestfile.cmake" in files:
        text = open(os.path.join(root, "CTestTestfile.cmake")).read()
        for name, path in re.findall(r"add_test\(\[=\[(.+?)\]=\] \"([^\"]+)\"", text):
            commands[name] = path
names = set()
for test in json.load(sys.stdin).get("tests", []):
    command = (test.get("command") or [commands.get(test["name"], "")])[0]
    if os.path.dirname(os.path.realpath(command)) == build + "/bin":
        names.add(os.path.basename(command))
print("\n".join(sorted(names)))' "$1"
}

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
    # Unity builds of the test executables (cmake/VireoUnityBuild.cmake): the same tests, fewer
    # compiler runs; also the early check that no two files of one test target clash.
    configure_and_build build -DCMAKE_BUILD_TYPE=Release -DVIREO_UNITY_BUILD=ON
    (cd build && ctest --output-on-failure -j "$jobs")
    if [[ -x scripts/out_of_tree_check.sh ]]; then
      ./scripts/out_of_tree_check.sh build
    fi
    ;;
  --sanitize)
    ./scripts/install_deps.sh
    # One build per sanitizer, at -O1 (quicker to build than -O2; the usual level for sanitizers),
    # line tables only (-g1, cmake/VireoCompilerFlags.cmake) and unity builds of the test
    # executables (cmake/VireoUnityBuild.cmake): every test is still built and run.
    # Each phase prints its time; docs/reliability.md records the figures and the CI budget.
    sanitize_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1"
                    -DVIREO_BUILD_BENCHMARKS=OFF -DVIREO_UNITY_BUILD=ON)
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
    # threads). Only the executables those ctest entries run are built: the list comes from ctest
    # itself (tsan_targets), so a new test with one of these labels is built without being named
    # here (a conformance run's plugins are dependencies of the vireo_conformance target).
    start=$SECONDS
    tsan_labels="threading|sdk|mock_remote|server_cpp"
    cmake -S . -B build-tsan -G Ninja "${sanitize_flags[@]}" -DVIREO_SANITIZE=thread \
      -DVIREO_BUILD_SAMPLES=OFF >/dev/null
    mapfile -t tsan_targets < <(tsan_targets build-tsan "$tsan_labels")
    ((${#tsan_targets[@]})) || { echo "test.sh: no TSan targets found in build-tsan" >&2; exit 1; }
    echo "== tsan targets: ${tsan_targets[*]}"
    cmake --build build-tsan -j "$jobs" --target "${tsan_targets[@]}"
    echo "== tsan build: $((SECONDS - start)) s"
    start=$SECONDS
    (cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
      ctest --output-on-failure -j "$jobs" -L "$tsan_labels")
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
