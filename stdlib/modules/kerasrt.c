/* kerasrt.c — `_keras`, the native helpers of the .tfs tf.keras library: terminal detection, warnings, .npz weight files. */
#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "object/atomicfile.h"
#include "formats/gvrender.h"
#include "formats/iofile.h"
#include "modules/tfdata.h"
#include "dist/dist.h"
#include "kernels/ops.h"
#include "graph/graph.h"
#include "modules/modules.h"
#include "modules/tfmod.h"
#include "object/object.h"
#include "tensor/tensor.h"
#include "object/value.h"

/* fit's progress bar redraws in place only on a terminal (Keras' _dynamic_display); under mpirun with
 * N > 1 every rank's stdout is Open MPI's pseudo-terminal, taken as not a terminal (§18.1) */
static Val kr_isatty(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  (void)args;
  if (n || (kw && kw->n)) rt_throw(ERR_TYPE, "_keras.stdout_isatty() takes no arguments");
  return val_bool(isatty(1) == 1 && !dist_launched());
}

/* Keras' logging.warning: "WARNING:tensorflow:message" on stderr (stdout flushed first, so the order holds); a
 * second argument names another logger (the optimizers log through absl: "WARNING:absl:message") */
static Val kr_warn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n < 1 || n > 2 || (kw && kw->n) || !val_is(args[0], &str_type) || (n == 2 && !val_is(args[1], &str_type)))
    rt_throw(ERR_TYPE, "_keras.warn(message, logger='tensorflow') takes one or two strings");
  rt_flush();
  fprintf(stderr, "WARNING:%s:%s\n", n == 2 ? str_cstr(args[1]) : "tensorflow", str_cstr(args[0]));
  fflush(stderr);
  return val_none();
}

/* ---- .npz: a zip of stored (uncompressed) .npy members arr_0.npy, arr_1.npy, ... as np.savez writes -------- */

static void put16(StrBuf *b, unsigned v) {
  sb_putc(b, (char)(v & 0xFF));
  sb_putc(b, (char)((v >> 8) & 0xFF));
}
static void put32(StrBuf *b, uint32_t v) {
  put16(b, v & 0xFFFF);
  put16(b, v >> 16);
}
static unsigned get16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static uint32_t get32(const unsigned char *p) { return get16(p) | (uint32_t)get16(p + 2) << 16; }
static uint64_t get64(const unsigned char *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

static const char *kr_path(Val v, const char *what) {
  if (!val_is(v, &str_type)) rt_throw(ERR_TYPE, "%s: the file path must be a string, not '%s'", what, val_type_name(v));
  return str_cstr(v);
}

static Val kr_save_npz(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 2 || (kw && kw->n)) rt_throw(ERR_TYPE, "_keras.save_npz(path, arrays) takes 2 arguments");
  const char *path = kr_path(args[0], "save_weights");
  if (!val_is(args[1], &list_type)) rt_throw(ERR_TYPE, "save_weights: expected a list of arrays");
  npz_write("save_weights", path, args[1]);
  return val_none();
}

void npz_write(const char *what, const char *path, Val list) { npz_write_ex(what, path, val_undef(), list, false); }

/* Raw deflate of n bytes (zip method 8), malloc'd; *outn its length. */
static unsigned char *deflate_raw(const char *src, size_t n, size_t *outn) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) rt_throw(ERR_MEMORY, "out of memory");
  uLong cap = deflateBound(&z, (uLong)n);
  unsigned char *out = malloc(cap ? cap : 1);
  if (!out) {
    deflateEnd(&z);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  z.next_in = (Bytef *)src;
  z.avail_in = (uInt)n;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  int rc = deflate(&z, Z_FINISH);
  *outn = z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    free(out);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  return out;
}

