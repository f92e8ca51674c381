/* tfs.c — libtfs's C API (tfs.h) over the runtime: SavedModels loaded by savedmodel.c, run by per-session plans, errors caught into statuses. */
#include "tfs.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/exec.h"
#include "graph/graph.h"
#include "kernels/isa.h"
#include "object/object.h"
#include "modules/savedmodel.h"
#include "tensor/tensor.h"

struct TfsStatus {
  TfsCode code;
  char msg[1024];
};

struct TfsModel {
  SmModel *m;                 /* a reference */
  int nsessions;
};

struct TfsSession {
  TfsModel *model;
  const SmConc *c;
  Graph *g;
  ExecPlan *plan;             /* the session's own: plans keep per-run frames */
  int nin, nout;
  Tensor **in;                /* owned; NULL until set */
  Tensor **out;               /* owned results of the last run */
  int64_t (*outdims)[TFS_MAX_RANK];
  int64_t (*indims)[TFS_MAX_RANK];
};

/* The runtime keeps reference counts and error handlers unsynchronized, so
 * every call into it holds this lock: sessions on several threads are safe
 * and take turns. */
static pthread_mutex_t tfs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t tfs_once = PTHREAD_ONCE_INIT;
static int tfs_isa_ok;
static char tfs_isa_msg[200];

/* isa_init exits on a bad TFS_ISA; a library reports it instead */
static void tfs_init(void) {
  Isa i;
  tfs_isa_ok = isa_from_env(&i, tfs_isa_msg, sizeof tfs_isa_msg) == 0;
  if (tfs_isa_ok) isa_init();
}

static TfsCode tfs_set(TfsStatus *st, TfsCode code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static TfsCode tfs_set(TfsStatus *st, TfsCode code, const char *fmt, ...) {
  if (!st) return code;
  st->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->msg, sizeof st->msg, fmt, ap);
  va_end(ap);
  return code;
}

static void tfs_ok(TfsStatus *st) {
  if (st) {
    st->code = TFS_OK;
    st->msg[0] = 0;
  }
}

/* A runtime error caught by a call: its class picks the code. */
static TfsCode tfs_caught(TfsStatus *st, RtTry *t) {
  TfsCode code = TFS_RUNTIME_ERROR;
  if (t->kind == ERR_IO) code = TFS_IO_ERROR;
  else if (t->kind == ERR_VALUE && t->msg && strstr(t->msg, "is corrupt")) code = TFS_CORRUPT;
  else if (t->kind == ERR_TYPE || t->kind == ERR_VALUE) code = TFS_INVALID_ARGUMENT;
  tfs_set(st, code, "%s: %s", err_kind_name(t->kind), t->msg ? t->msg : "error");
  rt_try_clear(t);
  return code;
}

static int tfs_dt(TfsDType d) {
  switch (d) {
    case TFS_FLOAT32: return DT_FLOAT32;
    case TFS_FLOAT64: return DT_FLOAT64;
    case TFS_INT32: return DT_INT32;
    case TFS_INT64: return DT_INT64;
    case TFS_BOOL: return DT_BOOL;
  }
  return -1;
}

static TfsDType tfs_from_dt(int d) {
  return d == DT_FLOAT64 ? TFS_FLOAT64 : d == DT_INT32 ? TFS_INT32 : d == DT_INT64 ? TFS_INT64 : d == DT_BOOL ? TFS_BOOL : TFS_FLOAT32;
}

TfsStatus *tfs_status_new(void) { return calloc(1, sizeof(TfsStatus)); }
void tfs_status_free(TfsStatus *st) { free(st); }
TfsCode tfs_status_code(const TfsStatus *st) { return st ? st->code : TFS_INVALID_ARGUMENT; }
const char *tfs_status_message(const TfsStatus *st) { return st ? st->msg : "no status"; }

TfsModel *tfs_model_load(const char *dir, TfsStatus *st) {
  pthread_once(&tfs_once, tfs_init);
  if (!tfs_isa_ok) {
    tfs_set(st, TFS_RUNTIME_ERROR, "%s", tfs_isa_msg);
    return NULL;
  }
  if (!dir) {
    tfs_set(st, TFS_INVALID_ARGUMENT, "tfs_model_load: export_dir is NULL");
    return NULL;
  }
  TfsModel *tm = calloc(1, sizeof *tm);
  if (!tm) {
    tfs_set(st, TFS_RUNTIME_ERROR, "out of memory");
    return NULL;
  }
  pthread_mutex_lock(&tfs_lock);
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    tm->m = smodel_read(dir);
    rt_try_pop(&t);
  } else {
    tfs_caught(st, &t);
    pthread_mutex_unlock(&tfs_lock);
    free(tm);
    return NULL;
  }
  pthread_mutex_unlock(&tfs_lock);
  tfs_ok(st);
  return tm;
}

