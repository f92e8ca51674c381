/* tensor.h — dense n-d tensors: dtypes, shapes, strided views over reference-counted buffers. */
#ifndef TFS_TENSOR_H
#define TFS_TENSOR_H

#include "object/value.h"

#define TFS_MAX_RANK 8

typedef enum DType {          /* ORDER DTYPE: dtype_info[] in tensor.c follows it */
  DT_FLOAT32, DT_FLOAT64, DT_INT32, DT_INT64, DT_BOOL, DT_STRING, DT_UINT8,
  DT_INT8, DT_INT16, DT_UINT16, DT_UINT32, DT_UINT64,
  DT_FLOAT16, DT_BFLOAT16,    /* 16-bit floats stored as their bits (object/half.h); kernels compute in float32 */
  DT_VARIANT,                 /* one owned Obj * per element: a TensorList (k_list.c); only list ops take it */
  DT_COMPLEX64, DT_COMPLEX128, /* (re, im) pairs of float32 / float64, C's _Complex layout; past variant so DTM_ALL leaves
                                * them out of ops whose kernels do not know them */
  DT_RESOURCE,                 /* tf.resource: only the symbolic tensor of a traced Variable handle (its capture
                                * placeholder's output); no tensor holds elements of it */
  DT__COUNT
} DType;

/* Element types whose elements are owned object references (strings, variants). */
static inline bool dtype_holds_refs(DType dt) { return dt == DT_STRING || dt == DT_VARIANT; }
static inline bool dtype_is_complex(DType dt) { return dt == DT_COMPLEX64 || dt == DT_COMPLEX128; }
/* A complex dtype's part dtype (complex64 -> float32); any other dtype is its own. */
static inline DType dtype_real_part(DType dt) { return dt == DT_COMPLEX64 ? DT_FLOAT32 : dt == DT_COMPLEX128 ? DT_FLOAT64 : dt; }

typedef struct DTypeInfo {
  const char *name;           /* 'float32' */
  int size;                   /* bytes per element (string: sizeof(Str *)) */
  bool is_float, is_int;
} DTypeInfo;
extern const DTypeInfo dtype_info[DT__COUNT];
/* Tensors of these dtypes carry gradients (TF's tape: floating and complex). */
static inline bool dtype_has_grad(DType dt) { return dtype_info[dt].is_float || dtype_is_complex(dt); }

/* A buffer owns the bytes; tensors are views on it.  String tensors store one
 * owned `Str *` per element. */
typedef struct Buffer {
  tfs_i64 rc;
  DType dtype;
  int kind;                   /* BUF_*: how the memory is owned (tensor.c) */
  tfs_i64 nelem;
  void *data;                 /* points into `inline_data` for small buffers */
  _Alignas(64) unsigned char inline_data[];
} Buffer;

typedef struct Tensor {
  Obj hdr;
  DType dtype;
  int rank;
  tfs_i64 size;               /* number of elements */
  tfs_i64 shape[TFS_MAX_RANK];
  tfs_i64 strides[TFS_MAX_RANK];   /* in elements */
  tfs_i64 offset;             /* in elements, into buf */
  Buffer *buf;                /* owned reference */
  void *sym;                  /* graph mode: the symbolic node this stands for (NULL when eager) */
  tfs_u64 tape_bits;          /* bit i: tracked by the active gradient tape holding slot i (tape.c), so recording needs no lookup */
  tfs_u64 tape_id;            /* the tape's identity of this tensor, given on first use (0: none yet); unique, unlike its address */
  Obj **tape_loose;           /* a tape entry's weak reference to this output (its gradient does not read it): cleared when freed */
  Obj *attrs;                 /* the attributes a program set on it (a dict; Keras' t._keras_mask), owned; NULL: none */
} Tensor;

extern Type tensor_type;               /* operator slots set by kernels/tensorobj.c */
extern const Type dtype_type;

static inline bool val_is_tensor(Val v) { return val_is(v, &tensor_type); }
static inline Tensor *val_tensor(Val v) { return (Tensor *)v.u.o; }

