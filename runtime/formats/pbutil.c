/* pbutil.c — protobuf-c helpers: message arena, a descriptor-driven text-format printer, TensorProto from tensors. */
#include "formats/pbutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"

typedef struct PbChunk { struct PbChunk *next; max_align_t data[]; } PbChunk;

void *pa_alloc(PbArena *a, size_t n) {
  PbChunk *c = calloc(1, sizeof(PbChunk) + (n ? n : 1));
  if (!c) rt_throw(ERR_MEMORY, "out of memory");
  c->next = a->head;
  a->head = c;
  return c->data;
}

char *pa_strdup(PbArena *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = pa_alloc(a, n);
  memcpy(d, s, n);
  return d;
}

char *pa_printf(PbArena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *d = pa_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(d, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return d;
}

void pa_free(PbArena *a) {
  while (a->head) {
    PbChunk *n = a->head->next;
    free(a->head);
    a->head = n;
  }
}

unsigned char *pb_pack(const ProtobufCMessage *msg, size_t *n) {
  *n = protobuf_c_message_get_packed_size(msg);
  unsigned char *buf = malloc(*n ? *n : 1);
  if (!buf) rt_throw(ERR_MEMORY, "out of memory");
  protobuf_c_message_pack(msg, buf);
  return buf;
}

/* ---- text format ------------------------------------------------------------------ */

/* Shortest decimal that reads back to the same value, as Python's repr. */
static void pb_text_real(StrBuf *b, double v, bool single) {
  char s[40];
  for (int p = 1; p <= 17; p++) {
    snprintf(s, sizeof s, "%.*g", p, v);
    if (single ? (float)strtod(s, NULL) == (float)v : strtod(s, NULL) == v) break;
  }
  sb_puts(b, s);
  if (!strpbrk(s, ".eninf")) sb_puts(b, ".0");   /* 1.0, not 1, as Python prints */
}

static void pb_text_bytes(StrBuf *b, const unsigned char *s, size_t n) {
  sb_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = s[i];
    if (c == '"' || c == '\\' || c == '\'') sb_printf(b, "\\%c", c);
    else if (c == '\n') sb_puts(b, "\\n");
    else if (c == '\t') sb_puts(b, "\\t");
    else if (c == '\r') sb_puts(b, "\\r");
    else if (c < 32 || c >= 127) sb_printf(b, "\\%03o", c);
    else sb_putc(b, (char)c);
  }
  sb_putc(b, '"');
}

/* One value of a field at p; messages recurse. */
static void pb_text_value(StrBuf *b, const ProtobufCFieldDescriptor *f, const void *p, int indent) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
      sb_printf(b, ": %d\n", *(const int32_t *)p); break;
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
      sb_printf(b, ": %u\n", *(const uint32_t *)p); break;
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
      sb_printf(b, ": %lld\n", (long long)*(const int64_t *)p); break;
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
      sb_printf(b, ": %llu\n", (unsigned long long)*(const uint64_t *)p); break;
    case PROTOBUF_C_TYPE_FLOAT: sb_puts(b, ": "); pb_text_real(b, *(const float *)p, true); sb_putc(b, '\n'); break;
    case PROTOBUF_C_TYPE_DOUBLE: sb_puts(b, ": "); pb_text_real(b, *(const double *)p, false); sb_putc(b, '\n'); break;
    case PROTOBUF_C_TYPE_BOOL: sb_puts(b, *(const protobuf_c_boolean *)p ? ": true\n" : ": false\n"); break;
    case PROTOBUF_C_TYPE_ENUM: {
      int v = *(const int *)p;
      const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(f->descriptor, v);
      if (ev) sb_printf(b, ": %s\n", ev->name);
      else sb_printf(b, ": %d\n", v);
      break;
    }
    case PROTOBUF_C_TYPE_STRING: {
      const char *s = *(char *const *)p;
      sb_puts(b, ": ");
      pb_text_bytes(b, (const unsigned char *)s, strlen(s));
      sb_putc(b, '\n');
      break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
      const ProtobufCBinaryData *d = p;
      sb_puts(b, ": ");
      pb_text_bytes(b, d->data, d->len);
      sb_putc(b, '\n');
      break;
    }
    case PROTOBUF_C_TYPE_MESSAGE:
      sb_puts(b, " {\n");
      pb_text(b, *(ProtobufCMessage *const *)p, indent + 2);
      sb_printf(b, "%*s}\n", indent, "");
      break;
  }
}

