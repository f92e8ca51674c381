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


def write(name, text):
    with open(os.path.join(PROGS, name), "w") as f:
        f.write(text)


def main():
    for name, fn in [("example_proto", example_proto)]:
        p = Out()
        fn(p)
        write(name + ".out", p.text())


if __name__ == "__main__":
    main()
