/* dsparmap.c — Dataset.map(num_parallel_calls=...): a buffer of mapped elements filled by graph runs on several threads.
 *
 * As TF's ParallelMapDataset, the map function's traced graph runs for several input elements at once on up
 * to num_parallel_calls lanes (the lanes the pipeline's options allow: dataset.c's pol_lanes), the results in
 * input order, an error at the element that raised it.  Unlike TF, the buffer is filled only when it is empty
 * and next() waits for the whole fill: the consumer's code never runs beside a worker (graph/parexec.h says
 * why that matters).  deterministic=False streams as TF's sloppy map does instead (stream_next: a parexec
 * session keeps mapping in the background, results go out as they finish).  A graph that cannot leave the
 * main thread (parexec_graph_ok) maps in order here instead.
 */
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/ops.h"
#include "function/tffunction.h"
#include "graph/parexec.h"
#include "graph/trace.h"
#include "modules/tfdata.h"
#include "modules/dsparmap.h"
#include "modules/modules.h"

typedef struct Slot {
  Val elem;                   /* the mapped element (owned), or VT_UNDEF */
  Val input;                  /* an input to map here, in order (owned), or VT_UNDEF */
  ParErr err;                 /* a graph run's error (msg owned) */
  RtTry up;                   /* the input pipeline's error at this position (kind, msg, loc, exc); up.msg NULL: none */
  bool up_failed;
} Slot;

struct ParMap {
  Val conc;                   /* the traced function (owned) */
  Val spec;                   /* the input element spec (owned) */
  ParExec *x;
  int lanes, win, nin, nout;  /* win: the inputs one fill pulls (PARMAP_WIN per lane) */
  bool sloppy;                /* deterministic=False: a fill's results go out in the order they finished */
  tfs_i64 budget;             /* bytes of input copies one fill may hold (past its first `lanes` inputs) */
  const TMeta **inm;          /* the placeholders' metas */
  Slot *ring;                 /* win slots, in input order */
  int *seq;                   /* the order slots go out in: seq[head .. head + count) are ready */
  int *done;                  /* a sloppy fill's runs in the order they finished */
  int head, count;
  bool up_done;               /* the input iterator is exhausted or failed */
  Tensor ***args, ***outs;    /* per run: nin inputs, nout outputs */
  ParErr *errs;
  /* deterministic=False streams instead of filling: a parexec session maps the inputs in the background */
  ParAsync *as;
  bool no_stream;             /* the session's threads were taken (another sloppy map): fills, as deterministic */
  int *free_ids, nfree;       /* slots (args/outs/errs ids) not queued */
  int inflight;               /* slots queued, running or finished and not yet taken */
  tfs_i64 *slot_bytes, bytes; /* input bytes a slot holds, and those in flight */
  Slot upslot;                /* the input pipeline's error, raised once every mapped element is out */
};

/* Inputs per lane one fill takes: the threads are woken once per fill, so a cheap function (TF's default
 * map_parallelization reaches every stateless map) pays the hand-off once per PARMAP_WIN elements per lane.
 * A fill also stops once its input copies hold `budget` bytes (at least one input per lane): TF's autotuner
 * sizes its buffers within autotune.ram_budget. */
enum { PARMAP_WIN = 32 };
#define PARMAP_BUDGET ((tfs_i64)16 << 20)

