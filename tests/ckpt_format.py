#!/usr/bin/python3
# ckpt_format.py — TF checkpoints both ways: what tfs writes, decoded by tests/tfckpt.py; a fixture made by tfckpt.py, restored by tfs.
"""Usage: ckpt_format.py TFS SOURCE_ROOT

1. tests/ckpt/write.tfs saves a checkpoint, overwrites every Variable and
   restores them (the values must come back); tfckpt.py (written from the format's
   documentation) parses its table (blocks, restart points, CRCs, index
   separators, footer), decodes each BundleEntryProto and the tensor bytes,
   and checks names, dtypes, shapes, values and the object graph.  Re-encoding
   the decoded table, entries and graph must give tfs's bytes exactly.
2. tests/fixtures/ckpt/model-5 (tests/gen_ckpt_fixture.py) is regenerated and
   must equal the committed files byte for byte; tfs restores it into a Keras
   model and prints what numpy computes from the same values; so too the same
   checkpoint dealt over 2 and 3 data files (a missing one: NotFoundError).
3. tests/ckpt/wrappers.tfs: lists, dicts and tuples held as attributes are TF's ListWrapper / _DictWrapper /
   _TupleWrapper nodes (tensorflow/python/trackable/data_structures.py): every list and dict is a node (empty or
   holding numbers too), a tuple only when it holds a trackable or a list/dict, children named by index or key;
   a Keras layer's weight is one child though both add_weight and the attribute name it; a dict with a non-string
   key holding a Variable cannot be saved (TF's ValueError).
4. Damaged checkpoints fail with TF's errors: a flipped byte in the index
   (DataLossError: block checksum mismatch), in the data (DataLossError:
   Checksum does not match), a missing checkpoint (NotFoundError); truncated
   and bit-flipped copies of the fixture end in located errors, never a crash.
"""
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import filecheck  # noqa: E402
import gen_ckpt_fixture  # noqa: E402
import tfckpt  # noqa: E402

A = "/.ATTRIBUTES/VARIABLE_VALUE"
_checks = filecheck.Checks(os.path.join(HERE, "ckpt"), 120)
check, run, failures = _checks.check, _checks.run, _checks.failures


def expected_values():
    w = np.arange(6, dtype=np.float32).reshape(2, 3) * np.float32(0.5) - np.float32(1.0)
    vals = {
        "model/w" + A: w,
        "model/d" + A: np.array([0.1, 1e300]),
        "model/i" + A: np.array([[7, -8]], dtype=np.int32),
        "model/big" + A: np.array(2 ** 40 + 3, dtype=np.int64),
        "model/flags" + A: np.array([True, False, True]),
        "model/pix" + A: np.array([0, 128, 255], dtype=np.uint8),
        "model/words" + A: np.array([b"", b"checkpoint", "ünï".encode()], dtype=object),
        "model/h" + A: np.array([0.5, -2.25, 65504.0], dtype=np.float16),
        "model/bf" + A: np.array([1.5, -0.15625, 2.0 ** 120], dtype=np.float32),   # bfloat16, read as float32 (tfckpt)
        "model/c64" + A: np.array([1 + 0.25j, -2.5 + 4j], dtype=np.complex64),
        "model/c128" + A: np.array([1e-300 - 7j], dtype=np.complex128),
        "model/i8" + A: np.array([-128, 127], dtype=np.int8),
        "model/i16" + A: np.array([-32768, 12345], dtype=np.int16),
        "model/u16" + A: np.array([65535, 1], dtype=np.uint16),
        "model/u32" + A: np.array([4294967295, 2], dtype=np.uint32),
        "model/u64" + A: np.array([2 ** 63 + 5, 3], dtype=np.uint64),
        "model/inner/table/a.Sb..c" + A: np.array(1.5, dtype=np.float32),
        "extra" + A: np.array(-3.25, dtype=np.float32),
        "save_counter" + A: np.array(1, dtype=np.int64),
    }
    for k in range(6000):
        vals["model/many/%d%s" % (k, A)] = np.array(float(k), dtype=np.float32)
    return vals


