#!/usr/bin/python3
# tfckpt.py — an independent reader and writer of TF's checkpoint files, written from the format's documentation for the tests.
"""TF checkpoints (tensor bundles), from the documentation, not from tfs's code.

PREFIX.index is a table in LevelDB's SSTable layout (leveldb doc/table_format.md):
    [data block 1] ... [data block N] [meta-index block] [index block] [footer]
A block is a sequence of entries (varint32 shared, varint32 non_shared,
varint32 value_length, key delta, value), then the restart offsets (fixed32
each) and their count (fixed32).  Every block is followed by a 5-byte trailer:
the compression type (0: none) and the masked CRC-32C of the block contents
plus that type byte.  The footer (48 bytes) holds the meta-index and index
BlockHandles (varint64 offset, varint64 size) padded to 40 bytes, then the
magic 0xdb4775248b80fb57 (fixed64).  TF writes tables uncompressed with
256 KiB blocks, a restart point every 16 keys in data blocks and every key
in the index block, and index keys that are LevelDB's shortest separators.

The table maps the empty key to a BundleHeaderProto and each tensor name to a
BundleEntryProto (tensorflow/core/protobuf/tensor_bundle.proto): dtype = 1,
shape = 2, shard_id = 3, offset = 4, size = 5, crc32c = 6 (fixed32, masked).
PREFIX.data-00000-of-00001 holds the tensors' bytes: numbers little-endian,
strings as varint64 lengths, a masked CRC-32C of the lengths (each as a
little-endian uint32), then the bytes.  The object graph is the string scalar
under _CHECKPOINTABLE_OBJECT_GRAPH, a TrackableObjectGraph message.

CRC-32C comes from Debian's python3-crcmod ('crc-32c'); the mask is
((crc >> 15) | (crc << 17)) + 0xa282ead8 (mod 2^32).
"""
import struct

import crcmod.predefined
import numpy as np

_crc = crcmod.predefined.mkCrcFun("crc-32c")
MAGIC = 0xdb4775248b80fb57
BLOCK_SIZE = 262144
RESTART_INTERVAL = 16
GRAPH_KEY = b"_CHECKPOINTABLE_OBJECT_GRAPH"

# DataType numbers (tensorflow/core/framework/types.proto) and numpy equivalents
# tensorflow/core/framework/types.proto's DataType numbers; DT_BFLOAT16's bytes are the top halves of float32s
DTYPES = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8, 8: np.complex64,
          9: np.int64, 10: np.bool_, 17: np.uint16, 18: np.complex128, 19: np.float16, 22: np.uint32, 23: np.uint64}
DT_BFLOAT16 = 14
DT_STRING = 7


def crc32c(data):
    return _crc(bytes(data))


def mask(crc):
    return (((crc >> 15) | (crc << 17)) + 0xa282ead8) & 0xffffffff


def unmask(m):
    rot = (m - 0xa282ead8) & 0xffffffff
    return ((rot >> 17) | (rot << 15)) & 0xffffffff


class FormatError(Exception):
    pass


# ---- varints and protocol buffers -----------------------------------------------------------

def put_varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def get_varint(buf, at):
    v = shift = 0
    while True:
        if at >= len(buf) or shift > 63:
            raise FormatError("bad varint")
        b = buf[at]
        at += 1
        v |= (b & 0x7f) << shift
        if not b & 0x80:
            return v, at
        shift += 7


def pb_fields(buf):
    """A message's fields: list of (number, wire type, value) in file order."""
    out, at = [], 0
    while at < len(buf):
        tag, at = get_varint(buf, at)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            v, at = get_varint(buf, at)
        elif wt == 1:
            v, at = buf[at:at + 8], at + 8
        elif wt == 2:
            n, at = get_varint(buf, at)
            v, at = bytes(buf[at:at + n]), at + n
        elif wt == 5:
            v, at = struct.unpack("<I", buf[at:at + 4])[0], at + 4
        else:
            raise FormatError("wire type %d" % wt)
        out.append((num, wt, v))
    if at != len(buf):
        raise FormatError("truncated message")
    return out


