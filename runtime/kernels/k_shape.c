/* k_shape.c — shape ops (reshape, squeeze, indexing views, concat, stack, gather, tile, ...) and tensor creation (zeros, fill, eye, range, linspace). */
#pragma GCC optimize("O3")

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "object/object.h"
#include "kernels/ops.h"
#include "kernels/tensorlist.h"
#include "kernels/nest.h"

static _Noreturn void fail_buf(OpCall *c, ErrKind k, StrBuf *b) {
  char *m = sb_steal(b);
  char msg[1024];   /* per call: workers may fail at once */
  snprintf(msg, sizeof msg, "%s", m);
  free(m);
  /* errindex: - (passes on a message indexed where it is made) */
  op_fail(c, k, "%s", msg);
}

/* After a raw byte copy of string elements, the copy owns new references. */
static void own_strings(Tensor *t) {
  if (t->dtype != DT_STRING) return;
  Str **s = tensor_data(t);
  for (tfs_i64 i = 0; i < t->size; i++)
    if (s[i]) s[i]->hdr.rc++;
}

/* ---- identity and views over the same elements -------------------------------------- */

/* shape: the input's shape and dtype. */
void meta_identity(OpCall *c) { c->outm[0] = c->inm[0]; }
/* Identity and StopGradient return a new view, so the result has an identity
 * of its own: tapes key on it (a custom gradient's `tf.identity(x)` result must
 * not be x itself, or the custom entry is bypassed). */
void k_identity(OpCall *c) {
  Tensor *t = c->in[0];
  c->out[0] = tensor_view(t, t->rank, t->shape, t->strides, t->offset);
}
void k_stop_gradient(OpCall *c) {
  Tensor *t = c->in[0];
  c->out[0] = tensor_view(t, t->rank, t->shape, t->strides, t->offset);
}

/* tf.ensure_shape's expected shape: its rank (-1: None, any shape) and dims (-1: None). */
static int ensure_expected(OpCall *c, tfs_i64 *dims) {
  return val_shape_like(op_attr(c, 0), dims, "tf.ensure_shape");
}

/* Eagerly the kernel checks, with the op's run-time message; a trace merges as TF's shape function does. */
/* shape: x's, merged with shape while tracing (ValueError when the two cannot be merged). */
void meta_ensure_shape(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  tfs_i64 e[TFS_MAX_RANK];
  int er = ensure_expected(c, e);
  *o = *a;
  if (er < 0 || !(c->in && c->in[0] && c->in[0]->sym)) return;
  if (a->rank < 0) {
    o->rank = er;
    memcpy(o->shape, e, sizeof(tfs_i64) * (size_t)er);
    return;
  }
  if (a->rank != er) op_fail(c, ERR_VALUE, "Shapes must be equal rank, but are %d and %d", a->rank, er);
  for (int d = 0; d < er; d++) {
    if (a->shape[d] >= 0 && e[d] >= 0 && a->shape[d] != e[d]) {
      StrBuf b;
      sb_init(&b);
      sb_printf(&b, "Dimension %d in both shapes must be equal, but are %lld and %lld. Shapes are ", d,
                (long long)a->shape[d], (long long)e[d]);
      op_shape_text(&b, a->rank, a->shape);
      sb_puts(&b, " and ");
      op_shape_text(&b, er, e);
      sb_putc(&b, '.');
      /* errindex: Dimension … in both shapes must be equal, but are … and …. Shapes are … and …. */
      fail_buf(c, ERR_VALUE, &b);
    }
    if (o->shape[d] < 0) o->shape[d] = e[d];
  }
}

/* x itself (a view), after checking its shape.  The input is named dummy_input, as in TF's eager
 * node; in a graph the executor puts the input node's name there. */
void k_ensure_shape(OpCall *c) {
  Tensor *t = c->in[0];
  tfs_i64 e[TFS_MAX_RANK];
  int er = ensure_expected(c, e);
  if (!shape_compatible(er, e, t->rank, t->shape)) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "Shape of tensor dummy_input ");
    op_shape_text(&b, t->rank, t->shape);
    sb_puts(&b, " is not compatible with expected shape ");
    op_shape_text(&b, er, e);
    sb_putc(&b, '.');
    /* errindex: Shape of tensor … … is not compatible with expected shape …. */
    fail_buf(c, ERR_INVALID_ARGUMENT, &b);
  }
  c->out[0] = tensor_view(t, t->rank, t->shape, t->strides, t->offset);
}

/* shape: the requested shape; one dimension may be -1 and is inferred; the number of elements must not change. */
void meta_reshape(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  tfs_i64 dims[TFS_MAX_RANK];
  int r = val_to_dims(op_attr(c, 0), dims, true, "tf.reshape");
  int infer = -1;
  tfs_i64 known = 1;    /* the product of the requested sizes but the zeros (TF's ReshapeOp leaves them out) */
  bool has_zero = false;
  for (int i = 0; i < r; i++) {
    if (dims[i] < 0) {
      if (infer >= 0) op_fail(c, ERR_INVALID_ARGUMENT, "Only one input size may be -1, not both %d and %d", infer, i);
      infer = i;
    } else if (dims[i] == 0) {
      has_zero = true;
    } else known *= dims[i];
  }
  bool size_known = a->rank >= 0;
  for (int i = 0; size_known && i < a->rank; i++) size_known = a->shape[i] >= 0;
  if (size_known) {
    tfs_i64 n = meta_size(a);
    if (infer >= 0) {
      /* As TF's kernel: with a 0 among the requested sizes, the input's zero dimensions are left out of
       * its count too, so the -1 takes the product of its other dimensions ([0] to [-1, 0]: (1, 0);
       * [0, 3] to [-1, 0]: (3, 0)); the element counts are compared below. */
      tfs_i64 in = 1;
      bool in_zero = false;
      for (int i = 0; i < a->rank; i++) {
        if (a->shape[i] > 0 || !has_zero) in *= a->shape[i];
        else in_zero = true;
      }
      if (!in_zero && in % known)
        op_fail(c, ERR_INVALID_ARGUMENT, "Input to reshape is a tensor with %lld values, but the requested shape requires a multiple of %lld",
                (long long)in, (long long)known);
      dims[infer] = in / known;
    }
    tfs_i64 out = 1;
    for (int i = 0; i < r; i++) out *= dims[i];
    if (out != n) {
      StrBuf b;
      sb_init(&b);
      sb_printf(&b, "Input to reshape is a tensor with %lld values, but the requested shape has %lld", (long long)n, (long long)out);
      /* errindex: Input to reshape is a tensor with … values, but the requested shape has … */
      fail_buf(c, ERR_INVALID_ARGUMENT, &b);
    }
  }
  meta_set(o, a->dtype, r, dims);
}

/* shape: the input's shape with a 1 inserted at axis (negative axes count from the end, -1 appends). */
void meta_expand_dims(OpCall *c) {
  const TMeta *a = &c->inm[0];
  tfs_i64 axis = op_attr_int(c, 0, 0);
  Val av = op_attr(c, 0);
  if (av.tag == VT_UNDEF || av.tag == VT_NONE) op_fail(c, ERR_TYPE, "tf.expand_dims: axis is required");
  if (a->rank < 0) { meta_set(&c->outm[0], a->dtype, 0, NULL); c->outm[0].rank = -1; return; }
  int r = a->rank;
  if (r + 1 > TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "tensors of rank > %d are not supported", TFS_MAX_RANK);
  if (axis < -r - 1 || axis > r)
    op_fail(c, ERR_INVALID_ARGUMENT, "Tried to expand dim index %lld for tensor with %d dimensions.", (long long)axis, r);
  int ax = (int)(axis < 0 ? axis + r + 1 : axis);
  TMeta *o = &c->outm[0];
  o->dtype = a->dtype;
  o->rank = r + 1;
  for (int i = 0, j = 0; i <= r; i++) o->shape[i] = i == ax ? 1 : a->shape[j++];
}

/* shape: the input's shape without its size-1 dimensions (only those in axis when given). */
void meta_squeeze(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  o->dtype = a->dtype;
  if (a->rank < 0) { o->rank = -1; return; }
  bool drop[TFS_MAX_RANK] = {0};
  Val av = op_attr(c, 0);
  if (av.tag == VT_UNDEF || av.tag == VT_NONE || (val_is(av, &list_type) && ((List *)av.u.o)->len == 0)) {
    for (int i = 0; i < a->rank; i++) {
      if (a->shape[i] < 0) { o->rank = -1; return; }
      drop[i] = a->shape[i] == 1;
    }
  } else {
    int axes[TFS_MAX_RANK];
    int n = op_attr_axes(c, 0, a->rank, axes);
    for (int k = 0; k < n; k++) {
      int d = axes[k];
      if (a->shape[d] >= 0 && a->shape[d] != 1)
        op_fail(c, ERR_INVALID_ARGUMENT, "Can not squeeze dim[%d], expected a dimension of 1, got %lld", d, (long long)a->shape[d]);
      drop[d] = true;
    }
  }
  int r = 0;
  for (int i = 0; i < a->rank; i++)
    if (!drop[i]) o->shape[r++] = a->shape[i];
  o->rank = r;
}

