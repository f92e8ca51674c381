/* module.c — module objects (compiled and native), the module table and imports, and the builtins scope. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hooks.h"
#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"


static Module **mod_table;   /* index -> compiled module (one reference each, kept for the program's life) */
static int mod_count;

static Module *module_alloc(const char *name) {
  Module *m = obj_new(&module_type, sizeof(Module));
  m->name = name;
  m->nglobals = 0;
  m->names = NULL;
  m->globals = NULL;
  m->getattr = NULL;
  m->init = NULL;
  m->tfqual = NULL;
  m->as_class = NULL;
  return m;
}

Val module_native(const char *name, Val (*getattr)(const char *name)) {
  Module *m = module_alloc(name);
  m->getattr = getattr;
  return val_obj(m);
}

void rt_register_module(int index, const char *name, void (*init)(Val module), int nglobals,
                        const char *const *names, Val *globals) {
  if (index < 0) rt_throw(ERR_IMPORT, "bad module index %d", index);
  if (index >= mod_count) {
    Module **t = realloc(mod_table, sizeof(Module *) * (size_t)(index + 1));
    if (!t) rt_throw(ERR_MEMORY, "out of memory");
    for (int i = mod_count; i <= index; i++) t[i] = NULL;
    mod_table = t;
    mod_count = index + 1;
  }
  Module *m = module_alloc(name);
  m->init = init;
  m->nglobals = nglobals;
  m->names = names;
  m->globals = globals;
  if (mod_table[index]) val_decref(val_obj(mod_table[index]));
  mod_table[index] = m;
}

Val rt_import(int index) {
  if (index < 0 || index >= mod_count || !mod_table[index]) rt_throw(ERR_IMPORT, "no module with index %d", index);
  Module *m = mod_table[index];
  if (m->init) {   /* cleared first: a circular import sees the partly initialised module */
    void (*init)(Val) = m->init;
    m->init = NULL;
    int at = rt_cur_loc;   /* the importer's line again afterwards: an error after a first-use import is located there */
    init(val_obj(m));
    rt_cur_loc = at;
  }
  return val_incref(val_obj(m));
}

static void module_free(Obj *o) { free(o); }   /* globals belong to the generated code */

/* The name a module shows: its global __name__ when it sets one (numpy_linalg.tfs is
 * 'numpy.linalg', as Python's module.__name__ is), else the name it was imported by. */
const char *module_shown_name(Val mod) {
  Module *m = (Module *)mod.u.o;
  for (int i = 0; i < m->nglobals; i++)
    if (!strcmp(m->names[i], "__name__") && val_is(m->globals[i], &str_type)) return str_cstr(m->globals[i]);
  return m->name;
}

static void module_repr(StrBuf *b, Val v) {
  Module *m = (Module *)v.u.o;
  if (m->getattr) sb_printf(b, "<module '%s' (built-in)>", m->name);
  else sb_printf(b, "<module '%s'>", module_shown_name(v));
}

static Val module_getattr(Val self, const char *name) {
  Module *m = (Module *)self.u.o;
  if (m->getattr) {
    Val v = m->getattr(name);
    if (!val_is_undef(v)) return v;
  }
  for (int i = 0; i < m->nglobals; i++)
    if (!strcmp(m->names[i], name)) return val_incref(m->globals[i]);   /* VT_UNDEF when unbound */
  if (!strcmp(name, "__name__")) return str_from_cstr(m->name);
  if (m->tfqual) {   /* tf.keras.datasets: a native part of tf.keras registered in the tf table */
    char q[160];
    snprintf(q, sizeof q, "%s.%s", m->tfqual, name);
    return rt_obj_hooks.tf_lookup ? rt_obj_hooks.tf_lookup(q) : val_undef();
  }
  return val_undef();
}

static void module_setattr(Val self, const char *name, Val v) {
  Module *m = (Module *)self.u.o;
  for (int i = 0; i < m->nglobals; i++) {
    if (!strcmp(m->names[i], name)) {
      Val old = m->globals[i];
      m->globals[i] = val_incref(v);
      val_decref(old);
      return;
    }
  }
  rt_throw(ERR_ATTRIBUTE, "module '%s' has no attribute '%s'", module_shown_name(self), name);
}

const Type module_type = {
  .name = "module",
  .free = module_free,
  .repr = module_repr,
  .getattr = module_getattr,
  .setattr = module_setattr,
  .hash = obj_identity_hash,
};

Val rt_module_attr(Val module, const char *name) {
  if (!val_is(module, &module_type)) return rt_getattr(module, name);
  Val v = module_getattr(module, name);
  if (val_is_undef(v)) rt_throw(ERR_IMPORT, "cannot import name '%s' from '%s'", name, ((Module *)module.u.o)->name);
  return v;
}

Val rt_builtin(const char *name) {
  Val v = rt_obj_hooks.builtin ? rt_obj_hooks.builtin(name) : val_undef();
  if (val_is_undef(v)) rt_throw(ERR_NAME, "name '%s' is not defined", name);
  return v;
}

Val module_import_library(const char *name) {
  for (int i = 0; i < mod_count; i++) {
    const RtFile *f = rt_file_get(i);
    if (!mod_table[i] || !f || !f->library || strcmp(mod_table[i]->name, name)) continue;
    mod_table[i]->tfqual = mod_table[i]->name;
    return rt_import(i);
  }
  return val_undef();
}

/* The name of compiled module `index` ('__main__' for the program), or NULL. */
const char *module_name(int index) {
  return index >= 0 && index < mod_count && mod_table[index] ? mod_table[index]->name : NULL;
}

/* A global of compiled module `index` by name (borrowed), VT_UNDEF when it has none (tfsc --onnx). */
Val module_global(int index, const char *name) {
  if (index < 0 || index >= mod_count || !mod_table[index]) return val_undef();
  Module *m = mod_table[index];
  for (int i = 0; i < m->nglobals; i++)
    if (m->names[i] && !strcmp(m->names[i], name)) return m->globals[i];
  return val_undef();
}
