/* imageops.c — the DecodePng/DecodeJpeg/DecodeGif/DecodeBmp/DecodeImage and EncodePng/EncodeJpeg ops: TF's checks and messages around the codecs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/imagecodec.h"
#include "object/object.h"

static const char *str_attr(OpCall *c, int i, const char *dflt) {
  Val v = op_attr(c, i);
  if (v.tag == VT_UNDEF || v.tag == VT_NONE) return dflt;
  if (!val_is(v, &str_type)) op_fail(c, ERR_TYPE, "%s: expected a str for '%s', got %s", c->op->graph_name, op_attr_name(c->op, i), val_type_name(v));
  return str_cstr(v);
}

/* shape: [height, width, channels] (height and width known only when it runs); uint8, or float32 for DecodeImage's dtype. */
void meta_decode_image(OpCall *c) {
  const TMeta *m = &c->inm[0];
  if (m->dtype != DT_STRING) op_fail(c, ERR_INVALID_ARGUMENT, "%s: contents must be a string tensor, got %s", c->op->graph_name, dtype_info[m->dtype].name);
  if (m->rank > 0) {
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "`contents` must be scalar but got shape");
    op_shape_text(&b, m->rank, m->shape);
    /* errindex: `contents` must be scalar but got shape… */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  if (c->op->id == OP_DECODE_GIF) {   /* no attributes: RGB frames */
    tfs_i64 shape[4] = {-1, -1, -1, 3};
    meta_set(&c->outm[0], DT_UINT8, 4, shape);
    c->iscr[0] = 3;
    return;
  }
  tfs_i64 ch = op_attr_int(c, 0, 0);
  if (ch != 0 && ch != 1 && ch != 3 && ch != 4)
    op_fail(c, ERR_INVALID_ARGUMENT, "`channels` must be 0, 1, 3 or 4 but got %lld", (long long)ch);
  int dt = DT_UINT8;
  if (c->op->id == OP_DECODE_JPEG) {
    tfs_i64 ratio = op_attr_int(c, 1, 1);
    if (ratio != 1 && ratio != 2 && ratio != 4 && ratio != 8)
      op_fail(c, ERR_INVALID_ARGUMENT, "ratio must be 1, 2, 4, or 8, got %lld", (long long)ratio);
    const char *dct = str_attr(c, 5, "");
    if (*dct && strcmp(dct, "INTEGER_FAST") && strcmp(dct, "INTEGER_ACCURATE"))
      op_fail(c, ERR_INVALID_ARGUMENT, "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}");
  } else if (c->op->id != OP_DECODE_BMP) {
    dt = op_attr_dtype(c, 1, DT_UINT8);
    bool png = c->op->id == OP_DECODE_PNG;
    if (dt == DT_FLOAT32 && !png) {
    } else if (dt == DT_UINT16) {
      /* 16-bit PNG samples (8-bit files widened); JPEG, GIF and BMP decode to uint8, then scale by 256 as TF's
       * DecodeImageV2Op does */
    } else if (dt != DT_UINT8) {
      if (png) op_fail(c, ERR_INVALID_ARGUMENT, "`dtype` for `DecodePng` must be unit8, unit16 but got: %d", dtype_tf_enum(dt));
      op_fail(c, ERR_INVALID_ARGUMENT, "`dtype` for `DecodeImage` must be unit8, unit16, float but got: %d", dtype_tf_enum(dt));
    }
  }
  tfs_i64 shape[3] = {-1, -1, ch ? ch : -1};
  /* DecodeImage expanding animations: 4-D for a GIF, 3-D otherwise, so the rank is unknown (TF's shape function) */
  bool expand = c->op->id == OP_DECODE_IMAGE && op_attr_bool(c, 2, true);
  meta_set(&c->outm[0], (DType)dt, expand ? -1 : 3, expand ? NULL : shape);
  c->iscr[0] = ch;
}

enum { FMT_UNKNOWN, FMT_PNG, FMT_JPEG, FMT_GIF, FMT_BMP };
static int image_format(const unsigned char *p, size_t n) {
  if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8)) return FMT_PNG;
  if (n >= 3 && !memcmp(p, "\xff\xd8\xff", 3)) return FMT_JPEG;
  if (n >= 3 && !memcmp(p, "GIF", 3)) return FMT_GIF;
  if (n >= 2 && !memcmp(p, "BM", 2)) return FMT_BMP;
  return FMT_UNKNOWN;
}

/* Which op may read which format, with TF's refusals (its decoders read each other's PNG, JPEG and GIF;
 * BMP only through DecodeBmp or DecodeImage, and DecodeBmp nothing else). */