/* Reshape-like ops: a view when the input is contiguous, else a packed copy. */
void k_reshape(OpCall *c) {
  Tensor *a = tensor_contiguous(c->in[0]);
  TMeta *m = &c->outm[0];
  tfs_i64 strides[TFS_MAX_RANK], s = 1;
  for (int i = m->rank - 1; i >= 0; i--) {
    strides[i] = s;
    s *= m->shape[i];
  }
  c->out[0] = tensor_view(a, m->rank, m->shape, strides, a->offset);
  tensor_release(a);
}

/* ---- indexing: t[key] ------------------------------------------------------------------ */
/* Scratch layout: iscr[0..7] start per input dim, iscr[8..15] step per input
 * dim, iscr[16..23] source input dim of each output dim (-1: new axis). */

static bool index_int(Val v, tfs_i64 *out) {
  if (v.tag == VT_INT || v.tag == VT_BOOL) { *out = v.u.i; return v.tag == VT_INT; }
  Tensor *t = val_as_tensor(v);
  if (t && t->rank == 0 && dtype_info[t->dtype].is_int && !t->sym) { *out = tensor_get_i(t, 0); return true; }
  return false;
}

/* Traced bounds (trace.c): a leaf marker in the key stands for element k of
 * attribute 1, `bounds` (a 1-D integer tensor at run time; absent while
 * tracing, when *unknown is set).  Any other item comes back as itself. */
static Val ss_bound(const OpCall *c, Val v, bool *unknown) {
  int k;
  if (!nest_is_leaf(v, &k)) return v;
  Tensor *b = val_as_tensor(op_attr(c, 1));
  if (!b || b->sym) {
    *unknown = true;
    return val_none();
  }
  if (k >= b->size) op_fail(c, ERR_INVALID_ARGUMENT, "StridedSlice: missing traced bound #%d", k);
  return val_int(tensor_get_i(b, k));
}

/* shape: Python slicing rules per dimension; an integer index drops its dimension, tf.newaxis adds one, ... spans the rest. */
void meta_strided_slice(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  Val key = op_attr(c, 0);
  const Val *items = &key;
  tfs_i64 nitems = 1;
  if (val_is(key, &tuple_type)) seq_items(key, &nitems, &items);
  tfs_i64 *start = c->iscr, *step = c->iscr + 8, *src = c->iscr + 16;
  o->dtype = a->dtype;
  if (a->rank < 0) { o->rank = -1; return; }
  int nreal = 0, nell = 0;
  for (tfs_i64 k = 0; k < nitems; k++) {
    Val it = items[k];
    if (val_is(it, &ellipsis_type)) nell++;
    else if (it.tag != VT_NONE) nreal++;
  }
  if (nell > 1) op_fail(c, ERR_INVALID_ARGUMENT, "Multiple ellipses in slice spec not allowed");
  if (nreal > a->rank)
    op_fail(c, ERR_INVALID_ARGUMENT, "Index out of range using input dim %d; input has only %d dims", a->rank, a->rank);
  int d = 0, r = 0;
  for (int i = 0; i < a->rank; i++) { start[i] = 0; step[i] = 1; }
  for (tfs_i64 k = 0; k < nitems; k++) {
    Val it = items[k];
    tfs_i64 ix = 0;
    int leaf = -1;
    if (r >= TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "too many dimensions (max %d)", TFS_MAX_RANK);
    if (it.tag == VT_NONE) {
      src[r] = -1;
      o->shape[r++] = 1;
    } else if (val_is(it, &ellipsis_type)) {
      int n = a->rank - nreal;
      for (int j = 0; j < n; j++, d++) {
        src[r] = d;
        o->shape[r++] = a->shape[d];
      }
    } else if (val_is(it, &slice_type)) {
      tfs_i64 len = a->shape[d];
      Slice *sl0 = (Slice *)it.u.o;
      bool unknown = false;
      Slice tmp = {{TFS_IMMORTAL_RC, &slice_type}, ss_bound(c, sl0->lo, &unknown), ss_bound(c, sl0->hi, &unknown),
                   ss_bound(c, sl0->step, &unknown)};
      it = val_obj(&tmp);
      if (len < 0 || unknown) {
        Slice *sl = (Slice *)it.u.o;
        bool full = sl->lo.tag == VT_NONE && sl->hi.tag == VT_NONE && (sl->step.tag == VT_NONE || (sl->step.tag == VT_INT && sl->step.u.i == 1));
        start[d] = 0;
        step[d] = 1;
        src[r] = d;
        o->shape[r++] = full ? -1 : -1;
      } else {
        tfs_i64 st, sp, sz;
        sz = slice_indices(it, len, &st, &sp, &step[d]);
        (void)sp;
        start[d] = sz > 0 ? st : 0;
        src[r] = d;
        o->shape[r++] = sz;
      }
      d++;
    } else if (nest_is_leaf(it, &leaf) || index_int(it, &ix)) {
      tfs_i64 len = a->shape[d];
      bool unknown = false;
      if (leaf >= 0) {
        Val b = ss_bound(c, it, &unknown);
        ix = unknown ? 0 : b.u.i;
      }
      if (unknown) {
        start[d] = 0;
      } else if (len >= 0) {
        if (ix < -len || ix >= len)
          op_fail(c, ERR_INVALID_ARGUMENT, "slice index %lld of dimension %d out of bounds (size %lld).", (long long)ix, d,
                  (long long)len);
        start[d] = ix < 0 ? ix + len : ix;
      } else {
        start[d] = ix;
      }
      step[d] = 0;   /* shrunk */
      d++;
    } else {
      StrBuf b;
      sb_init(&b);
      sb_puts(&b, "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 tensors are valid indices, got ");
      val_repr(&b, it);
      /* errindex: Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 tensors are valid indices, got … */
      fail_buf(c, ERR_TYPE, &b);
    }
  }
  for (; d < a->rank; d++) {
    if (r >= TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "too many dimensions (max %d)", TFS_MAX_RANK);
    src[r] = d;
    o->shape[r++] = a->shape[d];
  }
  o->rank = r;
}

void k_strided_slice(OpCall *c) {
  Tensor *a = c->in[0];
  const tfs_i64 *start = c->iscr, *step = c->iscr + 8, *src = c->iscr + 16;
  TMeta *m = &c->outm[0];
  tfs_i64 off = a->offset, strides[TFS_MAX_RANK];
  for (int d = 0; d < a->rank; d++) off += start[d] * a->strides[d];
  for (int k = 0; k < m->rank; k++) strides[k] = src[k] < 0 ? 0 : a->strides[src[k]] * (step[src[k]] ? step[src[k]] : 1);
  c->out[0] = tensor_view(a, m->rank, m->shape, strides, off);
}

/* tf.slice(input_, begin, size): scratch iscr[0..7] begin. */
/* shape: size, with -1 meaning "to the end" of that dimension. */
void meta_slice(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  tfs_i64 begin[TFS_MAX_RANK], size[TFS_MAX_RANK];
  int nb = val_to_dims(op_attr(c, 0), begin, false, "tf.slice begin");
  int ns = val_to_dims(op_attr(c, 1), size, true, "tf.slice size");
  if (a->rank >= 0 && (nb != a->rank || ns != a->rank))
    op_fail(c, ERR_INVALID_ARGUMENT, "Expected begin and size arguments to be 1-D tensors of size %d, but got shapes [%d] and [%d] instead.",
            a->rank, nb, ns);
  o->dtype = a->dtype;
  o->rank = nb;
  for (int i = 0; i < nb; i++) {
    tfs_i64 dim = a->rank < 0 ? -1 : a->shape[i];
    c->iscr[i] = begin[i];
    if (size[i] < 0) size[i] = dim < 0 ? -1 : dim - begin[i];
    if (dim >= 0 && (begin[i] < 0 || begin[i] > dim || size[i] < 0 || begin[i] + size[i] > dim))
      op_fail(c, ERR_INVALID_ARGUMENT, "Expected size[%d] in [0, %lld], but got %lld", i, (long long)(dim - begin[i]), (long long)size[i]);
    o->shape[i] = size[i];
  }
}

void k_slice(OpCall *c) {
  Tensor *a = c->in[0];
  tfs_i64 off = a->offset;
  for (int d = 0; d < a->rank; d++) off += c->iscr[d] * a->strides[d];
  c->out[0] = tensor_view(a, c->outm[0].rank, c->outm[0].shape, a->strides, off);
}

