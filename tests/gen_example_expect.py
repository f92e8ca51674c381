#!/usr/bin/python3
"""gen_example_expect.py — expectations of the tf.train.Example goldens (tests/programs/example_*.tfs) and their TFRecord fixture.

    /usr/bin/python3 tests/gen_example_expect.py

The oracle is Debian's python3-protobuf: the message classes are built here from TF's example.proto and
feature.proto (same names, field numbers, packed lists), so serialized bytes, text form and parse errors are
protobuf's own.  Each program's twin below prints what TF 2.15 prints for the program; the parse results are
read from the oracle's messages with numpy (TF's FixedLenFeature semantics), not from tfs.  The TFRecord framing
(length, masked CRC-32C of the length, data, masked CRC-32C of the data) is written from its definition.
"""
import gzip
import os
import struct
import sys

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")


# ---- TF's example.proto / feature.proto as a descriptor ----
def _classes():
    fdp = descriptor_pb2.FileDescriptorProto(name="tensorflow/core/example/example.proto", package="tensorflow",
                                             syntax="proto3")
    F = descriptor_pb2.FieldDescriptorProto
    OPT, REP = F.LABEL_OPTIONAL, F.LABEL_REPEATED

    def msg(name):
        return fdp.message_type.add(name=name)

    def field(m, name, num, typ, label=OPT, type_name=None, packed=False, oneof=None):
        f = m.field.add(name=name, number=num, type=typ, label=label)
        if type_name:
            f.type_name = ".tensorflow." + type_name
        if packed:
            f.options.packed = True
        if oneof is not None:
            f.oneof_index = oneof
        return f

    def mapfield(m, name, entry, value_type):
        e = m.nested_type.add(name=entry)
        e.options.map_entry = True
        field(e, "key", 1, F.TYPE_STRING)
        field(e, "value", 2, F.TYPE_MESSAGE, type_name=value_type)
        field(m, name, 1, F.TYPE_MESSAGE, REP, m.name + "." + entry)

    field(msg("BytesList"), "value", 1, F.TYPE_BYTES, REP)
    field(msg("FloatList"), "value", 1, F.TYPE_FLOAT, REP, packed=True)
    field(msg("Int64List"), "value", 1, F.TYPE_INT64, REP, packed=True)
    m = msg("Feature")
    m.oneof_decl.add(name="kind")
    for i, (n, t) in enumerate([("bytes_list", "BytesList"), ("float_list", "FloatList"), ("int64_list", "Int64List")]):
        field(m, n, i + 1, F.TYPE_MESSAGE, type_name=t, oneof=0)
    mapfield(msg("Features"), "feature", "FeatureEntry", "Feature")
    field(msg("FeatureList"), "feature", 1, F.TYPE_MESSAGE, REP, "Feature")
    mapfield(msg("FeatureLists"), "feature_list", "FeatureListEntry", "FeatureList")
    field(msg("Example"), "features", 1, F.TYPE_MESSAGE, type_name="Features")
    m = msg("SequenceExample")
    field(m, "context", 1, F.TYPE_MESSAGE, type_name="Features")
    field(m, "feature_lists", 2, F.TYPE_MESSAGE, type_name="FeatureLists")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    names = "BytesList FloatList Int64List Feature Features FeatureList FeatureLists Example SequenceExample".split()
    get = getattr(message_factory, "GetMessageClass", None)
    if get is None:
        factory = message_factory.MessageFactory(pool)
        get = factory.GetPrototype
    return {n: get(pool.FindMessageTypeByName("tensorflow." + n)) for n in names}


