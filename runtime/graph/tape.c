/* tape.c — gradient tapes: recording op applications on watched values, and the reverse sweep that computes gradients. */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "graph/gradsync.h"
#include "graph/tape.h"

/* ---- identity map ---------------------------------------------------------------------- */

static unsigned ptr_hash(const void *p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0x9E3779B97F4A7C15ull;
  return (unsigned)(x >> 29);
}

static tfs_i64 n_probes, n_allocs;   /* tape_stats */

void tape_stats(tfs_i64 *map_probes, tfs_i64 *allocs) {
  *map_probes = n_probes;
  *allocs = n_allocs;
}

int ptrmap_find(const PtrMap *m, const void *k) {
  n_probes++;
  if (!m->cap || !k) return -1;
  for (unsigned i = ptr_hash(k) & (unsigned)(m->cap - 1);; i = (i + 1) & (unsigned)(m->cap - 1)) {
    if (m->k[i] == k) return (int)i;
    if (!m->k[i]) return -1;
  }
}

static void ptrmap_grow(PtrMap *m) {
  int cap = m->cap ? m->cap * 2 : 64;
  Obj **k = calloc((size_t)cap, sizeof *k);
  Val *v = calloc((size_t)cap, sizeof *v);
  if (!k || !v) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < m->cap; i++) {
    if (!m->k[i]) continue;
    unsigned j = ptr_hash(m->k[i]) & (unsigned)(cap - 1);
    while (k[j]) j = (j + 1) & (unsigned)(cap - 1);
    k[j] = m->k[i];
    v[j] = m->v[i];
  }
  free(m->k);
  free(m->v);
  m->k = k;
  m->v = v;
  m->cap = cap;
}

/* Insert a key known to be absent. */
static void ptrmap_add(PtrMap *m, const void *k, Val v) {
  if ((m->n + 1) * 2 > m->cap) ptrmap_grow(m);
  unsigned j = ptr_hash(k) & (unsigned)(m->cap - 1);
  while (m->k[j]) j = (j + 1) & (unsigned)(m->cap - 1);
  m->k[j] = (Obj *)k;
  m->v[j] = v;
  m->n++;
}

void ptrmap_put(PtrMap *m, const void *k, Val v) {
  int i = ptrmap_find(m, k);   /* counts the probe */
  if (i >= 0) {
    TFS_DECREF(m->v[i]);
    m->v[i] = v;
    return;
  }
  ptrmap_add(m, k, v);
}

void ptrmap_free(PtrMap *m) {
  for (int i = 0; i < m->cap; i++)
    if (m->k[i]) TFS_DECREF(m->v[i]);
  free(m->k);
  free(m->v);
  memset(m, 0, sizeof *m);
}

/* ---- the tape object --------------------------------------------------------------------- */

static Tape *active[64];
static bool in_record;

int tape_nactive_count(void) { return op_tape_nactive; }
Tape *tape_active_at(int i) { return active[i]; }        /* reading a Variable for an entry must not record itself */

/* The tensor an entry holds weakly (E_OUT_WEAK), NULL once freed. */
static inline Tensor *weak_out(const TapeEntry *e) { return (Tensor *)tape_entry_out(e)[0].u.o; }

/* Release what an entry holds, clearing slot bit (0: none) in its outputs first (releasing may free them). */
static inline __attribute__((always_inline)) void entry_release(TapeEntry *e, tfs_u64 bit) {
  if (e->keep & E_OUT_WEAK) {
    Tensor *o = weak_out(e);
    if (o) {
      o->tape_bits &= ~bit;
      o->tape_loose = NULL;
    }
  } else {
    for (int i = 0; i < e->nout; i++) {
      if (tape_entry_out(e)[i].tag != VT_OBJ) continue;
      Obj *k = tape_entry_out(e)[i].u.o;
      if (k->type == &tensor_type) ((Tensor *)k)->tape_bits &= ~bit;
      else if (k->type == &variable_type) ((Variable *)k)->tape_bits &= ~bit;
      if (--k->rc == 0) rt_free_obj(k);
    }
  }
  /* in locals: a reference count's store could alias the entry for the compiler */
  const Val *in = e->in;
  if (e->nin == 2) {   /* the most frequent count, unrolled */
    TFS_DECREF(in[0]);
    TFS_DECREF(in[1]);
  } else {
    for (int i = 0, n = e->nin; i < n; i++) TFS_DECREF(in[i]);
  }
  if (!e->nattr) return;   /* most entries: no attribute pointer to work out */
  const Val *attr = tape_entry_attr(e);
  for (int i = 0, n = e->nattr; i < n; i++) TFS_DECREF(attr[i]);
}

/* Entries' value blocks come from chunks freed with the tape: recording
 * costs no malloc/free pair per op. */
typedef struct TapeChunk { struct TapeChunk *next; size_t used, cap; _Alignas(16) char data[]; } TapeChunk;
enum { TAPE_CHUNK = 32 << 10, CHUNK_POOL_MAX = 32 };

/* Freed tapes leave their standard chunks and their entry array here for the next tape: a tape
 * recorded again and again (a training step) calls no allocator once these are warm. */
static TapeChunk *chunk_pool;
static int chunk_pool_n;
static TapeEntry *entry_pool;
static int entry_pool_cap;

static TapeChunk *chunk_new(size_t cap) {
  if (cap == TAPE_CHUNK && chunk_pool) {
    TapeChunk *c = chunk_pool;
    chunk_pool = c->next;
    chunk_pool_n--;
    c->used = 0;
    return c;
  }
  n_allocs++;
  TapeChunk *c = malloc(sizeof(TapeChunk) + cap);
  if (!c) rt_throw(ERR_MEMORY, "out of memory");
  c->used = 0;
  c->cap = cap;
  return c;
}

static void chunk_drop(TapeChunk *c) {
  if (c->cap == TAPE_CHUNK && chunk_pool_n < CHUNK_POOL_MAX) {
    c->next = chunk_pool;
    chunk_pool = c;
    chunk_pool_n++;
  } else {
    free(c);
  }
}

/* A chunk with room for n more bytes (n a multiple of 16) becomes the tape's current one, unless n is
 * big: then it gets a chunk of its own, and the current one keeps filling. */
static TapeChunk *__attribute__((noinline)) chunk_add(Tape *t, size_t n) {
  TapeChunk *c = chunk_new(n > TAPE_CHUNK / 4 ? n : TAPE_CHUNK);
  if (t->chunks && n > TAPE_CHUNK / 4) {
    c->next = t->chunks->next;
    t->chunks->next = c;
  } else {
    c->next = t->chunks;
    t->chunks = c;
  }
  return c;
}

/* Inlined into recording (as are the helpers below): a recorded op's own cost is the goal. */
static inline __attribute__((always_inline)) void *tape_alloc(Tape *t, size_t n) {
  n = (n + 15) & ~(size_t)15;
  TapeChunk *c = t->chunks;
  if (!c || c->cap - c->used < n) c = chunk_add(t, n);
  void *p = c->data + c->used;
  c->used += n;
  return p;
}