size_t pb_field_size(ProtobufCType t) {
  switch (t) {
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE: return 8;
    case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    default: return 4;
  }
}

/* A proto3 singular field is printed only when it differs from its default. */
static bool pb_is_default(const ProtobufCFieldDescriptor *f, const void *p) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_STRING: { const char *s = *(char *const *)p; return !s || !*s; }
    case PROTOBUF_C_TYPE_BYTES: return ((const ProtobufCBinaryData *)p)->len == 0;
    case PROTOBUF_C_TYPE_MESSAGE: return *(void *const *)p == NULL;
    case PROTOBUF_C_TYPE_FLOAT: return *(const float *)p == 0;
    case PROTOBUF_C_TYPE_DOUBLE: return *(const double *)p == 0;
    default: {
      size_t n = pb_field_size(f->type);
      const unsigned char *c = p;
      for (size_t i = 0; i < n; i++)
        if (c[i]) return false;
      return true;
    }
  }
}

void pb_text(StrBuf *b, const ProtobufCMessage *msg, int indent) {
  const ProtobufCMessageDescriptor *d = msg->descriptor;
  const char *base = (const char *)msg;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    const void *p = base + f->offset;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *(const size_t *)(base + f->quantifier_offset);
      const char *arr = *(char *const *)p;
      for (size_t k = 0; k < n; k++) {
        sb_printf(b, "%*s%s", indent, "", f->name);
        pb_text_value(b, f, arr + k * pb_field_size(f->type), indent);
      }
      continue;
    }
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
      if (*(const uint32_t *)(base + f->quantifier_offset) != f->id) continue;
    } else if (pb_is_default(f, p)) {
      continue;
    }
    sb_printf(b, "%*s%s", indent, "", f->name);
    pb_text_value(b, f, p, indent);
  }
}

/* ---- tensors ------------------------------------------------------------------------ */

Tensorflow__DataType pb_dtype(DType dt) {
  switch (dt) {
    case DT_FLOAT32: return TENSORFLOW__DATA_TYPE__DT_FLOAT;
    case DT_FLOAT64: return TENSORFLOW__DATA_TYPE__DT_DOUBLE;
    case DT_INT32: return TENSORFLOW__DATA_TYPE__DT_INT32;
    case DT_INT64: return TENSORFLOW__DATA_TYPE__DT_INT64;
    case DT_BOOL: return TENSORFLOW__DATA_TYPE__DT_BOOL;
    case DT_STRING: return TENSORFLOW__DATA_TYPE__DT_STRING;
    case DT_UINT8: return TENSORFLOW__DATA_TYPE__DT_UINT8;
    case DT_VARIANT: return TENSORFLOW__DATA_TYPE__DT_VARIANT;
    case DT_INT8: return TENSORFLOW__DATA_TYPE__DT_INT8;
    case DT_INT16: return TENSORFLOW__DATA_TYPE__DT_INT16;
    case DT_UINT16: return TENSORFLOW__DATA_TYPE__DT_UINT16;
    case DT_UINT32: return TENSORFLOW__DATA_TYPE__DT_UINT32;
    case DT_UINT64: return TENSORFLOW__DATA_TYPE__DT_UINT64;
    case DT_FLOAT16: return TENSORFLOW__DATA_TYPE__DT_HALF;
    case DT_BFLOAT16: return TENSORFLOW__DATA_TYPE__DT_BFLOAT16;
    case DT_COMPLEX64: return TENSORFLOW__DATA_TYPE__DT_COMPLEX64;
    case DT_COMPLEX128: return TENSORFLOW__DATA_TYPE__DT_COMPLEX128;
    default: return TENSORFLOW__DATA_TYPE__DT_INVALID;
  }
}

