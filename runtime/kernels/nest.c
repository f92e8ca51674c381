/* nest.c — nested structures of values (lists, tuples, dicts, composites) and their leaf markers: map, unflatten. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/nest.h"
#include "object/object.h"

NestComposite nest_composite;

typedef struct NestLeaf { Obj hdr; int index; } NestLeaf;

static void nest_leaf_free(Obj *o) { free(o); }
static void nest_leaf_repr(StrBuf *b, Val v) { sb_printf(b, "<%d>", ((NestLeaf *)v.u.o)->index + 1); }

const Type nest_leaf_type = {.name = "leaf", .free = nest_leaf_free, .repr = nest_leaf_repr};

Val nest_leaf(int index) {
  NestLeaf *l = obj_new(&nest_leaf_type, sizeof(NestLeaf));
  l->index = index;
  return val_obj(l);
}

bool nest_is_leaf(Val tmpl, int *index) {
  if (!val_is(tmpl, &nest_leaf_type)) return false;
  *index = ((NestLeaf *)tmpl.u.o)->index;
  return true;
}

typedef struct NestPacked { Obj hdr; Val spec, comps; } NestPacked;

static void nest_packed_free(Obj *o) {
  NestPacked *p = (NestPacked *)o;
  val_decref(p->spec);
  val_decref(p->comps);
  free(o);
}

static void nest_packed_repr(StrBuf *b, Val v) {
  const NestPacked *p = (const NestPacked *)v.u.o;
  val_repr(b, p->spec);
  val_repr(b, p->comps);
}

const Type nest_packed_type = {.name = "composite", .free = nest_packed_free, .repr = nest_packed_repr};

Val nest_packed(Val spec, Val comps) {
  NestPacked *p = obj_new(&nest_packed_type, sizeof(NestPacked));
  p->spec = val_incref(spec);
  p->comps = val_incref(comps);
  return val_obj(p);
}

Val nest_packed_comps(Val v) { return ((const NestPacked *)v.u.o)->comps; }
Val nest_packed_spec(Val v) { return ((const NestPacked *)v.u.o)->spec; }

Val nest_map(Val v, Val (*fn)(void *ctx, Val elem), void *ctx) {
  if (val_is(v, &nest_packed_type)) {
    const NestPacked *p = (const NestPacked *)v.u.o;
    Val c = nest_map(p->comps, fn, ctx);
    int mark = rt_hold_val(c);
    Val r = nest_packed(p->spec, c);
    rt_unhold(mark);
    val_decref(c);
    return r;
  }
  if (nest_composite.type && val_is(v, nest_composite.type)) {   /* a composite: its flow is its one tensor */
    Val f = fn(ctx, nest_composite.flow(v));
    Val r = nest_composite.with_flow(v, f);
    val_decref(f);
    return r;
  }
  if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    tfs_i64 n;
    const Val *items;
    seq_items(v, &n, &items);
    bool list = val_is(v, &list_type);
    Val res = list ? list_new(n) : tuple_new(n);
    for (tfs_i64 i = 0; i < n; i++) {
      Val e = fn(ctx, items[i]);
      if (list) {
        list_append(res, e);
        val_decref(e);
      } else {
        ((Tuple *)res.u.o)->items[i] = e;
      }
    }
    return res;
  }
  if (val_is(v, &dict_type)) {
    Dict *d = (Dict *)v.u.o;
    Val res = dict_new();
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i])) continue;
      Val e = fn(ctx, d->vals[i]);
      dict_set(res, d->keys[i], e);
      val_decref(e);
    }
    return res;
  }
  return val_incref(v);
}

static Val unflatten_elem(void *ctx, Val e) { return nest_unflatten(e, (const Val *)ctx); }

Val nest_unflatten(Val tmpl, const Val *leaves) {
  int idx;
  if (nest_is_leaf(tmpl, &idx)) return val_incref(leaves[idx]);
  Val r = nest_map(tmpl, unflatten_elem, (void *)leaves);
  if (!val_is(r, &nest_packed_type)) return r;
  /* a composite: its spec rebuilds the value from the filled components */
  const NestPacked *p = (const NestPacked *)r.u.o;
  int mark = rt_hold_val(r);
  tfs_i64 n;
  const Val *items;
  seq_items(p->comps, &n, &items);
  Val list = list_new(n);
  rt_hold_val(list);
  for (tfs_i64 i = 0; i < n; i++) list_append(list, items[i]);
  Val f = rt_getattr(p->spec, "_from_components");
  rt_hold_val(f);
  Val v = rt_call(f, 1, &list, NULL);
  rt_unhold(mark);
  val_decref(f);
  val_decref(list);
  val_decref(r);
  return v;
}
