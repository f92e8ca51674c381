/* exampleparse.c — the ParseExampleV2 op for dense features (tf.io.parse_example / parse_single_example): serialized tf.train.Examples to tensors, with TF's errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example.pb-c.h"
#include "kernels/ops.h"
#include "modules/upops.h"
#include "object/object.h"

/* Attributes (after the serialized input): names (list of str or None), dense_keys, dense_types, dense_shapes
 * (lists of ints), dense_defaults (a tensor of the feature's shape, or None: required), dense_varlen (bools:
 * FixedLenSequenceFeature, whose values are rows of the shape, padded to the longest with the default). */
enum { A_NAMES, A_KEYS, A_TYPES, A_SHAPES, A_DEFAULTS, A_VARLEN };
#define PE_MAX 256
#define PE_NONE DT__COUNT   /* a Feature of no kind */

typedef struct PeDense {
  const char *key;
  DType dt;
  int rank;
  tfs_i64 shape[TFS_MAX_RANK];
  tfs_i64 stride;             /* elements of one value (fixed) or one row (varlen) */
  Tensor *def;                /* NULL: required (fixed), zeros (varlen) */
  bool varlen;
} PeDense;

/* attributes that tfcore_example.tfs did not build as it does (a raw-op call by hand) */
static _Noreturn void pe_misuse(const OpCall *c, const char *what) { op_fail(c, ERR_TYPE, "ParseExampleV2: %s", what); }

static const Val *pe_list(const OpCall *c, int i, tfs_i64 *n) {
  const Val *it;
  if (!seq_items(op_attr(c, i), n, &it)) pe_misuse(c, "its attributes are lists");
  return it;
}

static int pe_config(const OpCall *c, PeDense *d) {
  tfs_i64 n, nt, ns, nd, nv;
  const Val *keys = pe_list(c, A_KEYS, &n), *types = pe_list(c, A_TYPES, &nt), *shapes = pe_list(c, A_SHAPES, &ns);
  const Val *defs = pe_list(c, A_DEFAULTS, &nd), *varlen = pe_list(c, A_VARLEN, &nv);
  if (nt != n || ns != n || nd != n || nv != n || n > PE_MAX)
    pe_misuse(c, "dense_keys, dense_types, dense_shapes, dense_defaults and dense_varlen differ in length");
  for (tfs_i64 i = 0; i < n; i++) {
    PeDense *f = &d[i];
    if (!val_is(keys[i], &str_type) || !val_as_dtype(types[i], &f->dt))
      pe_misuse(c, "a dense key is a str and its type a dtype");
    f->key = str_cstr(keys[i]);
    tfs_i64 nd2;
    const Val *dims;
    if (!seq_items(shapes[i], &nd2, &dims) || nd2 > TFS_MAX_RANK) pe_misuse(c, "a dense shape is a list of ints");
    f->rank = (int)nd2;
    f->stride = 1;
    f->varlen = rt_truthy(varlen[i]);
    for (int k = 0; k < f->rank; k++) {
      int64_t x;
      if (!val_as_int(dims[k], &x) || x < 0) pe_misuse(c, "dense shapes are fully defined");
      f->shape[k] = x;
      f->stride *= x;
    }
    f->def = val_as_tensor(defs[i]);
  }
  return (int)n;
}

static const char *dtype_word(DType dt) { return dt == DT_FLOAT32 ? "float" : dtype_info[dt].name; }

/* the dtype a Feature holds (PE_NONE: no kind) and its number of values */
static int pe_kind(const Tensorflow__Feature *f, tfs_i64 *count) {
  *count = 0;
  if (!f) return PE_NONE;
  switch (f->kind_case) {
    case TENSORFLOW__FEATURE__KIND_BYTES_LIST: *count = (tfs_i64)f->bytes_list->n_value; return DT_STRING;
    case TENSORFLOW__FEATURE__KIND_FLOAT_LIST: *count = (tfs_i64)f->float_list->n_value; return DT_FLOAT32;
    case TENSORFLOW__FEATURE__KIND_INT64_LIST: *count = (tfs_i64)f->int64_list->n_value; return DT_INT64;
    default: return PE_NONE;
  }
}

/* the feature named key (the last entry wins, as protobuf's map parsing does); NULL: absent or of no kind */
static const Tensorflow__Feature *pe_find(const Tensorflow__Example *ex, const char *key) {
  if (!ex || !ex->features) return NULL;
  for (size_t i = ex->features->n_feature; i-- > 0;) {
    const Tensorflow__FeatureEntry *e = ex->features->feature[i];
    if (!strcmp(e->key ? e->key : "", key)) return e->value && e->value->kind_case ? e->value : NULL;
  }
  return NULL;
}

static void shape_text(StrBuf *b, const PeDense *f) {
  sb_putc(b, '[');
  for (int k = 0; k < f->rank; k++) sb_printf(b, "%s%lld", k ? "," : "", (long long)f->shape[k]);
  sb_putc(b, ']');
}

