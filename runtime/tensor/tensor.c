/* tensor.c — tensors: allocation (inline small buffers + free lists), views, host conversion, dtypes, TensorShape, Variable, the tensor Type. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hooks.h"
#include "object/hosttypes.h"
#include "object/object.h"
#include "tensor/tensor.h"
#include "object/half.h"

/* ORDER DTYPE */
const DTypeInfo dtype_info[DT__COUNT] = {
  {"float32", 4, true, false},
  {"float64", 8, true, false},
  {"int32", 4, false, true},
  {"int64", 8, false, true},
  {"bool", 1, false, false},
  {"string", sizeof(Str *), false, false},
  {"uint8", 1, false, true},
  {"int8", 1, false, true},
  {"int16", 2, false, true},
  {"uint16", 2, false, true},
  {"uint32", 4, false, true},
  {"uint64", 8, false, true},
  {"float16", 2, true, false},
  {"bfloat16", 2, true, false},
  {"variant", sizeof(Obj *), false, false},
  {"complex64", 8, false, false},
  {"complex128", 16, false, false},
  {"resource", 8, false, false},
};

/* TF's DataType numbers, as its messages print them ("Cannot bitcast from 1 to 18") */
int dtype_tf_enum(int dt) {
  static const int n[DT__COUNT] = {[DT_FLOAT32] = 1, [DT_FLOAT64] = 2, [DT_INT32] = 3, [DT_UINT8] = 4, [DT_STRING] = 7,
                                   [DT_INT64] = 9, [DT_BOOL] = 10, [DT_VARIANT] = 21, [DT_INT8] = 6, [DT_INT16] = 5,
                                   [DT_UINT16] = 17, [DT_UINT32] = 22, [DT_UINT64] = 23, [DT_FLOAT16] = 19, [DT_BFLOAT16] = 14,
                                   [DT_COMPLEX64] = 8, [DT_COMPLEX128] = 18, [DT_RESOURCE] = 20};
  return dt >= 0 && dt < DT__COUNT ? n[dt] : 0;
}

const char *dtype_short_name(DType dt) {
  static const char *const names[DT__COUNT] = {"float", "double", "int32", "int64", "bool", "string", "uint8", "int8", "int16",
                                                      "uint16", "uint32", "uint64", "half", "bfloat16", "variant",
                                                      "complex64", "complex128", "resource"};
  return (unsigned)dt < DT__COUNT ? names[dt] : "?";
}

void (*tensor_sym_free)(void *sym);

/* ---- allocation ---------------------------------------------------------------
 * A tensor and a small buffer share one 64-byte-aligned block (TBlock), so a
 * scalar result costs one allocation, usually a free-list pop.  When such a
 * tensor dies while views still use its buffer, the block lives on until the
 * buffer's last reference goes.  Large buffers are allocated apart. */

typedef struct TBlock {
  Tensor t;
  Buffer b;                   /* b.inline_data follows */
} TBlock;

/* Buffer.kind: the two inline block classes, a buffer allocated apart, then the pooled big classes:
 * BUF_BIG0 + c holds 1 KiB << c bytes.  Pooling big buffers too means a graph called again and again
 * (the same shapes every call) reuses last call's memory: a steady-state call calls no allocator. */
enum { BUF_SMALL0, BUF_SMALL1, BUF_HEAP, BUF_BIG0 };
#define BIG_CLASSES 15        /* up to 16 MiB; larger buffers go straight to malloc/free */
static const size_t small_cap[2] = {64, 512};
#define FREE_LIST_MAX 1024    /* bounded memory kept per list */

typedef struct FreeList { void *head; int n; } FreeList;
static __thread FreeList fl_block[2] __attribute__((tls_model("initial-exec")));
static __thread FreeList fl_view __attribute__((tls_model("initial-exec")));
static __thread FreeList fl_big[BIG_CLASSES] __attribute__((tls_model("initial-exec")));
static __thread tfs_i64 n_allocs __attribute__((tls_model("initial-exec")));   /* allocator calls, for tests */
static __thread tfs_i64 n_tensors __attribute__((tls_model("initial-exec")));  /* tensors created, for tests */

tfs_i64 tensor_alloc_count(void) { return n_allocs; }
tfs_i64 tensor_new_count(void) { return n_tensors; }

static inline void *fl_pop(FreeList *f) {
  void *p = f->head;
  if (p) { f->head = *(void **)p; f->n--; }
  return p;
}
#if defined(__SANITIZE_ADDRESS__)
#define FL_DISABLED 1         /* ASan must see every free: use-after-free and exact leak sites */
#else
#define FL_DISABLED 0
#endif
bool tensor_pools_on(void) { return !FL_DISABLED; }

static inline bool fl_push_max(FreeList *f, void *p, int max) {
  if (FL_DISABLED || f->n >= max) return false;
  *(void **)p = f->head;
  f->head = p;
  f->n++;
  return true;
}

static inline bool fl_push(FreeList *f, void *p) {
  if (FL_DISABLED || f->n >= FREE_LIST_MAX) return false;
  *(void **)p = f->head;
  f->head = p;
  f->n++;
  return true;
}

static _Noreturn void oom(tfs_i64 bytes) {
  rt_throw(ERR_MEMORY, "OOM when allocating tensor of %lld bytes", (long long)bytes);
}

static void block_free(TBlock *blk, int cls) {
  if (!fl_push(&fl_block[cls], blk)) free(blk);
}

/* A few buffers per big class are kept (fewer of the larger ones): bounded at about 98 MiB.  The 8 and 16 MiB
 * classes hold a recurrent layer's saved activations and their gradients (6.5 MB each for bench/keras_lstm.tfs):
 * freed to glibc, buffers that size went back to the kernel (heap trim) and faulted in again every training step,
 * most of the fused LSTM's step (docs/performance.md, "Traced training with the fused LSTM and GRU ops"). */
static void big_free(Buffer *b) {
  int c = b->kind - BUF_BIG0;
  if (!fl_push_max(&fl_big[c], b, c <= 6 ? 16 : c <= 13 ? 4 : 2)) free(b);
}

static void buffer_free_raw(Buffer *b) {
  if (b->kind >= BUF_BIG0) big_free(b);
  else free(b);
}

static void view_free(Tensor *t) {
  if (!fl_push(&fl_view, t)) free(t);
}

static void buffer_clear_strings(Buffer *b) {
  if (!dtype_holds_refs(b->dtype)) return;
  Obj **s = b->data;
  for (tfs_i64 i = 0; i < b->nelem; i++)
    if (s[i]) { Val v = val_obj(s[i]); TFS_DECREF(v); }
}

static void buffer_release(Buffer *b) {
  if (--b->rc) return;
  buffer_clear_strings(b);
  if (b->kind == BUF_HEAP || b->kind >= BUF_BIG0) buffer_free_raw(b);
  else block_free((TBlock *)((char *)b - offsetof(TBlock, b)), b->kind);
}

static void tensor_free(Obj *o) {
  Tensor *t = (Tensor *)o;
  if (t->attrs) val_decref(val_obj(t->attrs));
  if (t->tape_loose) *t->tape_loose = NULL;   /* the tape no longer clears its slot bit here */
  if (t->sym && tensor_sym_free) tensor_sym_free(t->sym);
  Buffer *b = t->buf;
  /* Only the small classes live inline.  A view is a bare Tensor, and a big buffer can start exactly where a
   * block's buffer would (aligned_alloc right after the view's chunk): the address alone once sent a view to
   * block_free with a big class, which wrote past fl_block into the thread's other variables. */
  if (b && b->kind < BUF_HEAP && b == &((TBlock *)t)->b) {
    /* the buffer lives in this block: the block goes with the buffer */
    if (--b->rc == 0) {
      buffer_clear_strings(b);
      block_free((TBlock *)t, b->kind);
    }
    return;
  }
  if (b) buffer_release(b);
  view_free(t);
}

static inline void set_contig_strides(Tensor *t) {
  tfs_i64 s = 1;
  for (int i = t->rank - 1; i >= 0; i--) {
    t->strides[i] = s;
    s *= t->shape[i];
  }
}

static Tensor *view_alloc(void) {
  n_tensors++;
  Tensor *t = fl_pop(&fl_view);
  if (!t) {
    n_allocs++;
    if (!(t = malloc(sizeof(Tensor)))) oom(sizeof(Tensor));
  }
  return t;
}

