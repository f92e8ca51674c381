/* k_strings.c — tf.strings' element-wise ops (StringLength/Upper/Lower/Strip/Join, Substr, StringToNumber, AsString, (Static)Regex*,
 * StringToHashBucketFast/Strong) and the joins ReduceJoin, UnsortedSegmentJoin and StringFormat, on the elements' bytes. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kstr.h"
#include "tensor/tprint.h"

/* StringToHashBucketStrong's key attribute (attribute 1): two ints, each taken modulo 2**64 as TF's memcpy of its
 * int64 list into uint64 words; any other count is TF's kernel-construction error. */
static void hash_key(const OpCall *c, uint64_t key[2]) {
  tfs_i64 n = 0;
  const Val *it = NULL;
  int64_t k[2];
  if (!seq_items(op_attr(c, 1), &n, &it) || n != 2) op_fail(c, ERR_INVALID_ARGUMENT, "Key must have 2 elements");
  for (int i = 0; i < 2; i++)
    if (!val_as_int(it[i], &k[i])) op_fail(c, ERR_TYPE, "Expected int for argument 'key' not %s.", val_type_name(it[i]));
  if (key) key[0] = (uint64_t)k[0], key[1] = (uint64_t)k[1];
}

/* shape: the input's; dtype: int32 (StringLength), bool (full match), out_type (StringToNumber), else string. */
void meta_string_unary(OpCall *c) {
  c->outm[0] = c->inm[0];
  switch (c->op->id) {
  case OP_STRING_LENGTH: {
    const char *u = attr_text(c, 0, "BYTE");
    if (strcmp(u, "BYTE") && strcmp(u, "UTF8_CHAR"))
      op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'unit' of \"%s\" is not in the list of allowed values: \"BYTE\", \"UTF8_CHAR\"", u);
    c->outm[0].dtype = DT_INT32;
    break;
  }
  case OP_REGEX_FULL_MATCH: c->outm[0].dtype = DT_BOOL; break;
  case OP_STRING_TO_HASH_BUCKET_FAST: case OP_STRING_TO_HASH_BUCKET_STRONG: {
    tfs_i64 nb = op_attr_int(c, 0, 0);
    if (nb < 1) op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'num_buckets' of %lld must be at least minimum 1", (long long)nb);
    if (c->op->id == OP_STRING_TO_HASH_BUCKET_STRONG) hash_key(c, NULL);
    c->outm[0].dtype = DT_INT64;
    break;
  }
  case OP_STRING_TO_NUMBER: {
    int dt = op_attr_dtype(c, 0, DT_FLOAT32);
    if (dt != DT_FLOAT32 && dt != DT_FLOAT64 && dt != DT_INT32 && dt != DT_INT64)
      op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'out_type' of %s is not in the list of allowed values: float, double, int32, int64",
              dtype_info[dt].name);
    c->outm[0].dtype = (DType)dt;
    break;
  }
  case OP_STRING_UPPER: case OP_STRING_LOWER: {
    const char *e = attr_text(c, 0, "");
    if (*e) op_fail(c, ERR_UNIMPLEMENTED, "%s: tfs's kernel maps ASCII letters only (encoding '', not '%s')", c->op->graph_name, e);
    break;
  }
  default: break;
  }
}

void k_string_length(OpCall *c) {
  bool chars = !strcmp(attr_text(c, 0, "BYTE"), "UTF8_CHAR");
  int32_t *o = tensor_data(c->out[0]);
  tfs_i64 n = nelems(c->in[0]);
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(c->in[0], i);
    tfs_i64 k = s_len(s);
    if (chars) {   /* a UTF-8 character is each byte that is no continuation byte (10xxxxxx), as TF counts */
      const unsigned char *p = (const unsigned char *)s_data(s);
      tfs_i64 m = 0;
      for (tfs_i64 j = 0; j < k; j++) m += (p[j] & 0xC0) != 0x80;
      k = m;
    }
    o[i] = (int32_t)k;
  }
}

void k_string_case(OpCall *c) {
  bool up = c->op->id == OP_STRING_UPPER;
  tfs_i64 n = nelems(c->in[0]);
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(c->in[0], i);
    tfs_i64 k = s_len(s);
    char *b = malloc((size_t)k + 1);
    if (!b) rt_throw(ERR_MEMORY, "out of memory");
    for (tfs_i64 j = 0; j < k; j++) {
      char ch = s->data[j];
      b[j] = up ? (ch >= 'a' && ch <= 'z' ? (char)(ch - 32) : ch) : (ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch);
    }
    s_set(c->out[0], i, b, k);
    free(b);
  }
}

