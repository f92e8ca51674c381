/* object.h — the host object kinds (str, list, tuple, dict, range, functions, cells, modules, builtins). */
#ifndef TFS_OBJECT_H
#define TFS_OBJECT_H

#include <signal.h>

#include "object/value.h"

extern const Type str_type, list_type, tuple_type, dict_type, range_type, slice_type, ellipsis_type, set_type;
extern const Type notimpl_type;   /* NotImplemented's type (range.c) */
Val rt_notimplemented(void);
extern const Type func_type, cell_type, module_type, builtin_type, bound_type, iter_type, complex_type;

/* complex numbers (complex.c) */
Val complex_new(double re, double im);
Val num_getattr(Val v, const char *name);   /* int/bool/float attributes (nummethods.c); VT_UNDEF when absent */
Val num_fromhex_builtin(void);              /* float.fromhex, the type's class method (nummethods.c) */
void complex_parts(Val v, double *re, double *im);
Val complex_construct(int n, const Val *args, const Kw *kw);   /* complex(real=0, imag=0) and complex('1+2j') */
Val complex_float_pow(double a, double b);                     /* a ** b for a < 0, b fractional */

/* ints in [2**63, 2**64) (u64int.c): literals and constant expressions above int64, for uint64 tensors */
extern const Type u64int_type;
Val u64int_new(tfs_u64 v);                  /* an ordinary int when v fits int64 */
bool u64int_value(Val v, tfs_u64 *out);     /* false: v is no such int */
/* ints beyond [INT64_MIN, 2**64) (bigint.c, GMP): what int64 arithmetic overflows into */
extern const Type bigint_type;
Val bigint_binop(int op, Val a, Val b);     /* ints of any kind, or one float operand; VT_UNDEF: other operands */
Val bigint_unop(int op, Val a);
Val bigint_abs(Val a);
Val bigint_parse(const char *digits, int base, bool neg);   /* int(str) beyond int64 */
Val bigint_from_double(double d);           /* int(float) beyond int64 */
double bigint_float(Val v);                 /* float(int): OverflowError when too large */
Val int_cmp_result(int op, int r);          /* CMP_* of an ordering r in -1, 0, 1 */

typedef struct Str {
  Obj hdr;
  tfs_i64 len;                /* bytes, excluding the NUL */
  tfs_u64 hash;               /* 0: not computed yet */
  char data[];                /* NUL-terminated UTF-8 */
} Str;

typedef struct List {
  Obj hdr;
  tfs_i64 len, cap;
  Val *items;                 /* owned references */
} List;

typedef struct Tuple {
  Obj hdr;
  tfs_i64 len;
  Val items[];                /* owned references */
} Tuple;

typedef struct Dict {         /* insertion-ordered hash map (L2) */
  Obj hdr;
  tfs_i64 len, cap;           /* entries in use / capacity of keys/vals */
  Val *keys, *vals;           /* dense, insertion order; VT_UNDEF key = deleted */
  tfs_i64 *index;             /* open-addressing table into keys/vals, -1 = empty */
  tfs_i64 index_cap, used;    /* used counts deleted slots too */
} Dict;

/* set: CPython's open-addressing table, so iteration order matches CPython's. */
typedef struct SetEntry { Val key; int64_t hash; } SetEntry;   /* key VT_UNDEF: unused (u.i 0) / deleted (u.i 1) */
typedef struct Set {
  Obj hdr;
  tfs_i64 fill, used;         /* active + deleted entries / active entries */
  tfs_u64 mask, finger;       /* table size - 1; where set.pop() looks next */
  SetEntry *table;
} Set;

typedef struct Range { Obj hdr; tfs_i64 start, stop, step; } Range;
typedef struct Slice { Obj hdr; Val lo, hi, step; } Slice;   /* VT_NONE for omitted parts */

typedef struct Cell { Obj hdr; Val v; } Cell;                /* VT_UNDEF: not yet bound */

typedef struct Func {
  Obj hdr;
  const FuncInfo *info;
  int ndefaults, ncells;
  Val *defaults;              /* owned */
  Obj **cells;                /* owned references to Cell objects */
  Val dict;                   /* attributes set on the function (VT_UNDEF until used) */
  struct Func *conv;          /* AutoGraph twin sharing this function's cells (made on first trace) */
  void *owner;                /* the class (TypeObj) whose body defined it, for super(); borrowed */
} Func;
/* Call a compiled function on arguments already bound to its parameters. */
Val func_call_bound(Val f, Val *argv);

