#!/usr/bin/python3
# tfdsave.py — an independent reader and writer of tf.data save/snapshot directories (TF 2.15's layout), written from the format's documentation with the standard library and numpy.
"""The layout (tensorflow/core/data/snapshot_utils.cc, kernels/data/experimental/save_dataset_op.cc):

  PATH/dataset_spec.pb     StructuredValue (struct.proto): none_value=1, tensor_spec_value=33
                           {name=1, shape=2, dtype=3}, list_value=51, tuple_value=52 {values=1},
                           dict_value=53 {map<string, StructuredValue> fields=1}
  PATH/snapshot.metadata   SnapshotMetadataRecord: graph_hash=1, run_id=2, creation_timestamp=3,
                           version=4, dtype=5 (packed), num_elements=6, finalized=1000
  PATH/RUN/%08d.shard/%08d.snapshot
                           TFRecord file (uint64 length, masked CRC-32C of it, data, masked CRC-32C of
                           the data), compressed as a whole with GZIP or ZLIB, or SNAPPY (TF's
                           SnappyOutputBuffer: blocks of a 4-byte big-endian length and one raw snappy
                           block of at most 256 KiB of the record stream, cut between the header, data
                           and footer parts RecordWriter appends), or not; version 2: one
                           record per flat component, a TensorProto (dtype=1, tensor_shape=2 {dim=2
                           {size=1}, unknown_rank=3}, tensor_content=4) as Tensor::AsProtoTensorContent
                           writes it: strings in tensor_content too (each element's varint32 length, then
                           the bytes); string_val=8 is read as well.
  Ragged and sparse components (tensor.cc's AsProtoTensorContent of the dataset's DT_VARIANT=21 tensors):
                           tensor_content = varint32 length of each element's encoding, then the encodings
                           (variant.cc EncodeVariantList), each a VariantTensorDataProto {type_name=1,
                           metadata=2, tensors=3} whose tensors are in AsProtoField form (typed repeated fields:
                           float_val=5, double_val=6, int_val=7, string_val=8, int64_val=10, bool_val=11,
                           half_val=13, uint32_val=16, uint64_val=17, packed). A RaggedTensor is a scalar
                           "RaggedTensorVariant" (row_splits..., flat_values: ragged_tensor_variant.cc); a
                           SparseTensor a [3] vector of "tensorflow::Tensor" (indices, values, dense_shape:
                           SerializeSparse with out_type variant). In dataset_spec.pb their specs are
                           type_spec_value=34 TypeSpecProto {type_spec_class=1 (SPARSE 1, RAGGED 3),
                           type_state=2 (the _serialize() tuple: tensor_shape_value=31, tensor_dtype_value=32,
                           int64_value=12 zigzag), type_spec_class_name=3, num_flat_components=4}.
"""
import gzip
import os
import struct
import zlib

import numpy as np
import snappy  # python3-snappy: the raw snappy block format

# DataType numbers (types.proto) and numpy forms
NP = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8, 9: np.int64, 10: np.bool_,
      17: np.uint16, 19: np.float16, 22: np.uint32, 23: np.uint64}
DT_STRING = 7
DT_VARIANT = 21
NAMES = {1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8", 7: "string", 9: "int64",
         10: "bool", 17: "uint16", 19: "float16", 21: "variant", 22: "uint32", 23: "uint64"}
# AsProtoField's typed repeated field of a dtype: (field number, packed element kind)
FIELD = {1: (5, "f"), 2: (6, "d"), 3: (7, "v"), 4: (7, "v"), 5: (7, "v"), 6: (7, "v"), 17: (7, "v"), 9: (10, "v"),
         10: (11, "v"), 19: (13, "v"), 22: (16, "v"), 23: (17, "v")}


class FormatError(Exception):
    pass


# ---- CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) and TFRecord's mask ----
def _table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_T = _table()


def crc32c(data):
    c = 0xffffffff
    for b in data:
        c = _T[(c ^ b) & 0xff] ^ (c >> 8)
    return c ^ 0xffffffff


def mask(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xffffffff) + 0xa282ead8) & 0xffffffff


# ---- protobuf wire format ----
def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(b, i):
    shift = n = 0
    while True:
        if i >= len(b):
            raise FormatError("truncated varint")
        x = b[i]
        i += 1
        n |= (x & 0x7f) << shift
        shift += 7
        if not x & 0x80:
            return n, i