static bool ascii_space(char ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); }

void k_string_strip(OpCall *c) {
  tfs_i64 n = nelems(c->in[0]);
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(c->in[0], i);
    const char *p = s_data(s);
    tfs_i64 a = 0, b = s_len(s);
    while (a < b && ascii_space(p[a])) a++;
    while (b > a && ascii_space(p[b - 1])) b--;
    s_set(c->out[0], i, p + a, b - a);
  }
}

/* shape: the inputs' one shape, scalars broadcasting (unknown dims agree with any). */
void meta_string_join(OpCall *c) {
  const TMeta *sh = NULL, *unknown = NULL;
  for (int i = 0; i < c->nin; i++) {
    const TMeta *m = &c->inm[i];
    if (m->rank == 0) continue;
    if (m->rank < 0) unknown = m;
    if (m->rank < 0 || !sh) {
      if (m->rank > 0) sh = m;
      continue;
    }
    bool same = m->rank == sh->rank;
    for (int d = 0; same && d < m->rank; d++) same = m->shape[d] == sh->shape[d] || m->shape[d] < 0 || sh->shape[d] < 0;
    if (!same) {
      StrBuf b;
      sb_init(&b);
      sb_puts(&b, "Input shapes do not match: ");
      op_shape_text(&b, sh->rank, sh->shape);
      sb_puts(&b, " vs. ");
      op_shape_text(&b, m->rank, m->shape);
      /* errindex: Input shapes do not match: … vs. … */
      op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
    }
  }
  c->outm[0] = sh ? *sh : unknown ? *unknown : c->inm[0];
  c->outm[0].dtype = DT_STRING;
}

void k_string_join(OpCall *c) {
  const char *sep = attr_text(c, 0, "");
  size_t nsep = strlen(sep);
  Tensor *o = c->out[0];
  tfs_i64 n = nelems(o);
  for (tfs_i64 i = 0; i < n; i++) {
    StrBuf b;
    sb_init(&b);
    for (int k = 0; k < c->nin; k++) {
      const Str *s = s_elem(c->in[k], c->in[k]->rank == 0 ? 0 : i);
      if (k) sb_putn(&b, sep, nsep);
      sb_putn(&b, s_data(s), (size_t)s_len(s));
    }
    s_set(o, i, b.data ? b.data : "", (tfs_i64)b.len);
    sb_free(&b);
  }
}

/* shape: the input's; pos and len are scalars or of its shape (TF broadcasts them further). */
void meta_substr(OpCall *c) {
  const char *u = attr_text(c, 0, "BYTE");
  if (strcmp(u, "BYTE") && strcmp(u, "UTF8_CHAR"))
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'unit' of \"%s\" is not in the list of allowed values: \"BYTE\", \"UTF8_CHAR\"", u);
  for (int k = 1; k < 3; k++) {
    const TMeta *m = &c->inm[k], *x = &c->inm[0];
    bool ok = m->rank <= 0 || x->rank < 0 || m->rank == x->rank;
    for (int d = 0; ok && m->rank > 0 && d < m->rank; d++) ok = m->shape[d] == x->shape[d] || m->shape[d] < 0 || x->shape[d] < 0;
    if (!ok) op_fail(c, ERR_UNIMPLEMENTED, "Substr: tfs takes pos and len as scalars or of the input's shape");
  }
  c->outm[0] = c->inm[0];
}

static tfs_i64 int_elem(const Tensor *t, tfs_i64 i) {
  const char *p = (const char *)t->buf->data + tensor_elem_offset(t, t->rank == 0 ? 0 : i) * dtype_info[t->dtype].size;
  return t->dtype == DT_INT32 ? *(const int32_t *)p : *(const tfs_i64 *)p;
}

/* Byte offset of UTF-8 character k of p[0..n) (n when past the end). */
static tfs_i64 utf8_at(const char *p, tfs_i64 n, tfs_i64 k) {
  tfs_i64 j = 0;
  for (; j < n && k > 0; k--)
    for (j++; j < n && ((unsigned char)p[j] & 0xC0) == 0x80; j++) {}
  return j;
}