/* Generators (gen.c): a call of a generator function makes one, holding the
 * function and its bound arguments; its body runs on a stack of its own. */
extern const Type gen_type;
Val gen_new(Val func, const Val *argv, int nargs);
/* next(g[, default]): the next value, else StopIteration(return value) or dflt */
Val gen_next_builtin(Val g, Val dflt);
/* For the error machinery: the saved states of the stacks that resumed the
 * running generators, outermost first (their count); whether an error
 * leaving the running generator would reach no handler on any stack. */
int rt_gen_segments(const RtCtxState **out, int max);   /* out NULL: the count */
bool rt_gen_uncaught(void);

/* A builtin function implemented in C.  `self` is the bound receiver for
 * methods ('abc'.upper) or VT_UNDEF for plain functions. */
typedef Val (*BuiltinFn)(Val self, int n, const Val *args, const Kw *kw);
typedef struct Builtin {
  Obj hdr;
  const char *name;           /* 'print', 'str.upper', 'tf.add' */
  BuiltinFn fn;
  Val self;                   /* owned; VT_UNDEF when unbound */
  const void *data;           /* extra static data (e.g. the OpDef of a tf op) */
} Builtin;

typedef struct Module {
  Obj hdr;
  const char *name;           /* 'tf', 'math', or the .tfs module name */
  int nglobals;
  const char *const *names;   /* compiled modules: global names, in slot order */
  Val *globals;               /* compiled modules: the generated code's slots (borrowed storage) */
  Val (*getattr)(const char *name);   /* native modules (tf, ag, time): attribute lookup */
  void (*init)(Val module);   /* compiled modules: top-level code; NULL once run */
  const char *tfqual;         /* a stdlib module standing for tf.<tfqual>: missing names fall back to the tf table */
  const char *as_class;       /* a native module standing for a class (tf.data.Dataset: 'DatasetV2'): its errors name it so */
} Module;
const char *module_name(int index);              /* compiled module's name, or NULL */
Val module_global(int index, const char *name);  /* a compiled module's global (borrowed) or VT_UNDEF */
/* Import the stdlib .tfs module `name` compiled into the program (running its
 * top level on first use) as tf.<name>; VT_UNDEF when the program has none. */
Val module_import_library(const char *name);

/* A method bound to its receiver (L2 classes): calling it prepends self. */
typedef struct Bound { Obj hdr; Val fn, self; } Bound;       /* both owned */

/* The one iterator object kind: `step` produces the next item (owned) from
 * the state below, returning false when exhausted. */
typedef struct Iter {
  Obj hdr;
  const char *kind;           /* 'list_iterator', for repr */
  bool (*step)(struct Iter *it, Val *out);
  Val src, aux;               /* owned (VT_UNDEF when unused) */
  tfs_i64 i, n;               /* position / end, meaning is up to step */
} Iter;

/* Type objects: `int`, `str`, type(x), isinstance's second argument.  Calling
 * one constructs a value (`ctor`), or an exception when it is an exception class. */
extern const Type type_type;
typedef struct TypeObj {
  Obj hdr;
  const char *name;           /* 'int', 'tf.Tensor', 'ValueError' */
  const Type *type;           /* object types: the instances' vtable */
  int tag;                    /* immediates: their VT_* tag (bool: VT_BOOL); objects: VT_OBJ */
  BuiltinFn ctor;             /* NULL: not callable */
  int errkind;                /* exception classes: their ErrKind; else -1 */
  struct TypeObj *base;       /* superclass (NULL: object) */
  Val dict;                   /* user classes: attributes and methods (owned dict); else VT_UNDEF */
  const char *module;         /* user classes: '__main__' or the module's name */
  bool user_ok;               /* a builtin class user classes may derive from (tf.Module) */
  struct TypeObj *base2;      /* an exception class's second base, a builtin exception class (numpy's
                               * AxisError(ValueError, IndexError)): subclass tests and except see it;
                               * attributes come from `base` (immortal: no reference held) */
  const char *tp_name;        /* the name messages give when not `name`: a C-defined class's dotted tp_name
                               * ('tensorflow.python.framework.ops.EagerTensor'); NULL: name */
} TypeObj;