void npz_write_ex(const char *what, const char *path, Val names, Val list, bool compress) {
  const List *l = (const List *)list.u.o;
  StrBuf zip, dir;
  sb_init(&zip);
  sb_init(&dir);
  int mark = rt_hold_sb(&zip);
  rt_hold_sb(&dir);
  for (tfs_i64 i = 0; i < l->len; i++) {
    Tensor *t = val_as_tensor(l->items[i]);
    bool objects = val_is_npobj(l->items[i]);   /* np.savez pickles an object array's member as np.save does */
    if (!objects && (!t || t->sym)) rt_throw(ERR_TYPE, "%s: weight %lld is not a concrete array", what, (long long)i);
    size_t nlen;
    char *npy = objects ? npy_format_object(l->items[i], &nlen)
                        : npy_format_ex(t, ndarray_uwidth(l->items[i]), &nlen);   /* tf.io.write_npy's writer; text arrays as '<U n' */
    int mm = rt_hold_mem(npy);
    char name[300];
    int nl = val_is_undef(names) ? snprintf(name, sizeof name, "arr_%lld.npy", (long long)i)
                                 : snprintf(name, sizeof name, "%.280s.npy", str_cstr(((const List *)names.u.o)->items[i]));
    uint32_t crc = (uint32_t)crc32(0L, (const Bytef *)npy, (uInt)nlen), off = (uint32_t)zip.len;
    size_t clen = nlen;
    unsigned char *packed = compress ? deflate_raw(npy, nlen, &clen) : NULL;
    if (packed) rt_hold_mem(packed);
    if (zip.len + clen > 0xFFFFFFF0u) rt_throw(ERR_VALUE, "%s: the weights exceed 4 GiB, more than a plain zip holds", what);
    unsigned method = compress ? 8 : 0;
    /* local header: version 2.0, no flags, stored or deflated, no time */
    put32(&zip, 0x04034b50);
    put16(&zip, 20), put16(&zip, 0), put16(&zip, method), put16(&zip, 0), put16(&zip, 0x21);
    put32(&zip, crc), put32(&zip, (uint32_t)clen), put32(&zip, (uint32_t)nlen);
    put16(&zip, (unsigned)nl), put16(&zip, 0);
    sb_putn(&zip, name, (size_t)nl);
    sb_putn(&zip, packed ? (const char *)packed : npy, clen);
    rt_unhold(mm);
    free(npy);
    free(packed);
    put32(&dir, 0x02014b50);
    put16(&dir, 20), put16(&dir, 20), put16(&dir, 0), put16(&dir, method), put16(&dir, 0), put16(&dir, 0x21);
    put32(&dir, crc), put32(&dir, (uint32_t)clen), put32(&dir, (uint32_t)nlen);
    put16(&dir, (unsigned)nl), put16(&dir, 0), put16(&dir, 0), put16(&dir, 0), put16(&dir, 0);
    put32(&dir, 0), put32(&dir, off);
    sb_putn(&dir, name, (size_t)nl);
  }
  uint32_t dir_off = (uint32_t)zip.len;
  sb_putn(&zip, dir.data, dir.len);
  put32(&zip, 0x06054b50);
  put16(&zip, 0), put16(&zip, 0), put16(&zip, (unsigned)l->len), put16(&zip, (unsigned)l->len);
  put32(&zip, (uint32_t)dir.len), put32(&zip, dir_off), put16(&zip, 0);
  int e = af_write(path, zip.data, zip.len);
  rt_unhold(mark);
  sb_free(&zip);
  sb_free(&dir);
  if (e) rt_throw(ERR_IO, "[Errno %d] %s: '%s'", e, strerror(e), path);
}

/* A member .npy of `len` bytes at p -> an ndarray; errors name the file and member. */
static Val kr_parse_npy(const char *what, const unsigned char *p, size_t len, const char *path, const char *member) {
  if (len < 10 || memcmp(p, "\x93NUMPY", 6)) rt_throw(ERR_VALUE, "%s: '%s' in %s is not a .npy array", what, member, path);
  size_t hl = p[6] == 1 ? get16(p + 8) : get32(p + 8), start = p[6] == 1 ? 10 : 12;
  if (start + hl > len) rt_throw(ERR_VALUE, "%s: '%s' in %s is truncated", what, member, path);
  char head[512];
  size_t cpy = hl < sizeof head - 1 ? hl : sizeof head - 1;
  memcpy(head, p + start, cpy);
  head[cpy] = 0;
  static const struct { const char *d; DType dt; } kinds[] = {
    {"'<f4'", DT_FLOAT32}, {"'<f8'", DT_FLOAT64}, {"'<i4'", DT_INT32}, {"'<i8'", DT_INT64}, {"'|b1'", DT_BOOL}};
  int dt = -1;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strstr(head, kinds[i].d)) dt = (int)kinds[i].dt;
  const char *sh = strstr(head, "'shape': (");
  if (dt < 0 || !sh || strstr(head, "'fortran_order': True"))
    rt_throw(ERR_VALUE, "%s: '%s' in %s has an unsupported header %s", what, member, path, head);
  tfs_i64 dims[TFS_MAX_RANK], size = 1;
  int rank = 0;
  const char *q = sh + 10;
  while (*q && *q != ')') {
    char *end;
    long long d = strtoll(q, &end, 10);
    if (end == q || d < 0 || rank == TFS_MAX_RANK) rt_throw(ERR_VALUE, "%s: '%s' in %s has a bad shape", what, member, path);
    dims[rank++] = d;
    size *= d;
    q = end;
    while (*q == ',' || *q == ' ') q++;
  }
  size_t bytes = (size_t)size * (size_t)dtype_info[dt].size;
  if (start + hl + bytes > len) rt_throw(ERR_VALUE, "%s: '%s' in %s is truncated", what, member, path);
  Tensor *t = tensor_new((DType)dt, rank, dims);
  memcpy(tensor_data(t), p + start + hl, bytes);
  Val v = ndarray_new_0d(t);   /* np.load: a 0-d member is a 0-d array */
  val_decref(val_obj(t));
  return v;
}

