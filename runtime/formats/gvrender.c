/* gvrender.c — DOT text laid out and rendered by Graphviz in-process (libgvc), one context per call. */
#include "formats/gvrender.h"

#include <graphviz/gvc.h>
#include <stdlib.h>
#include <string.h>

char *gv_render(const char *dot, const char *format, size_t *len, const char **err) {
  *len = 0;
  GVC_t *gvc = gvContext();
  if (!gvc) {
    *err = "Graphviz could not start";
    return NULL;
  }
  Agraph_t *g = agmemread(dot);
  if (!g) {
    gvFreeContext(gvc);
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
  gvFreeContext(gvc);
  return out;
}