Tensor *tensor_new(DType dt, int rank, const tfs_i64 *shape) {
  if (dt == DT_RESOURCE)   /* only a traced Variable handle's symbolic tensor has it */
    rt_throw(ERR_UNIMPLEMENTED, "tfs makes no tensors of dtype resource; a Variable's handle is the Variable itself");
  tfs_i64 size = 1;
  for (int i = 0; i < rank; i++) {
    if (shape[i] < 0) rt_throw(ERR_INVALID_ARGUMENT, "Dimension %d must be >= 0", i);
    if (shape[i] && size > ((tfs_i64)1 << 56) / shape[i]) oom(-1);
    size *= shape[i];
  }
  size_t esz = (size_t)dtype_info[dt].size;
  size_t nbytes = (size_t)size * esz;
  Tensor *t;
  Buffer *b;
  n_tensors++;
  if (nbytes <= small_cap[1]) {
    int cls = nbytes <= small_cap[0] ? 0 : 1;
    TBlock *blk = fl_pop(&fl_block[cls]);
    if (!blk) {
      n_allocs++;
      if (!(blk = aligned_alloc(64, sizeof(TBlock) + small_cap[cls]))) oom((tfs_i64)nbytes);
    }
    t = &blk->t;
    b = &blk->b;
    b->kind = cls;
  } else {
    int c = 0;
    while (c < BIG_CLASSES && ((size_t)1024 << c) < nbytes) c++;
    b = c < BIG_CLASSES ? fl_pop(&fl_big[c]) : NULL;
    if (!b) {
      size_t cap = c < BIG_CLASSES ? (size_t)1024 << c : nbytes;
      n_allocs++;
      if (!(b = aligned_alloc(64, (sizeof(Buffer) + cap + 63) & ~(size_t)63))) oom((tfs_i64)nbytes);
    }
    b->kind = c < BIG_CLASSES ? BUF_BIG0 + c : BUF_HEAP;
    t = fl_pop(&fl_view);
    if (!t) {
      n_allocs++;
      if (!(t = malloc(sizeof(Tensor)))) { buffer_free_raw(b); oom(sizeof(Tensor)); }
    }
  }
  b->rc = 1;
  b->dtype = dt;
  b->nelem = size;
  b->data = b->inline_data;
  if (dtype_holds_refs(dt)) memset(b->data, 0, nbytes);
  t->hdr.rc = 1;
  t->hdr.type = &tensor_type;
  t->dtype = dt;
  t->rank = rank;
  t->size = size;
  for (int i = 0; i < rank; i++) t->shape[i] = shape[i];
  set_contig_strides(t);
  t->offset = 0;
  t->buf = b;
  t->sym = NULL;
  t->tape_bits = 0;
  t->tape_id = 0;
  t->tape_loose = NULL;
  t->attrs = NULL;
  return t;
}

/* 0-d tensors are the graph executor's most frequent allocation (scalar steps,
 * loop results, function results): straight from the small-block free list. */
Tensor *tensor_scalar(DType dt) {
  if (dt == DT_RESOURCE) return tensor_new(dt, 0, NULL);   /* its error */
  if (dtype_holds_refs(dt)) return tensor_new(dt, 0, NULL);
  n_tensors++;
  TBlock *blk = fl_pop(&fl_block[0]);
  if (!blk) {
    n_allocs++;
    if (!(blk = aligned_alloc(64, sizeof(TBlock) + small_cap[0]))) oom((tfs_i64)dtype_info[dt].size);
  }
  Buffer *b = &blk->b;
  b->kind = BUF_SMALL0;
  b->rc = 1;
  b->dtype = dt;
  b->nelem = 1;
  b->data = b->inline_data;
  Tensor *t = &blk->t;
  t->hdr.rc = 1;
  t->hdr.type = &tensor_type;
  t->dtype = dt;
  t->rank = 0;
  t->size = 1;
  t->offset = 0;
  t->buf = b;
  t->sym = NULL;
  t->tape_bits = 0;
  t->tape_id = 0;
  t->tape_loose = NULL;
  t->attrs = NULL;
  return t;
}

Tensor *tensor_view(Tensor *src, int rank, const tfs_i64 *shape, const tfs_i64 *strides, tfs_i64 offset) {
  Tensor *t = view_alloc();
  t->hdr.rc = 1;
  t->hdr.type = &tensor_type;
  t->dtype = src->dtype;
  t->rank = rank;
  t->size = 1;
  for (int i = 0; i < rank; i++) {
    t->shape[i] = shape[i];
    t->strides[i] = strides[i];
    t->size *= shape[i];
  }
  t->offset = offset;
  t->buf = src->buf;
  t->buf->rc++;
  t->sym = NULL;
  t->tape_bits = 0;
  t->tape_id = 0;
  t->tape_loose = NULL;
  t->attrs = NULL;
  return t;
}

bool tensor_is_contiguous(const Tensor *t) {
  tfs_i64 s = 1;
  for (int i = t->rank - 1; i >= 0; i--) {
    if (t->shape[i] != 1 && t->strides[i] != s) return false;
    s *= t->shape[i];
  }
  return true;
}

tfs_i64 tensor_elem_offset(const Tensor *t, tfs_i64 i) {
  tfs_i64 off = t->offset;
  for (int d = t->rank - 1; d >= 0; d--) {
    tfs_i64 n = t->shape[d];
    off += (i % n) * t->strides[d];
    i /= n;
  }
  return off;
}

/* Copy a strided view into a contiguous tensor of the same shape and dtype. */
void tensor_copy_into(Tensor *dst, const Tensor *src) {
  size_t esz = (size_t)dtype_info[src->dtype].size;
  char *o = tensor_data(dst);
  if (src->size == 0) return;
  if (tensor_is_contiguous(src)) {
    memcpy(o, tensor_data(src), (size_t)src->size * esz);
  } else {
    int r = src->rank;
    tfs_i64 idx[TFS_MAX_RANK] = {0};
    tfs_i64 inner = r ? src->shape[r - 1] : 1, is = r ? src->strides[r - 1] : 0;
    const char *base = (const char *)src->buf->data;
    for (tfs_i64 done = 0; done < src->size; done += inner) {
      tfs_i64 off = src->offset;
      for (int d = 0; d < r - 1; d++) off += idx[d] * src->strides[d];
      const char *p = base + off * (tfs_i64)esz;
      if (is == 1) {
        memcpy(o, p, (size_t)inner * esz);
        o += inner * (tfs_i64)esz;
      } else if (esz == 4) {
        for (tfs_i64 k = 0; k < inner; k++, o += 4) memcpy(o, p + k * is * 4, 4);
      } else if (esz == 8) {
        for (tfs_i64 k = 0; k < inner; k++, o += 8) memcpy(o, p + k * is * 8, 8);
      } else {
        for (tfs_i64 k = 0; k < inner; k++, o += esz) memcpy(o, p + k * is * (tfs_i64)esz, esz);
      }
      for (int d = r - 2; d >= 0; d--) {
        if (++idx[d] < src->shape[d]) break;
        idx[d] = 0;
      }
    }
  }
  if (dtype_holds_refs(src->dtype)) {
    Obj **s = tensor_data(dst);
    for (tfs_i64 i = 0; i < dst->size; i++)
      if (s[i]) s[i]->rc++;
  }
}

Tensor *tensor_copy(Tensor *t) {
  Tensor *c = tensor_new(t->dtype, t->rank, t->shape);
  tensor_copy_into(c, t);
  return c;
}

/* A copy sharing no object with t (a graph worker's own, graph/parexec.h): string elements are new strings,
 * so no reference count is shared between threads.  Not for variant tensors (their objects cannot be copied). */
Tensor *tensor_copy_own(Tensor *t) {
  Tensor *c = tensor_copy(t);
  if (c->dtype == DT_STRING) {
    Str **e = tensor_data(c);
    for (tfs_i64 i = 0; i < c->size; i++)
      if (e[i]) {
        Str *o = e[i];
        e[i] = (Str *)str_new(o->data, o->len).u.o;
        Val ov = val_obj(o);
        val_decref(ov);
      }
  }
  return c;
}

Tensor *tensor_contiguous(Tensor *t) {
  if (tensor_is_contiguous(t)) return tensor_retain(t);
  return tensor_copy(t);
}

double dtype_load_f(DType dt, const void *p) {
  switch (dt) {
  case DT_COMPLEX64: return *(const float *)p;   /* the real part */
  case DT_COMPLEX128: return *(const double *)p;
  case DT_FLOAT32: return *(const float *)p;
  case DT_FLOAT64: return *(const double *)p;
  case DT_FLOAT16: return f16_to_f32(*(const uint16_t *)p);
  case DT_BFLOAT16: return bf16_to_f32(*(const uint16_t *)p);
  case DT_UINT64: return (double)*(const uint64_t *)p;
  default: return (double)dtype_load_i(dt, p);
  }
}

tfs_i64 dtype_load_i(DType dt, const void *p) {
  switch (dt) {
  case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT16: case DT_BFLOAT16: case DT_COMPLEX64: case DT_COMPLEX128:
    return (tfs_i64)dtype_load_f(dt, p);
  case DT_INT32: return *(const int32_t *)p;
  case DT_INT64: return *(const int64_t *)p;
  case DT_BOOL: return *(const bool *)p;
  case DT_UINT8: return *(const uint8_t *)p;
  case DT_INT8: return *(const int8_t *)p;
  case DT_INT16: return *(const int16_t *)p;
  case DT_UINT16: return *(const uint16_t *)p;
  case DT_UINT32: return *(const uint32_t *)p;
  case DT_UINT64: return (tfs_i64)*(const uint64_t *)p;
  default: return 0;
  }
}

