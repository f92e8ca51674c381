#!/usr/bin/python3
# hash_oracle.py — pure-Python FarmHash Fingerprint64 and SipHash-2-4, checked against their published test vectors: the oracle of tf.strings.to_hash_bucket_fast/strong and keras.layers.Hashing.
"""Imported by tests/gen_strings_expect.py, gen_strings_split_expect.py and gen_keras_hashing.py.

fp64 is FarmHash's farmhashna::Hash64, which TF pins as Fingerprint64 (tensorflow/core/platform/fingerprint.h), the
hash of StringToHashBucketFast. siphash24 is SipHash-2-4 with 64-bit output (Aumasson and Bernstein, "SipHash: a fast
short-input PRF", 2012), keyed by two 64-bit words as TF's StrongKeyedHash hands them to highwayhash's SipHashState:
the hash of StringToHashBucketStrong. Both are written from the algorithms' descriptions; check() runs at import.
"""

# ---- FarmHash farmhashna Hash64 (TF's Fingerprint64), on 64-bit wrapping ints ----

M = (1 << 64) - 1
K0, K1, K2 = 0xc3a5c85c97cb3127, 0xb492b66fbe98f273, 0x9ae16a3b2f90404f


def u64(b, i):
    return int.from_bytes(b[i:i + 8], "little")


def u32(b, i):
    return int.from_bytes(b[i:i + 4], "little")


def rot(v, s):
    return v if s == 0 else ((v >> s) | (v << (64 - s))) & M


def smix(v):
    return v ^ (v >> 47)


def h16(u, v, mul):
    a = ((u ^ v) * mul) & M
    a ^= a >> 47
    b = ((v ^ a) * mul) & M
    b ^= b >> 47
    return (b * mul) & M