/* New contiguous tensor with uninitialised (string: NULL) elements. */
Tensor *tensor_new(DType dt, int rank, const tfs_i64 *shape);
/* Allocator calls made for tensors so far (this thread): a steady-state graph call adds none, since
 * freed tensors and buffers go to bounded per-size pools; tensor_pools_on() is false under ASan,
 * which must see every allocation. */
tfs_i64 tensor_alloc_count(void);
bool tensor_pools_on(void);
/* Tensors created so far (this thread), pooled or not: a graph's planned elementwise steps create
 * none in a steady-state call (their results live in place or in the plan's arena). */
tfs_i64 tensor_new_count(void);
/* View sharing t's buffer with another shape/strides/offset. */
Tensor *tensor_view(Tensor *t, int rank, const tfs_i64 *shape, const tfs_i64 *strides, tfs_i64 offset);
bool tensor_is_contiguous(const Tensor *t);
Tensor *tensor_contiguous(Tensor *t);            /* owned: t itself (increfed) or a packed copy */
static inline void *tensor_data(const Tensor *t) {
  return (char *)t->buf->data + t->offset * dtype_info[t->dtype].size;
}

/* dtype objects (tf.float32 ...) as host values. */
Val dtype_val(DType dt);
bool val_as_dtype(Val v, DType *out);
/* Raise TF's TypeError for a value that names no dtype: Cannot convert the argument `type_value`: 'x' to a TensorFlow DType. */
bool val_as_dtype_arg(Val v, DType *out);
_Noreturn void dtype_fail(Val v);

/* Host value -> tensor per docs/reference/tf-notes.md (nested lists give the shape; ragged
 * is an error).  `want` is the dtype to convert to, or -1 for the defaults. */
Tensor *tensor_from_val(Val v, int want);

/* shape=(2, 3) text as printed inside tf.Tensor(...) */
void shape_format(StrBuf *b, int rank, const tfs_i64 *shape);

/* Copy src's elements into dst (same dtype and size; dst contiguous). */
void tensor_copy_into(Tensor *dst, const Tensor *src);

/* ---- additions (tensor.c, ndarray.c) ------------------------------------ */

/* Bit masks of dtypes, for op signatures. */
#define DTM(dt) (1u << (dt))
#define DTM_FLOAT (DTM(DT_FLOAT32) | DTM(DT_FLOAT64))
#define DTM_INT (DTM(DT_INT32) | DTM(DT_INT64))
#define DTM_NUM (DTM_FLOAT | DTM_INT)
#define DTM_NUMBOOL (DTM_NUM | DTM(DT_BOOL))
#define DTM_ALL ((1u << DT_VARIANT) - 1)              /* every dtype before variant (list ops take variant; complex: DTM_ALLC) */
#define DTM_ANY ((1u << DT__COUNT) - 1)
#define DTM_NUM8 (DTM_NUM | DTM(DT_UINT8))            /* ops that also take uint8 (images) */
#define DTM_HALF (DTM(DT_FLOAT16) | DTM(DT_BFLOAT16))
#define DTM_SMALLINT (DTM(DT_UINT8) | DTM(DT_INT8) | DTM(DT_INT16) | DTM(DT_UINT16) | DTM(DT_UINT32) | DTM(DT_UINT64))
#define DTM_REAL (DTM_NUM | DTM_HALF | DTM_SMALLINT)   /* every real number dtype */
#define DTM_REALX (DTM_REAL & ~DTM(DT_UINT64))          /* ... but uint64, which kernels compute through int64 */
#define DTM_FLOATS (DTM_FLOAT | DTM_HALF)               /* every float dtype */
#define DTM_SIGNED (DTM_NUM | DTM_HALF | DTM(DT_INT8) | DTM(DT_INT16))   /* signed numbers */
#define DTM_CPLX (DTM(DT_COMPLEX64) | DTM(DT_COMPLEX128))
#define DTM_INTS (DTM_INT | DTM(DT_INT8) | DTM(DT_INT16) | DTM(DT_UINT8) | DTM(DT_UINT16) | DTM(DT_UINT32) | DTM(DT_UINT64))   /* every integer dtype (bitwise ops) */
#define DTM_ALLC (DTM_ALL | DTM_CPLX)                   /* every dtype but variant: ops that move elements as bytes */

