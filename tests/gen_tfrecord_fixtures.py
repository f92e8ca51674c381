#!/usr/bin/python3
"""gen_tfrecord_fixtures.py — write the compressed TFRecord files the tfrecord_compressed goldens read (tests/programs/data/).

TFRecord framing (length, masked CRC-32C of it, data, masked CRC-32C of the data) is computed here from
the format's definition, then the whole file is compressed with Python's own gzip (mtime 0, so the bytes
are stable) or zlib modules, as tf.io.TFRecordWriter with TFRecordOptions("GZIP"/"ZLIB") writes files.
Standard library only; run with /usr/bin/python3; the outputs are committed.
"""
import gzip
import os
import struct
import zlib

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "data")
os.makedirs(out, exist_ok=True)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


def masked(c):
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame(rec):
    hdr = struct.pack("<Q", len(rec))
    return hdr + struct.pack("<I", masked(crc32c(hdr))) + rec + struct.pack("<I", masked(crc32c(rec)))


records = [b"first record", b"", b"third: " + bytes(range(0, 256, 5)), b"x" * 3000]
plain = b"".join(frame(r) for r in records)
gz = gzip.compress(plain, mtime=0)
zl = zlib.compress(plain, 9)


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


write("records.tfrecord", plain)
write("records_gzip.tfrecord", gz)
write("records_zlib.tfrecord", zl)
# two gzip members one after the other (gzip -d reads both; so does TF's reader)
write("records_gzip2.tfrecord", gzip.compress(frame(b"member one"), mtime=0) + gzip.compress(frame(b"member two"), mtime=0))
# damaged: a byte of the deflate data flipped (zlib's check fails), and a stream cut inside the third record
bad = bytearray(zl)
bad[len(bad) // 2] ^= 0xFF
write("records_zlib_corrupt.tfrecord", bytes(bad))
co = zlib.compressobj(9, zlib.DEFLATED, 31)
cut = co.compress(plain[:len(frame(records[0])) + len(frame(records[1])) + 20]) + co.flush(zlib.Z_SYNC_FLUSH)
write("records_gzip_cut.tfrecord", cut)


# Event files (TFRecords of tensorflow.Event messages) encoded here by hand from the .proto field numbers,
# for tf.compat.v1.train.summary_iterator: a good one, one with a flipped data byte, one cut short.
def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(num, wire, payload):
    key = varint(num << 3 | wire)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def event(wall_time, step=None, file_version=None, values=()):
    e = field(1, 1, struct.pack("<d", wall_time))
    if step is not None:
        e += field(2, 0, varint(step))
    if file_version is not None:
        e += field(3, 2, file_version.encode())
    if values:
        summary = b"".join(field(1, 2, field(1, 2, tag.encode()) + field(2, 5, struct.pack("<f", v))) for tag, v in values)
        e += field(5, 2, summary)
    return e


events = [event(1600000000.5, file_version="brain.Event:2"),
          event(1600000001.25, step=3, values=[("accuracy", 0.75), ("loss", 2.5)]),
          event(1600000002.0, step=4, values=[("loss", 1.25)])]
good = b"".join(frame(e) for e in events)
write("events_python.tfevents", good)
damaged = bytearray(good)
damaged[len(frame(events[0])) + 12 + 5] ^= 0x01   # a data byte of the second event: its CRC no longer matches
write("events_corrupt.tfevents", bytes(damaged))
write("events_truncated.tfevents", good[:-7])
