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

/* _CollectiveGradStart: bucket k (attr 0) of nbuckets (1) of a gradient group of total (2) elements whose plan
 * hashes to attr 3.  Inputs: bucket 0 its gradients; a later bucket the group's handle, then its gradients.
 * Output: the handle (int64 scalar) the next bucket and the wait take. */
void meta_coll_grad_start(OpCall *c) {
  tfs_i64 k = op_attr_int(c, 0, 0);
  if (c->nin < (k ? 2 : 1)) op_fail(c, ERR_INTERNAL, "gradient all-reduce: the buckets do not follow the plan every rank agreed on");
  c->outm[0].dtype = DT_INT64;
  c->outm[0].rank = 0;
}

void k_coll_grad_start(OpCall *c) {
  tfs_i64 k = op_attr_int(c, 0, 0);
  tfs_i64 id = k ? *(const int64_t *)tensor_data(c->in[0]) : 0;
  id = dist_group_start(id, (int)k, (int)op_attr_int(c, 1, 1), op_attr_int(c, 2, 0), (uint64_t)op_attr_int(c, 3, 0),
                        c->nin - (k ? 1 : 0), c->in + (k ? 1 : 0));
  c->out[0] = tensor_new(DT_INT64, 0, NULL);
  *(int64_t *)tensor_data(c->out[0]) = id;
}

/* _CollectiveGradWait: input 0 the handle of a group's last bucket, then the gradients wanted (for their shapes
 * and dtypes); attr 0 the reduce op (SUM or MEAN), attr 1 a tuple of the gradients' places in the group.
 * Outputs: the reduced gradients. */
void meta_coll_grad_wait(OpCall *c) {
  op_reserve_outputs(c, c->nin - 1);
  for (int i = 1; i < c->nin; i++) c->outm[i - 1] = c->inm[i];
}

void k_coll_grad_wait(OpCall *c) {
  Val at = op_attr(c, 1);
  const Tuple *tv = val_is(at, &tuple_type) ? (const Tuple *)at.u.o : NULL;
  int n = c->nin - 1;
  if (!tv || (int)tv->len != n) op_fail(c, ERR_INTERNAL, "gradient all-reduce: the buckets do not follow the plan every rank agreed on");
  int64_t *idx = malloc(sizeof *idx * (size_t)(n + 1));
  if (!idx) op_fail(c, ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(idx);
  for (int i = 0; i < n; i++)
    if (!val_as_int(tv->items[i], &idx[i]))
      op_fail(c, ERR_INTERNAL, "gradient all-reduce: the buckets do not follow the plan every rank agreed on");
  dist_group_finish(*(const int64_t *)tensor_data(c->in[0]), n, idx, c->out, (DistOp)op_attr_int(c, 0, DIST_SUM));
  rt_unhold(mark);
  free(idx);
}

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
      if (val_is(tv->items[i], &variable_type)) variable_storage(tv->items[i].u.o)->dist_synced = true;
    return;
  }
  int n = 0, *idx = malloc(sizeof(int) * (size_t)(c->nin + 1));
  if (!idx) op_fail(c, ERR_MEMORY, "out of memory");
  for (int i = 0; i < c->nin; i++)
    if (mode == 0 || (i < nv && val_is(tv->items[i], &variable_type) && variable_storage(tv->items[i].u.o)->dist_synced)) idx[n++] = i;
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
