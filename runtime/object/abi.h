/* abi.h — the contract between generated C and the runtime: value layout, refcount macros, entry points.
 *
 * This header is compiled twice: by gcc as part of the runtime, and (embedded as
 * text by the build) as the prelude of every C unit the compiler emits for
 * libtcc.  It therefore includes no system header and uses only plain C types.
 * Ownership rule for every entry point below: arguments are BORROWED, a
 * returned Val is OWNED by the caller (it must be released with TFS_DECREF).
 */
#ifndef TFS_ABI_H
#define TFS_ABI_H

typedef long long tfs_i64;
typedef unsigned long long tfs_u64;

/* Val tags.  Immediates carry their payload inline; VT_OBJ points at an Obj.
 * VT_UNDEF is internal: "no value" (missing argument, unbound local, attribute
 * not found); it never reaches user code as a value.  ORDER VT */
enum { VT_UNDEF = 0, VT_NONE, VT_BOOL, VT_INT, VT_FLOAT, VT_OBJ };

struct Type;
typedef struct Obj {
  tfs_i64 rc;                 /* reference count; freed when it drops to 0 */
  const struct Type *type;    /* vtable: name, free, repr, call, ... (value.h) */
} Obj;

typedef struct Val {
  unsigned tag;               /* VT_* */
  union { tfs_i64 i; double f; Obj *o; } u;
} Val;

/* Keyword arguments of a call: names are NUL-terminated identifiers. */
typedef struct Kw {
  int n;
  const char *const *names;
  const Val *vals;
} Kw;

/* A source location the generated code can point at (index into a table). */
typedef struct RtLoc {
  int file;                   /* index into the program's RtFile table */
  int line, col;              /* 1-based */
} RtLoc;

typedef struct RtFile {
  const char *path;           /* as given on the command line / import */
  const char *source;         /* full text, for the caret line of errors */
  int library;                /* a stdlib .tfs module (tf.keras): errors point at the user's line */
} RtFile;

/* Static description of a compiled .tfs function; the code pointer receives the
 * function object (for its cells) and exactly nparams bound, borrowed args. */
struct Func;
typedef Val (*FuncCode)(struct Func *self, Val *args);
typedef struct FuncInfo {
  const char *name;           /* 'f', or '<lambda>' */
  int nparams;
  const char *const *params;  /* parameter names, in order */
  FuncCode code;
  int loc;                    /* location of the def, for errors */
  int module;                 /* index of the defining module */
  const char *source;         /* the converted code as .tfs text (tf.autograph.to_code), or 0 */
  /* AutoGraph: the converted version of this function (same parameters), used
   * while tracing; its free variable i is this function's cell cellmap[i]. */
  const struct FuncInfo *converted;
  const int *cellmap;
  int ncellmap;
  /* Beyond plain positional parameters (all 0 for them): params is then
   * [positional..., *args, keyword-only..., **kwargs]. */
  int nkwonly;
  int varargs, varkw;         /* 1 when the signature has *args / **kwargs */
  int nposonly;               /* leading positional-only parameters (before '/') */
  int generator;              /* 1: the body yields; a call makes a generator that runs it (gen.c) */
} FuncInfo;

/* tfs run compiles the eager bodies of tf.functions in a second C unit, at
 * the first eager call (compiler/jit.c).  The first unit's tfs_lazy_refs,
 * ended by a null name, lists by name each object of its own the second
 * uses (slot 0: bound to addr) and each body's pointer (slot 1: addr is the
 * pointer the body's address is stored into). */
typedef struct RtLazyRef {
  const char *name;
  void *addr;
  int slot;
} RtLazyRef;

/* Binary operators (rt_binop) and comparisons (rt_compare).  ORDER BINOP */
enum {
  BIN_ADD, BIN_SUB, BIN_MUL, BIN_DIV, BIN_FLOORDIV, BIN_MOD, BIN_POW, BIN_MATMUL,
  BIN_LSHIFT, BIN_RSHIFT, BIN_BITAND, BIN_BITOR, BIN_BITXOR, BIN__COUNT
};
enum { CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE, CMP_IS, CMP_ISNOT, CMP_IN, CMP_NOTIN };
enum { UN_NEG, UN_POS, UN_INVERT, UN_NOT };

