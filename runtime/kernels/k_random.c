/* k_random.c — seeded random ops (uniform, normal, truncated normal, dropout): counter-based splitmix64 streams. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "object/object.h"
#include "kernels/ops.h"
#include "kernels/rngstream.h"

/* Each random op call draws from its own stream, keyed by (global seed, op seed,
 * call count), so a program with tf.random.set_seed prints the same numbers on
 * every run, and two calls with the same op seed still differ (as in TF). */

static bool rng_has_global;
static tfs_i64 rng_global;
static tfs_u64 rng_op_counter;     /* op seeds for calls without seed= */
static tfs_u64 rng_nondet;         /* base of unseeded streams */

#define RNG_TABLE 64
static struct { tfs_i64 seed; tfs_u64 calls; bool used; } rng_calls[RNG_TABLE];

#define DEFAULT_GLOBAL_SEED 87654321  /* TF's default graph seed when only an op seed is set */

void random_set_seed(bool has_seed, tfs_i64 seed) {
  rng_has_global = has_seed;
  rng_global = seed;
  rng_op_counter = 0;
  memset(rng_calls, 0, sizeof rng_calls);
}

bool random_global_seed(tfs_i64 *seed) {
  *seed = rng_global;
  return rng_has_global;
}

tfs_i64 random_op_seed_index(void) { return (tfs_i64)rng_op_counter++; }

/* Snapshot layout: the unseeded counter, then (seed, calls, used) per table slot. */
Tensor *random_state_get(void) {
  tfs_i64 n = random_state_size();
  Tensor *t = tensor_new(DT_INT64, 1, &n);
  tfs_i64 *p = tensor_data(t);
  p[0] = (tfs_i64)rng_op_counter;
  for (int i = 0; i < RNG_TABLE; i++) {
    p[1 + 3 * i] = rng_calls[i].seed;
    p[2 + 3 * i] = (tfs_i64)rng_calls[i].calls;
    p[3 + 3 * i] = rng_calls[i].used;
  }
  return t;
}

void random_state_set(const Tensor *snap) {
  if (snap->dtype != DT_INT64 || snap->size != 1 + 3 * RNG_TABLE) return;
  const tfs_i64 *p = tensor_data((Tensor *)snap);
  rng_op_counter = (tfs_u64)p[0];
  for (int i = 0; i < RNG_TABLE; i++) {
    rng_calls[i].seed = p[1 + 3 * i];
    rng_calls[i].calls = (tfs_u64)p[2 + 3 * i];
    rng_calls[i].used = p[3 + 3 * i] != 0;
  }
}

tfs_i64 random_state_size(void) { return 1 + 3 * RNG_TABLE; }

void meta_rng_state(OpCall *c) {
  tfs_i64 n = random_state_size();
  meta_set(&c->outm[0], DT_INT64, 1, &n);
}

void k_rng_state(OpCall *c) {
  Tensor *t = random_state_get();
  memcpy(tensor_data(c->out[0]), tensor_data(t), sizeof(tfs_i64) * (size_t)t->size);
  tensor_release(t);
}

void meta_rng_swap(OpCall *c) { meta_rng_state(c); }

void k_rng_swap(OpCall *c) {
  k_rng_state(c);
  random_state_set(c->in[0]);
}

static tfs_u64 op_seed_calls(tfs_i64 seed) {
  unsigned h = (unsigned)((tfs_u64)seed * 0x9e3779b97f4a7c15ULL >> 58);
  for (int k = 0; k < RNG_TABLE; k++) {
    int i = (int)((h + (unsigned)k) % RNG_TABLE);
    if (!rng_calls[i].used) { rng_calls[i].used = true; rng_calls[i].seed = seed; rng_calls[i].calls = 0; }
    if (rng_calls[i].seed == seed) return rng_calls[i].calls++;
  }
  return rng_op_counter++;   /* table full: still deterministic */
}

/* The stream state of this call; `seed_attr` is the index of the seed attribute. */
tfs_u64 random_stream_key(OpCall *c, int seed_attr) {
  bool has_op = op_attr_given(c, seed_attr);
  if (!rng_has_global && !has_op) {
    if (!rng_nondet) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      rng_nondet = (tfs_u64)ts.tv_nsec ^ ((tfs_u64)ts.tv_sec << 20) ^ 1;
    }
    return mix3(rng_nondet, rng_op_counter++, 0x51ED);
  }
  tfs_u64 g = rng_has_global ? (tfs_u64)rng_global : DEFAULT_GLOBAL_SEED;
  if (has_op) {
    tfs_i64 s = op_attr_int(c, seed_attr, 0);
    return mix3(g, (tfs_u64)s, op_seed_calls(s));
  }
  return mix3(g, rng_op_counter++ + ((tfs_u64)1 << 40), 0);
}

/* Attributes (uniform): shape, minval, maxval, dtype, seed; (normal): shape, mean, stddev, dtype, seed. */
/* shape: the requested shape. */
void meta_random(OpCall *c) {
  tfs_i64 dims[TFS_MAX_RANK];
  int r = val_to_dims(op_attr(c, 0), dims, false, c->op->id == OP_RANDOM_UNIFORM ? "tf.random.uniform" : "tf.random.normal");
  int dt = op_attr_dtype(c, 3, DT_FLOAT32);
  if (!(c->op->dtypes & DTM(dt)))
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'dtype' of %s is not in the list of allowed values", dtype_short_name((DType)dt));
  if (c->op->id == OP_RANDOM_UNIFORM && dtype_info[dt].is_int) {
    if (!op_attr_given(c, 2)) op_fail(c, ERR_VALUE, "Must specify maxval for integer dtype tf.%s", dtype_info[dt].name);
    tfs_i64 lo = op_attr_int(c, 1, 0), hi = op_attr_int(c, 2, 0);
    if (lo >= hi) op_fail(c, ERR_INVALID_ARGUMENT, "Need minval < maxval: %lld >= %lld", (long long)lo, (long long)hi);
  }
  meta_set(&c->outm[0], (DType)dt, r, dims);
}