void dtype_store_f(DType dt, void *p, double x) {
  switch (dt) {
  case DT_FLOAT32: *(float *)p = (float)x; break;
  case DT_FLOAT64: *(double *)p = x; break;
  case DT_FLOAT16: *(uint16_t *)p = f32_to_f16((float)x); break;
  case DT_BFLOAT16: *(uint16_t *)p = f32_to_bf16((float)x); break;
  case DT_COMPLEX64: ((float *)p)[0] = (float)x, ((float *)p)[1] = 0; break;
  case DT_COMPLEX128: ((double *)p)[0] = x, ((double *)p)[1] = 0; break;
  case DT_BOOL: *(bool *)p = x != 0; break;
  default: dtype_store_i(dt, p, (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (tfs_i64)x : INT64_MIN); break;
  }
}

void dtype_store_c(DType dt, void *p, double re, double im) {
  if (dt == DT_COMPLEX64) ((float *)p)[0] = (float)re, ((float *)p)[1] = (float)im;
  else if (dt == DT_COMPLEX128) ((double *)p)[0] = re, ((double *)p)[1] = im;
  else dtype_store_f(dt, p, re);
}

void dtype_store_i(DType dt, void *p, tfs_i64 x) {
  switch (dt) {
  case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT16: case DT_BFLOAT16: case DT_COMPLEX64: case DT_COMPLEX128:
    dtype_store_f(dt, p, (double)x);
    break;
  case DT_INT32: *(int32_t *)p = (int32_t)(uint32_t)(uint64_t)x; break;
  case DT_INT64: *(int64_t *)p = x; break;
  case DT_BOOL: *(bool *)p = x != 0; break;
  case DT_UINT8: *(uint8_t *)p = (uint8_t)(uint64_t)x; break;
  case DT_INT8: *(int8_t *)p = (int8_t)(uint8_t)(uint64_t)x; break;
  case DT_INT16: *(int16_t *)p = (int16_t)(uint16_t)(uint64_t)x; break;
  case DT_UINT16: *(uint16_t *)p = (uint16_t)(uint64_t)x; break;
  case DT_UINT32: *(uint32_t *)p = (uint32_t)(uint64_t)x; break;
  case DT_UINT64: *(uint64_t *)p = (uint64_t)x; break;
  default: break;
  }
}

double tensor_get_f(const Tensor *t, tfs_i64 i) {
  return dtype_load_f(t->dtype, (const char *)t->buf->data + tensor_elem_offset(t, i) * dtype_info[t->dtype].size);
}

tfs_i64 tensor_get_i(const Tensor *t, tfs_i64 i) {
  return dtype_load_i(t->dtype, (const char *)t->buf->data + tensor_elem_offset(t, i) * dtype_info[t->dtype].size);
}

void tensor_get_c(const Tensor *t, tfs_i64 i, double *re, double *im) {
  const char *p = (const char *)t->buf->data + tensor_elem_offset(t, i) * dtype_info[t->dtype].size;
  switch (t->dtype) {
  case DT_COMPLEX64: *re = ((const float *)p)[0], *im = ((const float *)p)[1]; break;
  case DT_COMPLEX128: *re = ((const double *)p)[0], *im = ((const double *)p)[1]; break;
  default: *re = dtype_load_f(t->dtype, p), *im = 0; break;
  }
}

Val tensor_item(const Tensor *t, tfs_i64 i) {
  switch (t->dtype) {
  case DT_COMPLEX64: case DT_COMPLEX128: {
    double re, im;
    tensor_get_c(t, i, &re, &im);
    return complex_new(re, im);
  }
  case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT16: case DT_BFLOAT16: return val_float(tensor_get_f(t, i));
  case DT_UINT64:   /* above 2**63 - 1: the int kind that holds [2**63, 2**64) (object/u64int.c) */
    return u64int_new((tfs_u64)tensor_get_i(t, i));
  case DT_INT32: case DT_INT64: case DT_UINT8: case DT_INT8: case DT_INT16: case DT_UINT16: case DT_UINT32:
    return val_int(tensor_get_i(t, i));
  case DT_BOOL: return val_bool(tensor_get_i(t, i) != 0);
  case DT_STRING: {   /* numpy holds a string tensor's elements as bytes, as TF's .numpy() gives them */
    Str *s = ((Str **)t->buf->data)[tensor_elem_offset(t, i)];
    return s ? bytes_new(s->data, (size_t)s->len) : bytes_new("", 0);
  }
  case DT_VARIANT: {
    Obj *o = ((Obj **)t->buf->data)[tensor_elem_offset(t, i)];
    return o ? val_incref(val_obj(o)) : val_none();
  }
  default: return val_none();
  }
}

Tensor *val_as_tensor(Val v) {
  if (v.tag != VT_OBJ) return NULL;
  const Type *ty = v.u.o->type;
  if (ty == &tensor_type) return (Tensor *)v.u.o;
  if (ty == &variable_type) return variable_storage(v.u.o)->value;
  if (ty == &ndarray_type || val_is_npscalar(v)) return ((NdArray *)v.u.o)->t;
  return NULL;
}

/* ---- dtype objects ------------------------------------------------------------ */

typedef struct DTypeObj { Obj hdr; DType dt; } DTypeObj;

/* TF: str(tf.float32) is <dtype: 'float32'>, repr(tf.float32) is tf.float32 (in lists, TensorSpec). */
static void dtype_str(StrBuf *b, Val v) {
  sb_printf(b, "<dtype: '%s'>", dtype_info[((DTypeObj *)v.u.o)->dt].name);
}
static void dtype_repr(StrBuf *b, Val v) { sb_printf(b, "tf.%s", dtype_info[((DTypeObj *)v.u.o)->dt].name); }

static bool dtype_eq(Val a, Val b) {
  return val_is(a, &dtype_type) && val_is(b, &dtype_type) && ((DTypeObj *)a.u.o)->dt == ((DTypeObj *)b.u.o)->dt;
}

static tfs_u64 dtype_hash(Val v) { return 0x9e3779b97f4a7c15ULL * (tfs_u64)(((DTypeObj *)v.u.o)->dt + 1); }

/* TF's DType.__eq__ converts the other side with as_dtype: tf.int32 == "int32" (either order) is True; a string
   naming no dtype is unequal. */
static Val dtype_or_named(Val v) {
  if (!val_is(v, &str_type)) return v;
  Val d = dtype_named(str_cstr(v));
  return val_is_undef(d) ? v : d;
}

static Val dtype_compare(int op, Val a, Val b) {
  if (op != CMP_EQ && op != CMP_NE) return val_undef();
  bool eq = dtype_eq(dtype_or_named(a), dtype_or_named(b));
  return val_bool(op == CMP_EQ ? eq : !eq);
}

static Val dtype_getattr(Val self, const char *name) {
  DType dt = ((DTypeObj *)self.u.o)->dt;
  const DTypeInfo *di = &dtype_info[dt];
  if (!strcmp(name, "name")) return str_from_cstr(di->name);
  if (!strcmp(name, "is_floating")) return val_bool(di->is_float);
  if (!strcmp(name, "is_integer")) return val_bool(di->is_int);
  if (!strcmp(name, "is_bool")) return val_bool(dt == DT_BOOL);
  if (!strcmp(name, "is_complex")) return val_bool(dtype_is_complex(dt));
  if (!strcmp(name, "real_dtype")) return dtype_val(dtype_real_part(dt));
  if (!strcmp(name, "size")) return val_int(dt == DT_STRING ? 8 : di->size);
  if (!strcmp(name, "as_numpy_dtype")) return val_incref(self);
  if (!strcmp(name, "base_dtype")) return val_incref(self);
  if (!strcmp(name, "max") || !strcmp(name, "min")) {
    bool mx = name[1] == 'a';
    switch (dt) {
    case DT_FLOAT32: return val_float(mx ? 3.4028234663852886e38 : -3.4028234663852886e38);
    case DT_FLOAT64: return val_float(mx ? 1.7976931348623157e308 : -1.7976931348623157e308);
    case DT_INT32: return val_int(mx ? INT32_MAX : INT32_MIN);
    case DT_INT64: return val_int(mx ? INT64_MAX : INT64_MIN);
    case DT_BOOL: return val_bool(mx);
    case DT_UINT8: return val_int(mx ? 255 : 0);
    case DT_INT8: return val_int(mx ? 127 : -128);
    case DT_INT16: return val_int(mx ? 32767 : -32768);
    case DT_UINT16: return val_int(mx ? 65535 : 0);
    case DT_UINT32: return val_int(mx ? 4294967295 : 0);
    case DT_UINT64: if (!mx) return val_int(0); break;   /* 2**64 - 1 is past the host's 64-bit ints */
    case DT_FLOAT16: return val_float(mx ? 65504.0 : -65504.0);
    case DT_BFLOAT16: return val_float(mx ? 3.3895313892515355e38 : -3.3895313892515355e38);
    default: break;
    }
  }
  return val_undef();
}

const Type dtype_type = {
  .name = "DType", .repr = dtype_repr, .str = dtype_str, .getattr = dtype_getattr, .compare = dtype_compare,
  .eq = dtype_eq, .hash = dtype_hash,
};

/* Immortal singletons: the refcount never reaches zero. */
#define IMMORTAL ((tfs_i64)1 << 60)
static DTypeObj dtype_objs[DT__COUNT] = {
  {{IMMORTAL, &dtype_type}, DT_FLOAT32}, {{IMMORTAL, &dtype_type}, DT_FLOAT64},
  {{IMMORTAL, &dtype_type}, DT_INT32},   {{IMMORTAL, &dtype_type}, DT_INT64},
  {{IMMORTAL, &dtype_type}, DT_BOOL},    {{IMMORTAL, &dtype_type}, DT_STRING},
  {{IMMORTAL, &dtype_type}, DT_UINT8},   {{IMMORTAL, &dtype_type}, DT_INT8},
  {{IMMORTAL, &dtype_type}, DT_INT16},   {{IMMORTAL, &dtype_type}, DT_UINT16},
  {{IMMORTAL, &dtype_type}, DT_UINT32},  {{IMMORTAL, &dtype_type}, DT_UINT64},
  {{IMMORTAL, &dtype_type}, DT_FLOAT16}, {{IMMORTAL, &dtype_type}, DT_BFLOAT16},
  {{IMMORTAL, &dtype_type}, DT_VARIANT},  {{IMMORTAL, &dtype_type}, DT_COMPLEX64},
  {{IMMORTAL, &dtype_type}, DT_COMPLEX128}, {{IMMORTAL, &dtype_type}, DT_RESOURCE},
};

Val dtype_val(DType dt) { return val_obj(&dtype_objs[dt]); }

bool val_as_dtype(Val v, DType *out) {
  if (val_is(v, &dtype_type)) { *out = ((DTypeObj *)v.u.o)->dt; return true; }
  if (val_is(v, &npdtype_type)) { *out = ((DTypeObj *)v.u.o)->dt; return true; }
  if (val_is(v, &type_type)) {   /* np.float32, the scalar type, names its dtype as numpy allows */
    const Type *t = ((TypeObj *)v.u.o)->type;
    if (t >= npscalar_types && t < npscalar_types + DT__COUNT && t != &npscalar_types[DT_VARIANT]) { *out = (DType)(t - npscalar_types); return true; }
  }
  if (val_is(v, &str_type)) {
    const char *s = str_cstr(v);
    for (int d = 0; d < DT__COUNT; d++)
      if (!strcmp(s, dtype_info[d].name)) { *out = (DType)d; return true; }
    if (!strcmp(s, "float")) { *out = DT_FLOAT32; return true; }
    if (!strcmp(s, "double")) { *out = DT_FLOAT64; return true; }
    if (!strcmp(s, "half")) { *out = DT_FLOAT16; return true; }
  }
  return false;
}

/* A dtype in a position that takes only dtypes: also TF's DataType enum number (types.proto: tf.zeros(1, 1) is
 * float32), as tf.as_dtype accepts it. */
bool val_as_dtype_arg(Val v, DType *out) {
  if (val_as_dtype(v, out)) return true;
  if (v.tag != VT_INT) return false;
  static const int64_t tf_enum[DT__COUNT] = {1, 2, 3, 9, 10, 7, 4, 6, 5, 17, 22, 23, 19, 14, 21, 8, 18, 20};   /* ORDER DTYPE */
  for (int d = 0; d < DT__COUNT; d++)
    if (tf_enum[d] == v.u.i) { *out = (DType)d; return true; }
  return false;
}

void dtype_fail(Val v) {
  StrBuf b;
  sb_init(&b);
  val_repr(&b, v);
  static char text[200];
  snprintf(text, sizeof text, "%.*s", (int)b.len, b.data ? b.data : "");
  sb_free(&b);
  rt_throw(ERR_TYPE, "Cannot convert the argument `type_value`: %s to a TensorFlow DType.", text);
}

/* ---- conversion of host values (docs/reference/tf-notes.md) ----------------------- */

typedef struct Scan {
  int rank;                   /* rank of the result */
  tfs_i64 shape[TFS_MAX_RANK];
  int lrank;                  /* nesting depth of host lists */
  bool has_float, has_int, has_bool, has_str, int64, has_complex, has_big;   /* has_big: an int above int64 */
  int tdt;                    /* dtype of the first tensor leaf, -1 none */
} Scan;

/* A str subclass's instance (numpy.str_) as the str it extends; other values as they are. */
static Val text_of(Val v) {
  Val b = inst_base(v);
  return val_is(b, &str_type) ? b : v;
}

static _Noreturn void fail_unsupported(Val v) {
  StrBuf b;
  sb_init(&b);
  val_repr(&b, v);
  char *r = sb_steal(&b);
  static char msg[512];
  snprintf(msg, sizeof msg, "%s", r);
  free(r);
  rt_throw(ERR_VALUE, "Attempt to convert a value (%s) with an unsupported type (<class '%s'>) to a Tensor.", msg,
           val_type_name(v));
}

static _Noreturn void fail_convert(Val v, int want) {
  StrBuf b;
  sb_init(&b);
  val_repr(&b, v);
  char *r = sb_steal(&b);
  static char msg[512];
  snprintf(msg, sizeof msg, "%s", r);
  free(r);
  if (want >= 0) rt_throw(ERR_TYPE, "Cannot convert %s to EagerTensor of dtype %s", msg, dtype_info[want].name);
  rt_throw(ERR_TYPE, "Failed to convert elements of %s to Tensor.", msg);
}

static void scan_shape(Scan *s, Val v) {
  s->rank = s->lrank = 0;
  s->tdt = -1;
  for (;;) {
    tfs_i64 n;
    const Val *items;
    if (seq_items(v, &n, &items)) {
      if (s->rank >= TFS_MAX_RANK) rt_throw(ERR_VALUE, "tensors of rank > %d are not supported", TFS_MAX_RANK);
      s->shape[s->rank++] = n;
      s->lrank++;
      if (n == 0) return;
      v = items[0];
      continue;
    }
    Tensor *t = val_as_tensor(v);
    if (t) {
      if (s->rank + t->rank > TFS_MAX_RANK) rt_throw(ERR_VALUE, "tensors of rank > %d are not supported", TFS_MAX_RANK);
      for (int i = 0; i < t->rank; i++) s->shape[s->rank++] = t->shape[i];
    }
    return;
  }
}

static void scan_check(Scan *s, Val v, int depth, Val whole) {
  if (depth < s->lrank) {
    tfs_i64 n;
    const Val *items;
    if (!seq_items(v, &n, &items) || n != s->shape[depth])
      rt_throw(ERR_VALUE, "Can't convert non-rectangular Python sequence to Tensor.");
    for (tfs_i64 i = 0; i < n; i++) scan_check(s, items[i], depth + 1, whole);
    return;
  }
  tfs_i64 n;
  const Val *items;
  if (seq_items(v, &n, &items)) rt_throw(ERR_VALUE, "Can't convert non-rectangular Python sequence to Tensor.");
  Tensor *t = val_as_tensor(v);
  if (t) {
    if (t->sym) rt_throw(ERR_TYPE, "a symbolic tensor cannot be packed into a constant");
    if (t->rank != s->rank - depth) rt_throw(ERR_VALUE, "Can't convert non-rectangular Python sequence to Tensor.");
    for (int i = 0; i < t->rank; i++)
      if (t->shape[i] != s->shape[depth + i]) rt_throw(ERR_VALUE, "Can't convert non-rectangular Python sequence to Tensor.");
    if (s->tdt < 0) s->tdt = t->dtype;
    else if (s->tdt != (int)t->dtype) fail_convert(whole, -1);
    return;
  }
  if (depth != s->rank) rt_throw(ERR_VALUE, "Can't convert non-rectangular Python sequence to Tensor.");
  switch (v.tag) {
  case VT_BOOL: s->has_bool = true; break;
  case VT_INT:
    s->has_int = true;
    if (v.u.i < INT32_MIN || v.u.i > INT32_MAX) s->int64 = true;
    break;
  case VT_FLOAT: s->has_float = true; break;
  default:
    if (val_is(v, &u64int_type) || val_is(v, &bigint_type)) { s->has_int = s->int64 = s->has_big = true; break; }
    if (val_is(text_of(v), &str_type) || val_is(v, &bytes_type)) { s->has_str = true; break; }
    if (val_is(v, &complex_type)) { s->has_complex = true; break; }
    fail_unsupported(v);
  }
}

/* Write leaf values in row-major order. */
static void fill_from(Val v, int depth, int lrank, DType dt, char **p, Val whole) {
  if (depth < lrank) {
    tfs_i64 n;
    const Val *items;
    seq_items(v, &n, &items);
    for (tfs_i64 i = 0; i < n; i++) fill_from(items[i], depth + 1, lrank, dt, p, whole);
    return;
  }
  Tensor *t = val_as_tensor(v);
  size_t esz = (size_t)dtype_info[dt].size;
  if (t) {
    Tensor tmp = *t;  /* contiguous copy of the leaf into place */
    Tensor *c = tensor_new(dt, t->rank, t->shape);
    tensor_copy_into(c, &tmp);
    memcpy(*p, tensor_data(c), (size_t)c->size * esz);
    if (dtype_holds_refs(dt)) {  /* ownership of the element refs moves to the destination */
      Obj **s = tensor_data(c);
      for (tfs_i64 i = 0; i < c->size; i++) s[i] = NULL;
    }
    *p += c->size * (tfs_i64)esz;
    tensor_release(c);
    return;
  }
  /* A Python bool is an int: it converts to numeric dtypes as 0 / 1 (TF does too). */
  bool is_int = v.tag == VT_INT || v.tag == VT_BOOL;
  tfs_u64 big;
  if (val_is(v, &bigint_type)) {   /* beyond uint64: only the float and complex converters take it */
    double d = dt == DT_FLOAT32 || dt == DT_FLOAT64 || dt == DT_COMPLEX128 ? bigint_float(v) : 0;
    if (dt == DT_FLOAT32) *(float *)*p = (float)d;
    else if (dt == DT_FLOAT64) *(double *)*p = d;
    else if (dt == DT_COMPLEX128) dtype_store_c(dt, *p, d, 0);
    else rt_throw(ERR_VALUE, "Can't convert Python sequence with out-of-range integer to Tensor.");
    *p += esz;
    return;
  }
  if (u64int_value(v, &big)) {
    /* an int above int64: TF's converters take it for uint64, float32/64 and complex128 only; for the
     * others (and without a dtype) they fall back to int64, which it overflows */
    if (dt == DT_UINT64) *(uint64_t *)*p = big;
    else if (dt == DT_FLOAT32) *(float *)*p = (float)big;
    else if (dt == DT_FLOAT64) *(double *)*p = (double)big;
    else if (dt == DT_COMPLEX128) dtype_store_c(dt, *p, (double)big, 0);
    else rt_throw(ERR_VALUE, "Can't convert Python sequence with out-of-range integer to Tensor.");
    *p += esz;
    return;
  }
  switch (dt) {
  case DT_FLOAT32:
    if (v.tag == VT_FLOAT) *(float *)*p = (float)v.u.f;
    else if (is_int) *(float *)*p = (float)v.u.i;
    else fail_convert(whole, dt);
    break;
  case DT_FLOAT64:
    if (v.tag == VT_FLOAT) *(double *)*p = v.u.f;
    else if (is_int) *(double *)*p = (double)v.u.i;
    else fail_convert(whole, dt);
    break;
  case DT_INT32:
    if (!is_int || v.u.i < INT32_MIN || v.u.i > INT32_MAX) fail_convert(whole, dt);
    *(int32_t *)*p = (int32_t)v.u.i;
    break;
  case DT_INT64:
    if (!is_int) fail_convert(whole, dt);
    *(int64_t *)*p = v.u.i;
    break;
  case DT_UINT8: case DT_INT8: case DT_INT16: case DT_UINT16: case DT_UINT32: case DT_UINT64: {
    static const int64_t lo[] = {0, -128, -32768, 0, 0, 0}, hi[] = {255, 127, 32767, 65535, 4294967295, INT64_MAX};
    int k = dt == DT_UINT8 ? 0 : dt - DT_INT8 + 1;
    if (!is_int || v.u.i < lo[k] || v.u.i > hi[k]) fail_convert(whole, dt);
    dtype_store_i(dt, *p, v.u.i);
    break;
  }
  case DT_FLOAT16: case DT_BFLOAT16:
    if (v.tag == VT_FLOAT) dtype_store_f(dt, *p, v.u.f);
    else if (is_int) dtype_store_f(dt, *p, (double)(float)v.u.i);
    else fail_convert(whole, dt);
    break;
  case DT_BOOL:
    if (v.tag != VT_BOOL) fail_convert(whole, dt);
    *(bool *)*p = v.u.i != 0;
    break;
  case DT_COMPLEX64: case DT_COMPLEX128: {
    double re, im = 0;
    if (val_is(v, &complex_type)) complex_parts(v, &re, &im);
    else if (v.tag == VT_FLOAT) re = v.u.f;
    else if (is_int) re = (double)v.u.i;
    else fail_convert(whole, dt);
    dtype_store_c(dt, *p, re, im);
    break;
  }
  case DT_STRING:
    if (val_is(v, &bytes_type)) {   /* a string element holds bytes: b'..' keeps them as they are */
      size_t n;
      const void *d = bytes_data(v, &n);
      *(Str **)*p = (Str *)str_new(d, (tfs_i64)n).u.o;
      break;
    }
    v = text_of(v);
    if (!val_is(v, &str_type)) fail_convert(whole, dt);
    v.u.o->rc++;
    *(Str **)*p = (Str *)v.u.o;
    break;
  default:
    break;
  }
  *p += esz;
}

static void tshape_str(StrBuf *b, Val v);

/* A TensorShape as TF's registered conversion makes it (constant_op.py): fully defined shapes only, int32 unless a
 * dimension needs int64, and only to an integer dtype. */
static Tensor *tshape_to_tensor(const TShape *s, int want) {
  StrBuf b;
  sb_init(&b);
  tshape_str(&b, val_obj((Obj *)s));
  static char text[256];
  snprintf(text, sizeof text, "%.*s", (int)b.len, b.data ? b.data : "");
  sb_free(&b);
  bool big = false;
  for (int i = 0; i < s->rank; i++) {
    if (s->dims[i] < 0) rt_throw(ERR_VALUE, "Cannot convert a partially known TensorShape %s to a Tensor.", text);
    if (s->dims[i] >= ((tfs_i64)1 << 31)) big = true;
  }
  if (s->rank < 0) rt_throw(ERR_VALUE, "Cannot convert a partially known TensorShape %s to a Tensor.", text);
  if (want >= 0 && want != DT_INT32 && want != DT_INT64)
    rt_throw(ERR_TYPE, "Cannot convert TensorShape %s to dtype <dtype: '%s'>. Allowed dtypes are tf.int32 and tf.int64.",
             text, dtype_info[want].name);
  if (want == DT_INT32 && big)
    rt_throw(ERR_VALUE, "Cannot convert TensorShape %s to dtype int32; a dimension is too large. Consider using tf.int64.",
             text);
  DType dt = want >= 0 ? (DType)want : big ? DT_INT64 : DT_INT32;
  tfs_i64 n = s->rank;
  Tensor *t = tensor_new(dt, 1, &n);
  for (int i = 0; i < s->rank; i++) {
    if (dt == DT_INT32) ((int32_t *)tensor_data(t))[i] = (int32_t)s->dims[i];
    else ((int64_t *)tensor_data(t))[i] = s->dims[i];
  }
  return t;
}

Tensor *tensor_from_val(Val v, int want) {
  /* fast paths: host scalars */
  switch (v.tag) {
  case VT_INT:
    if (want < 0) want = (v.u.i < INT32_MIN || v.u.i > INT32_MAX) ? DT_INT64 : DT_INT32;
    break;
  case VT_FLOAT:
    if (want < 0) want = DT_FLOAT32;
    break;
  case VT_BOOL:
    if (want < 0) want = DT_BOOL;
    break;
  default: {
    if (val_is(v, &u64int_type) || val_is(v, &bigint_type)) {
      if (want < 0) want = DT_INT64;   /* fill_from raises TF's out-of-range error */
      break;
    }
    if (val_is(v, &complex_type)) {
      if (want < 0) want = DT_COMPLEX128;
      break;
    }
    Tensor *t = val_as_tensor(v);
    if (t) {
      bool compat = (dtype_info[want < 0 ? 0 : want].is_int && dtype_info[t->dtype].is_int) ||
                    (dtype_info[want < 0 ? 0 : want].is_float && (dtype_info[t->dtype].is_float || dtype_info[t->dtype].is_int)) ||
                    (want >= 0 && dtype_is_complex((DType)want) && (dtype_is_complex(t->dtype) || dtype_info[t->dtype].is_float));
      if (want >= 0 && (int)t->dtype != want && val_is_ndarray(v) && compat && !t->sym) {
        /* a numpy value converts to a compatible dtype, as TF's eager conversion casts it (float64 to float32) */
        Tensor *r = tensor_new((DType)want, t->rank, t->shape);
        void *d = tensor_data(r);
        for (tfs_i64 i = 0; i < t->size; i++) {
          char *e = (char *)d + i * dtype_info[want].size;
          double re, im;
          tensor_get_c(t, i, &re, &im);
          if (dtype_is_complex((DType)want)) dtype_store_c((DType)want, e, re, im);
          else if (dtype_info[want].is_float) dtype_store_f((DType)want, e, tensor_get_f(t, i));
          else dtype_store_i((DType)want, e, tensor_get_i(t, i));
        }
        return r;
      }
      if (want >= 0 && (int)t->dtype != want) {
        rt_throw(ERR_TYPE, "Expected tensor with dtype %s, but got dtype %s", dtype_info[want].name,
                 dtype_info[t->dtype].name);
      }
      return tensor_retain(t);
    }
    if (val_is(v, &tshape_type)) return tshape_to_tensor((const TShape *)v.u.o, want);
    if (val_is(v, &range_type)) {   /* TF converts a range as the sequence of its values */
      Val l = list_from_iterable(v);
      int hm = rt_hold_val(l);
      Tensor *r = tensor_from_val(l, want);
      rt_unhold(hm);
      TFS_DECREF(l);
      return r;
    }
    if (val_is(v, &npobj_type)) {   /* an object array: TF converts text ones only */
      Val items = npobj_values(v);
      int hm = rt_hold_val(items);
      List *l = (List *)items.u.o;
      for (tfs_i64 i = 0; i < l->len; i++)
        if (!val_is(l->items[i], &str_type) && !val_is(l->items[i], &bytes_type)) npobj_to_tensor_fail(v);
      Tensor *r = tensor_from_val(items, want < 0 ? DT_STRING : want);
      rt_unhold(hm);
      val_decref(items);
      NpObj *a = (NpObj *)v.u.o;
      tfs_i64 st[TFS_MAX_RANK], k = 1;
      for (int i = a->rank - 1; i >= 0; i--) { st[i] = k; k *= a->shape[i]; }
      Tensor *s = tensor_view(r, a->rank, a->shape, st, 0);
      tensor_release(r);
      return s;
    }
    v = text_of(v);
    if (!val_is(v, &list_type) && !val_is(v, &tuple_type) && !val_is(v, &str_type) && !val_is(v, &bytes_type))
      fail_unsupported(v);
    Scan s = {0};
    scan_shape(&s, v);
    scan_check(&s, v, 0, v);
    if (want < 0) {
      if (s.tdt >= 0) want = s.tdt;
      else if (s.has_str) want = DT_STRING;
      else if (s.has_complex) want = DT_COMPLEX128;   /* TF: a Python complex is complex128 */
      else if (s.has_float) want = DT_FLOAT32;
      else if (s.has_int) want = s.int64 ? DT_INT64 : DT_INT32;
      else if (s.has_bool) want = DT_BOOL;
      else want = DT_FLOAT32;  /* [] */
      if ((s.has_str && (s.has_float || s.has_int || s.has_bool || s.has_complex)) ||
          (s.has_bool && (s.has_int || s.has_float || s.has_complex)))
        fail_convert(v, -1);
    }
    if (s.tdt >= 0 && s.tdt != want) fail_convert(v, want);
    /* TF's converter of such a dtype fails on the list (mixed types, say) and falls back to int64's */
    if (s.has_big && want != DT_UINT64 && want != DT_FLOAT32 && want != DT_FLOAT64 && want != DT_COMPLEX128)
      rt_throw(ERR_VALUE, "Can't convert Python sequence with out-of-range integer to Tensor.");
    Tensor *t2 = tensor_new((DType)want, s.rank, s.shape);
    char *p = tensor_data(t2);
    int mark = rt_hold_val(val_obj(t2)); /* fill_from raises on values the dtype cannot hold */
    fill_from(v, 0, s.lrank, (DType)want, &p, v);
    rt_unhold(mark);
    return t2;
  }
  }
  Tensor *t = tensor_scalar((DType)want);
  char *p = tensor_data(t);
  int mark = rt_hold_val(val_obj(t));
  fill_from(v, 0, 0, (DType)want, &p, v);
  rt_unhold(mark);
  return t;
}

int val_to_dims(Val v, tfs_i64 *dims, bool allow_unknown, const char *what) {
  tfs_i64 n;
  const Val *items;
  if (v.tag == VT_INT) {
    if (v.u.i < 0) rt_throw(ERR_INVALID_ARGUMENT, "%s: dimension %lld must be >= 0", what, (long long)v.u.i);
    dims[0] = v.u.i;
    return 1;
  }
  if (val_is(v, &tshape_type)) {
    TShape *s = (TShape *)v.u.o;
    if (s->rank < 0) rt_throw(ERR_VALUE, "%s: shape of unknown rank", what);
    for (int i = 0; i < s->rank; i++) {
      if (s->dims[i] < 0 && !allow_unknown) rt_throw(ERR_VALUE, "%s: shape must be fully defined, got (None)", what);
      dims[i] = s->dims[i];
    }
    return s->rank;
  }
  if (seq_items(v, &n, &items)) {
    if (n > TFS_MAX_RANK) rt_throw(ERR_VALUE, "%s: tensors of rank > %d are not supported", what, TFS_MAX_RANK);
    for (tfs_i64 i = 0; i < n; i++) {
      Val d = items[i];
      Tensor *dt = val_as_tensor(d);
      if (d.tag == VT_INT) dims[i] = d.u.i;
      else if (dt && dt->size == 1 && dtype_info[dt->dtype].is_int && !dt->sym) dims[i] = tensor_get_i(dt, 0);
      else if (d.tag == VT_NONE && allow_unknown) dims[i] = -1;
      else rt_throw(ERR_TYPE, "%s: expected a list of integers for the shape, got %s", what, val_type_name(d));
      if (dims[i] < -1 || (dims[i] == -1 && !allow_unknown))
        rt_throw(ERR_INVALID_ARGUMENT, "%s: dimension %lld must be >= 0", what, (long long)dims[i]);
    }
    return (int)n;
  }
  Tensor *t = val_as_tensor(v);
  if (t && !t->sym && dtype_info[t->dtype].is_int && t->rank <= 1) {
    if (t->size > TFS_MAX_RANK) rt_throw(ERR_VALUE, "%s: tensors of rank > %d are not supported", what, TFS_MAX_RANK);
    for (tfs_i64 i = 0; i < t->size; i++) {
      dims[i] = tensor_get_i(t, i);
      if (dims[i] < -1 || (dims[i] == -1 && !allow_unknown))
        rt_throw(ERR_INVALID_ARGUMENT, "%s: dimension %lld must be >= 0", what, (long long)dims[i]);
    }
    return t->rank == 0 ? (dims[0] = tensor_get_i(t, 0), 1) : (int)t->size;
  }
  rt_throw(ERR_TYPE, "%s: expected a shape (list of integers), got %s", what, val_type_name(v));
}

/* ---- shapes ----------------------------------------------------------------------- */

void shape_format(StrBuf *b, int rank, const tfs_i64 *shape) {
  if (rank < 0) { sb_puts(b, "<unknown>"); return; }
  sb_putc(b, '(');
  for (int i = 0; i < rank; i++) {
    if (i) sb_puts(b, ", ");
    if (shape[i] < 0) sb_puts(b, "None");
    else sb_printf(b, "%lld", (long long)shape[i]);
  }
  if (rank == 1) sb_putc(b, ',');
  sb_putc(b, ')');
}

Val tshape_new(int rank, const tfs_i64 *dims) {
  TShape *s = obj_new(&tshape_type, sizeof(TShape));
  s->rank = rank;
  for (int i = 0; i < rank; i++) s->dims[i] = dims[i] < 0 ? -1 : dims[i];
  return val_obj(s);
}

int val_shape_like(Val v, tfs_i64 *dims, const char *what) {
  int rank;
  return val_as_tshape(v, &rank, dims) ? rank : val_to_dims(v, dims, true, what);
}

bool shape_compatible(int ra, const tfs_i64 *a, int rb, const tfs_i64 *b) {
  if (ra < 0 || rb < 0) return true;
  if (ra != rb) return false;
  for (int i = 0; i < ra; i++)
    if (a[i] >= 0 && b[i] >= 0 && a[i] != b[i]) return false;
  return true;
}

bool val_as_tshape(Val v, int *rank, tfs_i64 *dims) {
  if (val_is(v, &tshape_type)) {
    TShape *s = (TShape *)v.u.o;
    *rank = s->rank;
    for (int i = 0; i < s->rank; i++) dims[i] = s->dims[i];
    return true;
  }
  if (v.tag == VT_NONE) { *rank = -1; return true; }
  tfs_i64 n;
  const Val *items;
  if (seq_items(v, &n, &items)) {
    if (n > TFS_MAX_RANK) return false;
    for (tfs_i64 i = 0; i < n; i++) {
      if (items[i].tag == VT_INT && items[i].u.i >= 0) dims[i] = items[i].u.i;
      else if (items[i].tag == VT_NONE) dims[i] = -1;
      else return false;
    }
    *rank = (int)n;
    return true;
  }
  return false;
}

static Val dim_val(tfs_i64 d) { return d < 0 ? val_none() : val_int(d); }

static void tshape_str(StrBuf *b, Val v) {
  TShape *s = (TShape *)v.u.o;
  shape_format(b, s->rank, s->dims);
}

static void tshape_repr(StrBuf *b, Val v) {
  TShape *s = (TShape *)v.u.o;
  if (s->rank < 0) { sb_puts(b, "TensorShape(None)"); return; }
  sb_puts(b, "TensorShape([");
  for (int i = 0; i < s->rank; i++) {
    if (i) sb_puts(b, ", ");
    if (s->dims[i] < 0) sb_puts(b, "None");
    else sb_printf(b, "%lld", (long long)s->dims[i]);
  }
  sb_puts(b, "])");
}

//! TensorShape.as_list()
//!   The dimensions as a list of ints (None for unknown ones).
static Val tshape_as_list(Val self, int n, const Val *args, const Kw *kw) {
  TShape *s = (TShape *)self.u.o;
  (void)n; (void)args; (void)kw;
  if (s->rank < 0) rt_throw(ERR_VALUE, "as_list() is not defined on an unknown TensorShape.");
  Val l = list_new(s->rank);
  for (int i = 0; i < s->rank; i++) list_append(l, dim_val(s->dims[i]));
  return l;
}

//! TensorShape.is_fully_defined()
//!   True when the rank and every dimension are known.
static Val tshape_is_fully_defined(Val self, int n, const Val *args, const Kw *kw) {
  TShape *s = (TShape *)self.u.o;
  (void)n; (void)args; (void)kw;
  if (s->rank < 0) return val_bool(false);
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] < 0) return val_bool(false);
  return val_bool(true);
}

