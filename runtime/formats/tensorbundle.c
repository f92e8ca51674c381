/* tensorbundle.c — TF's checkpoint files: PREFIX.index (a LevelDB-layout table of BundleEntryProtos) and PREFIX.data-00000-of-00001, written atomically and read with every CRC checked.
 *
 * The table is LevelDB's (doc/table_format.md) as TF's BundleWriter makes it:
 * data blocks of prefix-compressed entries with a restart point every 16
 * keys, each followed by a trailer (compression byte 0, masked CRC-32C of
 * contents + that byte); an empty meta-index block; an index block mapping a
 * short separator key per data block to its handle (varint offset, size); a
 * 48-byte footer (the two handles, zero-padded to 40 bytes, then the magic).
 * The empty key holds the BundleHeaderProto; every other key a tensor's
 * BundleEntryProto.  The data file holds the tensors' bytes back to back:
 * numbers little-endian as in memory, strings as TF writes them (varint
 * lengths, a masked CRC of the lengths, then the bytes). */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/atomicfile.h"
#include "formats/iofile.h"
#include "formats/pbutil.h"
#include "formats/tensorbundle.h"
#include "formats/tfrecord.h"
#include "object/object.h"

#define TB_BLOCK_SIZE 262144
#define TB_RESTART_INTERVAL 16
#define TB_MAGIC 0xdb4775248b80fb57ull
#define TB_FOOTER 48

/* ---- little pieces of the encoding ---- */

static void put_varint(StrBuf *b, uint64_t v) {
  while (v >= 0x80) {
    sb_putc(b, (char)(v | 0x80));
    v >>= 7;
  }
  sb_putc(b, (char)v);
}

static void put_fixed(StrBuf *b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) sb_putc(b, (char)(v >> (8 * i)));
}