static void format_allowed(OpCall *c, int fmt, int want, bool *four_d, bool expand) {
  int op = c->op->id;
  static const char *const names[] = {"", "PNG", "JPEG", "GIF", "BMP"};
  if (op == OP_DECODE_BMP && fmt != FMT_BMP)
    /* errindex: Trying to decode … format using DecodeBmp op. Use `decode_…` or `decode_image` instead. */
    op_fail(c, ERR_INVALID_ARGUMENT, "Trying to decode %s format using DecodeBmp op. Use `decode_%s` or `decode_image` instead.",
            names[fmt], fmt == FMT_PNG ? "png" : fmt == FMT_JPEG ? "jpeg" : "gif");
  if (fmt == FMT_BMP) {
    if (want == 1) op_fail(c, ERR_INVALID_ARGUMENT, "`channels` must be 0, 3 or 4 for BMP, but got %d", want);
    if (op != OP_DECODE_BMP && op != OP_DECODE_IMAGE)
      op_fail(c, ERR_INVALID_ARGUMENT, "Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` instead. Op used: %s",
              c->op->graph_name);
  }
  if (fmt == FMT_GIF && want != 0 && want != 3) op_fail(c, ERR_INVALID_ARGUMENT, "channels must be 0 or 3 for GIF, got %d", want);
  if (fmt == FMT_JPEG && want == 4) op_fail(c, ERR_INVALID_ARGUMENT, "JPEG does not support 4 channels");
  /* a DecodeGif result is 4-D whatever it read; DecodeImage's only for a GIF when expanding animations */
  *four_d = op == OP_DECODE_GIF || (op == OP_DECODE_IMAGE && expand && fmt == FMT_GIF);
}

void k_decode_image(OpCall *c) {
  Str *s = *(Str **)tensor_data(c->in[0]);
  const unsigned char *data = s ? (const unsigned char *)s->data : (const unsigned char *)"";
  size_t n = s ? (size_t)s->len : 0;
  if (!n) op_fail(c, ERR_INVALID_ARGUMENT, "Input is empty.");
  int want = (int)c->iscr[0], fmt = image_format(data, n);
  if (fmt == FMT_UNKNOWN) op_fail(c, ERR_INVALID_ARGUMENT, "Unknown image file format. One of JPEG, PNG, GIF, BMP required.");
  bool expand = c->op->id == OP_DECODE_IMAGE && op_attr_bool(c, 2, true), four_d;
  format_allowed(c, fmt, want, &four_d, expand);
  int h = 0, w = 0, ch = 0, frames = 1;
  char err[IMG_ERR_LEN];
  unsigned char *px = NULL;
  if (fmt == FMT_PNG) {
    px = img_png_decode(data, n, want, c->outm[0].dtype == DT_UINT16, &h, &w, &ch, err);
  } else if (fmt == FMT_JPEG) {
    bool jp = c->op->id == OP_DECODE_JPEG;
    int ratio = jp ? (int)op_attr_int(c, 1, 1) : 1;
    bool fancy = jp ? op_attr_bool(c, 2, true) : true;
    bool accurate = jp && !strcmp(str_attr(c, 5, ""), "INTEGER_ACCURATE");
    bool recover = jp && op_attr_bool(c, 3, false);
    px = img_jpeg_decode(data, n, want, ratio, fancy, accurate, recover, &h, &w, &ch, err);
  } else if (fmt == FMT_GIF) {
    /* every frame for DecodeGif and an expanding DecodeImage; DecodePng/DecodeJpeg take a one-frame GIF only */
    bool all = c->op->id != OP_DECODE_IMAGE || expand;
    px = img_gif_decode(data, n, all, &frames, &h, &w, err);
    ch = 3;
    if (px && frames > 1 && (c->op->id == OP_DECODE_PNG || c->op->id == OP_DECODE_JPEG)) {
      free(px);
      op_fail(c, ERR_INVALID_ARGUMENT, "Got %d frames, but animated gifs can only be decoded by tf.io.decode_gif or tf.io.decode_image",
              frames);
    }
    if (!px) op_fail(c, ERR_INVALID_ARGUMENT, "Invalid GIF data (size %zu), %s", n, err);
  } else {
    px = img_bmp_decode(data, n, want, &h, &w, &ch, err);
  }
  /* errindex: - (the codecs' messages: Invalid PNG data, size …; jpeg::Uncompress failed. Invalid JPEG data or crop window.;
   * the BMP checks of bmpcodec.c) */
  if (!px) op_fail(c, ERR_INVALID_ARGUMENT, "%s", err);
  tfs_i64 shape[4] = {frames, h, w, ch};
  Tensor *t = four_d ? tensor_new(c->outm[0].dtype, 4, shape) : tensor_new(c->outm[0].dtype, 3, shape + 1);
  size_t cnt = (size_t)frames * (size_t)h * (size_t)w * (size_t)ch;
  if (t->dtype == DT_UINT8) memcpy(tensor_data(t), px, cnt);
  else if (t->dtype == DT_UINT16 && fmt == FMT_PNG) memcpy(tensor_data(t), px, cnt * 2);
  else if (t->dtype == DT_UINT16)   /* TF: the uint8 samples times (65535 + 1) / (255 + 1) */
    for (size_t i = 0; i < cnt; i++) ((uint16_t *)tensor_data(t))[i] = (uint16_t)(px[i] * 256u);
  else
    for (size_t i = 0; i < cnt; i++) ((float *)tensor_data(t))[i] = (float)px[i] * (1.0f / 255.0f);
  free(px);
  c->out[0] = t;
}

