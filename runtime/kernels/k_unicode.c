/* k_unicode.c — UnicodeDecode(WithOffsets), UnicodeEncode and UnicodeTranscode through ICU, as TF's kernels do them. */
#include <string.h>

#include <unicode/ucnv.h>
#include <unicode/ucnv_err.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include "kernels/kstr.h"

/* Why ICU: TF's kernels read with ICU's converters (any name ucnv_open resolves: 'UTF-8', 'utf-16-be', 'latin1', ...)
 * one character at a time, so how many bytes an ill-formed sequence spans, and so how many replacement characters and
 * which offsets come out, is ICU's rule; iconv neither names the same encodings nor reports that span. Output is TF's:
 * a UTF-16 string built as icu::UnicodeString::append builds it, written as UTF-8 (lone surrogates as U+FFFD),
 * UTF-16-BE or UTF-32-BE code units. */

typedef enum { UC_STRICT, UC_REPLACE, UC_IGNORE } UcMode;
typedef enum { UC_UTF8, UC_UTF16BE, UC_UTF32BE } UcOut;

/* TF's ErrorOptions: errors (attribute i), replacement_char (i + 1), replace_control_characters (i + 2) when ctrl */
typedef struct UcOpts {
  UcMode mode;
  UChar32 subst;
  bool ctrl;
} UcOpts;

static UcOpts uc_opts(const OpCall *c, int i, bool ctrl) {
  UcOpts o;
  const char *e = attr_text(c, i, "replace");
  if (!strcmp(e, "strict")) o.mode = UC_STRICT;
  else if (!strcmp(e, "replace")) o.mode = UC_REPLACE;
  else if (!strcmp(e, "ignore")) o.mode = UC_IGNORE;
  else op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'errors' of \"%s\" is not in the list of allowed values: \"strict\", \"replace\", \"ignore\"", e);
  int64_t r = op_attr_int(c, i + 1, 0xFFFD);
  if (r < 0 || r > 0x10FFFF) op_fail(c, ERR_INVALID_ARGUMENT, "replacement_char out of unicode codepoint range");   /* TF: any code point, surrogates too */
  o.subst = (UChar32)r;
  o.ctrl = ctrl && op_attr_bool(c, i + 2, false);
  return o;
}

/* The output_encoding attribute (TF's op definitions list the three) */
static UcOut uc_out(const OpCall *c, int i) {
  const char *e = attr_text(c, i, "");
  if (!strcmp(e, "UTF-8")) return UC_UTF8;
  if (!strcmp(e, "UTF-16-BE")) return UC_UTF16BE;
  if (!strcmp(e, "UTF-32-BE")) return UC_UTF32BE;
  op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'output_encoding' of \"%s\" is not in the list of allowed values: \"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\"", e);
}

/* ---- reading: one ICU converter per op call ---- */

typedef struct UcRead {
  UConverter *cnv;
  bool bad;           /* set by the callback: the character just read was ill-formed or unmappable */
  UErrorCode st;
  UChar *u;           /* the UTF-16 string being built (encode, transcode) */
  int32_t n, cap;
  char *bytes;        /* its encoded form */
  int32_t *cps;       /* decode's code points and starting offsets */
  int64_t *starts;
  tfs_i64 *splits;
} UcRead;

static void uc_release(void *p) {
  UcRead *r = p;
  if (r->cnv) ucnv_close(r->cnv);
  free(r->u);
  free(r->bytes);
  free(r->cps);
  free(r->starts);
  free(r->splits);
  free(r);
}

/* TF's callback: note an ill-formed (or irregular, or unmappable) sequence, then let ICU substitute for it, so that
 * reading goes on past it (ICU's own stop callback would end the string there) */
static void U_CALLCONV uc_flag(const void *ctx, UConverterToUnicodeArgs *args, const char *units, int32_t len,
                               UConverterCallbackReason why, UErrorCode *err) {
  if (why == UCNV_UNASSIGNED || why == UCNV_ILLEGAL || why == UCNV_IRREGULAR) *(bool *)(uintptr_t)ctx = true;
  UCNV_TO_U_CALLBACK_SUBSTITUTE(NULL, args, units, len, why, err);
}

