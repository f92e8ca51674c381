// onnx_time.js — time one exported model in ONNX Runtime (onnxruntime-node) on the inputs tfsc --save-io recorded: best of 5 runs of N calls, microseconds per call.
'use strict';
const ort = require('onnxruntime-node');
const fs = require('fs');

async function main() {
  const [model, ioPath, n, threads] = process.argv.slice(2);
  const io = JSON.parse(fs.readFileSync(ioPath, 'utf8'));
  const s = await ort.InferenceSession.create(model, { intraOpNumThreads: Number(threads || 2), interOpNumThreads: 1 });
  const feeds = {};
  s.inputNames.forEach((name, i) => {
    const t = io.inputs[i];
    feeds[name] = new ort.Tensor('float32', Float32Array.from(t.data), t.shape);
  });
  let out = await s.run(feeds);
  // the same result as tfs gave on this call
  const want = io.outputs[0].data, got = out[s.outputNames[0]].data;
  let maxrel = 0;
  let scale = 0;
  for (let i = 0; i < want.length; i++) scale = Math.max(scale, Math.abs(want[i]));
  for (let i = 0; i < want.length; i++) maxrel = Math.max(maxrel, Math.abs(got[i] - want[i]) / scale);
  let best = Infinity;
  for (let rep = 0; rep < 5; rep++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < Number(n); i++) out = await s.run(feeds);
    const dt = Number(process.hrtime.bigint() - t0) / 1e3 / Number(n);
    best = Math.min(best, dt);
  }
  console.log(`mlp onnxruntime ${best.toFixed(2)} (largest difference from tfs relative to the largest output ${maxrel.toExponential(1)})`);
}

main().catch((e) => { console.error(e); process.exit(1); });
