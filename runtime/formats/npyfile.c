/* npyfile.c — numpy's .npy array format (read v1-v3, write v1) and .npz archives (zip, stored or deflated via zlib). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/iofile.h"
#include "formats/npyfile.h"
#include "formats/pklread.h"
#include "formats/pklwrite.h"
#include "object/object.h"
#include "tensor/tensor.h"

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const unsigned char *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* ---- .npy ------------------------------------------------------------------------
 * A magic string, a version, a header length and a Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
 * spaces to an aligned length, then the raw elements. */

/* The value text after 'key': in the header dict, or NULL. */
static const char *hdr_value(const char *h, const char *key) {
  char pat[32];
  snprintf(pat, sizeof pat, "'%s'", key);
  const char *p = strstr(h, pat);
  if (!p) return NULL;
  p += strlen(pat);
  while (*p == ' ') p++;
  if (*p != ':') return NULL;
  p++;
  while (*p == ' ') p++;
  return p;
}

/* numpy's dtype string -> our dtype and the file's element size; false when unsupported.
 * Narrow integers we have no dtype for widen to int32 (lossless). */
static bool descr_dtype(const char *d, DType *dt, int *size, bool *swap) {
  char order = d[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') return false;
  *swap = order == '>';
  char kind = d[1];
  int n = atoi(d + 2);
  if (d[2] < '1' || d[2] > '9') return false;
  *size = n;
  if (kind == 'f' && n == 4) *dt = DT_FLOAT32;
  else if (kind == 'f' && n == 8) *dt = DT_FLOAT64;
  else if (kind == 'i' && (n == 1 || n == 2 || n == 4)) *dt = DT_INT32;
  else if (kind == 'i' && n == 8) *dt = DT_INT64;
  else if (kind == 'u' && n == 1) *dt = DT_UINT8;
  else if (kind == 'u' && n == 2) *dt = DT_INT32;
  else if (kind == 'u' && n == 4) *dt = DT_INT64;
  else if (kind == 'b' && n == 1) *dt = DT_BOOL;
  else if (kind == 'U' && n <= (1 << 24)) { *dt = DT_STRING; *size = 4 * n; }   /* numpy's '<U n': n UTF-32 code units */
  else return false;
  return true;
}

/* One element of the file (size bytes, maybe big-endian) stored at dst as dt. */
static void put_elem(void *dst, DType dt, const unsigned char *src, int size, bool swap, char kind) {
  unsigned char b[8];
  for (int i = 0; i < size; i++) b[i] = swap ? src[size - 1 - i] : src[i];
  switch (dt) {
  case DT_FLOAT32: memcpy(dst, b, 4); break;
  case DT_FLOAT64: memcpy(dst, b, 8); break;
  case DT_INT64:
    if (kind == 'u') { uint32_t u; memcpy(&u, b, 4); *(int64_t *)dst = u; }
    else memcpy(dst, b, 8);
    break;
  case DT_INT32:
    if (size == 4) memcpy(dst, b, 4);
    else if (size == 2) { uint16_t u; memcpy(&u, b, 2); *(int32_t *)dst = kind == 'u' ? (int32_t)u : (int32_t)(int16_t)u; }
    else *(int32_t *)dst = (int8_t)b[0];
    break;
  case DT_UINT8: *(uint8_t *)dst = b[0]; break;
  case DT_BOOL: *(bool *)dst = b[0] != 0; break;
  default: break;
  }
}

/* A '<U n' element: n UTF-32 code units (zero-padded) as a UTF-8 Str (owned). */
static Str *utf32_elem(const unsigned char *src, int n, bool swap, const char *where) {
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  for (int i = 0; i < n; i++) {
    const unsigned char *q = src + 4 * i;
    uint32_t c = swap ? (uint32_t)q[3] | (uint32_t)q[2] << 8 | (uint32_t)q[1] << 16 | (uint32_t)q[0] << 24 : rd32(q);
    if (c == 0) break;   /* numpy strips the trailing NULs of its fixed-width text */
    if (c > 0x10FFFF || (c >= 0xD800 && c < 0xE000))
      rt_throw(ERR_VALUE, "%s: invalid code point 0x%x in a '<U%d' element", where, (unsigned)c, n);
    if (c < 0x80) sb_putc(&b, (char)c);
    else if (c < 0x800) { sb_putc(&b, (char)(0xC0 | c >> 6)); sb_putc(&b, (char)(0x80 | (c & 63))); }
    else if (c < 0x10000) {
      sb_putc(&b, (char)(0xE0 | c >> 12)); sb_putc(&b, (char)(0x80 | (c >> 6 & 63))); sb_putc(&b, (char)(0x80 | (c & 63)));
    } else {
      sb_putc(&b, (char)(0xF0 | c >> 18)); sb_putc(&b, (char)(0x80 | (c >> 12 & 63)));
      sb_putc(&b, (char)(0x80 | (c >> 6 & 63))); sb_putc(&b, (char)(0x80 | (c & 63)));
    }
  }
  Val v = str_new(b.data ? b.data : "", (tfs_i64)b.len);
  rt_unhold(mark);
  sb_free(&b);
  return (Str *)v.u.o;
}

/* A .npy header: the element type, order and shape; returns the offset of the elements. */
static tfs_i64 npy_header(const unsigned char *data, tfs_i64 len, const char *where, char descr[16], bool *fortran,
                          int *rank, tfs_i64 *shape) {
  if (len < 10 || memcmp(data, "\x93NUMPY", 6) != 0)
    rt_throw(ERR_INVALID_ARGUMENT, "%s: not a .npy file (no \\x93NUMPY magic string)", where);
  int major = data[6];
  tfs_i64 hlen, hstart;
  if (major == 1) { hlen = rd16(data + 8); hstart = 10; }
  else if ((major == 2 || major == 3) && len >= 12) { hlen = rd32(data + 8); hstart = 12; }
  else rt_throw(ERR_INVALID_ARGUMENT, "%s: unsupported .npy format version %d.%d", where, major, data[7]);
  if (hstart + hlen > len) rt_throw(ERR_INVALID_ARGUMENT, "%s: truncated .npy header", where);
  char hbuf[1024];
  if (hlen >= (tfs_i64)sizeof hbuf) rt_throw(ERR_INVALID_ARGUMENT, "%s: .npy header too long (%lld bytes)", where, (long long)hlen);
  memcpy(hbuf, data + hstart, (size_t)hlen);
  hbuf[hlen] = '\0';
  const char *dv = hdr_value(hbuf, "descr"), *fv = hdr_value(hbuf, "fortran_order"), *sv = hdr_value(hbuf, "shape");
  if (!dv || !fv || !sv || *dv != '\'' || *sv != '(')
    rt_throw(ERR_INVALID_ARGUMENT, "%s: malformed .npy header: %s", where, hbuf);
  size_t dn = strcspn(dv + 1, "'");
  if (dn >= 16) dn = 15;
  memcpy(descr, dv + 1, dn);
  descr[dn] = '\0';
  *fortran = !strncmp(fv, "True", 4);
  tfs_i64 n = 1;
  *rank = 0;
  const char *p = sv + 1;
  for (;;) {
    while (*p == ' ' || *p == ',') p++;
    if (*p == ')') break;
    char *end;
    long long d = strtoll(p, &end, 10);
    if (end == p || d < 0 || *rank == TFS_MAX_RANK)
      rt_throw(ERR_INVALID_ARGUMENT, "%s: bad .npy shape in header: %s", where, hbuf);
    if (d > 0 && n > ((tfs_i64)1 << 40) / d) rt_throw(ERR_INVALID_ARGUMENT, "%s: .npy array too large", where);
    shape[(*rank)++] = d;
    n *= d;
    p = end;
  }
  return hstart + hlen;
}

Tensor *npy_from_raw(const char *descr, bool fortran, int rank, const tfs_i64 *shape, const unsigned char *body,
                     tfs_i64 blen, bool exact, const char *where, int *uwidth) {
  DType dt;
  int esize;
  bool swap;
  if (!descr_dtype(descr, &dt, &esize, &swap))
    rt_throw(ERR_INVALID_ARGUMENT, "%s: unsupported .npy dtype '%s'", where, descr);
  tfs_i64 n = 1;
  for (int k = 0; k < rank; k++) {
    if (shape[k] < 0 || (shape[k] > 0 && n > ((tfs_i64)1 << 40) / shape[k]))
      rt_throw(ERR_INVALID_ARGUMENT, "%s: bad array shape", where);
    n *= shape[k];
  }
  if (n > blen / esize)   /* divided: n * esize may not fit (wide text) */
    rt_throw(ERR_INVALID_ARGUMENT, "%s: truncated .npy data: %lld elements need %llu bytes, the file has %lld",
             where, (long long)n, (unsigned long long)n * (unsigned long long)esize, (long long)blen);
  if (exact && n * esize != blen)   /* ndarray.__setstate__'s check */
    rt_throw(ERR_VALUE, "%s: buffer size does not match array size (%lld elements of %d bytes, %lld bytes given)",
             where, (long long)n, esize, (long long)blen);
  Tensor *t = tensor_new(dt, rank, shape);
  int tmark = rt_hold_val(val_obj(t));   /* a bad code point throws part way */
  char *out = tensor_data(t);
  int osize = dtype_info[dt].size;
  for (tfs_i64 i = 0; i < n; i++) {
    tfs_i64 src = i;
    if (fortran && rank > 1) {
      /* element i in C order sits at the column-major offset of its index */
      tfs_i64 rem = i, off = 0, stride = 1, idx[TFS_MAX_RANK];
      for (int k = rank - 1; k >= 0; k--) { idx[k] = rem % shape[k]; rem /= shape[k]; }
      for (int k = 0; k < rank; k++) { off += idx[k] * stride; stride *= shape[k]; }
      src = off;
    }
    if (dt == DT_STRING) ((Str **)out)[i] = utf32_elem(body + src * esize, esize / 4, swap, where);
    else put_elem(out + i * osize, dt, body + src * esize, esize, swap, descr[1]);
  }
  rt_unhold(tmark);
  if (uwidth) *uwidth = dt == DT_STRING ? esize / 4 : 0;
  return t;
}

Tensor *npy_parse_ex(const unsigned char *data, tfs_i64 len, const char *where, int *uwidth) {
  char descr[16];
  bool fortran;
  int rank;
  tfs_i64 shape[TFS_MAX_RANK];
  tfs_i64 off = npy_header(data, len, where, descr, &fortran, &rank, shape);
  if (uwidth && !strcmp(descr, "|O")) return NULL;   /* an object array: pickled data, the caller's message */
  return npy_from_raw(descr, fortran, rank, shape, data + off, len - off, false, where, uwidth);
}

Val npy_load_object(const unsigned char *data, tfs_i64 len, const char *where, int py2) {
  tfs_i64 off = npy_object_pickle(data, len, where);
  if (off < 0) rt_throw(ERR_INVALID_ARGUMENT, "%s: not an object array", where);
  return pkl_load(data + off, len - off, where, (PklPy2Str)py2, NULL);
}

tfs_i64 npy_object_pickle(const unsigned char *data, tfs_i64 len, const char *where) {
  char descr[16];
  bool fortran;
  int rank;
  tfs_i64 shape[TFS_MAX_RANK];
  tfs_i64 off = npy_header(data, len, where, descr, &fortran, &rank, shape);
  return strcmp(descr, "|O") ? -1 : off;
}

/* A text element as uwidth UTF-32LE code units, zero-padded (cut at the width, as numpy stores text). */
static void utf32_put(char *dst, const Str *e, int uwidth) {
  memset(dst, 0, 4 * (size_t)uwidth);
  const unsigned char *s = e ? (const unsigned char *)e->data : (const unsigned char *)"";
  size_t n = e ? (size_t)e->len : 0, i = 0;
  for (int k = 0; k < uwidth && i < n; k++) {
    size_t m = utf8_seq(s + i, n - i, NULL);
    uint32_t c;
    if (!m) { c = 0xFFFD; m = 1; }   /* a str always holds valid UTF-8; bytes from a tensor might not */
    else if (m == 1) c = s[i];
    else if (m == 2) c = (uint32_t)(s[i] & 31) << 6 | (s[i + 1] & 63);
    else if (m == 3) c = (uint32_t)(s[i] & 15) << 12 | (uint32_t)(s[i + 1] & 63) << 6 | (s[i + 2] & 63);
    else c = (uint32_t)(s[i] & 7) << 18 | (uint32_t)(s[i + 1] & 63) << 12 | (uint32_t)(s[i + 2] & 63) << 6 | (s[i + 3] & 63);
    for (int j = 0; j < 4; j++) dst[4 * k + j] = (char)(c >> 8 * j & 0xff);
    i += m;
  }
}

/* The .npy header dict of descr and shape, padded as numpy pads it (h is initialised here). */
static void npy_header_text(StrBuf *h, const char *descr, int rank, const tfs_i64 *shape) {
  sb_init(h);
  sb_printf(h, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < rank; i++) sb_printf(h, i ? ", %lld" : "%lld", (long long)shape[i]);
  if (rank == 1) sb_putc(h, ',');
  sb_puts(h, "), }");
  /* numpy pads magic + length + header with spaces and a newline to a multiple of 64 */
  size_t total = 10 + h->len + 1;
  size_t pad = (64 - total % 64) % 64;
  for (size_t i = 0; i < pad; i++) sb_putc(h, ' ');
  sb_putc(h, '\n');
}

/* np.save of an object array: the '|O' header, then numpy's pickle of the array. */
char *npy_format_object(Val a, size_t *len) {
  const NpObj *o = (const NpObj *)a.u.o;
  StrBuf h;
  npy_header_text(&h, "|O", o->rank, o->shape);
  StrBuf out;
  sb_init(&out);
  sb_puts(&out, "\x93NUMPY\x01");
  sb_putc(&out, 0);
  sb_putc(&out, (char)(h.len & 0xff));
  sb_putc(&out, (char)(h.len >> 8));
  sb_putn(&out, h.data, h.len);
  sb_free(&h);
  int mark = rt_hold_sb(&out);   /* freed if an element cannot be pickled */
  pkl_dump_objarray(&out, a, "np.save");
  rt_unhold(mark);
  *len = out.len;
  return out.data;
}

char *npy_format_ex(Tensor *t, int uwidth, size_t *len) {
  const char *descr;
  char ubuf[24];
  if (uwidth > 0 && t->dtype == DT_STRING) {
    snprintf(ubuf, sizeof ubuf, "<U%d", uwidth);
    descr = ubuf;
  } else switch (t->dtype) {
  case DT_FLOAT32: descr = "<f4"; break;
  case DT_FLOAT64: descr = "<f8"; break;
  case DT_INT32: descr = "<i4"; break;
  case DT_INT64: descr = "<i8"; break;
  case DT_UINT8: descr = "|u1"; break;
  case DT_BOOL: descr = "|b1"; break;
  default: rt_throw(ERR_INVALID_ARGUMENT, "tf.io.write_npy: %s tensors cannot be written as .npy", dtype_info[t->dtype].name);
  }
  if (t->sym) rt_throw(ERR_TYPE, "tf.io.write_npy needs an eager tensor, not a symbolic one");
  StrBuf h;
  npy_header_text(&h, descr, t->rank, t->shape);
  size_t esz = uwidth > 0 ? 4 * (size_t)uwidth : (size_t)dtype_info[t->dtype].size, nbytes = (size_t)t->size * esz;
  char *buf = malloc(10 + h.len + nbytes + 1);
  if (!buf) { sb_free(&h); rt_throw(ERR_MEMORY, "out of memory"); }
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (char)(h.len & 0xff);
  buf[9] = (char)(h.len >> 8);
  memcpy(buf + 10, h.data, h.len);
  Tensor *c = tensor_contiguous(t);
  if (uwidth > 0)
    for (tfs_i64 i = 0; i < t->size; i++) utf32_put(buf + 10 + h.len + i * esz, ((Str **)tensor_data(c))[i], uwidth);
  else if (nbytes) memcpy(buf + 10 + h.len, tensor_data(c), nbytes);
  tensor_release(c);
  *len = 10 + h.len + nbytes;
  sb_free(&h);
  return buf;
}

Tensor *npy_parse(const unsigned char *data, tfs_i64 len, const char *where) {
  return npy_parse_ex(data, len, where, NULL);
}

char *npy_format(Tensor *t, size_t *len) {
  return npy_format_ex(t, 0, len);
}

/* ---- .npz: a zip archive of NAME.npy members ------------------------------------ */

typedef struct ZipEnt {
  const unsigned char *name;
  int nlen, method;
  uint32_t crc;
  uint64_t csize, usize, off;
} ZipEnt;

/* Read central directory entry at p (bounds checked by the caller for the fixed part). */
static bool zip_entry(const unsigned char *p, const unsigned char *end, ZipEnt *e, const unsigned char **next) {
  if (end - p < 46 || rd32(p) != 0x02014b50) return false;
  e->method = (int)rd16(p + 10);
  e->crc = rd32(p + 16);
  e->csize = rd32(p + 20);
  e->usize = rd32(p + 24);
  e->nlen = (int)rd16(p + 28);
  int xlen = (int)rd16(p + 30), clen = (int)rd16(p + 32);
  e->off = rd32(p + 42);
  e->name = p + 46;
  if (end - p < 46 + e->nlen + xlen + clen) return false;
  /* zip64: the fields stored as 0xffffffff come from extra block 1, in this order */
  const unsigned char *x = p + 46 + e->nlen, *xe = x + xlen;
  while (xe - x >= 4) {
    uint32_t id = rd16(x), sz = rd16(x + 2);
    if (xe - x - 4 < (long)sz) return false;
    if (id == 1) {
      const unsigned char *q = x + 4, *qe = q + sz;
      if (e->usize == 0xffffffffu) { if (qe - q < 8) return false; e->usize = rd64(q); q += 8; }
      if (e->csize == 0xffffffffu) { if (qe - q < 8) return false; e->csize = rd64(q); q += 8; }
      if (e->off == 0xffffffffu) { if (qe - q < 8) return false; e->off = rd64(q); }
    }
    x += 4 + sz;
  }
  *next = p + 46 + e->nlen + xlen + clen;
  return true;
}

/* The member's bytes, inflated when deflated (malloc'd), or NULL when corrupt. */
static unsigned char *zip_member(const unsigned char *data, tfs_i64 len, const ZipEnt *e) {
  if (e->off > (uint64_t)len || (uint64_t)len - e->off < 30 || rd32(data + e->off) != 0x04034b50) return NULL;
  const unsigned char *lh = data + e->off;
  uint64_t start = e->off + 30 + rd16(lh + 26) + rd16(lh + 28);
  if (start > (uint64_t)len || (uint64_t)len - start < e->csize || e->usize > ((uint64_t)1 << 40)) return NULL;
  unsigned char *out = malloc(e->usize ? e->usize : 1);
  if (!out) rt_throw(ERR_MEMORY, "out of memory");
  if (e->method == 0) {
    if (e->csize != e->usize) { free(out); return NULL; }
    memcpy(out, data + start, e->usize);
  } else if (e->method == 8) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK) { free(out); return NULL; }
    z.next_in = (unsigned char *)(data + start);
    z.avail_in = (uInt)e->csize;
    z.next_out = out;
    z.avail_out = (uInt)e->usize;
    int rc = inflate(&z, Z_FINISH);
    bool ok = rc == Z_STREAM_END && z.total_out == e->usize;
    inflateEnd(&z);
    if (!ok) { free(out); return NULL; }
  } else {
    free(out);
    return NULL;
  }
  if (crc32(0, out, (uInt)e->usize) != e->crc) { free(out); return NULL; }
  return out;
}