def pb_field(num, value, wt):
    if wt == 0:
        return put_varint(num << 3) + put_varint(value & 0xffffffffffffffff)
    if wt == 2:
        return put_varint(num << 3 | 2) + put_varint(len(value)) + value
    if wt == 5:
        return put_varint(num << 3 | 5) + struct.pack("<I", value)
    raise ValueError(wt)


def decode_entry(buf):
    e = {"dtype": 0, "shape": [], "shard_id": 0, "offset": 0, "size": 0, "crc32c": 0}
    for num, _, v in pb_fields(buf):
        if num == 1:
            e["dtype"] = v
        elif num == 2:
            for dn, _, dv in pb_fields(v):
                if dn == 2:
                    size = [x for n, _, x in pb_fields(dv) if n == 1]
                    e["shape"].append(size[0] if size else 0)
        elif num == 3:
            e["shard_id"] = v
        elif num == 4:
            e["offset"] = v
        elif num == 5:
            e["size"] = v
        elif num == 6:
            e["crc32c"] = v
    return e


def encode_shape(shape):
    return b"".join(pb_field(2, pb_field(1, d, 0) if d else b"", 2) for d in shape)


def encode_entry(e):
    """proto3 encoding in field order, zero scalars left out (as every protobuf library writes it)."""
    out = b""
    if e["dtype"]:
        out += pb_field(1, e["dtype"], 0)
    out += pb_field(2, encode_shape(e["shape"]), 2)
    for num, name in ((3, "shard_id"), (4, "offset"), (5, "size")):
        if e[name]:
            out += pb_field(num, e[name], 0)
    if e["crc32c"]:
        out += pb_field(6, e["crc32c"], 5)
    return out


def encode_header(shards=1):
    # num_shards, endianness LITTLE (0, left out), version {producer: 1}
    return pb_field(1, shards, 0) + pb_field(3, pb_field(1, 1, 0), 2)


def decode_graph(buf):
    """TrackableObjectGraph: list of nodes, each {'children': [(id, name)], 'attributes': [(name, full, key)]}."""
    nodes = []
    for num, _, v in pb_fields(buf):
        if num != 1:
            continue
        node = {"children": [], "attributes": [], "has_values": None}
        for n, _, x in pb_fields(v):
            if n == 1:
                f = dict((k, y) for k, _, y in pb_fields(x))
                node["children"].append((f.get(1, 0), f.get(2, b"").decode()))
            elif n == 2:
                f = dict((k, y) for k, _, y in pb_fields(x))
                node["attributes"].append((f.get(1, b"").decode(), f.get(2, b"").decode(), f.get(3, b"").decode()))
            elif n == 5:
                node["has_values"] = bool(dict((k, y) for k, _, y in pb_fields(x)).get(1, 0))
        nodes.append(node)
    return nodes


def encode_graph(nodes):
    out = b""
    for node in nodes:
        body = b""
        for nid, name in node["children"]:
            body += pb_field(1, (pb_field(1, nid, 0) if nid else b"") + pb_field(2, name.encode(), 2), 2)
        for name, full, key in node["attributes"]:
            body += pb_field(2, pb_field(1, name.encode(), 2) + pb_field(2, full.encode(), 2) + pb_field(3, key.encode(), 2), 2)
        if node.get("has_values") is not None:
            body += pb_field(5, pb_field(1, 1, 0) if node["has_values"] else b"", 2)
        out += pb_field(1, body, 2)
    return out


# ---- the table -------------------------------------------------------------------------------

def read_block(f, off, size):
    if off + size + 5 > len(f):
        raise FormatError("truncated block read")
    contents, btype = f[off:off + size], f[off + size]
    stored = struct.unpack("<I", f[off + size + 1:off + size + 5])[0]
    if mask(crc32c(f[off:off + size + 1])) != stored:
        raise FormatError("block checksum mismatch")
    if btype != 0:
        raise FormatError("compressed block (type %d)" % btype)
    return contents


def parse_block(b):
    nrest = struct.unpack("<I", b[-4:])[0]
    end = len(b) - 4 - 4 * nrest
    restarts = [struct.unpack("<I", b[end + 4 * i:end + 4 * i + 4])[0] for i in range(nrest)]
    entries, at, key = [], 0, b""
    while at < end:
        start = at
        shared, at = get_varint(b, at)
        nonshared, at = get_varint(b, at)
        vlen, at = get_varint(b, at)
        if start in restarts and shared:
            raise FormatError("a restart point that shares a prefix")
        key = key[:shared] + bytes(b[at:at + nonshared])
        at += nonshared
        entries.append((key, bytes(b[at:at + vlen])))
        at += vlen
    return entries, restarts


