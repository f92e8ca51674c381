/* k_collective.c — the collective ops of an MPI job (tf.distribute, Horovod) as op-table kernels over runtime/dist. */
#include "dist/dist.h"
#include "kernels/ops.h"

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
