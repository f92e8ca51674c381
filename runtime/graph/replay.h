/* replay.h — running a graph op by op through op_apply (tapes record it, a trace takes it in). */
#ifndef TFS_GRAPH_REPLAY_H
#define TFS_GRAPH_REPLAY_H

#include "graph/graph.h"

/* g applied to args (one value per placeholder: tensors, symbolic tensors): an owned tuple of its outputs.
 * Raises for graphs holding a graph cond or while loop. */
Val graph_replay(const Graph *g, const Val *args);
/* Whether graph_replay runs g (no graph cond or while loop in it). */
bool graph_replayable(const Graph *g);

#endif
