// Greedy text generation with ONNX Runtime (onnxruntime-node) on an explicit-past decoder as
// samples/llm/export_decoders.py writes it: the baseline Vireo's generation is measured against.
// Prints one JSON line per thread count: time to first token, decode tokens/s, and the ids.
//   NODE_PATH=~/.cache/vireo-ort/node_modules node scripts/llm_ort_bench.mjs MODEL_DIR \
//       [--prompt-len 128] [--new-tokens 128] [--threads 1,2] [--reps 3] [--check]
//   --prompt-ids 464,2068,318   the prompt (default: --prompt-len ids 0,1,2,... mod vocab)
//   --check     generate from reference_greedy.json's prompt and fail unless ORT's greedy ids equal
//               PyTorch's (validates the export, the empty first-step past and the loop itself)
// The first step feeds the whole prompt with an empty past ([B, kv_heads, 0, head_size]), as ORT
// GenAI does; every later step feeds one token and the previous step's present.* as past_key_values.*.
import { createRequire } from 'module';
import fs from 'fs';
import os from 'os';
import path from 'path';
const require = createRequire((process.env.NODE_PATH || path.join(process.env.HOME, '.cache/vireo-ort/node_modules')) + '/');
const ort = require('onnxruntime-node');

function parseArgs(argv) {
  const o = { promptLen: 128, newTokens: 128, threads: [1, 2], reps: 3, check: false, promptIds: null };
  const rest = [];
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const next = () => { if (i + 1 >= argv.length) throw new Error(`${a} needs a value`); return argv[++i]; };
    if (a === '--prompt-len') o.promptLen = +next();
    else if (a === '--new-tokens') o.newTokens = +next();
    else if (a === '--threads') o.threads = next().split(',').map(Number);
    else if (a === '--reps') o.reps = +next();
    else if (a === '--check') o.check = true;
    else if (a === '--prompt-ids') o.promptIds = next().split(',').map(Number);
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else rest.push(a);
  }
  if (rest.length !== 1) throw new Error('usage: llm_ort_bench.mjs MODEL_DIR [options] (see the header)');
  o.dir = rest[0];
  return o;
}

const opt = parseArgs(process.argv.slice(2));
const cfg = JSON.parse(fs.readFileSync(path.join(opt.dir, 'genai_config.json'), 'utf8'));
const dec = cfg.model.decoder;
const modelPath = path.join(opt.dir, dec.filename);
const layers = dec.num_hidden_layers, kvHeads = dec.num_key_value_heads, headSize = dec.head_size;
const fmt = (tmpl, i) => tmpl.replace('%d', String(i));
let reference = null;
if (opt.check) {
  reference = JSON.parse(fs.readFileSync(path.join(opt.dir, 'reference_greedy.json'), 'utf8'));
  opt.promptIds = reference.prompt_ids;
  opt.newTokens = reference.generated_ids.length;
}
const prompt = opt.promptIds || Array.from({ length: opt.promptLen }, (_, i) => i % cfg.model.vocab_size);

const i64 = (arr, dims) => new ort.Tensor('int64', BigInt64Array.from(arr.map(BigInt)), dims);

function argmaxLast(logits) {
  const [, s, v] = logits.dims;
  const d = logits.data;
  let best = 0, bestv = -Infinity;
  for (let j = 0, off = (s - 1) * v; j < v; ++j) if (d[off + j] > bestv) { bestv = d[off + j]; best = j; }
  return best;
}

