/* gradsync.c — overlapping the gradients' all-reduce with the backward pass: the plan of buckets, their starts during the sweep, the wait an optimizer's all-reduce becomes (gradsync.h). */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "graph/gradsync.h"
#include "graph/trace.h"
#include "object/object.h"

struct GradSync {
  int n;                /* planned gradients, in the order the sweep finishes them */
  int *src;             /* their sources' indices */
  int *first;           /* the tape entry of each one's first read: final once the sweep has passed it */
  Val *g;               /* the finished gradients (VT_UNDEF: none or not as planned, zeros were sent) */
  Val *vars;            /* the sources (borrowed) */
  int *bend;            /* bucket b: planned gradients [bend[b-1], bend[b]) */
  int nb;
  tfs_i64 total;
  uint64_t hash;
  int next, b;          /* the next gradient to finish, the next bucket to start */
  Val handle;           /* the last start's output */
};

/* A registered group: the gradients an all-reduce may take, the handle its wait needs, the graph it lives in. */
typedef struct Pending {
  Val handle;
  Graph *g;             /* NULL: eager */
  int n;
  Val *grads;           /* VT_UNDEF: not to be taken */
} Pending;

static Pending *pend;
static int npend, cappend;

static void pending_release(Pending *p) {
  TFS_DECREF(p->handle);
  for (int i = 0; i < p->n; i++) TFS_DECREF(p->grads[i]);
  free(p->grads);
}

void gradsync_free(GradSync *s) {
  if (!s) return;
  for (int i = 0; s->g && i < s->n; i++) TFS_DECREF(s->g[i]);
  TFS_DECREF(s->handle);
  free(s->src), free(s->first), free(s->g), free(s->bend);
  free(s);
}

static Graph *context_graph(void) {
  TraceCtx *cx = trace_active() ? trace_current() : NULL;
  return cx ? cx->g : NULL;
}

static bool applies(int nsrc) {
  int mode = dist_overlap(-1);
  return nsrc > 0 && (dist_replica(0) > 0 || dist_grad_sync(0) > 0) && !trace_quiet && (mode == 2 || (mode == 1 && dist_size() > 1));
}

static const Tensor *var_value(Val v) { return variable_storage(v.u.o)->value; }

