/* k_sparse_struct.c — a SparseTensor's layout changed: TF's SparseReshape, SparseSlice (+ SparseSliceGrad), SparseConcat. */
#define _GNU_SOURCE   /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/k_sparse.h"

static bool rank_not(const TMeta *m, int r) { return m->rank >= 0 && m->rank != r; }

/* "<what> should be a <kind> but received shape [..]<tail>" when m's known rank is not r */
static void need_rank(const OpCall *c, const TMeta *m, int r, const char *what, const char *tail) {
  if (!rank_not(m, r)) return;
  StrBuf msg;
  sb_init(&msg);
  sb_printf(&msg, "%s should be a %s but received shape ", what, r == 2 ? "matrix" : "vector");
  op_shape_text(&msg, m->rank, m->shape);
  sb_puts(&msg, tail);
  /* errindex: Input indices should be a matrix but received shape … */
  /* errindex: Input shape should be a vector but received shape … */
  /* errindex: Target shape should be a vector but received shape … */
  /* errindex: Input start should be a vector but received shape … */
  /* errindex: Input size should be a vector but received shape … */
  /* errindex: Input backprop_val_grad should be a vector but received shape … */
  /* errindex: The input_start should be a vector but received shape … */
  /* errindex: Input indices should be a matrix but received shape … at position … */
  /* errindex: Input values should be a vector but received shape … at position … */
  /* errindex: Input shapes should be a vector but received shape … at position … */
  op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
}

/* TF's ValidateSparseTensorShape (sparse_utils.cc) of inputs ind, val, shp: ranks here, sizes when eager */
static void validate_sparse(const OpCall *c, int ind, int val, int shp) {
  const TMeta *m = c->inm;
  if (rank_not(&m[ind], 2)) op_fail(c, ERR_INVALID_ARGUMENT, "Sparse indices must be rank 2 but is rank %d", m[ind].rank);
  if (rank_not(&m[val], 1)) op_fail(c, ERR_INVALID_ARGUMENT, "Sparse values must be rank 1 but is rank %d", m[val].rank);
  if (rank_not(&m[shp], 1)) op_fail(c, ERR_INVALID_ARGUMENT, "Sparse shape must be rank 1 but is rank %d", m[shp].rank);
  if (!c->in || !c->in[ind] || c->in[ind]->sym || c->in[val]->sym || c->in[shp]->sym) return;
  const Tensor *i = c->in[ind], *v = c->in[val], *s = c->in[shp];
  if (v->shape[0] != i->shape[0])
    op_fail(c, ERR_INVALID_ARGUMENT, "Number of elements in indices (%lld) and values (%lld) do not match", (long long)i->shape[0], (long long)v->shape[0]);
  if (s->size != i->shape[1])
    op_fail(c, ERR_INVALID_ARGUMENT, "Index rank (%lld) and shape rank (%lld) do not match", (long long)i->shape[1], (long long)s->size);
}

/* ---- SparseReshape(input_indices, input_shape, new_shape) -> (output_indices, output_shape) ---- */

/* shape: indices [N, rank of new_shape], the shape [rank of new_shape] */
void meta_sparse_reshape(OpCall *c) {
  const TMeta *m = c->inm;
  need_rank(c, &m[0], 2, "Input indices", "");
  need_rank(c, &m[1], 1, "Input shape", "");
  need_rank(c, &m[2], 1, "Target shape", "");
  tfs_i64 r = m[2].rank == 1 ? m[2].shape[0] : -1, s[2] = {m[0].rank == 2 ? m[0].shape[0] : -1, r};
  op_reserve_outputs(c, 2);
  meta_set(&c->outm[0], DT_INT64, 2, s);
  meta_set(&c->outm[1], DT_INT64, 1, &s[1]);
}

