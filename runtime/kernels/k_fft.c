/* k_fft.c — tf.signal's FFT, IFFT, RFFT and IRFFT over the innermost axis, computed by kissfft (Debian's
 * libkissfft-dev, BSD).  Debian 12 ships kissfft's float build only, so complex64 and float32 are supported and
 * complex128/float64 are refused (computing them in float would lose half their precision silently).
 * RFFT/IRFFT pad or crop the innermost axis to fft_length as TF's Python wrappers and kernels do together; IRFFT
 * ignores the imaginary parts of the DC (and, for even lengths, the Nyquist) bin, as TF's C2R transform does. */
#include <kiss_fft.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "object/object.h"

static bool is_real_fft(OpId id) { return id == OP_RFFT || id == OP_IRFFT; }

/* fft_length (attribute 0) as one int: a list/tuple or a 1-D int tensor; false when None.  Checks as TF's
 * wrappers (the static checks of fft_ops.py) and its FFT kernel (the shape of fft_length). */
static bool fft_length_attr(OpCall *c, tfs_i64 *n) {
  Val v = op_attr(c, 0);
  if (v.tag == VT_NONE || val_is_undef(v)) return false;
  bool irfft = c->op->id == OP_IRFFT;
  tfs_i64 cnt = -1, vals[8];
  int rank = 1;
  const Val *items;
  Tensor *t;
  if (seq_items(v, &cnt, &items)) {
    for (tfs_i64 i = 0; i < cnt && i < 8; i++) {
      int64_t x;
      if (!val_as_int(items[i], &x)) op_fail(c, ERR_TYPE, "fft_length must be a list of ints");
      vals[i] = x;
    }
  } else if ((t = val_as_tensor(v))) {
    if (t->sym) op_fail(c, ERR_UNIMPLEMENTED, "fft_length must be known while tracing in tfs (a Python list or constant)");
    if (t->dtype != DT_INT32 && t->dtype != DT_INT64) op_fail(c, ERR_TYPE, "fft_length must be an int32 tensor");
    rank = t->rank;
    cnt = t->size;
    for (tfs_i64 i = 0; i < cnt && i < 8; i++) vals[i] = tensor_get_i(t, i);
  } else {
    int64_t x;
    if (!val_as_int(v, &x)) op_fail(c, ERR_TYPE, "fft_length must be a list of ints");
    rank = 0, cnt = 1, vals[0] = x;
  }
  if (irfft) {
    if (rank != 1) op_fail(c, ERR_VALUE, rank == 0 ? "Shape () must have rank 1" : "Shape must have rank 1");
    if (cnt != 1) op_fail(c, ERR_VALUE, "Dimension must be 1 but is %lld", (long long)cnt);
    if (vals[0] <= 0 && c->inm[0].rank >= 0) {
      bool empty = false;
      for (int i = 0; i < c->inm[0].rank; i++) empty |= c->inm[0].shape[i] == 0;
      if (!empty) op_fail(c, ERR_VALUE, "fft_length[-1] must be > 0, got %lld", (long long)vals[0]);
    }
  } else {
    for (tfs_i64 i = 0; i < cnt && i < 8; i++)
      if (vals[i] < 0) op_fail(c, ERR_VALUE, "`fft_length` must be non-negative, got %lld.", (long long)vals[i]);
    if (rank != 1 || cnt != 1) op_fail(c, ERR_INVALID_ARGUMENT, "fft_length must have shape [1]");
  }
  *n = vals[0] < 0 ? 0 : vals[0];
  return true;
}

/* shape: FFT/IFFT keep the input's; RFFT [..., n / 2 + 1] (complex64), IRFFT [..., n] (float32); iscr[0] = n. */
void meta_fft(OpCall *c) {
  const TMeta *a = &c->inm[0];
  OpId id = c->op->id;
  if (a->rank == 0)
    op_fail(c, ERR_INVALID_ARGUMENT, "Input must have rank of at least 1 but got: []");
  if (a->dtype == DT_COMPLEX128 || a->dtype == DT_FLOAT64)
    op_fail(c, ERR_UNIMPLEMENTED, "%s of %s is not supported by tfs: Debian's kissfft is built for float only "
            "(use %s)", c->op->graph_name, dtype_short_name(a->dtype), a->dtype == DT_FLOAT64 ? "float32" : "complex64");
  TMeta *o = &c->outm[0];
  *o = *a;
  if (!is_real_fft(id)) return;
  o->dtype = id == OP_RFFT ? DT_COMPLEX64 : DT_FLOAT32;
  tfs_i64 last = a->rank > 0 ? a->shape[a->rank - 1] : -1, n;
  if (!fft_length_attr(c, &n)) n = last < 0 ? -1 : id == OP_RFFT ? last : (last > 1 ? 2 * (last - 1) : 0);
  c->iscr[0] = n;
  if (a->rank > 0) o->shape[a->rank - 1] = n < 0 ? -1 : id == OP_RFFT ? (n ? n / 2 + 1 : 0) : n;
}