void k_substr(OpCall *c) {
  bool chars = !strcmp(attr_text(c, 0, "BYTE"), "UTF8_CHAR");
  Tensor *o = c->out[0];
  tfs_i64 n = nelems(o);
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(c->in[0], i);
    const char *p = s_data(s);
    tfs_i64 len = s_len(s), size = len, pos = int_elem(c->in[1], i), k = int_elem(c->in[2], i);
    if (chars) {
      size = 0;
      for (tfs_i64 j = 0; j < len; j++) size += ((unsigned char)p[j] & 0xC0) != 0x80;
    }
    if (pos > size || pos < -size) {
      StrBuf m;
      sb_init(&m);
      sb_printf(&m, "pos %lld out of range for string b'", (long long)pos);
      sb_putn(&m, p, (size_t)len);
      sb_printf(&m, "' at index %lld", (long long)i);
      /* errindex: pos … out of range for string b'…' at index … */
      op_fail_sb(c, ERR_INVALID_ARGUMENT, &m);
    }
    if (pos < 0) pos += size;
    if (k < 0 || k > size - pos) k = size - pos;   /* a negative len takes the rest, as TF's size_t substr does */
    tfs_i64 a = chars ? utf8_at(p, len, pos) : pos, b = chars ? a + utf8_at(p + a, len - a, k) : pos + k;
    s_set(o, i, p + a, b - a);
  }
}

/* TF's safe_strto*: surrounding ASCII whitespace allowed, the rest must be the whole number (in range). */
static bool parse_number(const char *p, tfs_i64 len, DType dt, double *f, tfs_i64 *iv) {
  tfs_i64 a = 0, b = len;
  while (a < b && ascii_space(p[a])) a++;
  while (b > a && ascii_space(p[b - 1])) b--;
  if (a == b || (tfs_i64)strlen(p + a) < b - a) return false;   /* empty, or a NUL inside */
  char *t = malloc((size_t)(b - a) + 1), *end;
  if (!t) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(t, p + a, (size_t)(b - a));
  t[b - a] = 0;
  errno = 0;
  bool ok;
  if (dt == DT_INT32 || dt == DT_INT64) {
    long long v = strtoll(t, &end, 10);
    ok = *end == 0 && errno == 0 && (dt == DT_INT64 || (v >= INT32_MIN && v <= INT32_MAX));
    *iv = v;
  } else {
    *f = dt == DT_FLOAT32 ? (double)strtof(t, &end) : strtod(t, &end);
    ok = *end == 0;   /* overflow gives inf, as TF's converter does */
  }
  free(t);
  return ok;
}

void k_string_to_number(OpCall *c) {
  DType dt = c->out[0]->dtype;
  char *o = tensor_data(c->out[0]);
  tfs_i64 n = nelems(c->in[0]);
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(c->in[0], i);
    double f = 0;
    tfs_i64 iv = 0;
    if (!parse_number(s_data(s), s_len(s), dt, &f, &iv))
      op_fail(c, ERR_INVALID_ARGUMENT, "StringToNumberOp could not correctly convert string: %s", s_data(s));
    if (dt == DT_INT32 || dt == DT_INT64) dtype_store_i(dt, o + i * dtype_info[dt].size, iv);
    else dtype_store_f(dt, o + i * dtype_info[dt].size, f);
  }
}

