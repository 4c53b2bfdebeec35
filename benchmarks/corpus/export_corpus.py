#!/usr/bin/python3
"""Exports the CPU benchmark corpus (issue 29): about 30 architectures as ONNX with random weights.

    /usr/bin/python3 benchmarks/corpus/export_corpus.py OUT_DIR [NAME ...]     (default: every model)
    /usr/bin/python3 benchmarks/corpus/export_corpus.py OUT_DIR --extra [NAME ...]   (the models beyond it)
    /usr/bin/python3 benchmarks/corpus/export_corpus.py OUT_DIR --wild [NAME ...]    (the third set)
    /usr/bin/python3 benchmarks/corpus/export_corpus.py --list [--extra | --wild]

The default set (MODELS) is the benchmark corpus; EXTRA_MODELS are about 20 further architectures used to
find what breaks on networks the corpus lacks (detection with NMS/TopK/RoiAlign, optical flow with
grid_sample, video, and plain-PyTorch models built from ops the corpus lacks). They are exported only with
--extra or when named, so the benchmark's set and run time stay as they are. WILD_MODELS (--wild) are a third
set of 35 more: larger and rarer torchvision models (ViT-L, Swin-B, SSD, FCOS, Mask R-CNN with its masks, RAFT-large)
and plain-PyTorch models of patterns neither set had (decoder masks, a Conformer block, LSTM projections,
EmbeddingBag, norms without affine, resampling by scale factors, activation chains, indexing ops), some at
opsets 16 and 17 and some with dynamic axes (dynamic_axes in info.json; their inputs are exported at the
shapes given, which benchmark_app needs as -shape). Exported only with --wild or when named.

Needs Debian's python3-torch (1.13), python3-torchvision (0.14), python3-onnx and python3-numpy; nothing
is downloaded (weights are random with a fixed seed, BatchNorm statistics and zero/unit parameters are
randomised too so that folding and normalisation are not identities). Each model is exported in eval
mode, batch 1, static shapes, do_constant_folding=True, to

    OUT_DIR/<name>/model.onnx         the graph (opset 13 or 14; 17 where a model wants LayerNormalization)
    OUT_DIR/<name>/input_<in>.npy     one fixed f32 input per graph input <in> (input.npy too when there is one)
    OUT_DIR/<name>/expected.npy       PyTorch's output for those inputs (the first output, "y")
    OUT_DIR/<name>/expected_<out>.npy every output <out> (y, y1, y2, ...) when the model has several
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


# ---------------------------------------------------------------- models beyond the corpus (EXTRA_MODELS)

class Detections(nn.Module):
    """A torchvision detection model on one image, its list of dicts flattened to tensors: boxes, scores,
    labels (and keypoints for Keypoint R-CNN). Input [1,3,H,W]."""

    def __init__(self, inner, keys=("boxes", "scores", "labels")):
        super().__init__()
        self.inner, self.keys = inner, keys

    def forward(self, x):
        out = self.inner([x[0]])
        out = out[1] if isinstance(out, tuple) else out  # scripting/tracing returns (losses, detections)
        return tuple(out[0][k] for k in self.keys)


class LastFlow(nn.Module):
    """RAFT with a few refinement steps; returns the last flow estimate [1,2,H,W]."""

    def __init__(self, inner, updates=4):
        super().__init__()
        self.inner, self.updates = inner, updates

    def forward(self, a, b):
        return self.inner(a, b, num_flow_updates=self.updates)[-1]


class ImageOpsMix(nn.Module):
    """Image ops the corpus lacks: GroupNorm, InstanceNorm, PixelShuffle, ConvTranspose with output_padding,
    bicubic and nearest Upsample, adaptive average pooling to a size that does not divide the input,
    dilated and strided convolutions; input [1,3,40,40]."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=2, dilation=2)
        self.gn = nn.GroupNorm(4, 16)
        self.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.inorm = nn.InstanceNorm2d(32, affine=True)
        self.ps = nn.PixelShuffle(2)                     # 32 ch -> 8 ch, x2
        self.up = nn.ConvTranspose2d(8, 8, 3, stride=2, padding=1, output_padding=1)
        self.c3 = nn.Conv2d(8, 8, 1)

    def forward(self, x):
        a = F.silu(self.gn(self.c1(x)))
        b = F.leaky_relu(self.inorm(self.c2(a)), 0.1)
        c = self.up(self.ps(b))
        d = F.interpolate(self.c3(c), scale_factor=0.5, mode="bicubic", align_corners=False)
        e = F.interpolate(d, size=(30, 30), mode="nearest")
        f = F.adaptive_avg_pool2d(e, (6, 6))
        return torch.cat([f.flatten(1), F.adaptive_max_pool2d(e, 1).flatten(1)], 1)


