/* board.c — `tfs board LOGDIR [-o FILE]`: reads a log directory's event files and profiles into one report (boardhtml.c writes it).
 *
 * What TensorBoard's dashboards read, read the same way: every file named
 * events.out.tfevents.* below LOGDIR is a run (its folder relative to LOGDIR,
 * "." for LOGDIR itself); its records are TFRecord-framed Event messages
 * whose summary values carry a plugin name (scalars, histograms, text) and a
 * tensor, or a GraphDef (trace_export, the Keras callback).  Profiles are the
 * <host>.xplane.pb files under plugins/profile/<run>/. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/iofile.h"
#include "formats/pbutil.h"
#include "formats/tfrecord.h"
#include "modules/board.h"
#include "object/object.h"

static void *bd_grow(void *p, int *cap, int n, size_t elem) {
  if (n < *cap) return p;
  int c = *cap ? 2 * *cap : 16;
  void *q = realloc(p, (size_t)c * elem);
  if (!q) {
    fprintf(stderr, "tfs board: out of memory\n");
    exit(1);
  }
  *cap = c;
  return q;
}

/* The numbers of a TensorProto (scalars: one; histograms: k x 3), malloc'd, or NULL. */
static double *bd_numbers(const Tensorflow__TensorProto *tp, tfs_i64 *n, int *rank, tfs_i64 *shape) {
  const char *err = NULL;
  Tensor *t = pb_untensor(tp, &err);
  if (!t) return NULL;
  double *v = NULL;
  if (t->dtype != DT_STRING && t->rank <= 2) {
    v = malloc(sizeof(double) * (size_t)(t->size + 1));
    for (tfs_i64 i = 0; v && i < t->size; i++) v[i] = tensor_get_f(t, i);
    *n = t->size;
    *rank = t->rank;
    for (int d = 0; d < t->rank; d++) shape[d] = t->shape[d];
  }
  tensor_release(t);
  return v;
}

static void bd_value(Board *b, const char *run, tfs_i64 step, double wall, const Tensorflow__Summary__Value *sv) {
  const char *plugin = sv->metadata && sv->metadata->plugin_data && sv->metadata->plugin_data->plugin_name
                         ? sv->metadata->plugin_data->plugin_name : "";
  const char *tag = sv->tag ? sv->tag : "";
  if (!strncmp(plugin, "graph_run_metadata", 18)) {
    /* trace_export (TF 2.15): a RunMetadata in the string tensor; like TensorBoard, draw each function's graph before
     * optimization (one figure per function; TensorBoard merges them into one view) */
    if (sv->value_case != TENSORFLOW__SUMMARY__VALUE__VALUE_TENSOR || !sv->tensor || sv->tensor->n_string_val != 1) return;
    const ProtobufCBinaryData *raw = &sv->tensor->string_val[0];
    Tensorflow__RunMetadata *rm = tensorflow__run_metadata__unpack(NULL, raw->len, raw->data);
    if (!rm) return;
    for (size_t i = 0; i < rm->n_function_graphs; i++) {
      const Tensorflow__GraphDef *pre = rm->function_graphs[i]->pre_optimization_graph;
      if (!pre) continue;
      /* a GraphDef of its own (board_free frees each graph as an unpacked message) */
      size_t len = tensorflow__graph_def__get_packed_size(pre);
      uint8_t *buf = malloc(len ? len : 1);
      if (!buf) break;
      tensorflow__graph_def__pack(pre, buf);
      Tensorflow__GraphDef *gd = tensorflow__graph_def__unpack(NULL, len, buf);
      free(buf);
      if (!gd) continue;
      b->graphs = bd_grow(b->graphs, &b->capgraphs, b->ngraphs, sizeof(BdGraph));
      b->graphs[b->ngraphs++] = (BdGraph){strdup(run), step, gd};
    }
    tensorflow__run_metadata__free_unpacked(rm, NULL);
    return;
  }
  if (sv->value_case == TENSORFLOW__SUMMARY__VALUE__VALUE_SIMPLE_VALUE || !strcmp(plugin, "scalars")) {
    double y;
    if (sv->value_case == TENSORFLOW__SUMMARY__VALUE__VALUE_SIMPLE_VALUE) {
      y = sv->simple_value;
    } else {
      tfs_i64 n = 0, shape[2];
      int rank = 0;
      double *v = sv->value_case == TENSORFLOW__SUMMARY__VALUE__VALUE_TENSOR ? bd_numbers(sv->tensor, &n, &rank, shape) : NULL;
      if (!v || n != 1) {
        free(v);
        return;
      }
      y = v[0];
      free(v);
    }
    b->scalars = bd_grow(b->scalars, &b->capscalars, b->nscalars, sizeof(BdScalar));
    b->scalars[b->nscalars++] = (BdScalar){strdup(run), strdup(tag), step, wall, y};
  } else if (!strcmp(plugin, "histograms") && sv->value_case == TENSORFLOW__SUMMARY__VALUE__VALUE_TENSOR) {
    tfs_i64 n = 0, shape[2] = {0, 0};
    int rank = 0;
    double *v = bd_numbers(sv->tensor, &n, &rank, shape);
    if (!v || (n && (rank != 2 || shape[1] != 3))) {
      free(v);
      return;
    }
    b->hists = bd_grow(b->hists, &b->caphists, b->nhists, sizeof(BdHist));
    b->hists[b->nhists++] = (BdHist){strdup(run), strdup(tag), step, (int)(n / 3), v};
  } else if (!strcmp(plugin, "text") && sv->value_case == TENSORFLOW__SUMMARY__VALUE__VALUE_TENSOR) {
    const Tensorflow__TensorProto *tp = sv->tensor;
    StrBuf s;
    sb_init(&s);
    for (size_t i = 0; i < tp->n_string_val; i++) {
      if (i) sb_putc(&s, '\n');
      sb_putn(&s, (const char *)tp->string_val[i].data, tp->string_val[i].len);
    }
    b->texts = bd_grow(b->texts, &b->captexts, b->ntexts, sizeof(BdText));
    b->texts[b->ntexts++] = (BdText){strdup(run), strdup(tag), step, s.data ? sb_steal(&s) : strdup("")};
  }
}