/* A new reader, held (released by an error or by rt_unhold(*mark) and uc_release); a converter for `enc` when given */
static UcRead *uc_new(const OpCall *c, const char *enc, int *mark) {
  UcRead *r = calloc(1, sizeof(UcRead));
  if (!r) rt_throw(ERR_MEMORY, "out of memory");
  *mark = rt_hold_fn(uc_release, r);
  if (!enc) return r;
  UErrorCode st = U_ZERO_ERROR;
  r->cnv = ucnv_open(enc, &st);
  if (U_FAILURE(st)) {
    if (r->cnv) ucnv_close(r->cnv);
    r->cnv = NULL;
    op_fail(c, ERR_INVALID_ARGUMENT, "Could not create converter for input encoding: %s", enc);
  }
  ucnv_setToUCallBack(r->cnv, uc_flag, &r->bad, NULL, NULL, &st);
  if (U_FAILURE(st)) op_fail(c, ERR_INTERNAL, "ICU: could not set the converter's callback (%s)", u_errorName(st));
  return r;
}

static void uc_done(UcRead *r, int mark) {
  rt_unhold(mark);
  uc_release(r);
}

/* The next character of [*p, end) as ICU reads it, and in *bad whether it stood for an ill-formed sequence. As TF,
 * one failure status per string: a hard failure ends the string (no converter reset between strings). */
static UChar32 uc_next(UcRead *r, const char **p, const char *end, bool *bad) {
  r->bad = false;
  UChar32 ch = ucnv_getNextUChar(r->cnv, p, end, &r->st);
  if (U_FAILURE(r->st)) *p = end;
  *bad = r->bad;
  return ch;
}

/* ---- writing ---- */

/* icu::UnicodeString::append(UChar32): a BMP value (a surrogate too) as one unit, a supplementary one as a pair,
 * nothing for a value outside 0..U+10FFFF */
static void uc_append(UcRead *r, UChar32 ch) {
  if (r->n + 2 > r->cap) {
    r->cap = r->cap ? r->cap * 2 : 64;
    r->u = realloc(r->u, sizeof(UChar) * (size_t)r->cap);
    if (!r->u) rt_throw(ERR_MEMORY, "out of memory");
  }
  UBool err = false;
  U16_APPEND(r->u, r->n, r->cap, ch, err);
  (void)err;
}

/* r's UTF-16 string as element i of out, in TF's three output forms */
static void uc_emit(const OpCall *c, UcRead *r, UcOut enc, Tensor *out, tfs_i64 i) {
  size_t need = enc == UC_UTF8 ? (size_t)r->n * 3 : enc == UC_UTF16BE ? (size_t)r->n * 2 : (size_t)r->n * 4;
  free(r->bytes);
  r->bytes = malloc(need + 1);
  if (!r->bytes) rt_throw(ERR_MEMORY, "out of memory");
  unsigned char *b = (unsigned char *)r->bytes;
  size_t k = 0;
  if (enc == UC_UTF8) {   /* toUTF8String: an unpaired surrogate becomes U+FFFD */
    UErrorCode st = U_ZERO_ERROR;
    int32_t len = 0;
    u_strToUTF8WithSub(r->bytes, (int32_t)need + 1, &len, r->u, r->n, 0xFFFD, NULL, &st);
    if (U_FAILURE(st)) op_fail(c, ERR_INTERNAL, "ICU: u_strToUTF8WithSub failed (%s)", u_errorName(st));
    k = (size_t)len;
  } else if (enc == UC_UTF16BE) {
    for (int32_t j = 0; j < r->n; j++) {
      b[k++] = (unsigned char)(r->u[j] >> 8);
      b[k++] = (unsigned char)(r->u[j] & 0xFF);
    }
  } else {   /* code point by code point; an unpaired surrogate is written as its own value (TF's iterator) */
    for (int32_t j = 0; j < r->n;) {
      UChar32 ch;
      U16_NEXT(r->u, j, r->n, ch);
      for (int s = 24; s >= 0; s -= 8) b[k++] = (unsigned char)((uint32_t)ch >> s);
    }
  }
  s_set(out, i, r->bytes, (tfs_i64)k);
}

/* ---- UnicodeDecode, UnicodeDecodeWithOffsets ---- */

static void uc_check_input(const OpCall *c, const char *enc) {
  int mark;
  UcRead *r = uc_new(c, enc, &mark);
  uc_done(r, mark);
}