class SeqOpsMix(nn.Module):
    """Sequence ops the corpus lacks: dilated 1-D convolutions, einsum, cumsum, masked_fill with a computed
    mask, argmax and topk inside the graph, ConvTranspose1d with output_padding; input [1,16,50]. Outputs
    y (features), y1 (top-5 indices, int64), y2 (argmax, int64)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(16, 32, 3, padding=2, dilation=2)
        self.c2 = nn.Conv1d(32, 32, 5, padding=8, dilation=4, groups=4)
        self.q = nn.Linear(32, 32)
        self.k = nn.Linear(32, 32)
        self.up = nn.ConvTranspose1d(32, 8, 4, stride=3, padding=1, output_padding=2)

    def forward(self, x):
        h = F.gelu(self.c2(F.relu(self.c1(x))))            # [1,32,50]
        t = h.transpose(1, 2)                              # [1,50,32]
        att = torch.einsum("bid,bjd->bij", self.q(t), self.k(t)) / 32 ** 0.5
        att = att.masked_fill(torch.cumsum(torch.ones_like(att), -1) > 40, -1e4)
        ctx = torch.einsum("bij,bjd->bid", att.softmax(-1), t)
        y = self.up(ctx.transpose(1, 2) + h).cumsum(-1)    # [1,8,L]
        score = y.mean(1)                                  # [1,L]
        vals, idx = score.topk(5, dim=-1)
        return y * vals.mean(), idx, score.argmax(-1)


class ImageOpsMix2(nn.Module):
    """More image ops: reflect/replicate/constant padding, dilated ceil-mode MaxPool, AvgPool without the
    padding in its count, LocalResponseNorm, per-channel PReLU, grouped dilated ConvTranspose, bicubic with
    aligned corners, trilinear on 5-D, grid_sample (nearest, border) on a constant affine grid, unfold (im2col),
    Selu/Celu/Softplus(beta)/Hardtanh/Softsign; input [1,8,23,29]."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(8, 16, 3)
        self.prelu = nn.PReLU(16)
        self.lrn = nn.LocalResponseNorm(5, alpha=1e-2, beta=0.75, k=2.0)
        self.ct = nn.ConvTranspose2d(16, 16, 3, stride=2, padding=2, output_padding=1, groups=4, dilation=2)
        theta = torch.tensor([[[0.9, 0.2, 0.05], [-0.1, 0.8, -0.1]]])  # affine_grid does not export: a constant
        self.register_buffer("grid", F.affine_grid(theta, [1, 16, 11, 9], align_corners=False))

    def forward(self, x):
        a = self.prelu(self.c1(F.pad(x, (1, 2, 2, 1), mode="reflect")))
        a = self.lrn(F.pad(a, (1, 1, 1, 1), mode="replicate"))
        b = F.max_pool2d(a, 3, stride=2, padding=1, dilation=2, ceil_mode=True)
        # no circular pad: torch 1.13 exports it with wrong slices (the sides swapped, end -1 for the last row)
        b = F.avg_pool2d(F.pad(b, (2, 0, 0, 2), mode="constant", value=0.25), 3, stride=2, padding=1, ceil_mode=True,
                         count_include_pad=False)
        c = self.ct(F.selu(b)) + F.celu(b.mean(), 0.5)
        d = F.interpolate(c, size=(17, 13), mode="bicubic", align_corners=True)
        e = F.grid_sample(d, self.grid, mode="nearest", padding_mode="border", align_corners=False)
        f = F.interpolate(e.unsqueeze(0), scale_factor=(2.0, 1.5, 1.5), mode="trilinear").squeeze(0)
        u = F.unfold(F.softsign(f), 3, dilation=1, padding=1, stride=2)
        return F.hardtanh(F.softplus(u, beta=2.0), -0.5, 1.5)