#define TFS_IS_OBJ(v) ((v).tag == VT_OBJ)
/* Field-wise copies: tcc turns a struct assignment into a memmove call. */
#define TFS_COPY(d, s) ((d).tag = (s).tag, (d).u.i = (s).u.i)
#define TFS_SET(d, t, x) ((d).tag = (t), (d).u.i = (x))
#define TFS_INCREF(v) do { if ((v).tag == VT_OBJ) (v).u.o->rc++; } while (0)
#define TFS_DECREF(v) do { if ((v).tag == VT_OBJ && --(v).u.o->rc == 0) rt_free_obj((v).u.o); } while (0)
/* Release and forget: the slot holds no reference afterwards (an unwinding
 * exception releases what frame slots still own, so none may dangle). */
/* The generated C uses these once or more per statement, and tcc's
 * preprocessor pays for every nested expansion: written out flat. */
#define TFS_CLEAR(v) do { Val c_; c_.tag = (v).tag; c_.u.i = (v).u.i; (v).tag = VT_UNDEF; \
    if (c_.tag == VT_OBJ && --c_.u.o->rc == 0) rt_free_obj(c_.u.o); } while (0)
/* Store slot s's reference in d (releasing d's old value) and empty s. */
#define TFS_MOVE(d, s) do { Val o_; o_.tag = (d).tag; o_.u.i = (d).u.i; (d).tag = (s).tag; (d).u.i = (s).u.i; \
    (s).tag = VT_UNDEF; if (o_.tag == VT_OBJ && --o_.u.o->rc == 0) rt_free_obj(o_.u.o); } while (0)

/* What an exception unwinding through a generated function releases: its
 * temporaries (each owned or VT_UNDEF), its locals and return slot (by
 * address: they change), its cells.  Pushed at entry by rt_frame_push, popped
 * by rt_unhold; the traceback names `name` and the caller's call site. */
typedef struct RtFrame {
  Val *temps;
  int ntemps;
  int nlocals;
  Val *const *locals;
  Obj *const *cells;
  int ncells;
  const char *name;           /* 'f', '<module>' */
  int call_loc;               /* rt_cur_loc at entry: where the caller called */
  int ag;                     /* RT_AG_*: how AutoGraph's "in user code:" framing lists the frame */
} RtFrame;
/* RtFrame.ag: user code run as written; the converted twin of a module-level function or method (one
 * `File ... *` entry); a def of the user's inside converted code (its entry takes the def's name); a helper
 * AutoGraph generated (if_body, loop_body) or a lambda: part of its function's entry; the stdlib library. */
enum { RT_AG_PLAIN, RT_AG_HEAD, RT_AG_NESTED, RT_AG_HELPER, RT_AG_LIBRARY };

/* A try handler of generated code: opaque room for the runtime's RtTry
 * (value.h), whose jmp_buf comes first so `_setjmp(&buf)` arms it. */
typedef struct RtTryBuf { tfs_i64 w[60]; } RtTryBuf;

/* Every runtime function generated code may call: X(return type, name, params).
 * The JIT binds each with tcc_add_symbol; the emitter prints the prototypes. */
