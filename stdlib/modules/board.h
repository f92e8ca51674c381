/* board.h — `tfs board`: what a log directory holds (board.c reads it) and the HTML report of it (boardhtml.c). */
#ifndef TFS_BOARD_H
#define TFS_BOARD_H

#include "object/object.h"
#include "tensorflow.pb-c.h"
#include "xplane.pb-c.h"

typedef struct BdScalar { char *run, *tag; tfs_i64 step; double wall, v; } BdScalar;
typedef struct BdHist { char *run, *tag; tfs_i64 step; int nb; double *v; } BdHist;   /* nb rows of (left, right, count) */
typedef struct BdText { char *run, *tag; tfs_i64 step; char *text; } BdText;
typedef struct BdGraph { char *run; tfs_i64 step; Tensorflow__GraphDef *gd; } BdGraph;
typedef struct BdProfile { char *run; Tensorflow__Profiler__XSpace *space; } BdProfile;

typedef struct Board {
  const char *logdir;
  BdScalar *scalars;
  int nscalars, capscalars;
  BdHist *hists;
  int nhists, caphists;
  BdText *texts;
  int ntexts, captexts;
  BdGraph *graphs;
  int ngraphs, capgraphs;
  BdProfile *profiles;
  int nprofiles, capprofiles;
} Board;

/* Read every event file and profile below logdir (in name order). */
void board_read(Board *b, const char *logdir);
void board_free(Board *b);
/* The self-contained report: scalar charts, histograms, text, graphs (Graphviz SVG), profiles. */
void board_html(StrBuf *out, const Board *b);
/* A GraphDef as DOT text: ops coloured by type, cond/while bodies (library functions) as clusters. */
void board_graph_dot(StrBuf *out, const Tensorflow__GraphDef *gd);
/* TensorBoard's scalar smoothing (weight w, 0.6 by default): the debiased exponential moving average. */
void board_smooth(const double *y, int n, double w, double *out);
/* `tfs board LOGDIR -o OUT`: exit status. */
int board_main(const char *logdir, const char *out);

#endif
