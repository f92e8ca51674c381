/* serve.c — serves a SavedModel through libtfs: each stdin line is a JSON object of inputs, answered by one JSON line of outputs.
 *
 *   cc serve.c $(pkg-config --cflags --libs tfs) -o serve
 *   echo '{"x": [[1.0, 2.0]]}' | ./serve EXPORT_DIR [SIGNATURE]
 *   {"output_0": [[7.0, 10.0]]}
 *
 * Inputs are nested arrays of numbers (true/false for bool inputs), named as
 * the signature's keyword arguments; a bad request gets {"error": "..."} and
 * the server goes on with the next line.  Exit status: 0 at end of input, 1
 * when the model cannot be loaded. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfs.h"

#define MAX_RANK 8

/* One input value being parsed: numbers in row-major order and the shape found. */
typedef struct Arr {
  double *v;
  size_t n, cap;
  int rank;
  int64_t dims[MAX_RANK];
  int64_t seen[MAX_RANK];     /* items at each depth in the current array */
  int ok;
} Arr;

static const char *ws(const char *p) {
  while (isspace((unsigned char)*p)) p++;
  return p;
}

static int push(Arr *a, double x) {
  if (a->n == a->cap) {
    size_t cap = a->cap ? 2 * a->cap : 64;
    double *v = realloc(a->v, cap * sizeof *v);
    if (!v) return 0;
    a->v = v;
    a->cap = cap;
  }
  a->v[a->n++] = x;
  return 1;
}

/* A number, true/false, or a nested array at `depth`; sets the shape on the first path and checks it after. */
static const char *value(const char *p, Arr *a, int depth) {
  p = ws(p);
  if (*p == '[') {
    if (depth >= MAX_RANK) return NULL;
    if (depth >= a->rank) {
      if (a->n) return NULL;   /* ragged: deeper than the first item */
      a->rank = depth + 1;
      a->dims[depth] = -1;
    }
    int64_t k = 0;
    p = ws(p + 1);
    if (*p == ']') p++;
    else
      for (;;) {
        p = value(p, a, depth + 1);
        if (!p) return NULL;
        k++;
        p = ws(p);
        if (*p == ',') p++;
        else if (*p == ']') {
          p++;
          break;
        } else
          return NULL;
      }
    if (a->dims[depth] < 0) a->dims[depth] = k;
    else if (a->dims[depth] != k) return NULL;
    return p;
  }
  if (depth < a->rank) return NULL;   /* a number where an array was */
  if (a->n == 0) a->rank = depth;
  if (!strncmp(p, "true", 4)) return push(a, 1) ? p + 4 : NULL;
  if (!strncmp(p, "false", 5)) return push(a, 0) ? p + 5 : NULL;
  char *end;
  double x = strtod(p, &end);
  if (end == p) return NULL;
  return push(a, x) ? end : NULL;
}

/* "name" -> malloc'd name (no escapes needed for identifiers) */
static const char *string(const char *p, char *out, size_t n) {
  p = ws(p);
  if (*p != '"') return NULL;
  size_t k = 0;
  for (p++; *p && *p != '"'; p++)
    if (k + 1 < n) out[k++] = *p;
  out[k] = 0;
  return *p == '"' ? p + 1 : NULL;
}

static void json_str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
    else putchar(*s);
  }
  putchar('"');
}

static void error(const char *msg) {
  printf("{\"error\": ");
  json_str(msg);
  printf("}\n");
  fflush(stdout);
}

/* Print n values of dtype dt, nested by dims. */
static void print_arr(const void *data, TfsDType dt, int rank, const int64_t *dims, size_t *k) {
  if (rank == 0) {
    switch (dt) {
      case TFS_FLOAT32: printf("%.9g", ((const float *)data)[*k]); break;
      case TFS_FLOAT64: printf("%.17g", ((const double *)data)[*k]); break;
      case TFS_INT32: printf("%d", ((const int32_t *)data)[*k]); break;
      case TFS_INT64: printf("%lld", (long long)((const int64_t *)data)[*k]); break;
      case TFS_BOOL: printf("%s", ((const unsigned char *)data)[*k] ? "true" : "false"); break;
    }
    (*k)++;
    return;
  }
  putchar('[');
  for (int64_t i = 0; i < dims[0]; i++) {
    if (i) printf(", ");
    print_arr(data, dt, rank - 1, dims + 1, k);
  }
  putchar(']');
}