ParMap *parmap_new(Val conc, Val spec, int lanes, bool sloppy, tfs_i64 ram_budget) {
  TffnConcInfo ci;
  if (!tffn_conc_info(conc, &ci)) return NULL;
  const char *why;
  if (lanes < 2 || !parexec_graph_ok(ci.g, &why)) return NULL;
  ParMap *m = calloc(1, sizeof(ParMap));
  if (!m) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_fn((void (*)(void *))parmap_free, m);
  m->conc = val_incref(conc);
  m->spec = val_incref(spec);
  m->lanes = lanes;
  m->win = lanes * PARMAP_WIN;
  m->sloppy = sloppy;
  m->budget = ram_budget > 0 ? ram_budget : PARMAP_BUDGET;
  m->nin = ci.g->ninputs;
  m->nout = ci.g->noutputs;
  m->inm = calloc((size_t)m->nin + 1, sizeof(TMeta *));
  int w = m->win;
  m->ring = calloc((size_t)w, sizeof(Slot));
  m->seq = calloc((size_t)w, sizeof(int));
  m->done = calloc((size_t)w, sizeof(int));
  m->args = calloc((size_t)w, sizeof(Tensor **));
  m->outs = calloc((size_t)w, sizeof(Tensor **));
  m->errs = calloc((size_t)w, sizeof(ParErr));
  m->free_ids = calloc((size_t)w, sizeof(int));
  m->slot_bytes = calloc((size_t)w, sizeof(tfs_i64));
  m->upslot.elem = m->upslot.input = val_undef();
  if (!m->inm || !m->ring || !m->seq || !m->done || !m->args || !m->outs || !m->errs || !m->free_ids || !m->slot_bytes)
    rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < m->nin; i++) m->inm[i] = &ci.g->nodes[ci.g->inputs[i]].outm[0];
  for (int l = 0; l < w; l++) {
    m->ring[l].elem = m->ring[l].input = val_undef();
    m->args[l] = calloc((size_t)m->nin + 1, sizeof(Tensor *));
    m->outs[l] = calloc((size_t)m->nout + 1, sizeof(Tensor *));
    if (!m->args[l] || !m->outs[l]) rt_throw(ERR_MEMORY, "out of memory");
  }
  m->x = parexec_new(ci.g, lanes);
  rt_unhold(mark);
  return m;
}

static void slot_clear(Slot *s) {
  TFS_CLEAR(s->elem);
  TFS_CLEAR(s->input);
  free(s->err.msg);
  s->err.msg = NULL;
  if (s->up_failed) rt_try_clear(&s->up);
  s->up_failed = false;
}

static void args_release(Tensor **args, int n);

void parmap_free(ParMap *m) {
  if (!m) return;
  if (m->as) {   /* the iterator dropped mid-stream: wait for the running jobs, then free every slot's tensors */
    parexec_async_stop(m->as);
    m->as = NULL;
    for (int l = 0; l < m->win; l++) {
      args_release(m->args[l], m->nin);
      for (int o = 0; o < m->nout; o++)
        if (m->outs[l][o]) tensor_release(m->outs[l][o]), m->outs[l][o] = NULL;
      free(m->errs[l].msg);
      m->errs[l].msg = NULL;
    }
  }
  slot_clear(&m->upslot);
  free(m->free_ids);
  free(m->slot_bytes);
  for (int l = 0; m->ring && l < m->win; l++) slot_clear(&m->ring[l]);
  for (int l = 0; m->args && l < m->win; l++) free(m->args[l]);
  for (int l = 0; m->outs && l < m->win; l++) free(m->outs[l]);
  free(m->seq);
  free(m->done);
  free(m->args);
  free(m->outs);
  free(m->errs);
  free(m->ring);
  free(m->inm);
  parexec_free(m->x);
  val_decref(m->conc);
  val_decref(m->spec);
  free(m);
}

/* The element's tensors in the order of the graph's inputs (the spec's order: tuples in order, dicts by
 * the spec's keys), each a private copy; false when a leaf does not fit its placeholder (the element is
 * then mapped by the ordinary call, which raises TF's error). */
bool parmap_leaf_fits(const TMeta *pm, const Tensor *t) {
  if (t->sym || t->dtype != pm->dtype) return false;
  if (pm->rank < 0) return true;
  if (t->rank != pm->rank) return false;
  for (int d = 0; d < t->rank; d++)
    if (pm->shape[d] >= 0 && pm->shape[d] != t->shape[d]) return false;
  return true;
}

static bool flatten(ParMap *m, Val spec, Val v, Tensor **args, int *k) {
  if (val_is(spec, &tuple_type)) {
    Tuple *s = (Tuple *)spec.u.o;
    if (!val_is(v, &tuple_type) || ((Tuple *)v.u.o)->len != s->len) return false;
    for (tfs_i64 i = 0; i < s->len; i++)
      if (!flatten(m, s->items[i], ((Tuple *)v.u.o)->items[i], args, k)) return false;
    return true;
  }
  if (val_is(spec, &dict_type)) {
    /* by sorted key, as nest.flatten orders the traced function's placeholders (not by insertion) */
    Dict *s = (Dict *)spec.u.o;
    if (!val_is(v, &dict_type) || ((Dict *)v.u.o)->len != s->len) return false;
    Val keys = dict_keys_list(spec);
    int mark = rt_hold_val(keys);
    list_sort(keys, val_none(), false);
    List *kl = (List *)keys.u.o;
    bool ok = true;
    for (tfs_i64 i = 0; ok && i < kl->len; i++) {
      Val x = dict_get(v, kl->items[i]), sx = dict_get(spec, kl->items[i]);
      ok = !val_is_undef(x) && flatten(m, sx, x, args, k);
      val_decref(x);
      val_decref(sx);
    }
    rt_unhold(mark);
    val_decref(keys);
    return ok;
  }
  if (!val_is(v, &tensor_type) || *k >= m->nin || !parmap_leaf_fits(m->inm[*k], val_tensor(v))) return false;
  args[(*k)++] = tensor_copy_own(val_tensor(v));   /* the worker's own: no count shared with the program */
  return true;
}