const char *dtype_short_name(DType dt);
int dtype_tf_enum(int dt);                       /* TF's DataType number (1 float, 18 complex128; error texts) */          /* TF's 'float', 'double', 'int32' (error texts) */

/* Scalar tensors and values. */
Tensor *tensor_scalar(DType dt);                 /* 0-d, uninitialised */
Tensor *tensor_copy(Tensor *t);                  /* packed copy (owned) */
Tensor *tensor_copy_own(Tensor *t);              /* packed copy sharing no object with t (new strings; not variant) */
static inline void tensor_release(Tensor *t) { Val v = val_obj(t); TFS_DECREF(v); }
static inline Tensor *tensor_retain(Tensor *t) { t->hdr.rc++; return t; }
static inline Val tensor_val(Tensor *t) { return val_obj(t); }  /* adopts the reference */
/* Element i (row-major over the view) as double / int64. */
double tensor_get_f(const Tensor *t, tfs_i64 i);   /* a complex element: its real part */
tfs_i64 tensor_get_i(const Tensor *t, tfs_i64 i);
void tensor_get_c(const Tensor *t, tfs_i64 i, double *re, double *im);   /* any number dtype (im 0 for real ones) */
/* One element at p of a real dtype, as double / int64 (a half as its float value), and stored back. */
double dtype_load_f(DType dt, const void *p);
tfs_i64 dtype_load_i(DType dt, const void *p);
void dtype_store_f(DType dt, void *p, double x);   /* floats round (16-bit ones via float32, as Eigen); ints truncate */
void dtype_store_i(DType dt, void *p, tfs_i64 x);  /* wraps modulo the width */
void dtype_store_c(DType dt, void *p, double re, double im);   /* a real dtype takes re */
/* Byte offset (in elements) of row-major element i of a strided view. */
tfs_i64 tensor_elem_offset(const Tensor *t, tfs_i64 i);
/* Element i of a tensor as a host value (int/float/bool/str/complex), owned. */
Val tensor_item(const Tensor *t, tfs_i64 i);
/* The tensor a value stands for (tensor, Variable, ndarray): borrowed, or NULL. */
Tensor *val_as_tensor(Val v);
/* Graph mode: release hook for Tensor.sym (set by the graph module). */
extern void (*tensor_sym_free)(void *sym);

/* Host list of dims from a shape-like value (list/tuple of ints, TensorShape,
 * 1-d int tensor, or an int for rank 1); -1 for None when allow_unknown.
 * Returns the rank; raises TypeError/ValueError naming `what`. */
int val_to_dims(Val v, tfs_i64 *dims, bool allow_unknown, const char *what);

/* TensorShape host values: rank -1 is an unknown rank, dims -1 unknown. */
typedef struct TShape { Obj hdr; int rank; tfs_i64 dims[TFS_MAX_RANK]; } TShape;
extern const Type tshape_type;
Val tshape_new(int rank, const tfs_i64 *dims);
/* TensorShape, list/tuple of int/None, or None (unknown rank) -> rank/dims. */
bool val_as_tshape(Val v, int *rank, tfs_i64 *dims);
/* A shape argument (TensorShape, list/tuple with None, None, or what val_to_dims takes) -> its rank (-1: unknown). */
int val_shape_like(Val v, tfs_i64 *dims, const char *what);
/* TF's TensorShape.is_compatible_with: equal ranks and dims where both are known (-1: unknown). */
bool shape_compatible(int ra, const tfs_i64 *a, int rb, const tfs_i64 *b);