static Val kr_load_npz(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n)) rt_throw(ERR_TYPE, "_keras.load_npz(path) takes 1 argument");
  return npz_read("load_weights", kr_path(args[0], "load_weights"));
}

Val npz_read(const char *what, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) rt_throw(ERR_IO, "[Errno %d] %s: '%s'", errno, strerror(errno), path);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  char chunk[65536];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) sb_putn(&b, chunk, k);
  fclose(f);
  const unsigned char *z = (const unsigned char *)b.data;
  size_t len = b.len;
  /* the end record: the last signature within its 22 bytes + comment */
  size_t end = 0;
  bool found = false;
  for (size_t i = len >= 22 ? len - 22 : 0; len >= 22; i--) {
    if (get32(z + i) == 0x06054b50) {
      end = i;
      found = true;
      break;
    }
    if (i == 0 || len - i > 22 + 65535) break;
  }
  if (!found) rt_throw(ERR_VALUE, "%s: %s is not an .npz file", what, path);
  unsigned count = get16(z + end + 10);
  size_t pos = get32(z + end + 16);
  Val out = list_new(count);
  rt_hold_val(out);
  for (unsigned i = 0; i < count; i++) {
    if (pos + 46 > len || get32(z + pos) != 0x02014b50) rt_throw(ERR_VALUE, "%s: %s has a damaged directory", what, path);
    unsigned method = get16(z + pos + 10), nl = get16(z + pos + 28), xl = get16(z + pos + 30), cl = get16(z + pos + 32);
    uint64_t size = get32(z + pos + 24), off = get32(z + pos + 42);
    char member[128];
    snprintf(member, sizeof member, "%.*s", (int)(nl < 127 ? nl : 127), (const char *)z + pos + 46);
    /* zip64 extra (numpy writes one): the 0xFFFFFFFF fields, in order size, compressed size, offset */
    for (size_t x = pos + 46 + nl; x + 4 <= pos + 46 + nl + xl && x + 4 <= len;) {
      unsigned id = get16(z + x), sz = get16(z + x + 2);
      const unsigned char *d = z + x + 4;
      if (id == 1) {
        if (get32(z + pos + 24) == 0xFFFFFFFFu && d + 8 <= z + len) size = get64(d), d += 8;
        if (get32(z + pos + 20) == 0xFFFFFFFFu && d + 8 <= z + len) d += 8;
        if (get32(z + pos + 42) == 0xFFFFFFFFu && d + 8 <= z + len) off = get64(d);
      }
      x += 4 + sz;
    }
    if (method != 0) rt_throw(ERR_VALUE, "%s: '%s' in %s is compressed; only stored members (np.savez) are read", what, member, path);
    if (off + 30 > len || get32(z + off) != 0x04034b50) rt_throw(ERR_VALUE, "%s: %s has a damaged member '%s'", what, path, member);
    size_t data = (size_t)off + 30 + get16(z + off + 26) + get16(z + off + 28);
    if (data > len || size > len - data) rt_throw(ERR_VALUE, "%s: '%s' in %s is truncated", what, member, path);
    Val a = kr_parse_npy(what, z + data, (size_t)size, path, member);
    list_append(out, a);
    val_decref(a);
    pos += 46 + nl + xl + cl;
  }
  rt_unhold(mark);
  sb_free(&b);
  return out;
}

/* _keras.render_dot(dot, format, path): the DOT text laid out by Graphviz into path. */
static Val kr_render_dot(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.keras.utils.plot_model", .sig = "dot, format, path"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  for (int i = 0; i < 3; i++)
    if (!val_is(a[i], &str_type)) rt_throw(ERR_TYPE, "tf.keras.utils.plot_model: expected a string, not %s", val_type_name(a[i]));
  size_t len;
  const char *err = NULL;
  char *data = gv_render(str_cstr(a[0]), str_cstr(a[1]), &len, &err);
  if (!data) rt_throw(ERR_VALUE, "tf.keras.utils.plot_model: cannot draw the model as '%s': %s", str_cstr(a[1]), err);
  int e = af_write(str_cstr(a[2]), data, len);
  free(data);
  if (e) rt_throw(e == ENOENT ? ERR_NOT_FOUND : ERR_IO, "tf.keras.utils.plot_model: cannot write '%s': %s", str_cstr(a[2]), strerror(e));
  return val_none();
}