/* shape: a scalar string (the file's bytes). */
void meta_encode_image(OpCall *c) {
  const TMeta *m = &c->inm[0];
  if (m->dtype != DT_UINT8 && !(m->dtype == DT_UINT16 && c->op->id == OP_ENCODE_PNG))
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'T' of %s is not in the list of allowed values: uint8%s", dtype_info[m->dtype].name,
            c->op->id == OP_ENCODE_PNG ? ", uint16" : "");
  if (m->rank != 3 && m->rank >= 0) {
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "image must be 3-dimensional");
    op_shape_text(&b, m->rank, m->shape);
    /* errindex: image must be 3-dimensional… */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  tfs_i64 ch = m->rank == 3 ? m->shape[2] : -1;
  if (c->op->id == OP_ENCODE_PNG) {
    tfs_i64 level = op_attr_int(c, 0, -1);
    if (level < -1 || level > 9) op_fail(c, ERR_INVALID_ARGUMENT, "compression should be in [-1,9], got %lld", (long long)level);
    if (ch >= 0 && (ch < 1 || ch > 4)) op_fail(c, ERR_INVALID_ARGUMENT, "image must have 1, 2, 3, or 4 channels, got %lld", (long long)ch);
  } else {
    const char *fmt = str_attr(c, 0, "");
    if (*fmt && strcmp(fmt, "grayscale") && strcmp(fmt, "rgb"))
      op_fail(c, ERR_INVALID_ARGUMENT, "format must be '', grayscale or rgb, got %s", fmt);
    tfs_i64 want = !strcmp(fmt, "grayscale") ? 1 : !strcmp(fmt, "rgb") ? 3 : 0;
    if (ch >= 0 && ((want && ch != want) || (!want && ch != 1 && ch != 3))) {
      StrBuf b;
      sb_init(&b);
      if (want) sb_printf(&b, "format '%s' expects %lld channels, got ", fmt, (long long)want);
      else sb_printf(&b, "image must have 1 or 3 channels, got ");
      op_shape_text(&b, m->rank, m->shape);
      /* errindex: image must have 1 or 3 channels, got … */
      op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
    }
    tfs_i64 q = op_attr_int(c, 1, 95);
    if (q < 0 || q > 100) op_fail(c, ERR_INVALID_ARGUMENT, "quality must be in [0,100], got %lld", (long long)q);
    const char *du = str_attr(c, 5, "in");
    if (strcmp(du, "in") && strcmp(du, "cm")) op_fail(c, ERR_INVALID_ARGUMENT, "density_unit must be 'in' or 'cm', got %s", du);
  }
  meta_set(&c->outm[0], DT_STRING, 0, NULL);
}

void k_encode_image(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]);
  int mark = rt_hold_val(val_obj(x));
  if ((uint64_t)x->shape[0] * (uint64_t)x->shape[1] >= ((uint64_t)1 << 29) || x->shape[0] >= (1 << 27) || x->shape[1] >= (1 << 27))
    op_fail(c, ERR_INVALID_ARGUMENT, "image too large to encode: %lld by %lld", (long long)x->shape[0], (long long)x->shape[1]);
  int h = (int)x->shape[0], w = (int)x->shape[1], ch = (int)x->shape[2];
  char err[IMG_ERR_LEN];
  size_t len = 0;
  unsigned char *bytes;
  if (c->op->id == OP_ENCODE_PNG) {
    bytes = img_png_encode(tensor_data(x), h, w, ch, x->dtype == DT_UINT16 ? 16 : 8, (int)op_attr_int(c, 0, -1), &len, err);
  } else {
    bytes = img_jpeg_encode(tensor_data(x), h, w, ch, (int)op_attr_int(c, 1, 95), op_attr_bool(c, 2, false), op_attr_bool(c, 3, false),
                            op_attr_bool(c, 4, true), strcmp(str_attr(c, 5, "in"), "cm") ? 1 : 2, (int)op_attr_int(c, 6, 300),
                            (int)op_attr_int(c, 7, 300), &len, err);
  }
  if (!bytes) op_fail(c, ERR_INTERNAL, "%s failed: %s", c->op->graph_name, err);
  Val v = str_new((const char *)bytes, (tfs_i64)len);
  free(bytes);
  *(Str **)tensor_data(c->out[0]) = (Str *)v.u.o;
  rt_unhold(mark);
  tensor_release(x);
}
