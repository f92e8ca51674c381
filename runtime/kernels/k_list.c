/* k_list.c — TensorList values (the variant behind tf.TensorArray in graphs) and the TensorList* op kernels. */
#include "kernels/ops.h"
#include "kernels/tensorlist.h"

#include <stdlib.h>
#include <setjmp.h>
#include <string.h>

/* A list is immutable once it is inside a variant tensor that someone else
 * holds: every op that changes one returns a copy (TF forwards the input when
 * its reference count is one; copying the pointer array is cheap at our sizes
 * and keeps constant-folded or captured lists safe). */

static void tl_free(Obj *o) {
  TList *l = (TList *)o;
  for (tfs_i64 i = 0; i < l->n; i++)
    if (l->items[i]) tensor_release(l->items[i]);
  free(l->items);
  free(l);
}

static void tl_repr(StrBuf *b, Val v) { (void)v; sb_puts(b, "<TensorList>"); }

const Type tlist_type = {.name = "TensorList", .free = tl_free, .repr = tl_repr};

static void tl_resize(TList *l, tfs_i64 n) {
  if (n > l->cap) {
    tfs_i64 cap = l->cap ? l->cap : 4;
    while (cap < n) cap *= 2;
    Tensor **p = realloc(l->items, (size_t)cap * sizeof *p);
    if (!p) rt_throw(ERR_RESOURCE_EXHAUSTED, "out of memory growing a TensorList to %lld elements", (long long)n);
    l->items = p;
    l->cap = cap;
  }
  for (tfs_i64 i = l->n; i < n; i++) l->items[i] = NULL;
  for (tfs_i64 i = n; i < l->n; i++)
    if (l->items[i]) tensor_release(l->items[i]);
  l->n = n;
}

static TList *tl_new(DType edt, int erank, const tfs_i64 *eshape, tfs_i64 n) {
  TList *l = obj_new(&tlist_type, sizeof(TList));
  l->edt = edt;
  l->erank = erank;
  for (int i = 0; i < erank && i < TFS_MAX_RANK; i++) l->eshape[i] = eshape[i];
  l->n = l->cap = 0;
  l->items = NULL;
  tl_resize(l, n);
  return l;
}

static TList *tl_copy(const TList *src) {
  TList *l = tl_new(src->edt, src->erank, src->eshape, src->n);
  for (tfs_i64 i = 0; i < src->n; i++) l->items[i] = src->items[i] ? tensor_retain(src->items[i]) : NULL;
  return l;
}

/* The op's result: l (adopted) in the variant scalar the dispatcher allocated for it. */
static void tl_out(OpCall *c, TList *l) {
  Obj **slot = tensor_data(c->out[0]);
  if (*slot) { Val v = val_obj(*slot); TFS_DECREF(v); }
  *slot = &l->hdr;
}

