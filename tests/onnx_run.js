// onnx_run.js — run exported models in ONNX Runtime (onnxruntime-node): reads a JSON list of {model, inputs, out} jobs on stdin, writes each job's outputs as JSON.
'use strict';
const ort = require('onnxruntime-node');
const fs = require('fs');

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, bool: Uint8Array,
};
const ORT_TYPE = { float64: 'float64', float32: 'float32', int32: 'int32', int64: 'int64', uint8: 'uint8', bool: 'bool' };

function num(v) { return v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v; }

function toTensor(t) {
  const A = ARRAYS[t.dtype];
  const data = t.dtype === 'int64' ? A.from(t.data.map((v) => BigInt(v))) : A.from(t.data.map(num));
  return new ort.Tensor(ORT_TYPE[t.dtype], data, t.shape);
}

function fromTensor(t) {
  const data = Array.from(t.data, (v) => {
    if (typeof v === 'bigint') return Number(v);
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (Number.isNaN(v)) return 'nan';
    if (v === Infinity) return 'inf';
    if (v === -Infinity) return '-inf';
    return v;
  });
  return { dtype: t.type, shape: Array.from(t.dims), data };
}

async function main() {
  const jobs = JSON.parse(fs.readFileSync(0, 'utf8'));
  for (const job of jobs) {
    let result;
    try {
      const s = await ort.InferenceSession.create(job.model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
      const feeds = {};
      s.inputNames.forEach((name, i) => { feeds[name] = toTensor(job.inputs[i]); });
      const out = await s.run(feeds);
      result = { outputs: s.outputNames.map((n) => fromTensor(out[n])) };
    } catch (e) {
      result = { error: String(e && e.message ? e.message : e) };
    }
    fs.writeFileSync(job.out, JSON.stringify(result));
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
