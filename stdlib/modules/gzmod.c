/* gzmod.c — `_gzip`: zlib's gzip files and in-memory gzip streams under stdlib/gzip.tfs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

static const void *gz_bytes(Val v, size_t *n) {
  if (!val_is(v, &bytes_type)) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(v));
  return bytes_data(v, n);
}

/* _gzip.read(path): the decompressed contents of a gzip file (all members). */
static Val gz_read(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 1 || !val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "_gzip.read(path)");
  const char *p = str_cstr(args[0]);
  gzFile f = gzopen(p, "rb");
  if (!f) exc_os_error(errno ? errno : ENOMEM, p);
  StrBuf b;
  sb_init(&b);
  char chunk[65536];
  int got;
  while ((got = gzread(f, chunk, sizeof chunk)) > 0) sb_putn(&b, chunk, (size_t)got);
  int err = 0;
  const char *msg = gzerror(f, &err);
  char text[200];
  snprintf(text, sizeof text, "%s", msg ? msg : "");
  gzclose(f);
  if (got < 0 || (err != Z_OK && err != Z_BUF_ERROR)) {
    sb_free(&b);
    exc_raise_class(builtins_lookup("OSError"), ERR_IO, text[0] ? text : "Not a gzipped file");
  }
  Val r = bytes_new(b.data ? b.data : "", b.len);
  sb_free(&b);
  return r;
}

/* _gzip.write(path, data, mode): data compressed into path ("wb" replaces, "ab" appends a member). */
static Val gz_write(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 3 || !val_is(args[0], &str_type) || !val_is(args[2], &str_type)) rt_throw(ERR_TYPE, "_gzip.write(path, data, mode)");
  size_t len;
  const void *d = gz_bytes(args[1], &len);
  const char *p = str_cstr(args[0]);
  gzFile f = gzopen(p, str_cstr(args[2]));
  if (!f) exc_os_error(errno ? errno : ENOMEM, p);
  if (len && gzwrite(f, d, (unsigned)len) == 0) {
    gzclose(f);
    exc_os_error(EIO, p);
  }
  if (gzclose(f) != Z_OK) exc_os_error(EIO, p);
  return val_int((int64_t)len);
}

/* _gzip.compress(data, level) / decompress(data): one gzip stream in memory (deflate with a gzip wrapper). */
static Val gz_compress(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 2) rt_throw(ERR_TYPE, "_gzip.compress(data, level)");
  size_t len;
  const void *d = gz_bytes(args[0], &len);
  int level = (int)val_to_index(args[1], NULL);
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) rt_throw(ERR_VALUE, "Bad compression level");
  uLong cap = deflateBound(&z, (uLong)len) + 32;
  StrBuf b;
  sb_init(&b);
  sb_fill(&b, "\0", 1, cap);
  z.next_in = (Bytef *)d;
  z.avail_in = (uInt)len;
  z.next_out = (Bytef *)b.data;
  z.avail_out = (uInt)cap;
  int rc = deflate(&z, Z_FINISH);
  size_t got = cap - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    sb_free(&b);
    rt_throw(ERR_RUNTIME, "gzip compression failed");
  }
  Val r = bytes_new(b.data, got);
  sb_free(&b);
  return r;
}

static Val gz_decompress(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 1) rt_throw(ERR_TYPE, "_gzip.decompress(data)");
  size_t len;
  const void *d = gz_bytes(args[0], &len);
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 31) != Z_OK) rt_throw(ERR_MEMORY, "out of memory");
  StrBuf b;
  sb_init(&b);
  z.next_in = (Bytef *)d;
  z.avail_in = (uInt)len;
  unsigned char chunk[65536];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END && z.avail_in > 0) {   /* another member follows */
      sb_putn(&b, (const char *)chunk, sizeof chunk - z.avail_out);
      inflateReset(&z);
      rc = Z_OK;
      continue;
    }
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    sb_putn(&b, (const char *)chunk, sizeof chunk - z.avail_out);
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    sb_free(&b);
    if (len >= 2 && (((const unsigned char *)d)[0] != 0x1f || ((const unsigned char *)d)[1] != 0x8b))
      exc_raise_class(builtins_lookup("OSError"), ERR_IO, "Not a gzipped file (b'\\x1f\\x8b' expected)");
    rt_throw(ERR_IO, "Compressed file ended before the end-of-stream marker was reached");
  }
  Val r = bytes_new(b.data ? b.data : "", b.len);
  sb_free(&b);
  return r;
}

#define GB(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "_gzip." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin gz_fns[] = {GB("read", gz_read), GB("write", gz_write), GB("compress", gz_compress), GB("decompress", gz_decompress)};

static Val gz_attr(const char *name) {
  for (size_t i = 0; i < sizeof gz_fns / sizeof gz_fns[0]; i++)
    if (!strcmp(gz_fns[i].name + 6, name)) return val_obj(&gz_fns[i]);
  return val_undef();
}

Val gzmod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_gzip", gz_attr);
  return val_incref(mod);
}
