/* randmod.c — `_random`: the MT19937 generators under stdlib/random.tfs, seeded and drawn as CPython's _random module. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/sha.h>

#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

enum { MT_N = 624, MT_M = 397 };
typedef struct Mt {
  uint32_t s[MT_N];
  int i;
} Mt;

/* Generators are numbered handles owned by random.Random instances; the
 * table is reachable until exit (a Random's state is small). */
static Mt **rm_gens;
static int64_t rm_n, rm_cap;

static Mt *rm_get(Val h) {
  int64_t i;
  if (!val_as_int(h, &i) || i < 0 || i >= rm_n) rt_throw(ERR_VALUE, "invalid generator handle");
  return rm_gens[i];
}

static void mt_init(Mt *m, uint32_t seed) {
  m->s[0] = seed;
  for (int i = 1; i < MT_N; i++) m->s[i] = 1812433253u * (m->s[i - 1] ^ (m->s[i - 1] >> 30)) + (uint32_t)i;
  m->i = MT_N;
}

/* The reference init_by_array of Matsumoto and Nishimura, which CPython seeds with. */
static void mt_init_array(Mt *m, const uint32_t *key, size_t len) {
  mt_init(m, 19650218u);
  size_t i = 1, j = 0;
  for (size_t k = MT_N > len ? MT_N : len; k; k--) {
    m->s[i] = (m->s[i] ^ ((m->s[i - 1] ^ (m->s[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
    i++;
    j++;
    if (i >= MT_N) {
      m->s[0] = m->s[MT_N - 1];
      i = 1;
    }
    if (j >= len) j = 0;
  }
  for (size_t k = MT_N - 1; k; k--) {
    m->s[i] = (m->s[i] ^ ((m->s[i - 1] ^ (m->s[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
    i++;
    if (i >= MT_N) {
      m->s[0] = m->s[MT_N - 1];
      i = 1;
    }
  }
  m->s[0] = 0x80000000u;
}

static uint32_t mt_next(Mt *m) {
  static const uint32_t mag[2] = {0, 0x9908b0dfu};
  if (m->i >= MT_N) {
    int k;
    uint32_t y;
    for (k = 0; k < MT_N - MT_M; k++) {
      y = (m->s[k] & 0x80000000u) | (m->s[k + 1] & 0x7fffffffu);
      m->s[k] = m->s[k + MT_M] ^ (y >> 1) ^ mag[y & 1];
    }
    for (; k < MT_N - 1; k++) {
      y = (m->s[k] & 0x80000000u) | (m->s[k + 1] & 0x7fffffffu);
      m->s[k] = m->s[k + (MT_M - MT_N)] ^ (y >> 1) ^ mag[y & 1];
    }
    y = (m->s[MT_N - 1] & 0x80000000u) | (m->s[0] & 0x7fffffffu);
    m->s[MT_N - 1] = m->s[MT_M - 1] ^ (y >> 1) ^ mag[y & 1];
    m->i = 0;
  }
  uint32_t y = m->s[m->i++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

/* _random.new(): a fresh generator's handle (seeded by seed() afterwards). */
static Val rm_new(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("_random.new", n, kw);
  if (rm_n == rm_cap) {
    rm_cap = rm_cap ? rm_cap * 2 : 8;
    Mt **g = realloc(rm_gens, (size_t)rm_cap * sizeof *g);
    if (!g) rt_throw(ERR_MEMORY, "out of memory");
    rm_gens = g;
  }
  Mt *m = calloc(1, sizeof *m);
  if (!m) rt_throw(ERR_MEMORY, "out of memory");
  mt_init(m, 5489u);
  rm_gens[rm_n] = m;
  return val_int(rm_n++);
}

/* seed(str or bytes), version 2 as CPython 3.11: the int whose big-endian bytes are the
 * seed's (UTF-8) bytes followed by their SHA-512 digest, then its 32-bit words as for an int. */
static void rm_seed_bytes(Mt *m, Val a) {
  size_t n;
  const unsigned char *src = val_is(a, &str_type) ? (const unsigned char *)str_cstr(a) : bytes_data(a, &n);
  if (val_is(a, &str_type)) n = (size_t)str_len(a);
  unsigned char *buf = malloc(n + SHA512_DIGEST_LENGTH);
  uint32_t *key = malloc(((n + SHA512_DIGEST_LENGTH) / 4 + 1) * sizeof *key);
  if (!buf || !key) {
    free(buf);
    free(key);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  if (n) memcpy(buf, src, n);
  SHA512(buf, n, buf + n);
  size_t total = n + SHA512_DIGEST_LENGTH, len = 0;
  for (size_t end = total; end > 0; end = end >= 4 ? end - 4 : 0) {   /* least significant word first */
    uint32_t w = 0;
    for (size_t b = end >= 4 ? end - 4 : 0; b < end; b++) w = w << 8 | buf[b];
    key[len++] = w;
    if (end < 4) break;
  }
  while (len > 1 && key[len - 1] == 0) len--;   /* the int has no leading zero words */
  mt_init_array(m, key, len);
  free(buf);
  free(key);
}

/* _random.seed(h, a): a an int (its absolute value's 32-bit words, least
 * significant first, as CPython), a float (its hash as an unsigned 64-bit
 * value, as CPython), a str or bytes (rm_seed_bytes), or None (urandom). */
static Val rm_seed(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "seed", .sig = "h, a=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Mt *m = rm_get(a[0]);
  uint32_t key[8];
  size_t len = 0;
  if (a[1].tag == VT_NONE) {
    if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key) {
      FILE *f = fopen("/dev/urandom", "rb");
      size_t got = f ? fread(key, 1, sizeof key, f) : 0;
      if (f) fclose(f);
      if (got != sizeof key)
        for (size_t i = 0; i < 8; i++) key[i] ^= (uint32_t)(uintptr_t)m * 2654435761u + (uint32_t)i;
    }
    len = 8;
  } else if (val_is(a[1], &str_type) || val_is(a[1], &bytes_type)) {
    rm_seed_bytes(m, a[1]);
    return val_none();
  } else {
    uint64_t u;
    int64_t i;
    if (a[1].tag == VT_FLOAT) u = (uint64_t)val_pyhash(a[1]);
    else if (val_as_int(a[1], &i)) u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
    else rt_throw(ERR_TYPE, "The only supported seed types are: None,\nint, float, str, bytes, and bytearray.");
    key[len++] = (uint32_t)u;
    if (u >> 32) key[len++] = (uint32_t)(u >> 32);
  }
  mt_init_array(m, key, len);
  return val_none();
}

/* _random.random(h): 53 random bits as CPython's random_random. */
static Val rm_random(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 1) rt_throw(ERR_TYPE, "_random.random() takes one argument");
  Mt *m = rm_get(args[0]);
  uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
  return val_float((a * 67108864.0 + b) * (1.0 / 9007199254740992.0));
}

/* _random.getrandbits(h, k): k random bits, 32-bit words least significant first. */
static Val rm_getrandbits(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 2) rt_throw(ERR_TYPE, "_random.getrandbits() takes two arguments");
  Mt *m = rm_get(args[0]);
  int64_t k = val_to_index(args[1], NULL);
  if (k < 0) rt_throw(ERR_VALUE, "number of bits must be non-negative");
  if (k > 63) rt_throw(ERR_OVERFLOW, "getrandbits(%lld): tfs's ints have 64 bits", (long long)k);
  if (k <= 32) return val_int(k ? (int64_t)(mt_next(m) >> (32 - k)) : 0);
  uint64_t lo = mt_next(m), hi = mt_next(m) >> (64 - k);
  return val_int((int64_t)(lo | hi << 32));
}

/* _random.getstate(h) / setstate(h, state): the 624 words and the index, as CPython's tuple. */
static Val rm_getstate(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 1) rt_throw(ERR_TYPE, "_random.getstate() takes one argument");
  Mt *m = rm_get(args[0]);
  Val t = tuple_new(MT_N + 1);
  Tuple *tp = (Tuple *)t.u.o;
  for (int i = 0; i < MT_N; i++) tp->items[i] = val_int(m->s[i]);
  tp->items[MT_N] = val_int(m->i);
  return t;
}

static Val rm_setstate(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 2) rt_throw(ERR_TYPE, "_random.setstate() takes two arguments");
  Mt *m = rm_get(args[0]);
  tfs_i64 len;
  const Val *it;
  if (!seq_items(args[1], &len, &it) || len != MT_N + 1) rt_throw(ERR_VALUE, "state vector is the wrong size");
  Mt tmp;
  for (int i = 0; i <= MT_N; i++) {
    int64_t v;
    if (!val_as_int(it[i], &v) || v < 0 || v > 0xffffffffLL) rt_throw(ERR_OVERFLOW, "Python int too large to convert to C unsigned long");
    if (i < MT_N) tmp.s[i] = (uint32_t)v;
    else if (v > MT_N) rt_throw(ERR_VALUE, "invalid state");
    else tmp.i = (int)v;
  }
  *m = tmp;
  return val_none();
}

#define RB(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "_random." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin rm_fns[] = {
  RB("new", rm_new),           RB("seed", rm_seed),         RB("random", rm_random),
  RB("getrandbits", rm_getrandbits), RB("getstate", rm_getstate), RB("setstate", rm_setstate),
};

static Val rm_attr(const char *name) {
  for (size_t i = 0; i < sizeof rm_fns / sizeof rm_fns[0]; i++)
    if (!strcmp(rm_fns[i].name + 8, name)) return val_obj(&rm_fns[i]);
  return val_undef();
}

Val randmod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_random", rm_attr);
  return val_incref(mod);
}
