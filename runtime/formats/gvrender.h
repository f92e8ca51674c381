/* gvrender.h — DOT text laid out and rendered by Graphviz in-process (libgvc): SVG for reports, PNG/SVG for plot_model. */
#ifndef TFS_GVRENDER_H
#define TFS_GVRENDER_H

#include <stddef.h>

/* dot rendered with the `dot` layout as `format` ("svg", "png"); malloc'd bytes (*len of them), or NULL
 * with *err set to a static reason (the DOT text did not parse, or the layout or renderer failed). */
char *gv_render(const char *dot, const char *format, size_t *len, const char **err);

#endif
