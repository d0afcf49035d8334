#!/usr/bin/env node
// Runs an ONNX model on ONNX Runtime's CPU build (the npm package onnxruntime-node) with inputs
// from .npy files: times `--runs` inferences after `--warmup` ones on `--threads` intra-op
// threads and prints one JSON line {"median_ms", "min_ms", "max_ms", "samples_ms"}; with
// --output-dir writes every output of the last run as DIR/<name>.npy. The reference runtime of
// tools/compare_onnxruntime.py.
//
//   NODE_PATH=DIR/node_modules node tools/onnxruntime_run.js --model m.onnx --input x=x.npy \
//       [--runs 20] [--warmup 5] [--threads 1] [--output-dir DIR]
// where DIR is where `npm install --ignore-scripts onnxruntime-node` was run.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

function parseArgs(argv) {
  const a = {inputs: [], runs: 20, warmup: 5, threads: 1, outputDir: ''};
  for (let i = 2; i < argv.length; ++i) {
    const key = argv[i], value = argv[i + 1];
    if (value === undefined) throw new Error(`${key} needs a value`);
    ++i;
    if (key === '--model') a.model = value;
    else if (key === '--input') a.inputs.push(value);
    else if (key === '--runs') a.runs = parseInt(value, 10);
    else if (key === '--warmup') a.warmup = parseInt(value, 10);
    else if (key === '--threads') a.threads = parseInt(value, 10);
    else if (key === '--output-dir') a.outputDir = value;
    else throw new Error(`unknown option ${key}`);
  }
  if (!a.model) throw new Error('--model is required');
  if (!(a.runs >= 1)) throw new Error('--runs must be at least 1');
  return a;
}

// NumPy .npy (format 1.0-3.0, little-endian, C order) -> {type, data, dims}.
const NPY_TYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array], '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array], '|b1': ['bool', Uint8Array],
};
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order is not supported`);
  const dims = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').filter((s) => s.trim()).map((s) => parseInt(s, 10));
  const t = NPY_TYPES[descr];
  if (!t) throw new Error(`${file}: dtype ${descr} is not supported`);
  const offset = start + headerLen;
  const bytes = buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + buf.length);
  let data = new t[1](bytes);
  if (t[0] === 'bool') data = Uint8Array.from(data);
  return {type: t[0], data, dims};
}

function writeNpy(file, tensor) {
  const descr = {float32: '<f4', float64: '<f8', int64: '<i8', int32: '<i4', uint8: '|u1', int8: '|i1', bool: '|b1'}[tensor.type];
  if (!descr) throw new Error(`output type ${tensor.type} is not supported`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1, head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, Buffer.concat([head, Buffer.from(header, 'latin1'), body]));
  fs.renameSync(tmp, file);
}

async function main() {
  const a = parseArgs(process.argv);
  const session = await ort.InferenceSession.create(a.model, {
    intraOpNumThreads: a.threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const binding of a.inputs) {
    const eq = binding.indexOf('=');
    if (eq <= 0) throw new Error(`--input wants NAME=FILE, got '${binding}'`);
    const npy = readNpy(binding.slice(eq + 1));
    feeds[binding.slice(0, eq)] = new ort.Tensor(npy.type, npy.data, npy.dims);
  }
  let out;
  for (let i = 0; i < a.warmup; ++i) out = await session.run(feeds);
  const samples = [];
  for (let i = 0; i < a.runs; ++i) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  if (a.outputDir) {
    fs.mkdirSync(a.outputDir, {recursive: true});
    for (const name of session.outputNames) writeNpy(path.join(a.outputDir, name.replace(/[/:]/g, '_') + '.npy'), out[name]);
  }
  const sorted = [...samples].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  console.log(JSON.stringify({median_ms: median, min_ms: sorted[0], max_ms: sorted[sorted.length - 1], samples_ms: samples,
                              version: require('onnxruntime-node/package.json').version}));
}

main().catch((e) => {
  console.error(`onnxruntime_run: ${e.message}`);
  process.exit(1);
});