void tfs_model_free(TfsModel *m) {
  if (!m) return;
  pthread_mutex_lock(&tfs_lock);
  val_decref(val_obj(m->m));
  pthread_mutex_unlock(&tfs_lock);
  free(m);
}

int tfs_model_num_signatures(const TfsModel *m) { return m ? smodel_num_signatures(m->m) : 0; }
const char *tfs_model_signature_name(const TfsModel *m, int i) { return m ? smodel_signature_name(m->m, i) : NULL; }

TfsSession *tfs_session_new(TfsModel *m, const char *signature, TfsStatus *st) {
  if (!m || !signature) {
    tfs_set(st, TFS_INVALID_ARGUMENT, "tfs_session_new: the model and the signature name must not be NULL");
    return NULL;
  }
  pthread_mutex_lock(&tfs_lock);
  SmConc *c = smodel_signature(m->m, signature);
  if (!c) {
    pthread_mutex_unlock(&tfs_lock);
    tfs_set(st, TFS_NOT_FOUND, "the SavedModel has no signature '%s'", signature);
    return NULL;
  }
  TfsSession *s = calloc(1, sizeof *s);
  Graph *g = smodel_conc_graph(c);
  if (s) {
    s->model = m;
    s->c = c;
    s->g = g;
    s->nin = g->ninputs;
    s->nout = g->noutputs;
    s->in = calloc((size_t)s->nin + 1, sizeof(Tensor *));
    s->out = calloc((size_t)s->nout + 1, sizeof(Tensor *));
    s->indims = calloc((size_t)s->nin + 1, sizeof *s->indims);
    s->outdims = calloc((size_t)s->nout + 1, sizeof *s->outdims);
  }
  RtTry t;
  rt_try_push(&t);
  if (s && s->in && s->out && s->indims && s->outdims && setjmp(t.jb) == 0) {
    s->plan = exec_plan_new(g);
    rt_try_pop(&t);
  } else {
    if (s && s->in && s->out && s->indims && s->outdims) tfs_caught(st, &t);
    else {
      rt_try_pop(&t);
      tfs_set(st, TFS_RUNTIME_ERROR, "out of memory");
    }
    pthread_mutex_unlock(&tfs_lock);
    if (s) {
      free(s->in);
      free(s->out);
      free(s->indims);
      free(s->outdims);
      free(s);
    }
    return NULL;
  }
  ((Obj *)m->m)->rc++;   /* the session keeps the model alive */
  for (int i = 0; i < s->nin; i++) {
    const TMeta *mt = g->nodes[g->inputs[i]].outm;
    for (int d = 0; d < mt->rank; d++) s->indims[i][d] = mt->shape[d];
  }
  pthread_mutex_unlock(&tfs_lock);
  tfs_ok(st);
  return s;
}

static void tfs_drop_outputs(TfsSession *s) {
  for (int i = 0; i < s->nout; i++)
    if (s->out[i]) {
      tensor_release(s->out[i]);
      s->out[i] = NULL;
    }
}

void tfs_session_free(TfsSession *s) {
  if (!s) return;
  pthread_mutex_lock(&tfs_lock);
  tfs_drop_outputs(s);
  for (int i = 0; i < s->nin; i++)
    if (s->in[i]) tensor_release(s->in[i]);
  exec_plan_free(s->plan);
  val_decref(val_obj(s->model->m));
  pthread_mutex_unlock(&tfs_lock);
  free(s->in);
  free(s->out);
  free(s->indims);
  free(s->outdims);
  free(s);
}

int tfs_session_num_inputs(const TfsSession *s) { return s ? s->nin : 0; }
int tfs_session_num_outputs(const TfsSession *s) { return s ? s->nout : 0; }
const char *tfs_session_input_name(const TfsSession *s, int i) { return s ? smodel_conc_arg(s->c, i) : NULL; }

int tfs_session_input_index(const TfsSession *s, const char *name) {
  for (int i = 0; s && name && i < s->nin; i++)
    if (!strcmp(smodel_conc_arg(s->c, i), name)) return i;
  return -1;
}

TfsDType tfs_session_input_dtype(const TfsSession *s, int i) {
  return s && i >= 0 && i < s->nin ? tfs_from_dt(s->g->nodes[s->g->inputs[i]].outm->dtype) : TFS_FLOAT32;
}

int tfs_session_input_shape(const TfsSession *s, int i, const int64_t **dims) {
  if (!s || i < 0 || i >= s->nin) return -1;
  if (dims) *dims = s->indims[i];
  return s->g->nodes[s->g->inputs[i]].outm->rank;
}

const char *tfs_session_output_name(const TfsSession *s, int i) {
  static const char *names[] = {"output_0", "output_1", "output_2", "output_3", "output_4", "output_5", "output_6",
                                "output_7", "output_8", "output_9"};
  return s && i >= 0 && i < s->nout && i < 10 ? names[i] : NULL;
}

