#!/usr/bin/python3
"""Exports the CPU benchmark corpus (issue 29): about 30 architectures as ONNX with random weights.

    /usr/bin/python3 benchmarks/corpus/export_corpus.py OUT_DIR [NAME ...]     (default: every model)
    /usr/bin/python3 benchmarks/corpus/export_corpus.py --list

Needs Debian's python3-torch (1.13), python3-torchvision (0.14), python3-onnx and python3-numpy; nothing
is downloaded (weights are random with a fixed seed, BatchNorm statistics and zero/unit parameters are
randomised too so that folding and normalisation are not identities). Each model is exported in eval
mode, batch 1, static shapes, do_constant_folding=True, to

    OUT_DIR/<name>/model.onnx         the graph (opset 13 or 14; 17 where a model wants LayerNormalization)
    OUT_DIR/<name>/input_<in>.npy     one fixed f32 input per graph input <in> (input.npy too when there is one)
    OUT_DIR/<name>/expected.npy       PyTorch's f32 output for those inputs (every model has one output "y")
    OUT_DIR/<name>/info.json          inputs, output shape, opset, torch version, iterations for benchmark_app

info.json is written last, so a folder that has it is complete and is skipped on the next run (delete
the folder to export again). A model that fails to export is skipped with its reason and the others go
on; the exit status is 1 when any model failed. Every input is f32 (token models take embeddings, not
ids) because ../shared/bench/ort_bench.sh feeds float32 data to every input.

resnet50, mobilenet_v2 and encoder are built as ../shared/bench/export_models.py builds them (same
names, shapes and opset), so their timings compare with the earlier benchmarks.
"""
import json
import math
import os
import shutil
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.models as tvm

SEED = 20251124
DEFAULT_OPSET = 13


def randomize(model, gen):
    """Gives BatchNorm statistics and constant-initialised parameters random values."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)) and m.running_mean is not None:
                c = m.num_features
                m.running_mean.copy_(0.1 * torch.randn(c, generator=gen))
                m.running_var.copy_(0.5 + torch.rand(c, generator=gen))
                if m.affine:
                    m.weight.copy_(0.5 + 0.5 * torch.rand(c, generator=gen))
                    m.bias.copy_(0.1 * torch.randn(c, generator=gen))
        for p in model.parameters():
            if p.dim() > 1 and torch.all(p == 0):  # zero-initialised heads (ViT) would make a constant output
                p.copy_(0.02 * torch.randn(p.shape, generator=gen))
            elif p.dim() == 1 and torch.all(p == 0):
                p.copy_(0.05 * torch.randn(p.shape, generator=gen))
            elif p.dim() == 1 and torch.all(p == 1):
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=gen))


# ---------------------------------------------------------------- models written in plain PyTorch

class Encoder(nn.Module):
    """BERT-like encoder: 4 post-LN layers, d_model 256, 4 heads, FF 1024, GELU; input [1,128,256]."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, activation="gelu", batch_first=True)
            for _ in range(4))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, seq):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.register_buffer("causal", torch.tril(torch.ones(seq, seq, dtype=torch.bool)).view(1, 1, seq, seq))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads))
        att = att.masked_fill(~self.causal[:, :, :t, :t], float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class GptBlock(nn.Module):
    def __init__(self, d, heads, seq):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, seq)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GptDecoder(nn.Module):
    """GPT-2-style decoder: learned positions, 4 pre-LN blocks with a causal mask, d 256, 4 heads, LM
    head to 2048 logits; input token embeddings [1,128,256]."""

    def __init__(self, d=256, heads=4, layers=4, seq=128, vocab=2048):
        super().__init__()
        self.pos = nn.Parameter(0.02 * torch.randn(1, seq, d))
        self.blocks = nn.ModuleList(GptBlock(d, heads, seq) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, x):
        x = x + self.pos[:, :x.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


class Seq2Seq(nn.Module):
    """nn.Transformer encoder-decoder (2+2 layers, d 256, 4 heads, FF 1024) with a causal target mask;
    inputs src [1,64,256] and tgt [1,32,256] (embeddings), output projected to 1000 logits."""

    def __init__(self, tgt_len=32):
        super().__init__()
        self.transformer = nn.Transformer(256, 4, 2, 2, 1024, dropout=0.0, batch_first=True)
        self.register_buffer("tgt_mask", nn.Transformer.generate_square_subsequent_mask(tgt_len))
        self.head = nn.Linear(256, 1000)

    def forward(self, src, tgt):
        return self.head(self.transformer(src, tgt, tgt_mask=self.tgt_mask))


class LstmTagger(nn.Module):
    """Sequence tagger: 2-layer bidirectional LSTM (128 -> 256 per direction) and a linear layer to 32
    tags; input word embeddings [1,64,128]."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(128, 256, num_layers=2, bidirectional=True, batch_first=True)
        self.out = nn.Linear(512, 32)

    def forward(self, x):
        return self.out(self.lstm(x)[0])


class GruAcoustic(nn.Module):
    """Frame classifier: 2-layer GRU (80 filterbank features -> 256) and a linear layer to 40 classes;
    input [1,64,80]."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(80, 256, num_layers=2, batch_first=True)
        self.out = nn.Linear(256, 40)

    def forward(self, x):
        return self.out(self.gru(x)[0])


class UNetSmall(nn.Module):
    """Small U-Net (3 levels, 32-128 channels): Conv/BatchNorm/ReLU, MaxPool, ConvTranspose up-sampling,
    skip Concat, and a bilinear Resize of the output; input [1,3,128,128] -> 4-class mask."""

    @staticmethod
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                             nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    def __init__(self):
        super().__init__()
        self.e1, self.e2, self.e3 = self.block(3, 32), self.block(32, 64), self.block(64, 128)
        self.up2, self.d2 = nn.ConvTranspose2d(128, 64, 2, stride=2), self.block(128, 64)
        self.up1, self.d1 = nn.ConvTranspose2d(64, 32, 2, stride=2), self.block(64, 32)
        self.head = nn.Conv2d(32, 4, 1)

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(F.max_pool2d(a, 2))
        c = self.e3(F.max_pool2d(b, 2))
        b = self.d2(torch.cat([self.up2(c), b], 1))
        a = self.d1(torch.cat([self.up1(b), a], 1))
        y = self.head(a)
        return F.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False)