/* TF's reshape_util.cc: the new shape (one -1 inferred), each entry's linear position re-split by the new strides */
void k_sparse_reshape(OpCall *c) {
  Tensor *ind = c->in[0], *ishp = c->in[1], *want = c->in[2];
  tfs_i64 nnz = ind->shape[0], cols = ind->shape[1], ir = ishp->size, orank = want->size, dense = 1, product = 1;
  int unknown = -1;
  tfs_i64 *oshape = malloc(sizeof *oshape * (size_t)(orank + ir + 1));
  if (!oshape) op_fail(c, ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(oshape);
  for (tfs_i64 d = 0; d < ir; d++) dense *= tensor_get_i(ishp, d);
  if (cols != ir)
    op_fail(c, ERR_INVALID_ARGUMENT, "Index rank (%lld) and shape rank (%lld) do not match", (long long)cols, (long long)ir);
  for (tfs_i64 d = 0; d < orank; d++) {
    tfs_i64 size = tensor_get_i(want, d);
    if (size == -1) {
      if (unknown >= 0) op_fail(c, ERR_INVALID_ARGUMENT, "only one output dimension may be -1, not both %d and %lld", unknown, (long long)d);
      unknown = (int)d;
      oshape[d] = 1;
    } else {
      if (size < 0) op_fail(c, ERR_INVALID_ARGUMENT, "size %lld must be non-negative, not %lld", (long long)d, (long long)size);
      product *= size;
      oshape[d] = size;
    }
  }
  StrBuf msg;
  sb_init(&msg);
  tfs_i64 *ishape = oshape + orank;
  for (tfs_i64 d = 0; d < ir; d++) ishape[d] = tensor_get_i(ishp, d);
  if (unknown >= 0) {
    if (product <= 0)
      op_fail(c, ERR_INVALID_ARGUMENT, "reshape cannot infer the missing input size for an empty tensor unless all specified input sizes are non-zero");
    if (dense % product) {
      sb_printf(&msg, "Input to reshape is a SparseTensor with %lld dense values, but the requested shape requires a multiple of %lld. input_shape=",
                (long long)dense, (long long)product);
    } else {
      oshape[unknown] = dense / product;
      product = dense;
    }
  } else if (product != dense) {
    sb_printf(&msg, "Input to reshape is a tensor with %lld dense values, but the requested shape has %lld. input_shape=",
              (long long)dense, (long long)product);
  }
  if (msg.len) {
    op_shape_text(&msg, (int)ir, ishape);
    sb_puts(&msg, " output_shape=");
    op_shape_text(&msg, (int)orank, oshape);
    /* errindex: only one output dimension may be -1, not both … and … */
    /* errindex: size … must be non-negative, not … */
    /* errindex: reshape cannot infer the missing input size for an empty tensor unless all specified input sizes are non-zero */
    /* errindex: Input to reshape is a SparseTensor with … dense values, but the requested shape requires a multiple of …. input_shape=… output_shape=… */
    /* errindex: Input to reshape is a tensor with … dense values, but the requested shape has …. input_shape=… output_shape=… */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  }
  if (nnz > 0 && (dense <= 0 || product <= 0)) {
    sb_printf(&msg, "Input tensor has %lld non zero elements but input shape (", (long long)nnz);
    op_shape_text(&msg, (int)ir, ishape);
    sb_puts(&msg, ") or output shape (");
    op_shape_text(&msg, (int)orank, oshape);
    sb_puts(&msg, ") is empty");
    /* errindex: Input tensor has … non zero elements but input shape (…) or output shape (…) is empty */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  }
  tfs_i64 is[2] = {nnz, orank};
  Tensor *oi = tensor_new(DT_INT64, 2, is), *os = tensor_new(DT_INT64, 1, &orank);
  int64_t *od = tensor_data(oi), *sd = tensor_data(os);
  for (tfs_i64 d = 0; d < orank; d++) sd[d] = oshape[d];
  for (tfs_i64 i = 0; i < nnz; i++) {
    tfs_i64 lin = 0;
    for (tfs_i64 d = 0; d < ir; d++) lin = lin * ishape[d] + tensor_get_i(ind, i * ir + d);
    for (tfs_i64 d = orank - 1; d >= 0; d--) {
      od[i * orank + d] = oshape[d] ? lin % oshape[d] : 0;
      lin = oshape[d] ? lin / oshape[d] : 0;
    }
  }
  rt_unhold(mark);
  free(oshape);
  c->out[0] = oi;
  c->out[1] = os;
}

/* ---- SparseSlice(indices, values, shape, start, size) -> (output_indices, output_values, output_shape) ---- */

/* shape: indices [?, rank], values [?], the shape [rank] */
void meta_sparse_slice(OpCall *c) {
  const TMeta *m = c->inm;
  validate_sparse(c, 0, 1, 2);
  need_rank(c, &m[3], 1, "Input start", "");
  need_rank(c, &m[4], 1, "Input size", "");
  tfs_i64 r = m[2].rank == 1 ? m[2].shape[0] : -1, s[2] = {-1, r};
  op_reserve_outputs(c, 3);
  meta_set(&c->outm[0], DT_INT64, 2, s);
  meta_set(&c->outm[1], m[1].dtype, 1, s);
  meta_set(&c->outm[2], DT_INT64, 1, &s[1]);
}

/* TF's SparseTensor::Slice: entries with start <= index < start + size, shifted by -start, in input order; each
 * dimension of the result the overlap of [start, start + size) with [0, shape) */
void k_sparse_slice(OpCall *c) {
  Tensor *ind = c->in[0], *shp = c->in[2], *st = c->in[3], *sz = c->in[4];
  tfs_i64 r = shp->size, n = ind->shape[0], hits = 0;
  if (st->size != r) op_fail(c, ERR_INVALID_ARGUMENT, "Expected start to be a vector of length %lld but got length %lld", (long long)r, (long long)st->size);
  if (sz->size != r) op_fail(c, ERR_INVALID_ARGUMENT, "Expected size to be a vector of length %lld but got length %lld", (long long)r, (long long)sz->size);
  Tensor *val = tensor_contiguous(c->in[1]);
  Tensor *os = tensor_new(DT_INT64, 1, &r);
  int64_t *sd = tensor_data(os);
  for (tfs_i64 d = 0; d < r; d++) {
    tfs_i64 dim = tensor_get_i(shp, d), a = tensor_get_i(st, d), len = tensor_get_i(sz, d);
    sd[d] = a + len < dim ? len : a < dim ? dim - a : 0;
    if (sd[d] < 0) sd[d] = 0;
  }
  for (int pass = 0; pass < 2; pass++) {   /* count, then copy */
    Tensor *oi = NULL, *ov = NULL;
    if (pass) {
      tfs_i64 is[2] = {hits, r};
      oi = tensor_new(DT_INT64, 2, is);
      ov = tensor_new(val->dtype, 1, is);
      hits = 0;
    }
    size_t es = sparse_esize(val->dtype);
    for (tfs_i64 i = 0; i < n; i++) {
      bool in = true;
      for (tfs_i64 d = 0; d < r && in; d++) {
        tfs_i64 v = tensor_get_i(ind, i * r + d), a = tensor_get_i(st, d);
        in = a <= v && v < a + tensor_get_i(sz, d);
      }
      if (!in) continue;
      if (pass) {
        for (tfs_i64 d = 0; d < r; d++) ((int64_t *)tensor_data(oi))[hits * r + d] = tensor_get_i(ind, i * r + d) - tensor_get_i(st, d);
        memcpy((char *)tensor_data(ov) + (size_t)hits * es, (const char *)tensor_data(val) + (size_t)i * es, es);
      }
      hits++;
    }
    if (pass) {
      sparse_own_strings(ov);
      c->out[0] = oi;
      c->out[1] = ov;
    }
  }
  tensor_release(val);
  c->out[2] = os;
}

/* ---- SparseSliceGrad(backprop_val_grad, input_indices, input_start, output_indices) -> val_grad ---- */

/* shape: one gradient per input entry */
void meta_sparse_slice_grad(OpCall *c) {
  const TMeta *m = c->inm;
  if (rank_not(&m[1], 2) || rank_not(&m[3], 2)) {
    StrBuf msg;
    sb_init(&msg);
    sb_puts(&msg, "Input and output indices should be matrices but received shapes: ");
    op_shape_text(&msg, m[1].rank, m[1].shape);
    sb_puts(&msg, " and ");
    op_shape_text(&msg, m[3].rank, m[3].shape);
    /* errindex: Input and output indices should be matrices but received shapes: … and … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  }
  need_rank(c, &m[0], 1, "Input backprop_val_grad", "");
  need_rank(c, &m[2], 1, "The input_start", "");
  meta_set(&c->outm[0], m[0].dtype, 1, m[1].rank == 2 ? m[1].shape : (tfs_i64[]){-1});
}

/* TF's walk: input entry i takes the next output gradient when its index shifted by -start is that output's */
void k_sparse_slice_grad(OpCall *c) {
  Tensor *in = c->in[1], *st = c->in[2], *out = c->in[3], *o = c->out[0];
  tfs_i64 r = in->shape[1], n = in->shape[0], m = out->shape[0], j = 0;
  if (out->shape[1] != r)
    op_fail(c, ERR_INVALID_ARGUMENT, "The input and output should have the same ndims: got: %lld and %lld", (long long)r, (long long)out->shape[1]);
  if (c->in[0]->size != m)
    op_fail(c, ERR_INVALID_ARGUMENT, "# elements of backprop_val_grad and # rows of output_indices should match (#nnz of sum): got %lld and %lld",
            (long long)c->in[0]->size, (long long)m);
  if (st->size != r)
    op_fail(c, ERR_INVALID_ARGUMENT, "Expected input_start to be a vector of length %lld but got length %lld", (long long)r, (long long)st->size);
  Tensor *g = tensor_contiguous(c->in[0]);
  size_t es = sparse_esize(o->dtype);
  memset(tensor_data(o), 0, es * (size_t)n);
  for (tfs_i64 i = 0; i < n && j < m; i++) {
    bool same = true;
    for (tfs_i64 d = 0; d < r && same; d++) same = tensor_get_i(in, i * r + d) - tensor_get_i(st, d) == tensor_get_i(out, j * r + d);
    if (same) memcpy((char *)tensor_data(o) + (size_t)i * es, (const char *)tensor_data(g) + (size_t)j++ * es, es);
  }
  tensor_release(g);
  if (j != m)
    op_fail(c, ERR_INVALID_ARGUMENT, "Elements of backprop_val_grad aren't all propagated. Num elements:%lld, used: %lld", (long long)m, (long long)j);
}

/* ---- SparseConcat(indices × N, values × N, shapes × N; concat_dim) -> (output_indices, output_values, output_shape) ---- */

/* shape: indices [?, rank], values [?], the shape [rank]; one values dtype */
void meta_sparse_concat(OpCall *c) {
  int n = c->nin / 3;
  if (c->nin % 3 || n < 1) op_fail(c, ERR_INVALID_ARGUMENT, "SparseConcat takes the indices, values and shapes of N >= 1 SparseTensors, got %d inputs", c->nin);
  for (int i = 0; i < n; i++) {
    char pos[40];
    snprintf(pos, sizeof pos, " at position %d", i);
    need_rank(c, &c->inm[i], 2, "Input indices", pos);
    need_rank(c, &c->inm[n + i], 1, "Input values", pos);
    need_rank(c, &c->inm[2 * n + i], 1, "Input shapes", pos);
    if (c->inm[n + i].dtype != c->inm[n].dtype)
      op_fail(c, ERR_INVALID_ARGUMENT, "cannot compute SparseConcat as input #%d(zero-based) was expected to be a %s tensor but is a %s tensor",
              n + i, dtype_short_name(c->inm[n].dtype), dtype_short_name(c->inm[n + i].dtype));
  }
  tfs_i64 r = c->inm[2 * n].rank == 1 ? c->inm[2 * n].shape[0] : -1, s[2] = {-1, r};
  op_reserve_outputs(c, 3);
  meta_set(&c->outm[0], DT_INT64, 2, s);
  meta_set(&c->outm[1], c->inm[n].dtype, 1, s);
  meta_set(&c->outm[2], DT_INT64, 1, &s[1]);
}

typedef struct { const int64_t *ind; int r; } ConcatCtx;
static int concat_cmp(const void *a, const void *b, void *ctx) {
  const ConcatCtx *x = ctx;
  tfs_i64 i = *(const tfs_i64 *)a, j = *(const tfs_i64 *)b;
  for (int d = 0; d < x->r; d++) {
    int64_t u = x->ind[i * x->r + d], v = x->ind[j * x->r + d];
    if (u != v) return u < v ? -1 : 1;
  }
  return i < j ? -1 : i > j;   /* stable: repeated indices keep their input order */
}

/* TF's kernel: the entries of all inputs, each shifted along concat_dim by the sizes before it, in row-major order */
void k_sparse_concat(OpCall *c) {
  int n = c->nin / 3;
  Tensor **ind = c->in, **val = c->in + n, **shp = c->in + 2 * n;
  int r = (int)shp[0]->size;
  tfs_i64 attr = op_attr_int(c, 0, 0), total = 0, cat = 0;
  if (attr < -r || attr >= r) op_fail(c, ERR_INVALID_ARGUMENT, "Concat dimension must be in range [%d, %d), got %lld", -r, r, (long long)attr);
  int ax = (int)(attr < 0 ? attr + r : attr);
  for (int i = 0; i < n; i++) {
    if (i && shp[i]->size != r)
      op_fail(c, ERR_INVALID_ARGUMENT, "Ranks of all input tensors must match: expected %d but got %lld at position %d", r, (long long)shp[i]->size, i);
    for (int d = 0; d < r; d++)
      if (i && d != ax && tensor_get_i(shp[i], d) != tensor_get_i(shp[0], d))
        op_fail(c, ERR_INVALID_ARGUMENT, "Input shapes must match: expected %lld for dimension %d but got %lld at position %d",
                (long long)tensor_get_i(shp[0], d), d, (long long)tensor_get_i(shp[i], d), i);
    if (ind[i]->shape[1] != r)
      op_fail(c, ERR_INVALID_ARGUMENT, "Index rank (%lld) and shape rank (%d) do not match", (long long)ind[i]->shape[1], r);
    if (val[i]->size != ind[i]->shape[0])
      op_fail(c, ERR_INVALID_ARGUMENT, "Number of elements in indices (%lld) and values (%lld) do not match", (long long)ind[i]->shape[0], (long long)val[i]->size);
    total += ind[i]->shape[0];
    cat += tensor_get_i(shp[i], ax);
  }
  DType dt = val[0]->dtype;
  size_t es = sparse_esize(dt);
  tfs_i64 is[2] = {total, r}, rr = r;
  int64_t *all = malloc(sizeof *all * (size_t)(total * r + 1));
  char *vals = malloc(es * (size_t)(total + 1));
  tfs_i64 *perm = malloc(sizeof *perm * (size_t)(total + 1));
  if (!all || !vals || !perm) {
    free(all), free(vals), free(perm);
    op_fail(c, ERR_MEMORY, "out of memory");
  }
  tfs_i64 k = 0, off = 0;
  for (int i = 0; i < n; i++) {
    Tensor *v = tensor_contiguous(val[i]);
    memcpy(vals + (size_t)k * es, tensor_data(v), es * (size_t)v->size);
    tensor_release(v);
    for (tfs_i64 e = 0; e < ind[i]->shape[0]; e++, k++)
      for (int d = 0; d < r; d++) all[k * r + d] = tensor_get_i(ind[i], e * r + d) + (d == ax ? off : 0);
    off += tensor_get_i(shp[i], ax);
  }
  for (tfs_i64 e = 0; e < total; e++) perm[e] = e;
  ConcatCtx ctx = {all, r};
  qsort_r(perm, (size_t)total, sizeof *perm, concat_cmp, &ctx);
  Tensor *oi = tensor_new(DT_INT64, 2, is), *ov = tensor_new(dt, 1, is), *os = tensor_new(DT_INT64, 1, &rr);
  for (tfs_i64 e = 0; e < total; e++) {
    memcpy((int64_t *)tensor_data(oi) + e * r, all + perm[e] * r, sizeof *all * (size_t)r);
    memcpy((char *)tensor_data(ov) + (size_t)e * es, vals + (size_t)perm[e] * es, es);
  }
  for (int d = 0; d < r; d++) ((int64_t *)tensor_data(os))[d] = d == ax ? cat : tensor_get_i(shp[0], d);
  sparse_own_strings(ov);
  free(all), free(vals), free(perm);
  c->out[0] = oi;
  c->out[1] = ov;
  c->out[2] = os;
}