TfsCode tfs_session_set_input(TfsSession *s, int i, TfsDType dtype, int rank, const int64_t *dims, const void *data,
                              TfsStatus *st) {
  if (!s || i < 0 || i >= s->nin) return tfs_set(st, TFS_INVALID_ARGUMENT, "tfs_session_set_input: no input %d", i);
  if (!data || rank < 0 || rank > TFS_MAX_RANK || (rank && !dims))
    return tfs_set(st, TFS_INVALID_ARGUMENT, "tfs_session_set_input: bad data, rank or dims");
  const TMeta *m = s->g->nodes[s->g->inputs[i]].outm;
  const char *name = smodel_conc_arg(s->c, i);
  int dt = tfs_dt(dtype);
  if (dt != (int)m->dtype)
    return tfs_set(st, TFS_INVALID_ARGUMENT, "input '%s' must be %s, not %s", name, dtype_info[m->dtype].name,
                   dt < 0 ? "an unknown dtype" : dtype_info[dt].name);
  if (m->rank >= 0 && rank != m->rank)
    return tfs_set(st, TFS_INVALID_ARGUMENT, "input '%s' must have rank %d, not %d", name, m->rank, rank);
  tfs_i64 size = 1;
  for (int d = 0; d < rank; d++) {
    if (dims[d] < 0 || (m->rank >= 0 && m->shape[d] >= 0 && m->shape[d] != dims[d]))
      return tfs_set(st, TFS_INVALID_ARGUMENT, "input '%s': dimension %d is %lld, which its signature does not accept",
                     name, d, (long long)dims[d]);
    if (dims[d] && size > ((tfs_i64)1 << 40) / dims[d])
      return tfs_set(st, TFS_INVALID_ARGUMENT, "input '%s' is too large", name);
    size *= dims[d];
  }
  pthread_mutex_lock(&tfs_lock);
  Tensor *t = s->in[i];
  bool reuse = t && t->buf->rc == 1 && t->rank == rank && t->dtype == (DType)dt && tensor_is_contiguous(t);
  for (int d = 0; reuse && d < rank; d++) reuse = t->shape[d] == dims[d];
  if (!reuse) {
    if (t) tensor_release(t);
    t = s->in[i] = tensor_new((DType)dt, rank, (const tfs_i64 *)dims);
  }
  memcpy(tensor_data(t), data, (size_t)size * (size_t)dtype_info[dt].size);
  pthread_mutex_unlock(&tfs_lock);
  tfs_ok(st);
  return TFS_OK;
}

TfsCode tfs_session_run(TfsSession *s, TfsStatus *st) {
  if (!s) return tfs_set(st, TFS_INVALID_ARGUMENT, "tfs_session_run: the session is NULL");
  for (int i = 0; i < s->nin; i++)
    if (!s->in[i]) return tfs_set(st, TFS_INVALID_ARGUMENT, "input '%s' was not set", smodel_conc_arg(s->c, i));
  pthread_mutex_lock(&tfs_lock);
  tfs_drop_outputs(s);
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    exec_run(s->plan, s->in, s->out);
    rt_try_pop(&t);
  } else {
    for (int i = 0; i < s->nout; i++) s->out[i] = NULL;   /* exec_run releases what it made before the error */
    TfsCode c = tfs_caught(st, &t);
    pthread_mutex_unlock(&tfs_lock);
    return c;
  }
  pthread_mutex_unlock(&tfs_lock);
  tfs_ok(st);
  return TFS_OK;
}

const void *tfs_session_output(TfsSession *s, int i, TfsDType *dtype, int *rank, const int64_t **dims, TfsStatus *st) {
  if (!s || i < 0 || i >= s->nout || !s->out[i]) {
    tfs_set(st, TFS_INVALID_ARGUMENT, "tfs_session_output: no output %d (run the session first)", i);
    return NULL;
  }
  pthread_mutex_lock(&tfs_lock);
  Tensor *t = s->out[i];
  if (!tensor_is_contiguous(t) || t->dtype == DT_STRING) {
    if (t->dtype == DT_STRING) {
      pthread_mutex_unlock(&tfs_lock);
      tfs_set(st, TFS_INVALID_ARGUMENT, "output %d is a string tensor, which the C API does not return", i);
      return NULL;
    }
    Tensor *p = tensor_contiguous(t);
    tensor_release(t);
    s->out[i] = t = p;
  }
  for (int d = 0; d < t->rank; d++) s->outdims[i][d] = t->shape[d];
  pthread_mutex_unlock(&tfs_lock);
  if (dtype) *dtype = tfs_from_dt(t->dtype);
  if (rank) *rank = t->rank;
  if (dims) *dims = s->outdims[i];
  tfs_ok(st);
  return tensor_data(t);
}
