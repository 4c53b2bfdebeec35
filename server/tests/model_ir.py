"""Writes the small OpenVINO IR v11 models the server tests serve (no framework needed).

identity_model(): one input and one output per KServe datatype Vireo has, each output a Convert of
its input to the same type, so every value comes back unchanged.
matmul_model(): a float32 chain of MatMuls heavy enough on TEMPLATE that requests queue behind it.
add_model(): y = x + c with a constant c, for checking values and telling versions apart.
"""
import os
import struct

# (KServe datatype, IR element type, struct format of one element or None for 16-bit floats)
DTYPES = [
    ("BOOL", "boolean"), ("UINT8", "u8"), ("UINT16", "u16"), ("UINT32", "u32"), ("UINT64", "u64"),
    ("INT8", "i8"), ("INT16", "i16"), ("INT32", "i32"), ("INT64", "i64"),
    ("FP16", "f16"), ("BF16", "bf16"), ("FP32", "f32"), ("FP64", "f64"),
]


def _port(pid, dims, names=None):
    name_attr = f' names="{names}"' if names else ""
    inner = "".join(f"<dim>{d}</dim>" for d in dims)
    return f'<port id="{pid}"{name_attr}>{inner}</port>'


class _Ir:
    def __init__(self):
        self.layers = []
        self.edges = []
        self.weights = b""

    def add(self, kind, data, inputs, outputs, name):
        lid = len(self.layers)
        attrs = " ".join(f'{k}="{v}"' for k, v in data.items())
        body = f'<layer id="{lid}" name="{name}" type="{kind}" version="opset1">'
        if attrs:
            body += f"<data {attrs}/>"
        if inputs:
            body += "<input>" + "".join(_port(i, dims) for i, (dims, _src) in enumerate(inputs)) + "</input>"
            for i, (_dims, src) in enumerate(inputs):
                self.edges.append((src[0], src[1], lid, i))
        if outputs:
            base = len(inputs)
            body += "<output>" + "".join(_port(base + i, dims, names) for i, (dims, names) in enumerate(outputs)) + "</output>"
        body += "</layer>"
        self.layers.append(body)
        return lid, len(inputs)

    def const(self, etype, dims, raw, name):
        offset = len(self.weights)
        self.weights += raw
        shape = ",".join(str(d) for d in dims)
        return self.add("Const", {"element_type": etype, "shape": shape, "offset": offset, "size": len(raw)},
                        [], [(dims, None)], name)

    def write(self, folder, stem="model"):
        os.makedirs(folder, exist_ok=True)
        edges = "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'
                        for a, b, c, d in self.edges)
        xml = ('<?xml version="1.0"?>\n<net name="test" version="11"><layers>' + "".join(self.layers) +
               "</layers><edges>" + edges + "</edges></net>\n")
        with open(os.path.join(folder, stem + ".xml"), "w") as f:
            f.write(xml)
        with open(os.path.join(folder, stem + ".bin"), "wb") as f:
            f.write(self.weights)


def identity_model(folder):
    ir = _Ir()
    for kserve, etype in DTYPES:
        low = kserve.lower()
        p = ir.add("Parameter", {"shape": "?", "element_type": etype}, [], [([-1], f"in_{low}")], f"in_{low}")
        c = ir.add("Convert", {"destination_type": etype}, [([-1], p)], [([-1], f"out_{low}")], f"out_{low}")
        ir.add("Result", {}, [([-1], c)], [], f"result_{low}")
    ir.write(folder)


def add_model(folder, constant, size=4):
    ir = _Ir()
    p = ir.add("Parameter", {"shape": f"1,{size}", "element_type": "f32"}, [], [([1, size], "x")], "x")
    c = ir.const("f32", [1, size], struct.pack(f"<{size}f", *([float(constant)] * size)), "c")
    a = ir.add("Add", {"auto_broadcast": "numpy"}, [([1, size], p), ([1, size], c)], [([1, size], "y")], "y")
    ir.add("Result", {}, [([1, size], a)], [], "result_y")
    ir.write(folder)


def matmul_model(folder, rows=256, size=512, layers=16):
    ir = _Ir()
    src = ir.add("Parameter", {"shape": f"{rows},{size}", "element_type": "f32"}, [], [([rows, size], "x")], "x")
    w = ir.const("f32", [size, size], struct.pack(f"<{size * size}f", *([1.0 / size] * (size * size))), "w")
    for i in range(layers):
        names = "y" if i == layers - 1 else None
        src = ir.add("MatMul", {"transpose_a": "false", "transpose_b": "false"},
                     [([rows, size], src), ([size, size], w)], [([rows, size], names)], f"mm{i}")
    ir.add("Result", {}, [([rows, size], src)], [], "result_y")
    ir.write(folder)
