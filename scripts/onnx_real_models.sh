#!/usr/bin/env bash
# Reads real exported networks (ResNet-50, MobileNet-V2, a BERT-like encoder) from ONNX on TEMPLATE
# and MOCK_REMOTE and prints each output's max abs error against PyTorch's. Needs Debian's PyTorch
# (python3-torch, python3-torchvision, python3-onnx, python3-numpy, ~600 MB) and the exporter in
# ../shared/bench: neither is part of ./test.sh; without them it says "not run" and exits 0.
#   scripts/onnx_real_models.sh [build dir, default build] [models dir, default build/real_models]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
models="${2:-$build/real_models}"
exporter=../shared/bench/export_models.py
py=/usr/bin/python3
if ! $py -c "import torch, torchvision, onnx, numpy" 2>/dev/null || [[ ! -f $exporter ]]; then
  echo "not run: needs python3-torch, python3-torchvision, python3-onnx, python3-numpy and $exporter"
  exit 0
fi
names=(resnet50 mobilenet_v2 encoder)
for n in "${names[@]}"; do
  [[ -f $models/$n/model.onnx ]] || $py "$exporter" "$models" "$n" > /dev/null
done
echo "| model | device | max abs error vs PyTorch | max abs output | allclose(rtol 1e-3, atol 1e-5) |"
echo "|---|---|---|---|---|"
for n in "${names[@]}"; do
  for d in TEMPLATE MOCK_REMOTE; do
    out=$(mktemp -d)
    "$build/bin/hello_infer" -m "$models/$n/model.onnx" -d $d -i "x=$models/$n/input.npy" -o "$out" > /dev/null
    $py - "$models/$n/expected.npy" "$out/y.npy" "$n" "$d" <<'PY'
import sys, numpy as np
e, y = np.load(sys.argv[1]), np.load(sys.argv[2])
print(f"| {sys.argv[3]} | {sys.argv[4]} | {np.abs(y - e).max():.3g} | {np.abs(e).max():.3g} | {np.allclose(y, e, rtol=1e-3, atol=1e-5)} |")
PY
    rm -rf "$out"
  done
done