/* The printf format AsString uses for c's dtype and attributes (fmt holds 32 bytes); raises TF's errors. */
static void as_string_format(const OpCall *c, DType dt, char *fmt) {
  tfs_i64 prec = op_attr_int(c, 0, -1), width = op_attr_int(c, 3, -1);
  bool sci = op_attr_bool(c, 1, false), shortest = op_attr_bool(c, 2, false);
  const char *fill = attr_text(c, 4, "");
  bool flt = dtype_info[dt].is_float;
  if (!flt && (sci || shortest))
    op_fail(c, ERR_INVALID_ARGUMENT, "scientific and shortest format not supported for datatype %s", dtype_info[dt].name);
  if (!flt && prec > -1) op_fail(c, ERR_INVALID_ARGUMENT, "precision not supported for datatype %s", dtype_info[dt].name);
  if (strlen(fill) > 1) op_fail(c, ERR_INVALID_ARGUMENT, "Fill string must be one or fewer characters");
  if (sci && shortest) op_fail(c, ERR_INVALID_ARGUMENT, "Cannot select both scientific and shortest notation");
  if (*fill && !strchr(" +-0#", *fill)) op_fail(c, ERR_INVALID_ARGUMENT, "Fill argument not supported: \"%s\"", fill);
  int k = snprintf(fmt, 32, "%%%s", fill);
  if (width > -1) k += snprintf(fmt + k, (size_t)(32 - k), "%d", (int)(width > 9999 ? 9999 : width));
  if (flt && prec > -1) k += snprintf(fmt + k, (size_t)(32 - k), ".%d", (int)(prec > 999 ? 999 : prec));
  snprintf(fmt + k, (size_t)(32 - k), "%s", flt ? (sci ? "e" : shortest ? "g" : "f") : dt == DT_UINT64 ? PRIu64 : PRId64);
}

void meta_as_string(OpCall *c) {
  char fmt[32];
  as_string_format(c, c->inm[0].dtype, fmt);
  c->outm[0] = c->inm[0];
  c->outm[0].dtype = DT_STRING;
}

void k_as_string(OpCall *c) {
  const Tensor *t = c->in[0];
  DType dt = t->dtype;
  char fmt[32], small[64];
  as_string_format(c, dt, fmt);
  tfs_i64 n = nelems(t);
  size_t esz = (size_t)dtype_info[dt].size;
  for (tfs_i64 i = 0; i < n; i++) {
    const char *p = (const char *)t->buf->data + tensor_elem_offset(t, i) * (tfs_i64)esz;
    if (dt == DT_BOOL) {
      bool v = *(const bool *)p;
      s_set(c->out[0], i, v ? "true" : "false", v ? 4 : 5);
      continue;
    }
    int len;
    char *buf = small;
    for (int pass = 0; pass < 2; pass++) {   /* a second pass for a result longer than small */
      size_t cap = pass ? (size_t)len + 1 : sizeof small;
      if (dtype_info[dt].is_float) len = snprintf(buf, cap, fmt, dtype_load_f(dt, p));
      else if (dt == DT_UINT64) len = snprintf(buf, cap, fmt, *(const uint64_t *)p);
      else len = snprintf(buf, cap, fmt, (int64_t)dtype_load_i(dt, p));
      if (len < (int)sizeof small || pass) break;
      buf = malloc((size_t)len + 1);
      if (!buf) rt_throw(ERR_MEMORY, "out of memory");
    }
    s_set(c->out[0], i, buf, len);
    if (buf != small) free(buf);
  }
}

/* ---- regular expressions (PCRE2 where TF has RE2; the syntax both accept matches the same) ---- */

static pcre2_code *rx_compile(const OpCall *c, const char *pat, uint32_t opt) {
  int err;
  PCRE2_SIZE off;
  pcre2_code *rx = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, opt | PCRE2_UTF | PCRE2_NO_UTF_CHECK, &err, &off, NULL);
  if (!rx) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    op_fail(c, ERR_INVALID_ARGUMENT, "Invalid pattern: %s, error: %s", pat, (const char *)msg);
  }
  return rx;
}

void k_regex_full_match(OpCall *c) {
  pcre2_code *rx = rx_compile(c, attr_text(c, 0, ""), PCRE2_ANCHORED | PCRE2_ENDANCHORED);
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(rx, NULL);
  bool *o = tensor_data(c->out[0]);
  tfs_i64 n = nelems(c->in[0]);
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(c->in[0], i);
    o[i] = pcre2_match(rx, (PCRE2_SPTR)s_data(s), (PCRE2_SIZE)s_len(s), 0, PCRE2_NO_UTF_CHECK, md, NULL) >= 0;
  }
  pcre2_match_data_free(md);
  pcre2_code_free(rx);
}

