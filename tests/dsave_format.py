#!/usr/bin/python3
# dsave_format.py — tf.data save/snapshot directories both ways: what tfs writes, decoded by tests/tfdsave.py; directories tfdsave.py writes by TF's layout, loaded by tfs.
"""Usage: dsave_format.py TFS SOURCE_ROOT

1. tests/dsave/write.tfs saves a dict dataset (plain), a tuple one with an unknown dimension (GZIP, a
   shard_func), a range (ZLIB), 400,000-byte vectors (SNAPPY: TF's block cuts and bytes) and snapshots a map
   (uncompressed, and AUTO: SNAPPY); tfdsave.py (written from the format's documentation)
   checks the layout (dataset_spec.pb, snapshot.metadata, RUN/%08d.shard/00000000.snapshot), every
   TFRecord CRC, the metadata (run_id naming the run directory, version 2, dtypes, num_elements,
   finalized), the element spec, the shard each element went to (round-robin over the CPU count, or the
   shard_func) and every tensor; re-encoding the decoded spec and tensors gives tfs's bytes exactly. Ragged
   and sparse datasets (a save, a ZLIB save, a snapshot) are stored as TF's DT_VARIANT records
   (RaggedTensorVariant; SerializeSparse's 3 tensorflow::Tensor) under TypeSpecProto specs.
2. tfdsave.py writes directories by TF's rules (a dict spec over 3 shards; a GZIP and a SNAPPY tuple with
   vectors of unknown length over 2 shards; a GZIP tuple of a ragged_rank-2 RaggedTensor with int32 row_splits,
   a SparseTensor and a float) that tests/dsave/read.tfs loads and prints, element spec read from dataset_spec.pb; a SNAPPY file cut inside
   its block fails with TF's SnappyInputBuffer DataLossError; a GZIP directory read as
   uncompressed and a shard with a flipped byte fail with TF's DataLossError "corrupted record at N", a ragged
   component whose variant is not a RaggedTensorVariant with "Unable to parse tensor from stored proto."; a
   garbage dataset_spec.pb and snapshot.metadata with TF's NotFoundError and DataLossError.
"""
import os
import shutil
import struct
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import filecheck  # noqa: E402
import tfdsave as fmt  # noqa: E402

_checks = filecheck.Checks(os.path.join(HERE, "dsave"), 120)
check, run, failures = _checks.check, _checks.run, _checks.failures
SPEC = "TensorSpec(shape=%s, dtype=tf.%s, name=None)"


def raw_records(path, comp):
    with open(path, "rb") as f:
        return fmt.records(fmt.decompress(f.read(), comp))


