/* func.c — callables: compiled functions (cells, recursion limit), builtins, bound methods; the iterator object. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "object/object.h"
#include "object/hooks.h"
#include "object/value.h"

__thread int rt_call_depth;

/* C stack guard: deep recursion must raise RecursionError before the native
 * stack runs out, whatever the frame sizes of the generated code are. */
static uintptr_t func_stack_base;
static size_t func_stack_budget;

void rt_stack_bounds(uintptr_t *base, size_t *budget, bool set) {
  if (set) {
    func_stack_base = *base;
    func_stack_budget = *budget;
  } else {
    *base = func_stack_base;
    *budget = func_stack_budget;
  }
}

bool rt_stack_low(void) {
  uintptr_t here = (uintptr_t)__builtin_frame_address(0);
  if (!func_stack_base) {
    struct rlimit rl;
    size_t lim = 8u << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < ((rlim_t)1 << 32))
      lim = (size_t)rl.rlim_cur;
    func_stack_base = here;
    func_stack_budget = lim - lim / 4 - (256u << 10);   /* keep room for the error path itself */
  }
  if (here > func_stack_base) return false;
  uintptr_t used = func_stack_base - here;
  if (used > ((uintptr_t)1 << 32)) return false;   /* another thread's stack: no information */
  return used > func_stack_budget;
}

/* The one recursion guard: calls of .tfs functions and every runtime walk
 * that recurses on data (repr, ==, ordering, hash) count against the same
 * limit, as they share Python's recursion limit. */
void rt_rec_enter(const char *where) {
  RT_CHECK_INTERRUPT();
  if (rt_call_depth >= RT_RECURSION_LIMIT || rt_stack_low())
    rt_throw(ERR_RECURSION, "maximum recursion depth exceeded%s", where);
  rt_call_depth++;
}

void rt_rec_leave(void) { rt_call_depth--; }

/* ---- compiled functions ------------------------------------------------------------- */

Val rt_func_new(const FuncInfo *info, int ndefaults, const Val *defaults, int ncells, Obj *const *cells) {
  Func *f = obj_new(&func_type, sizeof(Func));
  f->info = info;
  f->ndefaults = ndefaults;
  f->ncells = ncells;
  f->defaults = ndefaults ? malloc(sizeof(Val) * (size_t)ndefaults) : NULL;
  f->cells = ncells ? malloc(sizeof(Obj *) * (size_t)ncells) : NULL;
  f->dict = val_undef();
  f->conv = NULL;
  f->owner = NULL;
  if ((ndefaults && !f->defaults) || (ncells && !f->cells)) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < ndefaults; i++) f->defaults[i] = val_incref(defaults[i]);
  for (int i = 0; i < ncells; i++) {
    f->cells[i] = cells[i];
    cells[i]->rc++;
  }
  return val_obj(f);
}

static void func_free(Obj *o) {
  Func *f = (Func *)o;
  for (int i = 0; i < f->ndefaults; i++) val_decref(f->defaults[i]);
  for (int i = 0; i < f->ncells; i++) val_decref(val_obj(f->cells[i]));
  val_decref(f->dict);
  if (f->conv) val_decref(val_obj(f->conv));
  free(f->defaults);
  free(f->cells);
  free(f);
}

static void func_repr(StrBuf *b, Val v) {
  sb_printf(b, "<function %s at %p>", ((Func *)v.u.o)->info->name, (void *)v.u.o);
}

/* While tracing, a function runs as its AutoGraph-converted twin (docs/autograph.md:
 * every function reached from a tf.function is converted).  The twin's
 * free variable i is this function's cell info->cellmap[i]. */
static Func *func_converted(Func *f) {
  if (f->conv) return f->conv;
  const FuncInfo *ci = f->info->converted;
  Func *c = obj_new(&func_type, sizeof *c);
  c->info = ci;
  c->dict = val_undef();
  c->conv = NULL;
  c->owner = f->owner;
  c->ndefaults = 0;
  c->defaults = NULL;
  int nc = f->info->ncellmap;
  c->ncells = nc;
  c->cells = nc ? calloc((size_t)nc, sizeof *c->cells) : NULL;
  for (int i = 0; i < nc; i++) {
    int j = f->info->cellmap[i];
    if (j < 0 || j >= f->ncells) rt_throw(ERR_RUNTIME, "internal error: converted '%s' has an unknown free variable", ci->name);
    c->cells[i] = f->cells[j];
    c->cells[i]->rc++;
  }
  /* Defaults are bound by the original before the call: the twin needs none. */
  f->conv = c;
  return c;
}