//! TensorShape.num_elements()
//!   The number of elements, or None if a dimension is unknown.
static Val tshape_num_elements(Val self, int n, const Val *args, const Kw *kw) {
  TShape *s = (TShape *)self.u.o;
  (void)n; (void)args; (void)kw;
  if (s->rank < 0) return val_none();
  tfs_i64 e = 1;
  for (int i = 0; i < s->rank; i++) {
    if (s->dims[i] < 0) return val_none();
    e *= s->dims[i];
  }
  return val_int(e);
}

/* the other shape of a two-shape method (a TensorShape, a list/tuple of ints and None, or None) */
static void tshape_other(const char *what, int n, const Val *args, const Kw *kw, int *rank, tfs_i64 *dims) {
  if (n != 1 || (kw && kw->n)) rt_throw(ERR_TYPE, "TensorShape.%s() takes 1 argument (other), got %d", what, n);
  if (!val_as_tshape(args[0], rank, dims)) rt_throw(ERR_TYPE, "TensorShape.%s(): cannot convert a %s to a TensorShape", what, val_type_name(args[0]));
}

//! TensorShape.is_compatible_with(other)
//!   True when some shape fits both: an unknown rank fits any, else equal ranks with each pair of known dimensions equal.
static Val tshape_is_compatible_with(Val self, int n, const Val *args, const Kw *kw) {
  TShape *s = (TShape *)self.u.o;
  int r;
  tfs_i64 d[TFS_MAX_RANK];
  tshape_other("is_compatible_with", n, args, kw, &r, d);
  return val_bool(shape_compatible(s->rank, s->dims, r, d));
}