def fields(b):
    """[(number, wire type, value)]: ints for varints, bytes for length-delimited and fixed fields."""
    out, i = [], 0
    while i < len(b):
        key, i = read_varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = read_varint(b, i)
        elif wt == 2:
            n, i = read_varint(b, i)
            if i + n > len(b):
                raise FormatError("truncated field")
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        else:
            raise FormatError(f"wire type {wt}")
        out.append((num, wt, v))
    return out


def fv(num, v):
    return bytes(varint(num << 3)) + varint(v)


def fb(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data


def packed(vals):
    return b"".join(varint(v) for v in vals)


def unpack_varints(b):
    out, i = [], 0
    while i < len(b):
        v, i = read_varint(b, i)
        out.append(v)
    return out


# ---- TensorShapeProto / TensorProto ----
def encode_shape(shape):
    if shape is None:
        return fv(3, 1)
    return b"".join(fb(2, fv(1, d) if d != 0 else b"") for d in shape)


def decode_shape(b):
    dims, unknown = [], False
    for num, _, v in fields(b):
        if num == 2:
            size = 0
            for n2, _, v2 in fields(v):
                if n2 == 1:
                    size = v2 - (1 << 64) if v2 >= 1 << 63 else v2
            dims.append(size)
        elif num == 3:
            unknown = bool(v)
    return None if unknown else dims


def flat_dtype(s):
    """The stored dtype of a leaf spec: DT_VARIANT for a ragged or sparse one."""
    return s[2] if s[0] == "spec" else DT_VARIANT


def encode_tensor(a, dtype):
    """A TensorProto as TF's AsProtoTensorContent: numbers in tensor_content, strings there too (tensor.cc's
    Helper<tstring>: port::EncodeStringList, every element's varint32 length, then their bytes)."""
    if dtype == DT_VARIANT:
        return encode_variant(a[1], a[2])
    a = np.asarray(a)
    out = fv(1, dtype) + fb(2, encode_shape(list(a.shape)))
    if dtype == DT_STRING:
        ss = [s if isinstance(s, bytes) else str(s).encode() for s in a.reshape(-1)]
        if ss:
            out += fb(4, b"".join(varint(len(s)) for s in ss) + b"".join(ss))
    elif a.size:
        out += fb(4, np.ascontiguousarray(a, dtype=NP[dtype]).tobytes())
    return out


def zigzag(n):
    return (n << 1) ^ (n >> 63)


def unzigzag(n):
    return (n >> 1) ^ -(n & 1)


def encode_field_tensor(a, dtype):
    """A TensorProto as TF's AsProtoField: every value in the dtype's typed repeated field (packed)."""
    a = np.asarray(a)
    out = fv(1, dtype) + fb(2, encode_shape(list(a.shape)))
    if dtype == DT_STRING:
        for x in a.reshape(-1):
            out += fb(8, x if isinstance(x, bytes) else str(x).encode())
        return out
    num, kind = FIELD[dtype]
    vals = np.ascontiguousarray(a, dtype=NP[dtype]).reshape(-1)
    if not vals.size:
        return out
    if kind == "f":
        data = vals.astype("<f4").tobytes()
    elif kind == "d":
        data = vals.astype("<f8").tobytes()
    elif dtype == 19:
        data = packed(int(x) for x in vals.view(np.uint16))
    else:
        data = packed(int(x) for x in vals)
    return out + fb(num, data)


def encode_variant(shape, parts):
    """A DT_VARIANT TensorProto (AsProtoTensorContent) of elements parts: [(type_name, [(dtype, array)])]."""
    encs = [fb(1, name.encode()) + b"".join(fb(3, encode_field_tensor(a, dt)) for dt, a in ts) for name, ts in parts]
    content = b"".join(varint(len(e)) for e in encs) + b"".join(encs)
    return fv(1, DT_VARIANT) + fb(2, encode_shape(list(shape))) + fb(4, content)


def decode_field_values(dtype, fs, n):
    num, kind = FIELD[dtype]
    vals = []
    for f, wt, v in fs:
        if f != num:
            continue
        if kind == "f":
            vals += list(np.frombuffer(v, "<f4")) if wt == 2 else list(np.frombuffer(v, "<f4"))
        elif kind == "d":
            vals += list(np.frombuffer(v, "<f8"))
        else:
            raw = unpack_varints(v) if wt == 2 else [v]
            vals += [x - (1 << 64) if x >= 1 << 63 else x for x in raw]
    if dtype == 19:
        return np.array(vals, np.uint16).view(np.float16)
    if kind == "v" and dtype not in (9, 22, 23, 10):   # int_val holds int32s (negatives as 64-bit varints)
        return np.array(vals, np.int64).astype(NP[dtype])
    return np.array(vals, dtype=NP[dtype])


def decode_variant(content, shape):
    n = int(np.prod(shape)) if shape else 1
    sizes, i = [], 0
    for _ in range(n):
        v, i = read_varint(content, i)
        sizes.append(v)
    if sum(sizes) != len(content) - i:
        raise FormatError("variant sizes")
    parts = []
    for size in sizes:
        name, ts = "", []
        for num, _, v in fields(content[i:i + size]):
            if num == 1:
                name = v.decode()
            elif num == 3:
                ts.append(decode_tensor(v))
        parts.append((name, ts))
        i += size
    return parts


def decode_tensor(b):
    """(dtype, numpy array) of a TensorProto written in tensor_content / string_val form."""
    dtype, shape, content, strings = 0, [], None, []
    fs = fields(b)
    for num, _, v in fs:
        if num == 1:
            dtype = v
        elif num == 2:
            shape = decode_shape(v)
        elif num == 4:
            content = v
        elif num == 8:
            strings.append(bytes(v))
    n = int(np.prod(shape)) if shape else 1
    if dtype == DT_STRING and content is not None:   # AsProtoTensorContent's string list
        c, i, sizes = bytes(content), 0, []
        for _ in range(n):
            v, i = read_varint(c, i)
            sizes.append(v)
        if sum(sizes) != len(c) - i:
            raise FormatError("string list sizes")
        for size in sizes:
            strings.append(c[i:i + size])
            i += size
    if dtype == DT_STRING:
        if len(strings) != n:
            raise FormatError(f"{len(strings)} strings for shape {shape}")
        return dtype, np.array(strings, dtype=object).reshape(shape)
    if dtype == DT_VARIANT:   # ("variant", shape, [(type_name, [(dtype, array)])])
        return dtype, ("variant", shape, decode_variant(bytes(content or b""), shape))
    if dtype not in NP:
        raise FormatError(f"dtype {dtype}")
    if content is None and n:   # AsProtoField form
        data = decode_field_values(dtype, fs, n)
        if data.size != n:
            raise FormatError(f"{data.size} values for shape {shape}")
        return dtype, data.reshape(shape)
    data = np.frombuffer(content or b"", dtype=NP[dtype])
    if data.size != n:
        raise FormatError(f"{data.size} values for shape {shape}")
    return dtype, data.reshape(shape)


# ---- StructuredValue (element specs): ("spec", shape, dtype, name) / ("tuple"|"list", [..]) / ("dict", {..}) / None
def encode_spec(s):
    if s is None:
        return fb(1, b"")
    kind = s[0]
    if kind == "spec":
        _, shape, dtype, name = s
        return fb(33, (fb(1, name.encode()) if name else b"") + fb(2, encode_shape(shape)) + fv(3, dtype))
    if kind in ("ragged", "sparse"):   # a TypeSpecProto: class, the _serialize() tuple, name, component count
        state = [fb(31, encode_shape(s[1])), fv(32, s[2])]
        if kind == "ragged":
            state += [fv(12, zigzag(s[3])), fv(32, s[4])]
        state = fb(52, b"".join(fb(1, x) for x in state))
        name = "RaggedTensorSpec" if kind == "ragged" else "SparseTensorSpec"
        return fb(34, fv(1, 3 if kind == "ragged" else 1) + fb(2, state) + fb(3, name.encode()) +
                  fv(4, 1 + s[3] if kind == "ragged" else 3))
    if kind in ("tuple", "list"):
        return fb(52 if kind == "tuple" else 51, b"".join(fb(1, encode_spec(c)) for c in s[1]))
    if kind == "dict":
        return fb(53, b"".join(fb(1, fb(1, k.encode()) + fb(2, encode_spec(v))) for k, v in s[1].items()))
    raise ValueError(kind)


def decode_spec(b):
    (num, _, v), = fields(b)
    if num == 1:
        return None
    if num == 33:
        name, shape, dtype = "", [], 0
        for n2, _, v2 in fields(v):
            if n2 == 1:
                name = v2.decode()
            elif n2 == 2:
                shape = decode_shape(v2)
            elif n2 == 3:
                dtype = v2
        return ("spec", shape, dtype, name)
    if num == 34:
        cls, state, name, count = 0, b"", "", 0
        for n2, _, v2 in fields(v):
            if n2 == 1:
                cls = v2
            elif n2 == 2:
                state = v2
            elif n2 == 3:
                name = v2.decode()
            elif n2 == 4:
                count = v2
        (sn, _, tup), = fields(state)
        vals = [fields(c)[0] for n3, _, c in fields(tup) if n3 == 1]
        if sn != 52 or vals[0][0] != 31 or vals[1][0] != 32:
            raise FormatError("type_state")
        if cls == 3 and name == "RaggedTensorSpec" and len(vals) == 4 and count == 1 + unzigzag(vals[2][2]):
            return ("ragged", decode_shape(vals[0][2]), vals[1][2], unzigzag(vals[2][2]), vals[3][2])
        if cls == 1 and name == "SparseTensorSpec" and len(vals) == 2 and count == 3:
            return ("sparse", decode_shape(vals[0][2]), vals[1][2])
        raise FormatError(f"TypeSpecProto {cls} {name} {count}")
    if num in (51, 52):
        return ("tuple" if num == 52 else "list", [decode_spec(c) for n2, _, c in fields(v) if n2 == 1])
    if num == 53:
        d = {}
        for _, _, entry in fields(v):
            k, val = "", b""
            for n2, _, v2 in fields(entry):
                if n2 == 1:
                    k = v2.decode()
                elif n2 == 2:
                    val = v2
            d[k] = decode_spec(val)
        return ("dict", d)
    raise FormatError(f"StructuredValue field {num}")


def flat_specs(s):
    """The leaves in tf.nest order (dict keys sorted)."""
    if s is None:
        return []
    if s[0] in ("spec", "ragged", "sparse"):
        return [s]
    if s[0] == "dict":
        return [x for k in sorted(s[1]) for x in flat_specs(s[1][k])]
    return [x for c in s[1] for x in flat_specs(c)]


# ---- SnapshotMetadataRecord ----
def encode_meta(run_id, dtypes, num_elements, finalized, version=2, graph_hash="", timestamp=1700000000000000):
    out = b""
    if graph_hash:
        out += fb(1, graph_hash.encode())
    out += fb(2, run_id.encode()) + fv(3, timestamp) + fv(4, version)
    if dtypes:
        out += fb(5, packed(dtypes))
    out += fv(6, num_elements)
    if finalized:
        out += fv(1000, 1)
    return out


def decode_meta(b):
    m = {"graph_hash": "", "run_id": "", "creation_timestamp": 0, "version": 0, "dtype": [], "num_elements": 0,
         "finalized": False}
    for num, wt, v in fields(b):
        if num == 1:
            m["graph_hash"] = v.decode()
        elif num == 2:
            m["run_id"] = v.decode()
        elif num == 3:
            m["creation_timestamp"] = v
        elif num == 4:
            m["version"] = v
        elif num == 5:
            m["dtype"] += unpack_varints(v) if wt == 2 else [v]
        elif num == 6:
            m["num_elements"] = v
        elif num == 1000:
            m["finalized"] = bool(v)
    return m


# ---- TFRecord files ----
def frame(data):
    n = struct.pack("<Q", len(data))
    return n + struct.pack("<I", mask(crc32c(n))) + data + struct.pack("<I", mask(crc32c(data)))


def records(raw):
    """The records of an uncompressed TFRecord stream; FormatError on a bad length or data CRC."""
    out, i = [], 0
    while i < len(raw):
        if i + 12 > len(raw):
            raise FormatError("truncated header")
        n = raw[i:i + 8]
        if struct.unpack("<I", raw[i + 8:i + 12])[0] != mask(crc32c(n)):
            raise FormatError(f"length CRC at {i}")
        size = struct.unpack("<Q", n)[0]
        data = raw[i + 12:i + 12 + size]
        crc = raw[i + 12 + size:i + 16 + size]
        if len(data) != size or len(crc) != 4 or struct.unpack("<I", crc)[0] != mask(crc32c(data)):
            raise FormatError(f"data CRC at {i}")
        out.append(data)
        i += 16 + size
    return out


SNAPPY_INPUT = 256 << 10   # SnappyCompressionOptions' input_buffer_size


def snappy_blocks(raw):
    """The framed record stream raw as TF's RecordWriter writes it with SNAPPY: each part (12-byte header,
    data, 4-byte footer) goes to a 256 KiB buffer that is compressed as one block when the next part does not
    fit; a part larger than the buffer is a block of its own; the rest is the last block."""
    parts, i = [], 0
    while i < len(raw):
        n = struct.unpack("<Q", raw[i:i + 8])[0]
        parts += [raw[i:i + 12], raw[i + 12:i + 12 + n], raw[i + 12 + n:i + 16 + n]]
        i += 16 + n
    blocks, buf = [], b""
    for part in parts:
        if len(buf) + len(part) > SNAPPY_INPUT:
            if buf:
                blocks.append(buf)
            buf = b""
            if len(part) > SNAPPY_INPUT:
                blocks.append(part)
                continue
        buf += part
    if buf:
        blocks.append(buf)
    out = b""
    for b in blocks:
        c = snappy.compress(b)
        out += struct.pack(">I", len(c)) + c
    return out


def snappy_unblocks(raw):
    """The record stream of a SNAPPY file; FormatError on a cut block."""
    out, i = [], 0
    while i < len(raw):
        if i + 4 > len(raw):
            raise FormatError(f"cut block length at {i}")
        n = struct.unpack(">I", raw[i:i + 4])[0]
        if i + 4 + n > len(raw):
            raise FormatError(f"cut block at {i}")
        out.append(snappy.uncompress(raw[i + 4:i + 4 + n]))
        i += 4 + n
    return b"".join(out)


def compress(raw, comp):
    if comp == "GZIP":
        return gzip.compress(raw)
    if comp == "ZLIB":
        return zlib.compress(raw)
    if comp == "SNAPPY":
        return snappy_blocks(raw)
    return raw


def decompress(raw, comp):
    if comp == "GZIP":
        return gzip.decompress(raw)
    if comp == "ZLIB":
        return zlib.decompress(raw)
    if comp == "SNAPPY":
        return snappy_unblocks(raw)
    return raw


# ---- whole directories ----
def read_dir(path, comp=""):
    """(spec tree or None, metadata, {shard name: [element as list of (dtype, array)]})."""
    spec = None
    if os.path.exists(os.path.join(path, "dataset_spec.pb")):
        with open(os.path.join(path, "dataset_spec.pb"), "rb") as f:
            spec = decode_spec(f.read())
    with open(os.path.join(path, "snapshot.metadata"), "rb") as f:
        meta = decode_meta(f.read())
    k = len(meta["dtype"])
    run = os.path.join(path, meta["run_id"])
    shards = {}
    for name in sorted(os.listdir(run)):
        if not name.endswith(".shard"):
            continue
        elems, i = [], 0
        while os.path.exists(os.path.join(run, name, f"{i:08d}.snapshot")):
            with open(os.path.join(run, name, f"{i:08d}.snapshot"), "rb") as f:
                recs = records(decompress(f.read(), comp))
            if len(recs) % k:
                raise FormatError(f"{len(recs)} records for {k} components")
            ts = [decode_tensor(r) for r in recs]
            elems += [ts[j:j + k] for j in range(0, len(ts), k)]
            i += 1
        shards[name] = elems
    return spec, meta, shards


def write_dir(path, spec, shards, comp="", run_id="1234567890123456789"):
    """A saved dataset by TF's layout: shards {index: [element as list of (dtype, array)]}."""
    os.makedirs(os.path.join(path, run_id), exist_ok=True)
    with open(os.path.join(path, "dataset_spec.pb"), "wb") as f:
        f.write(encode_spec(spec))
    dtypes = [flat_dtype(s) for s in flat_specs(spec)]
    count = 0
    for idx, elems in shards.items():
        d = os.path.join(path, run_id, f"{idx:08d}.shard")
        os.makedirs(d, exist_ok=True)
        raw = b"".join(frame(encode_tensor(a, dt)) for e in elems for dt, a in e)
        with open(os.path.join(d, "00000000.snapshot"), "wb") as f:
            f.write(compress(raw, comp))
        count += len(elems)
    with open(os.path.join(path, "snapshot.metadata"), "wb") as f:
        f.write(encode_meta(run_id, dtypes, count, True))
