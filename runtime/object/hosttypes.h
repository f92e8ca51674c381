/* hosttypes.h — the built-in types' methods, type objects, the exception hierarchy and user classes (object layer). */
#ifndef TFS_HOSTTYPES_H
#define TFS_HOSTTYPES_H

#include "object/object.h"

/* Bound methods of host values ('abc'.upper); VT_UNDEF when no such method. */
Val strmethods_get(Val self, const char *name);
Val strmore_get(Val self, const char *name);     /* strmore.c: casefold, translate, ... (strmethods_get asks it) */
Val str_maketrans_fn(void);                      /* str.maketrans */
int str_case_of(uint32_t c, uint32_t *other);    /* 'u' upper, 'l' lower (*other: the other case), 0 caseless */
Val numextra_get(Val v, const char *name);       /* numextra.c: to_bytes, bit_count, as_integer_ratio, ...; VT_UNDEF: none */
Val int_from_bytes_fn(bool as_bool);             /* int.from_bytes (bool.from_bytes: a bool) */
Val dict_fromkeys_fn(void);                      /* dict.fromkeys */
Val listmethods_get(Val self, const char *name);
Val dictmethods_get(Val self, const char *name);
Val setmethods_get(Val self, const char *name);

/* Builtin type objects and exception classes by name (int, str, ValueError, ...);
 * borrowed immortal objects, or VT_UNDEF. */
Val types_lookup(const char *name);
bool types_isinstance(Val x, Val cls);           /* cls: one type object */
bool types_issubclass(Val sub, Val cls);         /* both type objects (TypeError otherwise) */
/* Exception classes (exceptions.c): by name (tf_errors: the tf.errors ones),
 * and calling one: ValueError("msg"). */
Val exc_lookup(const char *name, bool tf_errors);
Val exc_construct(Val cls, int n, const Val *args, const Kw *kw);
Val exc_ag_recreate(Val orig, Val text, Val cause);   /* AutoGraph's re-created exception (rt_ag_reraise) */
/* User classes (classes.c): attribute lookup along the chain (owned or
 * VT_UNDEF), calling a class, class attributes, freeing one; instance
 * attribute access shared with exception instances; `x in obj` through
 * __contains__ (-1: none); the builtins super, property, staticmethod and
 * classmethod. */
Val class_find(TypeObj *c, const char *name);
Val class_instantiate(TypeObj *c, int n, const Val *args, const Kw *kw);
Val class_getattr(TypeObj *c, const char *name);
Val class_builtin_attr(TypeObj *b, const char *name);
/* descr.c: T.name for a builtin type's non-dunder method or data attribute (bytes.decode, range.start); VT_UNDEF: none */
Val descr_get(TypeObj *t, const char *name);  /* dict.__setitem__, tuple.__new__ ...: a builtin class's methods taking the instance */
void class_free(TypeObj *c);
const char *class_module_intern(const char *name);   /* a module name kept for the program's life */
Val inst_new(TypeObj *cls);
Val inst_base(Val v);                                /* the builtin value a dict/list/tuple/... subclass instance extends (borrowed), else v */
Val inst_getattr_dict(Val self, Val dict, const char *name);
bool inst_setattr_dict(Val self, Val *dict, const char *name, Val v);
int inst_contains(Val self, Val x);
Val class_super(Val self, int n, const Val *args, const Kw *kw);
Val class_property(Val self, int n, const Val *args, const Kw *kw);
Val class_staticmethod(Val self, int n, const Val *args, const Kw *kw);
Val class_classmethod(Val self, int n, const Val *args, const Kw *kw);
/* del obj.name on an instance: raises when name is a class's property (no deleters). */
bool class_delattr_check(Val self, const char *name);   /* true: the class's __delattr__ ran */
/* A builtin method for a native class's dict: bound like a function, so it
 * receives the instance as args[0]; `state` reaches it as its self slot. */
Val class_native_method(const char *name, BuiltinFn fn, Val state);
int exc_exit_status(Val exc);                         /* an uncaught SystemExit's process status */
void exc_set_args(Val exc, int n, const Val *args);   /* BaseException.__init__ */
void types_dict_merge(Val d, Val src);           /* d.update(src): a dict or an iterable of pairs */
void list_sort(Val list, Val key, bool reverse);  /* stable; key may be VT_NONE */


#endif