//! TensorShape.merge_with(other)
//!   The shape with the known dimensions of both; ValueError "Shapes … and … are not compatible" when they differ.
static Val tshape_merge_with(Val self, int n, const Val *args, const Kw *kw) {
  TShape *s = (TShape *)self.u.o;
  int r;
  tfs_i64 d[TFS_MAX_RANK];
  tshape_other("merge_with", n, args, kw, &r, d);
  if (s->rank < 0) return tshape_new(r, d);
  if (r < 0) return val_incref(self);
  if (!shape_compatible(s->rank, s->dims, r, d)) {
    StrBuf a, b;
    sb_init(&a);
    sb_init(&b);
    shape_format(&a, s->rank, s->dims);
    shape_format(&b, r, d);
    char *ma = sb_steal(&a), *mb = sb_steal(&b);
    rt_hold_mem(ma);
    rt_hold_mem(mb);
    rt_throw(ERR_VALUE, "Shapes %s and %s are not compatible", ma, mb);
  }
  for (int i = 0; i < r; i++) d[i] = s->dims[i] >= 0 ? s->dims[i] : d[i];
  return tshape_new(r, d);
}

//! TensorShape.most_specific_compatible_shape(other)
//!   The most specific shape both fit: dimensions equal in both kept, others None; unknown rank when the ranks differ.
static Val tshape_most_specific(Val self, int n, const Val *args, const Kw *kw) {
  TShape *s = (TShape *)self.u.o;
  int r;
  tfs_i64 d[TFS_MAX_RANK];
  tshape_other("most_specific_compatible_shape", n, args, kw, &r, d);
  if (s->rank < 0 || r != s->rank) return tshape_new(-1, d);
  for (int i = 0; i < r; i++) d[i] = d[i] == s->dims[i] ? d[i] : -1;
  return tshape_new(r, d);
}