/* RE2's rewrite: \0..\9 insert the match or a group, \\ a backslash; anything else is copied. */
static void rx_rewrite(StrBuf *b, const char *rw, const char *subj, const PCRE2_SIZE *ov, int ngroups) {
  for (const char *p = rw; *p; p++) {
    if (*p == '\\' && p[1] >= '0' && p[1] <= '9') {
      int g = p[1] - '0';
      if (g < ngroups && ov[2 * g] != PCRE2_UNSET) sb_putn(b, subj + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
      p++;
    } else if (*p == '\\' && p[1] == '\\') {
      sb_putc(b, '\\');
      p++;
    } else {
      sb_putc(b, *p);
    }
  }
}

/* RegexReplace: pattern and rewrite are scalar string tensors; the output has the input's shape. */
void meta_regex_replace_t(OpCall *c) {
  for (int i = 1; i < 3; i++)
    if (c->inm[i].dtype != DT_STRING)
      op_fail(c, ERR_INVALID_ARGUMENT, "cannot compute RegexReplace as input #%d(zero-based) was expected to be a string tensor but is a %s tensor",
              i, dtype_short_name(c->inm[i].dtype));
  c->outm[0] = c->inm[0];
}

void k_regex_replace(OpCall *c) {
  bool tensors = c->op->id == OP_REGEX_REPLACE_T;   /* RegexReplace: pattern, rewrite as inputs 1, 2 */
  const char *pat = tensors ? s_data(s_scalar(c, 1, "Pattern")) : attr_text(c, 0, "");
  const char *rw = tensors ? s_data(s_scalar(c, 2, "Rewrite")) : attr_text(c, 1, "");
  pcre2_code *rx = rx_compile(c, pat, 0);
  bool global = op_attr_bool(c, tensors ? 0 : 2, true);
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(rx, NULL);
  tfs_i64 n = nelems(c->in[0]);
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(c->in[0], i);
    const char *p = s_data(s);
    PCRE2_SIZE len = (PCRE2_SIZE)s_len(s), pos = 0, copied = 0, last_end = (PCRE2_SIZE)-1;
    StrBuf b;
    sb_init(&b);
    while (pos <= len) {
      int rc = pcre2_match(rx, (PCRE2_SPTR)p, len, pos, PCRE2_NO_UTF_CHECK, md, NULL);
      if (rc < 0) break;
      const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
      if (ov[0] == ov[1] && ov[0] == last_end) {   /* RE2 takes no empty match where the last match ended */
        if (ov[0] >= len) break;
        pos = ov[0] + 1;
        while (pos < len && ((unsigned char)p[pos] & 0xC0) == 0x80) pos++;
        continue;
      }
      sb_putn(&b, p + copied, ov[0] - copied);
      rx_rewrite(&b, rw, p, ov, rc);
      copied = last_end = ov[1];
      if (!global) break;
      if (ov[1] > ov[0]) pos = ov[1];
      else {
        if (ov[1] >= len) break;
        pos = ov[1] + 1;   /* past an empty match: one UTF-8 character on */
        while (pos < len && ((unsigned char)p[pos] & 0xC0) == 0x80) pos++;
        sb_putn(&b, p + copied, pos - copied);
        copied = pos;
      }
    }
    sb_putn(&b, p + copied, len - copied);
    s_set(c->out[0], i, b.data ? b.data : "", (tfs_i64)b.len);
    sb_free(&b);
  }
  pcre2_match_data_free(md);
  pcre2_code_free(rx);
}

/* StringToHashBucketFast (Fingerprint64) and StringToHashBucketStrong (SipHash-2-4 keyed by its key attribute) */
void k_string_hash_bucket(OpCall *c) {
  uint64_t nb = (uint64_t)op_attr_int(c, 0, 1);
  int64_t *o = tensor_data(c->out[0]);
  tfs_i64 n = nelems(c->in[0]);
  SipKey *sk = NULL;
  if (c->op->id == OP_STRING_TO_HASH_BUCKET_STRONG) {
    uint64_t key[2];
    hash_key(c, key);
    if (!(sk = siphash_new(key[0], key[1]))) op_fail(c, ERR_INTERNAL, "StringToHashBucketStrong: libcrypto has no SIPHASH MAC");
  }
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(c->in[0], i);
    const unsigned char *p = (const unsigned char *)s_data(s);
    uint64_t h = sk ? siphash_of(sk, p, (size_t)s_len(s)) : fingerprint64(p, (size_t)s_len(s));
    o[i] = (int64_t)(h % nb);
  }
  siphash_free(sk);
}

/* ---- ReduceJoin ---- */

/* The reduction axes of c (attribute 0: an int, a list of them, or None for all) as a mask of the input's dims;
 * raises TF's errors for one out of range or given twice. */