def read_table(f):
    """Every (key, value) of the table, checking every CRC; also the block layout for the tests."""
    if len(f) < 48 or struct.unpack("<Q", f[-8:])[0] != MAGIC:
        raise FormatError("bad magic")
    foot, at = f[-48:-8], 0
    moff, at = get_varint(foot, at)
    msize, at = get_varint(foot, at)
    ioff, at = get_varint(foot, at)
    isize, at = get_varint(foot, at)
    if any(foot[at:]):
        raise FormatError("footer padding is not zero")
    meta, _ = parse_block(read_block(f, moff, msize))
    index, _ = parse_block(read_block(f, ioff, isize))
    out, blocks = [], []
    for sep, handle in index:
        off, a = get_varint(handle, 0)
        size, a = get_varint(handle, a)
        entries, restarts = parse_block(read_block(f, off, size))
        if entries and not (entries[-1][0] <= sep):
            raise FormatError("index key sorts before its block's last key")
        blocks.append((off, size, len(entries), restarts))
        out.extend(entries)
    keys = [k for k, _ in out]
    if keys != sorted(set(keys)):
        raise FormatError("keys not strictly increasing")
    return out, {"meta": meta, "index": index, "blocks": blocks}


def _separator(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    if n < min(len(a), len(b)) and a[n] < 0xff and a[n] + 1 < b[n]:
        return a[:n] + bytes([a[n] + 1])
    return a


def _successor(a):
    for i, c in enumerate(a):
        if c != 0xff:
            return a[:i] + bytes([c + 1])
    return a


class _Block:
    def __init__(self, interval):
        self.buf, self.restarts, self.count, self.last, self.interval = bytearray(), [], 0, b"", interval

    def add(self, key, value):
        shared = 0
        if not self.restarts or self.count >= self.interval:
            self.restarts.append(len(self.buf))
            self.count = 0
        else:
            while shared < min(len(key), len(self.last)) and key[shared] == self.last[shared]:
                shared += 1
        self.buf += put_varint(shared) + put_varint(len(key) - shared) + put_varint(len(value)) + key[shared:] + value
        self.last, self.count = key, self.count + 1

    def size(self):
        return len(self.buf) + 4 * (len(self.restarts) + 1) + 4

    def finish(self):
        rs = self.restarts or [0]
        return bytes(self.buf) + b"".join(struct.pack("<I", r) for r in rs) + struct.pack("<I", len(rs))


def _emit(out, contents):
    off = len(out)
    out += contents + b"\0" + struct.pack("<I", mask(crc32c(contents + b"\0")))
    return off, len(contents)


def write_table(pairs):
    """The table bytes for sorted (key, value) pairs, as TF's TableBuilder lays them out."""
    out, data, index = bytearray(), _Block(RESTART_INTERVAL), _Block(1)
    pending = None
    for i, (k, v) in enumerate(pairs):
        if pending:
            index.add(_separator(pending[0], k), put_varint(pending[1]) + put_varint(pending[2]))
            pending = None
        data.add(k, v)
        if data.size() >= BLOCK_SIZE:
            off, size = _emit(out, data.finish())
            pending = (k, off, size)
            data = _Block(RESTART_INTERVAL)
    if data.buf:
        off, size = _emit(out, data.finish())
        pending = (pairs[-1][0], off, size)
    if pending:
        index.add(_successor(pending[0]), put_varint(pending[1]) + put_varint(pending[2]))
    moff, msize = _emit(out, _Block(RESTART_INTERVAL).finish())
    ioff, isize = _emit(out, index.finish())
    foot = put_varint(moff) + put_varint(msize) + put_varint(ioff) + put_varint(isize)
    out += foot + b"\0" * (40 - len(foot)) + struct.pack("<Q", MAGIC)
    return bytes(out)


# ---- tensors and bundles ----------------------------------------------------------------------

def string_bytes(items):
    lens = b"".join(put_varint(len(s)) for s in items)
    crc_lens = mask(crc32c(b"".join(struct.pack("<I", len(s)) for s in items)))
    head = lens + struct.pack("<I", crc_lens)
    body = b"".join(items)
    crc = crc32c(b"".join(struct.pack("<I", len(s)) for s in items) + struct.pack("<I", crc_lens) + body)
    return head + body, crc


def read_tensor(data, e):
    raw = data[e["offset"]:e["offset"] + e["size"]]
    if len(raw) != e["size"]:
        raise FormatError("tensor past the end of the data file")
    n = int(np.prod(e["shape"], dtype=np.int64))
    if e["dtype"] == DT_STRING:
        lens, at = [], 0
        for _ in range(n):
            ln, at = get_varint(raw, at)
            lens.append(ln)
        at += 4
        items = []
        for ln in lens:
            items.append(bytes(raw[at:at + ln]))
            at += ln
        body, crc = string_bytes(items)
        if body != bytes(raw):
            raise FormatError("string tensor layout")
        value = np.array(items, dtype=object).reshape(e["shape"])
    elif e["dtype"] == DT_BFLOAT16:
        # numpy has no bfloat16: the value is given as the float32s whose top 16 bits these are
        bits = np.frombuffer(raw, dtype=np.dtype(np.uint16).newbyteorder("<")).astype(np.uint32) << 16
        value = bits.view(np.float32).reshape(e["shape"])
        crc = crc32c(raw)
    else:
        if e["dtype"] not in DTYPES:
            raise FormatError("unknown DataType %d" % e["dtype"])
        dt = np.dtype(DTYPES[e["dtype"]]).newbyteorder("<")
        value = np.frombuffer(raw, dtype=dt).reshape(e["shape"])
        crc = crc32c(raw)
    if mask(crc) != e["crc32c"]:
        raise FormatError("tensor checksum mismatch")
    return value


def read_bundle(prefix):
    """(dict key -> numpy value, dict key -> entry, object graph nodes or None, the raw pairs)."""
    with open(prefix + ".index", "rb") as fh:
        f = fh.read()
    with open(prefix + ".data-00000-of-00001", "rb") as fh:
        data = fh.read()
    pairs, layout = read_table(f)
    if not pairs or pairs[0][0] != b"":
        raise FormatError("no header entry")
    hdr = dict((n, v) for n, _, v in pb_fields(pairs[0][1]))
    if hdr.get(1) != 1 or hdr.get(2, 0) != 0:
        raise FormatError("header: %r" % hdr)
    values, entries = {}, {}
    for k, v in pairs[1:]:
        e = decode_entry(v)
        entries[k.decode()] = e
        values[k.decode()] = read_tensor(data, e)
    graph = None
    if GRAPH_KEY.decode() in values:
        graph = decode_graph(values[GRAPH_KEY.decode()].reshape(())[()])
    return values, entries, graph, pairs, layout


DT_OF = {np.dtype(v): k for k, v in DTYPES.items()}


def write_bundle(prefix, tensors, shards=1):
    """Write PREFIX.index and the data file(s) for a dict key -> numpy array (object arrays of bytes: strings).
    With shards > 1 the tensors are dealt to PREFIX.data-SSSSS-of-NNNNN in key order, as TF's merge of several
    devices' bundles leaves them (each entry's shard_id and offset within its own file)."""
    data, pairs = [bytearray() for _ in range(shards)], []
    for i, key in enumerate(sorted(tensors, key=lambda k: k.encode())):
        a = tensors[key]
        if a.dtype == object:
            raw, crc = string_bytes(list(a.reshape(-1)))
            dt = DT_STRING
        else:
            raw = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes()
            crc, dt = crc32c(raw), DT_OF[a.dtype]
        sh = i % shards
        e = {"dtype": dt, "shape": list(a.shape), "shard_id": sh, "offset": len(data[sh]), "size": len(raw),
             "crc32c": mask(crc)}
        data[sh] += raw
        pairs.append((key.encode(), encode_entry(e)))
    table = write_table([(b"", encode_header(shards))] + pairs)
    for sh in range(shards):
        with open(prefix + ".data-%05d-of-%05d" % (sh, shards), "wb") as fh:
            fh.write(bytes(data[sh]))
    with open(prefix + ".index", "wb") as fh:
        fh.write(table)