/* The whole file into d; false when it cannot be opened. */
static bool bd_slurp(const char *path, StrBuf *d) {
  sb_init(d);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "tfs board: cannot read %s: %s; skipped\n", path, strerror(errno));
    return false;
  }
  char chunk[65536];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) sb_putn(d, chunk, k);
  fclose(f);
  return true;
}

/* One event file: each record's CRCs are checked by tfr_next; a damaged tail is reported and skipped. */
static void bd_events(Board *b, const char *path, const char *run) {
  StrBuf d;
  if (!bd_slurp(path, &d)) return;
  tfs_i64 len = (tfs_i64)d.len;
  tfs_i64 at = 0;
  const unsigned char *rec;
  tfs_i64 n;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) != 0) {   /* a damaged record: what came before it stays */
    fprintf(stderr, "tfs board: %s: %s (the records before it are shown)\n", path, t.msg ? t.msg : "damaged");
    rt_try_clear(&t);
    sb_free(&d);
    return;
  }
  while (tfr_next((const unsigned char *)d.data, len, &at, &rec, &n)) {
    Tensorflow__Event *ev = tensorflow__event__unpack(NULL, (size_t)n, rec);
    if (!ev) continue;
    if (ev->what_case == TENSORFLOW__EVENT__WHAT_SUMMARY && ev->summary) {
      for (size_t i = 0; i < ev->summary->n_value; i++) bd_value(b, run, ev->step, ev->wall_time, ev->summary->value[i]);
    } else if (ev->what_case == TENSORFLOW__EVENT__WHAT_GRAPH_DEF) {
      b->graphs = bd_grow(b->graphs, &b->capgraphs, b->ngraphs, sizeof(BdGraph));
      b->graphs[b->ngraphs++] = (BdGraph){strdup(run), ev->step,
                                          tensorflow__graph_def__unpack(NULL, ev->graph_def.len, ev->graph_def.data)};
      if (!b->graphs[b->ngraphs - 1].gd) b->ngraphs--;
    }
    tensorflow__event__free_unpacked(ev, NULL);
  }
  rt_try_pop(&t);
  sb_free(&d);
}

