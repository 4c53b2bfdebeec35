#!/usr/bin/env bash
# Times the CPU plugin against ONNX Runtime 1.30 on the broad benchmark corpus of issue 29 (about 30
# architectures exported by benchmarks/corpus/export_corpus.py): for each model and thread count it
# runs benchmark_app (sync API, one stream) and ../shared/bench/ort_bench.sh interleaved, optionally
# CPU in bf16 too, checks CPU's output against PyTorch's once per model, and writes a Markdown section
# with the geometric means, the date, the machine and its load (for docs/performance.md).
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/bench_corpus.sh [options]
  --build DIR     build with bin/benchmark_app and the CPU plugin (default $VIREO_BUILD_DIR or <repo>/build)
  --models DIR    the corpus, DIR/<model>/model.onnx (default $VIREO_CORPUS_MODELS or
                  <repo>/../bench-models/corpus); exported there with benchmarks/corpus/export_corpus.py
                  when models are missing and PyTorch is installed
  --reps N        runs per cell, interleaved CPU / ORT (/ bf16); the median is reported (default 3)
  --niter N       benchmark_app and ORT iterations per run (default: "niter" of the model's info.json,
                  chosen for about 1-3 s per run)
  --threads LIST  thread counts, space- or comma-separated (default "1 2")
  --only LIST     comma-separated model names (default: every model of the corpus)
  --bf16          also time CPU with -infer_precision bf16
  --ort SCRIPT    ort_bench.sh (default $VIREO_ORT_BENCH or <repo>/../shared/bench/ort_bench.sh);
                  "none" skips ONNX Runtime
  --budget S      a probe run (-niter 3) first; when CPU would take longer than S seconds per run
                  at N iterations, N becomes S / latency (at least 5) for CPU and ORT (default 30)
  --timeout S     limit for each benchmark_app, ORT or check process, in seconds (default 300)
  --no-check      skip the correctness column
  --out FILE      write the Markdown there (default: standard output); progress goes to stderr
  -h, --help      this text
Environment: VIREO_PYTHON (default /usr/bin/python3) runs the exporter and the correctness check.
Example (the full benchmark on a quiet machine, 30 models x 2 thread counts, about 45-75 minutes):
  scripts/bench_corpus.sh --bf16 --out /tmp/corpus.md
EOF
}

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${VIREO_BUILD_DIR:-$repo/build}
models_dir=${VIREO_CORPUS_MODELS:-$repo/../bench-models/corpus}
ort=${VIREO_ORT_BENCH:-$repo/../shared/bench/ort_bench.sh}
reps=3; niter_override=""; threads="1 2"; only=""; bf16=0; tmo=300; budget=30; check=1; out=""
py=${VIREO_PYTHON:-/usr/bin/python3}  # needs numpy; torch, torchvision and onnx only to export
exporter=$repo/benchmarks/corpus/export_corpus.py
checker=$repo/benchmarks/corpus/check_corpus.py
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=${2:?--build needs a folder}; shift ;;
    --models) models_dir=${2:?--models needs a folder}; shift ;;
    --reps) reps=${2:?--reps needs a number}; shift ;;
    --niter) niter_override=${2:?--niter needs a number}; shift ;;
    --threads) threads=${2:?--threads needs a list}; shift ;;
    --only) only=${2:?--only needs a list}; shift ;;
    --bf16) bf16=1 ;;
    --ort) ort=${2:?--ort needs a script or none}; shift ;;
    --timeout) tmo=${2:?--timeout needs seconds}; shift ;;
    --budget) budget=${2:?--budget needs seconds}; shift ;;
    --no-check) check=0 ;;
    --out) out=${2:?--out needs a file}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench_corpus.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