/* An instance of a user class (class statements, runtime/object/classes.c). */
extern const Type inst_type;
typedef struct Inst {
  Obj hdr;
  TypeObj *klass;             /* a reference */
  Val dict;                   /* attributes (VT_UNDEF until one is set) */
  Val fncache;                /* rt_obj_hooks.method_fn's per-instance function objects (VT_UNDEF: none) */
  Val base;                   /* a subclass of dict/list/tuple/set/str: the builtin value it extends (VT_UNDEF: none) */
  tfs_u64 serial;             /* unique per process: identity keys (tf.function's Weakref) survive address reuse */
} Inst;

/* An exception instance (raise ValueError("msg")); instances of user
 * exception classes are Excs too, with their own attributes. */
extern const Type exc_type;
typedef struct Exc {
  Obj hdr;
  int kind;                   /* ErrKind it is raised as (nearest builtin class) */
  const char *cls;            /* class name printed in reports ('Exception') */
  Val msg;                    /* owned str: str(e) */
  Val args;                   /* owned tuple: e.args */
  TypeObj *klass;             /* its class (a reference: user classes are not immortal) */
  Val dict;                   /* instance attributes (VT_UNDEF until one is set) */
  Val cause;                  /* raise ... from cause (VT_UNDEF: none) */
  int loc;                    /* where it was raised (0: never raised) */
} Exc;

/* Constructors (owned results). */
Val str_new(const char *s, tfs_i64 len);
Val str_from_cstr(const char *s);
Val str_concat(const char *a, tfs_i64 na, const char *b, tfs_i64 nb);

/* bytes (bytes.c): immutable byte strings, as SerializeToString returns. */
extern const Type bytes_type;
Val bytes_new(const void *data, size_t n);
const void *bytes_data(Val v, size_t *n);
Val bytes_alloc(size_t n, unsigned char **data);   /* owned, n bytes for the caller to fill */
Val bytes_construct(int n, const Val *args, const Kw *kw);   /* bytes(...) */
bool bytes_contains(Val c, Val x);                 /* x in c for a bytes c */
Val bytes_method(Val self, const char *name);      /* bytesmethods.c: b.hex, b.split, ...; VT_UNDEF: none */
Val bytes_fromhex_fn(bool mutable_);              /* bytes.fromhex, bytearray.fromhex */
Val bytes_maketrans_fn(void);                      /* bytes.maketrans */
Val bytes_text_method(Val self, const char *name); /* bytestext.c: b.upper, b.center, b.decode, ...; VT_UNDEF: none */
Val bytes_build(int n, const Val *args, const Kw *kw, bool mutable_);   /* bytes(...) / bytearray(...) */
bool byteslike_eq(Val a, Val b);                   /* bytes/bytearray == bytes/bytearray */
Val byteslike_compare(int op, Val a, Val b);       /* < <= ... between bytes-likes; VT_UNDEF: other pairs */
/* bytearray (bytearray.c): mutable byte strings; bytes-like = bytes or bytearray. */
extern const Type bytearray_type;
Val bytearray_new(const void *data, size_t n);
void bytearray_delitem(Val self, Val key);         /* del ba[i], del ba[i:j] */
const unsigned char *byteslike_data(Val v, size_t *n);   /* NULL: not bytes-like */
Val byteslike_new(Val like, const void *d, size_t n);    /* bytearray when like is one, else bytes */
Val str_take(char *s, tfs_i64 len);   /* adopts a malloc'd NUL-terminated buffer's bytes */
Val list_new(tfs_i64 cap);
void list_append(Val list, Val item);            /* borrows item (increfs) */
Val tuple_new(tfs_i64 len);                      /* items VT_NONE until filled */
Val tuple_pack(int n, ...);                      /* borrowed Vals, increfed */
Val builtin_new(const char *name, BuiltinFn fn, Val self, const void *data);
Val dict_new(void);
Val dict_get(Val d, Val key);                    /* VT_UNDEF when missing; owned otherwise */
void dict_set(Val d, Val key, Val v);
Val dict_get_str(Val d, const char *name);       /* d may be VT_UNDEF; owned or VT_UNDEF */
void dict_set_str(Val *d, const char *name, Val v);   /* creates *d on first use */

