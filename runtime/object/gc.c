/* gc.c — the cycle collector: reference counting frees everything else; this finds groups of containers only reachable from each other (CPython's algorithm). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "object/value.h"

/* Every live object whose type has a traverse slot, in an open-addressing
 * table keyed by address (no header field, so the generated code's view of
 * Obj is unchanged).  `refs` is scratch space for a collection. */
typedef struct GcEntry {
  Obj *o;
  tfs_i64 refs;
} GcEntry;

static GcEntry *gc_tab;
static size_t gc_cap, gc_len;            /* slots (power of two) / objects tracked */
static size_t gc_allocs;                 /* tracked since the last collection */
static size_t gc_threshold = 10000;
static bool gc_enabled = true, gc_running;
int rt_gc_pending;
RtGcStats rt_gc_stats;

static int gc_bits;                     /* log2(gc_cap) */

/* While tf.data's graph workers run (graph/parexec.c), containers made or freed on them change the one
 * table: it is locked then (a relaxed load of the flag costs nothing otherwise). */
_Atomic int rt_mt_active;
static pthread_mutex_t gc_mu = PTHREAD_MUTEX_INITIALIZER;
static void gc_track_locked(Obj *o);
static void gc_untrack_locked(Obj *o);

/* Fibonacci hashing: the product's top bits mix every address bit. */
static size_t gc_slot(const Obj *o) { return (size_t)(((uint64_t)(uintptr_t)o * 0x9E3779B97F4A7C15ull) >> (64 - gc_bits)); }

static void gc_insert(Obj *o) {
  size_t i = gc_slot(o);
  while (gc_tab[i].o) i = (i + 1) & (gc_cap - 1);
  gc_tab[i].o = o;
  gc_tab[i].refs = 0;
}

static void gc_grow(void) {
  GcEntry *old = gc_tab;
  size_t oldcap = gc_cap;
  size_t cap = gc_cap ? gc_cap * 2 : 1024;
  GcEntry *t = calloc(cap, sizeof *t);
  if (!t) rt_throw(ERR_MEMORY, "out of memory");
  gc_tab = t;
  gc_cap = cap;
  gc_bits = __builtin_ctzll(cap);
  for (size_t i = 0; i < oldcap; i++)
    if (old[i].o) gc_insert(old[i].o);
  free(old);
}

static GcEntry *gc_find(const Obj *o) {
  if (!gc_cap) return NULL;
  for (size_t i = gc_slot(o);; i = (i + 1) & (gc_cap - 1)) {
    if (gc_tab[i].o == o) return &gc_tab[i];
    if (!gc_tab[i].o) return NULL;
  }
}

/* TFS_GC_THRESHOLD=N collects after every N new containers (1: at every
 * safe point), for stress-testing the collector on the whole suite. */
static size_t gc_forced;

static void gc_init(void) {
  const char *e = getenv("TFS_GC_THRESHOLD");
  if (e && *e) {
    long v = strtol(e, NULL, 10);
    if (v > 0) gc_forced = (size_t)v;
  }
  if (gc_forced) gc_threshold = gc_forced;
}

void gc_track(Obj *o) {
  if (atomic_load_explicit(&rt_mt_active, memory_order_relaxed)) {
    pthread_mutex_lock(&gc_mu);
    gc_track_locked(o);
    pthread_mutex_unlock(&gc_mu);
    return;
  }
  gc_track_locked(o);
}

void gc_untrack(Obj *o) {
  if (atomic_load_explicit(&rt_mt_active, memory_order_relaxed)) {
    pthread_mutex_lock(&gc_mu);
    gc_untrack_locked(o);
    pthread_mutex_unlock(&gc_mu);
    return;
  }
  gc_untrack_locked(o);
}

static void gc_track_locked(Obj *o) {
  if (!gc_cap) gc_init();
  if ((gc_len + 1) * 2 > gc_cap) gc_grow();
  gc_insert(o);
  gc_len++;
  /* Amortized linear: a collection costs O(tracked), and runs only after as
   * many new containers as there were live ones (at least the threshold). */
  if (++gc_allocs >= gc_threshold && (gc_forced || gc_allocs >= gc_len / 2) && gc_enabled) rt_gc_pending = 1;
}

