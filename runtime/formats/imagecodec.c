/* imagecodec.c — PNG (libpng) and JPEG (libjpeg-turbo) to and from 8-bit pixels, and the Decode/Encode ops over them. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

#include "formats/imagecodec.h"
#include "object/object.h"

/* ---- channel conversion --------------------------------------------------------------
 * A decoded image has the file's channels (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA); the caller may ask for
 * 1, 3 or 4: alpha dropped or made opaque, gray replicated, colour made gray with the ITU-R 601 weights.
 * Samples are bytes, or uint16s in host order when sixteen (a 16-bit PNG decoded as uint16). */
static unsigned char *channels_to(unsigned char *px, size_t npix, int have, int want, bool sixteen) {
  if (!want || want == have) return px;
  size_t sz = sixteen ? 2 : 1;
  unsigned char *o = malloc(npix * (size_t)want * sz + 1);
  if (!o) {
    free(px);
    return NULL;
  }
  const uint16_t *s16 = (const uint16_t *)px;
  uint16_t *d16 = (uint16_t *)o;
  unsigned opaque = sixteen ? 65535 : 255;
  for (size_t i = 0; i < npix; i++) {
    size_t si = i * (size_t)have, di = i * (size_t)want;
#define SAMPLE(k) (sixteen ? (unsigned)s16[si + (k)] : (unsigned)px[si + (k)])
    unsigned r = SAMPLE(0), g = have >= 3 ? SAMPLE(1) : r, b = have >= 3 ? SAMPLE(2) : r;
    unsigned a = have == 2 ? SAMPLE(1) : have == 4 ? SAMPLE(3) : opaque;
#undef SAMPLE
    unsigned v[4] = {r, g, b, a};
    if (want == 1) v[0] = have >= 3 ? (unsigned)(((unsigned long long)r * 299 + (unsigned long long)g * 587 + (unsigned long long)b * 114 + 500) / 1000) : r;
    for (int k = 0; k < want; k++) {
      if (sixteen) d16[di + (size_t)k] = (uint16_t)v[k];
      else o[di + (size_t)k] = (unsigned char)v[k];
    }
  }
  free(px);
  return o;
}

/* ---- PNG ---------------------------------------------------------------------------- */

typedef struct { const unsigned char *p; size_t n, at; char *err; } PngSrc;
typedef struct { unsigned char *p; size_t n, cap; bool oom; } PngDst;

static void png_err(png_structp p, png_const_charp msg) {
  PngSrc *s = png_get_error_ptr(p);
  if (s && s->err) snprintf(s->err, IMG_ERR_LEN, "%s", msg);
  png_longjmp(p, 1);
}
static void png_warn(png_structp p, png_const_charp msg) { (void)p, (void)msg; }

static void png_read_mem(png_structp p, png_bytep out, png_size_t n) {
  PngSrc *s = png_get_io_ptr(p);
  if (n > s->n - s->at) png_error(p, "read past the end of the data");
  memcpy(out, s->p + s->at, n);
  s->at += n;
}

/* The file's pixels in its own channels (*c), 8 bits each, or 16 in host order when sixteen (an 8-bit file's
 * samples widened v * 257, as TF's Convert8to16). */
