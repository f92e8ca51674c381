/* graphdump.h — tfs run --dump-graphs DIR: traced graphs written as text, DOT and GraphDef text. */
#ifndef TFS_GRAPHDUMP_H
#define TFS_GRAPHDUMP_H

#include "graph/graph.h"

/* tfs run --dump-graphs DIR: from this call on, every finished concrete
 * function graph is also written to DIR as NAME_N.txt, NAME_N.dot and
 * NAME_N.pbtxt (GraphDef text format). */
void graph_set_dump_dir(const char *dir);
void graph_dump(const Graph *g);                      /* no-op unless a dump dir is set */

#endif