class FirstOutput(nn.Module):
    """Keeps the "out" entry of a torchvision segmentation model's dict output."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)["out"]


# ---------------------------------------------------------------- the corpus

IMG = [("x", (1, 3, 224, 224))]


def tv(fn, **kw):
    return lambda: getattr(tvm.video if fn in ("r3d_18", "mc3_18", "r2plus1d_18") else tvm, fn)(weights=None, **kw)


def seg(fn):
    return lambda: FirstOutput(getattr(tvm.segmentation, fn)(weights=None, weights_backbone=None))


# name: (constructor, [(input name, shape)], opset, benchmark_app iterations per run, family)
# Iterations aim at roughly 1-3 s per run on one core of a 2-core AVX-512 VM.
MODELS = {
    "vgg11": (tv("vgg11"), IMG, 13, 10, "VGG"),
    "resnet18": (tv("resnet18"), IMG, 13, 60, "ResNet"),
    "resnet50": (tv("resnet50"), IMG, 13, 20, "ResNet"),
    "resnext50_32x4d": (tv("resnext50_32x4d"), IMG, 13, 12, "ResNeXt (grouped conv)"),
    "wide_resnet50_2": (tv("wide_resnet50_2"), IMG, 13, 5, "Wide-ResNet"),
    "densenet121": (tv("densenet121"), IMG, 13, 20, "DenseNet (Concat)"),
    "googlenet": (tv("googlenet", aux_logits=False, init_weights=True), IMG, 13, 30, "Inception v1"),
    # init_weights=False: torchvision's truncated-normal init (std 0.1) with eval-mode BatchNorm grows
    # the logits to ~1e8; PyTorch's default init keeps them near 0.1.
    "inception_v3": (tv("inception_v3", aux_logits=False, init_weights=False), [("x", (1, 3, 299, 299))], 13, 12,
                     "Inception v3"),
    "squeezenet1_0": (tv("squeezenet1_0"), IMG, 13, 50, "SqueezeNet"),
    "mobilenet_v2": (tv("mobilenet_v2"), IMG, 13, 60, "MobileNet V2 (depthwise, ReLU6)"),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), IMG, 13, 300, "MobileNet V3 (HardSwish, SE)"),
    "mobilenet_v3_large": (tv("mobilenet_v3_large"), IMG, 13, 150, "MobileNet V3 (HardSwish, SE)"),
    "mnasnet1_0": (tv("mnasnet1_0"), IMG, 13, 100, "MNASNet"),
    "shufflenet_v2_x1_0": (tv("shufflenet_v2_x1_0"), IMG, 13, 200, "ShuffleNet V2 (channel shuffle)"),
    "efficientnet_b0": (tv("efficientnet_b0"), IMG, 13, 80, "EfficientNet (SiLU, SE)"),
    "regnet_y_400mf": (tv("regnet_y_400mf"), IMG, 13, 80, "RegNetY (SE, grouped conv)"),
    "regnet_x_400mf": (tv("regnet_x_400mf"), IMG, 13, 100, "RegNetX (grouped conv)"),
    "convnext_tiny": (tv("convnext_tiny"), IMG, 14, 12, "ConvNeXt (7x7 depthwise, LayerNorm, GELU)"),
    "vit_b_16": (tv("vit_b_16"), IMG, 14, 5, "ViT (MultiheadAttention)"),
    "swin_t": (tv("swin_t"), IMG, 14, 8, "Swin (shifted windows, roll)"),
    "fcn_resnet50": (seg("fcn_resnet50"), IMG, 13, 5, "segmentation, dilated ResNet-50 + Resize"),
    "deeplabv3_mobilenet_v3_large": (seg("deeplabv3_mobilenet_v3_large"), IMG, 13, 80,
                                     "segmentation, ASPP + Resize"),
    "lraspp_mobilenet_v3_large": (seg("lraspp_mobilenet_v3_large"), IMG, 13, 100, "segmentation, LR-ASPP"),
    "r3d_18": (tv("r3d_18"), [("x", (1, 3, 8, 112, 112))], 13, 5, "video, 3-D convolutions"),
    "unet_small": (UNetSmall, [("x", (1, 3, 128, 128))], 13, 50, "U-Net (ConvTranspose, Concat, Resize)"),
    "encoder": (Encoder, [("x", (1, 128, 256))], 13, 60, "BERT-like encoder"),
    "gpt_decoder": (GptDecoder, [("x", (1, 128, 256))], 17, 100, "GPT decoder (causal mask)"),
    "seq2seq": (Seq2Seq, [("src", (1, 64, 256)), ("tgt", (1, 32, 256))], 14, 150,
                "nn.Transformer encoder-decoder"),
    "lstm_tagger": (LstmTagger, [("x", (1, 64, 128))], 14, 200, "2-layer bidirectional LSTM"),
    "gru": (GruAcoustic, [("x", (1, 64, 80))], 14, 500, "2-layer GRU"),
}


def max_opset():
    from torch.onnx import _constants
    return getattr(_constants, "ONNX_MAX_OPSET", getattr(_constants, "onnx_main_opset", 14))


def export(name, out_root):
    out = os.path.join(out_root, name)
    if os.path.isfile(os.path.join(out, "info.json")) and os.path.isfile(os.path.join(out, "model.onnx")):
        print(f"{name}: already exported in {out}")
        return True
    make, inputs, opset, iters, family = MODELS[name]
    if opset > max_opset():
        opset = 14
    torch.manual_seed(SEED)
    model = make().eval()
    randomize(model, torch.Generator().manual_seed(SEED + 1))
    gen = torch.Generator().manual_seed(SEED + 2)
    xs = tuple(torch.randn(shape, generator=gen) for _, shape in inputs)
    with torch.no_grad():
        y = model(*xs)
        start = time.perf_counter()
        model(*xs)
        torch_ms = (time.perf_counter() - start) * 1e3
    if not isinstance(y, torch.Tensor):
        raise TypeError(f"output is a {type(y).__name__}, not one tensor")
    tmp = out + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    onnx_path = os.path.join(tmp, "model.onnx")
    torch.onnx.export(model, xs, onnx_path, opset_version=opset, do_constant_folding=True,
                      input_names=[n for n, _ in inputs], output_names=["y"])
    import onnx
    onnx.checker.check_model(onnx_path)
    for (n, _), x in zip(inputs, xs):
        np.save(os.path.join(tmp, f"input_{n}.npy"), x.numpy())
    if len(inputs) == 1:
        np.save(os.path.join(tmp, "input.npy"), xs[0].numpy())
    np.save(os.path.join(tmp, "expected.npy"), y.numpy())
    info = {"model": name, "family": family, "opset": opset, "seed": SEED, "torch": torch.__version__,
            "torchvision": torchvision.__version__, "inputs": {n: list(s) for n, s in inputs},
            "outputs": {"y": list(y.shape)}, "niter": iters, "torch_ms_one_run": round(torch_ms, 2)}
    with open(os.path.join(tmp, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    size = os.path.getsize(os.path.join(out, "model.onnx")) / 2**20
    print(f"{name}: {out}/model.onnx ({size:.0f} MiB, opset {opset}, PyTorch {torch_ms:.0f} ms on "
          f"{torch.get_num_threads()} thread(s))", flush=True)
    return True


def main():
    args = sys.argv[1:]
    if args == ["--list"]:
        print("\n".join(MODELS))
        return 0
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    out_root, names = args[0], args[1:] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        print(f"export_corpus.py: unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}",
              file=sys.stderr)
        return 2
    os.makedirs(out_root, exist_ok=True)
    torch.set_num_threads(int(os.environ.get("CORPUS_TORCH_THREADS", "1")))
    failed = []
    for n in names:
        try:
            export(n, out_root)
        except Exception as e:  # one model's failure must not stop the others
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"{n}: SKIPPED, export failed: {type(e).__name__}: {reason}", flush=True)
            shutil.rmtree(os.path.join(out_root, n + ".partial"), ignore_errors=True)
            failed.append(n)
    print(f"exported {len(names) - len(failed)} of {len(names)} models into {out_root}"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