static Val func_call(Val self, int n, const Val *args, const Kw *kw) {
  Func *f = (Func *)self.u.o;
  const FuncInfo *info = f->info;
  Val bound[info->nparams > 0 ? info->nparams : 1];
  Val *argv = bound;
  bool ext = info->nkwonly || info->varargs || info->varkw || info->nposonly;
  int mark = -1;
  if (ext) {
    args_bind_ext(info, f->ndefaults, f->defaults, n, args, kw, bound);
    /* the *args tuple and **kwargs dict are ours until the call returns */
    if (info->varargs) mark = rt_hold_val(bound[info->nparams - info->nkwonly - 1 - info->varkw]);
    if (info->varkw) {
      int m = rt_hold_val(bound[info->nparams - 1]);
      if (mark < 0) mark = m;
    }
  } else if ((!kw || kw->n == 0) && n == info->nparams) {
    argv = (Val *)args;
  } else {
    args_bind(info->name, info->nparams, info->params, f->ndefaults, f->defaults, n, args, kw, bound);
  }
  Val r = info->generator ? gen_new(self, argv, info->nparams) : func_call_bound(self, argv);
  if (ext) {
    rt_unhold(mark);
    args_unbind(info, bound);
  }
  return r;
}

/* Run f on arguments already bound to its parameters (borrowed): the
 * tf.function tracer binds once, then calls through here. */
Val func_call_bound(Val self, Val *argv) {
  Func *f = (Func *)self.u.o;
  const FuncInfo *info = f->info;
  if (info->generator) return gen_new(self, argv, info->nparams);
  rt_rec_enter("");
  Val r = info->converted && rt_obj_hooks.tracing && rt_obj_hooks.tracing() ? info->converted->code(func_converted(f), argv) : info->code(f, argv);
  rt_rec_leave();
  return r;
}

/* The parameter names, "*args"/"**kw" marked (tfs' stand-in for inspect:
 * tf.keras passes `training` only to a call that takes it, as Keras does). */
static Val func_param_names(const FuncInfo *info) {
  Val t = tuple_new(info->nparams);
  int first_kw = info->nparams - info->varkw, star = info->varargs ? info->nparams - info->nkwonly - info->varkw - 1 : -1;
  for (int i = 0; i < info->nparams; i++) {
    char buf[160];
    snprintf(buf, sizeof buf, "%s%s", i == star ? "*" : i >= first_kw ? "**" : "", info->params[i]);
    ((Tuple *)t.u.o)->items[i] = str_from_cstr(buf);
  }
  return t;
}

/* Python's __defaults__ (the positional parameters' defaults, or None) and __kwdefaults__ (the keyword-only
 * ones by name, or None): Keras lists a failing layer call's unbound parameters with them. */
static Val func_defaults(const Func *f, bool kwonly) {
  const FuncInfo *info = f->info;
  int nkw = info->nkwonly, nposdef = f->ndefaults - nkw;
  if (!kwonly) {
    if (nposdef <= 0) return val_none();
    Val t = tuple_new(nposdef);
    for (int i = 0; i < nposdef; i++) ((Tuple *)t.u.o)->items[i] = val_incref(f->defaults[i]);
    return t;
  }
  int k0 = info->nparams - nkw - info->varkw;
  Val d = val_undef();
  for (int i = 0; i < nkw && nposdef >= 0; i++)
    if (!val_is_undef(f->defaults[nposdef + i])) dict_set_str(&d, info->params[k0 + i], f->defaults[nposdef + i]);
  return val_is_undef(d) ? val_none() : d;
}

static Val func_getattr(Val self, const char *name) {
  Func *f = (Func *)self.u.o;
  Val own = dict_get_str(f->dict, name);   /* f.__name__ = ... (functools.wraps) wins */
  if (!val_is_undef(own)) return own;
  if (!strcmp(name, "__qualname__")) return str_from_cstr(f->info->name);
  if (!strcmp(name, "__name__")) {
    const char *dot = strrchr(f->info->name, '.');   /* methods: 'A.f' */
    return str_from_cstr(dot ? dot + 1 : f->info->name);
  }
  if (!strcmp(name, "__tfs_params__")) return func_param_names(f->info);
  if (!strcmp(name, "__defaults__")) return func_defaults(f, false);
  if (!strcmp(name, "__kwdefaults__")) return func_defaults(f, true);
  return val_undef();
}