/* Convert parsed doubles to the input's dtype. */
static void *convert(const Arr *a, TfsDType dt) {
  size_t es = dt == TFS_FLOAT64 || dt == TFS_INT64 ? 8 : dt == TFS_BOOL ? 1 : 4;
  unsigned char *buf = malloc(a->n * es + 1);
  if (!buf) return NULL;
  for (size_t i = 0; i < a->n; i++) switch (dt) {
      case TFS_FLOAT32: ((float *)buf)[i] = (float)a->v[i]; break;
      case TFS_FLOAT64: ((double *)buf)[i] = a->v[i]; break;
      case TFS_INT32: ((int32_t *)buf)[i] = (int32_t)a->v[i]; break;
      case TFS_INT64: ((int64_t *)buf)[i] = (int64_t)a->v[i]; break;
      case TFS_BOOL: buf[i] = a->v[i] != 0; break;
    }
  return buf;
}

static void handle(TfsSession *s, const char *line, TfsStatus *st) {
  const char *p = ws(line);
  if (*p != '{') return error("a request is a JSON object of inputs");
  p++;
  int nin = tfs_session_num_inputs(s), given = 0;
  for (;;) {
    p = ws(p);
    if (*p == '}') break;
    char name[128];
    p = string(p, name, sizeof name);
    if (!p || *(p = ws(p)) != ':') return error("expected \"name\": value");
    int i = tfs_session_input_index(s, name);
    if (i < 0) {
      char msg[256];
      snprintf(msg, sizeof msg, "the signature has no input '%s'", name);
      return error(msg);
    }
    Arr a = {0};
    p = value(p + 1, &a, 0);
    if (!p) {
      free(a.v);
      return error("an input must be a number or a rectangular nested array of numbers");
    }
    TfsDType dt = tfs_session_input_dtype(s, i);
    void *buf = convert(&a, dt);
    TfsCode c = buf ? tfs_session_set_input(s, i, dt, a.rank, a.dims, buf, st) : TFS_RUNTIME_ERROR;
    free(buf);
    free(a.v);
    if (c != TFS_OK) return error(buf ? tfs_status_message(st) : "out of memory");
    given++;
    p = ws(p);
    if (*p == ',') p++;
  }
  if (given != nin) return error("every input of the signature must be given");
  if (tfs_session_run(s, st) != TFS_OK) return error(tfs_status_message(st));
  putchar('{');
  for (int i = 0; i < tfs_session_num_outputs(s); i++) {
    TfsDType dt;
    int rank;
    const int64_t *dims;
    const void *d = tfs_session_output(s, i, &dt, &rank, &dims, st);
    if (!d) return error(tfs_status_message(st));
    printf("%s\"%s\": ", i ? ", " : "", tfs_session_output_name(s, i));
    size_t k = 0;
    print_arr(d, dt, rank, dims, &k);
  }
  printf("}\n");
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s EXPORT_DIR [SIGNATURE]\n", argv[0]);
    return 2;
  }
  TfsStatus *st = tfs_status_new();
  TfsModel *m = tfs_model_load(argv[1], st);
  TfsSession *s = m ? tfs_session_new(m, argc > 2 ? argv[2] : "serving_default", st) : NULL;
  if (!s) {
    fprintf(stderr, "serve: %s\n", tfs_status_message(st));
    tfs_model_free(m);
    tfs_status_free(st);
    return 1;
  }
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, stdin) > 0)
    if (*ws(line)) handle(s, line, st);
  free(line);
  tfs_session_free(s);
  tfs_model_free(m);
  tfs_status_free(st);
  return 0;
}