//! TensorShape.concatenate(other)
//!   The dimensions of this shape followed by other's; unknown rank when either rank is unknown.
static Val tshape_concatenate(Val self, int n, const Val *args, const Kw *kw) {
  TShape *s = (TShape *)self.u.o;
  int r;
  tfs_i64 d[TFS_MAX_RANK], o[TFS_MAX_RANK];
  tshape_other("concatenate", n, args, kw, &r, d);
  if (s->rank < 0 || r < 0) return tshape_new(-1, d);
  if (s->rank + r > TFS_MAX_RANK) rt_throw(ERR_VALUE, "TensorShape.concatenate: rank %d is more than tfs's %d", s->rank + r, TFS_MAX_RANK);
  for (int i = 0; i < s->rank; i++) o[i] = s->dims[i];
  for (int i = 0; i < r; i++) o[s->rank + i] = d[i];
  return tshape_new(s->rank + r, o);
}

static Val tshape_getattr(Val self, const char *name) {
  TShape *s = (TShape *)self.u.o;
  if (!strcmp(name, "rank") || !strcmp(name, "ndims")) return s->rank < 0 ? val_none() : val_int(s->rank);
  if (!strcmp(name, "as_list")) return builtin_new("TensorShape.as_list", tshape_as_list, self, NULL);
  if (!strcmp(name, "is_fully_defined")) return builtin_new("TensorShape.is_fully_defined", tshape_is_fully_defined, self, NULL);
  if (!strcmp(name, "num_elements")) return builtin_new("TensorShape.num_elements", tshape_num_elements, self, NULL);
  if (!strcmp(name, "is_compatible_with")) return builtin_new("TensorShape.is_compatible_with", tshape_is_compatible_with, self, NULL);
  if (!strcmp(name, "merge_with")) return builtin_new("TensorShape.merge_with", tshape_merge_with, self, NULL);
  if (!strcmp(name, "most_specific_compatible_shape"))
    return builtin_new("TensorShape.most_specific_compatible_shape", tshape_most_specific, self, NULL);
  if (!strcmp(name, "concatenate")) return builtin_new("TensorShape.concatenate", tshape_concatenate, self, NULL);
  if (!strcmp(name, "dims")) {
    if (s->rank < 0) return val_none();
    Val l = list_new(s->rank);
    for (int i = 0; i < s->rank; i++) list_append(l, dim_val(s->dims[i]));
    return l;
  }
  return val_undef();
}

