#!/usr/bin/env python3
"""Writes squash.onnx, the test model of the example extension (samples/extension): one node
Squash of the custom domain com.example.vireo with alpha=2, y = Squash(x), x: float[2,3].
Needs the onnx Python package (a developer tool, not a build dependency); the output is committed.
"""
import pathlib

import onnx
from onnx import TensorProto, helper

node = helper.make_node("Squash", ["x"], ["y"], domain="com.example.vireo", name="squash", alpha=2.0)
graph = helper.make_graph([node], "squash",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
model = helper.make_model(graph, producer_name="vireo tests",
                          opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example.vireo", 1)])
model.ir_version = 8
onnx.save(model, str(pathlib.Path(__file__).with_name("squash.onnx")))