/* grad_drops_of for every op, copied here once (before any tape records): one load per entry.  And
 * what the straight-line path (record_fast) needs of an op, from the op table and those flags:
 * F_FAST when it takes no list input and is not StopGradient, with the E_* an eager entry keeps. */
enum { F_FAST = 0x80 };
static unsigned char drops_of[OP__COUNT], fast_of[OP__COUNT];
static unsigned float_dtypes;   /* bit d: dtype d is a float one (one test on the path) */
static bool drops_ready;
static void rec_of_init(void);

Val tape_new(bool persistent, bool watch_vars) {
  if (!drops_ready) {
    for (int i = 0; i < OP__COUNT; i++) {
      unsigned d = grad_drops_of((OpId)i);
      drops_of[i] = (unsigned char)d;
      if (i == OP_STOP_GRADIENT || op_defs[i].kinds[0] == 'L') continue;
      fast_of[i] = (unsigned char)(F_FAST | (d & G_NO_OUT ? E_OUT_WEAK : 0) |
                                   (d & G_NO_IN ? E_IN_NONE : d & G_IN_SHAPE ? E_IN_SHAPE : 0));
    }
    for (int d = 0; d < DT__COUNT; d++)
      if (dtype_has_grad((DType)d)) float_dtypes |= 1u << d;
    rec_of_init();
    drops_ready = true;
  }
  Tape *t = obj_new(&tape_type, sizeof(Tape));
  memset((char *)t + sizeof(Obj), 0, sizeof(Tape) - sizeof(Obj));
  t->persistent = persistent;
  t->watch_vars = watch_vars;
  return val_obj(t);
}

/* The object of a value that can be a gradient source (a tensor or Variable), or NULL.  An
 * _UnreadVariable (v.assign()'s result) is its parent: TF's shares the parent's handle, which tapes key on. */
static inline __attribute__((always_inline)) Obj *obj_of(Val v) {
  if (v.tag != VT_OBJ) return NULL;
  if (v.u.o->type == &tensor_type) return v.u.o;
  if (v.u.o->type == &variable_type) return &variable_storage(v.u.o)->hdr;
  return NULL;
}

/* A value's identity on tapes: a tensor's id (odd, given on first use: entries need not keep a tensor
 * alive, and a freed tensor's address is soon another's), a Variable's address (even; tapes hold them). */
static tfs_u64 next_id = 1;   /* the last id given: ids are odd, kept in the tensor as the key itself */
static inline __attribute__((always_inline)) uintptr_t tensor_kid(Tensor *t) {
  if (!t->tape_id) t->tape_id = next_id += 2;
  return (uintptr_t)t->tape_id;
}
static inline __attribute__((always_inline)) uintptr_t kid(Obj *o) {
  if (!o) return 0;
  if (o->type != &tensor_type) return (uintptr_t)o;
  return tensor_kid((Tensor *)o);
}
static uintptr_t key_of(Val v) { return kid(obj_of(v)); }
static inline const void *kp(uintptr_t k) { return (const void *)k; }   /* as a PtrMap key */

static tfs_i64 n_retained;   /* tape_retained */
tfs_i64 tape_retained(void) { return n_retained; }

/* A key's slot bits: which active tapes track it. */
static inline tfs_u64 *bits_of(Obj *k) {
  return k->type == &tensor_type ? &((Tensor *)k)->tape_bits : &((Variable *)k)->tape_bits;
}

static bool is_float_val(Val v) {
  Tensor *t = val_as_tensor(v);
  return t && (dtype_has_grad(t->dtype) || t->dtype == DT_VARIANT);   /* lists carry their elements' gradients */
}

/* is_float_val of a key (NULL: false), without the call. */
static inline bool key_is_float(Obj *k) {
  if (!k) return false;
  const Tensor *t = k->type == &tensor_type ? (const Tensor *)k : ((const Variable *)k)->value;   /* obj_of's: not unread */
  return dtype_has_grad(t->dtype) || t->dtype == DT_VARIANT;
}

/* The slot bits and the tape holding each.  A tape keeps its slot after its `with` block (its bits
 * stay true, and are cleared when it is freed, in the same pass that releases its values); a tape
 * entering when all 64 are held takes the slot of one outside its block (at most 64 are inside). */
static tfs_u64 slots_used;
static Tape *slot_owner[64];

/* Set (on) or clear the tape's bit in everything it tracks. */
static void mark_all(Tape *t, bool on) {
  for (int i = 0; i < t->nwatched; i++) {
    Obj *k = obj_of(t->watched[i]);
    if (on) *bits_of(k) |= t->bit;
    else *bits_of(k) &= ~t->bit;
  }
  for (int i = 0; i < t->n; i++) {
    if (t->e[i].keep & E_OUT_WEAK) {   /* float, and alive unless NULL */
      Tensor *o = weak_out(&t->e[i]);
      if (o && on) o->tape_bits |= t->bit;
      else if (o) o->tape_bits &= ~t->bit;
      continue;
    }
    for (int j = 0; j < t->e[i].nout; j++) {
      Obj *k = obj_of(tape_entry_out(&t->e[i])[j]);
      if (!k) continue;
      if (!on) *bits_of(k) &= ~t->bit;
      else if (is_float_val(tape_entry_out(&t->e[i])[j])) *bits_of(k) |= t->bit;
    }
  }
}

static void slot_release(Tape *t, bool clear) {
  if (!t->bit) return;
  if (clear) mark_all(t, false);
  slots_used &= ~t->bit;
  slot_owner[__builtin_ctzll(t->bit)] = NULL;
  t->bit = 0;
  t->tracked_ok = false;
}

void tape_push(Tape *t) {
  if (t->active) return;
  if (op_tape_nactive == (int)(sizeof active / sizeof active[0])) rt_throw(ERR_RUNTIME, "too many nested GradientTapes");
  if (!t->bit) {
    if (!~slots_used) {   /* all held: take one from a tape outside its block */
      for (int i = 0; i < 64; i++)
        if (!slot_owner[i]->active) { slot_release(slot_owner[i], true); break; }
    }
    int s = __builtin_ctzll(~slots_used);
    t->bit = (tfs_u64)1 << s;
    slots_used |= t->bit;
    slot_owner[s] = t;
    mark_all(t, true);
  }
  active[op_tape_nactive++] = t;
  t->active = true;
}

void tape_pop(Tape *t) {
  if (!t->active) return;
  int j = 0;
  for (int i = 0; i < op_tape_nactive; i++)
    if (active[i] != t) active[j++] = active[i];
  op_tape_nactive = j;
  t->active = false;
}

Type tape_type = {.name = "GradientTape", .free = tape_free};

