#!/usr/bin/env bash
# Proves that a plugin can be built out of tree: installs a Vireo build into a temporary prefix,
# builds samples/out_of_tree_plugin (device ECHO) against that prefix only, then runs the
# installed vireo_conformance on it (--probe, then the suite) and one inference of a real IR
# model through the installed hello_infer. Fails loudly on any error.
#
#   scripts/out_of_tree_check.sh <vireo build dir>      (./test.sh runs it after ctest)
set -euo pipefail

fail() { echo "out_of_tree_check: FAILED: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || { echo "usage: $0 <vireo build dir>" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd) || fail "no build directory '$1'"
work=$(mktemp -d "${TMPDIR:-/tmp}/vireo_out_of_tree.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
reports=$build/conformance
mkdir -p "$reports"

echo "== installing $build into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
runner=$prefix/bin/vireo_conformance
[[ -x $runner ]] || fail "the install has no bin/vireo_conformance"

echo "== configuring and building ECHO (samples/out_of_tree_plugin) against the installed package"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$root/samples/out_of_tree_plugin" -B "$work/echo" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >"$work/configure.log" \
  || { cat "$work/configure.log"; fail "configuring the out-of-tree plugin"; }
cmake --build "$work/echo" -j 2 || fail "building the out-of-tree plugin"
plugin=$work/echo/libvireo_echo_plugin.so
[[ -f $plugin ]] || fail "the build made no $plugin"

echo "== probing ECHO with the installed runner"
"$runner" --device ECHO --plugin "$plugin" --probe || fail "vireo_conformance --probe"

echo "== conformance of ECHO"
"$runner" --device ECHO --plugin "$plugin" --jobs 2 \
          --expectations "$root/samples/out_of_tree_plugin/conformance.txt" \
          --report-json "$reports/ECHO.json" --report-junit "$reports/ECHO.xml" \
  || fail "the conformance suite on ECHO (reports in $reports/ECHO.*)"

hello=$prefix/bin/hello_infer
if [[ -x $hello ]]; then
  echo "== one inference of tests/data/models/golden/tiny (y = x + 1) on ECHO with the installed hello_infer"
  model=$root/tests/data/models/golden/tiny
  cat >"$work/plugins.xml" <<EOF
<ie><plugins><plugin name="ECHO" location="$plugin"/></plugins></ie>
EOF
  "$hello" -m "$model/model.xml" -d ECHO -plugins_xml "$work/plugins.xml" -i "x=$model/input_x.npy" \
           -o "$work/out" || fail "hello_infer on ECHO"
  python3 - "$work/out/y.npy" "$model/output_y.npy" <<'EOF' || fail "ECHO's output differs from the golden output"
import struct, sys
def load(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path + ": not an .npy file"
    header_len = struct.unpack("<H", data[8:10])[0] if data[6] == 1 else struct.unpack("<I", data[8:12])[0]
    start = (10 if data[6] == 1 else 12) + header_len
    body = data[start:]
    return struct.unpack("<%df" % (len(body) // 4), body)
got, want = load(sys.argv[1]), load(sys.argv[2])
assert len(got) == len(want), "%d values, expected %d" % (len(got), len(want))
bad = [i for i, (g, w) in enumerate(zip(got, want)) if abs(g - w) > 1e-5 + 1e-5 * abs(w)]
assert not bad, "values differ at %s" % bad[:5]
print("ECHO output matches the golden output (%d values)" % len(got))
EOF
else
  echo "== (no installed hello_infer: samples were not built; the conformance run covered inference)"
fi
echo "out_of_tree_check: OK"