/* Variables: mutable storage holding the current value tensor. */
typedef struct Variable {
  Obj hdr;
  Tensor *value;              /* owned; replaced or written in place on assign */
  char *name;                 /* 'Variable:0' (malloc'd) */
  bool trainable;
  void *sym;                  /* graph mode: the resource node (NULL when eager) */
  tfs_u64 tape_bits;          /* as Tensor.tape_bits */
  bool dist_synced;           /* hvd.broadcast_variables gave it the root's value: TFS_DIST_CHECK compares it (§18.10) */
  int decl_rank;              /* tf.Variable(shape=...): the shape values must be compatible with (-1: unknown rank,
                               * dims -1 unknown); -2: none given, its value's shape is fixed */
  tfs_i64 decl_shape[TFS_MAX_RANK];
  /* An _UnreadVariable (what v.assign/assign_add/assign_sub/scatter_* return, as TF's _lazy_read): the
   * variable whose storage it reads and writes (owned; never itself unread), as TF's shares the parent's
   * handle.  Its own value/tape_bits/decl_* are unused: code reaching a variable's state goes
   * through variable_storage; its sym holds the traced assignment's tf.Operation (an owned Obj, its .op)
   * or NULL.  NULL for a variable. */
  struct Variable *base;
} Variable;
extern Type variable_type;             /* operator slots set by kernels/tensorobj.c */
Val variable_new(Val initial, Val name, bool trainable, Val dtype);
/* The variable holding o's state: o itself, or an _UnreadVariable's parent. */
static inline Variable *variable_storage(Obj *o) {
  Variable *v = (Variable *)o;
  return v->base ? v->base : v;
}
/* v.assign()'s result: an _UnreadVariable named 'UnreadVariable' reading v's storage (TF's _lazy_read). */
Val variable_unread(Variable *v);
/* The variable's static shape: the declared one (tf.Variable(shape=...)), else its value's. */
int variable_shape(const Variable *v, tfs_i64 *dims);
/* Replace the variable's value with v converted to its dtype; mode 0 assign, 1 add, 2 sub. */
void variable_assign(Variable *var, Val v, int mode);

/* ndarray host values: a tensor and, as numpy, a family sharing memory -- the owner (base NULL) and
 * its views (a[1:3], a.T, a.reshape), which write in place through one buffer that the family
 * copies before a write while anything outside it (a tf tensor, another array) still holds it. */
typedef struct NdArray {
  Obj hdr;
  Tensor *t;                  /* owned; replaced by a copy-on-write of the family */
  struct NdArray *base;       /* a view: the owner (owned reference); NULL: the owner itself */
  struct NdArray **views;     /* the owner: its live views (borrowed; each unregisters when freed) */
  int nviews, vcap;
  bool readonly;              /* numpy's WRITEABLE flag cleared */
  int uwidth;                 /* numpy's '<U n' text arrays: a string tensor of UTF-8, n code points wide; 0: none */
} NdArray;
extern Type ndarray_type;              /* operator slots set by kernels/ndarrayobj.c */
/* numpy's scalar types (numpy.float32, numpy.int64, numpy.bool_ ...): 0-d NdArrays of these types,
 * one per DType, with ndarray_type's slots but their own printing and type() (kernels/ndarrayobj.c). */
extern Type npscalar_types[DT__COUNT];
static inline bool val_is_npscalar(Val v) {
  return v.tag == VT_OBJ && v.u.o->type >= npscalar_types && v.u.o->type < npscalar_types + DT__COUNT;
}
static inline bool val_is_ndarray(Val v) { return val_is(v, &ndarray_type) || val_is_npscalar(v); }   /* or a numpy scalar */
extern const Type npdtype_type;
typedef struct NpDType { Obj hdr; DType dt; int uwidth; } NpDType;   /* numpy dtype objects (a.dtype); uwidth: '<U n' */
Val npdtype_unicode(int width);          /* dtype('<U width'); width -1: np.dtype(str), '<U0' */
extern NpDType npdtypes[];              /* one per DType, immortal */
/* numpy's object (dtype 'O') arrays (npobj.c): a list of values (shared by an array and its views), a shape, and where
 * the elements sit in the list (offset + index . strides); base: the array owning the list (VT_UNDEF: this one). */