static tfs_i64 tshape_len(Val self) {
  TShape *s = (TShape *)self.u.o;
  if (s->rank < 0) rt_throw(ERR_VALUE, "Cannot take the length of shape with unknown rank.");
  return s->rank;
}

static Val tshape_getitem(Val self, Val key) {
  TShape *s = (TShape *)self.u.o;
  if (s->rank < 0) return val_none();
  if (val_is(key, &slice_type)) {
    Slice *sl = (Slice *)key.u.o;
    tfs_i64 step = sl->step.tag == VT_NONE ? 1 : val_to_index(sl->step, "slice step");
    if (step == 0) rt_throw(ERR_VALUE, "slice step cannot be zero");
    tfs_i64 n = s->rank, lo, hi;
    if (step > 0) {
      lo = sl->lo.tag == VT_NONE ? 0 : val_to_index(sl->lo, "slice index");
      hi = sl->hi.tag == VT_NONE ? n : val_to_index(sl->hi, "slice index");
      if (lo < 0) lo += n;
      if (hi < 0) hi += n;
      lo = lo < 0 ? 0 : lo > n ? n : lo;
      hi = hi < 0 ? 0 : hi > n ? n : hi;
    } else {
      lo = sl->lo.tag == VT_NONE ? n - 1 : val_to_index(sl->lo, "slice index");
      hi = sl->hi.tag == VT_NONE ? -1 : val_to_index(sl->hi, "slice index");
      if (sl->lo.tag != VT_NONE && lo < 0) lo += n;
      if (sl->hi.tag != VT_NONE && hi < 0) hi += n;
      lo = lo < -1 ? -1 : lo > n - 1 ? n - 1 : lo;
      hi = hi < -1 ? -1 : hi > n - 1 ? n - 1 : hi;
    }
    tfs_i64 dims[TFS_MAX_RANK];
    int r = 0;
    for (tfs_i64 i = lo; step > 0 ? i < hi : i > hi; i += step) dims[r++] = s->dims[i];
    return tshape_new(r, dims);
  }
  tfs_i64 i = val_to_index(key, "TensorShape index");
  if (i < 0) i += s->rank;
  if (i < 0 || i >= s->rank) rt_throw(ERR_INDEX, "list index out of range");
  return dim_val(s->dims[i]);
}

static Val tshape_iter(Val self) {
  TShape *s = (TShape *)self.u.o;
  if (s->rank < 0) rt_throw(ERR_VALUE, "Cannot iterate over a shape with unknown rank.");
  Val l = tshape_as_list(self, 0, NULL, NULL);
  Val it = rt_iter(l);
  TFS_DECREF(l);
  return it;
}

static bool tshape_eq(Val a, Val b) {
  int ra, rb;
  tfs_i64 da[TFS_MAX_RANK], db[TFS_MAX_RANK];
  if (!val_as_tshape(a, &ra, da) || !val_as_tshape(b, &rb, db)) return false;
  if (ra != rb) return false;
  for (int i = 0; i < ra; i++)
    if (da[i] != db[i]) return false;
  return true;
}

static Val tshape_compare(int op, Val a, Val b) {
  if (op != CMP_EQ && op != CMP_NE) return val_undef();
  bool eq = tshape_eq(a, b);
  return val_bool(op == CMP_EQ ? eq : !eq);
}

static void plain_free(Obj *o) { free(o); }

const Type tshape_type = {
  .name = "TensorShape", .free = plain_free, .repr = tshape_repr, .str = tshape_str, .getattr = tshape_getattr,
  .getitem = tshape_getitem, .iter = tshape_iter, .len = tshape_len, .compare = tshape_compare, .eq = tshape_eq,
};

/* ---- the tensor type ----------------------------------------------------------------- */

/* str (Tensor("x:0", shape=(), dtype=float32)) or repr (<tf.Tensor 'x:0' shape=() dtype=float32>) of a
 * symbolic tensor: set by the graph layer. */
void (*tensor_sym_repr)(StrBuf *b, const Tensor *t, bool repr);

