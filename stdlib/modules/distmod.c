/* distmod.c — `_dist`, the native helpers of the .tfs tf.distribute and Horovod library (stdlib/distribute.tfs): the job and its collectives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "graph/gradsync.h"
#include "kernels/ops.h"
#include "modules/modules.h"
#include "object/object.h"

static Val dm_int_arg(Val v, const char *what) {
  if (v.tag != VT_INT && v.tag != VT_BOOL) rt_throw(ERR_TYPE, "%s: expected an int, not '%s'", what, val_type_name(v));
  return v;
}

static void dm_arity(const char *name, int n, int want, const Kw *kw) {
  if (n != want || (kw && kw->n)) rt_throw(ERR_TYPE, "_dist.%s() takes %d positional arguments but %d were given", name, want, n);
}

static Val dm_size(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)args;
  dm_arity("size", n, 0, kw);
  return val_int(dist_size());
}

static Val dm_rank(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)args;
  dm_arity("rank", n, 0, kw);
  return val_int(dist_rank());
}

static Val dm_launched(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)args;
  dm_arity("launched", n, 0, kw);
  return val_bool(dist_launched());
}

static Val dm_device(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)args;
  dm_arity("device", n, 0, kw);
  return str_from_cstr(dist_device());
}

/* all_reduce(tensors, op): a list of tensors of one dtype reduced in one collective (an op of the
 * graph being traced, or run now); returns the list of results. */
static Val dm_all_reduce(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  dm_arity("all_reduce", n, 2, kw);
  if (!val_is(args[0], &list_type)) rt_throw(ERR_TYPE, "_dist.all_reduce: expected a list of tensors");
  const List *l = (const List *)args[0].u.o;
  if (l->len == 0) return list_new(0);
  OpAttrs at = {1, {dm_int_arg(args[1], "_dist.all_reduce")}};
  Val r;
  if (gradsync_take((int)l->len, l->items, (int)at.v[0].u.i, &r)) return r;   /* gradients whose all-reduce already runs */
  return op_apply(&op_defs[OP_COLL_REDUCE], (int)l->len, l->items, &at);
}

static Val dm_all_gather(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  dm_arity("all_gather", n, 2, kw);
  OpAttrs at = {1, {dm_int_arg(args[1], "_dist.all_gather")}};
  return op_apply(&op_defs[OP_COLL_GATHER], 1, args, &at);
}

static Val dm_broadcast(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  dm_arity("broadcast", n, 2, kw);
  OpAttrs at = {1, {dm_int_arg(args[1], "_dist.broadcast")}};
  return op_apply(&op_defs[OP_COLL_BCAST], 1, args, &at);
}

/* check(tensors, names[, mode]): with TFS_DIST_CHECK set (not "0") in a job of N > 1, the tensors' bits compared
 * across the ranks (§18.10), an op of the graph being traced or run now; otherwise nothing.  mode: 0 a strategy's
 * mirrored variables, 1 a Horovod-only step's (once variables were broadcast), 2 hvd.broadcast_variables' results. */
static Val dm_check(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  dm_arity("check", n, n == 3 ? 3 : 2, kw);
  const char *env = getenv("TFS_DIST_CHECK");
  if (!env || !*env || !strcmp(env, "0") || dist_size() < 2) return val_none();
  if (!val_is(args[0], &list_type) || !val_is(args[1], &tuple_type)) rt_throw(ERR_TYPE, "_dist.check: expected a list of tensors and a tuple of names");
  const List *l = (const List *)args[0].u.o;
  const Tuple *names = (const Tuple *)args[1].u.o;
  if (l->len == 0) return val_none();
  for (tfs_i64 i = 0; i < l->len; i++)
    if (!val_as_tensor(l->items[i]) || names->len != l->len)
      rt_throw(ERR_TYPE, "_dist.check: expected a list of tensors and a tuple of names");
  Val mode = n == 3 ? dm_int_arg(args[2], "_dist.check") : val_int(0);
  int saved = rt_cur_loc;
  rt_cur_loc = rt_user_loc();   /* a traced node reports the user's apply_gradients line, not the library's */
  /* one op per dtype, in order of first appearance (a variadic op's inputs share one dtype); val_as_tensor is
   * borrowed for tensors, which the list holds (apply_gradients passes tensors) */
  bool *done = calloc((size_t)l->len, sizeof(bool));
  Val *items = malloc(sizeof(Val) * (size_t)l->len);
  tfs_i64 *at_idx = malloc(sizeof(tfs_i64) * (size_t)l->len);
  if (!done || !items || !at_idx) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < l->len; i++) {
    if (done[i]) continue;
    DType dt = val_as_tensor(l->items[i])->dtype;
    int k = 0;
    for (tfs_i64 j = i; j < l->len; j++)
      if (!done[j] && val_as_tensor(l->items[j])->dtype == dt) done[j] = true, at_idx[k] = j, items[k++] = l->items[j];
    Val sub = tuple_new(k);
    for (int m = 0; m < k; m++) ((Tuple *)sub.u.o)->items[m] = val_incref(names->items[at_idx[m]]);
    OpAttrs at = {2, {sub, mode}};
    val_decref(op_apply(&op_defs[OP_DIST_CHECK], k, items, &at));
    val_decref(sub);
  }
  free(at_idx);
  free(done);
  free(items);
  rt_cur_loc = saved;
  return val_none();
}

