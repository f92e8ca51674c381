/* iofile.c — whole-file reads for tf.io and the dataset loaders: plain or gzip (names ending in .gz), errors as TF words them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/iofile.h"
#include "object/object.h"
#include "tensor/tensor.h"

const char *io_path_arg(Val v, const char *what) {
  if (val_is(v, &str_type)) return str_cstr(v);
  Tensor *t = val_as_tensor(v);
  if (t && !t->sym && t->dtype == DT_STRING && t->rank == 0) {
    Str *s = *(Str **)tensor_data(t);
    return s ? s->data : "";
  }
  rt_throw(ERR_TYPE, "%s: the file name must be a str or a string tensor, not %s", what, val_type_name(v));
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

void io_deflate(StrBuf *out, const char *data, size_t n, bool gzip, const char *what) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    rt_throw(ERR_MEMORY, "%s: out of memory", what);
  z.next_in = (Bytef *)data;
  z.avail_in = (uInt)n;
  unsigned char chunk[65536];
  int rc;
  do {
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    rc = deflate(&z, Z_FINISH);
    sb_putn(out, (const char *)chunk, sizeof chunk - z.avail_out);
  } while (rc == Z_OK);
  deflateEnd(&z);
}

/* Append everything a gzip file holds (concatenated members too, as gzip -d
 * reads them); false when it is not valid gzip or is cut short. */
static bool read_gz(FILE *f, StrBuf *b) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 16) != Z_OK) return false;   /* +16: gzip header and trailer */
  unsigned char in[16384], out[65536];
  bool ended = false, any = false;
  for (;;) {
    if (z.avail_in == 0) {
      size_t n = fread(in, 1, sizeof in, f);
      if (n == 0) break;
      z.next_in = in;
      z.avail_in = (uInt)n;
      any = true;
    }
    z.next_out = out;
    z.avail_out = sizeof out;
    int rc = inflate(&z, Z_NO_FLUSH);
    sb_putn(b, (const char *)out, sizeof out - z.avail_out);
    if (rc == Z_STREAM_END) {
      ended = true;
      inflateReset(&z);
    } else if (rc == Z_OK || rc == Z_BUF_ERROR) {
      ended = false;
    } else {
      ended = false;
      break;
    }
  }
  inflateEnd(&z);
  return any && ended;
}

char *io_read_all(const char *path, const char *what, tfs_i64 *len) { return io_read_bytes(path, what, len, true); }

char *io_read_bytes(const char *path, const char *what, tfs_i64 *len, bool gunzip) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    int e = errno;
    rt_throw(e == ENOENT ? ERR_NOT_FOUND : ERR_IO, "%s: %s; %s", what, path, strerror(e));
  }
  StrBuf b;
  sb_init(&b);
  bool ok = true;
  if (gunzip && ends_with(path, ".gz")) {
    ok = read_gz(f, &b);
  } else {
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&b, buf, n);
  }
  bool err = ferror(f);
  fclose(f);
  if (err || !ok) {
    sb_free(&b);
    if (err) rt_throw(ERR_IO, "%s: %s; could not be read", what, path);
    rt_throw(ERR_INVALID_ARGUMENT, "%s: %s is not a valid gzip file", what, path);
  }
  *len = (tfs_i64)b.len;
  sb_putc(&b, '\0');   /* callers may parse text with C string functions */
  return sb_steal(&b);
}

char *io_inflate(const char *data, tfs_i64 n, bool gzip, const char *what, tfs_i64 *len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, gzip ? 15 + 16 : 15) != Z_OK) rt_throw(ERR_MEMORY, "%s: out of memory", what);
  StrBuf b;
  sb_init(&b);
  z.next_in = (Bytef *)data;
  z.avail_in = (uInt)n;
  unsigned char out[65536];
  int rc = Z_OK;
  /* a cut stream yields what it holds: the record framing then reports the cut record, as TF's reader does */
  while (rc == Z_OK && (z.avail_in > 0 || z.avail_out == 0)) {
    z.next_out = out;
    z.avail_out = sizeof out;
    rc = inflate(&z, Z_NO_FLUSH);
    sb_putn(&b, (const char *)out, sizeof out - z.avail_out);
    if (rc == Z_STREAM_END && gzip && z.avail_in > 0) rc = inflateReset(&z);   /* concatenated gzip members */
  }
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
    const char *m = z.msg ? z.msg : "data error";   /* zlib's messages are static strings */
    inflateEnd(&z);
    sb_free(&b);
    rt_throw(ERR_DATA_LOSS, "inflate() failed with error %d: %s", rc, m);
  }
  inflateEnd(&z);
  *len = (tfs_i64)b.len;
  sb_putc(&b, '\0');
  return sb_steal(&b);
}

Val io_string_scalar(const char *s, tfs_i64 n) {
  Tensor *t = tensor_new(DT_STRING, 0, NULL);
  Val v = str_new(s, n);
  *(Str **)tensor_data(t) = (Str *)v.u.o;
  return val_obj(t);
}