def fp64(s):
    n = len(s)
    if n <= 16:
        if n >= 8:
            mul = K2 + n * 2
            a = (u64(s, 0) + K2) & M
            b = u64(s, n - 8)
            return h16((rot(b, 37) * mul + a) & M, ((rot(a, 25) + b) * mul) & M, mul)
        if n >= 4:
            return h16(n + (u32(s, 0) << 3), u32(s, n - 4), K2 + n * 2)
        if n > 0:
            y = (s[0] + (s[n >> 1] << 8)) & 0xffffffff
            z = (n + (s[n - 1] << 2)) & 0xffffffff
            return (smix(((y * K2) ^ (z * K0)) & M) * K2) & M
        return K2
    mul = K2 + n * 2
    if n <= 32:
        a, b = (u64(s, 0) * K1) & M, u64(s, 8)
        c, d = (u64(s, n - 8) * mul) & M, (u64(s, n - 16) * K2) & M
        return h16((rot((a + b) & M, 43) + rot(c, 30) + d) & M, (a + rot((b + K2) & M, 18) + c) & M, mul)
    if n <= 64:
        a, b = (u64(s, 0) * K2) & M, u64(s, 8)
        c, d = (u64(s, n - 8) * mul) & M, (u64(s, n - 16) * K2) & M
        y = (rot((a + b) & M, 43) + rot(c, 30) + d) & M
        z = h16(y, (a + rot((b + K2) & M, 18) + c) & M, mul)
        e, f = (u64(s, 16) * mul) & M, u64(s, 24)
        g, h = ((y + u64(s, n - 32)) * mul) & M, ((z + u64(s, n - 24)) * mul) & M
        return h16((rot((e + f) & M, 43) + rot(g, 30) + h) & M, (e + rot((f + a) & M, 18) + g) & M, mul)

    def weak(i, a, b):
        w, x, y, z = u64(s, i), u64(s, i + 8), u64(s, i + 16), u64(s, i + 24)
        a = (a + w) & M
        b = rot((b + a + z) & M, 21)
        c = a
        a = (a + x + y) & M
        b = (b + rot(a, 44)) & M
        return (a + z) & M, (b + c) & M

    seed = 81
    x, y = seed, (seed * K1 + 113) & M
    z = (smix((y * K2 + 113) & M) * K2) & M
    v, w = (0, 0), (0, 0)
    x = (x * K2 + u64(s, 0)) & M
    end = ((n - 1) // 64) * 64
    last = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (rot((x + y + v[0] + u64(s, i + 8)) & M, 37) * K1) & M
        y = (rot((y + v[1] + u64(s, i + 48)) & M, 42) * K1) & M
        x ^= w[1]
        y = (y + v[0] + u64(s, i + 40)) & M
        z = (rot((z + w[0]) & M, 33) * K1) & M
        v = weak(i, (v[1] * K1) & M, (x + w[0]) & M)
        w = weak(i + 32, (z + w[1]) & M, (y + u64(s, i + 16)) & M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = K1 + ((z & 0xff) << 1)
    i = last
    w = ((w[0] + ((n - 1) & 63)) & M, w[1])
    v = ((v[0] + w[0]) & M, v[1])
    w = ((w[0] + v[0]) & M, w[1])
    x = (rot((x + y + v[0] + u64(s, i + 8)) & M, 37) * mul) & M
    y = (rot((y + v[1] + u64(s, i + 48)) & M, 42) * mul) & M
    x ^= (w[1] * 9) & M
    y = (y + v[0] * 9 + u64(s, i + 40)) & M
    z = (rot((z + w[0]) & M, 33) * mul) & M
    v = weak(i, (v[1] * mul) & M, (x + w[0]) & M)
    w = weak(i + 32, (z + w[1]) & M, (y + u64(s, i + 16)) & M)
    z, x = x, z
    return h16((h16(v[0], w[0], mul) + smix(y) * K0 + z) & M, (h16(v[1], w[1], mul) + x) & M, mul)


# ---- SipHash-2-4 (64-bit output): 8-byte little-endian words, 2 rounds per word, the length in the last word's top byte, 4 final rounds ----

def _sipround(v0, v1, v2, v3):
    v0 = (v0 + v1) & M
    v1 = rot(v1, 64 - 13) ^ v0
    v0 = rot(v0, 32)
    v2 = (v2 + v3) & M
    v3 = rot(v3, 64 - 16) ^ v2
    v0 = (v0 + v3) & M
    v3 = rot(v3, 64 - 21) ^ v0
    v2 = (v2 + v1) & M
    v1 = rot(v1, 64 - 17) ^ v2
    v2 = rot(v2, 32)
    return v0, v1, v2, v3


def siphash24(k0, k1, s):
    # k0, k1: the key's two words (TF's `key` attribute, each taken modulo 2**64 as its uint64 memcpy does)
    k0, k1 = k0 & M, k1 & M
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]
    n = len(s)
    tail = s[n - n % 8:] + bytes(7 - n % 8) + bytes([n & 0xff])
    for m in [u64(s, i) for i in range(0, n - n % 8, 8)] + [u64(tail, 0)]:
        v[3] ^= m
        v = list(_sipround(*_sipround(*v)))
        v[0] ^= m
    v[2] ^= 0xff
    for _ in range(4):
        v = list(_sipround(*v))
    return v[0] ^ v[1] ^ v[2] ^ v[3]


# ---- published test vectors ----

# farmhashna::Hash64: TF's tensorflow/core/platform/fingerprint_test.cc (Fingerprint64 IsForeverFrozen), and the
# oh64na column of dgryski/go-farm's farmhash_test.go (generated from Google's C++ FarmHash); one string per length class
FARM_VECTORS = [
    (b"Hello", 15404698994557526151), (b"World", 18308117990299812472),
    (b"", 0x9ae16a3b2f90404f), (b"a", 0xb3454265b6df75e3), (b"abc", 0x24a5b3a074e7f369),
    (b"abcd", 0x1a5502de4a1f8101), (b"abcdefgh", 0xfee9d22990c82909), (b"0123456789'01234", 0x4283d4ef43627f64),
    (b"0123456789=012345", 0x46a7416ed4861e3b), (b"C is as portable as Stonehedge!!", 0xb944f8a16261e414),
    (b"Discard medicine more than two years old.", 0xe8f89ab6df9bdd25),
    (b"Free! Free!/A trip/to Mars/for 900/empty jars/Burma Shave", 0x5d14f96c18fe3d5e),
    (b"For every action there is an equal and opposite government program.", 0x55182f8859eca4ce),
    (b"The fugacity of a constituent in a mixture of gases at a given temperature is proportional to its mole "
     b"fraction.  Lewis-Randall Rule", 0x98eff6958c5e91a),
    ("0123456789%0123456789\u00a3".encode(), 0x4dbd128af51d77e8),
    (b"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore "
     b"magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo "
     b"consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla "
     b"pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id est "
     b"laborum.", 0xc3f02c4ffd5d71e6),
]

# SipHash-2-4: the reference vectors (veorq/SipHash vectors.h, vectors_sip64; the paper's Appendix A for 15 bytes):
# key bytes 00..0f, message bytes 00..len-1
SIP_KEY = (0x0706050403020100, 0x0f0e0d0c0b0a0908)
SIP_VECTORS = [(0, 0x726fdb47dd0e0e31), (1, 0x74f839c593dc67fd), (2, 0x0d6c8009d9a94f5a), (3, 0x85676696d7fb7e2d),
               (4, 0xcf2794e0277187b7), (5, 0x18765564cd99a68d), (8, 0x93f5f5799a932462), (15, 0xa129ca6149be45e5)]

# TF's and Keras 2.15's docstrings (tf.strings.to_hash_bucket_strong; keras.layers.Hashing's examples): bucket lists
DOC_STRONG = [((1, 2), [b"Hello", b"TF"], 3, [2, 0]),
              ((133, 137), [b"A", b"B", b"C", b"D", b"E"], 3, [1, 2, 1, 0, 2]),
              ((133, 133), [b"A", b"B", b"C", b"D", b"E"], 3, [0, 0, 2, 1, 0])]
DOC_FAST = [([b"Hello", b"TensorFlow", b"2.x"], 3, [0, 2, 2]), ([b"A", b"B", b"C", b"D", b"E"], 3, [1, 0, 1, 1, 2]),
            ([b"A", b"B", b"C", b"D"], 2, [0, 0, 1, 1])]   # the mask_value='' example: these + 1


def check():
    for s, want in FARM_VECTORS:
        assert fp64(s) == want, (s, hex(fp64(s)), hex(want))
    for n, want in SIP_VECTORS:
        got = siphash24(*SIP_KEY, bytes(range(n)))
        assert got == want, (n, hex(got), hex(want))
    for key, words, nb, want in DOC_STRONG:
        assert [siphash24(*key, w) % nb for w in words] == want, (key, words)
    for words, nb, want in DOC_FAST:
        assert [fp64(w) % nb for w in words] == want, words


check()
