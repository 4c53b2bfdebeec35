#!/usr/bin/env bash
# Regenerates the generated parts of docs/onnx.md from a build: the supported-op table (from the
# translator registry, through `vireo_convert --list-onnx-ops`) and the backend-suite figures
# (vireo_onnx_backend on TEMPLATE and MOCK_REMOTE). With --check, only verifies that the op table
# in docs/onnx.md is the registry's (ctest runs this), changing nothing.
#   scripts/onnx_docs.sh [--check] [build dir, default build]
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
if [[ "${1:-}" == "--check" ]]; then check=1; shift; fi
build="${1:-build}"
doc=docs/onnx.md
table=$(mktemp)
trap 'rm -f "$table" "$table".*' EXIT
"$build/bin/vireo_convert" --list-onnx-ops > "$table"

# Replaces the lines between <!-- BEGIN name --> and <!-- END name --> in $doc with file $2.
replace_section() {
  local name=$1 file=$2
  awk -v name="$name" -v file="$file" '
    $0 == "<!-- BEGIN " name " -->" { print; while ((getline line < file) > 0) print line; skip = 1; next }
    $0 == "<!-- END " name " -->" { skip = 0 }
    !skip { print }' "$doc" > "$doc.tmp" && mv "$doc.tmp" "$doc"
}

if ((check)); then
  current=$(awk '$0 == "<!-- BEGIN ops -->" {on = 1; next} $0 == "<!-- END ops -->" {on = 0} on' "$doc")
  if [[ "$current" != "$(cat "$table")" ]]; then
    echo "docs/onnx.md's op table differs from the translator registry; run scripts/onnx_docs.sh $build" >&2
    diff <(echo "$current") "$table" >&2 || true
    exit 1
  fi
  echo "docs/onnx.md op table matches the registry ($(($(wc -l < "$table") - 2)) ops)"
  exit 0
fi

replace_section ops "$table"
tests=tests/onnx
"$build/bin/vireo_onnx_backend" --device TEMPLATE --expectations $tests/expectations_template.txt \
  --report "$table.template" > /dev/null
"$build/bin/vireo_onnx_backend" --device MOCK_REMOTE --config MOCK_REMOTE_COMPILE_MS=0 \
  --config MOCK_REMOTE_LATENCY_US=0 --expectations $tests/expectations_template.txt \
  --expectations $tests/expectations_mock_remote.txt --report "$table.mock" > /dev/null
{ tail -n +3 "$table.template"; } > "$table.t"
{ tail -n +3 "$table.mock"; } > "$table.m"
replace_section suite_template "$table.t"
replace_section suite_mock_remote "$table.m"
echo "updated $doc"