static void func_setattr(Val self, const char *name, Val v) { dict_set_str(&((Func *)self.u.o)->dict, name, v); }

/* The cycle collector's view (gc.c).  The class a method was defined in is a
 * borrowed back-pointer: it keeps the class reachable while the method is. */
static void func_traverse(Obj *o, GcVisit visit, void *arg) {
  Func *f = (Func *)o;
  for (int i = 0; i < f->ndefaults; i++) visit(f->defaults[i], true, arg);
  for (int i = 0; i < f->ncells; i++)
    if (f->cells && f->cells[i]) visit(val_obj(f->cells[i]), true, arg);
  visit(f->dict, true, arg);
  if (f->conv) visit(val_obj(&f->conv->hdr), true, arg);
  if (f->owner) visit(val_obj(f->owner), false, arg);
}

static void func_clear(Obj *o) {
  Func *f = (Func *)o;
  Val d = f->dict;
  f->dict = val_undef();
  val_decref(d);
  int nd = f->ndefaults;
  f->ndefaults = 0;
  for (int i = 0; i < nd; i++) val_decref(f->defaults[i]);
}

const Type func_type = {
  .name = "function",
  .free = func_free, .traverse = func_traverse, .clear = func_clear,
  .repr = func_repr,
  .getattr = func_getattr,
  .setattr = func_setattr,
  .call = func_call,
  .hash = obj_identity_hash,
};

/* ---- cells -------------------------------------------------------------------------------- */

Obj *rt_cell_new(Val v) {
  Cell *c = obj_new(&cell_type, sizeof(Cell));
  c->v = val_incref(v);
  return &c->hdr;
}

Val rt_cell_get(Obj *cell, const char *name) {
  Cell *c = (Cell *)cell;
  if (val_is_undef(c->v))
    rt_throw(ERR_NAME, "cannot access free variable '%s' where it is not associated with a value in enclosing scope",
             name);
  return val_incref(c->v);
}

void rt_cell_set(Obj *cell, Val v) {
  Cell *c = (Cell *)cell;
  Val old = c->v;
  c->v = val_incref(v);
  val_decref(old);
}

/* Borrowed: the function keeps its cells alive. */
Obj *rt_func_cell(struct Func *f, int i) { return f->cells[i]; }

static void cell_free(Obj *o) {
  val_decref(((Cell *)o)->v);
  free(o);
}

static void cell_repr(StrBuf *b, Val v) { sb_printf(b, "<cell at %p>", (void *)v.u.o); }

static void cell_traverse(Obj *o, GcVisit visit, void *arg) { visit(((Cell *)o)->v, true, arg); }

static void cell_clear(Obj *o) {
  Cell *c = (Cell *)o;
  Val v = c->v;
  c->v = val_undef();
  val_decref(v);
}

const Type cell_type = {
  .name = "cell",
  .free = cell_free, .traverse = cell_traverse, .clear = cell_clear,
  .repr = cell_repr,
};

/* ---- builtin functions and methods ---------------------------------------------------------- */

Val builtin_new(const char *name, BuiltinFn fn, Val self, const void *data) {
  Builtin *b = obj_new(&builtin_type, sizeof(Builtin));
  b->name = name;
  b->fn = fn;
  b->self = val_incref(self);
  b->data = data;
  return val_obj(b);
}

static void builtin_free(Obj *o) {
  val_decref(((Builtin *)o)->self);
  free(o);
}

static const char *builtin_short(const Builtin *b) {
  const char *dot = strrchr(b->name, '.');
  return dot ? dot + 1 : b->name;
}

static void builtin_repr(StrBuf *b, Val v) {
  Builtin *f = (Builtin *)v.u.o;
  if (val_is_undef(f->self)) sb_printf(b, "<built-in function %s>", builtin_short(f));
  else sb_printf(b, "<built-in method %s of %s object at %p>", builtin_short(f), val_type_name(f->self),
                 (void *)f->self.u.o);
}

static Val builtin_call(Val self, int n, const Val *args, const Kw *kw) {
  Builtin *f = (Builtin *)self.u.o;
  return f->fn(f->self, n, args, kw);
}