Tensorflow__TensorShapeProto *pb_shape(PbArena *a, int rank, const tfs_i64 *shape) {
  Tensorflow__TensorShapeProto *s = pa_alloc(a, sizeof *s);
  tensorflow__tensor_shape_proto__init(s);
  if (rank < 0) {
    s->unknown_rank = 1;
    return s;
  }
  s->n_dim = (size_t)rank;
  s->dim = pa_alloc(a, sizeof(void *) * (size_t)rank);
  for (int i = 0; i < rank; i++) {
    Tensorflow__TensorShapeProto__Dim *d = pa_alloc(a, sizeof *d);
    tensorflow__tensor_shape_proto__dim__init(d);
    d->size = shape[i];
    s->dim[i] = d;
  }
  return s;
}

Tensorflow__TensorProto *pb_tensor(PbArena *a, Tensor *t) {
  Tensorflow__TensorProto *p = pa_alloc(a, sizeof *p);
  tensorflow__tensor_proto__init(p);
  p->dtype = pb_dtype(t->dtype);
  p->tensor_shape = pb_shape(a, t->rank, t->shape);
  if (t->dtype == DT_STRING) {
    p->n_string_val = (size_t)t->size;
    p->string_val = pa_alloc(a, sizeof(ProtobufCBinaryData) * (size_t)t->size);
    Str **el = t->buf->data;
    for (tfs_i64 i = 0; i < t->size; i++) {
      Str *s = el[tensor_elem_offset(t, i)];
      p->string_val[i].data = (uint8_t *)(s ? s->data : "");
      p->string_val[i].len = s ? (size_t)s->len : 0;
    }
    return p;
  }
  size_t es = (size_t)dtype_info[t->dtype].size;
  if (t->size == 0) return p;
  unsigned char *c = pa_alloc(a, es * (size_t)t->size);
  for (tfs_i64 i = 0; i < t->size; i++)
    memcpy(c + es * (size_t)i, (unsigned char *)t->buf->data + es * (size_t)tensor_elem_offset(t, i), es);
  p->tensor_content.data = c;
  p->tensor_content.len = es * (size_t)t->size;
  return p;
}

/* A Const's value as TF's make_tensor_proto writes it: several elements of a dtype TF packs into tensor_content
 * (every real dtype but uint16 and bool) as bytes; a scalar, and any size of uint16, bool and complex, in the typed
 * repeated field (half_val holds float16/bfloat16 bit patterns). */
Tensorflow__TensorProto *pb_const_tensor(PbArena *a, Tensor *t) {
  DType dt = t->dtype;
  bool typed_always = dt == DT_UINT16 || dt == DT_BOOL || dtype_is_complex(dt);
  if (dt == DT_STRING || (t->size != 1 && !typed_always)) return pb_tensor(a, t);
  return pb_field_tensor(a, t);
}