/* ---- concat, stack, unstack ------------------------------------------------------------------ */

/* shape: the inputs agree on every dimension but axis; the result has the sum of their sizes along it. */
void meta_concat(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  *o = *a;
  for (int i = 0; i < c->nin; i++)
    if (c->inm[i].rank < 0) { o->rank = -1; return; }   /* unknown rank (tracing) */
  if (a->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "Can't concatenate scalars (use tf.stack instead)");
  Val av = op_attr(c, 0);
  if (av.tag == VT_UNDEF) op_fail(c, ERR_TYPE, "tf.concat() missing required argument 'axis'");
  tfs_i64 axis = op_attr_int(c, 0, 0);
  if (axis < -a->rank || axis >= a->rank)
    op_fail(c, ERR_INVALID_ARGUMENT, "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %lld", -a->rank,
            a->rank, (long long)axis);
  int ax = (int)(axis < 0 ? axis + a->rank : axis);
  c->iscr[0] = ax;
  for (int i = 1; i < c->nin; i++) {
    const TMeta *b = &c->inm[i];
    bool bad_rank = b->rank != a->rank, bad = bad_rank;
    for (int d = 0; !bad && d < a->rank; d++)
      if (d != ax && a->shape[d] >= 0 && b->shape[d] >= 0 && a->shape[d] != b->shape[d]) bad = true;
    if (bad) {
      StrBuf s;
      sb_init(&s);
      if (bad_rank) sb_puts(&s, "ConcatOp : Ranks of all input tensors should match: shape[0] = ");
      else sb_printf(&s, "ConcatOp : Dimension %d in both shapes must be equal: shape[0] = ", ax == 0 ? 1 : 0);
      op_shape_text(&s, a->rank, a->shape);
      sb_printf(&s, " vs. shape[%d] = ", i);
      op_shape_text(&s, b->rank, b->shape);
      /* errindex: ConcatOp : Ranks of all input tensors should match: shape[0] = … vs. shape[…] = … */
      /* errindex: ConcatOp : Dimension … in both shapes must be equal: shape[0] = … vs. shape[…] = … */
      fail_buf(c, ERR_INVALID_ARGUMENT, &s);
    }
    o->shape[ax] = (o->shape[ax] < 0 || b->shape[ax] < 0) ? -1 : o->shape[ax] + b->shape[ax];
  }
}

/* Copy inputs as consecutive chunks along axis `ax` of out. */
static void concat_into(Tensor *o, int nin, Tensor **in, int ax, bool stacked) {
  size_t esz = (size_t)dtype_info[o->dtype].size;
  tfs_i64 outer = 1;
  for (int d = 0; d < ax; d++) outer *= o->shape[d];
  tfs_i64 chunk[64], *ch = nin <= 64 ? chunk : malloc(sizeof(tfs_i64) * (size_t)nin);
  Tensor *cin_buf[64], **cin = nin <= 64 ? cin_buf : malloc(sizeof(Tensor *) * (size_t)nin);
  if (!ch || !cin) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < nin; i++) {
    cin[i] = tensor_contiguous(in[i]);
    ch[i] = outer ? cin[i]->size / outer : 0;
    (void)stacked;
  }
  char *p = tensor_data(o);
  for (tfs_i64 k = 0; k < outer; k++)
    for (int i = 0; i < nin; i++) {
      size_t n = (size_t)ch[i] * esz;
      memcpy(p, (char *)tensor_data(cin[i]) + (size_t)k * n, n);
      p += n;
    }
  for (int i = 0; i < nin; i++) tensor_release(cin[i]);
  if (ch != chunk) free(ch);
  if (cin != cin_buf) free(cin);
  own_strings(o);
}

void k_concat(OpCall *c) { concat_into(c->out[0], c->nin, c->in, (int)c->iscr[0], false); }

/* shape: the common input shape with a new dimension of size len(values) at axis. */
void meta_stack(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  tfs_i64 axis = op_attr_int(c, 0, 0);
  int r = a->rank;
  o->dtype = a->dtype;
  for (int i = 0; i < c->nin; i++)
    if (c->inm[i].rank < 0) { o->rank = -1; return; }
  if (r + 1 > TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "tensors of rank > %d are not supported", TFS_MAX_RANK);
  if (axis < -r - 1 || axis > r)
    op_fail(c, ERR_INVALID_ARGUMENT, "Argument `axis` = %lld not in range [%d, %d)", (long long)axis, -r - 1, r + 1);
  int ax = (int)(axis < 0 ? axis + r + 1 : axis);
  c->iscr[0] = ax;
  for (int i = 1; i < c->nin; i++) {
    const TMeta *b = &c->inm[i];
    bool bad = b->rank != r;
    for (int d = 0; !bad && d < r; d++)
      if (a->shape[d] >= 0 && b->shape[d] >= 0 && a->shape[d] != b->shape[d]) bad = true;
    if (bad) {
      StrBuf s;
      sb_init(&s);
      sb_puts(&s, "Shapes of all inputs must match: values[0].shape = ");
      op_shape_text(&s, a->rank, a->shape);
      sb_printf(&s, " != values[%d].shape = ", i);
      op_shape_text(&s, b->rank, b->shape);
      /* errindex: Shapes of all inputs must match: values[0].shape = … != values[…].shape = … */
      fail_buf(c, ERR_INVALID_ARGUMENT, &s);
    }
  }
  o->dtype = a->dtype;
  o->rank = r + 1;
  for (int i = 0, j = 0; i <= r; i++) o->shape[i] = i == ax ? c->nin : a->shape[j++];
}

void k_stack(OpCall *c) { concat_into(c->out[0], c->nin, c->in, (int)c->iscr[0], true); }

/* shape: len = the size of axis; each result is the input's shape without axis. */
void meta_unstack(OpCall *c) {
  const TMeta *a = &c->inm[0];
  if (a->rank < 0) op_fail(c, ERR_VALUE, "Cannot infer argument `num` from shape <unknown>");
  if (a->rank == 0) op_fail(c, ERR_VALUE, "Input shape axis 0 must equal num, got shape ()");
  tfs_i64 axis = op_attr_int(c, 1, 0);
  if (axis < -a->rank || axis >= a->rank)
    op_fail(c, ERR_VALUE, "axis = %lld not in [%d, %d)", (long long)axis, -a->rank, a->rank);
  int ax = (int)(axis < 0 ? axis + a->rank : axis);
  tfs_i64 n = a->shape[ax];
  if (op_attr_given(c, 0)) {
    tfs_i64 num = op_attr_int(c, 0, 0);
    if (n >= 0 && num != n) op_fail(c, ERR_INVALID_ARGUMENT, "Input shape axis %d must equal %lld, got shape [%lld]", ax, (long long)num, (long long)n);
    n = num;
  }
  if (n < 0) {   /* TF's text: str() of the TensorShape, as (None, 3) */
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "Cannot infer argument `num` from shape (");
    for (int i = 0; i < a->rank; i++) {
      if (i) sb_puts(&b, ", ");
      if (a->shape[i] < 0) sb_puts(&b, "None");
      else sb_printf(&b, "%lld", (long long)a->shape[i]);
    }
    sb_puts(&b, a->rank == 1 ? ",)" : ")");
    /* errindex: Cannot infer argument `num` from shape (…) */
    op_fail_sb(c, ERR_VALUE, &b);
  }
  op_reserve_outputs(c, (int)n);
  c->iscr[0] = ax;
  for (tfs_i64 i = 0; i < n; i++) {
    TMeta *o = &c->outm[i];
    o->dtype = a->dtype;
    o->rank = a->rank - 1;
    for (int d = 0, j = 0; d < a->rank; d++)
      if (d != ax) o->shape[j++] = a->shape[d];
  }
}

void k_unstack(OpCall *c) {
  Tensor *a = c->in[0];
  int ax = (int)c->iscr[0];
  tfs_i64 strides[TFS_MAX_RANK];
  for (int d = 0, j = 0; d < a->rank; d++)
    if (d != ax) strides[j++] = a->strides[d];
  for (int i = 0; i < c->nout; i++)
    c->out[i] = tensor_view(a, a->rank - 1, c->outm[i].shape, strides, a->offset + i * a->strides[ax]);
}

/* ---- gather ------------------------------------------------------------------------------------ */