static Val builtin_getattr(Val self, const char *name) {
  if (!strcmp(name, "__name__")) return str_from_cstr(builtin_short((Builtin *)self.u.o));
  return val_undef();
}

static void builtin_traverse(Obj *o, GcVisit visit, void *arg) { visit(((Builtin *)o)->self, true, arg); }

const Type builtin_type = {
  .name = "builtin_function_or_method",
  .free = builtin_free, .traverse = builtin_traverse,
  .repr = builtin_repr,
  .getattr = builtin_getattr,
  .call = builtin_call,
  .hash = obj_identity_hash,
};

Val bound_new(Val fn, Val self) {
  Bound *b = obj_new(&bound_type, sizeof(Bound));
  b->fn = val_incref(fn);
  b->self = val_incref(self);
  return val_obj(b);
}

static void bound_free(Obj *o) {
  Bound *b = (Bound *)o;
  val_decref(b->fn);
  val_decref(b->self);
  free(b);
}

static void bound_repr(StrBuf *b, Val v) {
  Bound *m = (Bound *)v.u.o;
  sb_puts(b, "<bound method ");
  if (val_is(m->fn, &func_type)) sb_puts(b, ((Func *)m->fn.u.o)->info->name);
  else val_repr(b, m->fn);
  sb_puts(b, " of ");
  val_repr(b, m->self);
  sb_putc(b, '>');
}

static Val bound_call(Val self, int n, const Val *args, const Kw *kw) {
  Bound *m = (Bound *)self.u.o;
  Val all[n + 1];
  all[0] = m->self;
  for (int i = 0; i < n; i++) all[i + 1] = args[i];
  return rt_call(m->fn, n + 1, all, kw);
}

static Val bound_getattr(Val self, const char *name) {
  Bound *m = (Bound *)self.u.o;
  if (!strcmp(name, "__self__")) return val_incref(m->self);
  if (!strcmp(name, "__func__")) return val_incref(m->fn);
  if (m->fn.tag == VT_OBJ && m->fn.u.o->type->getattr) {
    Val r = m->fn.u.o->type->getattr(m->fn, name);
    /* obj.f.get_concrete_function(...) of a tf.function method: the arguments include self */
    if (!strcmp(name, "get_concrete_function") && !val_is_undef(r)) {
      Val b = bound_new(r, m->self);
      val_decref(r);
      return b;
    }
    return r;
  }
  return val_undef();
}

static void bound_traverse(Obj *o, GcVisit visit, void *arg) {
  visit(((Bound *)o)->fn, true, arg);
  visit(((Bound *)o)->self, true, arg);
}

const Type bound_type = {
  .name = "method",
  .free = bound_free, .traverse = bound_traverse,
  .repr = bound_repr,
  .getattr = bound_getattr,
  .call = bound_call,
  .hash = obj_identity_hash,
};

/* ---- iterators ---------------------------------------------------------------------------------- */

Val iter_new(const char *kind, bool (*step)(Iter *it, Val *out), Val src, Val aux, tfs_i64 i, tfs_i64 n) {
  Iter *it = obj_new(&iter_type, sizeof(Iter));
  it->kind = kind;
  it->step = step;
  it->src = val_incref(src);
  it->aux = val_incref(aux);
  it->i = i;
  it->n = n;
  return val_obj(it);
}

static void iter_free(Obj *o) {
  Iter *it = (Iter *)o;
  val_decref(it->src);
  val_decref(it->aux);
  free(it);
}

static void iter_repr(StrBuf *b, Val v) { sb_printf(b, "<%s object at %p>", ((Iter *)v.u.o)->kind, (void *)v.u.o); }
static Val iter_self(Val v) { return val_incref(v); }
static bool iter_next(Val v, Val *out) {
  Iter *it = (Iter *)v.u.o;
  return it->step(it, out);
}

static void iter_traverse(Obj *o, GcVisit visit, void *arg) {
  visit(((Iter *)o)->src, true, arg);
  visit(((Iter *)o)->aux, true, arg);
}

const Type iter_type = {
  .name = "iterator",
  .free = iter_free, .traverse = iter_traverse,
  .repr = iter_repr,
  .iter = iter_self,
  .next = iter_next,
  .hash = obj_identity_hash,
};