static inline const char *str_cstr(Val v) { return ((Str *)v.u.o)->data; }
static inline tfs_i64 str_len(Val v) { return ((Str *)v.u.o)->len; }

/* More constructors and helpers shared by the runtime and the modules. */
Val str_of(Val v);                               /* str(v) as a str value */
Val repr_of(Val v);                              /* repr(v) as a str value */
Val ascii_of(Val v);                             /* ascii(v): repr with non-ASCII escaped (format.c) */
Val list_from_iterable(Val it);                  /* list(it) */
void list_extend(Val list, Val iterable);
Val dict_keys_list(Val d);                       /* list(d) */
bool dict_del(Val d, Val key);                   /* false when missing */
Val dict_view_new(Val d, int kind);              /* d.keys() (0), d.values() (1), d.items() (2) */
Val range_new(tfs_i64 start, tfs_i64 stop, tfs_i64 step);
Val iter_new(const char *kind, bool (*step)(Iter *it, Val *out), Val src, Val aux, tfs_i64 i, tfs_i64 n);
Val bound_new(Val fn, Val self);
Val exc_new(int kind, const char *cls, Val msg);
Val exc_of_kind(int kind, const char *msg);     /* the instance a runtime error of `kind` is caught as */
Val exc_class_of(Val exc);                       /* borrowed class of an Exc */
bool exc_class_sub(Val cls, Val base);           /* issubclass for exception classes */
bool exc_is_class(Val cls);
/* raise cls(msg) (an exception class; kind: the nearest built-in kind, for handlers that match kinds) */
_Noreturn void exc_raise_class(Val cls, ErrKind kind, const char *msg);
_Noreturn void exc_os_error(int err, const char *path);   /* FileNotFoundError etc. from errno, CPython's text */
_Noreturn void exc_os_error2(int err, const char *path, const char *path2);   /* ... naming two paths */
_Noreturn void exc_key_error(Val key);
/* raise UnicodeDecodeError for bytes [start, end) with CPython's text: 'utf-8' codec can't decode byte 0xff
 * in position 0: invalid start byte (one byte), ... bytes in position 0-1: unexpected end of data (several) */
_Noreturn void exc_unicode_decode_error(const char *codec, unsigned byte, size_t start, size_t end, const char *why);           /* raise KeyError(key) */                      /* an exception class (BaseException or below) */
/* Python's slice.indices(len): clamps and fills start/stop/step, returns the
 * slice length.  Raises for a zero step or non-integer parts. */
tfs_i64 slice_indices(Val slice, tfs_i64 len, tfs_i64 *start, tfs_i64 *stop, tfs_i64 *step);
/* The type object of v (type(v)), and of an object type (for isinstance). */
Val typeobj_of(Val v);                            /* borrowed */
Val typeobj_for(const Type *t);
/* Code point count and code point -> byte offset of a UTF-8 str. */
tfs_i64 str_nchars(Val s);
/* Length of the valid UTF-8 sequence at s (avail bytes left; strict: no
 * overlongs, surrogates or code points past U+10FFFF), or 0 with *why (if
 * why) set to CPython's reason: invalid start byte, invalid continuation
 * byte, unexpected end of data.  Shared by the compiler's source check and
 * bytes.decode. */
size_t utf8_seq(const unsigned char *s, size_t avail, const char **why);
void str_repr_into(StrBuf *b, const char *s, tfs_i64 n);   /* Python's quoted, escaped form */

/* Formatting: format(v, spec) appended to b (spec need not be NUL-terminated),
 * and printf-style `fmt % args`. */
void format_into(StrBuf *b, Val v, const char *spec, size_t speclen);
bool inst_format(StrBuf *b, Val v, const char *spec, size_t n);
bool inst_delitem(Val self, Val key);   /* del obj[key] through __delitem__ (classes.c); false when absent */   /* through a class's __format__ (classes.c) */
Val format_percent(Val fmt, Val args);   /* str % args, and bytes/bytearray % args (the same kind back) */