/* outputs: row_splits (Tsplits) [n + 1], char_values int32 [N] (and char_to_byte_starts int64 [N]) for the flattened input */
void meta_unicode_decode(OpCall *c) {
  uc_opts(c, 1, true);
  uc_check_input(c, attr_text(c, 0, ""));
  int ts = op_attr_dtype(c, 4, DT_INT64);
  if (ts != DT_INT32 && ts != DT_INT64)
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'Tsplits' of %s is not in the list of allowed values: int32, int64", dtype_info[ts].name);
  const TMeta *x = &c->inm[0];
  tfs_i64 n = x->rank < 0 ? -1 : 1, unknown = -1;
  for (int d = 0; d < x->rank && n >= 0; d++) n = x->shape[d] < 0 ? -1 : n * x->shape[d];
  int nout = c->op->id == OP_UNICODE_DECODE_OFFSETS ? 3 : 2;
  op_reserve_outputs(c, nout);
  tfs_i64 ns = n < 0 ? -1 : n + 1;
  meta_set(&c->outm[0], (DType)ts, 1, &ns);
  meta_set(&c->outm[1], DT_INT32, 1, &unknown);
  if (nout == 3) meta_set(&c->outm[2], DT_INT64, 1, &unknown);
}

void k_unicode_decode(OpCall *c) {
  const Tensor *x = c->in[0];
  UcOpts o = uc_opts(c, 1, true);
  bool offs = c->op->id == OP_UNICODE_DECODE_OFFSETS;
  int mark;
  UcRead *r = uc_new(c, attr_text(c, 0, ""), &mark);
  tfs_i64 n = nelems(x), np = n + 1, total = 0, cap = 16;
  r->cps = malloc(sizeof(int32_t) * (size_t)cap);
  r->starts = malloc(sizeof(int64_t) * (size_t)cap);
  r->splits = malloc(sizeof(tfs_i64) * (size_t)np);
  if (!r->cps || !r->starts || !r->splits) rt_throw(ERR_MEMORY, "out of memory");
  r->splits[0] = 0;
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(x, i);
    const char *p = s_data(s), *end = p + s_len(s), *base = p;
    r->st = U_ZERO_ERROR;
    while (p < end) {
      const char *pre = p;
      bool bad;
      UChar32 ch = uc_next(r, &p, end, &bad);
      if (bad && o.mode == UC_STRICT) op_fail(c, ERR_INVALID_ARGUMENT, "Invalid formatting on input string");
      if (bad || (o.ctrl && ch <= 0x1F)) {   /* TF: a control character is replaced (or dropped), never an error */
        if (o.mode == UC_IGNORE) continue;
        ch = o.subst;
      }
      if (total == cap) {
        cap *= 2;
        r->cps = realloc(r->cps, sizeof(int32_t) * (size_t)cap);
        r->starts = realloc(r->starts, sizeof(int64_t) * (size_t)cap);
        if (!r->cps || !r->starts) rt_throw(ERR_MEMORY, "out of memory");
      }
      r->cps[total] = ch;
      r->starts[total++] = pre - base;
    }
    r->splits[i + 1] = total;
  }
  Tensor *rs = tensor_new(c->outm[0].dtype, 1, &np), *cv = tensor_new(DT_INT32, 1, &total);
  for (tfs_i64 i = 0; i < np; i++) dtype_store_i(rs->dtype, (char *)tensor_data(rs) + i * dtype_info[rs->dtype].size, r->splits[i]);
  memcpy(tensor_data(cv), r->cps, sizeof(int32_t) * (size_t)total);
  c->out[0] = rs;
  c->out[1] = cv;
  if (offs) {
    Tensor *st = tensor_new(DT_INT64, 1, &total);
    memcpy(tensor_data(st), r->starts, sizeof(int64_t) * (size_t)total);
    c->out[2] = st;
  }
  uc_done(r, mark);
}

/* ---- UnicodeEncode ---- */