void tape_free(Obj *o) {
  Tape *t = (Tape *)o;
  tape_pop(t);
  /* clear the tape's bit in each value as it is released: one pass */
  for (int i = 0; i < t->n; i++) entry_release(&t->e[i], t->bit);
  for (int i = 0; i < t->nwatched; i++) {
    *bits_of(obj_of(t->watched[i])) &= ~t->bit;
    TFS_DECREF(t->watched[i]);
  }
  slot_release(t, false);
  if (t->e && t->cap > entry_pool_cap) {   /* keep the larger array for the next tape */
    free(entry_pool);
    entry_pool = t->e;
    entry_pool_cap = t->cap;
  } else {
    free(t->e);
  }
  for (TapeChunk *c = t->chunks, *nx; c; c = nx) {
    nx = c->next;
    chunk_drop(c);
  }
  ptrmap_free(&t->tracked);
  free(t);
}

/* Whether t tracks k: a bit test while t holds a slot, else the map, rebuilt when stale. */
static bool tracks_key(Tape *t, Obj *k) {
  if (!k) return false;
  if (t->bit) return (*bits_of(k) & t->bit) != 0;
  if (!t->tracked_ok) {
    ptrmap_free(&t->tracked);
    for (int i = 0; i < t->nwatched; i++) ptrmap_put(&t->tracked, kp(key_of(t->watched[i])), val_undef());
    for (int i = 0; i < t->n; i++) {
      TapeEntry *e = &t->e[i];
      for (int j = 0; j < e->nout; j++)
        if ((e->keep & E_OUT_WEAK) || is_float_val(tape_entry_out(e)[j])) ptrmap_put(&t->tracked, kp(tape_entry_key(e)[e->nin + j]), val_undef());
    }
    t->tracked_ok = true;
  }
  return ptrmap_find(&t->tracked, kp(kid(k))) >= 0;
}

/* Track a value that is no entry's output (a watched tensor, a Variable). */
static void track(Tape *t, Val v) {
  Obj *k = obj_of(v);
  if (!k || !is_float_val(v) || tracks_key(t, k)) return;   /* integers carry no gradient */
  if (k->type == &variable_type) v = val_obj(k);   /* an _UnreadVariable: its parent is the one watched */
  if (t->nwatched == t->capwatched) {   /* from the chunks: no allocator call per tape */
    int cap = t->capwatched ? t->capwatched * 2 : 8;
    Val *w = tape_alloc(t, sizeof(Val) * (size_t)cap);
    if (t->nwatched) memcpy(w, t->watched, sizeof(Val) * (size_t)t->nwatched);
    t->watched = w;
    t->capwatched = cap;
  }
  t->watched[t->nwatched++] = val_incref(v);
  *bits_of(k) |= t->bit;
  t->tracked_ok = false;
}

/* An entry's output becomes tracked (the entry holds it). */
static void track_out(Tape *t, Val v) {
  Obj *k = obj_of(v);
  if (key_is_float(k)) *bits_of(k) |= t->bit;
  t->tracked_ok = false;
}

static void seq_of(Val v, tfs_i64 *n, const Val **items) {
  if (val_is(v, &list_type)) { *n = ((List *)v.u.o)->len; *items = ((List *)v.u.o)->items; }
  else { *n = ((Tuple *)v.u.o)->len; *items = ((Tuple *)v.u.o)->items; }
}

/* TF logs (log_first_n, 5 times in a process) when an integer/string tensor is watched: it gets no gradient. */
static void warn_untrainable(DType dt) {
  static int times;
  if (times++ >= 5) return;
  rt_flush();   /* stdout first, so the order holds */
  fprintf(stderr, "WARNING:tensorflow:The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.%s\n",
          dtype_info[dt].name);
  fflush(stderr);
}

static void watch_walk(Tape *t, Val v, bool warn) {
  if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    tfs_i64 n;
    const Val *it;
    seq_of(v, &n, &it);
    for (tfs_i64 i = 0; i < n; i++) watch_walk(t, it[i], warn);
    return;
  }
  if (val_is(v, &dict_type)) {
    Dict *d = (Dict *)v.u.o;
    for (tfs_i64 i = 0; i < d->len; i++)
      if (d->keys[i].tag != VT_UNDEF) watch_walk(t, d->vals[i], warn);
    return;
  }
  if (!obj_of(v))
    rt_throw(ERR_VALUE, "Passed in object of type %s, not tf.Tensor or tf.Variable or ExtensionType.", val_type_name(v));
  if (warn && !is_float_val(v)) warn_untrainable(val_as_tensor(v)->dtype);
  track(t, v);
}

void tape_watch(Tape *t, Val v) { watch_walk(t, v, false); }
void tape_watch_user(Tape *t, Val v) { watch_walk(t, v, true); }

static bool recording(const Tape *t) { return t->active && !t->paused && !t->busy; }

/* Room for one more entry: the pooled array of a freed tape first, else twice the size. */
static void __attribute__((noinline)) entries_grow(Tape *t) {
  if (!t->e && entry_pool) {
    t->e = entry_pool;
    t->cap = entry_pool_cap;
    entry_pool = NULL;
    entry_pool_cap = 0;
    if (t->n < t->cap) return;
  }
  int cap = t->cap ? t->cap * 2 : 32;
  n_allocs++;
  TapeEntry *e = realloc(t->e, sizeof(TapeEntry) * (size_t)cap);
  if (!e) rt_throw(ERR_MEMORY, "out of memory");
  t->e = e;
  t->cap = cap;
}

static inline __attribute__((always_inline)) TapeEntry *new_entry(Tape *t) {
  if (t->n == t->cap) entries_grow(t);
  TapeEntry *e = &t->e[t->n++];
  e->nin = e->nout = e->nattr = 0;   /* the rest is filled by entry_fill */
  return e;
}

/* A host operand (x * 3.0) as the tensor the op converted it to, for shape rules: operands of the
 * op's dtype group take that dtype, indices their default. */
static char operand_kind(const OpDef *op, int i) {
  return !op ? 'A' : op->kinds[0] == 'L' ? (op->flags & OPF_VARIADIC ? 'A' : 'T') : i < (int)strlen(op->kinds) ? op->kinds[i] : 'A';
}

static Tensor *host_operand(const OpDef *op, int nin, const Val *vin, int i) {
  int want = -1;
  if (strchr("TtFf", operand_kind(op, i)))   /* the group's dtype: tf.where(c, x, -0.5) takes x's, not the bool c's */
    for (int j = 0; j < nin && want < 0; j++)
      if (strchr("TtFf", operand_kind(op, j)) && val_as_tensor(vin[j])) want = val_as_tensor(vin[j])->dtype;
  return tensor_from_val(vin[i], want);
}

static void shape_of(TapeShape *s, const Tensor *t) {
  s->dtype = t->dtype;
  s->rank = t->rank;
  for (int d = 0; d < t->rank; d++) s->shape[d] = t->shape[d];
}

/* Fill an entry: attributes, the identities of inputs and outputs, and of their values what the op's
 * gradient reads (grad_drops_of; all of them while tracing, where a shape may not be static, and in a
 * control-flow region, whose end reads the inputs back).  Variables are read now (eagerly: the
 * current value, which an assignment replaces rather than overwrites while the tape holds it; in a
 * trace: a read node ordered before later updates). */
