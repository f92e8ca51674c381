/* modules.h — what the runtime needs from the stdlib: the tf/ag modules, native modules, builtin methods. */
#ifndef TFS_MODULES_H
#define TFS_MODULES_H

#include "object.h"

/* The `tf` and `ag` modules (owned references), provided by their own files. */
Val tf_module(void);
Val kerasrt_module(void);   /* `_keras`: native helpers of stdlib/keras*.tfs */
/* .npz files of stored .npy members arr_0.npy ... (np.savez's layout): write a
 * list of arrays atomically, read one back as a list of ndarrays; `what`
 * starts error messages ('load_weights'). */
void npz_write(const char *what, const char *path, Val list);
Val npz_read(const char *what, const char *path);
/* tf.saved_model.NAME (savedmodel.c), VT_UNDEF when absent. */
Val savedmodel_lookup(const char *name);
/* tf.<qual> ("keras.datasets"), or VT_UNDEF: the fallback of stdlib .tfs modules standing for tf submodules. */
Val tfmod_lookup(const char *qual);
Val ag_module(void);
/* ag.ret (agmod.c) and the names of TF's converted-code layout (agscope.c). */
Val ag_ret(Val self, int n, const Val *args, const Kw *kw);
Val ag_FunctionScope(Val self, int n, const Val *args, const Kw *kw);
Val ag_ConversionOptions(Val self, int n, const Val *args, const Kw *kw);
Val ag_ld(Val self, int n, const Val *args, const Kw *kw);
void ag_check_defined(Val v);   /* raises UnboundLocalError for an ag.Undefined (agmod.c) */
Val ag_autograph_artifact(Val self, int n, const Val *args, const Kw *kw);
Val ag_converted_call(Val self, int n, const Val *args, const Kw *kw);
/* range(t) with a traced tensor t: tf.range(...) (agmod.c); VT_UNDEF when no argument is traced. */
Val ag_range_tensor(int n, const Val *args);
/* enumerate(t, start) / zip(t1, ...) with a traced tensor among the sources
 * while tracing: a staged iterable that ag.for_stmt makes a graph loop
 * (agmod.c); VT_UNDEF otherwise. */
Val ag_staged_iter(bool is_zip, int n, const Val *args, Val start);

/* Native stdlib modules (`time`, `timeit`) for imports with no .tfs file of
 * that name; VT_UNDEF when unknown. */
Val stdlib_native_module(const char *name);
void native_noargs(const char *what, int n, const Kw *kw);   /* TypeError unless called with no arguments (timemod.c) */
Val gcmod_module(void);                          /* `gc` (gcmod.c) */

/* tf.summary.NAME (summary.c) and tf.io.NAME (graphdefobj.c); VT_UNDEF when unknown. */
Val summary_lookup(const char *name);
Val tfio_lookup(const char *name);
Val eventread_lookup(const char *qual);
Val tfrwriter_lookup(const char *name);   /* tf.io.TFRecordWriter/TFRecordOptions (tfrwriter.c) */   /* tf.compat (summary_iterator), tf.make_ndarray (eventread.c) */
/* concrete.graph.as_graph_def(): a GraphDef value holding g (graphdefobj.c). */
struct Graph;
Val graphdef_obj_new(struct Graph *g);

/* Bound methods of host values ('abc'.upper); VT_UNDEF when no such method. */
Val strmethods_get(Val self, const char *name);
Val listmethods_get(Val self, const char *name);
Val dictmethods_get(Val self, const char *name);
Val setmethods_get(Val self, const char *name);

/* Builtin type objects and exception classes by name (int, str, ValueError, ...);
 * borrowed immortal objects, or VT_UNDEF. */
Val types_lookup(const char *name);
bool types_isinstance(Val x, Val cls);           /* cls: one type object */
/* Exception classes (exceptions.c): by name (tf_errors: the tf.errors ones),
 * and calling one: ValueError("msg"). */
Val exc_lookup(const char *name, bool tf_errors);
Val exc_construct(Val cls, int n, const Val *args, const Kw *kw);
/* User classes (classes.c): attribute lookup along the chain (owned or
 * VT_UNDEF), calling a class, class attributes, freeing one; instance
 * attribute access shared with exception instances; `x in obj` through
 * __contains__ (-1: none); the builtins super, property, staticmethod and
 * classmethod. */
Val class_find(TypeObj *c, const char *name);
Val class_instantiate(TypeObj *c, int n, const Val *args, const Kw *kw);
Val class_getattr(TypeObj *c, const char *name);
void class_free(TypeObj *c);
Val inst_new(TypeObj *cls);
Val inst_getattr_dict(Val self, Val dict, const char *name);
bool inst_setattr_dict(Val self, Val *dict, const char *name, Val v);
int inst_contains(Val self, Val x);
Val class_super(Val self, int n, const Val *args, const Kw *kw);
Val class_property(Val self, int n, const Val *args, const Kw *kw);
Val class_staticmethod(Val self, int n, const Val *args, const Kw *kw);
Val class_classmethod(Val self, int n, const Val *args, const Kw *kw);
/* del obj.name on an instance: raises when name is a class's property (no deleters). */
void class_delattr_check(Val self, const char *name);
/* A builtin method for a native class's dict: bound like a function, so it
 * receives the instance as args[0]; `state` reaches it as its self slot. */
Val class_native_method(const char *name, BuiltinFn fn, Val state);
/* tf.Module (tfmodule.c): the class object (borrowed, immortal) and its test. */
Val tfmodule_class(void);
bool tfmodule_is(Val v);
void exc_set_args(Val exc, int n, const Val *args);   /* BaseException.__init__ */
void types_dict_merge(Val d, Val src);           /* d.update(src): a dict or an iterable of pairs */
void list_sort(Val list, Val key, bool reverse);  /* stable; key may be VT_NONE */

#endif