/* As TF's Tensor::AsProtoField: every value in its typed repeated field, strings in string_val. */
Tensorflow__TensorProto *pb_field_tensor(PbArena *a, Tensor *t) {
  DType dt = t->dtype;
  if (dt == DT_STRING) return pb_tensor(a, t);
  Tensorflow__TensorProto *p = pa_alloc(a, sizeof *p);
  tensorflow__tensor_proto__init(p);
  p->dtype = pb_dtype(dt);
  p->tensor_shape = pb_shape(a, t->rank, t->shape);
  size_t n = (size_t)t->size, es = (size_t)dtype_info[dt].size;
/* append one value to repeated field F (n_F counts), allocating room for the whole tensor at the first */
#define PUT(F, CT, V)                                         \
  do {                                                        \
    if (!p->F) p->F = pa_alloc(a, sizeof(CT) * n * per);      \
    p->F[p->n_##F++] = (V);                                   \
  } while (0)
  size_t per = dtype_is_complex(dt) ? 2 : 1;   /* complex: (re, im) pairs */
  for (size_t i = 0; i < n; i++) {
    const void *e = (const char *)t->buf->data + es * (size_t)tensor_elem_offset(t, (tfs_i64)i);
    switch (dt) {
      case DT_FLOAT32: PUT(float_val, float, *(const float *)e); break;
      case DT_FLOAT64: PUT(double_val, double, *(const double *)e); break;
      case DT_INT64: PUT(int64_val, int64_t, *(const int64_t *)e); break;
      case DT_FLOAT16: case DT_BFLOAT16: PUT(half_val, int32_t, *(const uint16_t *)e); break;
      case DT_UINT32: PUT(uint32_val, uint32_t, *(const uint32_t *)e); break;
      case DT_UINT64: PUT(uint64_val, uint64_t, *(const uint64_t *)e); break;
      case DT_COMPLEX64:
        PUT(scomplex_val, float, ((const float *)e)[0]);
        PUT(scomplex_val, float, ((const float *)e)[1]);
        break;
      case DT_COMPLEX128:
        PUT(dcomplex_val, double, ((const double *)e)[0]);
        PUT(dcomplex_val, double, ((const double *)e)[1]);
        break;
      case DT_BOOL: PUT(bool_val, protobuf_c_boolean, *(const unsigned char *)e != 0); break;
      default: PUT(int_val, int32_t, (int32_t)tensor_get_i(t, (tfs_i64)i)); break;   /* int32, the small integers */
    }
  }
#undef PUT
  return p;
}

/* ---- reading (tf.saved_model.load) ------------------------------------------------------------- */

int pb_undtype(Tensorflow__DataType t) {
  for (int d = 0; d < DT__COUNT; d++)
    if (pb_dtype((DType)d) == t && t != TENSORFLOW__DATA_TYPE__DT_INVALID) return d;
  return -1;
}

bool pb_unshape(const Tensorflow__TensorShapeProto *p, int *rank, tfs_i64 *shape) {
  if (!p || p->unknown_rank) {
    *rank = -1;
    return true;
  }
  if (p->n_dim > TFS_MAX_RANK) return false;
  *rank = (int)p->n_dim;
  for (size_t i = 0; i < p->n_dim; i++) shape[i] = p->dim[i]->size < 0 ? -1 : p->dim[i]->size;
  return true;
}

/* A string tensor in tensor_content, as TF's AsProtoTensorContent writes one (port::EncodeStringList: the
 * varint32 length of every element, then the bytes of all); NULL when the lengths do not add up. */
static Tensor *untensor_string_list(const Tensorflow__TensorProto *p, int rank, const tfs_i64 *shape, tfs_i64 size,
                                    const char **err) {
  const uint8_t *d = p->tensor_content.data;
  size_t len = p->tensor_content.len, pos = 0, total = 0;
  *err = "a string tensor whose tensor_content does not fit its shape";
  if ((size_t)size > len) return NULL;   /* every element takes a length byte at least */
  uint32_t *sizes = malloc(sizeof(uint32_t) * (size_t)(size + 1));
  if (!sizes) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < size; i++) {
    uint32_t v = 0;
    int shift = 0;
    for (;;) {
      if (pos >= len || shift > 28) { free(sizes); return NULL; }
      uint8_t b = d[pos++];
      v |= (uint32_t)(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) break;
    }
    sizes[i] = v;
    total += v;
  }
  if (total != len - pos) { free(sizes); return NULL; }
  Tensor *t = tensor_new(DT_STRING, rank, shape);
  Str **el = t->buf->data;
  for (tfs_i64 i = 0; i < size; i++) {
    el[i] = (Str *)str_new((const char *)d + pos, (tfs_i64)sizes[i]).u.o;
    pos += sizes[i];
  }
  free(sizes);
  *err = NULL;
  return t;
}