/* shape: params' shape with the axis dimension replaced by indices' shape. */
void meta_gather(OpCall *c) {
  const TMeta *p = &c->inm[0], *ix = &c->inm[1];
  TMeta *o = &c->outm[0];
  if (op_attr_int(c, 2, 0) != 0) op_fail(c, ERR_UNIMPLEMENTED, "tf.gather: batch_dims is not supported");
  tfs_i64 axis = op_attr_int(c, 1, 0);
  o->dtype = p->dtype;
  if (p->rank < 0 || ix->rank < 0) { o->rank = -1; return; }
  if (p->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "params must be at least 1 dimensional");
  if (axis < -p->rank || axis >= p->rank)
    op_fail(c, ERR_INVALID_ARGUMENT, "Expected axis in the range [%d, %d), but got %lld", -p->rank, p->rank, (long long)axis);
  int ax = (int)(axis < 0 ? axis + p->rank : axis);
  c->iscr[0] = ax;
  o->dtype = p->dtype;
  int r = 0;
  for (int d = 0; d < ax; d++) o->shape[r++] = p->shape[d];
  for (int d = 0; d < ix->rank; d++) o->shape[r++] = ix->shape[d];
  for (int d = ax + 1; d < p->rank; d++) o->shape[r++] = p->shape[d];
  if (r > TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "result rank exceeds %d", TFS_MAX_RANK);
  o->rank = r;
}

void k_gather(OpCall *c) {
  Tensor *p = tensor_contiguous(c->in[0]), *ix = c->in[1], *o = c->out[0];
  int ax = (int)c->iscr[0];
  size_t esz = (size_t)dtype_info[p->dtype].size;
  tfs_i64 outer = 1, inner = 1, n = p->shape[ax];
  for (int d = 0; d < ax; d++) outer *= p->shape[d];
  for (int d = ax + 1; d < p->rank; d++) inner *= p->shape[d];
  tfs_i64 ni = ix->size;
  for (tfs_i64 j = 0; j < ni; j++) {
    tfs_i64 k = tensor_get_i(ix, j);
    if (k < 0 || k >= n) {
      StrBuf s;
      sb_init(&s);
      sb_puts(&s, "indices");
      tfs_i64 r = j;
      tfs_i64 idx[TFS_MAX_RANK];
      for (int d = ix->rank - 1; d >= 0; d--) { idx[d] = r % ix->shape[d]; r /= ix->shape[d]; }
      for (int d = 0; d < ix->rank; d++) sb_printf(&s, d ? ",%lld" : "[%lld", (long long)idx[d]);
      if (ix->rank) sb_putc(&s, ']');   /* TF's SliceDebugString: nothing for scalar indices */
      sb_printf(&s, " = %lld is not in [0, %lld)", (long long)k, (long long)n);
      tensor_release(p);
      /* errindex: indices… = … is not in [0, …) */
      fail_buf(c, ERR_INVALID_ARGUMENT, &s);
    }
  }
  char *dst = tensor_data(o);
  const char *srcb = tensor_data(p);
  size_t blk = (size_t)inner * esz;
  for (tfs_i64 q = 0; q < outer; q++)
    for (tfs_i64 j = 0; j < ni; j++) {
      tfs_i64 k = tensor_get_i(ix, j);
      memcpy(dst, srcb + (size_t)(q * n + k) * blk, blk);
      dst += blk;
    }
  own_strings(o);
  tensor_release(p);
}

/* tf.gather_nd: each row of indices' last dimension (k entries) addresses a slice of params' dims b+k.. within
 * batch element q (b = batch_dims, TF's batch_gather_nd: indices' leading dims are read as params' batch dims
 * flattened, the result takes params' batch dims); iscr[0] = k, iscr[1] = b, iscr[2] = the batch size. */
/* shape: params' batch dims, then indices' other dims without the last, then the dims of params it does not index. */
void meta_gather_nd(OpCall *c) {
  const TMeta *p = &c->inm[0], *ix = &c->inm[1];
  TMeta *o = &c->outm[0];
  tfs_i64 b = op_attr_int(c, 0, 0);
  /* TF's batch_gather_nd checks these in Python: ValueErrors */
  if (b < 0) op_fail(c, ERR_VALUE, "tf.gather_nd does not allow negative batch_dims.");
  if (b > 0 && ix->rank >= 0 && b >= ix->rank)
    op_fail(c, ERR_VALUE, "Argument `batch_dims` = %lld must be less than rank(`indices`) = %d", (long long)b, ix->rank);
  if (b > 0 && p->rank >= 0 && b >= p->rank)
    op_fail(c, ERR_VALUE, "Argument `batch_dims` = %lld must be less than rank(`params`) = %d", (long long)b, p->rank);
  o->dtype = p->dtype;
  if (p->rank < 0 || ix->rank < 0 || (ix->rank > 0 && ix->shape[ix->rank - 1] < 0)) { o->rank = -1; return; }
  if (ix->rank < 1) op_fail(c, ERR_INVALID_ARGUMENT, "indices must be at least a vector");
  tfs_i64 k = ix->shape[ix->rank - 1];
  if (b + k > p->rank)   /* with batch dims TF's GatherNd sees b more index columns */
    op_fail(c, ERR_INVALID_ARGUMENT, "index innermost dimension length must be <= params rank; saw: %lld vs. %d", (long long)(b + k), p->rank);
  tfs_i64 nb = 1, ib = 1;
  for (int d = 0; d < b; d++) {
    nb = nb < 0 || p->shape[d] < 0 ? -1 : nb * p->shape[d];
    ib = ib < 0 || ix->shape[d] < 0 ? -1 : ib * ix->shape[d];
  }
  if (b > 0 && nb >= 0 && ib >= 0 && nb != ib) {   /* TF reshapes indices to [batch size of params, ...] */
    tfs_i64 nix = 1;
    bool known = true;
    for (int d = 0; d < ix->rank; d++) {
      if (ix->shape[d] < 0) known = false;
      nix *= ix->shape[d];
    }
    if (known)
      op_fail(c, ERR_INVALID_ARGUMENT, "Input to reshape is a tensor with %lld values, but the requested shape has %lld", (long long)nix,
              (long long)(nix / (ib ? ib : 1) * nb));
    op_fail(c, ERR_INVALID_ARGUMENT, "indices' batch dimensions hold %lld elements, params' %lld", (long long)ib, (long long)nb);
  }
  int r = 0;
  if (ix->rank - 1 + p->rank - k > TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "result rank exceeds %d", TFS_MAX_RANK);
  for (int d = 0; d < b; d++) o->shape[r++] = p->shape[d];
  for (int d = (int)b; d < ix->rank - 1; d++) o->shape[r++] = ix->shape[d];
  for (int d = (int)(b + k); d < p->rank; d++) o->shape[r++] = p->shape[d];
  o->rank = r;
  c->iscr[0] = k;
  c->iscr[1] = b;
  c->iscr[2] = nb;
}

void k_gather_nd(OpCall *c) {
  Tensor *p = tensor_contiguous(c->in[0]), *ix = c->in[1], *o = c->out[0];
  int k = (int)c->iscr[0], b = (int)c->iscr[1];
  tfs_i64 nb = b ? c->iscr[2] : 1;
  size_t esz = (size_t)dtype_info[p->dtype].size, blk = esz;
  for (int d = b + k; d < p->rank; d++) blk *= (size_t)p->shape[d];
  tfs_i64 nidx = 1, per = 1;   /* index rows in all, in one batch element; param slices in one batch element */
  for (int d = 0; d < ix->rank - 1; d++) nidx *= ix->shape[d];
  for (int d = b; d < b + k; d++) per *= p->shape[d];
  tfs_i64 inner = nb ? nidx / nb : 0;
  char *dst = tensor_data(o);
  const char *src = tensor_data(p);
  for (tfs_i64 j = 0; j < nidx; j++) {
    tfs_i64 flat = 0, q = inner ? j / inner : 0;
    for (int d = 0; d < k; d++) {
      tfs_i64 v = tensor_get_i(ix, j * k + d);
      if (v < 0 || v >= p->shape[b + d]) {   /* TF's text: indices[i,j] = [a, b] does not index into param shape [..] */
        StrBuf s;
        sb_init(&s);
        sb_puts(&s, "indices");
        tfs_i64 idx[TFS_MAX_RANK], r = j;
        int lr = ix->rank - 1;   /* the rows' index; with batch dims TF's flattened [batch, ...] indices, batch coordinates first */
        tfs_i64 lshape[TFS_MAX_RANK];
        if (b) {
          lr = ix->rank - b;
          lshape[0] = nb;
          for (int e = 1; e < lr; e++) lshape[e] = ix->shape[b + e - 1];
        } else {
          for (int e = 0; e < lr; e++) lshape[e] = ix->shape[e];
        }
        for (int e = lr - 1; e >= 0; e--) { idx[e] = r % lshape[e]; r /= lshape[e]; }
        for (int e = 0; e < lr; e++) sb_printf(&s, e ? ",%lld" : "[%lld", (long long)idx[e]);
        if (lr > 0) sb_putc(&s, ']');
        tfs_i64 bc[TFS_MAX_RANK], qq = q;
        for (int e = b - 1; e >= 0; e--) { bc[e] = qq % p->shape[e]; qq /= p->shape[e]; }
        for (int e = 0; e < b + k; e++) {
          tfs_i64 ev = e < b ? bc[e] : tensor_get_i(ix, j * k + e - b);
          sb_printf(&s, e ? ", %lld" : " = [%lld", (long long)ev);
        }
        sb_puts(&s, "] does not index into param shape ");
        op_shape_text(&s, p->rank, p->shape);
        tensor_release(p);
        /* errindex: indices… = […] does not index into param shape … */
        fail_buf(c, ERR_INVALID_ARGUMENT, &s);
      }
      flat = flat * p->shape[b + d] + v;
    }
    flat += q * per;
    if (blk) memcpy(dst + (size_t)j * blk, src + (size_t)flat * blk, blk);
  }
  own_strings(o);
  tensor_release(p);
}