static void tensor_str(StrBuf *b, Val v) {
  Tensor *t = val_tensor(v);
  if (t->sym && tensor_sym_repr) { tensor_sym_repr(b, t, false); return; }
  StrBuf s;
  sb_init(&s);
  ndarray_str_tensor(&s, t);
  sb_puts(b, "tf.Tensor(");
  if (s.len && memchr(s.data, '\n', s.len)) sb_putc(b, '\n');
  sb_putn(b, s.data, s.len);
  sb_free(&s);
  sb_puts(b, ", shape=");
  shape_format(b, t->rank, t->shape);
  sb_printf(b, ", dtype=%s)", dtype_info[t->dtype].name);
}

/* numpy's repr of t, after a newline when it spans lines (TF's numpy_text(is_repr=True)). */
static void numpy_repr_text(StrBuf *b, const Tensor *t) {
  StrBuf s;
  sb_init(&s);
  if (t->rank == 0) ndarray_scalar_repr(&s, t);   /* .numpy() of a 0-d tensor is a numpy scalar */
  else ndarray_repr_tensor(&s, (Tensor *)t);
  if (s.len && memchr(s.data, '\n', s.len)) sb_putc(b, '\n');
  sb_putn(b, s.data, s.len);
  sb_free(&s);
}

static void tensor_repr(StrBuf *b, Val v) {
  Tensor *t = val_tensor(v);
  if (t->sym && tensor_sym_repr) { tensor_sym_repr(b, t, true); return; }
  sb_puts(b, "<tf.Tensor: shape=");
  shape_format(b, t->rank, t->shape);
  sb_printf(b, ", dtype=%s, numpy=", dtype_info[t->dtype].name);
  numpy_repr_text(b, t);
  sb_putc(b, '>');
}

/* The cycle collector's view (gc.c): a tensor holds references only through the attributes a program set;
 * kernels/tensorobj.c tracks a pooled tensor when it gets its first attribute. */
static void tensor_traverse(Obj *o, GcVisit visit, void *arg) {
  Tensor *t = (Tensor *)o;
  if (t->attrs) visit(val_obj(t->attrs), true, arg);
}

static void tensor_clear(Obj *o) {
  Tensor *t = (Tensor *)o;
  Obj *a = t->attrs;
  t->attrs = NULL;
  if (a) val_decref(val_obj(a));
}

/* The classes tensors and variables show as (type(t), messages), as in TF: EagerTensor and SymbolicTensor
 * derive from tf.Tensor, ResourceVariable from tf.Variable.  No value has these Types; only their type
 * objects are used.  EagerTensor is a C-defined class in TF, so messages give its dotted name. */
static const Type eager_cls = {.name = "tensorflow.python.framework.ops.EagerTensor"};
static const Type symbolic_cls = {.name = "tensorflow.python.framework.ops.SymbolicTensor"};
static const Type resvar_cls = {.name = "tensorflow.python.ops.resource_variable_ops.ResourceVariable"};
static const Type baseresvar_cls = {.name = "tensorflow.python.ops.resource_variable_ops.BaseResourceVariable"};
static const Type unread_cls = {.name = "tensorflow.python.ops.resource_variable_ops._UnreadVariable"};

static Val subclass_of(const Type *cls, const Type *base, bool dotted_in_messages) {
  Val v = typeobj_for(cls);
  TypeObj *o = (TypeObj *)v.u.o;
  if (!o->base) {
    o->base = (TypeObj *)typeobj_for(base).u.o;
    if (dotted_in_messages) o->tp_name = cls->name;
  }
  return v;
}

static Val tensor_klass(Val self) {
  return ((Tensor *)self.u.o)->sym ? subclass_of(&symbolic_cls, &tensor_type, false) : subclass_of(&eager_cls, &tensor_type, true);
}

Type tensor_type = {   /* the operators and methods: kernels/tensorobj.c fills them at start-up */
  .name = "tensorflow.python.framework.tensor.Tensor", .free = tensor_free, .repr = tensor_repr, .str = tensor_str,
  .traverse = tensor_traverse, .clear = tensor_clear, .klass = tensor_klass,
};

/* ---- variables ---------------------------------------------------------------------------- */

static void variable_free(Obj *o) {
  Variable *v = (Variable *)o;
  if (v->value) tensor_release(v->value);
  if (v->base && v->sym) TFS_DECREF(val_obj((Obj *)v->sym));   /* an _UnreadVariable's traced assignment */
  if (v->base) TFS_DECREF(val_obj(v->base));   /* an _UnreadVariable: its name is a literal */
  else free(v->name);
  free(v);
}

int variable_shape(const Variable *v, tfs_i64 *dims) {
  if (v->base) v = v->base;
  int r = v->decl_rank == -2 ? v->value->rank : v->decl_rank;
  memcpy(dims, v->decl_rank == -2 ? v->value->shape : v->decl_shape, sizeof(tfs_i64) * (size_t)(r > 0 ? r : 0));
  return r;
}

static void variable_repr(StrBuf *b, Val self) {
  Variable *v = (Variable *)self.u.o;
  Tensor *t = variable_storage(self.u.o)->value;
  sb_printf(b, "<tf.Variable '%s' shape=", v->name);   /* an _UnreadVariable's own name: 'UnreadVariable' */
  tfs_i64 dims[TFS_MAX_RANK];
  int rank = variable_shape(v, dims);
  shape_format(b, rank, dims);
  sb_printf(b, " dtype=%s", dtype_info[t->dtype].name);
  /* TF shows the value only when executing eagerly: not while a tf.function is traced */
  if (!t->sym && !(rt_obj_hooks.tracing && rt_obj_hooks.tracing())) {
    sb_puts(b, ", numpy=");
    numpy_repr_text(b, t);
  }
  sb_putc(b, '>');
}

/* As TF: ResourceVariable and _UnreadVariable (v.assign()'s result) both derive from BaseResourceVariable. */
static Val variable_klass(Val self) {
  (void)subclass_of(&baseresvar_cls, &variable_type, false);
  return subclass_of(((Variable *)self.u.o)->base ? &unread_cls : &resvar_cls, &baseresvar_cls, false);
}

Type variable_type = {   /* the operators and methods: kernels/tensorobj.c */
  .name = "tensorflow.python.ops.variables.Variable", .free = variable_free, .repr = variable_repr, .klass = variable_klass,
};

/* ---- what the object layer asks of tensors (object/hooks.h) ---- */

/* The object layer's int(v)/float(v) of an eager 0-d tensor or variable (hooks.h). */
bool tensor_u64_of(Val v, tfs_u64 *u) {
  if (!val_is_tensor(v) && !val_is(v, &variable_type) && !val_is_ndarray(v)) return false;
  Tensor *t = val_as_tensor(v);
  if (t->rank != 0 || t->sym || !t->buf || t->dtype != DT_UINT64) return false;
  *u = (tfs_u64)dtype_load_i(t->dtype, tensor_data(t));
  return *u > (tfs_u64)INT64_MAX;
}

bool tensor_scalar_of(Val v, bool *is_int, int64_t *i, double *f) {
  if (!val_is_tensor(v) && !val_is(v, &variable_type) && !val_is_ndarray(v)) return false;   /* np.float32 too */
  Tensor *t = val_as_tensor(v);
  if (t->rank != 0 || t->sym || !t->buf) return false;
  const void *p = tensor_data(t);
  *is_int = true;
  switch (t->dtype) {
    case DT_FLOAT32: *f = *(const float *)p; *is_int = false; break;
    case DT_FLOAT64: *f = *(const double *)p; *is_int = false; break;
    case DT_INT32: *i = *(const int32_t *)p; break;
    case DT_INT64: *i = *(const int64_t *)p; break;
    case DT_BOOL: *i = *(const bool *)p ? 1 : 0; break;
    case DT_FLOAT16: case DT_BFLOAT16: *f = dtype_load_f(t->dtype, p); *is_int = false; break;
    case DT_UINT8: case DT_INT8: case DT_INT16: case DT_UINT16: case DT_UINT32: *i = dtype_load_i(t->dtype, p); break;
    case DT_UINT64: {   /* where an int64 is needed; int() takes a larger one through tensor_u64_of */
      uint64_t u = (uint64_t)dtype_load_i(t->dtype, p);
      if (u > (uint64_t)INT64_MAX)
        rt_throw(ERR_OVERFLOW, "uint64 value %llu does not fit a host int (tfs ints are 64-bit signed)", (unsigned long long)u);
      *i = (int64_t)u;
      break;
    }
    default: return false;
  }
  if (*is_int) *f = (double)*i;
  return true;
}

bool tensor_complex_of(Val v, double *re, double *im) {
  if (!val_is_tensor(v) && !val_is(v, &variable_type) && !val_is_ndarray(v)) return false;
  Tensor *t = val_as_tensor(v);
  if (t->rank != 0 || t->sym || !t->buf || t->dtype == DT_STRING || t->dtype == DT_VARIANT) return false;
  tensor_get_c(t, 0, re, im);
  return true;
}

bool tensor_is_eager_tensor(Val v) { return val_is_tensor(v); }

/* A dtype by its name ("float32"), for ArgSpec defaults (hooks.h); VT_UNDEF if none. */
Val dtype_named(const char *name) {
  for (int dt = 0; dt < DT__COUNT; dt++)
    if (!strcmp(dtype_info[dt].name, name)) return dtype_val((DType)dt);
  return val_undef();
}

