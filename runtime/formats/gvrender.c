/* gvrender.c — DOT text laid out and rendered by Graphviz in-process (libgvc), with one context for the process. */
#include "formats/gvrender.h"

#include <graphviz/gvc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One context, made at the first render and kept: Graphviz 2.42's pango plugin keeps a font cache in a
 * static that gvFreeContext frees but does not clear, so a second context would read freed memory. */
static GVC_t *gv_ctx;
static pthread_mutex_t gv_mu = PTHREAD_MUTEX_INITIALIZER;   /* Graphviz is not thread-safe */

static char *gv_render_locked(const char *dot, const char *format, size_t *len, const char **err) {
  if (!gv_ctx) gv_ctx = gvContext();
  GVC_t *gvc = gv_ctx;
  if (!gvc) {
    *err = "Graphviz could not start";
    return NULL;
  }
  Agraph_t *g = agmemread(dot);
  if (!g) {
    *err = "the DOT text does not parse";
    return NULL;
  }
  char *out = NULL;
  if (gvLayout(gvc, g, "dot") != 0) {
    *err = "Graphviz's dot layout failed";
  } else {
    char *data = NULL;
    unsigned int n = 0;
    if (gvRenderData(gvc, g, format, &data, &n) != 0 || !data) {
      *err = "Graphviz could not render the graph";
    } else if ((out = malloc(n + 1)) != NULL) {   /* ours: callers free() it, Graphviz's buffer is its own */
      memcpy(out, data, n);
      out[n] = 0;
      *len = n;
    } else {
      *err = "out of memory";
    }
    if (data) gvFreeRenderData(data);
    gvFreeLayout(gvc, g);
  }
  agclose(g);
  return out;
}

char *gv_render(const char *dot, const char *format, size_t *len, const char **err) {
  *len = 0;
  pthread_mutex_lock(&gv_mu);
  char *out = gv_render_locked(dot, format, len, err);
  pthread_mutex_unlock(&gv_mu);
  return out;
}