// One greedy generation; returns the ids and the time of the first step and of the rest.
async function generate(session, promptIds, newTokens) {
  const feeds = {};
  const empty = new Float32Array(0);
  for (let l = 0; l < layers; ++l) {
    feeds[fmt(dec.inputs.past_key_names, l)] = new ort.Tensor('float32', empty, [1, kvHeads, 0, headSize]);
    feeds[fmt(dec.inputs.past_value_names, l)] = new ort.Tensor('float32', empty, [1, kvHeads, 0, headSize]);
  }
  let ids = promptIds, total = 0;
  const out = [];
  let tFirst = 0;
  const t0 = process.hrtime.bigint();
  for (let step = 0; step < newTokens; ++step) {
    feeds[dec.inputs.input_ids] = i64(ids, [1, ids.length]);
    feeds[dec.inputs.attention_mask] = i64(new Array(total + ids.length).fill(1), [1, total + ids.length]);
    if (dec.inputs.position_ids)
      feeds[dec.inputs.position_ids] = i64(ids.map((_, k) => total + k), [1, ids.length]);
    const r = await session.run(feeds);
    const next = argmaxLast(r[dec.outputs.logits]);
    out.push(next);
    total += ids.length;
    ids = [next];
    for (let l = 0; l < layers; ++l) {
      feeds[fmt(dec.inputs.past_key_names, l)] = r[fmt(dec.outputs.present_key_names, l)];
      feeds[fmt(dec.inputs.past_value_names, l)] = r[fmt(dec.outputs.present_value_names, l)];
    }
    if (step === 0) tFirst = Number(process.hrtime.bigint() - t0) / 1e6;
  }
  const tAll = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ids: out, ttftMs: tFirst, decodeMs: tAll - tFirst };
}

const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
// Bytes of weights one decode step reads: model_info.json's figure (export_decoders.py), else the
// file size (an over-estimate when the file also holds tables that are only gathered from).
const infoPath = path.join(opt.dir, 'model_info.json');
const info = fs.existsSync(infoPath) ? JSON.parse(fs.readFileSync(infoPath, 'utf8')) : null;
const fileBytes = fs.statSync(modelPath).size;
const weightBytes = info ? info.decode_weight_bytes_f32 : fileBytes;
let failed = false;
for (const threads of opt.threads) {
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  await generate(session, prompt, Math.min(4, opt.newTokens)); // warm-up: allocations, first-run caches
  const ttft = [], tps = [];
  let ids = null;
  for (let r = 0; r < opt.reps; ++r) {
    const g = await generate(session, prompt, opt.newTokens);
    ttft.push(g.ttftMs);
    if (opt.newTokens > 1) tps.push((opt.newTokens - 1) / (g.decodeMs / 1000));
    if (ids && ids.join() !== g.ids.join()) throw new Error('ORT greedy output differs between repetitions');
    ids = g.ids;
  }
  const line = {
    runtime: 'onnxruntime-node', ort_version: ort.env.versions?.common ?? 'unknown', model: modelPath,
    file_mb: +(fileBytes / 1e6).toFixed(1), params: info ? info.params : null,
    decode_weight_mb: +(weightBytes / 1e6).toFixed(1), threads, prompt_len: prompt.length, new_tokens: opt.newTokens,
    reps: opt.reps, ttft_ms_median: +median(ttft).toFixed(2),
    decode_tokens_per_s_median: tps.length ? +median(tps).toFixed(2) : null,
    // weights read per decode step x steps per second: the memory traffic the decode loop sustains
    decode_weight_gb_per_s: tps.length ? +((weightBytes * median(tps)) / 1e9).toFixed(2) : null,
    // best of the repetitions: on a shared machine the least disturbed run
    ttft_ms_best: +Math.min(...ttft).toFixed(2),
    decode_tokens_per_s_best: tps.length ? +Math.max(...tps).toFixed(2) : null,
    load_average_1min: +os.loadavg()[0].toFixed(2),
    ttft_ms: ttft.map((x) => +x.toFixed(2)), decode_tokens_per_s: tps.map((x) => +x.toFixed(2)),
    ids: ids.join(','),
  };
  if (reference) {
    const agree = reference.generated_ids.filter((t, k) => ids[k] === t).length;
    line.matches_reference = agree === reference.generated_ids.length;
    line.reference_agreement = `${agree}/${reference.generated_ids.length}`;
    if (!line.matches_reference) failed = true;
  }
  console.log(JSON.stringify(line));
}
process.exit(failed ? 1 : 0);