static unsigned rj_axes(const OpCall *c, int rank) {
  Val v = op_attr(c, 0);
  if (v.tag == VT_NONE || val_is_undef(v)) return rank > 0 ? (1u << rank) - 1 : 0;
  tfs_i64 n = 1;
  const Val *it = &v;
  if (val_is(v, &list_type) || val_is(v, &tuple_type)) seq_items(v, &n, &it);
  unsigned mask = 0;
  for (tfs_i64 k = 0; k < n; k++) {
    int64_t a;
    if (!val_as_int(it[k], &a)) op_fail(c, ERR_TYPE, "ReduceJoin: reduction_indices must be integers");
    if (a < -rank || a >= rank)
      op_fail(c, ERR_INVALID_ARGUMENT, "Invalid reduction dimension %lld for input with %d dimensions.", (long long)a, rank);
    if (a < 0) a += rank;
    if (mask & (1u << a)) op_fail(c, ERR_INVALID_ARGUMENT, "Duplicate reduction dimension %lld", (long long)a);
    mask |= 1u << a;
  }
  return mask;
}

/* shape: the input's without the reduced dims (size 1 with keep_dims) */
void meta_reduce_join(OpCall *c) {
  const TMeta *x = &c->inm[0];
  bool keep = op_attr_bool(c, 1, false);
  if (x->rank < 0) {
    c->outm[0] = *x;
    return;
  }
  unsigned mask = rj_axes(c, x->rank);
  TMeta *o = &c->outm[0];
  o->dtype = DT_STRING;
  o->rank = 0;
  for (int d = 0; d < x->rank; d++)
    if (!(mask & (1u << d))) o->shape[o->rank++] = x->shape[d];
    else if (keep) o->shape[o->rank++] = 1;
}

void k_reduce_join(OpCall *c) {
  const Tensor *x = c->in[0];
  unsigned mask = rj_axes(c, x->rank);
  const char *sep = attr_text(c, 2, "");
  size_t nsep = strlen(sep);
  /* kept dims outer, reduced dims inner, both in the input's order: each output joins one inner block */
  int kd[TFS_MAX_RANK], rd[TFS_MAX_RANK], nk = 0, nr = 0;
  tfs_i64 inner = 1;
  for (int d = 0; d < x->rank; d++) {
    if (mask & (1u << d)) { rd[nr++] = d; inner *= x->shape[d]; }
    else kd[nk++] = d;
  }
  tfs_i64 nout = nelems(c->out[0]), idx[TFS_MAX_RANK];
  for (tfs_i64 o = 0; o < nout; o++) {
    tfs_i64 r = o;
    for (int k = nk - 1; k >= 0; k--) { idx[kd[k]] = r % x->shape[kd[k]]; r /= x->shape[kd[k]]; }
    StrBuf b;
    sb_init(&b);
    for (tfs_i64 j = 0; j < inner; j++) {
      tfs_i64 q = j;
      for (int k = nr - 1; k >= 0; k--) { idx[rd[k]] = q % x->shape[rd[k]]; q /= x->shape[rd[k]]; }
      tfs_i64 flat = 0;
      for (int d = 0; d < x->rank; d++) flat = flat * x->shape[d] + idx[d];
      const Str *s = s_elem(x, flat);
      if (j) sb_putn(&b, sep, nsep);
      sb_putn(&b, s_data(s), (size_t)s_len(s));
    }
    s_set(c->out[0], o, b.data ? b.data : "", (tfs_i64)b.len);
    sb_free(&b);
  }
}

/* ---- UnsortedSegmentJoin (1-D segment_ids: the rows of inputs) ---- */

/* shape: [num_segments] + inputs.shape[1:] (num_segments is a value: unknown while traced) */
void meta_segment_join(OpCall *c) {
  const TMeta *x = &c->inm[0], *ids = &c->inm[1];
  if (ids->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "Segment_id cannot have rank 0");
  if (ids->rank > 1) op_fail(c, ERR_UNIMPLEMENTED, "UnsortedSegmentJoin: tfs takes 1-D segment_ids (the rows of inputs)");
  if (x->rank == 0)
    op_fail(c, ERR_INVALID_ARGUMENT, "Segment dimension is %lld while input dimension is %d in rank 0", (long long)ids->shape[0], x->rank);
  c->outm[0] = *x;
  if (x->rank > 0) c->outm[0].shape[0] = -1;
}