static Val dm_barrier(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)args;
  dm_arity("barrier", n, 0, kw);
  dist_barrier();
  return val_none();
}

/* mirror_scope(+1 / -1): entering / leaving a strategy's scope (Variables made inside are mirrored). */
static Val dm_mirror_scope(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  dm_arity("mirror_scope", n, 1, kw);
  dist_mirror_scope((int)dm_int_arg(args[0], "_dist.mirror_scope").u.i);
  return val_none();
}

static Val dm_in_scope(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)args;
  dm_arity("in_scope", n, 0, kw);
  return val_bool(dist_in_scope());
}

/* Entering (delta > 0) or leaving a context where a tape's gradients start their all-reduce (replica context, or
 * Horovod's gradient all-reduce); set: dist_replica or dist_grad_sync.  Leaving the last one forgets the gradients
 * whose all-reduce started there and that no all-reduce took (their collectives complete).  Returns the depth. */
static int sync_context(int (*set)(int), int delta) {
  static tfs_i64 mark;
  bool before = dist_replica(0) > 0 || dist_grad_sync(0) > 0;
  if (delta > 0 && !before) mark = dist_group_mark();
  int depth = set(delta);
  if (before && dist_replica(0) == 0 && dist_grad_sync(0) == 0) {
    gradsync_clear();
    dist_groups_drain(mark);
  }
  return depth;
}

/* replica(+1 / -1 / 0): entering / leaving / asking about replica context; returns the depth. */
static Val dm_replica(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  dm_arity("replica", n, 1, kw);
  return val_int(sync_context(dist_replica, (int)dm_int_arg(args[0], "_dist.replica").u.i));
}

/* grad_sync(+1 / -1 / 0): entering / leaving / asking about Horovod's gradient all-reduce (dist_grad_sync). */
static Val dm_grad_sync(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  dm_arity("grad_sync", n, 1, kw);
  return val_int(sync_context(dist_grad_sync, (int)dm_int_arg(args[0], "_dist.grad_sync").u.i));
}

/* overlap(mode[, bucket_kb]): the all-reduce of a replica's gradients overlapped with the backward pass: 0 off (one
 * blocking fused all-reduce in apply_gradients; the default at 2 ranks on one host), 1 on when N > 1 (the default
 * otherwise; TFS_DIST_OVERLAP), 2 on even alone
 * (tests); -1 asks.  bucket_kb: the bucket cap (TFS_DIST_BUCKET_KB).  Read when a gradient is computed (traced).
 * Returns the mode before the call. */
static Val dm_overlap(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  dm_arity("overlap", n, n == 2 ? 2 : 1, kw);
  int was = dist_overlap(-1);
  dist_overlap((int)dm_int_arg(args[0], "_dist.overlap").u.i);
  if (n == 2) dist_set_bucket_bytes(dm_int_arg(args[1], "_dist.overlap").u.i * 1024);
  return val_int(was);
}

/* overlapped(): how many gradient groups an all-reduce has waited for so far (tests: the overlap was used). */
static Val dm_overlapped(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)args;
  dm_arity("overlapped", n, 0, kw);
  return val_int(dist_groups_waited());
}

static Val dm_attr(const char *name) {
  static const struct {
    const char *name, *qual;
    BuiltinFn fn;
  } fns[] = {
    {"size", "_dist.size", dm_size},
    {"rank", "_dist.rank", dm_rank},
    {"launched", "_dist.launched", dm_launched},
    {"device", "_dist.device", dm_device},
    {"all_reduce", "_dist.all_reduce", dm_all_reduce},
    {"all_gather", "_dist.all_gather", dm_all_gather},
    {"broadcast", "_dist.broadcast", dm_broadcast},
    {"barrier", "_dist.barrier", dm_barrier},
    {"check", "_dist.check", dm_check},
    {"mirror_scope", "_dist.mirror_scope", dm_mirror_scope},
    {"in_scope", "_dist.in_scope", dm_in_scope},
    {"replica", "_dist.replica", dm_replica},
    {"grad_sync", "_dist.grad_sync", dm_grad_sync},
    {"overlap", "_dist.overlap", dm_overlap},
    {"overlapped", "_dist.overlapped", dm_overlapped},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!strcmp(name, fns[i].name)) return builtin_new(fns[i].qual, fns[i].fn, val_undef(), NULL);
  return val_undef();
}

Val distmod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_dist", dm_attr);
  return val_incref(mod);
}
