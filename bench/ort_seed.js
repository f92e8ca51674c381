// ort_seed.js — times bench/ort_models.py's ONNX models with onnxruntime-node (2 intra-op threads), as bench/seed.tfs times tfs.
// Usage: node bench/ort_seed.js MODEL_DIR [NAME...]   (onnxruntime-node found through NODE_PATH); prints "<workload> graph <us>"
// for the seed workloads, or for the named ones (cnn: the MNIST CNN of bench/cnn.tfs, 256 images; lstm: bench/keras_lstm.tfs's
// inference of 256 sequences; gru: the same with GRU (keras_lstm.tfs gru); simple_rnn: with SimpleRNN (keras_lstm.tfs
// simple_rnn); resnet: bench/resnet_block.tfs's inference of 64 images).
const path = require("path");
const ort = require("onnxruntime-node");

async function timed(sess, feeds, number) {
  await sess.run(feeds);   // warm up
  let best = Infinity;
  for (let rep = 0; rep < 5; rep++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < number; i++) await sess.run(feeds);
    const dt = Number(process.hrtime.bigint() - t0) / 1e3 / number;
    if (dt < best) best = dt;
  }
  return best;
}

function randInt(n, hi) {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = Math.floor(Math.random() * hi);
  return a;
}

function randF(n) {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = Math.random() * 2 - 1;
  return a;
}

async function main() {
  const dir = process.argv[2];
  const opts = { intraOpNumThreads: 2, interOpNumThreads: 1, graphOptimizationLevel: "all" };
  const load = (name) => ort.InferenceSession.create(path.join(dir, name + ".onnx"), opts);
  const T = (type, data, dims) => new ort.Tensor(type, data, dims);
  const cases = [
    ["power", { x: T("int32", randInt(100, 3), [10, 10]) }, 200, 2],
    ["dense", { x: T("float32", randF(20 * 784), [20, 784]) }, 20, 2],
    ["mlp", { x: T("float32", randF(60 * 784), [60, 784]) }, 200, 2],
    ["mse", { a: T("int32", Int32Array.from([1, 2, 3, 4, 5]), [5]), b: T("int32", Int32Array.from([2, 2, 1, 4, 8]), [5]) }, 20000, 3],
    ["scalar_add", { a: T("int32", Int32Array.from([1]), []), b: T("int32", Int32Array.from([2]), []) }, 20000, 3],
  ];
  const extra = [["cnn", { x: T("float32", randF(256 * 28 * 28), [256, 1, 28, 28]) }, 20, 0],
                 ["lstm", { x: T("int32", randInt(256 * 80, 2000), [256, 80]) }, 10, 0],
                 ["gru", { x: T("int32", randInt(256 * 80, 2000), [256, 80]) }, 10, 0],
                 ["simple_rnn", { x: T("int32", randInt(256 * 80, 2000), [256, 80]) }, 10, 0],
                 ["resnet", { x: T("float32", randF(64 * 16 * 32 * 32), [64, 16, 32, 32]) }, 10, 0]];
  const names = process.argv.slice(3);
  const run = names.length ? cases.concat(extra).filter((c) => names.includes(c[0])) : cases;
  for (const [name, feeds, number, digits] of run) {
    const sess = await load(name);
    console.log(name, "graph", (await timed(sess, feeds, number)).toFixed(digits));
  }
}

main().catch((e) => { console.error(String(e)); process.exit(1); });