/* ---- pad ------------------------------------------------------------------------------------- */

/* tf.pad(tensor, paddings, mode, constant_values): scratch iscr[d] before, iscr[TFS_MAX_RANK + d] after,
 * iscr[2 * TFS_MAX_RANK] the mode (0 CONSTANT, 1 REFLECT, 2 SYMMETRIC). */
static int pad_pairs(OpCall *c, tfs_i64 *lo, tfs_i64 *hi) {
  Val v = op_attr(c, 0);
  Tensor *t = val_as_tensor(v);
  if (v.tag == VT_UNDEF) op_fail(c, ERR_TYPE, "tf.pad() missing required argument 'paddings'");
  int n;
  if (t) {
    if (t->sym) op_fail(c, ERR_UNIMPLEMENTED, "tf.pad: paddings must be a constant, not a graph tensor");
    if (t->rank != 2 || t->shape[1] != 2) {
      StrBuf s;
      sb_init(&s);
      sb_puts(&s, "paddings must be a matrix with 2 columns: ");
      op_shape_text(&s, t->rank, t->shape);
      /* errindex: paddings must be a matrix with 2 columns: … */
      fail_buf(c, ERR_INVALID_ARGUMENT, &s);
    }
    n = (int)(t->shape[0] < TFS_MAX_RANK + 1 ? t->shape[0] : TFS_MAX_RANK + 1);
    for (int i = 0; i < n && i < TFS_MAX_RANK; i++) lo[i] = tensor_get_i(t, 2 * i), hi[i] = tensor_get_i(t, 2 * i + 1);
  } else if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    tfs_i64 len = val_is(v, &list_type) ? ((List *)v.u.o)->len : ((Tuple *)v.u.o)->len;
    const Val *items = val_is(v, &list_type) ? ((List *)v.u.o)->items : ((Tuple *)v.u.o)->items;
    n = (int)(len < TFS_MAX_RANK + 1 ? len : TFS_MAX_RANK + 1);
    for (int i = 0; i < n && i < TFS_MAX_RANK; i++) {   /* each row [before, after]: negatives get TF's message below */
      Val row = items[i];
      bool seq = val_is(row, &list_type) || val_is(row, &tuple_type);
      tfs_i64 m = !seq ? 0 : val_is(row, &list_type) ? ((List *)row.u.o)->len : ((Tuple *)row.u.o)->len;
      const Val *rv = !seq ? NULL : val_is(row, &list_type) ? ((List *)row.u.o)->items : ((Tuple *)row.u.o)->items;
      int64_t b = 0, e = 0;
      if (!seq) op_fail(c, ERR_INVALID_ARGUMENT, "paddings must be a matrix with 2 columns: [%lld]", (long long)len);
      if (m != 2) op_fail(c, ERR_INVALID_ARGUMENT, "paddings must be a matrix with 2 columns: [%lld,%lld]", (long long)len, (long long)m);
      if (!val_as_int(rv[0], &b) || !val_as_int(rv[1], &e)) op_fail(c, ERR_TYPE, "tf.pad: paddings must hold integers");
      lo[i] = b, hi[i] = e;
    }
  } else {
    op_fail(c, ERR_TYPE, "tf.pad: paddings must be a list of [before, after] pairs or an int tensor of shape [rank, 2]");
  }
  return n;
}

/* shape: each dimension grows by the two amounts of its paddings row. */
void meta_pad(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  tfs_i64 *lo = c->iscr, *hi = c->iscr + TFS_MAX_RANK;
  int n = pad_pairs(c, lo, hi), mode = 0;
  Val mv = op_attr(c, 1);
  if (mv.tag != VT_UNDEF) {
    const char *ms = val_is(mv, &str_type) ? ((Str *)mv.u.o)->data : "";
    if (!strcasecmp(ms, "CONSTANT")) mode = 0;
    else if (!strcasecmp(ms, "REFLECT")) mode = 1;
    else if (!strcasecmp(ms, "SYMMETRIC")) mode = 2;
    else {
      StrBuf s;
      sb_init(&s);
      sb_puts(&s, "Value of argument `mode` expected to be one of \"CONSTANT\", \"REFLECT\", or \"SYMMETRIC\". Received `mode` = ");
      val_repr(&s, mv);
      /* errindex: Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". Received `mode` = … */
      fail_buf(c, ERR_VALUE, &s);
    }
  }
  c->iscr[2 * TFS_MAX_RANK] = mode;
  Tensor *cv = c->attrs->n > 2 ? val_as_tensor(op_attr(c, 2)) : NULL;
  if (cv && !cv->sym && cv->dtype != a->dtype && a->dtype != DT_STRING)   /* PadV2's T: the constant has the input's dtype */
    op_fail(c, ERR_INVALID_ARGUMENT, "cannot compute %s as input #%d(zero-based) was expected to be a %s tensor but is a %s tensor",
            c->op->graph_name, 2, dtype_short_name(a->dtype), dtype_short_name(cv->dtype));
  if (a->rank >= 0 && n != a->rank) {
    StrBuf s;
    sb_init(&s);
    sb_printf(&s, "The first dimension of paddings must be the rank of inputs[%d,2] ", n);
    op_shape_text(&s, a->rank, a->shape);
    /* errindex: The first dimension of paddings must be the rank of inputs[…,2] … */
    fail_buf(c, ERR_INVALID_ARGUMENT, &s);
  }
  if (n > TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "too many dimensions (max %d)", TFS_MAX_RANK);
  o->dtype = a->dtype;
  o->rank = n;
  for (int d = 0; d < n; d++) {
    tfs_i64 dim = a->rank < 0 ? -1 : a->shape[d];
    if (lo[d] < 0 || hi[d] < 0)
      op_fail(c, ERR_INVALID_ARGUMENT, "Paddings must be non-negative: %lld %lld", (long long)lo[d], (long long)hi[d]);
    if (mode && dim >= 0 && (mode == 1 ? (lo[d] >= dim || hi[d] >= dim) : (lo[d] > dim || hi[d] > dim)))
      op_fail(c, ERR_INVALID_ARGUMENT, "paddings must be %s the dimension size: %lld, %lld not %s %lld",
              mode == 1 ? "less than" : "no greater than", (long long)lo[d], (long long)hi[d],
              mode == 1 ? "less than" : "greater than", (long long)dim);
    o->shape[d] = dim < 0 ? -1 : dim + lo[d] + hi[d];
  }
}

/* A string tensor's padding constant (a new reference): constant_values as a string scalar, or "" for the
 * default 0 (TF pads strings with "" through Pad when constant_values is a Python zero). */
static Str *pad_string_constant(OpCall *c) {
  Val cv = op_attr(c, 2);
  Tensor *ct = val_as_tensor(cv);
  Str *s = NULL;
  if (ct && ct->dtype == DT_STRING && ct->size == 1) s = ((Str **)ct->buf->data)[ct->offset];
  else if (val_is(cv, &str_type) || val_is(cv, &bytes_type)) s = (Str *)cv.u.o;
  else if (!ct && (cv.tag == VT_UNDEF || ((cv.tag == VT_INT || cv.tag == VT_BOOL) && cv.u.i == 0))) s = NULL;
  else
    op_fail(c, ERR_INVALID_ARGUMENT, "cannot compute %s as input #%d(zero-based) was expected to be a %s tensor but is a %s tensor",
            c->op->graph_name, 2, dtype_short_name(DT_STRING), dtype_short_name(ct ? ct->dtype : DT_INT32));
  if (!s) return (Str *)str_new("", 0).u.o;
  s->hdr.rc++;
  return s;
}