def written_by_tfs(tfs, tmp):
    p = run(tfs, "write.tfs", tmp)
    want = expected_values()
    # after saving, write.tfs overwrites every Variable, restores, and prints what came back (flattened)
    back = ["model/w", "model/d", "model/i", "model/big", "model/flags", "model/pix", "model/words", "model/h", "model/bf",
            "model/c64", "model/c128", "model/i8", "model/i16", "model/u16", "model/u32", "model/u64",
            "model/inner/table/a.Sb..c", "model/many/5999", "extra"]
    printed = "ckpt-1\n" + "".join("%s\n" % (want[k + A].reshape(-1).tolist(),) for k in back)
    check(p.returncode == 0 and p.stdout == printed, "write.tfs round trip: %r %r" % (p.stdout, p.stderr[-500:]))
    prefix = os.path.join(tmp, "ckpt-1")
    with open(os.path.join(tmp, "checkpoint")) as f:
        check(f.read() == 'model_checkpoint_path: "ckpt-1"\nall_model_checkpoint_paths: "ckpt-1"\n', "checkpoint state file")
    values, entries, graph, pairs, layout = tfckpt.read_bundle(prefix)
    check(sorted(values) == sorted(list(want) + [tfckpt.GRAPH_KEY.decode()]), "the keys tfs wrote")
    for k, v in want.items():
        got = values.get(k)
        ok = got is not None and got.dtype == v.dtype and got.shape == v.shape and \
            (np.array_equal(got, v) if v.dtype != object else list(got) == list(v))
        check(ok, "value of %s: %r" % (k, got))
    # the layout: several data blocks, a restart every 16 keys, index keys that separate blocks
    blocks = layout["blocks"]
    check(len(blocks) >= 2, "several data blocks (%d)" % len(blocks))
    for off, size, n, restarts in blocks:
        check(len(restarts) == (n + 15) // 16, "restart points every 16 keys")
    check(layout["meta"] == [], "empty meta-index block")
    # byte for byte: the documented layout rebuilt from the decoded pairs is tfs's file
    with open(prefix + ".index", "rb") as f:
        index_bytes = f.read()
    check(tfckpt.write_table(pairs) == index_bytes, "the table bytes equal the documented layout")
    check(all(tfckpt.encode_entry(tfckpt.decode_entry(v)) == v for k, v in pairs[1:]), "BundleEntryProto encodings")
    check(pairs[0][1] == tfckpt.encode_header(), "BundleHeaderProto")
    raw = values[tfckpt.GRAPH_KEY.decode()].reshape(())[()]
    check(tfckpt.encode_graph(graph) == raw, "TrackableObjectGraph encoding")
    # the object graph: TF's naming, every Variable node keyed by its path
    root = graph[0]
    check([n for _, n in root["children"]] == ["extra", "model", "save_counter"], "root children %r" % root["children"])
    keys = sorted(a[2] for node in graph for a in node["attributes"])
    check(keys == sorted(want), "object graph checkpoint keys")
    fulls = {a[2]: a[1] for node in graph for a in node["attributes"]}
    check(fulls["model/w" + A] == "w" and fulls["save_counter" + A] == "save_counter", "full names %r" % fulls["model/w" + A])
    check(all(node["has_values"] for node in graph), "has_checkpoint_values")
    return prefix


def wrappers(tfs, tmp):
    p = run(tfs, "wrappers.tfs", tmp)
    check(p.returncode == 1 and p.stdout == "ckpt-1\n[1.0, 2.0, 3.0, 4.0, 5.0]\nTrue\n", "wrappers.tfs: %r" % p.stdout)
    check("wrappers.tfs:46:1: error: ValueError: Unable to save the object DictWrapper({1: <tf.Variable" in p.stderr and
          "The wrapped dictionary contains a non-string key which maps to a trackable object or mutable data structure."
          in p.stderr, "non-string dict key: %r" % p.stderr[-600:])
    values, entries, graph, pairs, layout = tfckpt.read_bundle(os.path.join(tmp, "ckpt-1"))
    want_keys = ["model/vs/0", "model/vs/1", "model/table/b", "model/table/a/1", "model/pair/0",
                 "block/parts/first/kernel", "block/parts/first/bias", "block/stack/0/kernel", "block/stack/0/bias",
                 "save_counter"]
    check(sorted(values) == sorted([k + A for k in want_keys] + [tfckpt.GRAPH_KEY.decode()]), "wrapper keys %r" % sorted(values))

    def node(path):   # the node a path of local names reaches from the root
        n = 0
        for name in path.split("/") if path else []:
            kids = dict((nm, i) for i, nm in graph[n]["children"])
            if name not in kids:
                return None
            n = kids[name]
        return graph[n]

    def kids(path):
        nd = node(path)
        return None if nd is None else [nm for _, nm in nd["children"]]
    want_kids = {"": ["block", "model", "save_counter"], "model": ["vs", "empty", "sizes", "table", "pair"],
                 "model/vs": ["0", "1"], "model/empty": [], "model/sizes": [], "model/table": ["b", "a"],
                 "model/table/a": ["1"], "model/pair": ["0", "1"], "model/pair/1": [], "block": ["parts", "stack"],
                 "block/parts": ["first"], "block/parts/first": ["kernel", "bias"], "block/stack": ["0"],
                 "block/stack/0": ["kernel", "bias"]}
    for path, want in want_kids.items():
        check(kids(path) == want, "children of %r: %r, want %r" % (path, kids(path), want))
    for k in want_keys:
        nd = node(k)
        check(nd is not None and [a[2] for a in nd["attributes"]] == [k + A], "node of %s" % k)
    # each object once: the root, model and block, 7 wrappers under model, 4 nodes under block, 10 Variables
    check(len(graph) == 24, "%d nodes" % len(graph))
    check(not node("model/shape"), "a tuple of numbers is no node")
    raw = values[tfckpt.GRAPH_KEY.decode()].reshape(())[()]
    check(tfckpt.encode_graph(graph) == raw, "wrapper graph encoding")


def fixture(tfs, tmp):
    gen = os.path.join(tmp, "fixture")
    tfckpt_fixture = os.path.join(HERE, "fixtures", "ckpt")
    gen_ckpt_fixture.main.__globals__["sys"].argv = ["gen", gen]
    gen_ckpt_fixture.main()
    for name in ("model-5.index", "model-5.data-00000-of-00001"):
        with open(os.path.join(gen, name), "rb") as a, open(os.path.join(tfckpt_fixture, name), "rb") as b:
            check(a.read() == b.read(), "committed fixture %s is what gen_ckpt_fixture.py writes" % name)
    p = run(tfs, "restore_fixture.tfs", os.path.join(tfckpt_fixture, "model-5"))
    check(p.returncode == 0 and p.stdout == gen_ckpt_fixture.expected_output(),
          "fixture restored in tfs:\n%s%s\nwanted:\n%s" % (p.stdout, p.stderr, gen_ckpt_fixture.expected_output()))
    for shards in (2, 3):   # the same checkpoint over several data files
        d = os.path.join(tmp, "sharded%d" % shards)
        gen_ckpt_fixture.main.__globals__["sys"].argv = ["gen", d]
        gen_ckpt_fixture.main(shards)
        p = run(tfs, "restore_fixture.tfs", os.path.join(d, "model-5"))
        check(p.returncode == 0 and p.stdout == gen_ckpt_fixture.expected_output(),
              "%d-shard fixture restored in tfs:\n%s%s" % (shards, p.stdout, p.stderr))
        os.remove(os.path.join(d, "model-5.data-00001-of-%05d" % shards))
        p = run(tfs, "restore_fixture.tfs", os.path.join(d, "model-5"))
        check(p.returncode == 1 and "NotFoundError" in p.stderr and "model-5.data-00001-of-%05d" % shards in p.stderr,
              "a missing shard is a located NotFoundError: %s" % p.stderr)


def damaged(tfs, tmp, prefix):
    w_offset = tfckpt.read_bundle(prefix)[1]["model/w" + A]["offset"]
    p = run(tfs, "restore_net.tfs", prefix)
    check(p.returncode == 0 and p.stdout == "[[-1.0, -0.5, 0.0], [0.5, 1.0, 1.5]]\n", "restore_net: %r %r" % (p.stdout, p.stderr))
    bad = os.path.join(tmp, "bad")
    os.makedirs(bad)
    for kind in ("index", "data"):
        for s in (".index", ".data-00000-of-00001"):
            shutil.copy(prefix + s, os.path.join(bad, "ckpt-1" + s))
        path = os.path.join(bad, "ckpt-1" + (".index" if kind == "index" else ".data-00000-of-00001"))
        with open(path, "r+b") as f:
            f.seek(100 if kind == "index" else w_offset + 1)   # inside the first data block / model/w's bytes
            b = f.read(1)
            f.seek(-1, 1)
            f.write(bytes([b[0] ^ 0x40]))
        p = run(tfs, "restore_net.tfs", os.path.join(bad, "ckpt-1"))
        want = "DataLossError: Unable to open table file" if kind == "index" else "DataLossError: TensorBundle at"
        detail = "block checksum mismatch" if kind == "index" else "Checksum does not match: stored"
        check(p.returncode == 1 and want in p.stderr and detail in p.stderr and "restore_net.tfs:7:" in p.stderr,
              "damaged %s: %r" % (kind, p.stderr))
    p = run(tfs, "restore_net.tfs", os.path.join(tmp, "nothing", "ckpt-9"))
    check(p.returncode == 1 and "NotFoundError: Error when restoring from checkpoint or SavedModel at" in p.stderr
          and "Failed to find any matching files for" in p.stderr, "missing checkpoint: %r" % p.stderr)


def hostile(tfs, tmp):
    """Truncated and bit-flipped copies of the fixture: each restore ends in a located error (status 1), never a crash."""
    import random
    rnd = random.Random(31)
    src = os.path.join(HERE, "fixtures", "ckpt", "model-5")
    bad = os.path.join(tmp, "hostile")
    os.makedirs(bad)
    cases = []
    idx = open(src + ".index", "rb").read()
    data = open(src + ".data-00000-of-00001", "rb").read()
    for n in sorted(set([0, 1, 7, 47, 48, 49, len(idx) // 2, len(idx) - 49, len(idx) - 1])):
        cases.append(("index cut at %d" % n, idx[:n], data))
    for _ in range(24):
        i = rnd.randrange(len(idx))
        cases.append(("index byte %d flipped" % i, idx[:i] + bytes([idx[i] ^ (1 << rnd.randrange(8))]) + idx[i + 1:], data))
    for n in (0, 10, len(data) - 1):
        cases.append(("data cut at %d" % n, idx, data[:n]))
    for k, (what, i_bytes, d_bytes) in enumerate(cases):
        prefix = os.path.join(bad, "c%d" % k)
        open(prefix + ".index", "wb").write(i_bytes)
        open(prefix + ".data-00000-of-00001", "wb").write(d_bytes)
        p = run(tfs, "restore_fixture.tfs", prefix)
        ok = p.returncode == 1 and "restore_fixture.tfs:" in p.stderr and "error:" in p.stderr
        # a flip in a byte no reader checks (footer padding is checked, but e.g. a handle's unused length) may still load
        ok = ok or (p.returncode == 0 and p.stdout == gen_ckpt_fixture.expected_output())
        check(ok and "Sanitizer" not in p.stderr, "hostile %s: status %d %r" % (what, p.returncode, p.stderr[-400:]))


def main():
    tfs = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        prefix = written_by_tfs(tfs, os.path.join(tmp, "w"))
        fixture(tfs, tmp)
        wrappers(tfs, os.path.join(tmp, "wrappers"))
        damaged(tfs, tmp, prefix)
        hostile(tfs, tmp)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