static void bd_profile(Board *b, const char *path, const char *run) {
  StrBuf d;
  if (!bd_slurp(path, &d)) return;
  Tensorflow__Profiler__XSpace *sp = tensorflow__profiler__xspace__unpack(NULL, d.len, (const uint8_t *)d.data);
  sb_free(&d);
  if (!sp) {
    fprintf(stderr, "tfs board: %s is not an XSpace; skipped\n", path);
    return;
  }
  b->profiles = bd_grow(b->profiles, &b->capprofiles, b->nprofiles, sizeof(BdProfile));
  b->profiles[b->nprofiles++] = (BdProfile){strdup(run), sp};
}

static int bd_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Walk dir (rel: its path under LOGDIR), in name order so the report is the same on every run. */
static void bd_walk(Board *b, const char *dir, const char *rel, int depth) {
  if (depth > 32) return;
  DIR *d = opendir(dir);
  if (!d) return;
  char **names = NULL;
  int n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    names = bd_grow(names, &cap, n, sizeof(char *));
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(names, (size_t)n, sizeof(char *), bd_cmp_str);   /* names is NULL for an empty directory */
  for (int i = 0; i < n; i++) {
    size_t pl = strlen(dir) + strlen(names[i]) + 2, rl = strlen(rel) + strlen(names[i]) + 2;
    char *path = malloc(pl), *r = malloc(rl);
    snprintf(path, pl, "%s/%s", dir, names[i]);
    snprintf(r, rl, "%s%s%s", rel, *rel ? "/" : "", names[i]);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      bd_walk(b, path, r, depth + 1);
    } else if (strstr(names[i], "events.out.tfevents.")) {
      bd_events(b, path, *rel ? rel : ".");
    } else if (strlen(names[i]) > 10 && !strcmp(names[i] + strlen(names[i]) - 10, ".xplane.pb")) {
      bd_profile(b, path, rel);
    }
    free(path);
    free(r);
    free(names[i]);
  }
  free(names);
}

void board_read(Board *b, const char *logdir) {
  memset(b, 0, sizeof *b);
  b->logdir = logdir;
  bd_walk(b, logdir, "", 0);
}

void board_free(Board *b) {
  for (int i = 0; i < b->nscalars; i++) free(b->scalars[i].run), free(b->scalars[i].tag);
  for (int i = 0; i < b->nhists; i++) free(b->hists[i].run), free(b->hists[i].tag), free(b->hists[i].v);
  for (int i = 0; i < b->ntexts; i++) free(b->texts[i].run), free(b->texts[i].tag), free(b->texts[i].text);
  for (int i = 0; i < b->ngraphs; i++) free(b->graphs[i].run), tensorflow__graph_def__free_unpacked(b->graphs[i].gd, NULL);
  for (int i = 0; i < b->nprofiles; i++)
    free(b->profiles[i].run), tensorflow__profiler__xspace__free_unpacked(b->profiles[i].space, NULL);
  free(b->scalars);
  free(b->hists);
  free(b->texts);
  free(b->graphs);
  free(b->profiles);
}

int board_main(const char *logdir, const char *out) {
  struct stat st;
  if (stat(logdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "tfs board: error: '%s' is not a directory\n", logdir);
    return 1;
  }
  Board b;
  board_read(&b, logdir);
  StrBuf html;
  sb_init(&html);
  board_html(&html, &b);
  FILE *f = fopen(out, "wb");
  int rc = 0;
  if (!f || fwrite(html.data, 1, html.len, f) != html.len || fclose(f) != 0) {
    fprintf(stderr, "tfs board: error: cannot write '%s': %s\n", out, strerror(errno));
    rc = 1;
  } else {
    printf("tfs board: wrote %s (%d scalar points, %d histograms, %d texts, %d graphs, %d profiles)\n", out, b.nscalars,
           b.nhists, b.ntexts, b.ngraphs, b.nprofiles);
  }
  sb_free(&html);
  board_free(&b);
  return rc;
}