static TList *tl_input(OpCall *c, int i) {
  Tensor *t = c->in[i];
  if (t->dtype != DT_VARIANT || t->rank != 0) {
    StrBuf b = {0};
    sb_puts(&b, "Input list must be a scalar saw: ");
    shape_format(&b, t->rank, t->shape);
    /* errindex: Input list must be a scalar saw: … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  Obj *o = *(Obj **)tensor_data(t);
  if (!o || o->type != &tlist_type) op_fail(c, ERR_INVALID_ARGUMENT, "Input handle is not a list.");
  return (TList *)o;
}

/* The element dtype attribute (index i) and its check against the list's. */
static DType tl_attr_dtype(OpCall *c, int i) {
  int dt = op_attr_dtype(c, i, -1);
  if (dt < 0) op_fail(c, ERR_INVALID_ARGUMENT, "%s: element_dtype is required", c->op->graph_name);
  return (DType)dt;
}

static void tl_check_dtype(OpCall *c, const TList *l, DType want) {
  if (l->edt != want)
    op_fail(c, ERR_INVALID_ARGUMENT, "Invalid data types; op elements %s but list elements %s", dtype_short_name(want),
            dtype_short_name(l->edt));
}

/* element_shape attribute: None / -1 = unknown rank; a list with None or -1 dims. */
static void tl_attr_shape(OpCall *c, int i, int *rank, tfs_i64 *dims) {
  Val v = op_attr(c, i);
  *rank = -1;
  if (v.tag == VT_UNDEF || v.tag == VT_NONE || (v.tag == VT_INT && v.u.i == -1)) return;
  if (!val_as_tshape(v, rank, dims)) *rank = val_to_dims(v, dims, true, "element_shape");
}

static bool tl_compatible(int rank, const tfs_i64 *dims, const Tensor *t) { return shape_compatible(rank, dims, t->rank, t->shape); }

/* "[2,3]" / "<unknown>" as TF's PartialTensorShape::DebugString. */
static void tl_shape_text(StrBuf *b, int rank, const tfs_i64 *dims) {
  if (rank < 0) sb_puts(b, "<unknown>");
  else op_shape_text(b, rank, dims);
}

/* Element i, or zeros of the list's element shape when it was never set. */
static Tensor *tl_elem(OpCall *c, const TList *l, tfs_i64 i, int arank, const tfs_i64 *adims) {
  if (l->items[i]) return tensor_retain(l->items[i]);
  int rank = l->erank;
  const tfs_i64 *dims = l->eshape;
  bool known = rank >= 0;
  for (int d = 0; known && d < rank; d++) known = dims[d] >= 0;
  if (!known) {   /* the op's element_shape may say more; else a set element gives the shape */
    rank = arank;
    dims = adims;
    known = rank >= 0;
    for (int d = 0; known && d < rank; d++) known = dims[d] >= 0;
  }
  if (!known)
    for (tfs_i64 k = 0; k < l->n; k++)
      if (l->items[k]) { rank = l->items[k]->rank; dims = l->items[k]->shape; known = true; break; }
  if (!known) {
    StrBuf b = {0};
    sb_puts(&b, "Trying to read an uninitialized tensor but element_shape is not fully defined: ");
    tl_shape_text(&b, l->erank, l->eshape);
    sb_puts(&b, " and no list element is set.");
    /* errindex: Trying to read an uninitialized tensor but element_shape is not fully defined: … and no list element is set. */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  Tensor *z = tensor_new(l->edt, rank, dims);
  memset(tensor_data(z), 0, (size_t)z->size * (size_t)dtype_info[l->edt].size);
  return z;
}

/* ---- metas ------------------------------------------------------------------------------ */

void meta_tl_variant(OpCall *c) { meta_set(&c->outm[0], DT_VARIANT, 0, NULL); }

void meta_tl_length(OpCall *c) { meta_set(&c->outm[0], DT_INT32, 0, NULL); }

void meta_tl_elem(OpCall *c) {
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  tl_attr_shape(c, 0, &rank, dims);
  meta_set(&c->outm[0], tl_attr_dtype(c, 1), rank, dims);
}

/* Stack and Gather: [n] + element_shape (n from num_elements / the indices when static). */
void meta_tl_stack(OpCall *c) {
  bool gather = c->op->id == OP_TL_GATHER;
  int rank;
  tfs_i64 dims[TFS_MAX_RANK + 1];
  tl_attr_shape(c, 0, &rank, dims + 1);
  DType dt = tl_attr_dtype(c, 1);
  if (rank < 0 || rank >= TFS_MAX_RANK) { meta_set(&c->outm[0], dt, -1, NULL); return; }
  dims[0] = -1;
  if (gather && c->inm[1].rank == 1) dims[0] = c->inm[1].shape[0];
  if (!gather) dims[0] = op_attr_int(c, 2, -1);
  meta_set(&c->outm[0], dt, rank + 1, dims);
}

void meta_tl_concat(OpCall *c) {
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  tl_attr_shape(c, 0, &rank, dims);
  if (rank > 0) dims[0] = -1;
  meta_set(&c->outm[0], tl_attr_dtype(c, 1), rank, dims);
}

/* ---- kernels ---------------------------------------------------------------------------- */

void k_tl_reserve(OpCall *c) {
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  tl_attr_shape(c, 0, &rank, dims);
  if (c->in[0]->rank != 0) {
    StrBuf b = {0};
    sb_puts(&b, "The num_elements to reserve must be a tensor size 1, but got ");
    op_shape_text(&b, c->in[0]->rank, c->in[0]->shape);
    /* errindex: The num_elements to reserve must be a tensor size 1, but got … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  tfs_i64 n = tensor_get_i(c->in[0], 0);
  if (n < 0)
    op_fail(c, ERR_INVALID_ARGUMENT, "The num_elements to reserve must be a non negative number, but got %lld",
            (long long)n);
  tl_out(c, tl_new(tl_attr_dtype(c, 1), rank, dims, n));
}

void k_tl_from_tensor(OpCall *c) {
  Tensor *t = c->in[0];
  if (t->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "Tensor must be at least a vector, but saw shape: []");
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  tl_attr_shape(c, 0, &rank, dims);
  if (rank < 0) {
    rank = t->rank - 1;
    for (int d = 0; d < rank; d++) dims[d] = t->shape[d + 1];
  }
  TList *l = tl_new(t->dtype, rank, dims, t->shape[0]);
  Tensor *tc = tensor_contiguous(t);
  tfs_i64 per = t->shape[0] ? tc->size / t->shape[0] : 0;
  size_t esz = (size_t)dtype_info[t->dtype].size;
  for (tfs_i64 i = 0; i < l->n; i++) {
    Tensor *e = tensor_new(t->dtype, t->rank - 1, t->shape + 1);
    memcpy(tensor_data(e), (char *)tensor_data(tc) + (size_t)(i * per) * esz, (size_t)per * esz);
    if (dtype_holds_refs(t->dtype))
      for (tfs_i64 k = 0; k < per; k++) {
        Obj *o = ((Obj **)tensor_data(e))[k];
        if (o) o->rc++;
      }
    l->items[i] = e;
  }
  tensor_release(tc);
  tl_out(c, l);
}

void k_tl_set_item(OpCall *c) {
  const TList *l = tl_input(c, 0);
  Tensor *v = c->in[2];
  tl_check_dtype(c, l, v->dtype);
  tfs_i64 i = tensor_get_i(c->in[1], 0);
  bool resize = op_attr_bool(c, 0, false);
  if (i < 0 || (i >= l->n && !resize))
    op_fail(c, ERR_INVALID_ARGUMENT, "Trying to modify element %lld in a list with %lld elements.", (long long)i,
            (long long)l->n);
  if (!tl_compatible(l->erank, l->eshape, v)) {
    StrBuf b = {0};
    sb_puts(&b, "Tried to set a tensor with incompatible shape at a list index. Item element shape: ");
    tl_shape_text(&b, v->rank, v->shape);
    sb_puts(&b, " list shape: ");
    tl_shape_text(&b, l->erank, l->eshape);
    /* errindex: Tried to set a tensor with incompatible shape at a list index. Item element shape: … list shape: … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  TList *o = tl_copy(l);
  if (i >= o->n) tl_resize(o, i + 1);
  if (o->items[i]) tensor_release(o->items[i]);
  o->items[i] = tensor_retain(v);
  tl_out(c, o);
}

/* The list a reading op (GetItem, Stack, Gather) reads, checked against its element_dtype; its element_shape. */
static const TList *tl_reader(OpCall *c, int *rank, tfs_i64 *dims) {
  const TList *l = tl_input(c, 0);
  tl_check_dtype(c, l, tl_attr_dtype(c, 1));
  tl_attr_shape(c, 0, rank, dims);
  return l;
}

static tfs_i64 tl_index(OpCall *c, const TList *l, tfs_i64 i) {
  if (i < 0 || i >= l->n)
    op_fail(c, ERR_INVALID_ARGUMENT, "Trying to access element %lld in a list with %lld elements.", (long long)i,
            (long long)l->n);
  return i;
}

void k_tl_get_item(OpCall *c) {
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  const TList *l = tl_reader(c, &rank, dims);
  c->out[0] = tl_elem(c, l, tl_index(c, l, tensor_get_i(c->in[1], 0)), rank, dims);
}

void k_tl_length(OpCall *c) {
  const TList *l = tl_input(c, 0);
  *(int32_t *)tensor_data(c->out[0]) = (int32_t)l->n;
}

/* Stack the elements idx[0..n) (all of them when idx is NULL) along a new axis 0. */
static Tensor *tl_stack(OpCall *c, const TList *l, const Tensor *idx, int arank, const tfs_i64 *adims) {
  tfs_i64 n = idx ? idx->size : l->n;
  if (n == 0) {
    int rank = l->erank >= 0 ? l->erank : arank;
    const tfs_i64 *dims = l->erank >= 0 ? l->eshape : adims;
    bool known = rank >= 0;
    for (int d = 0; known && d < rank; d++) known = dims[d] >= 0;
    if (!known) {
      StrBuf b = {0};
      sb_puts(&b, "Tried to stack elements of an empty list with non-fully-defined element_shape: ");
      tl_shape_text(&b, l->erank, l->eshape);
      /* errindex: Tried to stack elements of an empty list with non-fully-defined element_shape: … */
      op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
    }
    tfs_i64 sh[TFS_MAX_RANK + 1] = {0};
    for (int d = 0; d < rank; d++) sh[d + 1] = dims[d];
    return tensor_new(l->edt, rank + 1, sh);
  }
  Tensor **el = malloc((size_t)n * sizeof *el);
  if (!el) rt_throw(ERR_RESOURCE_EXHAUSTED, "out of memory stacking a TensorList");
  tfs_i64 got = 0;
  RtTry tr;
  rt_try_push(&tr);
  if (setjmp(tr.jb)) {
    for (tfs_i64 k = 0; k < got; k++) tensor_release(el[k]);
    free(el);
    rt_rethrow(&tr);
  }
  for (; got < n; got++) el[got] = tl_elem(c, l, tl_index(c, l, idx ? tensor_get_i(idx, got) : got), arank, adims);
  for (tfs_i64 k = 1; k < n; k++)
    if (el[k]->rank != el[0]->rank || memcmp(el[k]->shape, el[0]->shape, (size_t)el[0]->rank * sizeof(tfs_i64))) {
      StrBuf b = {0};
      sb_puts(&b, "Incompatible shapes during merge: ");
      op_shape_text(&b, el[0]->rank, el[0]->shape);
      sb_puts(&b, " vs. ");
      op_shape_text(&b, el[k]->rank, el[k]->shape);
      /* errindex: Incompatible shapes during merge: … vs. … */
      op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
    }
  rt_try_pop(&tr);
  tfs_i64 sh[TFS_MAX_RANK + 1];
  sh[0] = n;
  for (int d = 0; d < el[0]->rank; d++) sh[d + 1] = el[0]->shape[d];
  Tensor *out = tensor_new(l->edt, el[0]->rank + 1, sh);
  size_t esz = (size_t)dtype_info[l->edt].size, per = (size_t)el[0]->size;
  for (tfs_i64 k = 0; k < n; k++) {
    Tensor *e = tensor_contiguous(el[k]);
    memcpy((char *)tensor_data(out) + (size_t)k * per * esz, tensor_data(e), per * esz);
    if (dtype_holds_refs(l->edt))
      for (size_t j = 0; j < per; j++) {
        Obj *o = ((Obj **)tensor_data(e))[j];
        if (o) o->rc++;
      }
    tensor_release(e);
    tensor_release(el[k]);
  }
  free(el);
  return out;
}

void k_tl_stack(OpCall *c) {
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  const TList *l = tl_reader(c, &rank, dims);
  c->out[0] = tl_stack(c, l, NULL, rank, dims);
}

void k_tl_gather(OpCall *c) {
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  const TList *l = tl_reader(c, &rank, dims);
  if (c->in[1]->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "indices must be a vector");
  c->out[0] = tl_stack(c, l, c->in[1], rank, dims);
}

void k_tl_scatter(OpCall *c) {
  const TList *l = tl_input(c, 0);
  Tensor *v = c->in[1], *idx = c->in[2];
  tl_check_dtype(c, l, v->dtype);
  if (v->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "Tensor must be at least a vector, but saw shape: []");
  if (idx->rank != 1 || idx->size != v->shape[0])
    op_fail(c, ERR_INVALID_ARGUMENT, "Expected len(indices) == tensor.shape[0], but saw: %lld vs. %lld",
            (long long)idx->size, (long long)v->shape[0]);
  TList *o = tl_copy(l);
  RtTry tr;
  rt_try_push(&tr);
  if (setjmp(tr.jb)) {
    tl_free(&o->hdr);
    rt_rethrow(&tr);
  }
  Tensor *vc = tensor_contiguous(v);
  tfs_i64 per = v->shape[0] ? vc->size / v->shape[0] : 0;
  size_t esz = (size_t)dtype_info[v->dtype].size;
  for (tfs_i64 k = 0; k < idx->size; k++) {
    tfs_i64 i = tensor_get_i(idx, k);
    if (i < 0) {
      tensor_release(vc);
      op_fail(c, ERR_INVALID_ARGUMENT, "Indices in TensorListScatter must all be non-negative.");
    }
    if (i >= o->n) tl_resize(o, i + 1);
    Tensor *e = tensor_new(v->dtype, v->rank - 1, v->shape + 1);
    memcpy(tensor_data(e), (char *)tensor_data(vc) + (size_t)(k * per) * esz, (size_t)per * esz);
    if (o->items[i]) tensor_release(o->items[i]);
    o->items[i] = e;
  }
  tensor_release(vc);
  rt_try_pop(&tr);
  tl_out(c, o);
}

void k_tl_concat(OpCall *c) {
  const TList *l = tl_input(c, 0);
  tl_check_dtype(c, l, tl_attr_dtype(c, 1));
  tfs_i64 rows = 0;
  const Tensor *first = NULL;
  for (tfs_i64 i = 0; i < l->n; i++) {
    const Tensor *e = l->items[i];
    if (!e) op_fail(c, ERR_INVALID_ARGUMENT, "Concat saw an uninitialized element at index %lld", (long long)i);
    if (e->rank == 0)
      op_fail(c, ERR_INVALID_ARGUMENT, "Concat saw a scalar shape at index %lld but requires at least vectors.",
              (long long)i);
    if (first && (e->rank != first->rank ||
                  memcmp(e->shape + 1, first->shape + 1, (size_t)(e->rank - 1) * sizeof(tfs_i64)))) {
      StrBuf b = {0};
      sb_puts(&b, "Incompatible shapes during merge: ");
      op_shape_text(&b, first->rank - 1, first->shape + 1);
      sb_puts(&b, " vs. ");
      op_shape_text(&b, e->rank - 1, e->shape + 1);
      /* errindex: Incompatible shapes during merge: … vs. … */
      op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
    }
    if (!first) first = e;
    rows += e->shape[0];
  }
  if (!first) {
    int rank;
    tfs_i64 dims[TFS_MAX_RANK];
    tl_attr_shape(c, 0, &rank, dims);
    if (rank < 1) op_fail(c, ERR_INVALID_ARGUMENT, "Concat requires elements to be at least vectors, found scalars instead.");
    dims[0] = 0;
    c->out[0] = tensor_new(l->edt, rank, dims);
    return;
  }
  tfs_i64 sh[TFS_MAX_RANK];
  memcpy(sh, first->shape, sizeof sh);
  sh[0] = rows;
  Tensor *out = tensor_new(l->edt, first->rank, sh);
  size_t esz = (size_t)dtype_info[l->edt].size, off = 0;
  for (tfs_i64 i = 0; i < l->n; i++) {
    Tensor *e = tensor_contiguous(l->items[i]);
    memcpy((char *)tensor_data(out) + off, tensor_data(e), (size_t)e->size * esz);
    if (dtype_holds_refs(l->edt))
      for (tfs_i64 j = 0; j < e->size; j++) {
        Obj *o = ((Obj **)tensor_data(e))[j];
        if (o) o->rc++;
      }
    off += (size_t)e->size * esz;
    tensor_release(e);
  }
  c->out[0] = out;
}

TList *tlist_of(Tensor *t) {
  if (!t || t->dtype != DT_VARIANT || t->rank != 0 || t->sym) return NULL;
  Obj *o = *(Obj **)tensor_data(t);
  return o && o->type == &tlist_type ? (TList *)o : NULL;
}

void tlist_zeros_like(Tensor *list, Tensor *out) {
  TList *l = tlist_of(list);
  if (!l) rt_throw(ERR_INVALID_ARGUMENT, "ZerosLike: the variant input is not a TensorList");
  TList *z = tl_new(l->edt, l->erank, l->eshape, l->n);
  Obj **slot = tensor_data(out);
  if (*slot) { Val v = val_obj(*slot); TFS_DECREF(v); }
  *slot = &z->hdr;
}

void k_tl_resize(OpCall *c) {
  const TList *l = tl_input(c, 0);
  tfs_i64 n = tensor_get_i(c->in[1], 0);
  if (n < 0) op_fail(c, ERR_INVALID_ARGUMENT, "TensorListSlice expects size to be non-negative. Got: %lld", (long long)n);
  TList *o = tl_copy(l);
  tl_resize(o, n);
  tl_out(c, o);
}

/* Element-wise sum of two lists (gradients): an unset element adds nothing. */
void k_tl_add(OpCall *c) {
  const TList *a = tl_input(c, 0), *b = tl_input(c, 1);
  tl_check_dtype(c, a, b->edt);
  const TList *lo = a->n >= b->n ? a : b, *sh = a->n >= b->n ? b : a;
  TList *o = tl_copy(lo);
  for (tfs_i64 i = 0; i < sh->n; i++) {
    Tensor *y = sh->items[i], *x = o->items[i];
    if (!y) continue;
    if (!x) { o->items[i] = tensor_retain(y); continue; }
    if (x->rank != y->rank || memcmp(x->shape, y->shape, (size_t)x->rank * sizeof(tfs_i64))) {
      tl_free(&o->hdr);
      op_fail(c, ERR_INVALID_ARGUMENT, "_TensorListAdd: elements %lld have different shapes", (long long)i);
    }
    Tensor *s = tensor_new(x->dtype, x->rank, x->shape);
    ew_binary(OP_ADD, s, x, y);
    tensor_release(x);
    o->items[i] = s;
  }
  tl_out(c, o);
}

/* The gradient of a concat: dy's rows, cut into pieces as long as the list's elements. */
void k_tl_concat_grad(OpCall *c) {
  const TList *l = tl_input(c, 0);
  Tensor *dy = tensor_contiguous(c->in[1]);
  TList *o = tl_new(dy->dtype, -1, NULL, l->n);
  size_t esz = (size_t)dtype_info[dy->dtype].size;
  tfs_i64 row = dy->rank > 0 && dy->shape[0] ? dy->size / dy->shape[0] : 0, at = 0;
  for (tfs_i64 i = 0; i < l->n; i++) {
    const Tensor *e = l->items[i];
    if (!e || e->rank == 0 || dy->rank != e->rank || at + e->shape[0] > dy->shape[0]) continue;
    Tensor *p = tensor_new(dy->dtype, e->rank, e->shape);
    memcpy(tensor_data(p), (char *)tensor_data(dy) + (size_t)(at * row) * esz, (size_t)p->size * esz);
    at += e->shape[0];
    o->items[i] = p;
  }
  tensor_release(dy);
  tl_out(c, o);
}