typedef struct PeRun {
  Tensorflow__Example **ex;   /* one per record, freed by pe_free */
  tfs_i64 n;
} PeRun;

static void pe_free(PeRun *r) {
  for (tfs_i64 i = 0; i < r->n; i++)
    if (r->ex[i]) tensorflow__example__free_unpacked(r->ex[i], NULL);
  free(r->ex);
  r->ex = NULL;
}

/* errindex: Feature: … (data type: …) is required but could not be found. */
/* errindex: Name: …, Feature: … (data type: …) is required but could not be found. */
/* errindex: Key: ….  Data types don't match. Data type: … but expected type: … */
/* errindex: Name: …, Key: …, Index: ….  Data types don't match. Data type: … but expected type: … */
/* errindex: Name: …, Key: …, Index: ….  Data types don't match. Expected type: … */
/* errindex: Key: ….  Can't parse serialized Example. */
/* errindex: Name: …, Key: …, Index: ….  Number of … values != expected.  Values size: … but output shape: … */
/* errindex: Name: …, Key: …, Index: ….  Number of … values is not a multiple of stride length. Saw … values but output shape is: … */
/* errindex: Could not parse example input, value: '…' */
static _Noreturn void pe_fail(const OpCall *c, PeRun *r, StrBuf *msg) {
  pe_free(r);
  op_fail_sb(c, ERR_INVALID_ARGUMENT, msg);
}

static const char *pe_name(const OpCall *c, tfs_i64 i) {
  tfs_i64 n;
  const Val *it;
  if (seq_items(op_attr(c, A_NAMES), &n, &it) && i < n && val_is(it[i], &str_type)) return str_cstr(it[i]);
  return "<unknown>";
}

/* Checks every record against the config (TF's messages: single-record ones for a scalar input, "Name: ...,
 * Key: ..., Index: i." ones for a batch); *maxrows: the longest varlen feature per dense key. */
static void pe_check(const OpCall *c, PeRun *r, const PeDense *d, int nd, bool batch, tfs_i64 *maxrows) {
  StrBuf m;
  for (tfs_i64 i = 0; i < r->n; i++)
    for (int k = 0; k < nd; k++) {
      const PeDense *f = &d[k];
      tfs_i64 cnt;
      int dt = pe_kind(pe_find(r->ex[i], f->key), &cnt);
      sb_init(&m);
      if (dt == PE_NONE) {
        if (f->varlen || f->def) continue;
        if (batch) sb_printf(&m, "Name: %s, ", pe_name(c, i));
        sb_printf(&m, "Feature: %s (data type: %s) is required but could not be found.", f->key, dtype_word(f->dt));
        pe_fail(c, r, &m);
      }
      if (batch) sb_printf(&m, "Name: %s, Key: %s, Index: %lld.  ", pe_name(c, i), f->key, (long long)i);
      else sb_printf(&m, "Key: %s.  ", f->key);
      if (dt != (int)f->dt) {
        if (f->varlen && batch) sb_printf(&m, "Data types don't match. Expected type: %s", dtype_word(f->dt));
        else sb_printf(&m, "Data types don't match. Data type: %s but expected type: %s", dtype_word((DType)dt), dtype_word(f->dt));
        pe_fail(c, r, &m);
      }
      if (f->varlen) {
        if (f->stride ? cnt % f->stride : cnt) {
          if (batch) {
            sb_printf(&m, "Number of %s values is not a multiple of stride length. Saw %lld values but output shape is: ",
                      dt == DT_STRING ? "bytes" : dtype_word((DType)dt), (long long)cnt);
            shape_text(&m, f);
          } else {
            sb_puts(&m, "Can't parse serialized Example.");
          }
          pe_fail(c, r, &m);
        }
        tfs_i64 rows = f->stride ? cnt / f->stride : 0;
        if (rows > maxrows[k]) maxrows[k] = rows;
      } else if (cnt != f->stride) {
        if (batch) {
          sb_printf(&m, "Number of %s values != expected.  Values size: %lld but output shape: ",
                    dt == DT_STRING ? "bytes" : dtype_word((DType)dt), (long long)cnt);
          shape_text(&m, f);
        } else {
          sb_puts(&m, "Can't parse serialized Example.");
        }
        pe_fail(c, r, &m);
      }
      sb_free(&m);
    }
}

static void pe_out_shape(const PeDense *f, bool batch, tfs_i64 n, tfs_i64 rows, int *rank, tfs_i64 *shape) {
  int k = 0;
  if (batch) shape[k++] = n;
  if (f->varlen) shape[k++] = rows;
  for (int j = 0; j < f->rank; j++) shape[k++] = f->shape[j];
  *rank = k;
}