/* shape: one string per row, [len(input_splits) - 1] */
void meta_unicode_encode(OpCall *c) {
  uc_opts(c, 1, false);
  uc_out(c, 0);
  if (c->inm[0].dtype != DT_INT32)
    op_fail(c, ERR_INVALID_ARGUMENT, "cannot compute UnicodeEncode as input #0(zero-based) was expected to be a int32 tensor but is a %s tensor",
            dtype_short_name(c->inm[0].dtype));
  if (c->inm[0].rank >= 0 && c->inm[0].rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "input_values must be a vector");
  if (c->inm[1].rank >= 0 && c->inm[1].rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "input_splits must be a vector");
  tfs_i64 n = c->inm[1].rank == 1 && c->inm[1].shape[0] >= 0 ? (c->inm[1].shape[0] > 0 ? c->inm[1].shape[0] - 1 : 0) : -1;
  meta_set(&c->outm[0], DT_STRING, 1, &n);
}

void k_unicode_encode(OpCall *c) {
  const Tensor *v = c->in[0], *sp = c->in[1];
  UcOpts o = uc_opts(c, 1, false);
  UcOut enc = uc_out(c, 0);
  tfs_i64 nv = nelems(v), ns = nelems(sp);
  const char *sd = (const char *)sp->buf->data;
  size_t ssz = (size_t)dtype_info[sp->dtype].size;
  tfs_i64 prev = 0;
  for (tfs_i64 i = 0; i < ns; i++) {   /* TF's checks: splits start at 0, ascend, end within the values */
    tfs_i64 s = dtype_load_i(sp->dtype, sd + (size_t)tensor_elem_offset(sp, i) * ssz);
    if ((i == 0 && s != 0) || s < prev || s > nv)
      op_fail(c, ERR_INVALID_ARGUMENT, "Invalid split value.");
    prev = s;
  }
  int mark;
  UcRead *r = uc_new(c, NULL, &mark);
  const char *vd = (const char *)v->buf->data;
  for (tfs_i64 row = 0; row + 1 < ns; row++) {
    tfs_i64 a = dtype_load_i(sp->dtype, sd + (size_t)tensor_elem_offset(sp, row) * ssz);
    tfs_i64 e = dtype_load_i(sp->dtype, sd + (size_t)tensor_elem_offset(sp, row + 1) * ssz);
    r->n = 0;
    for (tfs_i64 j = a; j < e; j++) {
      UChar32 cp = *(const int32_t *)(vd + (size_t)tensor_elem_offset(v, j) * 4);
      /* TF: a value that is no Unicode character is an error, or replaced; with 'ignore' it is appended as it is,
       * so a noncharacter stays, a surrogate is a UTF-16 unit, a value outside 0..U+10FFFF is dropped */
      if (!U_IS_UNICODE_CHAR(cp)) {
        if (o.mode == UC_STRICT) op_fail(c, ERR_INVALID_ARGUMENT, "Code point is out of range for Unicode, or a noncharacter.");
        if (o.mode == UC_REPLACE) cp = o.subst;
      }
      uc_append(r, cp);
    }
    uc_emit(c, r, enc, c->out[0], row);
  }
  uc_done(r, mark);
}

/* ---- UnicodeTranscode ---- */

void meta_unicode_transcode(OpCall *c) {
  uc_opts(c, 2, true);
  uc_out(c, 1);
  uc_check_input(c, attr_text(c, 0, ""));
  const TMeta *x = &c->inm[0];
  meta_set(&c->outm[0], DT_STRING, x->rank, x->shape);
}

void k_unicode_transcode(OpCall *c) {
  const Tensor *x = c->in[0];
  UcOpts o = uc_opts(c, 2, true);
  UcOut enc = uc_out(c, 1);
  int mark;
  UcRead *r = uc_new(c, attr_text(c, 0, ""), &mark);
  bool any = false;   /* TF: strict fails after every string is done, on a replaced control character too */
  tfs_i64 n = nelems(x);
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(x, i);
    const char *p = s_data(s), *end = p + s_len(s);
    r->st = U_ZERO_ERROR;
    r->n = 0;
    while (p < end) {
      bool bad;
      UChar32 ch = uc_next(r, &p, end, &bad);
      if (bad || (o.ctrl && ch <= 0x1F)) {
        any = true;
        if (o.mode == UC_IGNORE) continue;
        ch = o.subst;
      }
      uc_append(r, ch);
    }
    uc_emit(c, r, enc, c->out[0], i);
  }
  if (o.mode == UC_STRICT && any) op_fail(c, ERR_INVALID_ARGUMENT, "Invalid formatting on input string");
  uc_done(r, mark);
}