void k_segment_join(OpCall *c) {
  const Tensor *x = c->in[0], *ids = c->in[1], *ns = c->in[2];
  if (nelems(ns) == 0) op_fail(c, ERR_INVALID_ARGUMENT, "Number of segments cannot be empty.");
  tfs_i64 n = int_elem(ns, 0), rows = ids->shape[0], width = nelems(x) / (x->shape[0] ? x->shape[0] : 1);
  if (x->shape[0] != rows)
    op_fail(c, ERR_INVALID_ARGUMENT, "Segment dimension is %lld while input dimension is %d in rank 0", (long long)rows, x->rank);
  for (tfs_i64 i = 0; i < rows; i++) {
    tfs_i64 k = int_elem(ids, i);
    if (k < 0 || k >= n) op_fail(c, ERR_INVALID_ARGUMENT, "segment_ids are not allowed to exceed num_segments or to have negative values.");
  }
  tfs_i64 shape[TFS_MAX_RANK];
  memcpy(shape, x->shape, sizeof(tfs_i64) * (size_t)x->rank);
  shape[0] = n < 0 ? 0 : n;
  Tensor *o = tensor_new(DT_STRING, x->rank, shape);
  c->out[0] = o;
  const char *sep = attr_text(c, 0, "");
  size_t nsep = strlen(sep);
  tfs_i64 nout = shape[0] * width;
  StrBuf *acc = calloc((size_t)(nout ? nout : 1), sizeof(StrBuf));
  if (!acc) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < rows; i++)
    for (tfs_i64 j = 0; j < width; j++) {
      StrBuf *b = &acc[int_elem(ids, i) * width + j];
      const Str *s = s_elem(x, i * width + j);
      if (b->len) sb_putn(b, sep, nsep);   /* TF appends the separator only after a non-empty part */
      sb_putn(b, s_data(s), (size_t)s_len(s));
    }
  for (tfs_i64 k = 0; k < nout; k++) {
    s_set(o, k, acc[k].data ? acc[k].data : "", (tfs_i64)acc[k].len);
    sb_free(&acc[k]);
  }
  free(acc);
}

/* ---- StringFormat ---- */

/* The number of placeholders in template (non-overlapping, left to right). */
static int fmt_count(const char *tpl, const char *ph) {
  size_t n = strlen(ph);
  int k = 0;
  if (!n) return 0;
  for (const char *p = strstr(tpl, ph); p; p = strstr(p + n, ph)) k++;
  return k;
}

/* shape: a scalar string; the template's placeholders must be as many as the inputs */
void meta_string_format(OpCall *c) {
  const char *tpl = attr_text(c, 0, "%s"), *ph = attr_text(c, 1, "%s");
  int k = fmt_count(tpl, ph);
  if (k != c->nin)
    op_fail(c, ERR_INVALID_ARGUMENT, "num placeholders in template and num inputs must match: %d vs. %d", k, c->nin);
  meta_set(&c->outm[0], DT_STRING, 0, NULL);
}

void k_string_format(OpCall *c) {
  const char *tpl = attr_text(c, 0, "%s"), *ph = attr_text(c, 1, "%s");
  tfs_i64 summarize = op_attr_int(c, 2, 3);
  size_t n = strlen(ph);
  StrBuf b;
  sb_init(&b);
  const char *p = tpl;
  for (int i = 0; i < c->nin; i++) {
    const char *q = strstr(p, ph);
    sb_putn(&b, p, (size_t)(q - p));
    tprint_tfprint_n(&b, c->in[i], summarize);
    p = q + n;
  }
  sb_puts(&b, p);
  s_set(c->out[0], 0, b.data ? b.data : "", (tfs_i64)b.len);
  sb_free(&b);
}

/* ---- tf.io.decode_raw: each string's bytes as a row of elements ---- */

/* The output dtype (TF's out_type list: numbers and bool, no strings). */
static DType decode_raw_type(OpCall *c) {
  DType dt;
  if (!val_as_dtype(op_attr(c, 0), &dt) || dt == DT_STRING || dtype_info[dt].size <= 0 ||
      dt == DT_UINT32 || dt == DT_UINT64)
    /* errindex: Value for attr 'out_type' of … is not in the list of allowed values: half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, complex128, bool, bfloat16 */
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'out_type' of %s is not in the list of allowed values: half, float, double, "
            "int32, uint16, uint8, int16, int8, int64, complex64, complex128, bool, bfloat16",
            val_as_dtype(op_attr(c, 0), &dt) ? dtype_short_name(dt) : "that type");
  return dt;
}

