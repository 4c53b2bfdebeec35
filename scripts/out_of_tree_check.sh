#!/usr/bin/env bash
# Proves that Vireo installs and packages as users need it: builds the Debian packages with CPack,
# checks that apt can resolve their dependencies, unpacks them into a fresh root, and from that
# root only: lists devices and runs IR and ONNX models on TEMPLATE through the installed plugins.xml,
# imports the Python package, compiles a program with pkg-config, builds samples/out_of_tree_plugin
# (device ECHO) with find_package(Vireo) and runs the installed vireo_conformance on it.
# Without dpkg-deb (not Debian), `cmake --install` into a temporary prefix stands in for the packages.
#
#   scripts/out_of_tree_check.sh <vireo build dir>      (./test.sh runs it after ctest)
set -euo pipefail

fail() { echo "out_of_tree_check: FAILED: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || { echo "usage: $0 <vireo build dir>" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd) || fail "no build directory '$1'"
work=$(mktemp -d "${TMPDIR:-/tmp}/vireo_out_of_tree.XXXXXX")
trap 'rm -rf "$work"' EXIT
reports=$build/conformance
mkdir -p "$reports"

if command -v dpkg-deb >/dev/null && command -v cpack >/dev/null; then
  echo "== building the Debian packages (cpack -G DEB)"
  (cd "$build" && cpack -G DEB -B "$work/debs") >"$work/cpack.log" 2>&1 \
    || { cat "$work/cpack.log"; fail "cpack"; }
  debs=("$work"/debs/*.deb)
  ((${#debs[@]} >= 4)) || fail "cpack made ${#debs[@]} packages, expected at least 4"
  for deb in "${debs[@]}"; do
    echo "   $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version): $(dpkg-deb -f "$deb" Depends)"
  done
  if command -v apt-get >/dev/null; then
    echo "== apt resolves the packages' dependencies (apt-get install --simulate)"
    apt-get install --simulate -qq "${debs[@]}" >"$work/apt.log" 2>&1 \
      || { cat "$work/apt.log"; fail "apt-get cannot resolve the packages' dependencies"; }
  fi
  echo "== unpacking them into a fresh root"
  for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$work/root"; done
  prefix=$work/root/usr
  [[ -f $prefix/lib/vireo/plugins.xml ]] || fail "the vireo-plugins package has no lib/vireo/plugins.xml"
else
  prefix=$work/prefix
  echo "== (no dpkg-deb/cpack) installing $build into $prefix"
  cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
fi
runner=$prefix/bin/vireo_conformance
[[ -x $runner ]] || fail "the install has no bin/vireo_conformance"

echo "== configuring and building ECHO and PARTIAL (samples/out_of_tree_plugin) against the installed package"
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

echo "== conformance of PARTIAL (the two-stage sample; at least 40 tests must reach a verdict)"
partial=$work/echo/libvireo_partial_plugin.so
[[ -f $partial ]] || fail "the build made no $partial"
"$runner" --device PARTIAL --plugin "$partial" --jobs 2 --require-run 40 \
          --expectations "$root/samples/out_of_tree_plugin/partial/conformance.txt" \
          --report-json "$reports/PARTIAL.json" --report-junit "$reports/PARTIAL.xml" \
  || fail "the conformance suite on PARTIAL (reports in $reports/PARTIAL.*)"

same_npy() {  # got.npy want.npy: float32 values equal within 1e-5
  python3 - "$1" "$2" <<'EOF'
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
print("   output matches the golden output (%d values)" % len(got))
EOF
}

hello=$prefix/bin/hello_infer
if [[ -x $hello ]]; then
  model=$root/tests/data/models/golden/tiny
  echo "== one inference of tests/data/models/golden/tiny (y = x + 1) on ECHO with the installed hello_infer"
  cat >"$work/plugins.xml" <<EOF
<ie><plugins><plugin name="ECHO" location="$plugin"/></plugins></ie>
EOF
  "$hello" -m "$model/model.xml" -d ECHO -plugins_xml "$work/plugins.xml" -i "x=$model/input_x.npy" \
           -o "$work/out" || fail "hello_infer on ECHO"
  same_npy "$work/out/y.npy" "$model/output_y.npy" || fail "ECHO's output differs from the golden output"

  echo "== the installed plugins.xml: hello_query_device lists the in-tree devices"
  "$prefix/bin/hello_query_device" >"$work/devices.txt" 2>&1 || { cat "$work/devices.txt"; fail "hello_query_device"; }
  for device in TEMPLATE MOCK_REMOTE; do
    grep -q "$device" "$work/devices.txt" || { cat "$work/devices.txt"; fail "installed hello_query_device does not list $device"; }
  done
  for file in model.xml model.onnx; do
    echo "== $file on TEMPLATE with the installed hello_infer, plugins and ONNX frontend (no -plugins_xml)"
    rm -rf "$work/out"
    "$hello" -m "$model/$file" -d TEMPLATE -i "x=$model/input_x.npy" -o "$work/out" \
      || fail "installed hello_infer on TEMPLATE with $file"
    same_npy "$work/out/y.npy" "$model/output_y.npy" || fail "TEMPLATE's output of $file differs"
  done
else
  echo "== (no installed hello_infer: samples were not built; the conformance run covered inference)"
fi

if [[ -x $hello ]]; then
  echo "== the example extension (samples/extension) built against the installed package, used by hello_infer"
  cmake -S "$root/samples/extension" -B "$work/extension" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >"$work/configure_ext.log" \
    || { cat "$work/configure_ext.log"; fail "configuring the example extension"; }
  cmake --build "$work/extension" -j 2 >"$work/build_ext.log" || { cat "$work/build_ext.log"; fail "building the example extension"; }
  extension=$work/extension/libvireo_example_extension.so
  /usr/bin/python3 -c "import numpy as np; np.save('$work/squash_x.npy', np.array([[-3, -0.5, 0], [0.25, 1, 40]], np.float32))"
  rm -rf "$work/out"
  "$hello" -m "$root/tests/data/extension/squash.onnx" -d TEMPLATE -extensions "$extension" \
           -i "x=$work/squash_x.npy" -o "$work/out" || fail "hello_infer with the example extension"
  /usr/bin/python3 - "$work/squash_x.npy" "$work/out/y.npy" <<'EOF' || fail "Squash's output is wrong"
import sys
import numpy as np
x, y = np.load(sys.argv[1]), np.load(sys.argv[2])
np.testing.assert_allclose(y, 2 * x / (1 + np.abs(x)), rtol=1e-6)
print("   Squash (alpha=2) from the ONNX custom domain matches y = 2x / (1 + |x|)")
EOF
fi

echo "== a program built with pkg-config against the installed development files"
cat >"$work/app.cpp" <<'EOF'
#include <vireo/core.hpp>
#include <iostream>
int main() {
    vireo::Core core;
    for (const auto& device : core.get_available_devices()) std::cout << device << "\n";
}
EOF
pc_path=$prefix/lib/pkgconfig
PKG_CONFIG_PATH=$pc_path pkg-config --exists vireo || fail "pkg-config does not find vireo"
# shellcheck disable=SC2046
c++ -std=c++20 "$work/app.cpp" -o "$work/app" $(PKG_CONFIG_PATH=$pc_path pkg-config --cflags --libs vireo) \
    -Wl,-rpath,"$prefix/lib" || fail "compiling with pkg-config's flags"
"$work/app" >"$work/app.txt" || fail "the pkg-config program"
grep -q TEMPLATE "$work/app.txt" || { cat "$work/app.txt"; fail "the pkg-config program does not see TEMPLATE"; }

site=$prefix/lib/python3/dist-packages
if [[ -d $site/vireo ]]; then
  echo "== the installed Python package"
  PYTHONPATH=$site /usr/bin/python3 - "$root/tests/data/models/golden/tiny" <<'EOF' || fail "the installed Python package"
import sys
import numpy as np
import vireo
core = vireo.Core()
assert "TEMPLATE" in core.available_devices, core.available_devices
folder = sys.argv[1]
compiled = core.compile_model(folder + "/model.onnx", "TEMPLATE")
result = compiled({0: np.load(folder + "/input_x.npy")})
y = result[compiled.output(0)]
assert np.allclose(y, np.load(folder + "/output_y.npy"), atol=1e-5), y
print("   %s: TEMPLATE ran the ONNX model" % vireo.__file__)
EOF
  echo "== the installed vireo_quantize"
  [[ -x $prefix/bin/vireo_quantize ]] || fail "the install has no bin/vireo_quantize"
  PYTHONPATH=$site /usr/bin/python3 - "$work/mlp.onnx" <<'EOF' || fail "writing the model for vireo_quantize"
import sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
rng = np.random.default_rng(3)
w = numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "w")
graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "mlp",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])], [w])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
EOF
  PYTHONPATH=$site "$prefix/bin/vireo_quantize" "$work/mlp.onnx" "$work/mlp.qdq.onnx" --samples 2 \
      --device TEMPLATE >"$work/quantize.log" 2>&1 || { cat "$work/quantize.log"; fail "vireo_quantize"; }
  PYTHONPATH=$site /usr/bin/python3 - "$work/mlp.qdq.onnx" <<'EOF' || fail "the quantized model"
import sys
import numpy as np
import onnx
import vireo
ops = [n.op_type for n in onnx.load(sys.argv[1]).graph.node]
assert ops.count("QuantizeLinear") == 1 and ops.count("DequantizeLinear") == 2, ops
compiled = vireo.Core().compile_model(sys.argv[1], "TEMPLATE")
y = compiled({0: np.ones((4, 16), np.float32)})[compiled.output(0)]
assert y.shape == (4, 8) and np.isfinite(y).all(), y
print("   vireo_quantize wrote a QDQ MatMul that TEMPLATE runs")
EOF
fi
echo "out_of_tree_check: OK"