/* Strings hold references: each output element is the input's element or the constant, one reference each. */
static void pad_strings(OpCall *c, Tensor *a, Tensor *o, const tfs_i64 *lo, int mode) {
  Str *k = mode == 0 ? pad_string_constant(c) : NULL;
  Str **dst = tensor_data(o);
  Str *const *base = (Str *const *)a->buf->data;
  tfs_i64 idx[TFS_MAX_RANK] = {0};
  for (tfs_i64 i = 0; i < o->size; i++) {
    tfs_i64 off = a->offset;
    bool inside = a->size > 0;
    for (int d = 0; d < o->rank && inside; d++) {
      tfs_i64 j = idx[d] - lo[d], n = a->shape[d];
      if (j < 0 || j >= n) {
        if (!mode) { inside = false; break; }
        j = j < 0 ? (mode == 1 ? -j : -j - 1) : (mode == 1 ? 2 * (n - 1) - j : 2 * n - 1 - j);
      }
      off += j * a->strides[d];
    }
    Str *e = inside ? base[off] : k;
    if (dst[i]) { Val v = val_obj(dst[i]); TFS_DECREF(v); }
    if (e) e->hdr.rc++;
    dst[i] = e;
    for (int d = o->rank - 1; d >= 0; d--) {
      if (++idx[d] < o->shape[d]) break;
      idx[d] = 0;
    }
  }
  if (k) { Val v = val_obj(k); TFS_DECREF(v); }
}

void k_pad(OpCall *c) {
  Tensor *a = c->in[0], *o = c->out[0];
  const tfs_i64 *lo = c->iscr;
  int r = o->rank, mode = (int)c->iscr[2 * TFS_MAX_RANK];
  if (o->dtype == DT_STRING) { pad_strings(c, a, o, lo, mode); return; }
  if (mode == 0) {
    double fv = op_attr_float(c, 2, 0);
    Val cv = op_attr(c, 2);
    Tensor *ct = val_as_tensor(cv);
    tfs_i64 iv = cv.tag == VT_INT || cv.tag == VT_BOOL ? cv.u.i   /* integers exactly, not through a double */
               : ct && ct->size == 1 && dtype_info[ct->dtype].is_int ? tensor_get_i(ct, 0) : (tfs_i64)fv;
    ew_fill(o, fv, iv);
  }
  if (!o->size || !a->size) return;
  size_t esz = (size_t)dtype_info[o->dtype].size;
  tfs_i64 idx[TFS_MAX_RANK] = {0};
  char *dst = tensor_data(o);
  const char *base = (const char *)a->buf->data;
  for (tfs_i64 i = 0; i < o->size; i++) {
    tfs_i64 off = a->offset;
    bool inside = true;
    for (int d = 0; d < r; d++) {
      tfs_i64 j = idx[d] - lo[d], n = a->shape[d];
      if (j < 0 || j >= n) {   /* in the padding: the constant, or the mirrored element (REFLECT skips the edge) */
        if (!mode) { inside = false; break; }
        j = j < 0 ? (mode == 1 ? -j : -j - 1) : (mode == 1 ? 2 * (n - 1) - j : 2 * n - 1 - j);
      }
      off += j * a->strides[d];
    }
    if (inside) memcpy(dst + (size_t)i * esz, base + (size_t)off * esz, esz);
    for (int d = r - 1; d >= 0; d--) {
      if (++idx[d] < o->shape[d]) break;
      idx[d] = 0;
    }
  }
}

/* ---- tile, broadcast_to, one_hot ------------------------------------------------------------- */

/* shape: each dimension multiplied by its multiple. */
void meta_tile(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  tfs_i64 m[TFS_MAX_RANK];
  int n = val_to_dims(op_attr(c, 0), m, false, "tf.tile multiples");
  if (a->rank >= 0 && n != a->rank)
    op_fail(c, ERR_INVALID_ARGUMENT, "Expected multiples argument to be a vector of length %d but got length %d", a->rank, n);
  o->dtype = a->dtype;
  o->rank = n;
  for (int i = 0; i < n; i++) {
    c->iscr[i] = m[i];
    o->shape[i] = (a->rank < 0 || a->shape[i] < 0) ? -1 : a->shape[i] * m[i];
  }
}

/* Copy src into dst where dst's index maps to src's by modulo (tile) or by
 * broadcasting (size-1 dims of src repeat). */
static void copy_mapped(Tensor *dst, Tensor *src, bool modulo) {
  size_t esz = (size_t)dtype_info[src->dtype].size;
  int r = dst->rank, sr = src->rank;
  tfs_i64 idx[TFS_MAX_RANK] = {0};
  char *o = tensor_data(dst);
  const char *base = (const char *)src->buf->data;
  for (tfs_i64 i = 0; i < dst->size; i++) {
    tfs_i64 off = src->offset;
    for (int d = 0; d < sr; d++) {
      int od = d + (r - sr);
      tfs_i64 k = modulo ? idx[od] % src->shape[d] : (src->shape[d] == 1 ? 0 : idx[od]);
      off += k * src->strides[d];
    }
    memcpy(o, base + (size_t)off * esz, esz);
    o += esz;
    for (int d = r - 1; d >= 0; d--) {
      if (++idx[d] < dst->shape[d]) break;
      idx[d] = 0;
    }
  }
  own_strings(dst);
}

void k_tile(OpCall *c) {
  if (c->out[0]->size) copy_mapped(c->out[0], c->in[0], true);
}

/* shape: the requested shape, which the input must broadcast to. */
void meta_broadcast_to(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  tfs_i64 dims[TFS_MAX_RANK];
  int n = val_to_dims(op_attr(c, 0), dims, false, "tf.broadcast_to shape");
  meta_set(o, a->dtype, n, dims);
  bool ok = a->rank <= n;
  for (int i = 0; ok && i < a->rank; i++) {
    tfs_i64 da = a->shape[i], db = dims[i + n - a->rank];
    ok = da == db || da == 1 || da < 0;
  }
  if (!ok) {
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, "Unable to broadcast tensor of shape ");
    op_shape_text(&s, a->rank, a->shape);
    sb_puts(&s, " to tensor of shape ");
    op_shape_text(&s, n, dims);
    /* errindex: Unable to broadcast tensor of shape … to tensor of shape … */
    fail_buf(c, ERR_INVALID_ARGUMENT, &s);
  }
}

/* Broadcast src into dst for fixed-size dtypes: dims whose source strides chain (broadcast runs
 * included) are merged, then each innermost run is one memcpy (contiguous), a fill by doubling copies
 * (a repeated element: reduce_sum's gradient spreads a scalar this way) or a strided loop. The same
 * bytes as copy_mapped, without its per-element index arithmetic. */
static void broadcast_rows(Tensor *dst, const Tensor *src) {
  size_t esz = (size_t)dtype_info[src->dtype].size;
  int r = dst->rank, sr = src->rank, n = 0;
  tfs_i64 sh[TFS_MAX_RANK + 1], st[TFS_MAX_RANK + 1];
  for (int d = 0; d < r; d++) {
    int sd = d - (r - sr);
    tfs_i64 len = dst->shape[d], s = sd < 0 || src->shape[sd] == 1 ? 0 : src->strides[sd];
    if (len == 1) continue;
    if (n && st[n - 1] == s * len) { sh[n - 1] *= len; st[n - 1] = s; continue; }
    sh[n] = len;
    st[n++] = s;
  }
  if (!n) { sh[0] = 1; st[0] = 0; n = 1; }
  tfs_i64 inner = sh[n - 1], is = st[n - 1], idx[TFS_MAX_RANK + 1] = {0}, rows = dst->size / inner;
  char *o = tensor_data(dst);
  const char *base = (const char *)src->buf->data + (size_t)src->offset * esz;
  tfs_i64 off = 0;
  for (tfs_i64 q = 0; q < rows; q++) {
    const char *p = base + (size_t)off * esz;
    if (is == 1) memcpy(o, p, (size_t)inner * esz);
    else if (is == 0) {
      memcpy(o, p, esz);
      for (size_t done = 1, left = (size_t)inner - 1; left;) {
        size_t k = done < left ? done : left;
        memcpy(o + done * esz, o, k * esz);
        done += k;
        left -= k;
      }
    } else
      for (tfs_i64 i = 0; i < inner; i++) memcpy(o + (size_t)i * esz, p + (size_t)(i * is) * esz, esz);
    o += (size_t)inner * esz;
    for (int d = n - 2; d >= 0; d--) {
      off += st[d];
      if (++idx[d] < sh[d]) break;
      off -= st[d] * sh[d];
      idx[d] = 0;
    }
  }
}

void k_broadcast_to(OpCall *c) {
  if (!c->out[0]->size) return;
  if (dtype_holds_refs(c->in[0]->dtype)) copy_mapped(c->out[0], c->in[0], false);
  else broadcast_rows(c->out[0], c->in[0]);
}