#define TFS_RT_API(X) \
  X(void, rt_free_obj, (Obj *o)) \
  X(Val, rt_none, (void)) \
  X(Val, rt_bool, (int b)) \
  X(Val, rt_int, (tfs_i64 i)) \
  X(Val, rt_float, (double f)) \
  X(Val, rt_complex, (double re, double im)) \
  X(Val, rt_u64int, (tfs_u64 v)) \
  X(Val, rt_bigint_lit, (const char *digits)) \
  X(Val, rt_str, (const char *s, tfs_i64 len)) \
  X(Val, rt_bytes, (const char *s, tfs_i64 len)) \
  X(Val, rt_list, (int n, const Val *items)) \
  X(Val, rt_tuple, (int n, const Val *items)) \
  X(Val, rt_dict, (int n, const Val *keys, const Val *vals)) \
  X(Val, rt_set, (int n, const Val *items)) \
  X(void, rt_comp_add, (Val acc, Val v)) \
  X(Val, rt_slice, (Val lo, Val hi, Val step)) \
  X(Val, rt_ellipsis, (void)) \
  X(Val, rt_fstring, (int n, const Val *parts)) \
  X(Val, rt_format, (Val v, const char *conv, Val spec)) \
  X(Val, rt_binop, (int op, Val a, Val b)) \
  X(Val, rt_inplace, (int op, Val a, Val b)) \
  X(Val, rt_unop, (int op, Val a)) \
  X(Val, rt_compare, (int op, Val a, Val b)) \
  X(int, rt_truthy, (Val v)) \
  X(Val, rt_getattr, (Val o, const char *name)) \
  X(void, rt_setattr, (Val o, const char *name, Val v)) \
  X(void, rt_delattr, (Val o, const char *name)) \
  X(Val, rt_getitem, (Val o, Val key)) \
  X(Val, dict_get, (Val d, Val key)) \
  X(void, rt_setitem, (Val o, Val key, Val v)) \
  X(void, rt_delitem, (Val o, Val key)) \
  X(Val, rt_call, (Val f, int n, const Val *args, const Kw *kw)) \
  X(Val, rt_call_star, (Val f, Val args, Val kwargs)) \
  X(void, rt_kw_set, (Val f, Val d, Val key, Val v)) \
  X(void, rt_kw_merge, (Val f, Val d, Val m)) \
  X(void, rt_star_extend, (Val f, Val list, Val it)) \
  X(Val, rt_iter, (Val o)) \
  X(int, rt_next, (Val it, Val *out)) \
  X(void, rt_unpack, (Val v, int n, Val *out)) \
  X(void, rt_unpack_star, (Val v, int before, int after, Val *out)) \
  X(Val, rt_func_new, (const FuncInfo *info, int ndefaults, const Val *defaults, int ncells, Obj *const *cells)) \
  X(Obj *, rt_cell_new, (Val v)) \
  X(Val, rt_cell_get, (Obj *cell, const char *name)) \
  X(void, rt_cell_set, (Obj *cell, Val v)) \
  X(Obj *, rt_func_cell, (struct Func *f, int i)) \
  X(void, rt_unbound_local, (const char *name)) \
  X(void, rt_unbound_global, (const char *name)) \
  X(Val, rt_builtin, (const char *name)) \
  X(Val, rt_import, (int module)) \
  X(Val, rt_module_attr, (Val module, const char *name)) \
  X(Val, rt_native_module, (const char *name)) \
  X(void, rt_assert_fail, (Val msg)) \
  X(void, rt_raise, (Val exc)) \
  X(void, rt_raise_from, (Val exc, Val cause)) \
  X(void, rt_reraise, (Val exc)) \
  X(int, rt_frame_push, (RtFrame *f)) \
  X(void, rt_unhold, (int mark)) \
  X(void, rt_try_enter, (RtTryBuf *t)) \
  X(void, rt_try_leave, (RtTryBuf *t)) \
  X(Val, rt_try_caught, (RtTryBuf *t)) \
  X(int, rt_exc_match, (Val exc, Val cls)) \
  X(Val, rt_with_enter, (Val mgr)) \
  X(Val, rt_yield, (Val v)) \
  X(Val, rt_yield_from, (Val iterable)) \
  X(Val, rt_class_new, (const char *name, int nbases, const Val *bases, Val ns, const char *module)) \
  X(Val, rt_super, (struct Func *f, Val self)) \
  X(Val, rt_ag_ld, (Val v)) \
  X(void, rt_ag_check, (Val v)) \
  X(int, rt_with_exit, (Val mgr, Val exc)) \
  X(void, rt_set_loc, (int loc)) \
  X(void, rt_register_program, (int nfiles, const RtFile *files, int nlocs, const RtLoc *locs)) \
  X(void, rt_append_program, (int nfiles, const RtFile *files, int nlocs, const RtLoc *locs)) \
  X(int, rt_unit_register, (int module, const RtFile *file, int nlocs, const RtLoc *locs)) \
  X(void, rt_repl_echo, (Val v)) \
  X(Val *, rt_temps_new, (int n, int *mark)) \
  X(void, rt_temps_free, (Val *t, int mark)) \
  X(void, rt_register_module, (int index, const char *name, void (*init)(Val module), int nglobals, const char *const *names, Val *globals))

/* Current source location: generated code stores a loc index here before each
 * operation that may fail, so the error printer can point at the user's line. */
extern int rt_cur_loc;

#define TFS_RT_PROTO(ret, name, params) ret name params;
TFS_RT_API(TFS_RT_PROTO)
#undef TFS_RT_PROTO

#endif
