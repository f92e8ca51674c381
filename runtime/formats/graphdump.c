/* graphdump.c — tfs run --dump-graphs DIR: every finished concrete function graph as text, DOT and GraphDef text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/graphdef.h"
#include "formats/graphdump.h"
#include "object/atomicfile.h"
#include "object/object.h"

static char *graph_dump_dir;
static int graph_dump_seq;

void graph_set_dump_dir(const char *dir) {
  free(graph_dump_dir);
  graph_dump_dir = dir ? strdup(dir) : NULL;
  if (dir) mkdir(dir, 0777);   /* may exist already; a failure shows when writing */
}

/* Whole or not at all (runtime/object/atomicfile.c): a failed dump leaves the previous file intact. */
static void graph_write_file(const char *path, const StrBuf *s) {
  int e = af_write(path, s->data ? s->data : "", s->len);
  if (e) {
    rt_flush();
    fprintf(stderr, "warning: --dump-graphs: cannot write '%s': %s\n", path, strerror(e));
  }
}

void graph_dump(const Graph *g) {
  if (!graph_dump_dir) return;
  graph_dump_seq++;
  size_t n = strlen(graph_dump_dir) + strlen(g->name) + 32;
  char *path = malloc(n);
  if (!path) return;
  StrBuf s;
  sb_init(&s);
  graph_text(&s, g);
  snprintf(path, n, "%s/%s_%d.txt", graph_dump_dir, g->name, graph_dump_seq);
  graph_write_file(path, &s);
  sb_free(&s);
  graph_dot(&s, g);
  snprintf(path, n, "%s/%s_%d.dot", graph_dump_dir, g->name, graph_dump_seq);
  graph_write_file(path, &s);
  sb_free(&s);
  graphdef_text(&s, g);   /* TF's text format, for Netron and TF's tools */
  snprintf(path, n, "%s/%s_%d.pbtxt", graph_dump_dir, g->name, graph_dump_seq);
  graph_write_file(path, &s);
  sb_free(&s);
  free(path);
}