typedef struct NpObj {
  Obj hdr; Val items; int rank; tfs_i64 shape[TFS_MAX_RANK]; tfs_i64 offset; tfs_i64 strides[TFS_MAX_RANK]; Val base;
} NpObj;
extern const Type npobj_type;
bool val_is_npobj(Val v);
Val npobj_new(Val items, int rank, const tfs_i64 *shape);   /* borrows the list items (size: the shape's product) */
Val npobj_view(Val a, tfs_i64 offset, int rank, const tfs_i64 *shape, const tfs_i64 *strides);   /* npobjview.c */
Val npobj_values(Val a);                         /* owned list of the elements in C order (the list itself when contiguous) */
tfs_i64 npobj_pos(const NpObj *a, tfs_i64 i);    /* the list position of the i-th element in C order */
Val npobj_from_nested(Val seq);                  /* np.array(seq, dtype=object) of nested lists and tuples */
void npobj_set_methods(Val methods);             /* numpy.tfs's functions behind indexing, printing, methods */
_Noreturn void npobj_to_tensor_fail(Val v);      /* TF's ValueError converting an object array */
Val ndarray_bind(Val f, Val self, const char *name);   /* takes f: the method a.name calling f(a, ...) (npobj.c) */
_Noreturn void ndarray_symbolic_error(Tensor *t);   /* TF's NotImplementedError: a graph tensor given to numpy */
Val ndarray_new(Tensor *t);                      /* borrows t; 0-d gives the numpy scalar of its dtype (string: bytes) */
Val ndarray_new_0d(Tensor *t);                   /* borrows t; an ndarray even when 0-d (np.array(7)) */
Val ndarray_new_unicode(Tensor *t, int width, bool keep0d);   /* borrows a string tensor: a '<U width' array (0-d: str unless keep0d) */
int ndarray_uwidth(Val v);                       /* a '<U n' array's n; 0 for anything else */
void ndarray_set_str_type(Val cls);              /* numpy.str_ (stdlib/numpy.tfs's str subclass) */
Val ndarray_str_scalar(const char *s, tfs_i64 n);   /* a text array's element: numpy.str_ of s[0..n) (str before import) */
Val ndarray_view_new(Val of, Tensor *t);         /* borrows t (on of's buffer): a view in of's family, base its owner */
void ndarray_prepare_write(NdArray *a);          /* ValueError when read-only; makes the family's buffer its own */
static inline NdArray *ndarray_owner(NdArray *a) { return a->base ? a->base : a; }
void ndarray_scalar_repr(StrBuf *b, const Tensor *t);
Val npscalar_new(DType dt, int n, const Val *args, const Kw *kw);   /* np.float32(1.5): numpy's scalar constructor */   /* a numpy scalar's repr: '1.5', '3', 'True' */
/* numpy repr of a tensor's values ('array([1., 2.], dtype=float32)', '12.0') */
void ndarray_repr_tensor(StrBuf *b, const Tensor *t);
/* numpy str() of a tensor's values, including string tensors */
void ndarray_str_tensor(StrBuf *b, const Tensor *t);

/* numpy-exact printing (tprint.c). */
void tprint_numpy(StrBuf *b, const Tensor *t);
void tprint_tfprint(StrBuf *b, const Tensor *t);
void tprint_tfprint_n(StrBuf *b, const Tensor *t, tfs_i64 summarize);

/* The object layer's hooks (object/hooks.h): the number in an eager 0-d tensor
 * or variable, an eager tensor test, a dtype by name. */
bool tensor_scalar_of(Val v, bool *is_int, int64_t *i, double *f);
/* v is a 0-d uint64 tensor, variable or array holding a value above int64 (*u): int() gives it whole. */
bool tensor_u64_of(Val v, tfs_u64 *u);
bool tensor_complex_of(Val v, double *re, double *im);   /* the same for any number dtype, complex ones too */
bool tensor_is_eager_tensor(Val v);
Val dtype_named(const char *name);

#endif
