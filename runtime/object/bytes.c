/* bytes.c — an immutable byte string (what SerializeToString returns): repr b'...', len, ==, hash. */
#include <stdlib.h>
#include <string.h>

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

const Type bytes_type = {.name = "bytes", .free = bytes_free, .repr = bytes_repr, .len = bytes_len, .eq = bytes_eq,
                         .hash = bytes_hash};

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