static uint64_t get_fixed(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* A varint at p[*at..end); false when cut or longer than 10 bytes. */
static bool get_varint(const unsigned char *p, size_t end, size_t *at, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *at < end; shift += 7) {
    unsigned char c = p[(*at)++];
    v |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

/* ---- writing the table ---- */

typedef struct Block {
  StrBuf b;
  uint32_t *restarts;
  int nrestarts, cap, counter;
  char *last;                 /* the last key added (malloc'd) */
  size_t lastlen;
  int interval;
} Block;

static void block_init(Block *k, int interval) {
  memset(k, 0, sizeof *k);
  sb_init(&k->b);
  k->interval = interval;
}

static void block_restart(Block *k) {
  if (k->nrestarts == k->cap) {
    k->cap = k->cap ? 2 * k->cap : 16;
    k->restarts = realloc(k->restarts, sizeof(uint32_t) * (size_t)k->cap);
    if (!k->restarts) rt_throw(ERR_MEMORY, "out of memory");
  }
  k->restarts[k->nrestarts++] = (uint32_t)k->b.len;
  k->counter = 0;
}

static void block_add(Block *k, const char *key, size_t klen, const unsigned char *val, size_t vlen) {
  size_t shared = 0;
  if (k->nrestarts == 0 || k->counter >= k->interval) {
    block_restart(k);
  } else {   /* share the prefix with the previous key */
    size_t m = klen < k->lastlen ? klen : k->lastlen;
    while (shared < m && key[shared] == k->last[shared]) shared++;
  }
  put_varint(&k->b, shared);
  put_varint(&k->b, klen - shared);
  put_varint(&k->b, vlen);
  sb_putn(&k->b, key + shared, klen - shared);
  sb_putn(&k->b, (const char *)val, vlen);
  free(k->last);
  k->last = malloc(klen + 1);
  if (!k->last) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(k->last, key, klen);
  k->lastlen = klen;
  k->counter++;
}

static size_t block_estimate(const Block *k) { return k->b.len + 4 * (size_t)(k->nrestarts + 1) + 4; }

/* Append the finished block and its trailer to out; *off and *size are its handle; the block is reset. */
static void block_flush(Block *k, StrBuf *out, uint64_t *off, uint64_t *size) {
  if (k->nrestarts == 0) block_restart(k);   /* an empty block still lists restart 0 */
  for (int i = 0; i < k->nrestarts; i++) put_fixed(&k->b, k->restarts[i], 4);
  put_fixed(&k->b, (uint64_t)k->nrestarts, 4);
  *off = out->len;
  *size = k->b.len;
  sb_putn(out, k->b.data, k->b.len);
  unsigned char type = 0;   /* kNoCompression */
  uint32_t crc = tfr_crc32c_extend(tfr_crc32c(k->b.data, k->b.len), &type, 1);
  sb_putc(out, (char)type);
  put_fixed(out, tfr_mask(crc), 4);
  int interval = k->interval;
  sb_free(&k->b);
  free(k->restarts);
  free(k->last);
  block_init(k, interval);
}

static void block_free(void *p) {
  Block *k = p;
  sb_free(&k->b);
  free(k->restarts);
  free(k->last);
}

/* LevelDB's bytewise FindShortestSeparator: a short key in [a, b). */
static char *separator(const char *a, size_t alen, const char *b, size_t blen, size_t *len) {
  size_t m = alen < blen ? alen : blen, d = 0;
  while (d < m && a[d] == b[d]) d++;
  char *s = malloc(alen + 1);
  if (!s) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(s, a, alen);
  *len = alen;
  if (d < m) {
    unsigned char c = (unsigned char)a[d];
    if (c < 0xff && c + 1 < (unsigned char)b[d]) {
      s[d] = (char)(c + 1);
      *len = d + 1;
    }
  }
  return s;
}

/* LevelDB's bytewise FindShortSuccessor: a short key >= a. */
static char *successor(const char *a, size_t alen, size_t *len) {
  char *s = malloc(alen + 1);
  if (!s) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(s, a, alen);
  *len = alen;
  for (size_t i = 0; i < alen; i++)
    if ((unsigned char)a[i] != 0xff) {
      s[i] = (char)((unsigned char)a[i] + 1);
      *len = i + 1;
      break;
    }
  return s;
}

static void put_handle(StrBuf *b, uint64_t off, uint64_t size) {
  put_varint(b, off);
  put_varint(b, size);
}

typedef struct TableBuild { Block data, index; StrBuf out; char *sep; } TableBuild;

static void tablebuild_free(void *p) {
  TableBuild *t = p;
  block_free(&t->data);
  block_free(&t->index);
  sb_free(&t->out);
  free(t->sep);
}

static void index_add(TableBuild *t, char *key, size_t klen, uint64_t off, uint64_t size) {
  StrBuf h;
  sb_init(&h);
  put_handle(&h, off, size);
  t->sep = key;
  block_add(&t->index, key, klen, (const unsigned char *)h.data, h.len);
  sb_free(&h);
  free(t->sep);
  t->sep = NULL;
}

unsigned char *tb_table_build(int n, const char *const *keys, const size_t *klens, const unsigned char *const *vals,
                              const size_t *vlens, size_t *len) {
  TableBuild t;
  memset(&t, 0, sizeof t);
  block_init(&t.data, TB_RESTART_INTERVAL);
  block_init(&t.index, 1);
  sb_init(&t.out);
  int mark = rt_hold_fn(tablebuild_free, &t);
  bool pending = false;
  uint64_t poff = 0, psize = 0;
  for (int i = 0; i < n; i++) {
    if (pending) {   /* the previous block's index entry: a separator between its last key and this one */
      size_t sl;
      char *s = separator(keys[i - 1], klens[i - 1], keys[i], klens[i], &sl);
      index_add(&t, s, sl, poff, psize);
      pending = false;
    }
    block_add(&t.data, keys[i], klens[i], vals[i], vlens[i]);
    if (block_estimate(&t.data) >= TB_BLOCK_SIZE) {
      char *last = malloc(klens[i] + 1);
      if (!last) rt_throw(ERR_MEMORY, "out of memory");
      memcpy(last, keys[i], klens[i]);
      block_flush(&t.data, &t.out, &poff, &psize);
      t.data.last = last;   /* kept for the separator */
      t.data.lastlen = klens[i];
      pending = true;
    }
  }
  if (t.data.b.len > 0 || t.data.nrestarts > 0) {
    size_t ll = t.data.lastlen;
    char *last = malloc(ll + 1);
    if (!last) rt_throw(ERR_MEMORY, "out of memory");
    memcpy(last, t.data.last, ll);
    block_flush(&t.data, &t.out, &poff, &psize);
    free(t.data.last);
    t.data.last = last;
    t.data.lastlen = ll;
    pending = true;
  }
  if (pending) {
    size_t sl;
    char *s = successor(t.data.last, t.data.lastlen, &sl);
    index_add(&t, s, sl, poff, psize);
  }
  Block meta;
  block_init(&meta, TB_RESTART_INTERVAL);
  uint64_t moff, msize, ioff, isize;
  block_flush(&meta, &t.out, &moff, &msize);
  block_free(&meta);
  block_flush(&t.index, &t.out, &ioff, &isize);
  size_t fstart = t.out.len;
  put_handle(&t.out, moff, msize);
  put_handle(&t.out, ioff, isize);
  while (t.out.len < fstart + 40) sb_putc(&t.out, 0);
  put_fixed(&t.out, TB_MAGIC, 8);
  rt_unhold(mark);
  *len = t.out.len;
  unsigned char *r = (unsigned char *)sb_steal(&t.out);
  block_free(&t.data);
  block_free(&t.index);
  return r;
}

/* ---- reading the table ---- */

typedef struct Handle { uint64_t off, size; } Handle;

/* The contents of the block at h, its trailer checked. */
static const char *read_block(const unsigned char *file, size_t n, Handle h, const unsigned char **data, size_t *size) {
  if (h.off > n || h.size > n - h.off || n - h.off - h.size < 5) return "truncated block read";
  const unsigned char *p = file + h.off;
  uint32_t stored = (uint32_t)get_fixed(p + h.size + 1, 4);
  uint32_t crc = tfr_crc32c(p, h.size + 1);
  if (tfr_mask(crc) != stored) return "block checksum mismatch";
  if (p[h.size] != 0) return "bad block type";   /* tfs writes and reads uncompressed tables only */
  *data = p;
  *size = h.size;
  return NULL;
}

typedef struct KVList { TbKV *kv; int n, cap; } KVList;

/* Every entry of one block, keys rebuilt from their shared prefixes. */
static const char *parse_block(const unsigned char *p, size_t size, KVList *out) {
  if (size < 4) return "bad block contents";
  uint32_t nr = (uint32_t)get_fixed(p + size - 4, 4);
  if (nr == 0 || (uint64_t)nr * 4 + 4 > size) return "bad block contents";
  size_t end = size - 4 - 4 * (size_t)nr;
  size_t at = 0;
  const char *prev = NULL;
  size_t prevlen = 0;
  while (at < end) {
    uint64_t shared, nonshared, vlen;
    if (!get_varint(p, end, &at, &shared) || !get_varint(p, end, &at, &nonshared) || !get_varint(p, end, &at, &vlen))
      return "bad entry in block";
    if (shared > prevlen || nonshared > end - at || vlen > end - at - nonshared) return "bad entry in block";
    if (out->n == out->cap) {
      out->cap = out->cap ? 2 * out->cap : 16;
      TbKV *kv = realloc(out->kv, sizeof(TbKV) * (size_t)out->cap);
      if (!kv) return "out of memory";
      out->kv = kv;
    }
    TbKV *e = &out->kv[out->n];
    e->klen = (size_t)(shared + nonshared);
    e->key = malloc(e->klen + 1);
    e->val = malloc((size_t)vlen + 1);
    if (!e->key || !e->val) {
      free(e->key);
      free(e->val);
      return "out of memory";
    }
    out->n++;
    if (shared) memcpy(e->key, prev, (size_t)shared);
    memcpy(e->key + shared, p + at, (size_t)nonshared);
    e->key[e->klen] = 0;
    at += (size_t)nonshared;
    memcpy(e->val, p + at, (size_t)vlen);
    e->vlen = (size_t)vlen;
    at += (size_t)vlen;
    prev = e->key;
    prevlen = e->klen;
  }
  return NULL;
}

static bool get_handle(const unsigned char *p, size_t end, size_t *at, Handle *h) {
  return get_varint(p, end, at, &h->off) && get_varint(p, end, at, &h->size);
}

TbKV *tb_table_read(const unsigned char *file, size_t n, int *count, const char **err) {
  *count = 0;
  if (n < TB_FOOTER) {
    *err = "file is too short to be an sstable";
    return NULL;
  }
  const unsigned char *f = file + n - TB_FOOTER;
  if (get_fixed(f + 40, 8) != TB_MAGIC) {
    *err = "not an sstable (bad magic number)";
    return NULL;
  }
  size_t at = 0;
  Handle meta, index;
  if (!get_handle(f, 40, &at, &meta) || !get_handle(f, 40, &at, &index)) {
    *err = "bad block handle";
    return NULL;
  }
  const unsigned char *ib;
  size_t isize;
  KVList idx = {0}, out = {0};
  *err = read_block(file, n - TB_FOOTER, index, &ib, &isize);
  if (!*err) *err = parse_block(ib, isize, &idx);
  for (int i = 0; !*err && i < idx.n; i++) {
    Handle h;
    size_t a = 0;
    const unsigned char *db;
    size_t dsize;
    if (!get_handle(idx.kv[i].val, idx.kv[i].vlen, &a, &h)) *err = "bad block handle";
    if (!*err) *err = read_block(file, n - TB_FOOTER, h, &db, &dsize);
    if (!*err) *err = parse_block(db, dsize, &out);
  }
  for (int i = 1; !*err && i < out.n; i++) {   /* keys must be strictly increasing for lookups to mean anything */
    size_t m = out.kv[i].klen < out.kv[i - 1].klen ? out.kv[i].klen : out.kv[i - 1].klen;
    int c = memcmp(out.kv[i - 1].key, out.kv[i].key, m);
    if (c > 0 || (c == 0 && out.kv[i - 1].klen >= out.kv[i].klen)) *err = "keys out of order";
  }
  tb_kv_free(idx.kv, idx.n);
  if (*err) {
    tb_kv_free(out.kv, out.n);
    return NULL;
  }
  *count = out.n;
  return out.kv;
}

void tb_kv_free(TbKV *kv, int count) {
  for (int i = 0; i < count; i++) {
    free(kv[i].key);
    free(kv[i].val);
  }
  free(kv);
}

/* ---- bundles ---- */

/* PREFIX + suffix, malloc'd. */
static char *with_suffix(const char *prefix, const char *suffix) {
  size_t n = strlen(prefix) + strlen(suffix) + 1;
  char *s = malloc(n);
  if (!s) rt_throw(ERR_MEMORY, "out of memory");
  snprintf(s, n, "%s%s", prefix, suffix);
  return s;
}

#define data_name(prefix) with_suffix(prefix, ".data-00000-of-00001")
#define index_name(prefix) with_suffix(prefix, ".index")

/* One tensor's bytes as TF stores them; *crc is the (unmasked) CRC-32C TF records for them. */
static void tensor_bytes(StrBuf *b, Tensor *t, uint32_t *crc) {
  size_t start = b->len;
  if (t->dtype == DT_STRING) {
    Str **el = t->buf->data;
    uint32_t c = 0;
    for (tfs_i64 i = 0; i < t->size; i++) {
      Str *s = el[tensor_elem_offset(t, i)];
      uint64_t n = s ? (uint64_t)s->len : 0;
      put_varint(b, n);
      if (n <= UINT32_MAX) {   /* the lengths enter the CRC as 4-byte little-endian integers */
        unsigned char le[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16), (unsigned char)(n >> 24)};
        c = tfr_crc32c_extend(c, le, 4);
      } else {
        unsigned char le[8];
        for (int k = 0; k < 8; k++) le[k] = (unsigned char)(n >> (8 * k));
        c = tfr_crc32c_extend(c, le, 8);
      }
    }
    uint32_t lc = tfr_mask(c);
    unsigned char le[4] = {(unsigned char)lc, (unsigned char)(lc >> 8), (unsigned char)(lc >> 16), (unsigned char)(lc >> 24)};
    sb_putn(b, (const char *)le, 4);
    c = tfr_crc32c_extend(c, le, 4);
    for (tfs_i64 i = 0; i < t->size; i++) {
      Str *s = el[tensor_elem_offset(t, i)];
      if (!s) continue;
      sb_putn(b, s->data, (size_t)s->len);
      c = tfr_crc32c_extend(c, s->data, (size_t)s->len);
    }
    *crc = c;
    return;
  }
  Tensor *c = tensor_contiguous(t);
  sb_putn(b, tensor_data(c), (size_t)c->size * dtype_info[c->dtype].size);
  tensor_release(c);
  *crc = tfr_crc32c(b->data + start, b->len - start);
}

/* DataType of a tfs dtype in a bundle (uint8 too, which the graph writers do not map) and back. */
static Tensorflow__DataType tb_dtype(DType dt) {
  return dt == DT_UINT8 ? TENSORFLOW__DATA_TYPE__DT_UINT8 : pb_dtype(dt);
}

static int tb_undtype(Tensorflow__DataType t) { return t == TENSORFLOW__DATA_TYPE__DT_UINT8 ? DT_UINT8 : pb_undtype(t); }

int tb_entry_dtype(const TbReader *r, int i) { return tb_undtype(r->entries[i]->dtype); }

typedef struct Order { const char *key; Tensor *t; } Order;

static int order_cmp(const void *a, const void *b) {
  return strcmp(((const Order *)a)->key, ((const Order *)b)->key);
}

typedef struct BundleBuild { PbArena a; StrBuf data; Order *ord; unsigned char *table; char *dpath, *ipath; } BundleBuild;

static void bundlebuild_free(void *p) {
  BundleBuild *w = p;
  pa_free(&w->a);
  sb_free(&w->data);
  free(w->ord);
  free(w->table);
  free(w->dpath);
  free(w->ipath);
}

static unsigned char *pack_into(PbArena *a, const ProtobufCMessage *m, size_t *n) {
  *n = protobuf_c_message_get_packed_size(m);
  unsigned char *buf = pa_alloc(a, *n + 1);
  protobuf_c_message_pack(m, buf);
  return buf;
}

void tb_write(const char *what, const char *prefix, int n, const char *const *keys, Tensor *const *ts) {
  BundleBuild w;
  memset(&w, 0, sizeof w);
  sb_init(&w.data);
  int mark = rt_hold_fn(bundlebuild_free, &w);
  w.ord = malloc(sizeof(Order) * (size_t)(n ? n : 1));
  if (!w.ord) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < n; i++) {
    if (!*keys[i]) rt_throw(ERR_INVALID_ARGUMENT, "%s: the empty key is the bundle's header", what);
    if (ts[i]->sym) rt_throw(ERR_TYPE, "%s needs eager tensors, not symbolic ones", what);
    if (ts[i]->dtype == DT_VARIANT) rt_throw(ERR_INVALID_ARGUMENT, "%s: variant tensors cannot be saved", what);
    w.ord[i] = (Order){keys[i], ts[i]};
  }
  qsort(w.ord, (size_t)n, sizeof(Order), order_cmp);
  for (int i = 1; i < n; i++)
    if (!strcmp(w.ord[i].key, w.ord[i - 1].key)) rt_throw(ERR_INVALID_ARGUMENT, "Adding duplicate key: %s", w.ord[i].key);
  /* the table's values: header first (the empty key sorts first), then each entry */
  const char **tk = pa_alloc(&w.a, sizeof(char *) * (size_t)(n + 1));
  size_t *tkl = pa_alloc(&w.a, sizeof(size_t) * (size_t)(n + 1));
  const unsigned char **tv = pa_alloc(&w.a, sizeof(char *) * (size_t)(n + 1));
  size_t *tvl = pa_alloc(&w.a, sizeof(size_t) * (size_t)(n + 1));
  Tensorflow__BundleHeaderProto hdr;
  tensorflow__bundle_header_proto__init(&hdr);
  Tensorflow__VersionDef ver;
  tensorflow__version_def__init(&ver);
  ver.producer = 1;   /* kTensorBundleVersion; min_consumer 0 */
  hdr.num_shards = 1;
  hdr.endianness = TENSORFLOW__BUNDLE_HEADER_PROTO__ENDIANNESS__LITTLE;
  hdr.version = &ver;
  tk[0] = "";
  tkl[0] = 0;
  tv[0] = pack_into(&w.a, &hdr.base, &tvl[0]);
  for (int i = 0; i < n; i++) {
    Tensorflow__BundleEntryProto e;
    tensorflow__bundle_entry_proto__init(&e);
    Tensor *t = w.ord[i].t;
    e.dtype = tb_dtype(t->dtype);
    e.shape = pb_shape(&w.a, t->rank, t->shape);
    e.offset = (int64_t)w.data.len;
    uint32_t crc;
    tensor_bytes(&w.data, t, &crc);
    e.size = (int64_t)w.data.len - e.offset;
    e.crc32c = tfr_mask(crc);
    tk[i + 1] = w.ord[i].key;
    tkl[i + 1] = strlen(w.ord[i].key);
    tv[i + 1] = pack_into(&w.a, &e.base, &tvl[i + 1]);
  }
  size_t tlen;
  w.table = tb_table_build(n + 1, tk, tkl, tv, tvl, &tlen);
  w.dpath = data_name(prefix);
  w.ipath = index_name(prefix);
  /* the data first, as TF does: an index never names bytes that are not there yet */
  int e = af_write(w.dpath, w.data.data ? w.data.data : "", w.data.len);
  if (!e) e = af_write(w.ipath, w.table, tlen);
  if (e)
    rt_throw(e == ENOENT ? ERR_NOT_FOUND : ERR_IO, "%s: %s; %s", what, e == ENOENT ? prefix : w.ipath, strerror(e));
  rt_unhold(mark);
  bundlebuild_free(&w);
}