threads=${threads//,/ }
models_dir=$(realpath -m "$models_dir")
for n in $reps $niter_override $threads $tmo $budget; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench_corpus.sh: '$n' is not a positive number" >&2; exit 2; }
done
bin=$build/bin
[ -x "$bin/benchmark_app" ] || { echo "bench_corpus.sh: $bin/benchmark_app is missing (build it first)" >&2; exit 1; }
# The build's own libraries and plugins: a copied build directory keeps its RUNPATH into the tree it
# was copied from, and would time that tree's plugins.
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
log() { echo "[bench_corpus $(date +%H:%M:%S)] $*" >&2; }

# ---- the corpus: export what is missing when PyTorch is installed
have_torch=0
$py -c 'import torch, torchvision, onnx, numpy' 2>/dev/null && have_torch=1
complete() { [ -f "$models_dir/$1/info.json" ] && [ -f "$models_dir/$1/model.onnx" ]; }
if [ -n "$only" ]; then
  IFS=, read -r -a names <<< "$only"
elif [ $have_torch = 1 ]; then
  mapfile -t names < <($py "$exporter" --list)
else
  mapfile -t names < <(find "$models_dir" -mindepth 2 -maxdepth 2 -name info.json 2>/dev/null | xargs -r -n1 dirname |
                       xargs -r -n1 basename | sort)
fi
missing=()
for m in "${names[@]}"; do complete "$m" || missing+=("$m"); done
if [ ${#names[@]} = 0 ] || [ ${#missing[@]} -gt 0 ]; then
  if [ $have_torch = 1 ]; then
    log "exporting ${#missing[@]} model(s) into $models_dir with $exporter (PyTorch, random weights)"
    mkdir -p "$models_dir"
    $py "$exporter" "$models_dir" "${missing[@]}" >&2 ||
      log "some models failed to export (see above); their rows say so"
  elif [ ${#names[@]} = 0 ] || [ ${#missing[@]} = ${#names[@]} ]; then
    echo "bench_corpus.sh: no corpus in $models_dir and PyTorch is not installed, so it cannot be exported."
    echo "Install Debian's python3-torch python3-torchvision python3-onnx python3-numpy (about 600 MB), or"
    echo "pass --models DIR with a corpus exported elsewhere by benchmarks/corpus/export_corpus.py. Nothing run."
    exit 0
  else
    log "PyTorch is not installed: ${missing[*]} cannot be exported; their rows say so"
  fi
fi

have_ort=0
[ "$ort" != none ] && [ -x "$ort" ] && command -v node >/dev/null && have_ort=1
[ $have_ort = 1 ] || log "ONNX Runtime not run ($ort missing, 'none', or no node)"
tmp=$(mktemp -d /tmp/vireo_bench_corpus.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# ---- correctness: the Python package of this build, else hello_infer, else not checked
check_mode=none
if [ $check = 1 ]; then
  if [ -d "$build/python/vireo" ] &&
     PYTHONPATH="$build/python" timeout 60 $py -c 'import vireo, sys; sys.exit("CPU" not in vireo.Core().available_devices)' 2>/dev/null; then
    check_mode=python
  elif [ -x "$bin/hello_infer" ]; then
    check_mode=hello_infer
  fi
fi
check_model() {  # DIR [check_corpus.py options: --precision bf16 --tolerance 1e-2]
  local dir=$1 res="" rc=0
  shift
  case $check_mode in
    python) res=$(PYTHONPATH="$build/python" timeout "$tmo" $py "$checker" "$dir" --device CPU "$@" 2>/dev/null) || rc=$? ;;
    hello_infer) res=$(timeout "$tmo" $py "$checker" "$dir" --device CPU --hello-infer "$bin/hello_infer" "$@" 2>/dev/null) || rc=$? ;;
    *) echo "not checked"; return 0 ;;
  esac
  [ $rc = 124 ] && res="failed: timed out after ${tmo} s"
  [ -n "$res" ] || res="failed (exit status $rc)"
  echo "${res//|//}"
}

# ---- helpers
median() {  # median of numbers, one a line, 3 significant digits; "n/a" when there are none
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit }
    m = v[int((NR + 1) / 2)]; if (m >= 100) printf "%.0f\n", m; else if (m >= 10) printf "%.1f\n", m;
    else if (m >= 1) printf "%.2f\n", m; else printf "%.3f\n", m }'
}
isnum() { [[ $1 =~ ^[0-9.]+$ ]]; }
ratio() { if isnum "$1" && isnum "$2"; then awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'; else echo "n/a"; fi; }
first_error() {  # the first line of benchmark_app's error message in a log
  local line
  line=$(grep -m1 -E '\[ ERROR \]|rror|xception' "$1" || true)
  [ -n "$line" ] || line=$(grep -v '^\s*$' "$1" | tail -1 || true)
  line=${line#*\[ ERROR \] }; line=${line//|//}; line=${line//$models_dir\//}
  echo "${line:0:200}"
}
# One benchmark_app run: prints the median latency in ms, or "failed: ..." and returns 1.
bapp_once() {
  local model=$1 t=$2 niter=$3; shift 3
  local rc=0
  rm -f "$tmp/ba.json"
  timeout "$tmo" "$bin/benchmark_app" -json_report "$tmp/ba.json" -m "$model" -d CPU -api sync -hint none \
    -nstreams 1 -nthreads "$t" -niter "$niter" "$@" > "$tmp/ba.log" 2>&1 || rc=$?
  if [ $rc = 124 ]; then echo "failed: timed out after ${tmo} s ($niter iterations)"; return 1; fi
  if [ $rc != 0 ] || [ ! -f "$tmp/ba.json" ]; then echo "failed: $(first_error "$tmp/ba.log")"; return 1; fi
  grep -o '"median": *[-0-9.eE+]*' "$tmp/ba.json" | head -1 | sed 's/.*: *//'
}
ort_once() {
  local model=$1 t=$2 niter=$3 rc=0 r
  r=$(timeout "$tmo" "$ort" "$model" "$t" "$niter" 2> "$tmp/ort.err") || rc=$?
  if [ $rc = 124 ]; then echo "failed: timed out after ${tmo} s"; return 1; fi
  r=$(sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<< "$r")
  if [ $rc != 0 ] || [ -z "$r" ]; then echo "failed: $(first_error "$tmp/ort.err")"; return 1; fi
  echo "$r"
}
# A model exported with dynamic axes (info.json's "dynamic_axes"): ort_bench.sh would feed 1 for every
# dynamic dimension and benchmark_app needs a shape, so both run on the exported inputs' shapes:
# benchmark_app with -data_shape, ORT through scripts/real_models_ort.mjs on the input_<name>.npy files.
data_shape_of() {  # DIR: "x[2,3,64,48],y[...]" for a dynamic-axes export, nothing otherwise
  $py - "$1/info.json" <<'PY'
import json, sys
info = json.load(open(sys.argv[1]))
if info.get("dynamic_axes"):
    print(",".join("%s[%s]" % (n, ",".join(str(d) for d in s)) for n, s in info["inputs"].items()))
PY
}
ort_inputs_once() {  # DIR THREADS N: ORT on the exported inputs, median ms
  local dir=$1 t=$2 niter=$3 rc=0 r f args=()
  for f in "$dir"/input_*.npy; do args+=("$(basename "$f" .npy | sed 's/^input_//')=$f"); done
  r=$(NODE_PATH="${VIREO_ORT_DIR:-$HOME/.cache/vireo-ort}/node_modules" timeout "$tmo" node \
        "$repo/scripts/real_models_ort.mjs" "$dir/model.onnx" "$tmp/ort_out" "$t" "$niter" "${args[@]}" \
        2> "$tmp/ort.err") || rc=$?
  if [ $rc = 124 ]; then echo "failed: timed out after ${tmo} s"; return 1; fi
  r=$(sed -n 's/.*"median_ms":\([0-9.eE+-]*\).*/\1/p' <<< "$r")
  if [ $rc != 0 ] || [ -z "$r" ]; then echo "failed: $(first_error "$tmp/ort.err")"; return 1; fi
  echo "$r"
}
# Appends a run's result to a cell file; the first failure message is kept in FILE.err.
record() { if isnum "$2"; then echo "$2" >> "$1"; else [ -f "$1.err" ] || echo "$2" > "$1.err"; fi; }
cell() { if [ -s "$1" ]; then median < "$1"; elif [ -f "$1.err" ]; then echo "**$(cat "$1.err")**"; else echo "n/a"; fi; }

# ---- header
cpu_name=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
start_date=$(date -u '+%Y-%m-%d %H:%M UTC')
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
first_t=${threads%% *}
declare -A lat ortl bfl
rows=(); fails=()
log "corpus of ${#names[@]} model(s) in $models_dir; threads: $threads; reps $reps; correctness: $check_mode"

for m in "${names[@]}"; do
  dir=$models_dir/$m; model=$dir/model.onnx
  if ! complete "$m"; then
    rows+=("| $m | $threads | | not exported (see export_corpus.py's output) | | | | | | |$([ $bf16 = 1 ] && echo " |")"); fails+=("$m: not exported")
    continue
  fi
  niter=$niter_override
  [ -n "$niter" ] || niter=$(grep -o '"niter": *[0-9]*' "$dir/info.json" | sed 's/.*: *//')
  [ -n "$niter" ] || niter=20
  acc="not checked"; acc_bf16="not checked"
  if [ $check_mode != none ]; then log "$m: checking CPU's output"; acc=$(check_model "$dir"); fi
  if [ $check_mode != none ] && [ $bf16 = 1 ]; then
    acc_bf16=$(check_model "$dir" --precision bf16 --tolerance 1e-2)
  fi
  cpu_failed=""; cpu_failed_at=""  # after a failure or timeout CPU is not run again on this model
  shapes=$(data_shape_of "$dir"); cpu_args=()
  [ -n "$shapes" ] && { cpu_args=(-data_shape "$shapes"); log "$m: dynamic axes, timed at $shapes"; }
  # Probe: compiles once (a model that fails is known at once) and bounds N for slow models.
  r=$(bapp_once "$model" "$first_t" 3 "${cpu_args[@]}") || { cpu_failed=$r; cpu_failed_at=$first_t; }
  if isnum "$r"; then
    cap=$(awk -v b="$budget" -v l="$r" 'BEGIN { n = int(b * 1000 / (l > 0 ? l : 1)); print (n < 5) ? 5 : n }')
    if [ "$cap" -lt "$niter" ]; then
      log "$m: CPU takes $r ms per inference, N $niter -> $cap to keep a run near $budget s"; niter=$cap
    fi
  fi
  for t in $threads; do
    rm -f "$tmp"/cell.*
    log "$m: $t thread(s), $reps x $niter iterations"
    for _ in $(seq "$reps"); do
      if [ -z "$cpu_failed" ]; then
        r=$(bapp_once "$model" "$t" "$niter" "${cpu_args[@]}") || { cpu_failed=$r; cpu_failed_at=$t; }
        record "$tmp/cell.cpu" "$r"
      fi
      if [ $have_ort = 1 ] && [ -n "$shapes" ]; then
        record "$tmp/cell.ort" "$(ort_inputs_once "$dir" "$t" "$niter" || true)"
      elif [ $have_ort = 1 ]; then
        record "$tmp/cell.ort" "$(ort_once "$model" "$t" "$niter" || true)"
      fi
      if [ $bf16 = 1 ] && [ -z "$cpu_failed" ]; then
        record "$tmp/cell.bf16" "$(bapp_once "$model" "$t" "$niter" -infer_precision bf16 "${cpu_args[@]}" || true)"
      fi
    done
    if [ -n "$cpu_failed" ] && [ ! -s "$tmp/cell.cpu" ]; then
      c="**CPU ${cpu_failed}**"
    else
      c=$(cell "$tmp/cell.cpu")
    fi
    [ "$t" = "$cpu_failed_at" ] && fails+=("$m ($t thread(s)): ${cpu_failed}")
    o=$([ $have_ort = 1 ] && cell "$tmp/cell.ort" || echo "not run")
    b=$([ $bf16 = 1 ] && cell "$tmp/cell.bf16" || echo "")
    lat[$m.$t]=$c; ortl[$m.$t]=$o; bfl[$m.$t]=$b
    speed="—"
    if [ "$t" != "$first_t" ]; then
      cs=$(ratio "${lat[$m.$first_t]}" "$c"); os=$(ratio "${ortl[$m.$first_t]}" "$o")
      speed="$cs / $os"
      if isnum "$cs" && isnum "$os"; then
        speed="${cs}x / ${os}x"
        speed+=$(awk -v a="$cs" -v b="$os" 'BEGIN { print (a >= b) ? " met" : " **missed**" }')
      fi
    fi
    a="—"; [ "$t" = "$first_t" ] && a=$acc
    row="| $m | $t | $niter | $c | $o | $(ratio "$c" "$o")"
    [ $bf16 = 1 ] && row+=" | $b | $(ratio "$b" "$o")"
    row+=" | $speed | $a |"
    if [ $bf16 = 1 ]; then ab="—"; [ "$t" = "$first_t" ] && ab=$acc_bf16; row+=" $ab |"; fi
    rows+=("$row")
    log "$m: $t thread(s): CPU $c, ORT $o${b:+, bf16 $b}"
  done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# Geometric mean of the ratios A/B over the models that have both, for one thread count or all.
geomean() {
  local -n num=$1; local sel=$2 vals="" k t
  for k in "${!num[@]}"; do
    t=${k##*.}
    [ "$sel" = all ] || [ "$t" = "$sel" ] || continue
    isnum "${num[$k]}" && isnum "${ortl[$k]:-}" && vals+="$(ratio "${num[$k]}" "${ortl[$k]}") "
  done
  awk -v v="$vals" 'BEGIN { n = split(v, a, " "); if (n == 0) { print "n/a"; exit }
    s = 0; worst = 0; met = 0; for (i = 1; i <= n; i++) { s += log(a[i]); if (a[i] > worst) worst = a[i]; if (a[i] <= 1.0) met++ }
    printf "%.2fx (%d rows, %d at <= 1.0x, worst %.2fx)\n", exp(s / n), n, met, worst }'
}

# ---- the report
{
  echo "### CPU vs ONNX Runtime 1.30 on the broad corpus (issue 29)"
  echo ""
  echo "$start_date, commit $commit, on \`$cpu_name\` ($(nproc) logical CPUs); load average (1, 5, 15 min)"
  echo "$load_start at the start and $load_end at the end. ${#names[@]} models from"
  echo "\`benchmarks/corpus/export_corpus.py\` (random weights, batch 1, static shapes). Median latency of one"
  echo "synchronous inference in ms, median of $reps interleaved runs per cell: CPU \`benchmark_app -api sync"
  echo "-hint none -nstreams 1 -nthreads T -niter N\`$([ $bf16 = 1 ] && echo " (bf16: plus \`-infer_precision bf16\`)"); ORT"
  echo "\`ort_bench.sh MODEL T N\` (intra-op threads T); a model exported with dynamic axes runs at its exported"
  echo "inputs' shapes (\`-data_shape\`; ORT through \`scripts/real_models_ort.mjs\` on those inputs)."
  echo "N is the model's from its info.json, lowered where CPU"
  echo "would take over $budget s a run. Targets: CPU / ORT ≤ 1.0 on every row, geometric mean ≤ 0.8"
  echo "in f32 and ≤ 0.55 in bf16; 2-thread speed-up (latency at $first_t thread(s) / at T) at least ORT's."
  echo "Correctness: max abs error of CPU's output against PyTorch's, of the output's largest magnitude"
  case $check_mode in
    python) how="checked with this build's Python package" ;;
    hello_infer) how="checked with hello_infer" ;;
    *) how="not checked: no Python package or hello_infer in $build, or --no-check" ;;
  esac
  echo "(\"ok\" within 1e-3 of it$([ $bf16 = 1 ] && echo ", within 1e-2 in bf16"); $how)."
  echo ""
  if [ $bf16 = 1 ]; then
    echo "| model | threads | N | CPU ms | ORT ms | CPU / ORT | bf16 ms | bf16 / ORT | speed-up CPU / ORT | max abs error (f32) | max abs error (bf16) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
  else
    echo "| model | threads | N | CPU ms | ORT ms | CPU / ORT | speed-up CPU / ORT | max abs error |"
    echo "|---|---|---|---|---|---|---|---|"
  fi
  printf '%s\n' "${rows[@]}"
  echo ""
  echo "Geometric mean of CPU / ORT:"
  echo ""
  echo "| threads | f32 |$([ $bf16 = 1 ] && echo " bf16 |")"
  echo "|---|---|$([ $bf16 = 1 ] && echo "---|")"
  for t in $threads all; do
    echo "| $t | $(geomean lat "$t") |$([ $bf16 = 1 ] && echo " $(geomean bfl "$t") |")"
  done
  if [ ${#fails[@]} -gt 0 ]; then
    echo ""
    echo "Models that failed or timed out on CPU (not run again at the next thread counts):"
    echo ""
    printf -- '- %s\n' "${fails[@]}"
  fi
  echo ""
} > "$tmp/report.md"
if [ -n "$out" ]; then
  cp "$tmp/report.md" "$out"
  log "report written to $out"
else
  cat "$tmp/report.md"
fi
