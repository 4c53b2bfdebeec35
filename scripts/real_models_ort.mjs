// Runs an ONNX model with ONNX Runtime's Node.js binding (onnxruntime-node, as
// ../shared/bench/ort_bench.sh installs it) on inputs given as .npy files, writes every output as
// .npy and prints one JSON line: {"outputs": [{"name", "file"}], "median_ms"}.
//   NODE_PATH=~/.cache/vireo-ort/node_modules node scripts/real_models_ort.mjs \
//       MODEL.onnx OUTDIR THREADS ITERS name=input.npy [name=input.npy ...]
import { createRequire } from 'module';
import fs from 'fs';
import path from 'path';
const require = createRequire(process.env.NODE_PATH + '/');
const ort = require('onnxruntime-node');

const DT = { // npy descr -> [ort type, typed array]
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array], '<i2': ['int16', Int16Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '|b1': ['bool', Uint8Array], '<u8': ['uint64', BigUint64Array],
  '<u4': ['uint32', Uint32Array], '<u2': ['uint16', Uint16Array], '<f2': ['float16', Uint16Array],
};
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const off = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', off, off + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: fortran order`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  const [type, Arr] = DT[descr] || (() => { throw new Error(`${file}: dtype ${descr}`); })();
  const body = buf.subarray(off + hlen);
  const copy = new Uint8Array(body.length); copy.set(body); // aligned copy
  let data = new Arr(copy.buffer, 0, body.length / Arr.BYTES_PER_ELEMENT);
  if (type === 'bool') data = Array.from(data, v => v !== 0);
  return new ort.Tensor(type, data, shape);
}
function writeNpy(file, t) {
  const descr = { float32: '<f4', float64: '<f8', int64: '<i8', int32: '<i4', int16: '<i2', int8: '|i1',
    uint8: '|u1', bool: '|b1', uint64: '<u8', uint32: '<u4', uint16: '<u2', float16: '<f2' }[t.type];
  if (!descr) throw new Error(`output type ${t.type} not supported`);
  const shape = t.dims.length === 0 ? '()' : t.dims.length === 1 ? `(${t.dims[0]},)` : `(${t.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1'); pre[6] = 1; pre[7] = 0; pre.writeUInt16LE(header.length, 8);
  let body;
  if (t.type === 'bool') body = Buffer.from(Array.from(t.data, v => (v ? 1 : 0)));
  else body = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

const [model, outdir, threads, iters, ...args] = process.argv.slice(2);
const session = await ort.InferenceSession.create(model, {
  intraOpNumThreads: +threads, interOpNumThreads: 1, executionMode: 'sequential',
  graphOptimizationLevel: 'all',
});
const feeds = {};
for (const a of args) {
  const i = a.lastIndexOf('=');
  feeds[a.slice(0, i)] = readNpy(a.slice(i + 1));
}
const out = await session.run(feeds);
fs.mkdirSync(outdir, { recursive: true });
const outputs = session.outputNames.map((name, i) => {
  const file = path.join(outdir, `out${i}.npy`);
  writeNpy(file, out[name]);
  return { name, file };
});
const t = [];
for (let i = 0; i < +iters; i++) {
  const s = process.hrtime.bigint(); await session.run(feeds);
  t.push(Number(process.hrtime.bigint() - s) / 1e6);
}
t.sort((a, b) => a - b);
console.log(JSON.stringify({ outputs, median_ms: t.length ? t[Math.floor(t.length / 2)] : null }));
