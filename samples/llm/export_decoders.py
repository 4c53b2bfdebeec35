#!/usr/bin/env python3
# Exports the two decoder language models of issue 33 (a GPT-2-style and a Llama-style decoder, plain
# PyTorch, random weights from a fixed seed) to ONNX with explicit past key/value inputs, the way
# optimum and ONNX Runtime GenAI export them, with a genai_config.json and a PyTorch greedy reference.
"""Export GPT-2-style and Llama-style decoders with explicit KV-cache inputs to ONNX.

For each model, OUT/<name>/ receives:
  model.onnx          inputs  input_ids [B,S] i64, attention_mask [B,P+S] i64, position_ids [B,S] i64,
                              past_key_values.N.key / .value [B,KVH,P,hd] f32  (N = 0..layers-1)
                      outputs logits [B,S,V] f32, present.N.key / .value [B,KVH,P+S,hd] f32
                      batch, sequence and past lengths are dynamic. Exported with P = 1; the first step
                      of a generation feeds P = 0 (empty past tensors [B,KVH,0,hd]), as ORT GenAI does.
  genai_config.json   ONNX Runtime GenAI's layout (model.decoder names and sizes, token ids, search).
  reference_greedy.json  prompt ids -> the first N greedy ids computed by PyTorch in f32 with the same
                      weights, plus the per-step margin between the best and second-best logit (a step
                      with a tiny margin is where a different but correct summation order may flip).
  reference_beam4.json  PyTorch's beam search (4 beams, no early stop) from the same prompt.
  model_info.json     parameters, weight bytes a decode step reads, KV-cache bytes per token.
  vocab.json, merges.txt  GPT-2's vocabulary, with --gpt2-vocab DIR (gpt2 model only).
  weights.pt          the state dict (so another script can rebuild the PyTorch model exactly).

Usage:
  samples/llm/export_decoders.py OUT [--models gpt2,llama] [--tiny] [--seed 0] [--prompt-len 16]
                                     [--new-tokens 64] [--beams 4] [--references-only]
                                     [--gpt2-vocab DIR] [--layers L --hidden D --heads H ...]
Exits 77 (the "skipped" code of ctest) when PyTorch or onnx is not installed.
"""
import argparse
import json
import math
import os
import shutil
import sys

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("export_decoders.py: PyTorch is not installed (Debian: apt-get install python3-torch); "
          "nothing exported.", file=sys.stderr)
    sys.exit(77)

# ---------------------------------------------------------------- sizes

GPT2_DEFAULT = dict(layers=12, hidden=768, heads=12, kv_heads=12, vocab=50257, context=1024,
                    intermediate=3072)
GPT2_TINY = dict(layers=2, hidden=64, heads=4, kv_heads=4, vocab=1000, context=256, intermediate=256)
# About 125M parameters: 12 layers of d 768, 12 query heads sharing 4 KV heads, SwiGLU 2048, a 32000
# vocabulary with an untied LM head (Llama unties it).
LLAMA_DEFAULT = dict(layers=12, hidden=768, heads=12, kv_heads=4, vocab=32000, context=2048,
                     intermediate=2048)
LLAMA_TINY = dict(layers=2, hidden=64, heads=4, kv_heads=2, vocab=1000, context=256, intermediate=172)


def causal_additive_mask(attention_mask, q_len, dtype):
    """[B,1,S,T] additive mask: query i (absolute position T-S+i) sees key j when j <= T-S+i and
    attention_mask[b,j] == 1. Built from run-time shapes so the export stays dynamic."""
    total = attention_mask.shape[1]
    past = total - q_len
    q_pos = torch.arange(q_len, device=attention_mask.device).unsqueeze(1) + past  # [S,1]
    k_pos = torch.arange(total, device=attention_mask.device).unsqueeze(0)  # [1,T]
    allowed = (k_pos <= q_pos).unsqueeze(0).unsqueeze(0)  # [1,1,S,T]
    allowed = allowed & (attention_mask[:, None, None, :] != 0)  # [B,1,S,T]
    neg = torch.finfo(dtype).min
    zero = torch.zeros((), dtype=dtype)
    return torch.where(allowed, zero, torch.full((), neg, dtype=dtype))


