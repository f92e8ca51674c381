/* bytes.c — an immutable byte string (what SerializeToString returns): repr b'...', len, ==, hash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "object/hosttypes.h"
#include "object/object.h"

typedef struct Bytes { Obj hdr; size_t len; unsigned char data[]; } Bytes;

static void bytes_free(Obj *o) { free(o); }

/* Python's repr: printable ASCII as is, \t \n \r \\ \' escaped, others \xNN */
static void bytes_repr(StrBuf *b, Val v) {
  const Bytes *x = (const Bytes *)v.u.o;
  sb_puts(b, "b'");
  for (size_t i = 0; i < x->len; i++) {
    unsigned char c = x->data[i];
    if (c == '\\' || c == '\'') sb_printf(b, "\\%c", c);
    else if (c == '\n') sb_puts(b, "\\n");
    else if (c == '\t') sb_puts(b, "\\t");
    else if (c == '\r') sb_puts(b, "\\r");
    else if (c < 32 || c >= 127) sb_printf(b, "\\x%02x", c);
    else sb_putc(b, (char)c);
  }
  sb_putc(b, '\'');
}

static tfs_i64 bytes_len(Val v) { return (tfs_i64)((const Bytes *)v.u.o)->len; }

static bool bytes_eq(Val a, Val b) {
  if (!val_is(a, &bytes_type) || !val_is(b, &bytes_type)) return false;
  const Bytes *x = (const Bytes *)a.u.o, *y = (const Bytes *)b.u.o;
  return x->len == y->len && !memcmp(x->data, y->data, x->len);
}

static tfs_u64 bytes_hash(Val v) {
  const Bytes *x = (const Bytes *)v.u.o;
  tfs_u64 h = 1469598103934665603ull;
  for (size_t i = 0; i < x->len; i++) h = (h ^ x->data[i]) * 1099511628211ull;
  return h;
}

//! bytes.decode(encoding='utf-8', errors='strict')
//!   The str the bytes encode (UTF-8 or ASCII); UnicodeDecodeError where they are not valid.
static Val bytes_decode_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "decode", .sig = "encoding='utf-8', errors='strict'"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  const Bytes *x = (const Bytes *)self.u.o;
  const char *enc = val_is(a[0], &str_type) ? str_cstr(a[0]) : "utf-8";
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "decode() argument 'encoding' must be str, not %s", val_type_name(a[0]));
  if (!val_is(a[1], &str_type) || strcmp(str_cstr(a[1]), "strict"))
    rt_throw(ERR_NOTIMPL, "bytes.decode: only errors='strict' is supported");
  bool ascii = !strcasecmp(enc, "ascii") || !strcasecmp(enc, "us-ascii");
  if (!ascii && strcasecmp(enc, "utf-8") && strcasecmp(enc, "utf8") && strcasecmp(enc, "utf_8")) {
    char msg[200];
    snprintf(msg, sizeof msg, "unknown encoding: %.150s", enc);
    exc_raise_class(exc_lookup("LookupError", false), ERR_RUNTIME, msg);
  }
  for (size_t i = 0; i < x->len;) {
    const char *why = NULL;
    size_t len = ascii ? (x->data[i] < 0x80 ? 1 : 0) : utf8_seq(x->data + i, x->len - i, &why);
    if (!len) {   /* a truncated sequence at the end is reported whole, as CPython does */
      size_t end = !ascii && !strcmp(why, "unexpected end of data") ? x->len : i + 1;
      exc_unicode_decode_error(ascii ? "ascii" : "utf-8", x->data[i], i, end, ascii ? "ordinal not in range(128)" : why);
    }
    i += len;
  }
  return str_new((const char *)x->data, (tfs_i64)x->len);
}

/* b[i] is an int, b[i:j:k] bytes (Python's indexing and slicing). */
static Val bytes_getitem(Val self, Val key) {
  const Bytes *x = (const Bytes *)self.u.o;
  if (val_is(key, &slice_type)) {
    tfs_i64 start, stop, step, n = slice_indices(key, (tfs_i64)x->len, &start, &stop, &step);
    Bytes *r = obj_new(&bytes_type, sizeof(Bytes) + (size_t)n);
    r->len = (size_t)n;
    for (tfs_i64 k = 0; k < n; k++) r->data[k] = x->data[start + k * step];
    return val_obj(r);
  }
  int64_t i = val_to_index(key, "byte indices");
  if (i < 0) i += (int64_t)x->len;
  if (i < 0 || i >= (int64_t)x->len) rt_throw(ERR_INDEX, "index out of range");
  return val_int(x->data[i]);
}

static Val bytes_getattr(Val self, const char *name) {
  if (!strcmp(name, "decode")) return builtin_new("bytes.decode", bytes_decode_m, self, NULL);
  return val_undef();
}

const Type bytes_type = {.name = "bytes", .free = bytes_free, .repr = bytes_repr, .getattr = bytes_getattr,
                         .getitem = bytes_getitem,
                         .len = bytes_len, .eq = bytes_eq, .hash = bytes_hash};

Val bytes_new(const void *data, size_t n) {
  Bytes *b = obj_new(&bytes_type, sizeof(Bytes) + n);
  b->len = n;
  if (n) memcpy(b->data, data, n);
  return val_obj(b);
}

const void *bytes_data(Val v, size_t *n) {
  const Bytes *x = (const Bytes *)v.u.o;
  *n = x->len;
  return x->data;
}