/* shape: indices' shape with a new dimension of size depth at axis (last by default). */
void meta_one_hot(OpCall *c) {
  const TMeta *ix = &c->inm[0];
  TMeta *o = &c->outm[0];
  if (!op_attr_given(c, 0)) op_fail(c, ERR_TYPE, "tf.one_hot() missing required argument 'depth'");
  tfs_i64 depth = op_attr_int(c, 0, 0);
  if (depth < 0) op_fail(c, ERR_INVALID_ARGUMENT, "depth must be non-negative, got: %lld", (long long)depth);
  int dt = op_attr_dtype(c, 4, -1);
  if (dt < 0) {
    for (int k = 1; k <= 2 && dt < 0; k++) {
      Val v = op_attr(c, k);
      Tensor *t = val_as_tensor(v);
      if (t) dt = t->dtype;
      else if (v.tag == VT_INT) dt = DT_INT32;
      else if (v.tag == VT_FLOAT) dt = DT_FLOAT32;
      else if (v.tag == VT_BOOL) dt = DT_BOOL;
    }
    if (dt < 0) dt = DT_FLOAT32;
  }
  tfs_i64 axis = op_attr_int(c, 3, -1);
  int r = ix->rank;
  if (r < 0) { o->dtype = (DType)dt; o->rank = -1; return; }
  if (r + 1 > TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "tensors of rank > %d are not supported", TFS_MAX_RANK);
  if (axis < -1 || axis > r) op_fail(c, ERR_INVALID_ARGUMENT, "Expected axis to be -1 or between [0, %d).  But received: %lld", r + 1, (long long)axis);
  int ax = (int)(axis < 0 ? r : axis);
  c->iscr[0] = ax;
  c->iscr[1] = depth;
  o->dtype = (DType)dt;
  o->rank = r + 1;
  for (int i = 0, j = 0; i <= r; i++) o->shape[i] = i == ax ? depth : ix->shape[j++];
}

void k_one_hot(OpCall *c) {
  Tensor *ix = c->in[0], *o = c->out[0];
  int ax = (int)c->iscr[0];
  tfs_i64 depth = c->iscr[1];
  double on = op_attr_float(c, 1, 1.0), off = op_attr_float(c, 2, 0.0);
  ew_fill(o, off, (tfs_i64)off);
  tfs_i64 outer = 1, inner = 1;
  for (int d = 0; d < ax; d++) outer *= o->shape[d];
  for (int d = ax + 1; d < o->rank; d++) inner *= o->shape[d];
  size_t esz = (size_t)dtype_info[o->dtype].size;
  Tensor *onv = tensor_scalar(o->dtype);
  ew_fill(onv, on, (tfs_i64)on);
  char *base = tensor_data(o);
  for (tfs_i64 q = 0; q < outer; q++)
    for (tfs_i64 i = 0; i < inner; i++) {
      tfs_i64 k = tensor_get_i(ix, q * inner + i);
      if (k >= 0 && k < depth) memcpy(base + (size_t)((q * depth + k) * inner + i) * esz, tensor_data(onv), esz);
    }
  tensor_release(onv);
}

/* ---- shape, size, rank --------------------------------------------------------------------------- */

/* shape: [rank] (1-D), or a scalar for tf.rank and tf.size. */
void meta_shape_of(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  int dt = c->op->id == OP_RANK ? DT_INT32 : op_attr_dtype(c, 0, DT_INT32);
  if (dt != DT_INT32 && dt != DT_INT64) op_fail(c, ERR_INVALID_ARGUMENT, "out_type must be int32 or int64");
  o->dtype = (DType)dt;
  if (c->op->id == OP_SHAPE) {
    o->rank = 1;
    o->shape[0] = a->rank;
  } else o->rank = 0;
}

void k_shape_of(OpCall *c) {
  Tensor *a = c->in[0], *o = c->out[0];
  for (tfs_i64 i = 0; i < o->size || (o->rank == 0 && i == 0); i++) {
    tfs_i64 v = c->op->id == OP_SHAPE ? a->shape[i] : c->op->id == OP_SIZE ? a->size : a->rank;
    if (o->dtype == DT_INT32) ((int32_t *)tensor_data(o))[i] = (int32_t)v;
    else ((int64_t *)tensor_data(o))[i] = v;
    if (o->rank == 0) break;
  }
}

/* ---- creation --------------------------------------------------------------------------------------- */

/* shape: the input's shape, in the input's dtype unless dtype is given. */
void meta_like(OpCall *c) {
  c->outm[0] = c->inm[0];
  int dt = op_attr_dtype(c, 0, -1);
  if (dt >= 0) c->outm[0].dtype = (DType)dt;
  if (c->op->id == OP_ONES_LIKE && c->outm[0].dtype == DT_STRING) op_fail(c, ERR_INVALID_ARGUMENT, "ones_like is not defined for string tensors");
}

/* shape: the requested shape. */
void meta_zeros(OpCall *c) {
  tfs_i64 dims[TFS_MAX_RANK];
  int r = val_to_dims(op_attr(c, 0), dims, false, c->op->id == OP_ZEROS ? "tf.zeros" : "tf.ones");
  int dt = op_attr_dtype(c, 1, DT_FLOAT32);
  if (c->op->id == OP_ONES && dt == DT_STRING) op_fail(c, ERR_INVALID_ARGUMENT, "tf.ones is not defined for string tensors");
  meta_set(&c->outm[0], (DType)dt, r, dims);
}

/* shape: the requested dims, filled with the scalar value. */
void meta_fill(OpCall *c) {
  const TMeta *v = &c->inm[0];
  if (v->rank != 0) {
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, "value must be a scalar, got shape ");
    op_shape_text(&s, v->rank, v->shape);
    /* errindex: value must be a scalar, got shape … */
    fail_buf(c, ERR_INVALID_ARGUMENT, &s);
  }
  tfs_i64 dims[TFS_MAX_RANK];
  int r = val_to_dims(op_attr(c, 0), dims, false, "tf.fill dims");
  meta_set(&c->outm[0], v->dtype, r, dims);
}

void k_fill(OpCall *c) {
  Tensor *o = c->out[0];
  switch (c->op->id) {
  case OP_ZEROS: case OP_ZEROS_LIKE:
    if (o->dtype == DT_VARIANT) tlist_zeros_like(c->in[0], o);   /* a list of as many unset (zero) elements */
    else ew_fill(o, 0, 0);
    break;
  case OP_ONES: case OP_ONES_LIKE: ew_fill(o, 1, 1); break;
  default: {   /* FILL: broadcast the scalar */
    Tensor *v = c->in[0];
    if (o->size) copy_mapped(o, v, false);
    break;
  }
  }
}

/* shape: [num_rows, num_columns] (num_columns defaults to num_rows), with batch_shape in front. */
void meta_eye(OpCall *c) {
  tfs_i64 n = op_attr_int(c, 0, -1);
  tfs_i64 m = op_attr_int(c, 1, n);
  if (n < 0 || m < 0) op_fail(c, ERR_INVALID_ARGUMENT, "num_rows and num_columns must be non-negative");
  tfs_i64 dims[TFS_MAX_RANK];
  int r = 0;
  if (op_attr_given(c, 2)) r = val_to_dims(op_attr(c, 2), dims, false, "tf.eye batch_shape");
  if (r + 2 > TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "batch_shape too long");
  dims[r++] = n;
  dims[r++] = m;
  meta_set(&c->outm[0], (DType)op_attr_dtype(c, 3, DT_FLOAT32), r, dims);
}

void k_eye(OpCall *c) {
  Tensor *o = c->out[0];
  ew_fill(o, 0, 0);
  tfs_i64 n = o->shape[o->rank - 2], m = o->shape[o->rank - 1], nb = (n * m != 0) ? o->size / (n * m) : 0;
  size_t esz = (size_t)dtype_info[o->dtype].size;
  Tensor *one = tensor_scalar(o->dtype);
  ew_fill(one, 1, 1);
  for (tfs_i64 b = 0; b < nb; b++)
    for (tfs_i64 i = 0; i < n && i < m; i++)
      memcpy((char *)tensor_data(o) + (size_t)(b * n * m + i * m + i) * esz, tensor_data(one), esz);
  tensor_release(one);
}

/* range: scratch fscr[0..2] start/limit/delta. */
static int range_kind(Val v) {   /* 0 absent, 1 int, 2 float; tensors by dtype */
  if (v.tag == VT_UNDEF || v.tag == VT_NONE) return 0;
  if (v.tag == VT_FLOAT) return 2;
  Tensor *t = val_as_tensor(v);
  if (t) return dtype_info[t->dtype].is_float ? (t->dtype == DT_FLOAT64 ? 3 : 2) : (t->dtype == DT_INT64 ? 4 : 1);
  return 1;
}

