#!/usr/bin/env python3
"""tensorboard.py — run each tests/tensorboard/NAME.tfs with a fresh log directory as argv[1], then check its event files.

Every record's framing is checked (length, masked CRC-32C of the length and of
the data, computed here independently), every Event is decoded with
`protoc --decode tensorflow.Event` against proto/tensorflow.proto (GraphDefs
inside events decoded as tensorflow.GraphDef), wall times are dropped, and the
text of all event files (sorted by name) must equal NAME.events; stdout must
equal NAME.out.  Programs run traced and again with --eager (NAME.eager.events
when the traced graph differs by contract).  Then tf.data.TFRecordDataset
reads an event file back (each record byte for byte, written out with
tf.io.write_file) and damaged copies of it must raise DataLossError at the
damaged record's offset.
usage: tensorboard.py TFS PROTO_DIR TEST_DIR
"""
import codecs
import os
import struct
import subprocess
import sys
import tempfile

CRC_TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    CRC_TABLE.append(c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(path):
    data = open(path, "rb").read()
    pos, out = 0, []
    while pos < len(data):
        if pos + 12 > len(data):
            raise ValueError("%s: truncated record header at %d" % (path, pos))
        header = data[pos:pos + 8]
        (n,) = struct.unpack("<Q", header)
        (hcrc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        if hcrc != masked(crc32c(header)):
            raise ValueError("%s: bad length CRC at %d" % (path, pos))
        body = data[pos + 12:pos + 12 + n]
        if len(body) != n or pos + 16 + n > len(data):
            raise ValueError("%s: truncated record at %d" % (path, pos))
        (dcrc,) = struct.unpack("<I", data[pos + 12 + n:pos + 16 + n])
        if dcrc != masked(crc32c(body)):
            raise ValueError("%s: bad data CRC at %d" % (path, pos))
        out.append(body)
        pos += 16 + n
    return out


def varint(b, pos):
    v = shift = 0
    while True:
        c = b[pos]
        pos += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, pos


def graph_def_field(ev):
    """The bytes of Event.graph_def (field 4), or None."""
    pos = 0
    while pos < len(ev):
        key, pos = varint(ev, pos)
        field, wt = key >> 3, key & 7
        if wt == 0:
            _, pos = varint(ev, pos)
        elif wt == 1:
            pos += 8
        elif wt == 5:
            pos += 4
        elif wt == 2:
            n, pos = varint(ev, pos)
            if field == 4:
                return ev[pos:pos + n]
            pos += n
        else:
            raise ValueError("bad wire type")
    return None


def decode(proto_dir, msg, data):
    p = subprocess.run(["protoc", "--decode", msg, "-I", proto_dir, os.path.join(proto_dir, "tensorflow.proto")],
                       input=data, capture_output=True)
    if p.returncode:
        raise ValueError("protoc: " + p.stderr.decode())
    return p.stdout.decode()


FORMATS = {"DT_FLOAT": "f", "DT_DOUBLE": "d", "DT_INT32": "i", "DT_INT64": "q", "DT_BOOL": "?"}


def with_values(text):
    """After each tensor_content line, its elements as numbers (the dtype is the tensor's preceding dtype line)."""
    out, dtype = [], None
    for line in text.splitlines(True):
        out.append(line)
        s = line.strip()
        if s.startswith("dtype: "):
            dtype = s[7:]
        elif s.startswith("tensor_content: ") and dtype in FORMATS:
            raw = codecs.escape_decode(s[len("tensor_content: ") + 1:-1].encode("latin1"))[0]
            n = len(raw) // struct.calcsize(FORMATS[dtype])
            vals = struct.unpack("<%d%s" % (n, FORMATS[dtype]), raw)
            out.append(line[:len(line) - len(line.lstrip())] + "# values: %s\n" % " ".join(repr(v) for v in vals))
    return "".join(out)


def run_metadata_lines(proto_dir, lines):
    """trace_export's summaries (plugins graph_run_metadata_graph / graph_run_metadata): the tensor's string_val is a
    serialized RunMetadata; show it decoded, with its GraphDefs' values, in place of the escaped bytes."""
    if not any('plugin_name: "graph_run_metadata' in l for l in lines):
        return lines
    out = []
    for l in lines:
        s = l.strip()
        if s.startswith("string_val: "):
            raw = codecs.escape_decode(s[len("string_val: ") + 1:-1].encode("latin1"))[0]
            ind = l[:len(l) - len(l.lstrip())]
            out.append(ind + "string_val (RunMetadata) {\n")
            out += [ind + "  " + x for x in with_values(decode(proto_dir, "tensorflow.RunMetadata", raw)).splitlines(True)]
            out.append(ind + "}\n")
        else:
            out.append(l)
    return out


def events_text(proto_dir, logdir):
    out = []
    # event files anywhere under logdir (Keras's TensorBoard callback writes train/ and validation/), by relative path
    files = sorted(os.path.relpath(os.path.join(d, f), logdir) for d, _, fs in os.walk(logdir) for f in fs
                   if "tfevents" in f)
    for f in files:
        out.append("# file %d\n" % files.index(f))
        for ev in records(os.path.join(logdir, f)):
            text = with_values(decode(proto_dir, "tensorflow.Event", ev))
            lines = [l for l in text.splitlines(True) if not l.startswith("wall_time: ")]
            gd = graph_def_field(ev)
            if gd is not None:
                lines = [l for l in lines if not l.startswith("graph_def: ")]
                lines.append("graph_def {\n")
                lines += ["  " + l for l in with_values(decode(proto_dir, "tensorflow.GraphDef", gd)).splitlines(True)]
                lines.append("}\n")
            lines = run_metadata_lines(proto_dir, lines)
            out.append("".join(lines) + "---\n")
    # tf.io.write_graph output: NAME.pbtxt must encode (protoc --encode) to exactly NAME.pb
    for f in sorted(os.listdir(logdir)):
        if f.endswith(".pbtxt"):
            text = open(os.path.join(logdir, f), "rb").read()
            p = subprocess.run(["protoc", "--encode", "tensorflow.GraphDef", "-I", proto_dir,
                                os.path.join(proto_dir, "tensorflow.proto")], input=text, capture_output=True)
            binary = open(os.path.join(logdir, f[:-6] + ".pb"), "rb").read()
            same = p.returncode == 0 and p.stdout == binary
            out.append("# %s: %d nodes, encodes to %s.pb: %s\n" % (f, text.count(b"\nnode {") + text.startswith(b"node {"),
                                                                  f[:-6], same))
    return "".join(out)


WRITE = """w = tf.summary.create_file_writer(argv[1])
with w.as_default():
    for s in range(3):
        tf.summary.scalar("loss", 1.0 / (s + 1), step=s)
w.close()
"""

READ = """ds = tf.data.TFRecordDataset(argv[1])
print(ds.element_spec)
n = 0
try:
    for r in ds:
        tf.io.write_file(argv[2] + "/rec_" + str(n) + ".bin", r)
        n += 1
except tf.errors.DataLossError as e:
    print("DataLossError:", e.message)
print(n, "records")
"""

COUNT = """@tf.function
def count(ds):
    n = 0
    for r in ds:
        n += 1
    return n
print(count(tf.data.TFRecordDataset([argv[1], argv[1]])))
"""

UNCAUGHT = """for r in tf.data.TFRecordDataset(argv[1]):
    pass
"""


def reader_checks(tfs):
    """tf.data.TFRecordDataset over an event file: the records as written, and DataLossError for damage."""
    failed = 0

    def check(label, cond, detail):
        nonlocal failed
        if cond:
            print("ok  ", label)
        else:
            failed += 1
            print("FAIL", label)
            print(detail)

    with tempfile.TemporaryDirectory() as tmp:
        for name, text in (("write.tfs", WRITE), ("read.tfs", READ), ("count.tfs", COUNT), ("uncaught.tfs", UNCAUGHT)):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        logdir = os.path.join(tmp, "logs")
        p = subprocess.run([tfs, "run", "write.tfs", logdir], cwd=tmp, capture_output=True, timeout=120)
        (event,) = [os.path.join(logdir, f) for f in os.listdir(logdir)]
        data = open(event, "rb").read()
        recs = records(event)
        offs = [0]
        for r in recs:
            offs.append(offs[-1] + 16 + len(r))

        def read(path):
            out = os.path.join(tmp, "out")
            if os.path.isdir(out):
                for f in os.listdir(out):
                    os.unlink(os.path.join(out, f))
            else:
                os.mkdir(out)
            p = subprocess.run([tfs, "run", "read.tfs", path, out], cwd=tmp, capture_output=True, timeout=120)
            got = [open(os.path.join(out, "rec_%d.bin" % i), "rb").read() for i in range(len(os.listdir(out)))]
            return p, got

        spec = "TensorSpec(shape=(), dtype=tf.string, name=None)\n"
        p, got = read(event)
        check("TFRecordDataset reads the event file", p.returncode == 0 and got == recs and len(recs) == 4
              and p.stdout.decode() == spec + "4 records\n", "%r %d/%d records" % (p, len(got), len(recs)))
        damaged = os.path.join(tmp, "damaged")
        cases = [
            ("length CRC of record 1", lambda b: b[:offs[1] + 9] + bytes([b[offs[1] + 9] ^ 1]) + b[offs[1] + 10:],
             "corrupted record at %d" % offs[1], 1),
            ("length of record 1", lambda b: b[:offs[1]] + bytes([b[offs[1]] ^ 4]) + b[offs[1] + 1:],
             "corrupted record at %d" % offs[1], 1),
            ("data of record 2", lambda b: b[:offs[2] + 20] + bytes([b[offs[2] + 20] ^ 0x40]) + b[offs[2] + 21:],
             "corrupted record at %d" % (offs[2] + 12), 2),
            ("data CRC of record 3", lambda b: b[:offs[4] - 1] + bytes([b[offs[4] - 1] ^ 0x80]),
             "corrupted record at %d" % (offs[3] + 12), 3),
            ("cut inside record 2's data", lambda b: b[:offs[2] + 20], "truncated record at %d" % (offs[2] + 12), 2),
            ("cut inside record 3's header", lambda b: b[:offs[3] + 5], "truncated record at %d" % offs[3], 3),
            ("cut before record 3's data CRC", lambda b: b[:offs[4] - 2], "truncated record at %d" % (offs[3] + 12), 3),
        ]
        for label, damage, msg, n in cases:
            with open(damaged, "wb") as f:
                f.write(damage(data))
            p, got = read(damaged)
            check("DataLossError: " + label, p.returncode == 0 and got == recs[:n] and p.stdout.decode() ==
                  "%sDataLossError: %s\n%d records\n" % (spec, msg, n), "%r\n%d records" % (p, len(got)))
        # uncaught: a located report, status 1; the graph (a While over the dataset) reads it too
        with open(damaged, "wb") as f:
            f.write(cases[2][1](data))
        p = subprocess.run([tfs, "run", "count.tfs", event], cwd=tmp, capture_output=True, timeout=120)
        check("TFRecordDataset in a tf.function", p.returncode == 0 and p.stdout == b"tf.Tensor(8, shape=(), dtype=int32)\n",
              repr(p))
        p = subprocess.run([tfs, "run", "count.tfs", damaged], cwd=tmp, capture_output=True, timeout=120)
        check("DataLossError in a tf.function, uncaught", p.returncode == 1 and p.stdout == b"" and p.stderr.decode() ==
              "count.tfs:5:9: error: DataLossError: corrupted record at %d (node _DatasetNext in tf.function 'count')\n"
              "        n += 1\n        ^\n" % (offs[2] + 12), repr(p))
        p = subprocess.run([tfs, "run", "uncaught.tfs", damaged], cwd=tmp, capture_output=True, timeout=120)
        check("DataLossError uncaught", p.returncode == 1 and p.stdout == b"" and p.stderr.decode() ==
              "uncaught.tfs:1:10: error: DataLossError: corrupted record at %d\nfor r in tf.data.TFRecordDataset(argv[1]):\n"
              "         ^\n" % (offs[2] + 12), repr(p))
        p, got = read(os.path.join(tmp, "missing"))
        check("TFRecordDataset of a missing file", p.returncode == 1 and
              "error: NotFoundError: tf.data.TFRecordDataset: %s; No such file or directory" % os.path.join(tmp, "missing")
              in p.stderr.decode(), repr(p))
    return failed


def main():
    tfs, proto_dir, test_dir = (os.path.abspath(a) for a in sys.argv[1:4])
    failed = 0
    names = sorted(f[:-4] for f in os.listdir(test_dir) if f.endswith(".tfs"))
    for name in names:
        for eager in (False, True):
            label = name + (" --eager" if eager else "")
            want_ev = os.path.join(test_dir, name + (".eager.events" if eager else ".events"))
            if eager and not os.path.exists(want_ev):
                want_ev = os.path.join(test_dir, name + ".events")
            with tempfile.TemporaryDirectory() as tmp:
                logdir = os.path.join(tmp, "logs", "run1")   # parents created by the writer
                cmd = [tfs, "run"] + (["--eager"] if eager else []) + [name + ".tfs", logdir]
                p = subprocess.run(cmd, cwd=test_dir, capture_output=True, timeout=120)
                problems = []
                want_out = open(os.path.join(test_dir, name + ".out"), "rb").read()
                if p.returncode or p.stderr or p.stdout != want_out:
                    problems.append("status %d\nstdout:\n%s\nstderr:\n%s" % (p.returncode, p.stdout.decode(), p.stderr.decode()))
                try:
                    got = events_text(proto_dir, logdir)
                    want = open(want_ev).read()
                    if got != want:
                        import difflib
                        problems.append("".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                                     "expected events", "actual events")))
                except (ValueError, OSError) as e:
                    problems.append(str(e))
                if problems:
                    failed += 1
                    print("FAIL", label)
                    for pr in problems:
                        print(pr)
                else:
                    print("ok  ", label)
    # a corrupted record must fail the CRC check: the checker itself is tested
    with tempfile.NamedTemporaryFile() as f:
        body = b"abc"
        hdr = struct.pack("<Q", len(body))
        good = hdr + struct.pack("<I", masked(crc32c(hdr))) + body + struct.pack("<I", masked(crc32c(body)))
        f.write(good[:-5] + b"x" + good[-4:])
        f.flush()
        assert crc32c(b"123456789") == 0xE3069283, "CRC-32C check value"
        try:
            records(f.name)
            print("FAIL checker accepted a corrupted record")
            failed += 1
        except ValueError:
            pass
    failed += reader_checks(tfs)
    print("%d failed" % failed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