static unsigned char *png_decode_raw(const unsigned char *data, size_t n, bool sixteen, int *h, int *w, int *c, char *err) {
  PngSrc src = {data, n, 0, err};
  err[0] = 0;
  if (n < 8 || png_sig_cmp(data, 0, 8)) {
    snprintf(err, IMG_ERR_LEN, "Invalid PNG. Failed to initialize decoder.");
    return NULL;
  }
  png_structp p = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_err, png_warn);
  png_infop info = p ? png_create_info_struct(p) : NULL;
  unsigned char *volatile px = NULL;
  png_bytep *volatile rows = NULL;
  if (!p || !info) {
    png_destroy_read_struct(p ? &p : NULL, NULL, NULL);
    snprintf(err, IMG_ERR_LEN, "out of memory");
    return NULL;
  }
  if (setjmp(png_jmpbuf(p))) {
    free(px);
    free(rows);
    png_destroy_read_struct(&p, &info, NULL);
    if (strncmp(err, "PNG size too large", 18))
      snprintf(err, IMG_ERR_LEN, "Invalid PNG data, size %zu", n);   /* TF's text; libpng's reason is dropped */
    return NULL;
  }
  png_set_read_fn(p, &src, png_read_mem);
  png_set_user_limits(p, 0x7fffffff, 0x7fffffff);
  png_read_info(p, info);
  png_uint_32 width, height;
  int depth, ctype, il;
  png_get_IHDR(p, info, &width, &height, &depth, &ctype, &il, NULL, NULL);
  if (width >= (1u << 27) || height >= (1u << 27) || (uint64_t)width * height >= ((uint64_t)1 << 29)) {
    char msg[96];   /* TF's limits and message, checked before any pixel memory is taken */
    snprintf(msg, sizeof msg, "PNG size too large for int: %u by %u", (unsigned)width, (unsigned)height);
    png_error(p, msg);
  }
  if (ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(p);
  if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(p);
  if (png_get_valid(p, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(p);
  if (depth == 16 && !sixteen) png_set_strip_16(p);
  if (sixteen) {
    const uint16_t one = 1;
    if (depth < 16) png_set_expand_16(p);
    if (*(const unsigned char *)&one) png_set_swap(p);
  }
  png_set_interlace_handling(p);
  png_read_update_info(p, info);
  int have = png_get_channels(p, info);
  size_t stride = png_get_rowbytes(p, info);
  px = malloc(stride * height + 1);
  rows = malloc(sizeof(png_bytep) * (height ? height : 1));
  if (!px || !rows) png_error(p, "out of memory");
  for (png_uint_32 y = 0; y < height; y++) rows[y] = px + y * stride;
  png_read_image(p, rows);
  png_read_end(p, NULL);
  free(rows);
  png_destroy_read_struct(&p, &info, NULL);
  *h = (int)height, *w = (int)width, *c = have;
  return px;
}

unsigned char *img_png_decode(const unsigned char *data, size_t n, int want, bool sixteen, int *h, int *w, int *c, char *err) {
  int have;
  unsigned char *px = png_decode_raw(data, n, sixteen, h, w, &have, err);
  if (!px) return NULL;
  unsigned char *out = channels_to(px, (size_t)*w * (size_t)*h, have, want, sixteen);
  if (!out) snprintf(err, IMG_ERR_LEN, "out of memory");
  *c = want ? want : have;
  return out;
}

static void png_write_mem(png_structp p, png_bytep data, png_size_t n) {
  PngDst *d = png_get_io_ptr(p);
  if (d->n + n > d->cap) {
    size_t cap = (d->cap ? d->cap * 2 : 4096) + n;
    unsigned char *q = realloc(d->p, cap);
    if (!q) png_error(p, "out of memory");
    d->p = q, d->cap = cap;
  }
  memcpy(d->p + d->n, data, n);
  d->n += n;
}
static void png_flush_mem(png_structp p) { (void)p; }

/* depth 8 or 16; 16-bit samples come in the host's (little-endian) order and PNG stores them big-endian */
unsigned char *img_png_encode(const unsigned char *px, int h, int w, int c, int depth, int level, size_t *len, char *err) {
  static const int ctypes[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGBA};
  PngSrc e = {NULL, 0, 0, err};
  PngDst d = {NULL, 0, 0, false};
  err[0] = 0;
  png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, &e, png_err, png_warn);
  png_infop info = p ? png_create_info_struct(p) : NULL;
  png_bytep *volatile rows = NULL;
  if (!p || !info) {
    png_destroy_write_struct(p ? &p : NULL, NULL);
    snprintf(err, IMG_ERR_LEN, "out of memory");
    return NULL;
  }
  if (setjmp(png_jmpbuf(p))) {
    free(rows);
    free(d.p);
    png_destroy_write_struct(&p, &info);
    return NULL;
  }
  png_set_write_fn(p, &d, png_write_mem, png_flush_mem);
  png_set_compression_level(p, level < 0 || level > 9 ? 6 : level);
  png_set_IHDR(p, info, (png_uint_32)w, (png_uint_32)h, depth, ctypes[c], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(p, info);
  if (depth == 16) {
    const uint16_t one = 1;
    if (*(const unsigned char *)&one) png_set_swap(p);
  }
  rows = malloc(sizeof(png_bytep) * (size_t)(h ? h : 1));
  if (!rows) png_error(p, "out of memory");
  for (int y = 0; y < h; y++) rows[y] = (png_bytep)px + (size_t)y * (size_t)w * (size_t)c * (size_t)(depth / 8);
  png_write_image(p, rows);
  png_write_end(p, NULL);
  free(rows);
  png_destroy_write_struct(&p, &info);
  *len = d.n;
  return d.p;
}

/* ---- JPEG --------------------------------------------------------------------------- */

typedef struct {
  struct jpeg_error_mgr mgr;
  jmp_buf jb;
  char *err;
  bool recover;   /* a truncated file decodes (the rest gray) instead of failing: try_recover_truncated */
} JpegErr;

static void jpeg_exit(j_common_ptr j) {
  JpegErr *e = (JpegErr *)j->err;
  char msg[JMSG_LENGTH_MAX];
  j->err->format_message(j, msg);
  if (e->err) snprintf(e->err, IMG_ERR_LEN, "%s", msg);
  longjmp(e->jb, 1);
}
/* Warnings pass, except the end of the data inside the image unless recovering (TF's source fails there). */
static void jpeg_quiet(j_common_ptr j, int level) {
  JpegErr *e = (JpegErr *)j->err;
  if (level < 0 && j->err->msg_code == JWRN_JPEG_EOF && !e->recover) j->err->error_exit(j);
}

unsigned char *img_jpeg_decode(const unsigned char *data, size_t n, int want, int ratio, bool fancy, bool accurate,
                               bool recover, int *h, int *w, int *c, char *err) {
  struct jpeg_decompress_struct d;
  JpegErr je;
  unsigned char *volatile px = NULL;
  err[0] = 0;
  d.err = jpeg_std_error(&je.mgr);
  je.mgr.error_exit = jpeg_exit;
  je.mgr.emit_message = jpeg_quiet;
  je.err = err;
  je.recover = recover;
  jpeg_create_decompress(&d);
  if (setjmp(je.jb)) {
    free(px);
    jpeg_destroy_decompress(&d);
    snprintf(err, IMG_ERR_LEN, "jpeg::Uncompress failed. Invalid JPEG data or crop window.");
    return NULL;
  }
  jpeg_mem_src(&d, data, (unsigned long)n);
  jpeg_read_header(&d, TRUE);
  if (d.num_components != 1 && d.num_components != 3) {
    snprintf(err, IMG_ERR_LEN, "only gray and RGB JPEGs are supported");
    longjmp(je.jb, 1);
  }
  int comps = want ? want : d.num_components;
  d.out_color_space = comps == 1 ? JCS_GRAYSCALE : JCS_RGB;
  d.scale_num = 1;
  d.scale_denom = (unsigned)ratio;
  d.do_fancy_upsampling = fancy ? TRUE : FALSE;
  d.dct_method = accurate ? JDCT_ISLOW : JDCT_IFAST;
  jpeg_start_decompress(&d);
  if ((uint64_t)d.output_width * d.output_height >= ((uint64_t)1 << 29)) {
    snprintf(err, IMG_ERR_LEN, "image too large");
    longjmp(je.jb, 1);
  }
  size_t stride = (size_t)d.output_width * (size_t)d.output_components;
  px = malloc(stride * d.output_height + 1);
  if (!px) {
    snprintf(err, IMG_ERR_LEN, "out of memory");
    longjmp(je.jb, 1);
  }
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = px + (size_t)d.output_scanline * stride;
    jpeg_read_scanlines(&d, &row, 1);
  }
  *h = (int)d.output_height, *w = (int)d.output_width, *c = d.output_components;
  jpeg_finish_decompress(&d);
  jpeg_destroy_decompress(&d);
  return px;
}

unsigned char *img_jpeg_encode(const unsigned char *px, int h, int w, int c, int quality, bool progressive,
                               bool optimize, bool chroma_down, int density_unit, int xd, int yd, size_t *len, char *err) {
  struct jpeg_compress_struct j;
  JpegErr je;
  unsigned char *volatile out = NULL;
  struct { unsigned char *buf; unsigned long n; } mem = {NULL, 0};   /* libjpeg's growing buffer (its address escapes) */
  err[0] = 0;
  j.err = jpeg_std_error(&je.mgr);
  je.mgr.error_exit = jpeg_exit;
  je.mgr.emit_message = jpeg_quiet;
  je.err = err;
  je.recover = true;
  jpeg_create_compress(&j);
  if (setjmp(je.jb)) {
    jpeg_destroy_compress(&j);
    free(out);
    free(mem.buf);
    return NULL;
  }
  jpeg_mem_dest(&j, &mem.buf, &mem.n);
  j.image_width = (JDIMENSION)w;
  j.image_height = (JDIMENSION)h;
  j.input_components = c;
  j.in_color_space = c == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&j);
  jpeg_set_quality(&j, quality, TRUE);
  if (progressive) jpeg_simple_progression(&j);
  j.optimize_coding = optimize ? TRUE : FALSE;
  j.density_unit = (UINT8)density_unit;
  j.X_density = (UINT16)xd;
  j.Y_density = (UINT16)yd;
  if (!chroma_down && c == 3)
    for (int i = 0; i < j.num_components; i++) j.comp_info[i].h_samp_factor = j.comp_info[i].v_samp_factor = 1;
  jpeg_start_compress(&j, TRUE);
  while (j.next_scanline < j.image_height) {
    JSAMPROW row = (JSAMPROW)px + (size_t)j.next_scanline * (size_t)w * (size_t)c;
    jpeg_write_scanlines(&j, &row, 1);
  }
  jpeg_finish_compress(&j);
  jpeg_destroy_compress(&j);
  out = malloc(mem.n + 1);
  if (out) memcpy(out, mem.buf, mem.n);
  free(mem.buf);
  if (!out) snprintf(err, IMG_ERR_LEN, "out of memory");
  *len = mem.n;
  return out;
}