Tensor *pb_untensor(const Tensorflow__TensorProto *p, const char **err) {
  int dt = p ? pb_undtype(p->dtype) : -1, rank;
  tfs_i64 shape[TFS_MAX_RANK], size = 1;
  if (dt < 0) {
    *err = "a tensor of an unsupported dtype";
    return NULL;
  }
  if (!pb_unshape(p->tensor_shape, &rank, shape) || rank < 0) {
    *err = "a tensor with a bad shape";
    return NULL;
  }
  for (int i = 0; i < rank; i++) {
    if (shape[i] < 0 || (shape[i] && size > ((tfs_i64)1 << 40) / shape[i])) {
      *err = "a tensor with a bad shape";
      return NULL;
    }
    size *= shape[i];
  }
  if (dt == DT_STRING && p->tensor_content.len) return untensor_string_list(p, rank, shape, size, err);
  size_t es = (size_t)dtype_info[dt].size, have;
  bool small_int = dt == DT_UINT8 || dt == DT_INT8 || dt == DT_INT16 || dt == DT_UINT16;   /* TF writes them to int_val */
  if (dt == DT_STRING) have = p->n_string_val;
  else if (p->tensor_content.len) have = p->tensor_content.len / es;
  else if (dtype_is_complex((DType)dt)) have = (dt == DT_COMPLEX64 ? p->n_scomplex_val : p->n_dcomplex_val) / 2;   /* (re, im) pairs */
  else
    have = dt == DT_FLOAT32 ? p->n_float_val : dt == DT_FLOAT64 ? p->n_double_val : dt == DT_INT32 || small_int ? p->n_int_val
         : dt == DT_INT64 ? p->n_int64_val
         : dt == DT_FLOAT16 || dt == DT_BFLOAT16 ? p->n_half_val : dt == DT_UINT32 ? p->n_uint32_val
         : dt == DT_UINT64 ? p->n_uint64_val : p->n_bool_val;
  /* TF repeats the last typed value to fill the shape; content must be exact */
  if ((p->tensor_content.len && (p->tensor_content.len != es * (size_t)size)) || (size && !have) ||
      (size_t)size < have) {
    *err = "a tensor whose values do not fit its shape";
    return NULL;
  }
  Tensor *t = tensor_new((DType)dt, rank, shape);
  if (dt == DT_STRING) {
    Str **el = t->buf->data;
    for (tfs_i64 i = 0; i < size; i++) {
      const ProtobufCBinaryData *s = &p->string_val[(size_t)i < have ? (size_t)i : have - 1];
      el[i] = (Str *)str_new((const char *)s->data, (tfs_i64)s->len).u.o;
    }
  } else if (p->tensor_content.len) {
    memcpy(t->buf->data, p->tensor_content.data, p->tensor_content.len);
  } else {
    for (tfs_i64 i = 0; i < size; i++) {
      size_t k = (size_t)i < have ? (size_t)i : have - 1;
      void *d = (char *)t->buf->data + es * (size_t)i;
      switch (dt) {
        case DT_FLOAT32: *(float *)d = p->float_val[k]; break;
        case DT_FLOAT64: *(double *)d = p->double_val[k]; break;
        case DT_INT32: *(int32_t *)d = p->int_val[k]; break;
        case DT_INT64: *(int64_t *)d = p->int64_val[k]; break;
        case DT_UINT8: case DT_INT8: case DT_INT16: case DT_UINT16: dtype_store_i((DType)dt, d, p->int_val[k]); break;
        case DT_FLOAT16: case DT_BFLOAT16: *(uint16_t *)d = (uint16_t)p->half_val[k]; break;   /* the bit pattern */
        case DT_UINT32: *(uint32_t *)d = p->uint32_val[k]; break;
        case DT_UINT64: *(uint64_t *)d = p->uint64_val[k]; break;
        case DT_COMPLEX64: dtype_store_c((DType)dt, d, p->scomplex_val[2 * k], p->scomplex_val[2 * k + 1]); break;
        case DT_COMPLEX128: dtype_store_c((DType)dt, d, p->dcomplex_val[2 * k], p->dcomplex_val[2 * k + 1]); break;
        default: *(unsigned char *)d = p->bool_val[k] != 0; break;
      }
    }
  }
  return t;
}