GradSync *gradsync_plan(const Tape *t, int ntarget, const uintptr_t *tkeys, int nsrc, const Val *sources, const uintptr_t *skeys,
                        const PtrMap *reach) {
  if (!applies(nsrc)) return NULL;
  /* the sources that can take part: trainable float Variables of one dtype (the first one's), each once */
  PtrMap which = {0}, need = {0};
  int *first = malloc(sizeof(int) * (size_t)nsrc);
  if (!first) rt_throw(ERR_MEMORY, "out of memory");
  int dt = -1, cand = 0;
  for (int i = 0; i < nsrc; i++) {
    first[i] = -1;
    if (!skeys[i] || !val_is(sources[i], &variable_type) || ptrmap_find(&which, (const void *)skeys[i]) >= 0) continue;
    DType d = var_value(sources[i])->dtype;
    if (d != DT_FLOAT32 && d != DT_FLOAT64) continue;
    if (dt < 0) dt = d;
    if ((int)d != dt) continue;
    ptrmap_put(&which, (const void *)skeys[i], val_int(i));
    cand++;
  }
  /* the sweep's own walk, ahead of it: an entry is handled when a gradient reaches one of its outputs and one of its
   * inputs is downstream of a source; a planned source is final after its first (lowest) such entry */
  for (int i = 0; cand && i < ntarget; i++)
    if (tkeys[i] && ptrmap_find(reach, (const void *)tkeys[i]) >= 0) ptrmap_put(&need, (const void *)tkeys[i], val_undef());
  for (int i = t->n - 1; cand && i >= 0 && need.n; i--) {
    const TapeEntry *e = &t->e[i];
    const uintptr_t *k = tape_entry_key(e);
    bool out = false, in = false;
    for (int j = 0; j < e->nout && !out; j++) out = ptrmap_find(&need, (const void *)k[e->nin + j]) >= 0;
    for (int j = 0; j < e->nin && out && !in; j++) in = ptrmap_find(reach, (const void *)k[j]) >= 0;
    if (!out || !in) continue;
    for (int j = 0; j < e->nin; j++) {
      if (!k[j] || ptrmap_find(reach, (const void *)k[j]) < 0) continue;
      ptrmap_put(&need, (const void *)k[j], val_undef());
      int w = ptrmap_find(&which, (const void *)k[j]);
      if (w >= 0) first[which.v[w].u.i] = i;
    }
  }
  ptrmap_free(&which);
  ptrmap_free(&need);
  GradSync *s = calloc(1, sizeof *s);
  int n = 0;
  if (s) {
    s->src = malloc(sizeof(int) * (size_t)nsrc);
    s->first = malloc(sizeof(int) * (size_t)nsrc);
    s->bend = malloc(sizeof(int) * (size_t)nsrc);
    s->handle = val_none();
  }
  if (!s || !s->src || !s->first || !s->bend) {
    free(first);
    gradsync_free(s);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  for (int i = 0; i < nsrc; i++)
    if (first[i] >= 0) s->src[n] = i, s->first[n++] = first[i];
  free(first);
  if (n == 0) {
    gradsync_free(s);
    return NULL;
  }
  /* finishing order: the latest first read first (insertion sort: a model has tens of variables) */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && s->first[j] > s->first[j - 1]; j--) {
      int a = s->first[j], b = s->src[j];
      s->first[j] = s->first[j - 1], s->src[j] = s->src[j - 1];
      s->first[j - 1] = a, s->src[j - 1] = b;
    }
  /* buckets: consecutive gradients up to the cap (a larger one alone); the plan's hash covers dtype, shapes, bounds */
  tfs_i64 cap = dist_bucket_bytes(), es = dtype_info[dt].size, bytes = 0;
  uint64_t h = 1469598103934665603ull ^ (uint64_t)dt;
  for (int i = 0; i < n; i++) {
    const Tensor *v = var_value(sources[s->src[i]]);
    if (bytes > 0 && bytes + v->size * es > cap) s->bend[s->nb++] = i, bytes = 0, h = (h ^ 0xb0u) * 1099511628211ull;
    bytes += v->size * es;
    s->total += v->size;
    for (int d = 0; d <= v->rank; d++) h = (h ^ (uint64_t)(d < v->rank ? v->shape[d] : -1)) * 1099511628211ull;
  }
  s->bend[s->nb++] = n;
  s->hash = h;
  s->n = n;
  s->vars = (Val *)sources;
  s->g = calloc((size_t)n, sizeof(Val));
  if (!s->g) {
    gradsync_free(s);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  for (int i = 0; i < n; i++) s->g[i] = val_undef();
  return s;
}

/* The gradient planned as i, as the sweep left it: its value when it is a tensor of the Variable's dtype and
 * shape, else VT_UNDEF (zeros go in its place). */
static Val finished(const GradSync *s, int i, const PtrMap *grads, uintptr_t key) {
  int k = ptrmap_find(grads, (const void *)key);
  Tensor *g = k >= 0 ? val_as_tensor(grads->v[k]) : NULL;
  const Tensor *v = var_value(s->vars[s->src[i]]);
  if (!g || g->dtype != v->dtype || g->rank != v->rank) return val_undef();
  for (int d = 0; d < v->rank; d++)
    if (g->shape[d] != v->shape[d] && g->shape[d] >= 0) return val_undef();
  return val_incref(grads->v[k]);
}

static void start_bucket(GradSync *s) {
  int lo = s->b ? s->bend[s->b - 1] : 0, hi = s->bend[s->b], k = s->b ? 1 : 0;
  tfs_i64 nz = 0;
  Val *in = malloc(sizeof(Val) * (size_t)(hi - lo + 1)), *zeros = malloc(sizeof(Val) * (size_t)(hi - lo + 1));
  if (!in || !zeros) {
    free(in), free(zeros);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  int mark = rt_hold_mem(in);
  rt_hold_vals(&zeros, &nz);   /* an error releases the zeros made so far */
  if (k) in[0] = s->handle;
  for (int i = lo; i < hi; i++) {
    if (val_is_undef(s->g[i])) {   /* no gradient (or not as planned): zeros keep the plan every rank agreed on */
      zeros[nz] = op_apply1(OP_ZEROS_LIKE, s->vars[s->src[i]]);
      in[k++] = zeros[nz++];
    } else {
      in[k++] = s->g[i];
    }
  }
  OpAttrs at = {4, {val_int(s->b), val_int(s->nb), val_int(s->total), val_int((int64_t)s->hash)}};
  Val h = op_apply(&op_defs[OP_COLL_GRAD_START], k, in, &at);
  rt_unhold(mark);
  for (tfs_i64 i = 0; i < nz; i++) TFS_DECREF(zeros[i]);
  free(zeros);
  free(in);
  TFS_DECREF(s->handle);
  s->handle = h;
  s->b++;
}

void gradsync_step(GradSync *s, int i, const PtrMap *grads) {
  while (s->next < s->n && s->first[s->next] >= i) {
    const Val *src = &s->vars[s->src[s->next]];
    s->g[s->next] = finished(s, s->next, grads, (uintptr_t)src->u.o);
    s->next++;
    if (s->next == s->bend[s->b]) start_bucket(s);
  }
}

void gradsync_end(GradSync *s, const PtrMap *grads) {
  gradsync_step(s, -1, grads);
  if (npend == cappend) {
    int c = cappend ? 2 * cappend : 4;
    Pending *np = realloc(pend, sizeof *np * (size_t)c);
    if (!np) rt_throw(ERR_MEMORY, "out of memory");
    pend = np, cappend = c;
  }
  Pending *p = &pend[npend];
  p->grads = s->g;   /* the group takes the gradients */
  s->g = NULL;
  p->n = s->n;
  p->handle = s->handle;
  s->handle = val_none();
  p->g = context_graph();
  npend++;
}

static bool same_val(Val a, Val b) { return a.tag == b.tag && a.u.o == b.u.o; }

bool gradsync_take(int n, const Val *in, int op, Val *out) {
  if (npend == 0 || n == 0 || (op != DIST_SUM && op != DIST_MEAN)) return false;
  int pi = -1;
  for (int q = npend - 1; q >= 0 && pi < 0; q--)
    for (int j = 0; j < pend[q].n && pi < 0; j++)
      if (same_val(pend[q].grads[j], in[0])) pi = q;
  if (pi < 0 || pend[pi].g != context_graph() || tape_would_record(n, in)) return false;
  Pending *p = &pend[pi];
  Val places = tuple_new(n);
  int mark = rt_hold_val(places);
  for (int i = 0; i < n; i++) {
    int j = 0;
    while (j < p->n && !same_val(p->grads[j], in[i])) j++;
    if (j == p->n) {
      rt_unhold(mark);
      TFS_DECREF(places);
      return false;
    }
    ((Tuple *)places.u.o)->items[i] = val_int(j);
  }
  Val *ins = malloc(sizeof(Val) * (size_t)(n + 1));
  if (!ins) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(ins);
  ins[0] = p->handle;
  memcpy(ins + 1, in, sizeof(Val) * (size_t)n);
  OpAttrs at = {2, {val_int(op), places}};
  *out = op_apply(&op_defs[OP_COLL_GRAD_WAIT], n + 1, ins, &at);
  rt_unhold(mark);
  free(ins);
  TFS_DECREF(places);
  Pending done = *p;   /* one wait per group: a second all-reduce of these gradients is a collective of its own */
  memmove(pend + pi, pend + pi + 1, sizeof *pend * (size_t)(npend - pi - 1));
  npend--;
  pending_release(&done);
  return true;
}

void gradsync_clear(void) {
  while (npend > 0) pending_release(&pend[--npend]);
}