/* Deletion without tombstones: shift later members of the probe run back. */
static void gc_untrack_locked(Obj *o) {
  GcEntry *e = gc_find(o);
  if (!e) return;
  size_t i = (size_t)(e - gc_tab);
  gc_tab[i].o = NULL;
  gc_len--;
  for (size_t j = (i + 1) & (gc_cap - 1); gc_tab[j].o; j = (j + 1) & (gc_cap - 1)) {
    size_t home = gc_slot(gc_tab[j].o);
    /* can entry j move to the hole at i?  yes unless its home lies in (i, j] */
    bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (stays) continue;
    gc_tab[i] = gc_tab[j];
    gc_tab[j].o = NULL;
    i = j;
  }
}

/* ---- one collection ----------------------------------------------------------------- */

static void visit_subtract(Val v, bool owned, void *arg) {
  (void)arg;
  if (!owned || v.tag != VT_OBJ) return;
  GcEntry *e = gc_find(v.u.o);
  if (e) e->refs--;
}

typedef struct Work {
  Obj **items;
  size_t len, cap;
} Work;

static void work_push(Work *w, Obj *o) {
  if (w->len == w->cap) {
    w->cap = w->cap ? w->cap * 2 : 256;
    Obj **n = realloc(w->items, w->cap * sizeof *n);
    if (!n) abort();   /* the collector cannot unwind half-way; running out here is fatal */
    w->items = n;
  }
  w->items[w->len++] = o;
}

/* refs < 0 marks "reachable, children not yet visited"; REACHED "done". */
#define REACHED INT64_MIN

static void visit_reach(Val v, bool owned, void *arg) {
  (void)owned;   /* a borrowed back-pointer (a method's class) keeps its target too */
  if (v.tag != VT_OBJ) return;
  GcEntry *e = gc_find(v.u.o);
  if (!e || e->refs == REACHED) return;
  e->refs = REACHED;
  work_push(arg, v.u.o);
}

size_t rt_gc_collect(void) {
  if (gc_running || !gc_len) return 0;
  gc_running = true;
  rt_gc_pending = 0;
  gc_allocs = 0;
  /* 1. refs = count of references from outside the tracked objects */
  for (size_t i = 0; i < gc_cap; i++)
    if (gc_tab[i].o) gc_tab[i].refs = gc_tab[i].o->rc;
  for (size_t i = 0; i < gc_cap; i++)
    if (gc_tab[i].o) gc_tab[i].o->type->traverse(gc_tab[i].o, visit_subtract, NULL);
  /* 2. everything reachable from an object referenced from outside survives */
  Work w = {0};
  for (size_t i = 0; i < gc_cap; i++)
    if (gc_tab[i].o && gc_tab[i].refs > 0) {
      gc_tab[i].refs = REACHED;
      work_push(&w, gc_tab[i].o);
    }
  while (w.len) {
    Obj *o = w.items[--w.len];
    o->type->traverse(o, visit_reach, &w);
  }
  /* 3. the rest is garbage: hold each, clear what can be cleared (breaking
   * the cycles), then drop the holds so ordinary frees run. */
  for (size_t i = 0; i < gc_cap; i++)
    if (gc_tab[i].o && gc_tab[i].refs != REACHED) work_push(&w, gc_tab[i].o);
  size_t n = w.len;
  for (size_t k = 0; k < n; k++) w.items[k]->rc++;
  for (size_t k = 0; k < n; k++)
    if (w.items[k]->type->clear) w.items[k]->type->clear(w.items[k]);
  for (size_t k = 0; k < n; k++) val_decref(val_obj(w.items[k]));
  free(w.items);
  rt_gc_stats.collections++;
  rt_gc_stats.collected += (tfs_i64)n;
  gc_threshold = gc_forced ? gc_forced : gc_len > 10000 ? gc_len : 10000;
  gc_running = false;
  return n;
}

void rt_gc_poll(void) {
  /* not while graph workers run (a while loop's safe point is on a worker too): the main thread's next one */
  if (rt_gc_pending && gc_enabled && !atomic_load_explicit(&rt_mt_active, memory_order_relaxed)) rt_gc_collect();
}

void rt_gc_enable(bool on) {
  gc_enabled = on;
  if (!on) rt_gc_pending = 0;
}

bool rt_gc_is_enabled(void) { return gc_enabled; }

size_t rt_gc_tracked(void) { return gc_len; }

/* At exit, after the globals are released: what only cycles kept alive. */
void rt_gc_shutdown(void) {
  rt_gc_collect();
  free(gc_tab);
  gc_tab = NULL;
  gc_cap = gc_len = 0;
}