/* tensors: record_all checked that the inputs and the one output are eager tensors, the output a
 * float one (a constant: this specialises the code for the most frequent entry). */
static inline __attribute__((always_inline)) void entry_fill(Tape *t, TapeEntry *e, const OpDef *op, int nin, const Val *vin, int nout, const Val *outs,
                       int nattr, const Val *attr, bool tensors) {
  unsigned drops = op && !t->regions ? drops_of[op->id] : 0;
  if (!tensors)
    for (int i = 0; i < nout && drops; i++)
      if (outs[i].tag != VT_OBJ || outs[i].u.o->type != &tensor_type || ((Tensor *)outs[i].u.o)->sym) drops = 0;
  Tensor *o0 = drops & G_NO_OUT && nout == 1 ? (Tensor *)outs[0].u.o : NULL;
  bool weak = o0 && !o0->tape_loose && (tensors || key_is_float(&o0->hdr));   /* one weak holder per tensor */
  e->keep = (weak ? E_OUT_WEAK : 0) | (drops & G_NO_IN ? E_IN_NONE : drops & G_IN_SHAPE ? E_IN_SHAPE : 0);
  /* one block: inputs, outputs, attributes, identities, then input shapes */
  size_t nv = (size_t)(nin + nout + nattr), nk = (size_t)(nin + nout);
  e->in = tape_alloc(t, sizeof(Val) * nv + sizeof(uintptr_t) * nk + (e->keep & E_IN_SHAPE ? sizeof(TapeShape) * (size_t)nin : 0));
  e->op = op;
  e->nattr = nattr;
  e->nin = nin;
  e->nout = nout;
  Val *eout = tape_entry_out(e);
  uintptr_t *ekey = tape_entry_key(e);
  TapeShape *eshp = tape_entry_shp(e);
  for (int i = 0; i < nattr; i++) tape_entry_attr(e)[i] = val_incref(attr[i]);
  for (int i = 0; i < nin; i++) {
    Obj *k = tensors ? vin[i].u.o : obj_of(vin[i]);
    ekey[i] = tensors ? tensor_kid((Tensor *)k) : kid(k);
    e->in[i] = val_undef();
    if (e->keep & E_IN_NONE) continue;
    if (e->keep & E_IN_SHAPE) {
      if (k) {
        shape_of(&eshp[i], k->type == &tensor_type ? (Tensor *)k : ((Variable *)k)->value);
      } else if (vin[i].tag == VT_NONE || vin[i].tag == VT_UNDEF) {
        eshp[i].rank = -2;
        e->in[i] = vin[i];
      } else {
        Tensor *h = host_operand(op, nin, vin, i);
        shape_of(&eshp[i], h);
        TFS_DECREF(val_obj(h));
      }
      continue;
    }
    if (tensors || (k && k->type == &tensor_type)) {   /* the common case, first */
      e->in[i] = vin[i];
      k->rc++;
      n_retained++;
    } else if (k) {
      in_record = true;
      e->in[i] = op_apply1(OP_READ_VARIABLE, vin[i]);
      in_record = false;
      n_retained++;
    } else if (vin[i].tag != VT_NONE && vin[i].tag != VT_UNDEF) {
      e->in[i] = val_obj(host_operand(op, nin, vin, i));
      n_retained++;
    } else {
      e->in[i] = vin[i];
    }
  }
  if (weak) {   /* held weakly: the tensor clears out[0].u.o when freed */
    eout[0].tag = VT_UNDEF;
    eout[0].u.o = &o0->hdr;
    o0->tape_loose = &eout[0].u.o;
    ekey[nin] = tensor_kid(o0);
    return;
  }
  for (int i = 0; i < nout; i++) {
    eout[i] = val_incref(outs[i]);
    ekey[nin + i] = key_of(outs[i]);
    if (ekey[nin + i]) n_retained++;
  }
}

/* The inputs as the gradient sees them: a list parameter expands into its elements. */
static void flat_inputs(const OpDef *op, int *nin, const Val **vin) {
  if (op && op->kinds[0] == 'L' && *nin == 1 && (val_is((*vin)[0], &list_type) || val_is((*vin)[0], &tuple_type))) {
    tfs_i64 n;
    seq_of((*vin)[0], &n, vin);
    *nin = (int)n;
  }
}

static inline __attribute__((always_inline)) void record_on(Tape *t, const OpDef *op, int nin, const Val *vin, const OpAttrs *attrs, int nout,
                      const Val *outs, const Val *custom, bool tensors) {
  bool any = false;
  if (tensors) {   /* see entry_fill */
    tfs_u64 bits = 0;
    for (int i = 0; i < nin; i++) bits |= ((Tensor *)vin[i].u.o)->tape_bits;
    Tensor *o = (Tensor *)outs[0].u.o;
    if (!(bits & t->bit) || (o->tape_bits & t->bit)) return;
    entry_fill(t, new_entry(t), op, nin, vin, 1, outs, attrs ? attrs->n : 0, attrs ? attrs->v : NULL, true);
    o->tape_bits |= t->bit;
    t->tracked_ok = false;
    return;
  }
  for (int i = 0; i < nin; i++) {
    Obj *k = obj_of(vin[i]);
    if (!k) continue;
    if (*bits_of(k) & t->bit) any = true;
    else if (t->watch_vars && k->type == &variable_type && ((Variable *)k)->trainable && vin[i].u.o == k) {
      /* (reading an _UnreadVariable watches nothing: TF's _UnreadVariable reads bypass variable_accessed) */
      track(t, vin[i]);
      any = true;
    }
  }
  if (!any) return;
  /* Outputs already known to the tape (an identity returning its input, an
   * op forwarding to another op_apply that was recorded) add nothing. */
  bool fresh = false;
  for (int i = 0; i < nout; i++)
    if (key_is_float(obj_of(outs[i])) && !(*bits_of(obj_of(outs[i])) & t->bit)) fresh = true;
  if (!fresh) return;
  TapeEntry *e = new_entry(t);
  if (op) entry_fill(t, e, op, nin, vin, nout, outs, attrs ? attrs->n : 0, attrs ? attrs->v : NULL, false);
  else entry_fill(t, e, NULL, nin, vin, nout, outs, 1, custom, false);
  for (int i = 0; i < nout; i++) {   /* the outputs become tracked (the entry refers to them) */
    Obj *k = obj_of(outs[i]);
    if (key_is_float(k)) *bits_of(k) |= t->bit;
  }
  t->tracked_ok = false;
}

/* An eager tensor, not a symbolic one. */
static inline bool vin_is_tensor(Val v) {
  return v.tag == VT_OBJ && v.u.o->type == &tensor_type && !((Tensor *)v.u.o)->sym;
}