/* DecodePaddedRaw's fixed_length (-1: not known while tracing), checked as TF's kernel does. */
static tfs_i64 decode_raw_fixed(OpCall *c, int esz) {
  if (c->op->id != OP_DECODE_PADDED_RAW) return -1;
  const Tensor *f = c->in[1];
  if (!f || f->sym || !f->buf) return -1;
  if (f->rank != 0) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "k must be scalar, got shape ");
    op_shape_text(&b, f->rank, f->shape);
    /* errindex: k must be scalar, got shape … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  tfs_i64 n = tensor_get_i(f, 0);
  if (n % esz) op_fail(c, ERR_INVALID_ARGUMENT, "fixed_length (%lld) must be a multiple of the size of out_type (%d)", (long long)n, esz);
  if (n <= 0) op_fail(c, ERR_INVALID_ARGUMENT, "fixed_length (%lld) must be greater than zero.", (long long)n);
  return n;
}

/* shape: bytes' shape plus a last dimension of each string's length over the element size (fixed_length's with DecodePaddedRaw). */
void meta_decode_raw(OpCall *c) {
  DType dt = decode_raw_type(c);
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  *o = *a;
  o->dtype = dt;
  if (a->rank < 0) return;
  if (a->rank >= TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "DecodeRaw: input of rank %d has too many dimensions", a->rank);
  tfs_i64 fixed = decode_raw_fixed(c, dtype_info[dt].size);
  o->shape[o->rank++] = fixed < 0 ? -1 : fixed / dtype_info[dt].size;
}

void k_decode_raw(OpCall *c) {
  const Tensor *in = c->in[0];
  DType dt = decode_raw_type(c);
  int esz = dtype_info[dt].size;
  bool padded = c->op->id == OP_DECODE_PADDED_RAW;
  tfs_i64 fixed = decode_raw_fixed(c, esz);
  Val le = op_attr(c, 1);
  bool swap = le.tag == VT_BOOL && !le.u.i;   /* big-endian data on this little-endian host */
  tfs_i64 n = nelems(in), width = padded ? fixed : -1;
  if (!padded) {
    /* every string the same length, a whole number of elements (TF's DecodeRaw) */
    tfs_i64 len = n ? s_len(s_elem(in, 0)) : 0;
    if (len % esz)
      op_fail(c, ERR_INVALID_ARGUMENT, "Input to DecodeRaw has length %lld that is not a multiple of %d, the size of %s",
              (long long)len, esz, dtype_short_name(dt));
    for (tfs_i64 i = 1; i < n; i++) {
      tfs_i64 k = s_len(s_elem(in, i));
      if (k != len)
        op_fail(c, ERR_INVALID_ARGUMENT, "DecodeRaw requires input strings to all be the same size, but element %lld has size %lld != %lld",
                (long long)i, (long long)len, (long long)k);
    }
    width = len;
  }
  tfs_i64 shape[TFS_MAX_RANK];
  memcpy(shape, in->shape, sizeof(tfs_i64) * (size_t)in->rank);
  shape[in->rank] = width / esz;
  Tensor *o = tensor_new(dt, in->rank + 1, shape);
  unsigned char *p = tensor_data(o);
  memset(p, 0, (size_t)(n * width));   /* DecodePaddedRaw pads short strings with zeros */
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(in, i);
    tfs_i64 k = s_len(s) < width ? s_len(s) : width;
    memcpy(p + i * width, s_data(s), (size_t)k);
  }
  if (swap) {   /* each number reversed; a complex number's two parts each on their own, as TF swaps them */
    int part = dtype_is_complex(dt) ? esz / 2 : esz;
    for (tfs_i64 j = 0; part > 1 && j + part <= n * width; j += part)
      for (int a = 0, b = part - 1; a < b; a++, b--) {
        unsigned char t = p[j + a];
        p[j + a] = p[j + b];
        p[j + b] = t;
      }
  }
  c->out[0] = o;
}
