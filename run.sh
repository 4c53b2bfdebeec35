#!/usr/bin/env bash
# Installs the dependencies, builds Vireo (Release) and runs the main demo: benchmark_app on a
# bundled model on TEMPLATE, then on the simulated remote device MOCK_REMOTE with one and with
# four requests in flight, writing a Chrome trace of the pipeline stages; then async_pipeline
# shows one request's per-stage profile; then an ONNX model read directly, converted to IR,
# ONNX's own operator tests run on TEMPLATE, a custom op loaded from an extension, and the
# meta-devices: HETERO running a stateful model MOCK_REMOTE cannot run alone, AUTO serving the
# first requests on TEMPLATE while MOCK_REMOTE compiles, MULTI spreading requests over both
# MOCK_REMOTE instances.
# Output goes to stdout only (no `tee /dev/stderr`): redirected to a file, the log comes out whole.
set -euo pipefail
cd "$(dirname "$0")"

./scripts/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target benchmark_app hello_query_device hello_infer async_pipeline \
  vireo_template_plugin vireo_mock_remote_plugin vireo_onnx_frontend vireo_convert vireo_onnx_backend \
  vireo_example_extension vireo_hetero_plugin vireo_auto_plugin vireo_batch_plugin \
  $( [[ -d plugins/cpu ]] && echo vireo_cpu_plugin )

model=samples/models/cnn/cnn.xml  # made by build/bin/model_generator -o samples/models
bench=build/bin/benchmark_app
throughput() { grep -E '^Throughput' "$1" | awk '{print $2}'; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Runs benchmark_app with the given arguments, shows its output and keeps it in $log.
bench_run() { $bench "$@" > "$log"; cat "$log"; }

echo "== Devices"
build/bin/hello_query_device | grep -E '^[A-Z_]+(\.[0-9]+)?$'

echo "== TEMPLATE (reference interpreter), sync API"
bench_run -m "$model" -d TEMPLATE -api sync -t 3; t_sync=$(throughput "$log")
echo "== MOCK_REMOTE.0 (simulated remote device, 2 ms modelled latency), 1 request in flight"
bench_run -m "$model" -d MOCK_REMOTE.0 -api async -nireq 1 -t 3; m1=$(throughput "$log")
echo "== MOCK_REMOTE.0, 4 requests in flight (host work overlaps device work)"
bench_run -m "$model" -d MOCK_REMOTE.0 -api async -nireq 4 -t 3 -trace build/trace_mock_remote.json
m4=$(throughput "$log")

if [[ -f build/lib/libvireo_cpu_plugin.so ]]; then
  echo "== CPU (oneDNN graph compiler) vs TEMPLATE (reference interpreter) on the same model, 1 thread, latency"
  echo "   (proves: the production CPU device runs what the oracle runs, faster)"
  bench_run -m "$model" -d CPU -hint latency -nthreads 1 -api sync -t 2; c1=$(throughput "$log")
  bench_run -m "$model" -d TEMPLATE -hint latency -nthreads 1 -api sync -t 2; t1=$(throughput "$log")
else
  echo "== (no CPU plugin: libdnnl-dev missing at configure)"; c1=n/a; t1=n/a
fi

echo "== async_pipeline on MOCK_REMOTE.1: callbacks chain the next inference; one request's stages"
build/bin/async_pipeline -m "$model" -d MOCK_REMOTE.1 -nireq 4 -niter 200

onnx=tests/data/models/golden/cnn
echo "== ONNX read directly: the golden cnn's model.onnx on MOCK_REMOTE.0 (proves: no conversion step)"
build/bin/hello_infer -m $onnx/model.onnx -d MOCK_REMOTE.0 -i x=$onnx/input_x.npy
echo "== vireo_convert: the same ONNX file to IR v11 with f16 weights (proves: convert once, map later)"
build/bin/vireo_convert $onnx/model.onnx -o build/cnn_from_onnx.xml --compress_to_fp16
echo "== ONNX's own operator tests (libonnx-testdata pytorch-operator) on TEMPLATE (proves: ONNX semantics)"
build/bin/vireo_onnx_backend --folders pytorch-operator | tail -1
echo "== A custom op from an extension (samples/extension): an ONNX node of domain com.example.vireo on TEMPLATE"
echo "   (proves: third parties add ops, kernels and ONNX mappings without rebuilding Vireo)"
build/bin/hello_infer -m tests/data/extension/squash.onnx -d TEMPLATE -random_inputs -extensions build/lib/libvireo_example_extension.so

summator=samples/models/summator/summator.xml
echo "== HETERO: a stateful model (acc += x; y = acc / 2) that MOCK_REMOTE cannot run alone"
echo "   MOCK_REMOTE.1 by itself refuses it, naming the ops:"
build/bin/hello_infer -m $summator -d MOCK_REMOTE.1 2>&1 | tail -1 || true
echo "   HETERO:MOCK_REMOTE.1,TEMPLATE keeps the variable's ops on TEMPLATE and runs the rest remotely:"
bench_run -m $summator -d HETERO:MOCK_REMOTE.1,TEMPLATE -niter 200 > /dev/null
grep -E '^ +(EXECUTION_DEVICES|HETERO_NUMBER_OF_SUBMODELS):|^Throughput' "$log"; hetero=$(throughput "$log")
echo "== AUTO:MOCK_REMOTE.0,TEMPLATE: compile returns at once and TEMPLATE serves until MOCK_REMOTE.0's"
echo "   200 ms modelled compile is done (proves: start-up hand-over)"
bench_run -m "$model" -d AUTO:MOCK_REMOTE.0,TEMPLATE -t 2 > /dev/null
grep -E 'Compile model took|First inference took|AUTO_COMPILES' "$log"
echo "== MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1: each request runs whole on whichever instance is free"
bench_run -m "$model" -d MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1 -hint throughput -t 3 > /dev/null
grep -E '^ +EXECUTION_DEVICES:|request\(s\)|^Throughput' "$log"; multi=$(throughput "$log")

cat <<SUMMARY

Summary (frames per second):
  TEMPLATE, sync                 ${t_sync}
  MOCK_REMOTE.0, 1 request       ${m1}
  MOCK_REMOTE.0, 4 requests      ${m4}
  CPU, 1 thread, sync            ${c1}
  TEMPLATE, 1 thread, sync       ${t1}
  HETERO (summator), async      ${hetero}
  MULTI: both MOCK_REMOTE        ${multi}
Trace of the 4-request run: build/trace_mock_remote.json (open in chrome://tracing or ui.perfetto.dev)
SUMMARY
