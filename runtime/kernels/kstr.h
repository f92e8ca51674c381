/* kstr.h — element access shared by the string kernels (k_strings.c, k_strsplit.c). */
#ifndef TFS_KSTR_H
#define TFS_KSTR_H

#include <stdint.h>
#include <stdlib.h>

#include "object/object.h"
#include "kernels/ops.h"

/* Element i of a string tensor (any strides); a NULL element reads as "". */
static inline const Str *s_elem(const Tensor *t, tfs_i64 i) {
  return ((Str *const *)t->buf->data)[tensor_elem_offset(t, i)];
}
static inline const char *s_data(const Str *s) { return s ? s->data : ""; }
static inline tfs_i64 s_len(const Str *s) { return s ? s->len : 0; }
/* Stores a new string as element i of the contiguous output. */
static inline void s_set(Tensor *o, tfs_i64 i, const char *p, tfs_i64 n) {
  Val v = str_new(p, n);
  ((Str **)tensor_data(o))[i] = (Str *)v.u.o;
}
static inline tfs_i64 nelems(const Tensor *t) {
  tfs_i64 n = 1;
  for (int d = 0; d < t->rank; d++) n *= t->shape[d];
  return n;
}
static inline const char *attr_text(const OpCall *c, int i, const char *dflt) {
  Val v = op_attr(c, i);
  return val_is(v, &str_type) ? str_cstr(v) : dflt;
}
/* A scalar string input's text (NUL-terminated by str_new), or fails with TF's message naming `what`. */
static inline const Str *s_scalar(const OpCall *c, int i, const char *what) {
  const Tensor *t = c->in[i];
  if (t->rank != 0) {
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "%s must be scalar, but received ", what);
    op_shape_text(&b, t->rank, t->shape);
    /* errindex: … must be scalar, but received … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  return s_elem(t, 0);
}

/* FarmHash's Fingerprint64 (farmhash.c): TF's string fingerprint. */
uint64_t fingerprint64(const unsigned char *s, size_t len);

/* SipHash-2-4 keyed by two 64-bit words (siphash.c, libcrypto's SIPHASH MAC): TF's StrongKeyedHash.
 * siphash_new gives NULL when libcrypto refuses. */
typedef struct SipKey SipKey;
SipKey *siphash_new(uint64_t k0, uint64_t k1);
uint64_t siphash_of(SipKey *k, const unsigned char *s, size_t len);
void siphash_free(SipKey *k);

#endif