def attend(q, k, v, mask, n_rep):
    """q [B,H,S,hd], k/v [B,KVH,T,hd]; KV heads repeated n_rep times for grouped-query attention."""
    if n_rep > 1:
        b, kvh, t, hd = k.shape
        k = k[:, :, None, :, :].expand(b, kvh, n_rep, t, hd).reshape(b, kvh * n_rep, t, hd)
        v = v[:, :, None, :, :].expand(b, kvh, n_rep, t, hd).reshape(b, kvh * n_rep, t, hd)
    scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    scores = scores + mask
    probs = torch.softmax(scores, dim=-1)
    return torch.matmul(probs, v)


# ---------------------------------------------------------------- GPT-2 style

class Gpt2Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["hidden"]
        self.heads = c["heads"]
        self.ln_1 = nn.LayerNorm(d, eps=1e-5)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d, eps=1e-5)
        self.c_fc = nn.Linear(d, c["intermediate"])
        self.mlp_proj = nn.Linear(c["intermediate"], d)

    def forward(self, x, mask, past_k, past_v):
        b, s, d = x.shape
        hd = d // self.heads
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
        q = q.reshape(b, s, self.heads, hd).transpose(1, 2)
        k = k.reshape(b, s, self.heads, hd).transpose(1, 2)
        v = v.reshape(b, s, self.heads, hd).transpose(1, 2)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        a = attend(q, k, v, mask, 1).transpose(1, 2).reshape(b, s, d)
        x = x + self.c_proj(a)
        # GPT-2's "gelu_new" is the tanh approximation.
        x = x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))
        return x, k, v


class Gpt2Decoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.wte = nn.Embedding(c["vocab"], c["hidden"])
        self.wpe = nn.Embedding(c["context"], c["hidden"])
        self.blocks = nn.ModuleList([Gpt2Block(c) for _ in range(c["layers"])])
        self.ln_f = nn.LayerNorm(c["hidden"], eps=1e-5)

    def forward(self, input_ids, attention_mask, position_ids, *past):
        x = self.wte(input_ids) + self.wpe(position_ids)
        mask = causal_additive_mask(attention_mask, input_ids.shape[1], x.dtype)
        presents = []
        for i, blk in enumerate(self.blocks):
            x, k, v = blk(x, mask, past[2 * i], past[2 * i + 1])
            presents += [k, v]
        logits = torch.matmul(self.ln_f(x), self.wte.weight.t())  # tied LM head
        return (logits, *presents)


# ---------------------------------------------------------------- Llama style

class RmsNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


class LlamaBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, h, kvh = c["hidden"], c["heads"], c["kv_heads"]
        hd = d // h
        self.h, self.kvh, self.hd = h, kvh, hd
        self.input_norm = RmsNorm(d)
        self.q_proj = nn.Linear(d, h * hd, bias=False)
        self.k_proj = nn.Linear(d, kvh * hd, bias=False)
        self.v_proj = nn.Linear(d, kvh * hd, bias=False)
        self.o_proj = nn.Linear(h * hd, d, bias=False)
        self.post_norm = RmsNorm(d)
        self.gate_proj = nn.Linear(d, c["intermediate"], bias=False)
        self.up_proj = nn.Linear(d, c["intermediate"], bias=False)
        self.down_proj = nn.Linear(c["intermediate"], d, bias=False)

    def forward(self, x, mask, cos, sin, past_k, past_v):
        b, s, _ = x.shape
        y = self.input_norm(x)
        q = self.q_proj(y).reshape(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(y).reshape(b, s, self.kvh, self.hd).transpose(1, 2)
        v = self.v_proj(y).reshape(b, s, self.kvh, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        a = attend(q, k, v, mask, self.h // self.kvh).transpose(1, 2).reshape(b, s, self.h * self.hd)
        x = x + self.o_proj(a)
        y = self.post_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(y)) * self.up_proj(y)), k, v


class LlamaDecoder(nn.Module):
    def __init__(self, c, rope_theta=10000.0):
        super().__init__()
        self.c = c
        hd = c["hidden"] // c["heads"]
        self.embed = nn.Embedding(c["vocab"], c["hidden"])
        self.blocks = nn.ModuleList([LlamaBlock(c) for _ in range(c["layers"])])
        self.norm = RmsNorm(c["hidden"])
        self.lm_head = nn.Linear(c["hidden"], c["vocab"], bias=False)
        inv_freq = 1.0 / (rope_theta ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        angles = torch.outer(torch.arange(c["context"], dtype=torch.float32), inv_freq)
        angles = torch.cat([angles, angles], dim=-1)  # [context, hd]
        self.register_buffer("cos_table", angles.cos(), persistent=False)
        self.register_buffer("sin_table", angles.sin(), persistent=False)

    def forward(self, input_ids, attention_mask, position_ids, *past):
        x = self.embed(input_ids)
        mask = causal_additive_mask(attention_mask, input_ids.shape[1], x.dtype)
        cos = self.cos_table[position_ids].unsqueeze(1)  # [B,1,S,hd]
        sin = self.sin_table[position_ids].unsqueeze(1)
        presents = []
        for i, blk in enumerate(self.blocks):
            x, k, v = blk(x, mask, cos, sin, past[2 * i], past[2 * i + 1])
            presents += [k, v]
        return (self.lm_head(self.norm(x)), *presents)


# ---------------------------------------------------------------- weights, export, reference

def init_weights(model, seed, hidden):
    """Deterministic random weights. Normal(0, 0.02) as GPT-2 initialises, except the norms' gains
    (about one), the biases (small) and the token embedding / LM head: those get a standard deviation
    of 2/sqrt(d), so the logits spread over a few units as a trained model's do. With 0.02 the logits
    of a random model are nearly flat and greedy decoding hinges on differences of 1e-4, which no two
    summation orders agree on."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if name in ("embed.weight", "lm_head.weight"):
                p.copy_(torch.randn(p.shape, generator=gen) * (2.0 / math.sqrt(hidden)))
            elif name == "ln_f.weight":  # GPT-2's head is tied to wte: scale the logits here
                p.copy_((1.0 + torch.randn(p.shape, generator=gen) * 0.05) * (100.0 / math.sqrt(hidden)))
            elif name.endswith("bias"):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.01)
            elif "norm" in name or "ln_" in name:
                p.copy_(1.0 + torch.randn(p.shape, generator=gen) * 0.05)
            elif p.dim() == 2 and name.startswith("blocks."):
                # Linear weights [out, in]: 1/sqrt(fan_in), so each block's output is as large as
                # the residual it adds to; with 0.02 the token's own embedding dominates the tied
                # head and greedy decoding repeats the last token forever.
                p.copy_(torch.randn(p.shape, generator=gen) * (1.0 / math.sqrt(p.shape[1])))
            else:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.02)


def empty_past(c, batch, past_len):
    hd = c["hidden"] // c["heads"]
    return [torch.zeros(batch, c["kv_heads"], past_len, hd) for _ in range(2 * c["layers"])]


def io_names(c):
    past, present = [], []
    for i in range(c["layers"]):
        past += [f"past_key_values.{i}.key", f"past_key_values.{i}.value"]
        present += [f"present.{i}.key", f"present.{i}.value"]
    return past, present


def export_onnx(model, c, path, opset):
    past_names, present_names = io_names(c)
    b, s, p = 1, 3, 1  # past length >= 1 at export so no branch is specialised for an empty cache
    ids = torch.randint(0, c["vocab"], (b, s), generator=torch.Generator().manual_seed(1))
    mask = torch.ones(b, p + s, dtype=torch.int64)
    pos = torch.arange(p, p + s, dtype=torch.int64).unsqueeze(0)
    past = empty_past(c, b, p)
    dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"},
           "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
           "position_ids": {0: "batch_size", 1: "sequence_length"},
           "logits": {0: "batch_size", 1: "sequence_length"}}
    for n in past_names:
        dyn[n] = {0: "batch_size", 2: "past_sequence_length"}
    for n in present_names:
        dyn[n] = {0: "batch_size", 2: "total_sequence_length"}
    torch.onnx.export(model, (ids, mask, pos, *past), path, opset_version=opset,
                      input_names=["input_ids", "attention_mask", "position_ids", *past_names],
                      output_names=["logits", *present_names], dynamic_axes=dyn,
                      do_constant_folding=True)


@torch.no_grad()
def greedy_reference(model, c, prompt, new_tokens):
    """Greedy decoding through the same past/present interface the ONNX model has: the prompt in one
    step with an empty past, then one token per step."""
    past = empty_past(c, 1, 0)
    ids = torch.tensor([prompt], dtype=torch.int64)
    total = 0
    out, margins = [], []
    for _ in range(new_tokens):
        s = ids.shape[1]
        mask = torch.ones(1, total + s, dtype=torch.int64)
        pos = torch.arange(total, total + s, dtype=torch.int64).unsqueeze(0)
        logits, *past = model(ids, mask, pos, *past)
        last = logits[0, -1]
        top2 = torch.topk(last, 2)
        nxt = int(top2.indices[0])
        margins.append(float(top2.values[0] - top2.values[1]))
        out.append(nxt)
        total += s
        ids = torch.tensor([[nxt]], dtype=torch.int64)
    return out, margins


def model_info(kind, model, c):
    """Sizes for benchmarks: the weight bytes one decode step reads are every parameter except the
    tables only gathered from (positions; Llama's input embedding, whose LM head is separate).
    GPT-2's tied embedding counts once, read whole by the LM head (the ONNX file holds it twice:
    the Gather table and the MatMul's transposed constant)."""
    n = sum(p.numel() for p in model.parameters())
    gathered = c["context"] * c["hidden"] if kind == "gpt2" else c["vocab"] * c["hidden"]
    return {"kind": kind, "params": n, "f32_weight_bytes": 4 * n,
            "decode_weight_bytes_f32": 4 * (n - gathered),
            "kv_cache_bytes_per_token_f32": 4 * 2 * c["layers"] * c["kv_heads"] * (c["hidden"] // c["heads"])}


@torch.no_grad()
def beam_reference(model, c, prompt, new_tokens, beams):
    """Beam search with `beams` beams over `new_tokens` steps, scores = summed log-probabilities.
    No hypothesis ends early (EOS is not treated specially), so all have the same length and the
    length penalty does not change the order; the best is the highest score. The caches are
    reordered along the batch axis by the surviving beams' parents each step (what beam_idx does)."""
    ids = torch.tensor([prompt], dtype=torch.int64)
    past = empty_past(c, 1, 0)
    mask = torch.ones(1, len(prompt), dtype=torch.int64)
    pos = torch.arange(len(prompt), dtype=torch.int64).unsqueeze(0)
    logits, *past = model(ids, mask, pos, *past)
    logp = torch.log_softmax(logits[0, -1], dim=-1)
    scores, tokens = torch.topk(logp, beams)
    seqs = [[int(t)] for t in tokens]
    past = [p.expand(beams, *p.shape[1:]).contiguous() for p in past]
    total = len(prompt)
    for _ in range(new_tokens - 1):
        ids = tokens.view(beams, 1)
        mask = torch.ones(beams, total + 1, dtype=torch.int64)
        pos = torch.full((beams, 1), total, dtype=torch.int64)
        logits, *past = model(ids, mask, pos, *past)
        cand = scores[:, None] + torch.log_softmax(logits[:, -1], dim=-1)
        scores, flat = torch.topk(cand.reshape(-1), beams)
        parent = flat // c["vocab"]
        tokens = flat % c["vocab"]
        seqs = [seqs[int(p)] + [int(t)] for p, t in zip(parent, tokens)]
        past = [p.index_select(0, parent) for p in past]
        total += 1
    best = int(torch.argmax(scores))
    ordered = sorted((float(v) for v in scores), reverse=True)
    return {"num_beams": beams, "length_penalty": 1.0, "prompt_ids": prompt,
            "generated_ids": seqs[best], "score": float(scores[best]),
            # a small gap means another summation order may pick the runner-up
            "gap_to_second": ordered[0] - ordered[1] if beams > 1 else None,
            "beams": [{"ids": s, "score": float(v)} for s, v in zip(seqs, scores)],
            "note": "PyTorch f32 beam search, no early stop, best = highest summed log-probability"}


def genai_config(kind, c, filename):
    past_names = {"past_key_names": "past_key_values.%d.key", "past_value_names": "past_key_values.%d.value"}
    bos, eos = (50256, 50256) if kind == "gpt2" and c["vocab"] > 50256 else (1, 2)
    return {
        "model": {
            "bos_token_id": bos,
            "context_length": c["context"],
            "decoder": {
                "session_options": {"log_id": "onnxruntime-genai", "provider_options": []},
                "filename": filename,
                "head_size": c["hidden"] // c["heads"],
                "hidden_size": c["hidden"],
                "inputs": {"input_ids": "input_ids", "attention_mask": "attention_mask",
                           "position_ids": "position_ids", **past_names},
                "outputs": {"logits": "logits", "present_key_names": "present.%d.key",
                            "present_value_names": "present.%d.value"},
                "num_attention_heads": c["heads"],
                "num_hidden_layers": c["layers"],
                "num_key_value_heads": c["kv_heads"],
            },
            "eos_token_id": eos,
            "pad_token_id": eos,
            "type": "gpt2" if kind == "gpt2" else "llama",
            "vocab_size": c["vocab"],
        },
        "search": {
            "diversity_penalty": 0.0, "do_sample": False, "early_stopping": True, "length_penalty": 1.0,
            "max_length": c["context"], "min_length": 0, "no_repeat_ngram_size": 0, "num_beams": 1,
            "num_return_sequences": 1, "past_present_share_buffer": False, "repetition_penalty": 1.0,
            "temperature": 1.0, "top_k": 1, "top_p": 1.0,
        },
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output folder; one subfolder per model")
    ap.add_argument("--models", default="gpt2,llama", help="comma-separated: gpt2, llama")
    ap.add_argument("--tiny", action="store_true", help="2 layers, d 64, vocabulary 1000 (for tests)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opset", type=int, default=14)
    ap.add_argument("--prompt-len", type=int, default=16, help="reference prompt length (random ids)")
    ap.add_argument("--new-tokens", type=int, default=64, help="greedy reference length")
    for k in ("layers", "hidden", "heads", "kv_heads", "vocab", "context", "intermediate"):
        ap.add_argument("--" + k.replace("_", "-"), type=int, help=f"override {k}")
    ap.add_argument("--prompt-tries", type=int, default=4,
                    help="random prompts tried for the reference; the best-separated one is kept")
    ap.add_argument("--beams", type=int, default=4,
                    help="also write reference_beam<N>.json, PyTorch's beam search (0: none)")
    ap.add_argument("--references-only", action="store_true",
                    help="reload weights.pt and rewrite only the reference files (no ONNX export)")
    ap.add_argument("--gpt2-vocab", metavar="DIR",
                    help="copy GPT-2's encoder.json / vocab.bpe from DIR next to the gpt2 model as "
                         "vocab.json / merges.txt (genai/scripts/fetch_gpt2_vocab.sh fetches them)")
    ap.add_argument("--no-weights", action="store_true", help="do not write weights.pt")
    args = ap.parse_args()
    try:
        import onnx  # noqa: F401  (torch.onnx.export needs it for the checker)
    except ImportError:
        print("export_decoders.py: the onnx package is not installed (python3-onnx); nothing exported.",
              file=sys.stderr)
        sys.exit(77)

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for kind in [m.strip() for m in args.models.split(",") if m.strip()]:
        if kind not in ("gpt2", "llama"):
            ap.error(f"unknown model '{kind}' (expected gpt2 or llama)")
        base = dict((GPT2_TINY if args.tiny else GPT2_DEFAULT) if kind == "gpt2"
                    else (LLAMA_TINY if args.tiny else LLAMA_DEFAULT))
        for k in base:
            if getattr(args, k) is not None:
                base[k] = getattr(args, k)
        if base["hidden"] % base["heads"] or base["heads"] % base["kv_heads"]:
            ap.error(f"{kind}: hidden must divide by heads and heads by kv_heads ({base})")
        if kind == "gpt2" and base["kv_heads"] != base["heads"]:
            ap.error("gpt2: multi-head attention only (kv_heads == heads)")
        torch.manual_seed(args.seed)
        model = Gpt2Decoder(base) if kind == "gpt2" else LlamaDecoder(base)
        init_weights(model, args.seed, base["hidden"])
        model.eval()
        name = kind + ("-tiny" if args.tiny else "")
        folder = os.path.join(args.out, name)
        os.makedirs(folder, exist_ok=True)
        n_params = sum(p.numel() for p in model.parameters())
        print(f"{name}: {n_params / 1e6:.1f}M parameters, {base}", flush=True)

        weights = os.path.join(folder, "weights.pt")
        if args.references_only:
            if not os.path.exists(weights):
                ap.error(f"--references-only: {weights} does not exist")
            saved = torch.load(weights)
            if saved["config"] != base:
                ap.error(f"--references-only: {weights} has config {saved['config']}, not {base}")
            model.load_state_dict(saved["state_dict"])
        else:
            export_onnx(model, base, os.path.join(folder, "model.onnx"), args.opset)
        if args.gpt2_vocab and kind == "gpt2" and base["vocab"] == 50257:
            for src, dst in (("encoder.json", "vocab.json"), ("vocab.bpe", "merges.txt")):
                shutil.copyfile(os.path.join(args.gpt2_vocab, src), os.path.join(folder, dst))
        if not args.references_only:
            with open(os.path.join(folder, "model_info.json"), "w") as f:
                json.dump(model_info(kind, model, base), f, indent=1)
            with open(os.path.join(folder, "genai_config.json"), "w") as f:
                json.dump(genai_config(kind, base, "model.onnx"), f, indent=2)
        if not args.no_weights and not args.references_only:
            torch.save({"config": base, "kind": kind, "state_dict": model.state_dict()}, weights)

        # Several random prompts; keep the one whose smallest top-2 margin is largest, so a
        # correct implementation with another summation order is unlikely to flip a token.
        best = None
        for attempt in range(args.prompt_tries):
            gen = torch.Generator().manual_seed(args.seed + 7 + attempt)
            cand = torch.randint(0, base["vocab"], (args.prompt_len,), generator=gen).tolist()
            out, m = greedy_reference(model, base, cand, args.new_tokens)
            if best is None or min(m) > min(best[2]):
                best = (cand, out, m)
        prompt, generated, margins = best
        ref = {"model": name, "seed": args.seed, "config": base, "params": n_params,
               "prompt_ids": prompt, "generated_ids": generated,
               "top2_margins": [round(m, 6) for m in margins],
               "note": "PyTorch f32 greedy, prompt in one step with an empty past, then one token per step"}
        with open(os.path.join(folder, "reference_greedy.json"), "w") as f:
            json.dump(ref, f, indent=1)
        if args.beams > 1:
            beam = beam_reference(model, base, prompt, args.new_tokens, args.beams)
            with open(os.path.join(folder, f"reference_beam{args.beams}.json"), "w") as f:
                json.dump(beam, f, indent=1)
        written = ["reference_greedy.json"] + ([f"reference_beam{args.beams}.json"] if args.beams > 1 else [])
        if not args.references_only:
            written = ["model.onnx", "genai_config.json", "model_info.json"] + written
        print(f"{name}: wrote {', '.join(written)} in {folder} "
              f"(greedy: min top-2 margin {min(margins):.4g})", flush=True)


if __name__ == "__main__":
    main()