static void args_release(Tensor **args, int n) {
  for (int i = 0; i < n; i++)
    if (args[i]) tensor_release(args[i]);
  memset(args, 0, sizeof(Tensor *) * (size_t)n);
}

/* pull, an error kept in s (raised when the consumer reaches this position): 1 got, 0 the end, -1 failed. */
static int pull_caught(Slot *s, ParPull pull, void *ctx, Val *e) {
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) != 0) {
    s->up = t;
    s->up_failed = true;
    return -1;
  }
  bool got = pull(ctx, e);
  rt_try_pop(&t);
  return got;
}

/* Fill the empty buffer: pull up to `win` inputs, run the graph on them on the lanes at once, keep the results
 * and the order they go out in (the input order; sloppy: the runs as they finished, then the rest in order). */
static void fill(ParMap *m, ParPull pull, void *ctx, ParFinish finish) {
  int n = 0, nrun = 0, run_of[PARMAP_WIN * 64];
  tfs_i64 bytes = 0;
  m->head = 0;
  while (n < m->win && !m->up_done && (n < m->lanes || bytes < m->budget)) {
    Slot *s = &m->ring[n];
    Val e;
    int got = pull_caught(s, pull, ctx, &e);
    if (got < 0) { m->up_done = true; n++; break; }
    if (!got) { m->up_done = true; break; }
    int k = 0;
    if (flatten(m, m->spec, e, m->args[nrun], &k) && k == m->nin) {
      val_decref(e);
      for (int i = 0; i < k; i++) bytes += m->args[nrun][i]->size * dtype_info[m->args[nrun][i]->dtype].size;
      run_of[nrun++] = n;
    } else {
      args_release(m->args[nrun], m->nin);
      s->input = e;
    }
    n++;
  }
  m->count = n;
  for (int i = 0; i < n; i++) m->seq[i] = i;
  if (!nrun) return;
  parexec_run_jobs(m->x, nrun, m->args, m->outs, m->errs, m->sloppy ? m->done : NULL);
  for (int j = 0; j < nrun; j++) {
    args_release(m->args[j], m->nin);
    Slot *s = &m->ring[run_of[j]];
    if (m->errs[j].msg) { s->err = m->errs[j]; m->errs[j].msg = NULL; continue; }
    Val r = tffn_conc_result(m->conc, m->outs[j]);
    s->elem = finish(r);
  }
  if (m->sloppy) {   /* the runs as they finished, then the inputs mapped here and an input error, in order */
    int k = 0;
    for (int j = 0; j < nrun; j++) m->seq[k++] = run_of[m->done[j]];
    for (int i = 0, j = 0; i < n; i++) {
      if (j < nrun && run_of[j] == i) { j++; continue; }
      m->seq[k++] = i;
    }
  }
}

/* raise a run's error as exec_run raised it on this thread (the message is taken from e) */
static _Noreturn void raise_run_err(ParErr *e) {
  char *msg = e->msg;
  e->msg = NULL;
  rt_hold_mem(msg);
  rt_throw_msg(e->loc, e->kind, msg, val_undef());
}

static _Noreturn void raise_up_err(Slot *s) {
  RtTry t = s->up;
  s->up_failed = false;
  char *msg = t.msg;
  rt_hold_mem(msg);
  rt_throw_msg(t.loc, t.kind, msg ? msg : "", t.exc);
}

/* deterministic=False, as TF's sloppy ParallelMapDataset: the session's threads map queued inputs in the
 * background, the consumer gets each result as soon as any is ready, and each next() first tops the queue up
 * (inputs are pulled here, on the main thread) so the threads stay busy while the consumer's loop runs.
 * 0: the end; 1: *out set; -1: no session could start (the caller fills instead). */