/* shape: [ceil((limit - start) / delta)], 1-D. */
void meta_range(OpCall *c) {
  bool has_limit = op_attr_given(c, 1);
  double start = op_attr_float(c, 0, 0), limit = op_attr_float(c, 1, 0), delta = op_attr_float(c, 2, 1);
  if (!has_limit) { limit = start; start = 0; }
  int k = 0;
  for (int i = 0; i < 3; i++) {
    int q = range_kind(op_attr(c, i));
    if (q > k) k = q;
  }
  int dt = op_attr_dtype(c, 3, -1);
  if (dt < 0) dt = k == 2 ? DT_FLOAT32 : k == 3 ? DT_FLOAT64 : k == 4 ? DT_INT64 : DT_INT32;
  if (!(DTM(dt) & (DTM_NUM | DTM_HALF | DTM(DT_INT8) | DTM(DT_INT16) | DTM(DT_UINT16) | DTM(DT_UINT32))))
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'Tidx' of %s is not in the list of allowed values: bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32", dtype_short_name((DType)dt));
  if (delta == 0) op_fail(c, ERR_INVALID_ARGUMENT, "Requires delta != 0: %g", delta);
  if (delta > 0 && start > limit) op_fail(c, ERR_INVALID_ARGUMENT, "Requires start <= limit when delta > 0: %g/%g", start, limit);
  if (delta < 0 && start < limit) op_fail(c, ERR_INVALID_ARGUMENT, "Requires start >= limit when delta < 0: %g/%g", start, limit);
  tfs_i64 n;
  if (dtype_info[dt].is_int) {
    tfs_i64 s = (tfs_i64)start, l = (tfs_i64)limit, d = (tfs_i64)delta;
    if (d == 0) op_fail(c, ERR_INVALID_ARGUMENT, "Requires delta != 0: %lld", (long long)d);
    n = (llabs(l - s) + llabs(d) - 1) / llabs(d);
  } else if (dt == DT_FLOAT32) {   /* TF sizes the result in the element type */
    n = (tfs_i64)ceilf(fabsf(((float)limit - (float)start) / (float)delta));
  } else if (dt != DT_FLOAT64) {     /* a half: each operation in float, rounded back to the half */
    Tensor *h = tensor_scalar((DType)dt);
    void *hp = tensor_data(h);
    float v[3];
    for (int i = 0; i < 3; i++) {
      dtype_store_f((DType)dt, hp, i == 0 ? start : i == 1 ? limit : delta);
      v[i] = (float)dtype_load_f((DType)dt, hp);
    }
    dtype_store_f((DType)dt, hp, v[1] - v[0]);
    dtype_store_f((DType)dt, hp, dtype_load_f((DType)dt, hp) / v[2]);
    n = (tfs_i64)ceil(fabs(dtype_load_f((DType)dt, hp)));
    tensor_release(h);
  } else {
    n = (tfs_i64)ceil(fabs((limit - start) / delta));
  }
  c->fscr[0] = start;
  c->fscr[1] = limit;
  c->fscr[2] = delta;
  meta_set(&c->outm[0], (DType)dt, 1, &n);
}

void k_range(OpCall *c) {
  Tensor *o = c->out[0];
  double s = c->fscr[0], d = c->fscr[2];
  void *p = tensor_data(o);
  switch (o->dtype) {
  /* TF accumulates the float values (val += delta), so we do too */
  case DT_FLOAT32: { float *q = p, v = (float)s, fd = (float)d; for (tfs_i64 i = 0; i < o->size; i++, v += fd) q[i] = v; break; }
  case DT_FLOAT64: { double *q = p, v = s; for (tfs_i64 i = 0; i < o->size; i++, v += d) q[i] = v; break; }
  case DT_INT32: { int32_t *q = p, is = (int32_t)s, id = (int32_t)d; for (tfs_i64 i = 0; i < o->size; i++) q[i] = is + (int32_t)i * id; break; }
  case DT_INT64: { int64_t *q = p, is = (int64_t)s, id = (int64_t)d; for (tfs_i64 i = 0; i < o->size; i++) q[i] = is + i * id; break; }
  default: {   /* the small ints and halves: val += delta in the element type */
    size_t esz = (size_t)dtype_info[o->dtype].size;
    bool fl = dtype_info[o->dtype].is_float;
    char *q = p, dq[8];
    if (fl) { dtype_store_f(o->dtype, q, s); dtype_store_f(o->dtype, dq, d); }
    else { dtype_store_i(o->dtype, q, (tfs_i64)s); dtype_store_i(o->dtype, dq, (tfs_i64)d); }
    for (tfs_i64 i = 1; i < o->size; i++, q += esz) {
      if (fl) dtype_store_f(o->dtype, q + esz, (double)((float)dtype_load_f(o->dtype, q) + (float)dtype_load_f(o->dtype, dq)));
      else dtype_store_i(o->dtype, q + esz, dtype_load_i(o->dtype, q) + dtype_load_i(o->dtype, dq));
    }
    break;
  }
  }
}

/* tf.linspace is TF 2.15's linspace_nd: start and stop broadcast together (shape B), num values go in at
 * `axis` of the result (B with num inserted).  iscr[0] = that axis. */
/* shape: start's and stop's broadcast shape with num inserted at axis. */
void meta_linspace(OpCall *c) {
  const TMeta *a = &c->inm[0], *b = &c->inm[1];
  if (!op_attr_given(c, 0)) op_fail(c, ERR_TYPE, "tf.linspace() missing required argument 'num'");
  tfs_i64 n = op_attr_int(c, 0, 0);
  if (n < 0) op_fail(c, ERR_INVALID_ARGUMENT, "Requires num > 0: %lld", (long long)n);
  tfs_i64 axis = op_attr_int(c, 1, 0);   /* `name` is no attribute */
  TMeta *o = &c->outm[0];
  o->dtype = a->dtype;
  if (a->rank < 0 || b->rank < 0) { o->rank = -1; return; }
  TMeta bm;   /* right-aligned broadcasting, as tf.broadcast_dynamic_shape */
  op_broadcast_meta(c, a, b, &bm);
  int r = bm.rank;
  const tfs_i64 *sh = bm.shape;
  if (r + 1 > TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "result rank exceeds %d", TFS_MAX_RANK);
  /* TF concatenates start, the inner values and stop along axis (of rank r + 1) */
  if (axis < -(r + 1) || axis > r)
    op_fail(c, ERR_INVALID_ARGUMENT, "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %lld", -(r + 1), r + 1,
            (long long)axis);
  int ax = (int)(axis < 0 ? axis + r + 1 : axis);
  o->rank = r + 1;
  for (int d = 0, j = 0; d <= r; d++) o->shape[d] = d == ax ? n : sh[j++];
  c->iscr[0] = ax;
}

/* element f (row-major over the result shape without the axis) of x broadcast to that shape */
static double linspace_at(const Tensor *x, const Tensor *o, int ax, tfs_i64 f) {
  tfs_i64 idx = 0, stride = 1;
  int r = o->rank - 1;
  for (int d = r - 1; d >= 0; d--) {
    tfs_i64 dim = o->shape[d < ax ? d : d + 1];
    tfs_i64 i = f % dim;
    f /= dim;
    int dx = d - (r - x->rank);
    if (dx >= 0) {
      if (x->shape[dx] != 1) idx += i * stride;
      stride *= x->shape[dx];
    }
  }
  return tensor_get_f(x, idx);
}

void k_linspace(OpCall *c) {
  Tensor *o = c->out[0];
  int ax = (int)c->iscr[0];
  tfs_i64 n = o->shape[ax], outer = 1, inner = 1;
  for (int d = 0; d < ax; d++) outer *= o->shape[d];
  for (int d = ax + 1; d < o->rank; d++) inner *= o->shape[d];
  /* TF: start + delta * i with delta = (stop - start) / max(num - 1, 1) in the dtype, stop itself last */
  for (tfs_i64 p = 0; p < outer; p++)
    for (tfs_i64 q = 0; q < inner; q++) {
      tfs_i64 f = p * inner + q;
      double s = linspace_at(c->in[0], o, ax, f), e = linspace_at(c->in[1], o, ax, f);
      for (tfs_i64 i = 0; i < n; i++) {
        tfs_i64 at = (p * n + i) * inner + q;
        if (o->dtype == DT_FLOAT32) {
          float fs = (float)s, fe = (float)e, step = n > 1 ? (fe - fs) / (float)(n - 1) : 0;
          ((float *)tensor_data(o))[at] = i == n - 1 && n > 1 ? fe : fs + step * (float)i;
        } else {
          double step = n > 1 ? (e - s) / (double)(n - 1) : 0;
          ((double *)tensor_data(o))[at] = i == n - 1 && n > 1 ? e : s + step * (double)i;
        }
      }
    }
}