def same_value(a, b):
    """a decoded component against the expected one: arrays by shape and values; a variant ("variant", shape,
    [(type_name, [(dtype, array)])]) part by part, with the dtypes of its tensors."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        if not (isinstance(a, tuple) and isinstance(b, tuple) and a[:2] == b[:2] and len(a[2]) == len(b[2])):
            return False
        for (n1, t1), (n2, t2) in zip(a[2], b[2]):
            if n1 != n2 or len(t1) != len(t2):
                return False
            if not all(d1 == d2 and same_value(x1, x2) for (d1, x1), (d2, x2) in zip(t1, t2)):
                return False
        return True
    return a.shape == np.asarray(b).shape and a.tolist() == np.asarray(b).tolist()


def ragged_var(splits, values, splits_dt=9, values_dt=3):
    """The expected variant of a RaggedTensor component: its row_splits then its flat_values."""
    return ("variant", [], [("RaggedTensorVariant", [(splits_dt, np.array(sp)) for sp in splits] +
                             [(values_dt, np.array(values))])])


def sparse_var(indices, values, shape, values_dt=1):
    t = "tensorflow::Tensor"
    return ("variant", [3], [(t, [(9, np.array(indices, np.int64).reshape(-1, len(shape)))]),
                             (t, [(values_dt, np.array(values))]), (t, [(9, np.array(shape))])])


def check_dir(path, comp, want_spec, want_dtypes, elems, shard_of, snapshot=False):
    """elems: the elements in dataset order, each a list of numpy arrays in flat order."""
    name = os.path.basename(path)
    spec, meta, shards = fmt.read_dir(path, comp)
    if not snapshot:
        check(spec == want_spec, f"{name}: element spec {spec}")
        with open(os.path.join(path, "dataset_spec.pb"), "rb") as f:
            check(fmt.encode_spec(spec) == f.read(), f"{name}: dataset_spec.pb re-encodes to its bytes")
    check(meta["version"] == 2 and meta["finalized"], f"{name}: metadata {meta}")
    check(meta["dtype"] == want_dtypes, f"{name}: dtypes {meta['dtype']}")
    check(meta["num_elements"] == len(elems), f"{name}: num_elements {meta['num_elements']}")
    check(sorted(os.listdir(path)) == sorted([meta["run_id"], "snapshot.metadata"] +
                                             ([] if snapshot else ["dataset_spec.pb"])), f"{name}: layout")
    with open(os.path.join(path, "snapshot.metadata"), "rb") as f:
        again = fmt.encode_meta(meta["run_id"], meta["dtype"], meta["num_elements"], True,
                                graph_hash=meta["graph_hash"], timestamp=meta["creation_timestamp"])
        check(again == f.read(), f"{name}: snapshot.metadata re-encodes to its bytes")
    want = {}
    for i, e in enumerate(elems):
        want.setdefault(f"{shard_of(i, e):08d}.shard", []).append(e)
    check(sorted(shards) == sorted(want), f"{name}: shards {sorted(shards)} (want {sorted(want)})")
    for sname, got in shards.items():
        exp = want.get(sname, [])
        check(len(got) == len(exp), f"{name}/{sname}: {len(got)} elements")
        for g, w in zip(got, exp):
            for (dt, a), b in zip(g, w):
                check(same_value(a, b), f"{name}/{sname}: {a!r} != {b!r}")
        fname = os.path.join(path, meta["run_id"], sname, "00000000.snapshot")
        recs = raw_records(fname, comp)
        if comp == "SNAPPY":   # TF's blocks: the same cuts and, through the same libsnappy, the same bytes
            with open(fname, "rb") as f:
                data = f.read()
            check(fmt.snappy_blocks(fmt.snappy_unblocks(data)) == data, f"{name}/{sname}: TF's snappy blocks")
        for r in recs:
            dt, a = fmt.decode_tensor(r)
            check(fmt.encode_tensor(a, dt) == bytes(r), f"{name}/{sname}: a TensorProto re-encodes to its bytes")


def part1(tfs, tmp):
    r = run(tfs, "write.tfs", tmp)
    col = np.arange(100000) % 97
    sums = [float(np.float32(np.sum((col + i).astype(np.float32), dtype=np.float64))) for i in range(5)]
    rag = [[[1, 2], [3]], [[4, 5, 6], []]]
    dense = [np.zeros((3, 4), np.float32) for _ in range(2)]
    dense[0][0, 1], dense[0][2, 0], dense[1][1, 3] = 1.5, -2.5, 7.0
    sp_spec = "SparseTensorSpec(TensorShape([3, 4]), tf.float32)"
    want = "[0, 10, 20, 30]\n%s %s\n%s\n%s %s\n(%s, %s) %s\n" % (
        [i * i for i in range(6)], [i * i for i in range(6)], sums, rag, rag, sp_spec, SPEC % ("()", "string"),
        [(d.tolist(), b"s%d" % i) for i, d in enumerate(dense)])
    check(r.returncode == 0 and r.stdout == want, f"write.tfs: {r.returncode} {r.stdout!r} {r.stderr}")
    cpus = os.cpu_count()
    a = np.arange(6, dtype=np.int64) * 7
    s = np.array([b"zero", b"one", b"", b"three", b"four", b"five"], dtype=object)
    m = np.arange(36, dtype=np.float32).reshape(6, 2, 3) - 10.0
    dict_spec = ("dict", {"a": ("spec", [], 9, ""), "m": ("spec", [2, 3], 1, ""), "s": ("spec", [], 7, "")})
    check_dir(os.path.join(tmp, "plain"), "", dict_spec, [9, 1, 7], [[a[i], m[i], s[i]] for i in range(6)],
              lambda i, e: i % cpus)
    gz_spec = ("tuple", [("spec", [], 3, ""), ("spec", [-1], 2, "")])
    rows = [[np.int32(i), np.arange(i, dtype=np.float64) / 4.0] for i in range(7)]
    check_dir(os.path.join(tmp, "gz"), "GZIP", gz_spec, [3, 2], rows, lambda i, e: int(e[0]) % 3)
    check_dir(os.path.join(tmp, "zlib"), "ZLIB", ("spec", [], 9, ""), [9], [[np.int64(i)] for i in range(5)],
              lambda i, e: i % cpus)
    # snapshot: PATH/FINGERPRINT/ holds the layout; elements stored with their enumerate index
    snap = os.path.join(tmp, "snap")
    hashes = os.listdir(snap)
    check(len(hashes) == 1 and hashes[0].isdigit(), f"snapshot: hash directories {hashes}")
    if len(hashes) == 1:
        meta = fmt.read_dir(os.path.join(snap, hashes[0]))[1]
        check(meta["graph_hash"] == hashes[0], f"snapshot: graph_hash {meta['graph_hash']}")
        check_dir(os.path.join(snap, hashes[0]), "", None, [9, 9],
                  [[np.int64(i), np.int64(10 * i)] for i in range(4)], lambda i, e: i % cpus, snapshot=True)
    big = [[(np.arange(100000) % 97 + i).astype(np.float32)] for i in range(5)]
    check_dir(os.path.join(tmp, "snappy"), "SNAPPY", ("spec", [100000], 1, ""), [1], big, lambda i, e: 0)
    with open(os.path.join(tmp, "snappy", fmt.read_dir(os.path.join(tmp, "snappy"), "SNAPPY")[1]["run_id"],
                           "00000000.shard", "00000000.snapshot"), "rb") as f:
        data = f.read()
    lens = []
    while data:   # the 400,000-byte records are blocks of their own, the small parts share blocks
        n = struct.unpack(">I", data[:4])[0]
        lens.append(len(fmt.snappy.uncompress(data[4:4 + n])))
        data = data[4 + n:]
    d = lens[1] if len(lens) > 1 else 0   # a record's TensorProto: 400,000 bytes of content and its header
    check(d > fmt.SNAPPY_INPUT and lens == [12] + [d, 16] * 4 + [d, 4], f"snappy blocks of {lens} bytes")
    # a snapshot's AUTO compression is SNAPPY, as in TF
    auto = os.path.join(tmp, "snap_auto")
    hashes = os.listdir(auto)
    check(len(hashes) == 1, f"snapshot AUTO: hash directories {hashes}")
    if len(hashes) == 1:
        check_dir(os.path.join(auto, hashes[0]), "SNAPPY", None, [9, 9],
                  [[np.int64(i), np.int64(i * i)] for i in range(6)], lambda i, e: i % cpus, snapshot=True)


    # ragged and sparse: DT_VARIANT (21) records, TypeSpecProto specs
    rag_elems = [[ragged_var([[0, 2, 3]], np.array([1, 2, 3], np.int32))],
                 [ragged_var([[0, 3, 3]], np.array([4, 5, 6], np.int32))]]
    check_dir(os.path.join(tmp, "ragged"), "", ("ragged", [-1, -1], 3, 1, 9), [21], rag_elems, lambda i, e: 0)
    sp_elems = [[sparse_var([[0, 1], [2, 0]], np.array([1.5, -2.5], np.float32), [3, 4]), np.array(b"s0", object)],
                [sparse_var([[1, 3]], np.array([7.0], np.float32), [3, 4]), np.array(b"s1", object)]]
    check_dir(os.path.join(tmp, "sparse"), "ZLIB", ("tuple", [("sparse", [3, 4], 1), ("spec", [], 7, "")]), [21, 7],
              sp_elems, lambda i, e: 0)
    snap = os.path.join(tmp, "snap_ragged")
    hashes = os.listdir(snap)
    check(len(hashes) == 1, f"snapshot ragged: hash directories {hashes}")
    if len(hashes) == 1:
        check_dir(os.path.join(snap, hashes[0]), "", None, [9, 21],
                  [[np.int64(i)] + e for i, e in enumerate(rag_elems)], lambda i, e: i % cpus, snapshot=True)


def part2(tfs, tmp):
    f32 = [np.array([i, -i], np.float32) * 0.25 for i in range(7)]
    names = [b"n%d" % i for i in range(7)]
    dict_spec = ("dict", {"x": ("spec", [2], 1, ""), "name": ("spec", [], 7, "")})
    # flat order: keys sorted (name, x); shard k holds elements k, k+3, ...
    shards = {k: [[(7, np.array(names[i], dtype=object)), (1, f32[i])] for i in range(k, 7, 3)] for k in range(3)}
    fmt.write_dir(os.path.join(tmp, "py_dict"), dict_spec, shards)
    gz_spec = ("tuple", [("spec", [], 9, ""), ("tuple", [("spec", [-1], 4, ""), ("spec", [], 10, "")])])
    rows = [(np.int64(100 + i), np.arange(i, dtype=np.uint8) + 250 - i, np.bool_(i % 2)) for i in range(5)]
    gshards = {0: [[(9, r[0]), (4, r[1]), (10, r[2])] for r in rows[:3]],
               1: [[(9, r[0]), (4, r[1]), (10, r[2])] for r in rows[3:]]}
    fmt.write_dir(os.path.join(tmp, "py_gz"), gz_spec, gshards, comp="GZIP")
    fmt.write_dir(os.path.join(tmp, "py_snappy"), gz_spec, gshards, comp="SNAPPY")
    # a SNAPPY file cut inside its only block
    shutil.copytree(os.path.join(tmp, "py_snappy"), os.path.join(tmp, "py_snappy_cut"))
    cut = os.path.join(tmp, "py_snappy_cut", "1234567890123456789", "00000000.shard", "00000000.snapshot")
    with open(cut, "rb") as f:
        whole = f.read()
    with open(cut, "wb") as f:
        f.write(whole[:-3])
    block = struct.unpack(">I", whole[:4])[0]
    # a damaged copy: the first record's data has a flipped byte (its data begins at offset 12)
    shutil.copytree(os.path.join(tmp, "py_dict"), os.path.join(tmp, "py_bad"))
    bad = os.path.join(tmp, "py_bad", "1234567890123456789", "00000001.shard", "00000000.snapshot")
    with open(bad, "r+b") as f:
        f.seek(14)
        b = f.read(1)
        f.seek(14)
        f.write(bytes([b[0] ^ 0x40]))
    # damaged protos: a dataset_spec.pb that is no StructuredValue, a snapshot.metadata that is no record
    for name, fname in (("py_badspec", "dataset_spec.pb"), ("py_badmeta", "snapshot.metadata")):
        shutil.copytree(os.path.join(tmp, "py_dict"), os.path.join(tmp, name))
        with open(os.path.join(tmp, name, fname), "wb") as f:
            f.write(b"\xff\xff\xff garbage")
    # ragged (ragged_rank 2, int32 row_splits) and sparse components by TF's encoding over 2 shards
    comp_spec = ("tuple", [("ragged", [-1, -1, -1], 9, 2, 3), ("sparse", [2, 3], 3), ("spec", [], 1, "")])
    comp_rows = [
        [ragged_var([np.array([0, 2, 3], np.int32), np.array([0, 1, 3, 3], np.int32)], np.array([10, 11, 12], np.int64),
                    splits_dt=3, values_dt=9),
         sparse_var([[0, 0], [1, 2]], np.array([5, -6], np.int32), [2, 3], values_dt=3), np.float32(0.5)],
        [ragged_var([np.array([0, 1], np.int32), np.array([0, 2], np.int32)], np.array([-1, 2**40], np.int64),
                    splits_dt=3, values_dt=9),
         sparse_var(np.zeros((0, 2), np.int64), np.array([], np.int32), [2, 3], values_dt=3), np.float32(-1.25)],
        [ragged_var([np.array([0], np.int32), np.array([0], np.int32)], np.array([], np.int64), splits_dt=3, values_dt=9),
         sparse_var([[1, 1]], np.array([9], np.int32), [2, 3], values_dt=3), np.float32(2.0)],
    ]
    fmt.write_dir(os.path.join(tmp, "py_comp"), comp_spec,
                  {0: [[(21, r[0]), (21, r[1]), (1, r[2])] for r in comp_rows[:2]],
                   1: [[(21, r[0]), (21, r[1]), (1, r[2])] for r in comp_rows[2:]]}, comp="GZIP")
    # a ragged component whose variant is no RaggedTensorVariant (valid records, a wrong type_name)
    bogus = ("variant", [], [("Bogus", [(9, np.array([0, 1]))])])
    fmt.write_dir(os.path.join(tmp, "py_comp_bad"), comp_spec,
                  {0: [[(21, bogus), (21, comp_rows[0][1]), (1, comp_rows[0][2])]]})
    exp = []
    order = [i for k in range(3) for i in range(k, 7, 3)]
    exp.append("py_dict 7 [('name', %s), ('x', %s)]" % (SPEC % ("()", "string"), SPEC % ("(2,)", "float32")))
    exp.append(str([{"name": names[i], "x": f32[i].tolist()} for i in order]))
    exp.append("py_gz 5 (%s, (%s, %s))" % (SPEC % ("()", "int64"), SPEC % ("(None,)", "uint8"), SPEC % ("()", "bool")))
    exp.append(str([(int(r[0]), (r[1].tolist(), bool(r[2]))) for r in rows]))
    exp.append("py_snappy 5 (%s, (%s, %s))" % (SPEC % ("()", "int64"), SPEC % ("(None,)", "uint8"), SPEC % ("()", "bool")))
    exp.append(str([(int(r[0]), (r[1].tolist(), bool(r[2]))) for r in rows]))
    exp.append("py_comp 3 (RaggedTensorSpec(TensorShape([None, None, None]), tf.int64, 2, tf.int32), "
               "SparseTensorSpec(TensorShape([2, 3]), tf.int32), %s)" % (SPEC % ("()", "float32")))
    exp.append(str([(("R", [[[10], [11, 12]], [[]]]), ("S", [[0, 0], [1, 2]], [5, -6], [2, 3]), 0.5),
                    (("R", [[[-1, 2**40]]]), ("S", [], [], [2, 3]), -1.25),
                    (("R", []), ("S", [[1, 1]], [9], [2, 3]), 2.0)]))
    exp.append("py_gz DataLossError: corrupted record at 0")
    exp.append("py_comp_bad DataLossError: Unable to parse tensor from stored proto.")
    exp.append("py_bad DataLossError: corrupted record at 12")
    exp.append("py_snappy_cut DataLossError: tf.data.TFRecordDataset: Failed to read %d bytes from file. "
               "Possible data corruption." % block)
    exp.append("py_snappy DataLossError: inflate() failed with error -3: incorrect header check")
    exp.append("py_badspec NotFoundError: tf.data snapshot element_spec file not found or invalid: OUT/py_badspec/dataset_spec.pb.")
    exp.append("py_badmeta DataLossError: Can't parse OUT/py_badmeta/snapshot.metadata as binary proto")
    r = run(tfs, "read.tfs", tmp)
    got = r.stdout.splitlines()
    check(r.returncode == 0, f"read.tfs: exit {r.returncode}: {r.stderr}")
    for i, line in enumerate(exp):
        check(i < len(got) and got[i] == line, f"read.tfs line {i + 1}: {got[i] if i < len(got) else None!r} != {line!r}")
    check(len(got) == len(exp), f"read.tfs: {len(got)} lines")


def main():
    tfs = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="dsave-")
    try:
        part1(tfs, tmp)
        part2(tfs, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print("dsave-format: ok")


if __name__ == "__main__":
    main()