/* Runtime-internal plumbing shared by the host object files. */
#define TFS_IMMORTAL_RC ((tfs_i64)1 << 60)       /* statically allocated objects: never freed */
/* Nonzero while graph workers of tf.data run (graph/parexec.c): the collector's table is locked. */
extern _Atomic int rt_mt_active;
extern __thread int rt_call_depth;                       /* active .tfs function calls (RecursionError) */
bool repr_enter(Obj *o);                         /* false: o is already being repr'd (cycle) */
void repr_leave(Obj *o);
int repr_depth_get(void);                        /* for RtTry: the guard's depth, saved and restored */
void repr_depth_set(int depth);
/* ag.ldu's load: while rt_soft_miss > 0, a missing dict key or attribute
 * reads as None and sets rt_soft_missed instead of raising, so no error
 * unwinds through generated code (which cannot release its temporaries). */
extern int rt_soft_miss;
extern bool rt_soft_missed;
tfs_u64 obj_identity_hash(Val v);                /* hash slot for identity-hashed objects */
bool seq_items(Val v, tfs_i64 *n, const Val **items);   /* list/tuple: borrowed item array */
void list_delitem(Val list, Val key);            /* del l[k], del l[i:j] */
void dict_delitem(Val d, Val key);               /* del d[k] (KeyError when missing) */
bool contains(Val container, Val x);             /* x in container */
/* sets (set.c); keys are borrowed */
Val set_new(void);
extern const Type frozenset_type;                /* set.c: a set's table, immutable and hashable */
Val frozenset_from_iterable(Val it);             /* frozenset(it); VT_UNDEF: frozenset() */
int64_t frozenset_pyhash(Val v);                 /* CPython's hash of a frozenset */
extern const Type memoryview_type;               /* memview.c */
Val memoryview_of(Val self, int n, const Val *args, const Kw *kw);   /* memoryview(obj) */
Val set_from_iterable(Val it);
Val set_copy(Val s);
bool set_add(Val s, Val key);                    /* false when already present */
bool set_contains(Val s, Val key);
bool set_discard(Val s, Val key);                /* false when missing */
Val set_pop(Val s);                              /* KeyError when empty */
void set_clear(Val s);
bool set_next(Val s, tfs_i64 *pos, Val *key);    /* table order, borrowed key */
void set_update(Val s, Val iterable);
void set_symmetric_update(Val s, Val other);
Val set_symmetric_difference(Val a, Val b);
void set_intersection_update(Val s, Val other);
void set_difference_update(Val s, Val other);
Val set_intersection(Val s, Val other);
Val set_difference(Val s, Val other);
bool set_issubset(Val a, Val b);                 /* both sets */
int64_t val_pyhash(Val v);                       /* CPython's hash() for numbers and tuples */
int num_cmp(Val a, Val b);                       /* host numbers: -1, 0, 1, or 2 when unordered (NaN) */

/* Native modules register their attribute tables here. */
Val module_native(const char *name, Val (*getattr)(const char *name));
const char *module_shown_name(Val mod);           /* its __name__ (borrowed) */

/* Builtins scope: returns the builtin named `name` (owned) or VT_UNDEF. */
Val builtins_lookup(const char *name);

/* Write `s` exactly to stdout (buffered; flushed at exit and before errors). */
void rt_write_stdout(const char *s, size_t n);
void rt_flush(void);
void rt_flush_at_crash(void);   /* outbuf.c: the buffered stdout, async-signal-safely (fatal.c) */
void rt_fatal_install(void);    /* fatal.c: crashes show the buffered output and the last .tfs line */
/* Ctrl-C (runtime/object/sigint.c): the handler sets the flag; safe points check it. */
extern volatile sig_atomic_t rt_sigint_pending;
void rt_sigint_install(void);
_Noreturn void rt_sigint_raise(void);
/* Safe points: Ctrl-C raises there, and a due cycle collection runs there
 * (every container is consistent between statements). */
#define RT_CHECK_INTERRUPT() do { \
    if (__builtin_expect(rt_sigint_pending | rt_gc_pending, 0)) { rt_gc_poll(); if (rt_sigint_pending) rt_sigint_raise(); } \
  } while (0)

#endif