Val npz_parse(const unsigned char *data, tfs_i64 len, const char *where, bool nd) {
  /* the end-of-central-directory record: the last signature within 64 KiB of the end */
  tfs_i64 eocd = -1;
  for (tfs_i64 i = len - 22; i >= 0 && i >= len - 22 - 65535; i--)
    if (rd32(data + i) == 0x06054b50) { eocd = i; break; }
  if (eocd < 0) rt_throw(ERR_INVALID_ARGUMENT, "%s: not a .npz file (no zip directory)", where);
  uint64_t count = rd16(data + eocd + 10), cdoff = rd32(data + eocd + 16);
  if ((count == 0xffff || cdoff == 0xffffffffu) && eocd >= 20 && rd32(data + eocd - 20) == 0x07064b50) {
    uint64_t z64 = rd64(data + eocd - 20 + 8);
    if (z64 <= (uint64_t)len - 56 && rd32(data + z64) == 0x06064b50) {
      count = rd64(data + z64 + 32);
      cdoff = rd64(data + z64 + 48);
    }
  }
  if (cdoff > (uint64_t)len) rt_throw(ERR_INVALID_ARGUMENT, "%s: corrupt .npz file (bad zip directory)", where);
  Val d = dict_new();
  int mark = rt_hold_val(d);
  const unsigned char *p = data + cdoff, *end = data + len;
  for (uint64_t i = 0; i < count; i++) {
    ZipEnt e;
    if (!zip_entry(p, end, &e, &p)) rt_throw(ERR_INVALID_ARGUMENT, "%s: corrupt .npz file (bad zip directory)", where);
    char name[256];
    int nl = e.nlen < (int)sizeof name - 1 ? e.nlen : (int)sizeof name - 1;
    memcpy(name, e.name, (size_t)nl);
    name[nl] = '\0';
    unsigned char *m = zip_member(data, len, &e);
    if (!m) rt_throw(ERR_INVALID_ARGUMENT, "%s: corrupt .npz member '%s'", where, name);
    int mm = rt_hold_mem(m);
    char what[600];
    snprintf(what, sizeof what, "%s member '%s'", where, name);
    int uw = 0;
    Tensor *t = npy_parse_ex(m, (tfs_i64)e.usize, what, nd ? &uw : NULL);
    if (nl > 4 && !strcmp(name + nl - 4, ".npy")) name[nl - 4] = '\0';
    Val v;
    if (!nd) v = val_obj(t);
    else if (!t) v = bytes_new(m, (size_t)e.usize);   /* an object array: unpickled (or refused) when asked for, as numpy does */
    else if (nd) {   /* ndarrays (text arrays with their width) for np.load */
      v = uw ? ndarray_new_unicode(t, uw, true) : ndarray_new_0d(t);
      tensor_release(t);
    }
    rt_unhold(mm);
    free(m);
    Val k = str_from_cstr(name);
    dict_set(d, k, v);
    TFS_DECREF(k);
    TFS_DECREF(v);
  }
  rt_unhold(mark);
  return d;
}