static void *fft_mem(size_t bytes) {
  void *p = calloc(1, bytes ? bytes : 1);
  if (!p) rt_throw(ERR_MEMORY, "out of memory in FFT");
  rt_hold_mem(p);
  return p;
}

void k_fft(OpCall *c) {
  Tensor *a = tensor_contiguous(c->in[0]), *o = c->out[0];
  int mark = rt_hold_val(val_obj(a));
  OpId id = c->op->id;
  tfs_i64 lin = a->shape[a->rank - 1], lout = o->shape[o->rank - 1];
  tfs_i64 n = is_real_fft(id) ? c->iscr[0] : lin;   /* the transform's length */
  memset(tensor_data(o), 0, (size_t)o->size * (size_t)dtype_info[o->dtype].size);
  if (o->size == 0 || n == 0 || a->size == 0) {
    rt_unhold(mark);
    tensor_release(a);
    return;
  }
  tfs_i64 nb = o->size / lout;
  bool inverse = id == OP_IFFT || id == OP_IRFFT;
  kiss_fft_cfg cfg = kiss_fft_alloc((int)n, inverse, NULL, NULL);
  if (!cfg) rt_throw(ERR_MEMORY, "out of memory in FFT");
  rt_hold_mem(cfg);   /* kiss_fft_free is free() */
  kiss_fft_cpx *buf = fft_mem(sizeof(kiss_fft_cpx) * (size_t)n), *res = fft_mem(sizeof(kiss_fft_cpx) * (size_t)n);
  const char *src = tensor_data(a);
  char *dst = tensor_data(o);
  tfs_i64 m = n / 2 + 1;   /* the bins a real signal's spectrum keeps */
  for (tfs_i64 b = 0; b < nb; b++) {
    switch (id) {
      case OP_FFT:
      case OP_IFFT: {
        kiss_fft(cfg, (const kiss_fft_cpx *)(src + (size_t)(b * lin) * sizeof(kiss_fft_cpx)), res);
        float *out = (float *)(dst + (size_t)(b * n) * sizeof(kiss_fft_cpx)), s = inverse ? 1.0f / (float)n : 1.0f;
        for (tfs_i64 k = 0; k < n; k++) out[2 * k] = res[k].r * s, out[2 * k + 1] = res[k].i * s;
        break;
      }
      case OP_RFFT: {
        const float *x = (const float *)src + b * lin;
        for (tfs_i64 k = 0; k < n; k++) buf[k].r = k < lin ? x[k] : 0.0f, buf[k].i = 0.0f;
        kiss_fft(cfg, buf, res);
        memcpy(dst + (size_t)(b * lout) * sizeof(kiss_fft_cpx), res, sizeof(kiss_fft_cpx) * (size_t)lout);
        break;
      }
      default: {   /* IRFFT: the Hermitian spectrum from its first m bins (missing ones zero), inverse, real part */
        const kiss_fft_cpx *x = (const kiss_fft_cpx *)(src + (size_t)(b * lin) * sizeof(kiss_fft_cpx));
        for (tfs_i64 k = 0; k < n; k++) buf[k].r = buf[k].i = 0.0f;
        for (tfs_i64 k = 0; k < m && k < lin; k++) buf[k] = x[k];
        buf[0].i = 0.0f;
        if (n % 2 == 0) buf[n / 2].i = 0.0f;
        for (tfs_i64 k = m; k < n; k++) buf[k].r = buf[n - k].r, buf[k].i = -buf[n - k].i;
        kiss_fft(cfg, buf, res);
        float *out = (float *)dst + b * n;
        for (tfs_i64 k = 0; k < n; k++) out[k] = res[k].r / (float)n;
      }
    }
  }
  rt_unhold(mark);
  free(res);
  free(buf);
  kiss_fft_free(cfg);
  tensor_release(a);
}