static int stream_next(ParMap *m, ParPull pull, void *ctx, ParFinish finish, ParSeq seq, Val *out) {
  if (!m->as) {
    if (m->up_done && !m->inflight) return 0;
    m->as = parexec_async_start(m->x, m->win, m->args, m->outs, m->errs);
    if (!m->as) return -1;
    m->nfree = 0;
    for (int i = m->win - 1; i >= 0; i--) m->free_ids[m->nfree++] = i;
  }
  while (!m->up_done && m->nfree && (m->inflight < m->lanes || m->bytes < m->budget)) {
    Val e;
    int got = pull_caught(&m->upslot, pull, ctx, &e);
    if (got <= 0) { m->up_done = true; break; }
    int id = m->free_ids[--m->nfree], k = 0;
    if (flatten(m, m->spec, e, m->args[id], &k) && k == m->nin) {
      val_decref(e);
      tfs_i64 b = 0;
      for (int i = 0; i < k; i++) b += m->args[id][i]->size * dtype_info[m->args[id][i]->dtype].size;
      m->slot_bytes[id] = b;
      m->bytes += b;
      m->inflight++;
      memset(m->outs[id], 0, sizeof(Tensor *) * (size_t)m->nout);   /* set only by a run that succeeds */
      parexec_async_submit(m->as, id);
      continue;
    }
    args_release(m->args[id], m->nin);   /* mapped here by the ordinary call, ready at once */
    m->free_ids[m->nfree++] = id;
    *out = seq(ctx, e);
    return 1;
  }
  if (!m->inflight) {
    parexec_async_stop(m->as);
    m->as = NULL;
    if (m->upslot.up_failed) raise_up_err(&m->upslot);
    return 0;
  }
  int id = parexec_async_next(m->as);
  m->inflight--;
  m->bytes -= m->slot_bytes[id];
  args_release(m->args[id], m->nin);
  m->free_ids[m->nfree++] = id;
  if (m->errs[id].msg) raise_run_err(&m->errs[id]);
  Val r = tffn_conc_result(m->conc, m->outs[id]);   /* takes the outputs */
  memset(m->outs[id], 0, sizeof(Tensor *) * (size_t)m->nout);
  *out = finish(r);
  return 1;
}

bool parmap_next(ParMap *m, ParPull pull, void *ctx, ParFinish finish, ParSeq seq, Val *out) {
  if (m->sloppy && !m->no_stream && (m->as || (m->count == 0 && !op_tape_nactive && !trace_active()))) {
    int r = stream_next(m, pull, ctx, finish, seq, out);
    if (r >= 0) return r;
    m->no_stream = true;
  }
  /* a tape recording, or a trace: the ordinary call, in order (it records or traces what it runs) */
  if (m->count == 0 && (op_tape_nactive || trace_active())) {
    Val e;
    if (m->up_done || !pull(ctx, &e)) { m->up_done = true; return false; }
    *out = seq(ctx, e);
    return true;
  }
  if (m->count == 0) {
    if (m->up_done) return false;
    fill(m, pull, ctx, finish);
    if (m->count == 0) return false;
  }
  Slot *s = &m->ring[m->seq[m->head++]];
  m->count--;
  if (!val_is_undef(s->elem)) {
    *out = s->elem;
    s->elem = val_undef();
    return true;
  }
  if (!val_is_undef(s->input)) {
    Val e = s->input;
    s->input = val_undef();
    *out = seq(ctx, e);
    return true;
  }
  if (s->err.msg) {   /* raised as exec_run raised it on this thread */
    char *msg = s->err.msg;
    s->err.msg = NULL;
    int mark = rt_hold_mem(msg);
    (void)mark;
    rt_throw_msg(s->err.loc, s->err.kind, msg, val_undef());
  }
  RtTry t = s->up;
  s->up_failed = false;
  char *msg = t.msg;
  rt_hold_mem(msg);
  rt_throw_msg(t.loc, t.kind, msg ? msg : "", t.exc);
}

/* `_tfdata`: internals tests read (not a TF name). offthread_runs(): graph runs done on worker threads so
 * far, so a test can prove a parallel map left the main thread. */
static Val td_offthread_runs(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)args;
  if (n || (kw && kw->n)) rt_throw(ERR_TYPE, "_tfdata.offthread_runs() takes 0 positional arguments but %d were given", n);
  return val_int(parexec_offthread_runs());
}

static Val td_attr(const char *name) {
  if (!strcmp(name, "offthread_runs")) return builtin_new("_tfdata.offthread_runs", td_offthread_runs, val_undef(), NULL);
  return val_undef();
}

Val tfdata_internal_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_tfdata", td_attr);
  return val_incref(mod);
}
