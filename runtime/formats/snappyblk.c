/* snappyblk.c — TF's SNAPPY record files through libsnappy: blocks of a 4-byte big-endian compressed length and a raw snappy block. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "formats/snappyblk.h"

/* SnappyCompressionOptions' input_buffer_size: the most TF's writer gathers before compressing a block */
enum { SNB_INPUT = 256 << 10 };

static void free_out(void *p) { free(*(char **)p); }

static void put_block(StrBuf *out, const char *p, size_t n) {
  if (!n) return;
  size_t clen = snappy_max_compressed_length(n);
  char *dst = malloc(clen);
  if (!dst) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(dst);
  if (snappy_compress(p, n, dst, &clen) != SNAPPY_OK) rt_throw(ERR_DATA_LOSS, "Snappy_Compress failed");
  char be[4];
  for (int i = 0; i < 4; i++) be[i] = (char)((uint32_t)clen >> (8 * (3 - i)));
  sb_putn(out, be, 4);
  sb_putn(out, dst, clen);
  rt_unhold(mark);
  free(dst);
}

void snb_compress_records(StrBuf *out, const char *recs, size_t n) {
  /* The parts RecordWriter appends one by one: header (12 bytes), data, footer (4 bytes).  [start, at) is
   * what the input buffer holds; since the parts are contiguous in recs the buffer is a range of it. */
  size_t start = 0, at = 0;
  while (at < n) {
    size_t dlen = 0;
    for (int i = 7; i >= 0 && at + 8 <= n; i--) dlen = dlen << 8 | (unsigned char)recs[at + (size_t)i];
    size_t parts[3] = {12, dlen, 4};
    for (int k = 0; k < 3; k++) {
      size_t len = parts[k];
      if (at + len > n) len = n - at;   /* not tfr_frame's output: keep every byte anyway */
      if (at - start + len > SNB_INPUT) {
        put_block(out, recs + start, at - start);
        start = at;
        if (len > SNB_INPUT) {   /* too large for the buffer: compressed directly */
          put_block(out, recs + at, len);
          start = at + len;
        }
      }
      at += len;
    }
  }
  put_block(out, recs + start, at - start);
}

/* The lengths are checked before any allocation; out grows as blocks come (held while an error unwinds). */
char *snb_decompress(const char *data, size_t n, const char *what, size_t *len) {
  char *out = malloc(1);
  if (!out) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_fn(free_out, &out);
  size_t at = 0, used = 0;
  while (at < n) {
    if (n - at < 4) rt_throw(ERR_DATA_LOSS, "%s: Failed to read 4 bytes from file. Possible data corruption.", what);
    const unsigned char *p = (const unsigned char *)data + at;
    size_t clen = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
    at += 4;
    if (n - at < clen)
      rt_throw(ERR_DATA_LOSS, "%s: Failed to read %zu bytes from file. Possible data corruption.", what, clen);
    size_t ulen;
    if (snappy_uncompressed_length(data + at, clen, &ulen) != SNAPPY_OK)
      rt_throw(ERR_DATA_LOSS, "%s: Parsing error in Snappy_GetUncompressedLength", what);
    char *grown = realloc(out, used + ulen + 1);
    if (!grown) rt_throw(ERR_MEMORY, "out of memory");
    out = grown;
    size_t got = ulen;
    if (snappy_uncompress(data + at, clen, out + used, &got) != SNAPPY_OK || got != ulen)
      rt_throw(ERR_DATA_LOSS, "%s: Snappy_Uncompress failed", what);
    used += ulen;
    at += clen;
  }
  out[used] = '\0';
  rt_unhold(mark);
  *len = used;
  return out;
}