void k_random(OpCall *c) {
  Tensor *o = c->out[0];
  tfs_u64 st = random_stream_key(c, 4);
  tfs_i64 n = o->size;
  void *p = tensor_data(o);
  OpId id = c->op->id;
  if (id == OP_RANDOM_UNIFORM) {
    switch (o->dtype) {
    case DT_FLOAT32: {
      float lo = (float)op_attr_float(c, 1, 0), hi = (float)op_attr_float(c, 2, 1), *q = p;
      for (tfs_i64 i = 0; i < n; i++) q[i] = u01f(&st) * (hi - lo) + lo;
      break;
    }
    case DT_FLOAT64: {
      double lo = op_attr_float(c, 1, 0), hi = op_attr_float(c, 2, 1), *q = p;
      for (tfs_i64 i = 0; i < n; i++) q[i] = u01(&st) * (hi - lo) + lo;
      break;
    }
    case DT_INT32: case DT_INT64: {
      tfs_i64 lo = op_attr_int(c, 1, 0), hi = op_attr_int(c, 2, 0);
      tfs_u64 range = (tfs_u64)hi - (tfs_u64)lo;
      for (tfs_i64 i = 0; i < n; i++) {
        tfs_i64 v = (tfs_i64)((tfs_u64)lo + sm64(&st) % range);
        if (o->dtype == DT_INT32) ((int32_t *)p)[i] = (int32_t)v;
        else ((int64_t *)p)[i] = v;
      }
      break;
    }
    default: break;
    }
    return;
  }
  double mean = op_attr_float(c, 1, 0), sd = op_attr_float(c, 2, 1);
  for (tfs_i64 i = 0; i < n; i++) {
    double z = normal01(&st);
    if (id == OP_TRUNC_NORMAL)
      while (fabs(z) > 2.0) z = normal01(&st);
    double v = mean + sd * z;
    if (o->dtype == DT_FLOAT32) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
  }
}

/* dropout attributes: rate, noise_shape, seed. */
/* shape: the input's shape. */
void meta_dropout(OpCall *c) {
  c->outm[0] = c->inm[0];
  double rate = op_attr_float(c, 0, -1);
  if (!(rate >= 0 && rate < 1)) op_fail(c, ERR_VALUE, "rate must be a scalar tensor or a float in the range [0, 1), got %g", rate);
}

void k_dropout(OpCall *c) {
  if (op_run_half_as_f32(c, k_dropout)) return;
  Tensor *x = c->in[0], *o = c->out[0];
  double rate = op_attr_float(c, 0, 0);
  tfs_u64 st = random_stream_key(c, 2);
  int r = x->rank;
  tfs_i64 ns[TFS_MAX_RANK];
  if (op_attr_given(c, 1)) {
    r = val_to_dims(op_attr(c, 1), ns, false, "tf.nn.dropout noise_shape");
  } else {
    for (int d = 0; d < r; d++) ns[d] = x->shape[d];
  }
  Tensor *mask = tensor_new(x->dtype, r, ns);
  if (x->dtype == DT_FLOAT32) {
    float scale = 1.0f / (1.0f - (float)rate), *m = tensor_data(mask);
    for (tfs_i64 i = 0; i < mask->size; i++) m[i] = u01f(&st) >= (float)rate ? scale : 0.0f;
  } else {
    double scale = 1.0 / (1.0 - rate), *m = tensor_data(mask);
    for (tfs_i64 i = 0; i < mask->size; i++) m[i] = u01(&st) >= rate ? scale : 0.0;
  }
  ew_binary(OP_MUL, o, x, mask);
  tensor_release(mask);
}

/* ---- stateless random ops (issue 31): the numbers are a function of the seed input alone ---- */

/* shape: the requested shape (attribute 0), float dtype attribute 1; the seed input holds 2 integers. */
void meta_stateless_random(OpCall *c) {
  tfs_i64 dims[TFS_MAX_RANK];
  int r = val_to_dims(op_attr(c, 0), dims, false, c->op->graph_name);
  int dt = op_attr_dtype(c, 1, DT_FLOAT32);
  if (!(c->op->dtypes & DTM(dt)))
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'dtype' of %s is not in the list of allowed values", dtype_short_name((DType)dt));
  random_check_seed_meta(c, &c->inm[0]);
  meta_set(&c->outm[0], (DType)dt, r, dims);
}

void random_check_seed_meta(OpCall *c, const TMeta *s) {
  if (s->rank >= 0 && (s->rank != 1 || (s->shape[0] >= 0 && s->shape[0] != 2))) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "seed must have shape [2], not ");
    op_shape_text(&b, s->rank, s->shape);
    /* errindex: seed must have shape [2], not … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
}

void k_stateless_random(OpCall *c) {
  Tensor *seed = c->in[0], *o = c->out[0];
  tfs_u64 st = random_seed_stream(seed, (tfs_u64)c->op->id);
  void *p = tensor_data(o);
  for (tfs_i64 i = 0; i < o->size; i++) {
    double v;
    if (c->op->id == OP_STATELESS_UNIFORM) {
      if (o->dtype == DT_FLOAT32) {
        ((float *)p)[i] = u01f(&st);
        continue;
      }
      v = u01(&st);
    } else {
      v = normal01(&st);
      if (c->op->id == OP_STATELESS_TRUNC_NORMAL)
        while (fabs(v) > 2.0) v = normal01(&st);
    }
    if (o->dtype == DT_FLOAT32) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
  }
}