static void record_all(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs, Val result, const Val *custom) {
  if (in_record) return;
  int nout;
  const Val *outs;
  if (val_is(result, &list_type) || val_is(result, &tuple_type)) {
    tfs_i64 n;
    seq_of(result, &n, &outs);
    nout = (int)n;
  } else if (obj_of(result)) {   /* one result (most ops): record_on specialised for it */
    flat_inputs(op, &nin, &inputs);
    /* eager tensors in and a float tensor out (most recorded ops): record_on specialised further */
    Tensor *o = (Tensor *)result.u.o;
    bool tensors = op && result.u.o->type == &tensor_type && !o->sym && dtype_has_grad(o->dtype);
    for (int i = 0; i < nin && tensors; i++) tensors = vin_is_tensor(inputs[i]);
    for (int i = 0; i < op_tape_nactive; i++) {
      if (!recording(active[i])) continue;
      if (tensors) record_on(active[i], op, nin, inputs, attrs, 1, &result, custom, true);
      else record_on(active[i], op, nin, inputs, attrs, 1, &result, custom, false);
    }
    return;
  } else {
    return;
  }
  flat_inputs(op, &nin, &inputs);
  for (int i = 0; i < op_tape_nactive; i++)
    if (recording(active[i])) record_on(active[i], op, nin, inputs, attrs, nout, outs, custom, false);
}

static tfs_i64 n_fast;   /* tape_fast_entries */
tfs_i64 tape_fast_entries(void) { return n_fast; }

size_t tape_bytes(const Tape *t) {
  size_t n = sizeof(TapeEntry) * (size_t)t->n;
  for (const TapeChunk *c = t->chunks; c; c = c->next) n += c->used;
  return n;
}

/* The most frequent entry, in straight-line code (N and NA constants; NA < 0: attrs->n attributes, else
 * NA): N eager tensor inputs, one eager float output (without a weak holder if keep has E_OUT_WEAK), one tape recording outside
 * any region (tape_record checked), keep from fast_of.  Stores what entry_fill stores for such an entry,
 * and nothing else.  Without cold it calls nothing (so it needs no saved registers): false when the
 * entry array or the current chunk is full, for the caller to come again with cold set, which makes room. */
static inline __attribute__((always_inline)) bool record_fast(Tape *t, const OpDef *op, unsigned keep, int N, int NA,
                                                             const Val *vin, Tensor *o, const OpAttrs *attrs, bool cold) {
  Tensor *x0 = (Tensor *)vin[0].u.o, *x1 = (Tensor *)vin[N - 1].u.o;
  tfs_u64 bit = t->bit;
  if (!((x0->tape_bits | x1->tape_bits) & bit) || (o->tape_bits & bit)) return true;
  int nattr = NA < 0 ? attrs->n : NA;
  size_t size = (sizeof(Val) * (size_t)(N + 1 + nattr) + sizeof(uintptr_t) * (size_t)(N + 1) +
                 (keep & E_IN_SHAPE ? sizeof(TapeShape) * (size_t)N : 0) + 15) & ~(size_t)15;
  TapeChunk *c = t->chunks;
  if (cold) {
    if (t->n == t->cap) entries_grow(t);
    if (!c || c->cap - c->used < size) c = chunk_add(t, size);
  } else if (t->n == t->cap || !c || c->cap - c->used < size) {
    return false;
  }
  Val *v = (Val *)(c->data + c->used);
  c->used += size;
  TapeEntry *e = &t->e[t->n++];
  uintptr_t *key = (uintptr_t *)(v + N + 1 + nattr);
  e->op = op;
  e->nin = N;
  e->nout = 1;
  e->nattr = nattr;
  e->keep = keep;
  e->in = v;
  for (int i = 0; i < nattr; i++) v[N + 1 + i] = val_incref(attrs->v[i]);
  key[0] = tensor_kid(x0);
  if (N > 1) key[1] = tensor_kid(x1);
  key[N] = tensor_kid(o);
  if (keep & (E_IN_NONE | E_IN_SHAPE)) {
    v[0] = val_undef();
    if (N > 1) v[1] = val_undef();
    if (keep & E_IN_SHAPE) {
      shape_of(&((TapeShape *)(key + N + 1))[0], x0);
      if (N > 1) shape_of(&((TapeShape *)(key + N + 1))[1], x1);
    }
  } else {
    v[0] = vin[0];
    x0->hdr.rc++;
    if (N > 1) {
      v[1] = vin[1];
      x1->hdr.rc++;
    }
    n_retained += N;
  }
  if (keep & E_OUT_WEAK) {   /* held weakly: the tensor clears out[0].u.o when freed */
    v[N].tag = VT_UNDEF;
    v[N].u.o = &o->hdr;
    o->tape_loose = &v[N].u.o;
  } else {
    v[N] = val_obj(o);
    o->hdr.rc++;
    n_retained++;
  }
  o->tape_bits |= bit;   /* tracked_ok needs no clearing: t has a slot, and losing it clears that */
  n_fast++;
  return true;
}

static void __attribute__((noinline)) record_fast_cold(Tape *t, const OpDef *op, unsigned keep, int nin, const Val *vin,
                                                       Tensor *o, const OpAttrs *attrs) {
  if (nin == 2) record_fast(t, op, keep, 2, -1, vin, o, attrs, true);
  else record_fast(t, op, keep, 1, -1, vin, o, attrs, true);
}

/* Everything record_fast does not take: several tapes, regions, host or symbolic operands, lists. */
static void __attribute__((noinline)) record_general(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs,
                                                     Val result) {
  if (op->id == OP_STOP_GRADIENT) return;
  record_all(op, nin, inputs, attrs, result, NULL);
}

/* One function per shape and keep (tape_record jumps to the op's, rec_of): constants make each small
 * enough to need few saved registers, and the arguments are tape_record's, passed on unmoved.  keep is
 * one of 0 .. E_OUT_WEAK | E_IN_NONE (never E_IN_SHAPE and E_IN_NONE together).  tape_record checked the
 * tape and the output; the inputs are checked here. */
typedef void (*RecFn)(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs, Val result);
#define RECORD_FAST(name, N, NA, K)                                                                              \
  static void __attribute__((noinline)) name(const OpDef *op, int nin, const Val *vin, const OpAttrs *attrs,       \
                                             Val result) {                                                         \
    if (nin != N || !vin_is_tensor(vin[0]) || (N > 1 && !vin_is_tensor(vin[N - 1])) || (NA == 0 && attrs->n)) {   \
      record_general(op, nin, vin, attrs, result);                                                                 \
      return;                                                                                                      \
    }                                                                                                              \
    Tape *t = active[0];                                                                                           \
    Tensor *o = (Tensor *)result.u.o;                                                                              \
    if (!record_fast(t, op, K, N, NA, vin, o, attrs, false)) record_fast_cold(t, op, K, N, vin, o, attrs);         \
  }