void meta_parse_example(OpCall *c) {
  const TMeta *s = &c->inm[0];
  if (s->dtype != DT_STRING) op_fail(c, ERR_TYPE, "ParseExampleV2: serialized must be a string tensor, not %s", dtype_info[s->dtype].name);
  if (s->rank > 1) op_fail(c, ERR_INVALID_ARGUMENT, "Expected serialized to be a scalar or vector, got rank: %d", s->rank);
  PeDense d[PE_MAX];   /* on the stack: parallel Dataset.map runs the op on several threads */
  int nd = pe_config(c, d);
  op_reserve_outputs(c, nd);
  for (int k = 0; k < nd; k++) {
    int rank;
    tfs_i64 shape[TFS_MAX_RANK + 2];
    pe_out_shape(&d[k], s->rank == 1, s->rank == 1 ? s->shape[0] : 0, -1, &rank, shape);
    meta_set(&c->outm[k], d[k].dt, rank, shape);
  }
}

/* one record's values of feature f (present and checked) into out at element offset `at` */
static void pe_copy(const Tensorflow__Feature *ft, Tensor *out, tfs_i64 at) {
  switch (ft->kind_case) {
    case TENSORFLOW__FEATURE__KIND_FLOAT_LIST:
      if (ft->float_list->n_value)   /* an empty list's value is NULL, which memcpy may not take even for 0 bytes */
        memcpy((float *)tensor_data(out) + at, ft->float_list->value, sizeof(float) * ft->float_list->n_value);
      break;
    case TENSORFLOW__FEATURE__KIND_INT64_LIST:
      if (ft->int64_list->n_value)
        memcpy((int64_t *)tensor_data(out) + at, ft->int64_list->value, sizeof(int64_t) * ft->int64_list->n_value);
      break;
    default: {
      Str **dst = (Str **)tensor_data(out) + at;
      for (size_t j = 0; j < ft->bytes_list->n_value; j++) {
        const ProtobufCBinaryData *b = &ft->bytes_list->value[j];
        Val s = str_new(b->data ? (const char *)b->data : "", (tfs_i64)b->len);
        if (dst[j]) val_decref(val_obj(dst[j]));
        dst[j] = (Str *)s.u.o;
      }
    }
  }
}

/* elements [at, at+n) of out set from the default's elements (cycled: a varlen default is one value) */
static void pe_fill(Tensor *out, tfs_i64 at, tfs_i64 n, const Tensor *def) {
  size_t es = (size_t)dtype_info[out->dtype].size;
  if (!def || !def->size) {   /* zeros / empty strings */
    if (out->dtype != DT_STRING) memset((char *)tensor_data(out) + at * (tfs_i64)es, 0, (size_t)n * es);
    return;
  }
  for (tfs_i64 j = 0; j < n; j++) {
    tfs_i64 src = tensor_elem_offset(def, j % def->size);
    if (out->dtype == DT_STRING) {
      Str *s = ((Str **)def->buf->data)[src];
      Str **dst = (Str **)tensor_data(out) + at + j;
      if (s) s->hdr.rc++;
      if (*dst) val_decref(val_obj(*dst));
      *dst = s;
    } else {
      memcpy((char *)tensor_data(out) + (at + j) * (tfs_i64)es, (char *)def->buf->data + src * (tfs_i64)es, es);
    }
  }
}

void k_parse_example(OpCall *c) {
  PeDense d[PE_MAX];
  int nd = pe_config(c, d);
  Tensor *st = c->in[0];
  bool batch = st->rank == 1;
  PeRun r = {calloc((size_t)(st->size ? st->size : 1), sizeof(void *)), st->size};
  if (!r.ex) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < r.n; i++) {
    Str *s = ((Str **)st->buf->data)[tensor_elem_offset(st, i)];
    r.ex[i] = tensorflow__example__unpack(NULL, s ? (size_t)s->len : 0, s ? (const uint8_t *)s->data : (const uint8_t *)"");
    if (!r.ex[i]) {
      StrBuf m;
      sb_init(&m);
      sb_puts(&m, "Could not parse example input, value: '");
      if (s) sb_putn(&m, s->data, (size_t)s->len);
      sb_putc(&m, '\'');
      pe_fail(c, &r, &m);
    }
  }
  tfs_i64 maxrows[PE_MAX] = {0};
  pe_check(c, &r, d, nd, batch, maxrows);
  int mark = -1;
  for (int k = 0; k < nd; k++) {
    int rank;
    tfs_i64 shape[TFS_MAX_RANK + 2];
    pe_out_shape(&d[k], batch, r.n, maxrows[k], &rank, shape);
    c->out[k] = tensor_new(d[k].dt, rank, shape);
    int m = rt_hold_val(val_obj(c->out[k]));
    if (mark < 0) mark = m;
  }
  for (int k = 0; k < nd; k++) {
    const PeDense *f = &d[k];
    tfs_i64 per = f->varlen ? maxrows[k] * f->stride : f->stride;   /* elements per record */
    for (tfs_i64 i = 0; i < r.n; i++) {
      const Tensorflow__Feature *ft = pe_find(r.ex[i], f->key);
      tfs_i64 cnt = 0;
      if (ft) pe_kind(ft, &cnt), pe_copy(ft, c->out[k], i * per);
      pe_fill(c->out[k], i * per + cnt, per - cnt, f->def);
    }
  }
  pe_free(&r);
  if (mark >= 0) rt_unhold(mark);
}