def _tensor_proto():
    """TF's TensorProto and TensorShapeProto (tensor.proto, tensor_shape.proto): the fields SerializeTensor writes."""
    fdp = descriptor_pb2.FileDescriptorProto(name="tensorflow/core/framework/tensor.proto", package="tensorflow",
                                             syntax="proto3")
    F = descriptor_pb2.FieldDescriptorProto
    shape = fdp.message_type.add(name="TensorShapeProto")
    dim = shape.nested_type.add(name="Dim")
    dim.field.add(name="size", number=1, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    dim.field.add(name="name", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    shape.field.add(name="dim", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                    type_name=".tensorflow.TensorShapeProto.Dim")
    shape.field.add(name="unknown_rank", number=3, type=F.TYPE_BOOL, label=F.LABEL_OPTIONAL)
    t = fdp.message_type.add(name="TensorProto")
    t.field.add(name="dtype", number=1, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)   # the DataType enum's varint
    t.field.add(name="tensor_shape", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                type_name=".tensorflow.TensorShapeProto")
    t.field.add(name="version_number", number=3, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    t.field.add(name="tensor_content", number=4, type=F.TYPE_BYTES, label=F.LABEL_OPTIONAL)
    t.field.add(name="string_val", number=8, type=F.TYPE_BYTES, label=F.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    get = getattr(message_factory, "GetMessageClass", None) or message_factory.MessageFactory(pool).GetPrototype
    return get(pool.FindMessageTypeByName("tensorflow.TensorProto"))


TensorProto = _tensor_proto()
TF_DTYPE = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "string": 7, "int64": 9, "bool": 10}


class train:   # tf.train's names over the oracle classes
    pass


for _n, _c in _classes().items():
    setattr(train, _n, _c)


def _bytes_feature(value):
    return train.Feature(bytes_list=train.BytesList(value=[value]))


def _float_feature(value):
    return train.Feature(float_list=train.FloatList(value=[value]))


def _int64_feature(value):
    return train.Feature(int64_list=train.Int64List(value=[value]))


def ser(m):
    return m.SerializeToString(deterministic=True)   # map entries sorted by key, as tfs writes them


# ---- TFRecord framing ----
def _crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_T = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _T[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecord(records):
    out = b""
    for r in records:
        n = struct.pack("<Q", len(r))
        out += n + struct.pack("<I", masked(n)) + r + struct.pack("<I", masked(r))
    return out


class Out:
    def __init__(self):
        self.lines = []

    def __call__(self, *a):
        self.lines.append(" ".join(str(x) for x in a))

    def text(self):
        return "\n".join(self.lines) + "\n"


# ---- example_proto.tfs ----
def example_proto(p):
    p(_bytes_feature(b'test_string'))
    p(_bytes_feature(u'test_bytes'.encode('utf-8')))
    p(_bytes_feature(b'from a tensor'))
    p(_float_feature(np.exp(1)))
    p(_int64_feature(True))
    p(_int64_feature(1))
    p(_float_feature(np.exp(1)).SerializeToString())
    ex = train.Example(features=train.Features(feature={
        "ints": train.Feature(int64_list=train.Int64List(value=[1, -1, 2**40, 0, -2**63])),
        "floats": train.Feature(float_list=train.FloatList(value=[0.1, 1e20, -2.5, float("inf"), 1e-7, 123456789.0])),
        "bytes": train.Feature(bytes_list=train.BytesList(value=[b"hi\n\x00\xff'\"\\", b""])),
        "empty": train.Feature(),
        "none": train.Feature(int64_list=train.Int64List()),
        "caf\u00e9": _int64_feature(3),
    }))
    p(ex)
    s = ser(ex)
    p(s.hex())
    p(ex.ByteSize(), len(s))
    back = train.Example.FromString(s)
    p(back == ex, ser(back) == s)
    p(list(back.features.feature["floats"].float_list.value))
    p(list(back.features.feature["ints"].int64_list.value))
    p(list(back.features.feature["bytes"].bytes_list.value))
    p(back.features.feature["ints"].WhichOneof("kind"), back.features.feature["empty"].WhichOneof("kind"))
    p(back.features.feature["ints"].HasField("int64_list"), back.features.feature["ints"].HasField("float_list"))
    p(sorted(back.features.feature.keys()))
    p(len(back.features.feature["ints"].float_list.value))
    m = train.Example()
    p(repr(ser(m)), repr(ser(train.Example(features=train.Features()))))
    p(m.HasField("features"))
    n = m.ParseFromString(s)
    p(n, m == ex, m.HasField("features"))
    seq = train.SequenceExample(
        context=train.Features(feature={"id": _int64_feature(7)}),
        feature_lists=train.FeatureLists(feature_list={
            "tokens": train.FeatureList(feature=[_bytes_feature(b"a"), _bytes_feature(b"bc")]),
            "scores": train.FeatureList(feature=[_float_feature(0.25)]),
        }))
    p(seq)
    p(ser(seq).hex())
    p(train.SequenceExample.FromString(ser(seq)) == seq)
    for make in (lambda: train.Int64List(value=[1.5]), lambda: train.BytesList(value=["abc"]),
                 lambda: train.FloatList(value=["abc"])):
        try:
            make()
        except TypeError as e:
            p("TypeError:", e)
    try:
        train.Example.FromString(b"\x0a\x05abc")
    except Exception as e:
        p(type(e).__name__ + ":", e)
    for v in (np.array([1.5]), [np.float32(2.5)], [None], [b"x"]):
        try:
            train.Int64List(value=v)
        except TypeError as e:
            p("TypeError:", e)
    for make in (lambda: train.FloatList(value=[None]), lambda: train.BytesList(value=[1])):
        try:
            make()
        except TypeError as e:
            p("TypeError:", e)
    p(list(train.Int64List(value=np.array([1, 2])).value), list(train.FloatList(value=[True]).value))
    p(list(train.FloatList(value=np.array([0.1, 2.0], dtype=np.float32)).value))


# ---- TF's FixedLenFeature / FixedLenSequenceFeature semantics over the oracle's messages ----
class Fixed:
    def __init__(self, shape, dtype, default_value=None, seq=False):
        self.shape, self.dtype, self.default, self.seq = list(shape), dtype, default_value, seq


KIND = {"bytes_list": "string", "float_list": "float32", "int64_list": "int64"}
WORD = {"string": "string", "float32": "float", "int64": "int64"}
NP = {"string": object, "float32": np.float32, "int64": np.int64}


class OpError(Exception):
    pass


def _values(f):
    k = f.WhichOneof("kind")
    return (KIND[k], list(getattr(f, k).value)) if k else (None, [])


def parse(records, spec, batch):
    """TF's ParseExampleV2 for dense features: records is one serialized Example or a list (batch)."""
    recs = records if batch else [records]
    rows = {}
    for i, r in enumerate(recs):
        try:
            ex = train.Example.FromString(r)
        except Exception:
            raise OpError("Could not parse example input, value: '%s'" % r.decode("latin-1"))
        for k in sorted(spec):
            f = spec[k]
            n = int(np.prod(f.shape)) if f.shape else 1
            fm = ex.features.feature
            dt, vals = _values(fm[k]) if k in fm else (None, [])
            where = "Name: <unknown>, Key: %s, Index: %d.  " % (k, i) if batch else "Key: %s.  " % k
            if dt is None:
                if f.seq:
                    rows.setdefault(k, []).append([])
                    continue
                if f.default is None:
                    raise OpError(("Name: <unknown>, " if batch else "") +
                                  "Feature: %s (data type: %s) is required but could not be found." % (k, WORD[f.dtype]))
                rows.setdefault(k, []).append(list(np.array(f.default, dtype=NP[f.dtype]).reshape(-1)))
                continue
            if dt != f.dtype:
                if f.seq and batch:
                    raise OpError(where + "Data types don't match. Expected type: %s" % WORD[f.dtype])
                raise OpError(where + "Data types don't match. Data type: %s but expected type: %s" % (WORD[dt], WORD[f.dtype]))
            if f.seq:
                if len(vals) % n:
                    if batch:
                        raise OpError(where + "Number of %s values is not a multiple of stride length. Saw %d values but "
                                      "output shape is: [%s]" % ("bytes" if dt == "string" else WORD[dt], len(vals),
                                                                 ",".join(map(str, f.shape))))
                    raise OpError(where + "Can't parse serialized Example.")
            elif len(vals) != n:
                if batch:
                    raise OpError(where + "Number of %s values != expected.  Values size: %d but output shape: [%s]"
                                  % ("bytes" if dt == "string" else WORD[dt], len(vals), ",".join(map(str, f.shape))))
                raise OpError(where + "Can't parse serialized Example.")
            rows.setdefault(k, []).append(vals)
    out = {}
    for k in sorted(spec):
        f = spec[k]
        if f.seq:
            n = int(np.prod(f.shape)) if f.shape else 1
            longest = max(len(v) for v in rows[k]) // n
            pad = 0 if f.default is None else f.default
            if f.dtype == "string" and f.default is None:
                pad = b""
            vals = [v + [pad] * (longest * n - len(v)) for v in rows[k]]
            a = np.array(vals, dtype=NP[f.dtype]).reshape([len(vals), longest] + f.shape)
        else:
            a = np.array(rows[k], dtype=NP[f.dtype]).reshape([len(rows[k])] + f.shape)
        out[k] = a if batch else a.reshape(a.shape[1:])
    return out


def show(p, d):
    for k in sorted(d):
        v = d[k]
        name = "string" if v.dtype == object else str(v.dtype)
        p(k, name, list(v.shape), [x for x in v.reshape(-1).tolist()])


def fixture_examples():
    def ex(feats):
        return train.Example(features=train.Features(feature=feats))
    return [
        ex({"id": _int64_feature(0), "x": train.Feature(float_list=train.FloatList(value=[0.5, 1.5])),
            "name": _bytes_feature(b"zero"), "seq": _int64_feature(10)}),
        ex({"id": _int64_feature(1), "x": train.Feature(float_list=train.FloatList(value=[1.25, -2.0])),
            "name": _bytes_feature(b"one"), "seq": train.Feature(int64_list=train.Int64List(value=[11, 12, 13]))}),
        ex({"id": _int64_feature(2), "x": train.Feature(float_list=train.FloatList(value=[0.1, 2e10])),
            "extra": _bytes_feature(b"unused"), "grid": train.Feature(float_list=train.FloatList(value=[1, 2, 3, 4]))}),
    ]


# ---- example_parse.tfs ----
def example_parse(p):
    spec = {"id": Fixed([], "int64"), "x": Fixed([2], "float32"), "name": Fixed([], "string", b"?"),
            "seq": Fixed([], "int64", seq=True), "grid": Fixed([2, 2], "float32", [0.5, 1.5, 2.5, 3.5])}
    p("FixedLenFeature(shape=[], dtype=tf.int64, default_value=None)")
    records = [ser(e) for e in fixture_examples()]
    p(len(records))
    for r in records:
        show(p, parse(r, spec, False))
    p("(None,)", "(2,)")
    for r in records:
        show(p, parse(r, spec, False))
    show(p, parse(records, spec, True))
    show(p, parse(records[:2], {"id": Fixed([1], "int64")}, True))
    for r in records[:2]:
        p((parse(r, {"x": Fixed([2], "float32")}, False)["x"] * np.float32(2.0)).tolist())

    def attempt(f):
        try:
            f()
        except OpError as e:
            p("InvalidArgumentError:", e)

    bad = ser(train.Example(features=train.Features(feature={
        "x": train.Feature(float_list=train.FloatList(value=[1.0, 2.0, 3.0]))})))
    attempt(lambda: parse(bad, {"x": Fixed([2], "float32")}, False))
    attempt(lambda: parse(bad, {"x": Fixed([3], "int64")}, False))
    attempt(lambda: parse(bad, {"y": Fixed([], "float32")}, False))
    attempt(lambda: parse(b"\x0a\x05abc", {"y": Fixed([], "float32")}, False))
    attempt(lambda: parse([bad, bad], {"x": Fixed([2], "float32")}, True))
    attempt(lambda: parse([bad], {"x": Fixed([3], "int64")}, True))
    attempt(lambda: parse([bad], {"y": Fixed([], "string")}, True))
    attempt(lambda: parse(bad, {"x": Fixed([2], "float32", seq=True)}, False))
    # TF's Python refuses these before the op runs
    p("TypeError: Value passed to parameter 'dense_defaults' has DataType int32 not in list of allowed values: "
      "float32, int64, string")
    p("ValueError: Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
    # a VarLenFeature: a SparseTensor of the record's values, indices [[j]], dense_shape [count]
    p("%s %s %s" % ([[0], [1], [2]], [1.0, 2.0, 3.0], [3]))
    recs = [ser(train.Example(features=train.Features(feature={
        "v": train.Feature(int64_list=train.Int64List(value=[i, i * 2]))}))) for i in range(200)]
    vs = [parse(r, {"v": Fixed([2], "int64")}, False)["v"].tolist() for r in recs]
    p(vs[:3], sum(a + b for a, b in vs))


# ---- example_tfrecord.tfs ----
def example_tfrecord(p):
    def example(i):
        return train.Example(features=train.Features(feature={
            "label": train.Feature(int64_list=train.Int64List(value=[i])),
            "pixels": train.Feature(float_list=train.FloatList(value=[i * 0.25, -i * 1.5, 3.0])),
            "text": train.Feature(bytes_list=train.BytesList(value=[("row %d" % i).encode()])),
        }))

    data = tfrecord([ser(example(i)) for i in range(4)])
    p(len(data))
    p(data.hex())
    p(True)
    spec = {"label": Fixed([], "int64"), "pixels": Fixed([3], "float32"), "text": Fixed([], "string")}
    recs = [ser(example(i)) for i in range(4)]
    for _ in range(2):
        for b in (recs[:2], recs[2:]):
            d = parse(b, spec, True)
            p(d["label"].tolist(), d["pixels"].tolist(), d["text"].tolist())
    p(True)


# ---- example_errors.tfs: the error ends the program, located at the parse call in the map function ----
def example_errors():
    ex = train.Example(features=train.Features(feature={"a": _int64_feature(1)}))
    try:
        parse(ser(ex), {"b": Fixed([], "float32")}, False)
    except OpError as e:
        msg = str(e)
    src = open(os.path.join(PROGS, "example_errors.tfs")).read().splitlines()
    call = "tf.io.parse_single_example"
    line = next(i for i, l in enumerate(src) if call in l and "lambda" in l)
    col = src[line].index(call)
    return ("example_errors.tfs:%d:%d: error: InvalidArgumentError: %s (node ParseExampleV2 in tf.function '<lambda>')\n"
            "%s\n%s^\n" % (line + 1, col + 1, msg, src[line], " " * col))


# ---- example_tensorproto.tfs: TF's SerializeTensor (AsProtoTensorContent) ----
def example_tensorproto(p):
    tensors = [("float32", np.array([[1.5, 2.0], [-3.0, 0.25]], np.float32)), ("int32", np.array(3, np.int32)),
               ("string", np.array([b"ab", b"", b"\x00\xff"], object)), ("bool", np.array([True, False])),
               ("float64", np.array(2.5)), ("int64", np.array([[7]], np.int64)), ("float32", np.zeros([0, 3], np.float32)),
               ("uint8", np.array([1, 255], np.uint8))]
    for name, a in tensors:
        t = TensorProto(dtype=TF_DTYPE[name])
        t.tensor_shape.SetInParent()
        for d in a.shape:
            t.tensor_shape.dim.add(size=d)
        if name == "string":
            t.string_val.extend(a.reshape(-1).tolist())
        elif a.size:
            t.tensor_content = a.tobytes()
        p("string", [], t.SerializeToString().hex())
        p(name, list(a.shape), a.reshape(-1).tolist())
    p((np.array([1.0, 2.0], np.float32) * 2).tolist())
    p("InvalidArgumentError: Type mismatch between parsed tensor (float) and dtype (int32)")
    p("InvalidArgumentError: Could not parse `serialized` as TensorProto: '\x08'")


# ---- savedmodel/example_save.tfs and example_load.tfs (tests/savedmodel.py runs them) ----
def savedmodel_example():
    spec = {"x": Fixed([2], "float32", [-1.0, -2.0]), "id": Fixed([], "int64"), "tag": Fixed([], "string", b"none"),
            "seq": Fixed([], "int64", seq=True)}

    def example(i, with_x):
        f = {"id": _int64_feature(i), "seq": train.Feature(int64_list=train.Int64List(value=list(range(i))))}
        if with_x:
            f["x"] = train.Feature(float_list=train.FloatList(value=[i * 0.5, 1.0]))
        return ser(train.Example(features=train.Features(feature=f)))

    def run(p, recs):
        d = parse(recs, spec, True)
        d["x"] = d["x"] * np.float32(2.0)
        for k in sorted(d):
            p(k, d[k].tolist())

    save, load = Out(), Out()
    run(save, [example(1, True), example(3, False)])
    run(load, [example(1, True), example(3, False)])
    run(load, [example(2, True)])
    load("InvalidArgumentError")
    return save.text(), load.text()


def write(name, text):
    with open(os.path.join(PROGS, name), "w") as f:
        f.write(text)


def main():
    os.makedirs(os.path.join(PROGS, "data"), exist_ok=True)
    with open(os.path.join(PROGS, "data", "examples.tfrecord"), "wb") as f:
        f.write(tfrecord([ser(e) for e in fixture_examples()]))
    for name, fn in [("example_proto", example_proto), ("example_parse", example_parse),
                     ("example_tfrecord", example_tfrecord), ("example_tensorproto", example_tensorproto)]:
        p = Out()
        fn(p)
        write(name + ".out", p.text())
    save, load = savedmodel_example()
    for name, text in (("example_save.out", save), ("example_load.out", load)):
        with open(os.path.join(HERE, "savedmodel", name), "w") as f:
            f.write(text)
    write("example_errors.out", "")
    write("example_errors.err", example_errors())
    write("example_errors.status", "1\n")


if __name__ == "__main__":
    main()
