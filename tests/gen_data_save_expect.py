#!/usr/bin/python3
# gen_data_save_expect.py — writes tests/programs/data_save.out from Python and numpy (TF 2.15's save/load/snapshot rules).
"""Reference for tests/programs/data_save.tfs:

    /usr/bin/python3 tests/gen_data_save_expect.py

The rules (tensorflow/python/data/ops/{save,load,snapshot}_op.py, core/kernels/data/experimental/
save_dataset_op.cc, load_dataset_op.cc, core/data/snapshot_utils.cc): save writes dataset_spec.pb and
snapshot.metadata beside one run directory holding a %08d.shard directory per shard index; with a shard_func
each element goes to the shard it returns (a scalar int64, else InvalidArgumentError "`shard_func` must
return a scalar int64."), without one round-robin over the CPU budget; load's cardinality is the metadata's
num_elements, its element_spec the decoded dataset_spec.pb, and its reader_func receives the shards' datasets
in sorted order — flat_map reads them one after the other, the default interleave (cycle_length = the CPU
count, block 1) gives the round-robin's order back. snapshot writes on the first full pass and reads after,
its directory named by the pipeline's fingerprint holding snapshot.metadata and the run.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")
OUT = os.path.join(PROGS, "data_save.out")


def located(path, shown, needle, message):
    """file:line:col: error: message, the line and a caret under needle's first column (col 1-based)."""
    with open(path) as f:
        for n, line in enumerate(f.read().splitlines(), 1):
            if needle in line:
                col = line.index(needle) + 1
                return "%s:%d:%d: error: %s\n%s\n%s^\n" % (shown, n, col, message, line, " " * (col - 1))
    raise ValueError(needle)


def errors():
    """The error programs: TF's messages (load_op.py's element_spec check, LoadDatasetOp's metadata check,
    RecordReader's data CRC check at the record's data offset 12), each at the load() call, or, for a damaged
    record found while reading, at the library line reading the shards (the read runs in the dataset's
    generator, below the user's loop)."""
    cases = [("data_save_err_spec", "tf.data.Dataset.load(",
              "NotFoundError: tf.data snapshot element_spec file not found: /nonexistent/tfs-saved-data/dataset_spec.pb.", ""),
             ("data_save_err_meta", "tf.data.Dataset.load(",
              "NotFoundError: Could not find metadata file [/nonexistent/tfs-saved-data]", "")]
    for name, needle, msg, out in cases:
        err = located(os.path.join(PROGS, name + ".tfs"), name + ".tfs", needle, msg)
        write(name, out, err)
    lib = os.path.join(HERE, "..", "stdlib", "tfdatasave.tfs")
    write("data_save_err_corrupt", "3\n", located(lib, "<stdlib>/tfdatasave.tfs", "reader(_shards(",
                                                  "DataLossError: corrupted record at 12"))


def write(name, out, err):
    for ext, text in ((".out", out), (".err", err), (".status", "1\n")):
        with open(os.path.join(PROGS, name + ext), "w") as f:
            f.write(text)


def spec(shape, dtype):
    return "TensorSpec(shape=%s, dtype=tf.%s, name=None)" % (shape, dtype)


def main():
    res = []
    out = res.append
    # 1. dict
    ids = list(range(5))
    vec = (np.arange(10, dtype=np.float32).reshape(5, 2) * np.float32(0.5)).tolist()
    names = [b"a", b"bb", b"", b"dddd", b"e e"]
    out("%s %s %s %s" % (['id', 'name', 'vec'], spec("()", "int64"), spec("(2,)", "float32"), spec("()", "string")))
    out("5")
    out(str([{"id": ids[i], "name": names[i], "vec": vec[i]} for i in range(5)]))
    out(str(['dataset_spec.pb', 'snapshot.metadata']))
    # 2. tuple, shards by a % 2, read shard 0 then shard 1
    elems = [(x, ((np.arange(4, dtype=np.float64) * x).reshape(2, 2).tolist(), x % 3 == 0)) for x in range(7)]
    out("%s 1 %s" % (['dataset_spec.pb', 'snapshot.metadata'], ['00000000.shard', '00000001.shard']))
    out("(%s, (%s, %s))" % (spec("()", "int32"), spec("(2, 2)", "float64"), spec("()", "bool")))
    out(str([e for e in elems if e[0] % 2 == 0] + [e for e in elems if e[0] % 2 == 1]))
    # 3. dtypes
    cols = [np.array([0, 255, 7], np.uint8), np.array([-128, 127, 0], np.int8), np.array([-300, 300, 1], np.int16),
            np.array([0, 65535, 2], np.uint16), np.array([1.5, -2.25, 0.0], np.float16),
            np.array([0, 4000000000, 3], np.uint32), np.array([True, False, True])]
    out(str([c.dtype.name for c in cols]))
    out(str([tuple(c[i].item() for c in cols) for i in range(3)]))
    # 4. empty; range through the default reader
    out("0 []")
    out(str(list(range(10, 40, 3))))
    # 5.
    out("InvalidArgumentError: `shard_func` must return a scalar int64.")
    # 6. snapshot: same elements twice, the generator called once, one fingerprint directory
    sq = [i * i for i in range(5)]
    out(str(sq))
    out(str(sq))
    out("1 1")
    out(str(['snapshot.metadata']))
    # 7. repeat().snapshot(): infinite cardinality (-1), a partial pass
    out("%s -1" % [0, 1, 2, 0, 1])
    # 8. SNAPPY round trip (keys in sorted order, as plain() prints them); GZIP reading a snappy file: zlib's words
    z = [{"v": [0.5, -1.0], "w": b"snappy"}, {"v": [2.0, 3.5], "w": b""}, {"v": [float(np.float32(1e-3)), 7.0], "w": b"blocks"}]
    out(str(z))
    out("DataLossError: inflate() failed with error -3: incorrect header check")
    with open(OUT, "w") as f:
        f.write("\n".join(res) + "\n")


if __name__ == "__main__":
    main()
    errors()
