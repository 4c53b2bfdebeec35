#!/usr/bin/env python3
"""hello_infer.py: runs one inference of any model Vireo reads, inputs and outputs as .npy files.

    PYTHONPATH=build/python python3 samples/python/hello_infer.py MODEL.xml|.onnx \
        [-d AUTO] [-i x=input_x.npy ...] [--zero_inputs] [-o OUTPUT_DIR]

Every input must be given with -i, unless --zero_inputs fills the missing ones with zeros (static
shapes only): a model never runs on made-up data by accident. Each output is written to
OUTPUT_DIR/<name>.npy and summarised on stdout.
"""
import argparse
import pathlib
import sys

import numpy as np

import vireo


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="IR .xml or .onnx file")
    parser.add_argument("-d", "--device", default="AUTO", help="device name (default AUTO)")
    parser.add_argument("-i", "--input", action="append", default=[], metavar="NAME=FILE.npy",
                        help="an input's values; repeat for several inputs")
    parser.add_argument("--zero_inputs", action="store_true",
                        help="fill inputs not given with -i with zeros instead of refusing to run")
    parser.add_argument("-o", "--output-dir", default=".", help="where <output name>.npy files go")
    args = parser.parse_args()

    core = vireo.Core()
    compiled = core.compile_model(core.read_model(args.model), args.device)
    given = {}
    for item in args.input:
        name, _, path = item.partition("=")
        if not path:
            parser.error(f"--input wants NAME=FILE.npy, got '{item}'")
        given[name] = np.load(path)
    inputs = {}
    missing = []
    for port in compiled.inputs:
        name = port.any_name
        if name in given:
            inputs[name] = given.pop(name)
        elif args.zero_inputs:
            inputs[name] = np.zeros(port.shape.to_shape(), port.element_type.to_dtype())
        else:
            missing.append(name)
            continue
        print(f"input  {name}: {inputs[name].dtype} {list(inputs[name].shape)}")
    if given:
        parser.error(f"the model has no input named {', '.join(given)}")
    if missing:
        parser.error(f"no values for input(s) {', '.join(missing)}: give each with -i NAME=FILE.npy, "
                     "or --zero_inputs to fill them with zeros")

    results = compiled(inputs)
    out_dir = pathlib.Path(args.output_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for port, value in results.items():
        path = out_dir / f"{port.any_name}.npy"
        np.save(path, value)
        print(f"output {port.any_name}: {value.dtype} {list(value.shape)} "
              f"min {value.min():.6g} max {value.max():.6g} -> {path}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except vireo.Error as error:
        print(f"hello_infer: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
