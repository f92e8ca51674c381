/* pklwrite.c — numpy's pickle (protocol 3) of an object ndarray, for np.save: None, bool, int, float, str, bytes, lists and tuples. */
#include <stdint.h>
#include <string.h>

#include "formats/pklwrite.h"
#include "tensor/tensor.h"

static void put_u32(StrBuf *b, uint32_t n) {
  for (int i = 0; i < 4; i++) sb_putc(b, (char)(n >> 8 * i & 0xff));
}

static void put_int(StrBuf *b, int64_t v) {
  if (v >= 0 && v < 256) { sb_putc(b, 'K'); sb_putc(b, (char)v); return; }                     /* BININT1 */
  if (v >= 0 && v < 65536) { sb_putc(b, 'M'); sb_putc(b, (char)(v & 0xff)); sb_putc(b, (char)(v >> 8)); return; }   /* BININT2 */
  if (v >= INT32_MIN && v <= INT32_MAX) { sb_putc(b, 'J'); put_u32(b, (uint32_t)(int32_t)v); return; }             /* BININT */
  unsigned char bytes[8];   /* LONG1: the fewest little-endian two's-complement bytes */
  int n = 8;
  for (int i = 0; i < 8; i++) bytes[i] = (unsigned char)((uint64_t)v >> 8 * i & 0xff);
  while (n > 1 && ((bytes[n - 1] == 0 && !(bytes[n - 2] & 0x80)) || (bytes[n - 1] == 0xff && (bytes[n - 2] & 0x80)))) n--;
  sb_putc(b, '\x8a');
  sb_putc(b, (char)n);
  for (int i = 0; i < n; i++) sb_putc(b, (char)bytes[i]);
}

static void put_text(StrBuf *b, char op, const char *s, size_t n) {
  sb_putc(b, op);
  put_u32(b, (uint32_t)n);
  for (size_t i = 0; i < n; i++) sb_putc(b, s[i]);
}

static void put_value(StrBuf *b, Val v, int depth, const char *what) {
  if (depth > 200) rt_throw(ERR_VALUE, "%s: an object array's element nests deeper than 200 lists (a list holding itself?)", what);
  if (v.tag == VT_NONE) { sb_putc(b, 'N'); return; }
  if (v.tag == VT_BOOL) { sb_putc(b, v.u.i ? '\x88' : '\x89'); return; }
  if (v.tag == VT_INT) { put_int(b, v.u.i); return; }
  if (v.tag == VT_FLOAT) {   /* BINFLOAT: big-endian IEEE double */
    uint64_t u;
    memcpy(&u, &v.u.f, 8);
    sb_putc(b, 'G');
    for (int i = 7; i >= 0; i--) sb_putc(b, (char)(u >> 8 * i & 0xff));
    return;
  }
  if (val_is(v, &str_type)) { put_text(b, 'X', str_cstr(v), (size_t)((Str *)v.u.o)->len); return; }   /* BINUNICODE */
  if (val_is(v, &bytes_type)) {   /* BINBYTES */
    size_t n;
    const void *d = bytes_data(v, &n);
    put_text(b, 'B', d, n);
    return;
  }
  if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    bool list = val_is(v, &list_type);
    tfs_i64 n = list ? ((List *)v.u.o)->len : ((Tuple *)v.u.o)->len;
    if (!list && !n) { sb_putc(b, ')'); return; }
    if (list) sb_putc(b, ']');
    if (!n) return;
    sb_putc(b, '(');   /* MARK, the items, APPENDS or TUPLE */
    for (tfs_i64 i = 0; i < n; i++) {
      List *l = (List *)v.u.o;   /* a list may change while pickled only through its items' own code: none runs here */
      put_value(b, list ? l->items[i] : ((Tuple *)v.u.o)->items[i], depth + 1, what);
    }
    sb_putc(b, list ? 'e' : 't');
    return;
  }
  rt_throw(ERR_NOTIMPL, "%s: tfs pickles object arrays of None, bool, int, float, str, bytes, list and tuple, not %s",
           what, val_type_name(v));
}

void pkl_dump_objarray(StrBuf *b, Val a, const char *what) {
  const NpObj *o = (const NpObj *)a.u.o;
  static const char head[] = "\x80\x03" "cnumpy.core.multiarray\n_reconstruct\n" "cnumpy\nndarray\n" "K\x00\x85" "C\x01" "b"
                             "\x87R(K\x01";
  for (size_t i = 0; i < sizeof head - 1; i++) sb_putc(b, head[i]);
  sb_putc(b, '(');   /* the shape */
  for (int i = 0; i < o->rank; i++) put_int(b, o->shape[i]);
  sb_putc(b, 't');
  static const char dtype[] = "cnumpy\ndtype\n" "X\x02\x00\x00\x00O8" "\x89\x88\x87R"   /* dtype('O8', False, True) */
                              "(K\x03X\x01\x00\x00\x00|NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tb" "\x89";   /* its state; not Fortran */
  for (size_t i = 0; i < sizeof dtype - 1; i++) sb_putc(b, dtype[i]);
  Val items = npobj_values(a);   /* the elements in C order, as one list */
  int mark = rt_hold_val(items);
  put_value(b, items, 0, what);
  rt_unhold(mark);
  val_decref(items);
  sb_puts(b, "tb.");
}