class TensorOpsMix(nn.Module):
    """Tensor ops: sort, gather/scatter along an axis, index_select, flip, roll, one_hot, embedding,
    triu, var/std, normalize (ReduceL2), logsumexp, LogSoftmax, min with indices, floor division and
    remainder, where, baddbmm, LayerNorm over two axes; input [1,6,20]. Outputs y (floats), y1 (the sort
    indices, int64), y2 (the min indices, int64)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 20)
        self.ln = nn.LayerNorm([6, 20])
        self.register_buffer("idx", torch.tensor([4, 0, 3, 3, 1]))

    def forward(self, x):
        v, order = x.sort(-1, descending=True)
        g = torch.gather(x, -1, order.flip(-1)) + torch.roll(v, shifts=(2, -1), dims=(1, 2))
        tokens = torch.remainder((x * 7).floor(), 10).long()
        tokens = torch.where(tokens < 0, tokens + 10, tokens)
        e = self.emb(tokens[:, 0]) + F.one_hot(torch.div(tokens[:, 1], 2, rounding_mode="floor"), 20).float()
        s = torch.zeros_like(x).scatter(-1, order[..., :4], 1.0)
        h = self.ln(g + s) + torch.triu(torch.ones(6, 20), diagonal=2)
        m = torch.baddbmm(h, h[:, :, :6], h, beta=0.5, alpha=0.1)
        w = F.normalize(m, dim=-1) * h.var(-1, keepdim=True) + h.std(1, keepdim=True)
        w = torch.cat([w, e, torch.index_select(x, 2, self.idx).repeat(1, 1, 4)], 1)
        lse = torch.logsumexp(w, -1, keepdim=True)
        mn, mi = w.min(-1)
        return F.log_softmax(w - lse, -1) + mn.unsqueeze(-1), order, mi


def det(fn, logit_scale=30.0, **kw):
    """A detection model whose classification logits are scaled up: with random weights the class scores
    are all about 1/num_classes, equal to 1e-8, so which boxes survive TopK and NMS is decided by rounding
    (PyTorch and ONNX break ties differently) and nothing passes the score threshold."""
    keys = ("boxes", "scores", "labels") + (("keypoints",) if fn.startswith("keypoint") else
                                            ("masks",) if fn.startswith("mask") else ())

    def make():
        model = getattr(tvm.detection, fn)(weights=None, weights_backbone=None, **kw)
        with torch.no_grad():
            for name, p in model.named_parameters():
                if any(k in name for k in ("cls_logits", "classification_head", "cls_score")):
                    p.mul_(logit_scale)
        return Detections(model, keys)
    return make



def flow(fn):
    return lambda: LastFlow(getattr(tvm.optical_flow, fn)(weights=None))


def video(fn):
    return lambda: getattr(tvm.video, fn)(weights=None)


VIDEO = [("x", (1, 3, 8, 112, 112))]

# Same layout as MODELS. Opsets: 16 for grid_sample (RAFT), 11 or later for detection (NMS, RoiAlign).
EXTRA_MODELS = {
    "alexnet": (tv("alexnet"), IMG, 13, 30, "AlexNet"),
    "vgg16_bn": (tv("vgg16_bn"), IMG, 13, 3, "VGG with BatchNorm"),
    "resnet101": (tv("resnet101"), IMG, 13, 5, "ResNet"),
    "densenet201": (tv("densenet201"), IMG, 13, 5, "DenseNet (Concat)"),
    "squeezenet1_1": (tv("squeezenet1_1"), IMG, 13, 100, "SqueezeNet (ceil-mode pooling)"),
    "shufflenet_v2_x0_5": (tv("shufflenet_v2_x0_5"), IMG, 13, 300, "ShuffleNet V2"),
    "mnasnet0_5": (tv("mnasnet0_5"), IMG, 13, 200, "MNASNet"),
    "efficientnet_b3": (tv("efficientnet_b3"), [("x", (1, 3, 300, 300))], 13, 10, "EfficientNet (SiLU, SE)"),
    "efficientnet_v2_s": (tv("efficientnet_v2_s"), [("x", (1, 3, 384, 384))], 13, 5, "EfficientNetV2 (fused MBConv)"),
    "regnet_y_1_6gf": (tv("regnet_y_1_6gf"), IMG, 13, 20, "RegNetY (SE, grouped conv)"),
    "convnext_small": (tv("convnext_small"), IMG, 14, 5, "ConvNeXt"),
    "vit_b_32": (tv("vit_b_32"), IMG, 14, 10, "ViT /32"),
    # swin_v2_t does not export with torch 1.13 (aten::zero has no ONNX symbolic).
    "swin_s": (tv("swin_s"), IMG, 14, 3, "Swin (deeper, shifted windows)"),
    "maxvit_t": (tv("maxvit_t"), IMG, 14, 5, "MaxViT (block/grid attention, MBConv)"),
    "mc3_18": (video("mc3_18"), VIDEO, 13, 5, "video, mixed 3-D/2-D convolutions"),
    "r2plus1d_18": (video("r2plus1d_18"), VIDEO, 13, 3, "video, (2+1)-D convolutions"),
    "s3d": (video("s3d"), [("x", (1, 3, 16, 224, 224))], 13, 2, "video, S3D (separable 3-D, 3-D pooling)"),
    "deeplabv3_resnet50": (seg("deeplabv3_resnet50"), IMG, 13, 2, "segmentation, ASPP on dilated ResNet-50"),
    "raft_small": (flow("raft_small"), [("a", (1, 3, 128, 128)), ("b", (1, 3, 128, 128))], 16, 5,
                   "optical flow (correlation, grid_sample)"),
    "ssdlite320_mobilenet_v3_large": (det("ssdlite320_mobilenet_v3_large"), [("x", (1, 3, 320, 320))], 13, 20,
                                      "detection, SSDlite (TopK, NMS)"),
    "fasterrcnn_mobilenet_v3_large_320_fpn": (det("fasterrcnn_mobilenet_v3_large_320_fpn"),
                                              [("x", (1, 3, 320, 320))], 13, 10,
                                              "detection, Faster R-CNN (RoiAlign, NMS)"),
    # RetinaNet's sigmoid scores saturate to 1.0 (all tied) at the default scale of 30.
    "retinanet_resnet50_fpn": (det("retinanet_resnet50_fpn", logit_scale=3.0, min_size=320, max_size=320),
                               [("x", (1, 3, 320, 320))], 13, 3, "detection, RetinaNet (TopK, NMS)"),
    "keypointrcnn_resnet50_fpn": (det("keypointrcnn_resnet50_fpn", min_size=320, max_size=320),
                                  [("x", (1, 3, 320, 320))], 13, 2, "detection, Keypoint R-CNN"),
    "image_ops_mix": (ImageOpsMix, [("x", (1, 3, 40, 40))], 13, 500, "GroupNorm, PixelShuffle, bicubic, adaptive pool"),
    "image_ops_mix2": (ImageOpsMix2, [("x", (1, 8, 23, 29))], 16, 500,
                       "padding modes, LRN, grouped ConvTranspose, grid_sample, unfold"),
    "tensor_ops_mix": (TensorOpsMix, [("x", (1, 6, 20))], 14, 500, "sort, gather, scatter, one_hot, triu, ..."),
    "seq_ops_mix": (SeqOpsMix, [("x", (1, 16, 50))], 13, 500, "dilated Conv1d, einsum, cumsum, topk, argmax"),
}


# ---------------------------------------------------------------- models nobody here had tried (WILD_MODELS)

class DecoderMasks(nn.Module):
    """nn.TransformerDecoder (2 layers, d 128, 4 heads, norm_first) with a causal target mask, a target
    key-padding mask and a memory key-padding mask (both bool, computed from the input's length), and an
    nn.MultiheadAttention with a float additive mask and need_weights (the averaged weights are output y1);
    inputs tgt [1,24,128] and memory [1,40,128]."""

    def __init__(self):
        super().__init__()
        layer = nn.TransformerDecoderLayer(128, 4, 256, dropout=0.0, batch_first=True, norm_first=True)
        self.dec = nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(128))
        self.mha = nn.MultiheadAttention(128, 8, dropout=0.0, batch_first=True, kdim=64, vdim=96)
        self.kp = nn.Linear(128, 64)
        self.vp = nn.Linear(128, 96)
        self.register_buffer("causal", torch.triu(torch.ones(24, 24, dtype=torch.bool), 1))
        self.register_buffer("bias", 0.3 * torch.randn(24, 40))

    def forward(self, tgt, memory):
        t, s = tgt.shape[1], memory.shape[1]
        tgt_pad = torch.arange(t).unsqueeze(0) >= t - 3            # last 3 target positions padded
        mem_pad = torch.arange(s).unsqueeze(0) >= s - 5
        h = self.dec(tgt, memory, tgt_mask=self.causal, tgt_key_padding_mask=tgt_pad,
                     memory_key_padding_mask=mem_pad)
        a, w = self.mha(h, self.kp(memory), self.vp(memory), attn_mask=self.bias, need_weights=True)
        return h + a, w


class ConformerBlock(nn.Module):
    """A Conformer block (macaron feed-forwards with SiLU, MHA with a per-head bool mask of shape
    [heads, T, T], a convolution module: pointwise Conv1d -> GLU -> depthwise Conv1d -> BatchNorm1d -> SiLU
    -> pointwise), LayerNorm without affine at the end; input [1,50,144]."""

    def __init__(self, d=144, heads=4, k=15):
        super().__init__()
        self.ff1 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.ff2 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.ln_att = nn.LayerNorm(d)
        self.att = nn.MultiheadAttention(d, heads, dropout=0.0, batch_first=True)
        self.ln_conv = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, k, padding=k // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)
        self.ln_out = nn.LayerNorm(d, elementwise_affine=False)
        self.heads = heads
        pos = torch.arange(50)
        band = (pos[None, :] - pos[:, None]).abs()
        # head h sees keys within 4 * (h + 1) frames (a banded local attention per head)
        self.register_buffer("mask", torch.stack([band > 4 * (h + 1) for h in range(heads)]))

    def forward(self, x):
        x = x + 0.5 * self.ff1(x)
        h = self.ln_att(x)
        x = x + self.att(h, h, h, attn_mask=self.mask, need_weights=False)[0]
        c = self.ln_conv(x).transpose(1, 2)
        c = F.glu(self.pw1(c), dim=1)
        c = self.pw2(F.silu(self.bn(self.dw(c))))
        x = x + c.transpose(1, 2)
        x = x + 0.5 * self.ff2(x)
        return self.ln_out(x)


class RnnMix(nn.Module):
    """Recurrent layers the corpus lacks: an LSTM with initial states computed from the input (proj_size does
    not export with torch 1.13), a bidirectional batch-first GRU with initial states, an RNN with relu;
    input [1,30,40]. Outputs y (pooled) and y1 (the GRU's sequence)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(40, 32, num_layers=2, batch_first=True)
        self.s0 = nn.Linear(40, 4 * 32)
        self.gru = nn.GRU(32, 48, bidirectional=True, batch_first=True)
        self.h0 = nn.Linear(40, 2 * 48)
        self.rnn = nn.RNN(96, 24, nonlinearity="relu", batch_first=True)

    def forward(self, x):
        s0 = torch.tanh(self.s0(x[:, 0])).view(4, 1, 32)
        a = self.lstm(x, (s0[:2].contiguous(), s0[2:].contiguous()))[0]
        h0 = torch.tanh(self.h0(x.mean(1))).view(1, 2, 48).transpose(0, 1).contiguous()
        b = self.gru(a, h0)[0]
        c, hn = self.rnn(b)
        return c.mean(1) + hn[0], b


class EmbeddingMix(nn.Module):
    """Token ops from a float input (ids made inside the graph): Embedding with padding_idx, EmbeddingBag
    (sum, with offsets, and max), positional Embedding from arange, masked mean pooling; input [1,32]."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 64, padding_idx=0)
        self.pos = nn.Embedding(32, 64)
        self.bag = nn.EmbeddingBag(100, 64, mode="sum")
        self.bag_max = nn.EmbeddingBag(100, 64, mode="max")
        self.register_buffer("offsets", torch.tensor([0, 5, 11, 20]))
        self.out = nn.Linear(64, 16)

    def forward(self, x):
        ids = (x.abs() * 40).long().clamp(0, 99)                     # [1,32]
        e = self.emb(ids) + self.pos(torch.arange(ids.shape[1]).unsqueeze(0))
        keep = (ids != 0).unsqueeze(-1).float()
        pooled = (e * keep).sum(1) / keep.sum(1).clamp(min=1.0)     # [1,64]
        bags = self.bag(ids[0], self.offsets)                        # [4,64]
        bmax = self.bag_max(ids.view(4, 8))                          # [4,64]
        return self.out(pooled + bags.mean(0, keepdim=True) + bmax.amax(0, keepdim=True))


class NormMix(nn.Module):
    """Normalisations without affine parameters: GroupNorm, InstanceNorm1d/2d/3d (track_running_stats off),
    LayerNorm over the last two axes, BatchNorm without affine, and F.normalize over channels; input
    [1,12,10,14]."""

    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(3, 12, affine=False)
        self.in2 = nn.InstanceNorm2d(12)
        self.in1 = nn.InstanceNorm1d(12)
        self.in3 = nn.InstanceNorm3d(3)
        self.ln = nn.LayerNorm([10, 14], elementwise_affine=False)
        self.bn = nn.BatchNorm2d(12, affine=False)
        self.c = nn.Conv2d(12, 12, 3, padding=1)

    def forward(self, x):
        a = self.gn(self.c(x))
        b = self.in2(a * 2.0 + 1.0)
        c = self.in1(b.flatten(2)).view_as(b)
        d = self.in3(c.view(1, 3, 4, 10, 14)).view_as(c)
        e = self.ln(self.bn(d))
        return F.normalize(e, dim=1) + F.normalize(e.flatten(1), p=1.0, dim=-1).view_as(e)


class ResampleMix(nn.Module):
    """Resampling the corpus lacks: Upsample nearest x2 and bilinear with align_corners by scale factors,
    bicubic by a non-integer scale, PixelUnshuffle/PixelShuffle, ConvTranspose3d, AdaptiveMaxPool2d and
    AdaptiveAvgPool1d, F.unfold (F.fold needs opset 18's Col2Im); input [1,4,16,20]. Outputs y and y1."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(16, 8, 3, padding=1)
        self.ct3 = nn.ConvTranspose3d(2, 3, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), output_padding=(0, 1, 1))
        self.up_n = nn.Upsample(scale_factor=2, mode="nearest")
        self.up_b = nn.Upsample(scale_factor=1.5, mode="bilinear", align_corners=True)

    def forward(self, x):
        a = F.pixel_unshuffle(x, 2)                                     # [1,16,8,10]
        b = F.pixel_shuffle(self.c(a), 2)                               # [1,2,16,20]
        c = self.up_b(self.up_n(b))                                     # [1,2,48,60]
        d = F.interpolate(c, scale_factor=0.7, mode="bicubic", align_corners=False)   # [1,2,33,42]
        e = self.ct3(d.unsqueeze(2).repeat(1, 1, 2, 1, 1).view(1, 2, 2, 33, 42))     # [1,3,3,66,84]
        f = F.adaptive_max_pool2d(e.flatten(1, 2), (11, 12))              # [1,9,11,12]
        cols = F.unfold(f, 3, padding=1)                                  # [1,81,132]
        h = F.adaptive_avg_pool1d(cols, 33)                                # [1,81,33]
        return h, f


class ActivationMix(nn.Module):
    """Activation chains after convolutions and linear layers: hardswish, mish, softplus, elu, selu, celu,
    hardsigmoid, logsigmoid, tanhshrink, softshrink, hardshrink, relu6, silu, gelu tanh (threshold with a
    non-zero value does not export);
    input [1,8,24,24]."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(8, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.c3 = nn.Conv2d(16, 16, 1)
        self.c4 = nn.Conv2d(16, 16, 3, padding=1)
        self.l1 = nn.Linear(24, 24)
        self.l2 = nn.Linear(24, 24)

    def forward(self, x):
        a = F.mish(self.c1(x))
        b = F.hardswish(self.c2(a))
        c = F.elu(self.c3(b), 0.7) + F.selu(b)
        d = F.softplus(self.c4(c), beta=1.5, threshold=10.0)
        e = F.celu(self.l1(d), 1.3) * F.hardsigmoid(d)
        f = F.logsigmoid(self.l2(e)) + F.tanhshrink(e) + F.softshrink(e, 0.3) + F.hardshrink(e, 0.2)
        g = F.relu6(f * 3.0) + F.gelu(f, approximate="tanh") + F.silu(f)
        return g


class IndexingMix(nn.Module):
    """Element selection: masked_fill with a computed mask, cumsum along two axes (and reversed with flip),
    roll, clamp with tensor bounds, where, gather and scatter_add, topk (largest and smallest), argmax and
    argmin with keepdim, einsum variants (outer product, batched trace-free contraction, three operands,
    broadcast ellipsis); input [1,8,12]. Outputs y, y1 (topk indices, int64), y2 (argmin, int64).
    repeated_index: scatter_add with an index repeated, which torch 1.13 exports right only from opset 16
    (ScatterElements with reduction "add"; below, a plain ScatterElements, where the last update wins)."""

    def __init__(self, repeated_index=False):
        super().__init__()
        self.w = nn.Parameter(torch.randn(12, 6))
        self.v = nn.Parameter(torch.randn(6, 12))
        idx = [3, 0, 7, 7, 11, 2] if repeated_index else [3, 0, 7, 9, 11, 2]
        self.register_buffer("idx", torch.tensor([[idx]]).expand(1, 8, 6).contiguous())

    def forward(self, x):
        m = x.masked_fill(x.abs() < 0.2, 0.0)
        c = m.cumsum(-1) + m.flip(1).cumsum(1).flip(1)
        r = torch.roll(c, 3, -1) + torch.roll(c, -2, 1)
        lo = r.mean(-1, keepdim=True) - r.std(-1, keepdim=True)
        hi = r.mean(1, keepdim=True) + r.std(1, keepdim=True)
        cl = torch.max(torch.min(r, hi), lo)
        w = torch.where(cl > 0, cl, 0.1 * cl)
        g = torch.gather(w, -1, self.idx)                             # [1,8,6]
        s = torch.zeros_like(w).scatter_add(-1, self.idx, g)          # [1,8,12]
        outer = torch.einsum("bi,bj->bij", w[:, 0], w[:, 1])          # [1,12,12]
        three = torch.einsum("bij,jk,kl->bil", w, self.w, self.v)     # [1,8,12]
        ell = torch.einsum("...ij,...jk->...ik", s, outer)            # [1,8,12]
        y = three + ell + s
        top_v, top_i = y.topk(4, dim=-1)
        low_v, _ = y.topk(3, dim=1, largest=False)
        am = y.argmax(-1, keepdim=True).float()
        y = y + top_v.mean(-1, keepdim=True) - low_v.mean(1, keepdim=True) + 0.01 * am
        return y, top_i, y.argmin(1)


class DynEncoder(nn.Module):
    """A small pre-LN encoder (2 layers, d 128, 4 heads) with a key-padding mask from a second input,
    exported with a dynamic batch and sequence; inputs x [2,20,128] and lengths [2] (float; the
    padded length of row i is seq - floor(4 |lengths[i]|), at least 1)."""

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True, norm_first=True,
                                           activation="gelu")
        self.enc = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(128, 10)

    def forward(self, x, lengths):
        # lengths from the (random) input: between 1 and the sequence, so no row is all padding
        n = (x.shape[1] - (lengths.abs() * 4).floor()).clamp(min=1)
        pad = torch.arange(x.shape[1]).unsqueeze(0) >= n.unsqueeze(1)
        h = self.enc(x, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        return self.head((h * keep).sum(1) / keep.sum(1))


class DynCnn(nn.Module):
    """A small CNN (Conv/BN/ReLU, residual, depthwise, SE, global pool) exported with a dynamic batch and
    dynamic height and width; input [2,3,64,48]."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.dw = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1, groups=32), nn.BatchNorm2d(32), nn.Hardswish())
        self.se1, self.se2 = nn.Conv2d(32, 8, 1), nn.Conv2d(8, 32, 1)
        self.pw = nn.Sequential(nn.Conv2d(32, 64, 1), nn.BatchNorm2d(64), nn.ReLU())
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        a = self.stem(x)
        b = self.dw(a)
        s = torch.sigmoid(self.se2(F.relu(self.se1(b.mean((2, 3), keepdim=True)))))
        c = self.pw(a + b * s)
        d = F.interpolate(c, scale_factor=2.0, mode="nearest")
        return self.fc(F.adaptive_avg_pool2d(d, 1).flatten(1))


class DtypeMix(nn.Module):
    """Arithmetic in other element types inside an f32 model: a branch in float64 (MatMul, Softmax,
    LayerNorm-like reductions, Exp/Log), a round trip through float16, int32 and int64 arithmetic (integer
    division, remainder, Abs, Max), bool logic (xor, not), IsNaN/IsInf via nan_to_num, sign, fmod,
    atan2-free trigonometry (sin, cos, atan), reciprocal, rsqrt; input [1,6,16]."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(16, 16))

    def forward(self, x):
        d = x.double()
        a = torch.softmax(d @ self.w.double(), -1)
        a = (a - a.mean(-1, keepdim=True)) / (a.var(-1, keepdim=True, unbiased=False) + 1e-6).sqrt()
        a = torch.log(torch.exp(a.clamp(-5, 5)) + 1.0).float()
        h = (x * 3.0).half().float()                                   # f16 rounding
        i = (x * 10).to(torch.int32)
        j = (torch.div(i, 3, rounding_mode="trunc") + torch.remainder(i, 4) + i.abs().max()).float()
        k = (x * 10).long()
        kk = (k * k - k // 2).clamp(-50, 50).float()
        b = (x > 0) ^ (h < 0.5)
        z = torch.where(~b, torch.sign(x) * torch.floor(x.abs() * 4), torch.fmod(x * 7, 2.0))
        t = torch.sin(x) * torch.cos(h) + torch.atan(x * 2)
        r = torch.rsqrt(x.abs() + 0.5) + torch.reciprocal(x.abs() + 1.0)
        n = torch.nan_to_num(torch.log(x), nan=0.25, neginf=-3.0)
        return a + h + 0.01 * j + 0.001 * kk + z + t + r + n


class SelectMix(nn.Module):
    """Value-dependent and index ops: advanced indexing (GatherND), index_put (ScatterND), nonzero and
    masked_select (dynamic lengths reduced to a fixed output), MaxPool with indices and an unpool by
    scatter (max_unpool2d does not export with torch 1.13), torch.stack, split into uneven parts; input
    [1,4,12,12]. Outputs y and y1 (the unpooled map)."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(4, 4, 3, padding=1)
        self.register_buffer("rows", torch.tensor([0, 2, 5, 11]))
        self.register_buffer("cols", torch.tensor([1, 1, 7, 3]))

    def forward(self, x):
        a = self.c(x)
        p, ind = F.max_pool2d(a, 2, return_indices=True)              # [1,4,6,6]
        u = torch.zeros_like(a).flatten(2).scatter(-1, ind.flatten(2), p.flatten(2)).view_as(a)  # unpool
        g = u[0, :, self.rows, self.cols]                              # GatherND-like [4,4]
        v = a.clone()
        v[0, :, self.rows, self.cols] = g * 2.0                         # index_put
        m = v > 0.3
        cnt = m.sum().float()
        sel = torch.masked_select(v, m)                                 # dynamic length
        nz = torch.nonzero(v[0, 0] > 0.0)                               # [n,2]
        parts = torch.split(v, [1, 3], dim=1)
        s = torch.stack([parts[0].mean((2, 3)), parts[1].mean((1, 2, 3)).unsqueeze(1)], 0).sum(0)
        return v + sel.mean() + cnt * 0.001 + nz.float().mean() * 0.01 + s.view(1, 1, 1, 1), u


class DynSeqMix(nn.Module):
    """Shapes computed at run time: a causal mask built with triu from the sequence length (Trilu),
    positions from arange, padding to a multiple of 8 computed from the length, reshape into chunks, a
    repeat by the batch, and an nearest resize to twice the length; exported with dynamic batch and
    sequence; input [2,21,32]."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(32, 4, dropout=0.0, batch_first=True)
        self.pos = nn.Parameter(0.1 * torch.randn(1, 64, 32))

    def forward(self, x):
        b, t, d = x.shape
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        h = x + self.pos[:, :t]
        h = h + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        pad = (8 - t % 8) % 8
        hp = F.pad(h, (0, 0, 0, pad))                                 # [b, T8, d]
        chunks = hp.reshape(b, -1, 8, d).mean(2)                      # [b, T8/8, d]
        up = F.interpolate(h.transpose(1, 2), scale_factor=2.0, mode="nearest").transpose(1, 2)  # [b, 2t, d]
        return up[:, ::2] + chunks.mean(1, keepdim=True) + torch.arange(t).float().view(1, t, 1) * 0.01


def dyn(**axes):
    """Export options: dynamic_axes for torch.onnx.export."""
    return {"dynamic_axes": axes}


# Same layout as MODELS, with an optional sixth element: extra torch.onnx.export arguments (dynamic_axes).
# Not here because torch 1.13 cannot export them: LayerNorm without affine at opset 17 (an empty scale
# input), LSTM with proj_size, F.fold below opset 18, threshold with a non-zero value; torchvision
# 0.14 has no swin3d_t, and exporting mvit_v2_s (16 frames) ran out of 24 GB of memory.
WILD_MODELS = {
    "densenet169": (tv("densenet169"), IMG, 13, 10, "DenseNet (Concat)"),
    "efficientnet_b1": (tv("efficientnet_b1"), [("x", (1, 3, 240, 240))], 13, 30, "EfficientNet (SiLU, SE)"),
    "efficientnet_v2_m": (tv("efficientnet_v2_m"), [("x", (1, 3, 480, 480))], 13, 2, "EfficientNetV2-M"),
    "regnet_y_800mf": (tv("regnet_y_800mf"), IMG, 13, 40, "RegNetY (SE, grouped conv)"),
    "regnet_x_3_2gf": (tv("regnet_x_3_2gf"), IMG, 13, 10, "RegNetX (grouped conv)"),
    "shufflenet_v2_x2_0": (tv("shufflenet_v2_x2_0"), IMG, 13, 60, "ShuffleNet V2 (wide)"),
    "mnasnet1_3": (tv("mnasnet1_3"), IMG, 13, 60, "MNASNet"),
    "vgg19_bn": (tv("vgg19_bn"), IMG, 13, 2, "VGG with BatchNorm"),
    "resnext101_32x8d": (tv("resnext101_32x8d"), IMG, 13, 2, "ResNeXt (grouped conv)"),
    "convnext_base": (tv("convnext_base"), IMG, 14, 2, "ConvNeXt"),
    "swin_b": (tv("swin_b"), IMG, 14, 2, "Swin-B"),
    "vit_l_32": (tv("vit_l_32"), IMG, 14, 2, "ViT-L/32"),
    "fcn_resnet101": (seg("fcn_resnet101"), IMG, 13, 2, "segmentation, dilated ResNet-101"),
    # SSD300's VGG features are large without BatchNorm: its logits are scaled down so the scores do not tie at 1.
    "ssd300_vgg16": (det("ssd300_vgg16", logit_scale=0.01), [("x", (1, 3, 300, 300))], 13, 3, "detection, SSD300 (L2Norm, NMS)"),
    "fcos_resnet50_fpn": (det("fcos_resnet50_fpn", logit_scale=3.0, min_size=320, max_size=320),
                          [("x", (1, 3, 320, 320))], 13, 2, "detection, FCOS (centerness, NMS)"),
    "maskrcnn_resnet50_fpn": (det("maskrcnn_resnet50_fpn", min_size=320, max_size=320),
                              [("x", (1, 3, 320, 320))], 13, 2, "detection, Mask R-CNN (RoiAlign, masks pasted)"),
    "raft_large": (flow("raft_large"), [("a", (1, 3, 96, 128)), ("b", (1, 3, 96, 128))], 16, 2,
                   "optical flow, RAFT-large"),
    "decoder_masks": (DecoderMasks, [("tgt", (1, 24, 128)), ("memory", (1, 40, 128))], 14, 300,
                      "TransformerDecoder, key-padding masks, MHA with kdim/vdim"),
    "conformer_block": (ConformerBlock, [("x", (1, 50, 144))], 14, 300, "Conformer (GLU, depthwise Conv1d)"),
    "rnn_mix": (RnnMix, [("x", (1, 30, 40))], 14, 300, "LSTM proj_size, bidirectional GRU, relu RNN"),
    "embedding_mix": (EmbeddingMix, [("x", (1, 32))], 13, 1000, "Embedding, EmbeddingBag"),
    "norm_mix": (NormMix, [("x", (1, 12, 10, 14))], 13, 1000, "norms without affine"),
    "resample_mix": (ResampleMix, [("x", (1, 4, 16, 20))], 13, 500, "Upsample scales, PixelUnshuffle, fold"),
    "resample_mix_o16": (ResampleMix, [("x", (1, 4, 16, 20))], 16, 500, "the same at opset 16"),
    "activation_mix": (ActivationMix, [("x", (1, 8, 24, 24))], 13, 500, "activation chains"),
    "activation_mix_o17": (ActivationMix, [("x", (1, 8, 24, 24))], 17, 500, "activation chains, opset 17"),
    "indexing_mix": (IndexingMix, [("x", (1, 8, 12))], 13, 1000, "masked_fill, cumsum, einsum, topk, ..."),
    "indexing_mix_o16": (lambda: IndexingMix(repeated_index=True), [("x", (1, 8, 12))], 16, 1000,
                         "the same at opset 16, scatter_add with a repeated index"),
    "dtype_mix": (DtypeMix, [("x", (1, 6, 16))], 13, 1000, "float64, float16, int32/int64 and bool arithmetic"),
    "select_mix": (SelectMix, [("x", (1, 4, 12, 12))], 13, 1000, "GatherND, ScatterND, NonZero, MaxUnpool"),
    "dyn_seq_mix": (DynSeqMix, [("x", (2, 21, 32))], 14, 1000, "Trilu mask, pads and resizes from the length",
                    dyn(x={0: "batch", 1: "seq"})),
    "dyn_encoder": (DynEncoder, [("x", (2, 20, 128)), ("lengths", (2,))], 14, 300,
                    "encoder with key-padding mask, dynamic batch and sequence",
                    dyn(x={0: "batch", 1: "seq"}, lengths={0: "batch"})),
    "dyn_encoder_o17": (DynEncoder, [("x", (2, 20, 128)), ("lengths", (2,))], 17, 300,
                        "the same at opset 17", dyn(x={0: "batch", 1: "seq"}, lengths={0: "batch"})),
    "dyn_cnn": (DynCnn, [("x", (2, 3, 64, 48))], 13, 300, "CNN with dynamic batch, height and width",
                dyn(x={0: "batch", 2: "h", 3: "w"})),
    "dyn_cnn_o16": (DynCnn, [("x", (2, 3, 64, 48))], 16, 300, "the same at opset 16",
                    dyn(x={0: "batch", 2: "h", 3: "w"})),
}


def max_opset():
    from torch.onnx import _constants
    return getattr(_constants, "ONNX_MAX_OPSET", getattr(_constants, "onnx_main_opset", 14))


def export(name, out_root):
    out = os.path.join(out_root, name)
    if os.path.isfile(os.path.join(out, "info.json")) and os.path.isfile(os.path.join(out, "model.onnx")):
        print(f"{name}: already exported in {out}")
        return True
    make, inputs, opset, iters, family, *options = {**MODELS, **EXTRA_MODELS, **WILD_MODELS}[name]
    options = options[0] if options else {}
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
    ys = (y,) if isinstance(y, torch.Tensor) else tuple(y)
    if not ys or not all(isinstance(t, torch.Tensor) for t in ys):
        raise TypeError(f"output is a {type(y).__name__}, not a tensor or a tuple of tensors")
    out_names = ["y"] + [f"y{i}" for i in range(1, len(ys))]
    tmp = out + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    onnx_path = os.path.join(tmp, "model.onnx")
    torch.onnx.export(model, xs, onnx_path, opset_version=opset, do_constant_folding=True,
                      input_names=[n for n, _ in inputs], output_names=out_names, **options)
    import onnx
    onnx.checker.check_model(onnx_path)
    for (n, _), x in zip(inputs, xs):
        np.save(os.path.join(tmp, f"input_{n}.npy"), x.numpy())
    if len(inputs) == 1:
        np.save(os.path.join(tmp, "input.npy"), xs[0].numpy())
    np.save(os.path.join(tmp, "expected.npy"), ys[0].numpy())
    if len(ys) > 1:
        for n, t in zip(out_names, ys):
            np.save(os.path.join(tmp, f"expected_{n}.npy"), t.numpy())
    info = {"model": name, "family": family, "opset": opset, "seed": SEED, "torch": torch.__version__,
            "torchvision": torchvision.__version__, "inputs": {n: list(s) for n, s in inputs},
            "outputs": {n: list(t.shape) for n, t in zip(out_names, ys)}, "niter": iters,
            "torch_ms_one_run": round(torch_ms, 2)}
    if "dynamic_axes" in options:
        info["dynamic_axes"] = {n: {str(a): d for a, d in axes.items()} for n, axes in options["dynamic_axes"].items()}
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
    extra, wild = "--extra" in args, "--wild" in args
    args = [a for a in args if a not in ("--extra", "--wild")]
    chosen = WILD_MODELS if wild else EXTRA_MODELS if extra else MODELS
    if args == ["--list"]:
        print("\n".join(chosen))
        return 0
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    out_root, names = args[0], args[1:] or list(chosen)
    known = {**MODELS, **EXTRA_MODELS, **WILD_MODELS}
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"export_corpus.py: unknown model(s) {', '.join(unknown)}; known: {', '.join(known)}",
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
