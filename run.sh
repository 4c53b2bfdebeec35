#!/usr/bin/env bash
# Installs the dependencies, builds Vireo (Release) and runs the main demo: benchmark_app on a
# bundled model on TEMPLATE, then on the simulated remote device MOCK_REMOTE with one and with
# four requests in flight, writing a Chrome trace of the pipeline stages; then async_pipeline
# shows one request's per-stage profile.
set -euo pipefail
cd "$(dirname "$0")"

./scripts/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target benchmark_app hello_query_device hello_infer async_pipeline \
  vireo_template_plugin vireo_mock_remote_plugin

model=samples/models/cnn/cnn.xml  # made by build/bin/model_generator -o samples/models
bench=build/bin/benchmark_app
throughput() { grep -E '^Throughput' | awk '{print $2}'; }

echo "== Devices"
build/bin/hello_query_device | grep -E '^[A-Z_]+(\.[0-9]+)?$'

echo "== TEMPLATE (reference interpreter), sync API"
t_sync=$($bench -m "$model" -d TEMPLATE -api sync -t 3 | tee /dev/stderr | throughput)
echo "== MOCK_REMOTE.0 (simulated remote device, 2 ms modelled latency), 1 request in flight"
m1=$($bench -m "$model" -d MOCK_REMOTE.0 -api async -nireq 1 -t 3 | tee /dev/stderr | throughput)
echo "== MOCK_REMOTE.0, 4 requests in flight (host work overlaps device work)"
m4=$($bench -m "$model" -d MOCK_REMOTE.0 -api async -nireq 4 -t 3 -trace build/trace_mock_remote.json \
  | tee /dev/stderr | throughput)

echo "== async_pipeline on MOCK_REMOTE.1: callbacks chain the next inference; one request's stages"
build/bin/async_pipeline -m "$model" -d MOCK_REMOTE.1 -nireq 4 -niter 200

cat <<SUMMARY

Summary (frames per second):
  TEMPLATE, sync                 ${t_sync}
  MOCK_REMOTE.0, 1 request       ${m1}
  MOCK_REMOTE.0, 4 requests      ${m4}
Trace of the 4-request run: build/trace_mock_remote.json (open in chrome://tracing or ui.perfetto.dev)
SUMMARY