void tb_close(void *p) {
  TbReader *r = p;
  if (!r) return;
  for (int i = 0; i < r->n; i++) {
    free(r->keys[i]);
    if (r->entries[i]) tensorflow__bundle_entry_proto__free_unpacked(r->entries[i], NULL);
  }
  free(r->keys);
  free(r->entries);
  for (int i = 0; i < r->nshards && r->data; i++)
    if (r->data[i] && r->ndata[i]) munmap(r->data[i], (size_t)r->ndata[i]);
  free(r->data);
  free(r->ndata);
  free(r->prefix);
  free(r);
}

TbReader *tb_open(const char *what, const char *prefix) {
  TbReader *r = calloc(1, sizeof *r);
  if (!r) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_fn(tb_close, r);
  r->prefix = strdup(prefix);
  char *ipath = index_name(prefix);
  rt_hold_mem(ipath);
  FILE *f = fopen(ipath, "rb");
  if (!f)
    rt_throw(errno == ENOENT ? ERR_NOT_FOUND : ERR_IO,
             "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for %s", prefix);
  fclose(f);
  tfs_i64 len;
  unsigned char *file = (unsigned char *)io_read_bytes(ipath, what, &len, false);
  rt_hold_mem(file);
  const char *err = NULL;
  int count;
  TbKV *kv = tb_table_read(file, (size_t)len, &count, &err);
  if (!kv)
    rt_throw(ERR_DATA_LOSS, "Unable to open table file %s: Data loss: %s: perhaps your file is in a different file format "
             "and you need to use a different restore operator?", ipath, err);
  r->keys = calloc((size_t)(count ? count : 1), sizeof(char *));
  r->entries = calloc((size_t)(count ? count : 1), sizeof(void *));
  if (!r->keys || !r->entries) {
    tb_kv_free(kv, count);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  bool header = false;
  for (int i = 0; i < count && !err; i++) {
    if (kv[i].klen == 0) {
      Tensorflow__BundleHeaderProto *h = tensorflow__bundle_header_proto__unpack(NULL, kv[i].vlen, kv[i].val);
      if (!h) err = "unable to parse header";
      else if (h->num_shards < 1 || h->num_shards > 100000) err = "a bad number of shards";
      else if (h->endianness != TENSORFLOW__BUNDLE_HEADER_PROTO__ENDIANNESS__LITTLE) err = "a big-endian bundle";
      if (h && !err) r->nshards = h->num_shards;
      if (h) tensorflow__bundle_header_proto__free_unpacked(h, NULL);
      header = true;
      continue;
    }
    if (strlen(kv[i].key) != kv[i].klen) {
      err = "a key holding a NUL byte";
      break;
    }
    Tensorflow__BundleEntryProto *e = tensorflow__bundle_entry_proto__unpack(NULL, kv[i].vlen, kv[i].val);
    if (!e) {
      err = "unable to parse a BundleEntryProto";
      break;
    }
    r->keys[r->n] = kv[i].key;
    kv[i].key = NULL;
    r->entries[r->n++] = e;
  }
  if (!err && !header) err = "failed to seek to header entry";
  tb_kv_free(kv, count);
  if (!err) {
    r->data = calloc((size_t)r->nshards, sizeof *r->data);
    r->ndata = calloc((size_t)r->nshards, sizeof *r->ndata);
    if (!r->data || !r->ndata) rt_throw(ERR_MEMORY, "out of memory");
  }
  if (err)
    rt_throw(ERR_DATA_LOSS, "Unable to read file (%s). Perhaps the file is corrupt or was produced by a newer version of "
             "TensorFlow with format changes (%s)", ipath, err);
  rt_unhold(mark);
  free(file);
  free(ipath);
  return r;
}

int tb_find(const TbReader *r, const char *key) {
  int lo = 0, hi = r->n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, c = strcmp(r->keys[mid], key);
    if (!c) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

Tensor *tb_tensor(TbReader *r, int i, const char *what) {
  const Tensorflow__BundleEntryProto *e = r->entries[i];
  const char *key = r->keys[i];
  int dt = tb_undtype(e->dtype);
  if (dt < 0 || dt == DT_VARIANT)
    rt_throw(ERR_UNIMPLEMENTED, "%s: the checkpoint's tensor %s has a dtype tfs does not have (DataType %d)", what, key,
             (int)e->dtype);
  int rank;
  tfs_i64 shape[TFS_MAX_RANK];
  if (e->n_slices) rt_throw(ERR_UNIMPLEMENTED, "%s: %s is a partitioned tensor, which tfs does not read", what, key);
  if (!e->shape || !pb_unshape(e->shape, &rank, shape) || rank < 0)
    rt_throw(ERR_DATA_LOSS, "Invalid tensor shape: %s", key);
  tfs_i64 nel = 1;
  for (int d = 0; d < rank; d++) {
    if (shape[d] < 0 || (shape[d] && nel > ((tfs_i64)1 << 40) / shape[d])) rt_throw(ERR_DATA_LOSS, "Invalid tensor shape: %s", key);
    nel *= shape[d];
  }
  if (e->shard_id < 0 || e->shard_id >= r->nshards)
    rt_throw(ERR_DATA_LOSS, "%s: %s lies in shard %d of a %d-shard bundle", what, key, (int)e->shard_id, r->nshards);
  int sh = e->shard_id;
  char dname[64];
  snprintf(dname, sizeof dname, ".data-%05d-of-%05d", sh, r->nshards);
  if (!r->data[sh]) {   /* mapped, not read: a restore copies each tensor once, straight from the page cache */
    char *dpath = with_suffix(r->prefix, dname);
    int m = rt_hold_mem(dpath);
    int fd = open(dpath, O_RDONLY);
    if (fd < 0) rt_throw(errno == ENOENT ? ERR_NOT_FOUND : ERR_IO, "%s; %s", dpath, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
      int e = errno;
      close(fd);
      rt_throw(ERR_IO, "%s; %s", dpath, strerror(e));
    }
    void *map = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : (void *)"";
    int e = errno;
    close(fd);
    if (map == MAP_FAILED) rt_throw(ERR_IO, "%s; %s", dpath, strerror(e));
    r->ndata[sh] = (tfs_i64)st.st_size;
    r->data[sh] = map;
    rt_unhold(m);
    free(dpath);
  }
  size_t es = (size_t)dtype_info[dt].size;
  if (dt != DT_STRING && e->size != (int64_t)(es * (size_t)nel))
    rt_throw(ERR_DATA_LOSS, "Invalid size in bundle entry: key %s; stored size %lld; expected size %lld", key,
             (long long)e->size, (long long)(es * (size_t)nel));
  if (dt == DT_STRING && e->size < nel + 4)
    rt_throw(ERR_DATA_LOSS, "Invalid size in bundle entry: key %s; stored size %lld; expected size is at least %lld", key,
             (long long)e->size, (long long)(nel + 4));
  if (e->offset < 0 || e->size < 0 || e->offset > r->ndata[sh] || e->size > r->ndata[sh] - e->offset)
    rt_throw(ERR_OUT_OF_RANGE, "%s: %s lies past the end of %s%s (%lld bytes)", what, key, r->prefix, dname,
             (long long)r->ndata[sh]);
  const unsigned char *p = r->data[sh] + e->offset;
  uint32_t crc = 0;
  Tensor *t = tensor_new((DType)dt, rank, shape);
  int mark = rt_hold_val(tensor_val(t));
  uint64_t *lens = NULL;
  if (dt == DT_STRING) {
    Str **el = t->buf->data;
    for (tfs_i64 k = 0; k < nel; k++) el[k] = NULL;
    size_t at = 0, end = (size_t)e->size;
    lens = calloc((size_t)(nel ? nel : 1), sizeof(uint64_t));
    if (!lens) rt_throw(ERR_MEMORY, "out of memory");
    rt_hold_mem(lens);
    for (tfs_i64 k = 0; k < nel; k++) {
      if (!get_varint(p, end, &at, &lens[k])) rt_throw(ERR_DATA_LOSS, "%s: bad string lengths in %s", what, key);
      unsigned char le[8];
      for (int b = 0; b < 8; b++) le[b] = (unsigned char)(lens[k] >> (8 * b));
      crc = tfr_crc32c_extend(crc, le, lens[k] <= UINT32_MAX ? 4 : 8);
    }
    if (end - at < 4) rt_throw(ERR_DATA_LOSS, "%s: bad string lengths in %s", what, key);
    crc = tfr_crc32c_extend(crc, p + at, 4);
    at += 4;
    for (tfs_i64 k = 0; k < nel; k++) {
      if (lens[k] > end - at) rt_throw(ERR_DATA_LOSS, "%s: bad string lengths in %s", what, key);
      el[k] = (Str *)str_new((const char *)p + at, (tfs_i64)lens[k]).u.o;
      crc = tfr_crc32c_extend(crc, p + at, (size_t)lens[k]);
      at += (size_t)lens[k];
    }
  } else {
    memcpy(t->buf->data, p, (size_t)e->size);
    crc = tfr_crc32c(p, (size_t)e->size);
  }
  uint32_t stored = ((e->crc32c - 0xA282EAD8u) << 15) | ((e->crc32c - 0xA282EAD8u) >> 17);   /* unmask */
  if (stored != crc)
    rt_throw(ERR_DATA_LOSS, "TensorBundle at %s shard %d (%lld bytes): Checksum does not match: stored %08u vs. calculated "
             "on the restored bytes %u", r->prefix, sh, (long long)e->size, stored, crc);
  rt_unhold(mark);
  free(lens);
  return t;
}