#define RECORD_FAST_KEEPS(name, N, NA)                                                                           \
  RECORD_FAST(name##0, N, NA, 0) RECORD_FAST(name##1, N, NA, 1) RECORD_FAST(name##2, N, NA, 2)                     \
  RECORD_FAST(name##3, N, NA, 3) RECORD_FAST(name##4, N, NA, 4) RECORD_FAST(name##5, N, NA, 5)
RECORD_FAST_KEEPS(record_binary, 2, 0)         /* Add, Mul, MatMul, ... */
RECORD_FAST_KEEPS(record_binary_attrs, 2, -1)
RECORD_FAST_KEEPS(record_unary, 1, 0)          /* Exp, Relu, Tanh, ... */
RECORD_FAST_KEEPS(record_unary_attrs, 1, -1)   /* Sum, Mean, Cast, ... */
#define KEEPS(name) {name##0, name##1, name##2, name##3, name##4, name##5}
/* [unary/binary * 2 + has attributes][keep] */
static const RecFn rec_fns[4][6] = {KEEPS(record_unary), KEEPS(record_unary_attrs), KEEPS(record_binary),
                                    KEEPS(record_binary_attrs)};

/* The function recording each op (set with fast_of): its arity and whether it has attributes pick the
 * shape, its gradient's flags the keep; NULL: record_general (lists, several inputs, StopGradient). */
static RecFn rec_of[OP__COUNT];

void tape_record(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs, Val result) {
  RecFn fn = rec_of[op->id];
  Tape *t = active[0];
  /* active[] holds only tapes inside their block: t->active need not be tested */
  if (fn && op_tape_nactive == 1 && !t->paused && !t->busy && !t->regions && !in_record && result.tag == VT_OBJ &&
      result.u.o->type == &tensor_type) {
    Tensor *o = (Tensor *)result.u.o;
    /* an output some entry holds weakly already (rare) takes the general path, which holds it */
    if (!o->sym && (float_dtypes >> o->dtype & 1) && !o->tape_loose) {
      fn(op, nin, inputs, attrs, result);
      return;
    }
  }
  record_general(op, nin, inputs, attrs, result);
}

static void rec_of_init(void) {
  for (int i = 0; i < OP__COUNT; i++) {
    const OpDef *op = &op_defs[i];
    int n = op_num_inputs(op);
    if (!(fast_of[i] & F_FAST) || (op->flags & OPF_VARIADIC) || n < 1 || n > 2) continue;
    rec_of[i] = rec_fns[(n - 1) * 2 + (op_num_attrs(op) > 0)][fast_of[i] & ~(unsigned)F_FAST];
  }
}

void tape_record_custom(int nin, const Val *inputs, Val result, Val grad_fn) {
  record_all(NULL, nin, inputs, NULL, result, &grad_fn);
}

bool tape_tracks(Tape *t, Val v) { return tracks_key(t, obj_of(v)); }

bool tape_outermost_recording(void) {
  for (int i = 0; i < op_tape_nactive; i++)
    if (recording(active[i]) && !active[i]->regions) return true;
  return false;
}

bool tape_any_recording(void) {
  for (int i = 0; i < op_tape_nactive; i++)
    if (recording(active[i])) return true;
  return false;
}

bool tape_would_record(int nin, const Val *in) {
  for (int i = 0; i < op_tape_nactive; i++) {
    Tape *t = active[i];
    if (!recording(t)) continue;
    for (int j = 0; j < nin; j++) {
      Obj *k = obj_of(in[j]);
      if (!k) continue;
      if (t->watch_vars && k->type == &variable_type && ((Variable *)k)->trainable && in[j].u.o == k) return true;
      if (tracks_key(t, k)) return true;
    }
  }
  return false;
}

void tape_variable_accessed(Val var) {
  Obj *k = obj_of(var);
  if (!k || !((Variable *)k)->trainable) return;
  for (int i = 0; i < op_tape_nactive; i++)
    if (recording(active[i]) && active[i]->watch_vars) track(active[i], val_obj(k));
}

/* ---- control-flow regions ---------------------------------------------------------------- */

void tape_region_begin(TapeRegion *r) {
  r->n = 0;
  for (int i = 0; i < op_tape_nactive && r->n < (int)(sizeof r->t / sizeof r->t[0]); i++)
    if (recording(active[i])) {
      r->t[r->n] = active[i];
      active[i]->regions++;
      r->mark[r->n++] = active[i]->n;
    }
}

void tape_region_end(TapeRegion *r, int i, Val *ext) {
  Tape *t = r->t[i];
  int m = r->mark[i];
  t->regions--;
  PtrMap made = {0}, seen = {0};
  Val l = list_new(0);
  for (int k = m; k < t->n; k++) {
    TapeEntry *e = &t->e[k];   /* recorded inside a region: it holds all its values */
    for (int j = 0; j < e->nin; j++) {
      uintptr_t key = tape_entry_key(e)[j];
      if (!key || ptrmap_find(&made, kp(key)) >= 0 || ptrmap_find(&seen, kp(key)) >= 0) continue;
      Obj *o = key & 1 ? obj_of(e->in[j]) : (Obj *)key;   /* a tensor input is held as itself; a Variable is the key */
      if (!tracks_key(t, o)) continue;
      ptrmap_put(&seen, kp(key), val_undef());
      list_append(l, val_obj(o));
    }
    for (int j = 0; j < e->nout; j++) ptrmap_put(&made, kp(tape_entry_key(e)[e->nin + j]), val_undef());
  }
  /* forget the body's values: they belong to the body graph */
  for (int k = m; k < t->n; k++) entry_release(&t->e[k], t->bit);
  if (t->n > m) t->n = m;
  if (made.n) {
    int w = 0;
    for (int k = 0; k < t->nwatched; k++) {
      Obj *o = obj_of(t->watched[k]);
      if (ptrmap_find(&made, kp(kid(o))) >= 0) {
        *bits_of(o) &= ~t->bit;
        TFS_DECREF(t->watched[k]);
      } else {
        t->watched[w++] = t->watched[k];
      }
    }
    t->nwatched = w;
  }
  t->tracked_ok = false;
  ptrmap_free(&made);
  ptrmap_free(&seen);
  *ext = rt_tuple((int)((List *)l.u.o)->len, ((List *)l.u.o)->items);
  TFS_DECREF(l);
}

void tape_record_on(Tape *t, Val ext, Val outs, Val grad_fn) {
  tfs_i64 nin, nout;
  const Val *in, *out;
  seq_of(ext, &nin, &in);
  seq_of(outs, &nout, &out);
  TapeEntry *e = new_entry(t);
  entry_fill(t, e, NULL, (int)nin, in, (int)nout, out, 1, &grad_fn, false);
  for (tfs_i64 i = 0; i < nout; i++) track_out(t, out[i]);
}

/* ---- the reverse sweep ------------------------------------------------------------------- */

Val tape_add_grads(Val a, Val b) {
  Tensor *t = val_as_tensor(b);
  return op_apply2(t && t->dtype == DT_VARIANT ? OP_TL_ADD : OP_ADD, a, b);
}

static void accumulate(PtrMap *g, const void *k, Val d) {
  int i = ptrmap_find(g, k);
  if (i < 0) {
    ptrmap_put(g, k, d);
    return;
  }
  Val s = tape_add_grads(g->v[i], d);
  TFS_DECREF(d);
  ptrmap_put(g, k, s);
}

static void shape_text(StrBuf *b, const Tensor *t) {
  if (t->rank < 0) { sb_puts(b, "<unknown>"); return; }
  op_shape_text(b, t->rank, t->shape);
}

/* Seed gradient of one target: ones, or the given output gradient (shape-checked). */
static Val seed_of(Val target, Val og, int i) {
  if (og.tag == VT_UNDEF || og.tag == VT_NONE) return op_apply1(OP_ONES_LIKE, target);
  Tensor *tt = val_as_tensor(target);
  Tensor *gt = val_as_tensor(og);
  if (!gt && (og.tag == VT_INT || og.tag == VT_FLOAT || og.tag == VT_BOOL || val_is(og, &list_type) ||
              val_is(og, &tuple_type))) {
    /* TF converts each output gradient with convert_to_tensor: Python numbers and lists are accepted */
    Val conv = val_obj(tensor_from_val(og, -1));
    int mark = rt_hold_val(conv);
    Val r = seed_of(target, conv, i);
    rt_unhold(mark);
    TFS_DECREF(conv);
    return r;
  }
  if (!gt) rt_throw(ERR_TYPE, "output_gradients[%d] must be a tensor, got %s", i, val_type_name(og));
  bool ok = gt->rank < 0 || tt->rank < 0 || gt->rank == tt->rank;
  for (int d = 0; ok && gt->rank >= 0 && d < gt->rank && d < tt->rank; d++)
    if (gt->shape[d] >= 0 && tt->shape[d] >= 0 && gt->shape[d] != tt->shape[d]) ok = false;
  if (!ok) {
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "Mismatch in shape: output_gradients[%d] has shape ", i);
    shape_text(&b, gt);
    sb_printf(&b, " but target[%d] has shape ", i);
    shape_text(&b, tt);
    char msg[512];
    snprintf(msg, sizeof msg, "%.*s", (int)b.len, b.data);
    sb_free(&b);
    /* errindex: Mismatch in shape: output_gradients[…] has shape … but target[…] has shape … */
    rt_throw(ERR_VALUE, "%s", msg);
  }
  if (gt->dtype != tt->dtype) {
    Val dv = dtype_val(tt->dtype);
    OpAttrs at = {1, {dv}};
    return op_apply(&op_defs[OP_CAST], 1, &og, &at);
  }
  return val_incref(og);
}

/* Input gradients of a tf.custom_gradient entry: grad_fn(*dys). */
static void custom_grads(const TapeEntry *e, const Val *dy, Val *dx) {
  Val r = rt_call(tape_entry_attr(e)[0], e->nout, dy, NULL);
  if (e->nin == 1 && !val_is(r, &list_type) && !val_is(r, &tuple_type)) {
    dx[0] = r;
    return;
  }
  if (!val_is(r, &list_type) && !val_is(r, &tuple_type)) {
    TFS_DECREF(r);
    rt_throw(ERR_VALUE, "custom_gradient function expected to return %d gradients, but returned 1 instead.", e->nin);
  }
  tfs_i64 n;
  const Val *it;
  seq_of(r, &n, &it);
  if (n != e->nin) {
    TFS_DECREF(r);
    rt_throw(ERR_VALUE, "custom_gradient function expected to return %d gradients, but returned %d instead.", e->nin, (int)n);
  }
  for (int i = 0; i < e->nin; i++) dx[i] = it[i].tag == VT_NONE ? val_undef() : val_incref(it[i]);
  TFS_DECREF(r);
}

/* A stand-in for an input the entry kept only the shape of (E_IN_SHAPE): no data, never freed. */
static Val shape_stub(Tensor *st, const TapeShape *s) {
  memset(st, 0, sizeof *st);
  st->hdr.rc = (tfs_i64)1 << 40;
  st->hdr.type = &tensor_type;
  st->dtype = s->dtype;
  st->rank = s->rank;
  st->size = 1;
  for (int d = s->rank - 1; d >= 0; d--) {
    st->shape[d] = s->shape[d];
    st->strides[d] = st->size;
    st->size *= s->shape[d];
  }
  return val_obj(st);
}

/* What one step of the sweep owns while a gradient function runs: an error raised there releases it. */
typedef struct SweepStep {
  Val *dy, *dx, *dybuf, *dxbuf;
  int ndy, ndx;
  Val *ins, *inbuf;
  Tensor *stubs, *stubbuf;
} SweepStep;

static void sweep_step_release(void *p) {
  SweepStep *st = p;
  for (int j = 0; st->dy && j < st->ndy; j++) TFS_DECREF(st->dy[j]);
  for (int j = 0; st->dx && j < st->ndx; j++) TFS_DECREF(st->dx[j]);
  if (st->dy != st->dybuf) free(st->dy);
  if (st->dx != st->dxbuf) free(st->dx);
  if (st->ins != st->inbuf) free(st->ins);
  if (st->stubs != st->stubbuf) free(st->stubs);
  st->dy = st->dx = st->ins = NULL;
  st->stubs = NULL;
  st->ndy = st->ndx = 0;
}

static void ptrmap_release(void *m) { ptrmap_free(m); }
static void gradsync_release(void *s) { gradsync_free(s); }

/* The plan of a sweep that starts the gradients' all-reduce as it goes (gradsync.h), or NULL. */
static GradSync *sync_plan(Tape *t, int ntarget, const Val *targets, int nsrc, const Val *sources, const PtrMap *reach) {
  uintptr_t *k = malloc(sizeof(uintptr_t) * (size_t)(ntarget + nsrc + 1));
  if (!k) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(k);
  for (int i = 0; i < ntarget; i++) k[i] = is_float_val(targets[i]) ? key_of(targets[i]) : 0;
  for (int i = 0; i < nsrc; i++) k[ntarget + i] = key_of(sources[i]);
  GradSync *s = gradsync_plan(t, ntarget, k, nsrc, sources, k + ntarget, reach);
  rt_unhold(mark);
  free(k);
  return s;
}

static void gradient_sweep(Tape *t, int ntarget, const Val *targets, const Val *out_grads, int nsrc, const Val *sources,
                   bool zeros, bool sync, Val *out) {
  /* values downstream of the sources: only they need gradients */
  PtrMap reach = {0}, grads = {0};
  int hmark = rt_hold_fn(ptrmap_release, &reach);   /* a failing gradient function leaks neither map */
  rt_hold_fn(ptrmap_release, &grads);
  for (int i = 0; i < nsrc; i++)
    if (key_of(sources[i])) ptrmap_put(&reach, kp(key_of(sources[i])), val_undef());
  for (int i = 0; i < t->n; i++) {
    TapeEntry *e = &t->e[i];
    bool any = false;
    for (int j = 0; j < e->nin && !any; j++) any = ptrmap_find(&reach, kp(tape_entry_key(e)[j])) >= 0;
    if (any)
      for (int j = 0; j < e->nout; j++) ptrmap_put(&reach, kp(tape_entry_key(e)[e->nin + j]), val_undef());
  }
  GradSync *gs = sync ? sync_plan(t, ntarget, targets, nsrc, sources, &reach) : NULL;
  if (gs) rt_hold_fn(gradsync_release, gs);
  t->busy = true;
  for (int i = 0; i < ntarget; i++) {
    uintptr_t k = key_of(targets[i]);
    if (!k || !is_float_val(targets[i]) || ptrmap_find(&reach, kp(k)) < 0) continue;
    accumulate(&grads, kp(k), seed_of(targets[i], out_grads ? out_grads[i] : val_undef(), i));
  }
  Val dybuf[4], dxbuf[8], inbuf[8];
  Tensor stubbuf[8];
  for (int i = t->n - 1; i >= 0 && grads.n; i--) {
    if (gs && i + 1 < t->n) gradsync_step(gs, i + 1, &grads);   /* entry i + 1 is done: start what is final */
    TapeEntry *e = &t->e[i];
    bool any = false;
    for (int j = 0; j < e->nout && !any; j++) any = ptrmap_find(&grads, kp(tape_entry_key(e)[e->nin + j])) >= 0;
    if (!any) continue;
    any = false;
    for (int j = 0; j < e->nin && !any; j++) any = ptrmap_find(&reach, kp(tape_entry_key(e)[j])) >= 0;
    if (!any) continue;
    SweepStep step = {NULL, NULL, dybuf, dxbuf, 0, 0, NULL, inbuf, NULL, stubbuf};
    int smark = rt_hold_fn(sweep_step_release, &step);
    Val *dy = e->nout <= 4 ? dybuf : malloc(sizeof(Val) * (size_t)e->nout);
    step.dy = dy;
    Val *dx = e->nin <= 8 ? dxbuf : malloc(sizeof(Val) * (size_t)e->nin);
    step.dx = dx;
    if (!dy || !dx) rt_throw(ERR_MEMORY, "out of memory");
    for (int j = 0; j < e->nin; j++) dx[j] = val_undef();
    step.ndx = e->nin;
    for (int j = 0; j < e->nout; j++) {
      int s = ptrmap_find(&grads, kp(tape_entry_key(e)[e->nin + j]));
      /* several outputs: the ones no gradient reaches contribute zeros (such entries hold their outputs) */
      dy[j] = s >= 0                                                       ? val_incref(grads.v[s])
              : !e->op || (e->nout > 1 && !(drops_of[e->op->id] & G_DY_UNDEF)) ? op_apply1(OP_ZEROS_LIKE, tape_entry_out(e)[j])
                                                                             : val_undef();
      step.ndy = j + 1;
    }
    if (!e->op) {
      custom_grads(e, dy, dx);
    } else {
      GradFn fn = grad_fn_of(e->op->id);
      if (!fn) rt_throw(ERR_RUNTIME, "No gradient defined for operation '%s' (op type: %s)", e->op->graph_name, e->op->graph_name);
      OpAttrs at;
      at.n = e->nattr;
      memcpy(at.v, tape_entry_attr(e), sizeof(Val) * (size_t)e->nattr);
      const Val *in = e->in;
      Val *ins = NULL;
      Tensor *stubs = NULL;
      if (e->keep & E_IN_SHAPE) {   /* inputs kept as shapes: the gradient reads only those */
        ins = e->nin <= 8 ? inbuf : malloc(sizeof(Val) * (size_t)e->nin);
        step.ins = ins;
        stubs = e->nin <= 8 ? stubbuf : malloc(sizeof(Tensor) * (size_t)e->nin);
        step.stubs = stubs;
        if (!ins || !stubs) rt_throw(ERR_MEMORY, "out of memory");
        for (int j = 0; j < e->nin; j++) ins[j] = tape_entry_shp(e)[j].rank == -2 ? e->in[j] : shape_stub(&stubs[j], &tape_entry_shp(e)[j]);
        in = ins;
      }
      /* Higher order: a Variable input is held as the value read at the op.
       * A tape recording this gradient must see that value as a read of the
       * Variable (TF's ReadVariableOp output), or the second derivative
       * misses every path through it (d2(x*x*x)/dx2 gave 2, not 6). */
      if (!(e->keep & (E_IN_SHAPE | E_IN_NONE)) && tape_any_recording())
        for (int j = 0; j < e->nin; j++) {
          uintptr_t key = tape_entry_key(e)[j];
          if (key && !(key & 1) && val_is_tensor(e->in[j])) {
            Val var = val_obj((Obj *)key);
            tape_record(&op_defs[OP_READ_VARIABLE], 1, &var, NULL, e->in[j]);
          }
        }
      GradCall gc = {e->op, e->nin, e->nout, in, tape_entry_out(e), dy, &at};
      grad_run(fn, &gc, dx);
    }
    rt_unhold(smark);
    if (step.ins && step.ins != inbuf) free(step.ins);
    if (step.stubs && step.stubs != stubbuf) free(step.stubs);
    for (int j = 0; j < e->nout; j++) TFS_DECREF(dy[j]);
    for (int j = 0; j < e->nin; j++) {
      if (dx[j].tag == VT_UNDEF || dx[j].tag == VT_NONE) continue;
      if (tape_entry_key(e)[j] && ptrmap_find(&reach, kp(tape_entry_key(e)[j])) >= 0) accumulate(&grads, kp(tape_entry_key(e)[j]), dx[j]);
      else TFS_DECREF(dx[j]);
    }
    if (dy != dybuf) free(dy);
    if (dx != dxbuf) free(dx);
  }
  if (gs) gradsync_end(gs, &grads);
  t->busy = false;
  for (int i = 0; i < nsrc; i++) {
    Obj *k = obj_of(sources[i]);
    /* sources the tape never watched (an untrainable Variable) are unconnected,
     * unless the source is a target itself: its gradient is the seed (TF's
     * sources_that_are_targets; `tape.gradient(v, v)` is ones) */
    bool is_target = false;
    for (int j = 0; j < ntarget && k && !is_target; j++) is_target = key_of(targets[j]) == kid(k);
    int s = is_float_val(sources[i]) && (is_target || tracks_key(t, k)) ? ptrmap_find(&grads, kp(kid(k))) : -1;
    if (s >= 0) out[i] = val_incref(grads.v[s]);
    else if (zeros && k) out[i] = op_apply1(OP_ZEROS_LIKE, sources[i]);
    else out[i] = val_none();
  }
  rt_unhold(hmark);
  gradsync_free(gs);
  ptrmap_free(&reach);
  ptrmap_free(&grads);
}

void tape_gradient(Tape *t, int ntarget, const Val *targets, const Val *out_grads, int nsrc, const Val *sources,
                   bool zeros, Val *out) {
  bool sync = t->sync;
  t->sync = false;
  /* a failing gradient (no gradient defined, a shape error) leaves the tape usable */
  RtTry tr;
  rt_try_push(&tr);
  if (setjmp(tr.jb) == 0) {
    gradient_sweep(t, ntarget, targets, out_grads, nsrc, sources, zeros, sync, out);
    rt_try_pop(&tr);
  } else {
    t->busy = false;
    rt_rethrow(&tr);
  }
}
