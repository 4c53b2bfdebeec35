#!/usr/bin/python3
"""vireo_quantize: post-training static quantization of an ONNX model into QDQ form.

The installed command; the tool itself is the module vireo_quantize (with vireo_calibration, vireo_accuracy, vireo_smoothing),
installed beside the vireo Python package: `vireo_quantize --help`, or from Python
`from vireo_quantize import quantize`. docs/quantization.md describes both.
"""
import sys

from vireo_quantize import main

if __name__ == "__main__":
    main(sys.argv[1:])
