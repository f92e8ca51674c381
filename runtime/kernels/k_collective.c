/* k_collective.c — the collective ops of an MPI job (tf.distribute, Horovod) as op-table kernels over runtime/dist. */
#include <stdint.h>
#include <stdlib.h>

#include "dist/dist.h"
#include "kernels/ops.h"
#include "object/object.h"

/* shape: one output per input, each the input's shape and dtype. */
void meta_coll_reduce(OpCall *c) {
  tfs_i64 op = op_attr_int(c, 0, DIST_SUM);
  if (op < DIST_SUM || op > DIST_PROD) op_fail(c, ERR_INVALID_ARGUMENT, "unknown reduce operation %lld", (long long)op);
  op_reserve_outputs(c, c->nin);
  for (int i = 0; i < c->nin; i++) {
    if (c->inm[i].dtype != c->inm[0].dtype)
      op_fail(c, ERR_TYPE, "a fused all-reduce takes tensors of one dtype: %s and %s", dtype_info[c->inm[0].dtype].name,
              dtype_info[c->inm[i].dtype].name);
    c->outm[i] = c->inm[i];
  }
}

/* Every input summed (or averaged, min, max, product) across the ranks, in one fused buffer. */
void k_coll_reduce(OpCall *c) { dist_all_reduce_n(c->nin, c->in, c->out, (DistOp)op_attr_int(c, 0, DIST_SUM)); }

/* shape: the input's, with the axis dimension unknown when several ranks contribute to it. */
void meta_coll_gather(OpCall *c) {
  const TMeta *a = &c->inm[0];
  tfs_i64 axis = op_attr_int(c, 0, 0);
  if (a->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "all_gather: the value must have at least one dimension, got a scalar");
  if (a->rank > 0 && (axis < -a->rank || axis >= a->rank))
    op_fail(c, ERR_INVALID_ARGUMENT, "all_gather: axis %lld is out of range for a tensor of rank %d", (long long)axis, a->rank);
  c->outm[0] = *a;
  c->iscr[0] = axis < 0 ? axis + a->rank : axis;
  if (a->rank > 0 && dist_size() > 1) c->outm[0].shape[c->iscr[0]] = -1;
}

/* The ranks' values concatenated in rank order along axis. */
void k_coll_gather(OpCall *c) { c->out[0] = dist_all_gather(c->in[0], (int)c->iscr[0]); }

/* shape: the input's. */
void meta_coll_bcast(OpCall *c) {
  tfs_i64 root = op_attr_int(c, 0, 0);
  if (root < 0 || root >= dist_size())
    op_fail(c, ERR_INVALID_ARGUMENT, "broadcast: root rank %lld is out of range for %d ranks", (long long)root, dist_size());
  c->outm[0] = c->inm[0];
}

/* The root rank's value on every rank (shapes and dtypes must agree). */
void k_coll_bcast(OpCall *c) { c->out[0] = dist_broadcast(c->in[0], (int)op_attr_int(c, 0, 0)); }

/* TFS_DIST_CHECK (§18.10): every checked input (a variable's value) hashed (FNV-1a over its bytes, 62 bits) and the
 * hashes' maximum and minimum taken across the ranks in one all-reduce; they differ when some rank's bits do.
 * mode 0: a strategy's mirrored variables (attr 0 their names), all of them; 1: a Horovod-only step's variables
 * (attr 0 the Variables), those hvd.broadcast_variables has made equal (before that they differ by design);
 * 2: hvd.broadcast_variables ran on the Variables of attr 0: marks them (no collective). */
void k_dist_check(OpCall *c) {
  Val vars = op_attr(c, 0);
  tfs_i64 mode = op_attr_int(c, 1, 0);
  const Tuple *tv = val_is(vars, &tuple_type) ? (const Tuple *)vars.u.o : NULL;
  int nv = tv ? (int)tv->len : 0;
  if (mode == 2) {
    for (int i = 0; i < nv; i++)
      if (val_is(tv->items[i], &variable_type)) ((Variable *)tv->items[i].u.o)->dist_synced = true;
    return;
  }
  int n = 0, *idx = malloc(sizeof(int) * (size_t)(c->nin + 1));
  if (!idx) op_fail(c, ERR_MEMORY, "out of memory");
  for (int i = 0; i < c->nin; i++)
    if (mode == 0 || (i < nv && val_is(tv->items[i], &variable_type) && ((Variable *)tv->items[i].u.o)->dist_synced)) idx[n++] = i;
  if (n == 0) {
    free(idx);
    return;
  }
  tfs_i64 shape[1] = {2 * (tfs_i64)n};
  Tensor *h = tensor_new(DT_INT64, 1, shape);
  int64_t *hv = tensor_data(h);
  for (int j = 0; j < n; j++) {
    const Tensor *t = c->in[idx[j]];
    const unsigned char *p = tensor_data(t);
    uint64_t x = 1469598103934665603ULL;
    for (size_t k = 0, nb = (size_t)t->size * (size_t)dtype_info[t->dtype].size; k < nb; k++) x = (x ^ p[k]) * 1099511628211ULL;
    hv[j] = (int64_t)(x >> 2), hv[n + j] = -(int64_t)(x >> 2);
  }
  Tensor *m = dist_all_reduce(h, DIST_MAX);
  const int64_t *mv = tensor_data(m);
  int bad = -1;
  for (int j = 0; j < n && bad < 0; j++)
    if (mv[j] != -mv[n + j]) bad = idx[j];
  val_decref(val_obj(h));
  val_decref(val_obj(m));
  free(idx);
  if (bad < 0) return;
  Val who = bad < nv ? tv->items[bad] : val_none();
  const char *name = val_is(who, &str_type) ? str_cstr(who) : val_is(who, &variable_type) ? ((Variable *)who.u.o)->name : "?";
  if (mode == 1)
    op_fail(c, ERR_INTERNAL, "TFS_DIST_CHECK: the variable '%s' differs across the ranks after apply_gradients, "
            "although hvd.broadcast_variables had made it equal", name);
  op_fail(c, ERR_INTERNAL, "TFS_DIST_CHECK: the mirrored variable '%s' differs across the ranks after apply_gradients", name);
}