/* The op table's names and signature of a tf op ("reduce_sum math.reduce_sum", "input_tensor, axis=None, ...") or
 * None: a TFOpLambda layer (stdlib/keras_tfop.tfs) names its layer and its node's arguments from them, as Keras
 * does from the function's tf_export names and Python signature. */
static Val kr_op_signature(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n) || !val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "_keras.op_signature(name) takes one str");
  OpId id = op_lookup_api(str_cstr(args[0]));
  if (id == OP__COUNT) return val_none();
  Val a = str_from_cstr(op_defs[id].api), s = str_from_cstr(op_defs[id].sig);
  Val t = tuple_pack(2, a, s);
  val_decref(a);
  val_decref(s);
  return t;
}

/* Keras's `raise new_e.with_traceback(e.__traceback__)`: a layer call's error re-raised with the call's
 * information (keras_traceback.tfs) is located where the original was raised, not in the library */
static Val kr_reraise(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 2 || (kw && kw->n) || !val_is(args[0], &exc_type) || !val_is(args[1], &exc_type))
    rt_throw(ERR_TYPE, "_keras.reraise(new, old) takes two exceptions");
  ((Exc *)args[0].u.o)->loc = ((Exc *)args[1].u.o)->loc;
  rt_reraise(args[0]);
  return val_none();
}

/* Keras's tf_convert(self.call) in a graph (a traced call, a symbolic one): call(*args, **kwargs), an error
 * raised in it re-raised with AutoGraph's "in user code:" framing of the call's frames (rt_ag_reraise). */
static Val kr_ag_call(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 3 || (kw && kw->n)) rt_throw(ERR_TYPE, "_keras.ag_call(fn, args, kwargs) takes three arguments");
  int site = rt_cur_loc;
  RtAgFrames agf;
  RtTry t;
  rt_try_push(&t);
  rt_try_ag(&t, &agf);
  if (setjmp(t.jb) == 0) {
    Val r = rt_call_star(args[0], args[1], args[2]);
    rt_try_pop(&t);
    rt_ag_frames_free(&agf);
    return r;
  }
  rt_ag_reraise(&t, site, true);
}

/* Keras's Layer._name_scope(): tf.name_scope of the current scope + the layer's name + "/", absolute, so a layer
 * called again in one graph reuses its scope ("dense/BiasAdd_1") where a plain tf.name_scope there would take the
 * graph's next unique name ("dense_1"). */
static Val kr_layer_scope(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n) || !val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "_keras.layer_scope(name) takes one str");
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  sb_printf(&b, "%s%s/", graph_scope_prefix(), str_cstr(args[0]));
  Val full = str_new(b.data, (tfs_i64)b.len);
  rt_hold_val(full);
  Val scope = tf_name_scope(val_undef(), 1, &full, NULL);
  rt_unhold(mark);
  sb_free(&b);
  val_decref(full);
  return scope;
}

static Val kr_attr(const char *name) {
  if (!strcmp(name, "layer_scope")) return builtin_new("_keras.layer_scope", kr_layer_scope, val_undef(), NULL);
  if (!strcmp(name, "ag_call")) return builtin_new("_keras.ag_call", kr_ag_call, val_undef(), NULL);
  if (!strcmp(name, "reraise")) return builtin_new("_keras.reraise", kr_reraise, val_undef(), NULL);
  if (!strcmp(name, "op_signature")) return builtin_new("_keras.op_signature", kr_op_signature, val_undef(), NULL);
  if (!strcmp(name, "render_dot")) return builtin_new("_keras.render_dot", kr_render_dot, val_undef(), NULL);
  if (!strcmp(name, "stdout_isatty")) return builtin_new("_keras.stdout_isatty", kr_isatty, val_undef(), NULL);
  if (!strcmp(name, "warn")) return builtin_new("_keras.warn", kr_warn, val_undef(), NULL);
  if (!strcmp(name, "save_npz")) return builtin_new("_keras.save_npz", kr_save_npz, val_undef(), NULL);
  if (!strcmp(name, "load_npz")) return builtin_new("_keras.load_npz", kr_load_npz, val_undef(), NULL);
  if (!strcmp(name, "get_file")) return kdatasets_attr("keras.utils.get_file");   /* beside the data sets it serves (kdatasets.c) */
  return val_undef();
}

Val kerasrt_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_keras", kr_attr);
  return val_incref(mod);
}
