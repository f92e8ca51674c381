/* ckptgraph.h — TF's object graph of a checkpoint: which objects own which Variables, under TF's names, saved and matched back. */
#ifndef TFS_CKPTGRAPH_H
#define TFS_CKPTGRAPH_H

#include "formats/pbutil.h"
#include "formats/tensorbundle.h"
#include "object/object.h"

/* The live graph from a root, breadth first as TF walks it: node 0 is the root; each object once
 * (by identity) under the first path that reaches it. */
typedef struct CgNode {
  Val obj;                    /* owned */
  int parent;
  const char *name;           /* local name under the parent (arena) */
  const char *path;           /* escaped path from the root, "" for the root (arena) */
  int *kids;                  /* node ids (arena) */
  const char **kidnames;
  int nkids;
} CgNode;

typedef struct CgGraph {
  PbArena a;
  CgNode *n;
  int nn, cap;
  Val keep;                   /* lists made for the walk (an optimizer's _variables) */
} CgGraph;

/* Walk from root; the counter hook lets a tf.train.Checkpoint name its save_counter. */
void cg_build(CgGraph *g, Val root);
void cg_free(void *g);
/* A Variable the walk made to stand for a plain number (a Keras optimizer's learning rate), not the program's. */
bool cg_is_stand_in(const CgGraph *g, Val v);
/* Building a graph by hand (a SavedModel's object graph): a node keyed by path (VT_OBJ obj, borrowed), an edge.
 * Start from a zeroed CgGraph. */
int cg_node(CgGraph *g, Val obj, const char *path);
void cg_link(CgGraph *g, int parent, int kid, const char *name);
/* Write the graph's Variables (keyed PATH/.ATTRIBUTES/VARIABLE_VALUE) and its object graph to PREFIX. */
void cg_write(const char *what, CgGraph *g, const char *prefix);
/* The checkpoint key of a Variable node: PATH/.ATTRIBUTES/VARIABLE_VALUE. */
const char *cg_key(CgGraph *g, int node);
/* Save every Variable of the graph plus the object graph to PREFIX (errors name `what`). */
void cg_save(const char *what, Val root, const char *prefix);

/* What a restore matched: for assert_consumed and friends. */
typedef struct CgRestore {
  Tensorflow__TrackableObjectGraph *saved;   /* owned */
  Val *live;                  /* per saved node: the live object matched (owned) or VT_UNDEF */
  int nsaved;
  Val root;                   /* owned */
} CgRestore;

/* tb_open, a missing checkpoint reported as TF's restore reports it (the path, and the missing-suffix hint). */
TbReader *cg_open(const char *what, const char *prefix);
/* Restore PREFIX into root by object-graph matching; returns what matched (malloc'd). */
CgRestore *cg_restore(const char *what, Val root, const char *prefix);
void cg_restore_free(CgRestore *r);
/* A live object's child of that name in the checkpoint's sense (owned) or VT_UNDEF; `keep` holds lists made for it. */
Val cg_child(Val obj, const char *name, Val keep);
/* TF's ValueError for a dict (an attribute's _DictWrapper) whose non-string key holds a trackable: it cannot be saved. */
_Noreturn void cg_dict_key_error(Val dict);

/* A child found by the walk: its local name and the object (borrowed). */
typedef void (*CgEmit)(void *ctx, const char *name, Val child);

/* Every child of obj as TF lists them (keep holds lists made for the walk). */
void cg_each_child(Val obj, CgEmit emit, void *ctx, Val keep);

/* tf.train.Checkpoint objects (checkpoint.c): the children of root= if given, their objects (keywords sorted, then
 * attributes assigned later), then save_counter once it exists; ckpt_counter makes the counter on first use (a restore names it). */
bool ckpt_is(Val v);
void ckpt_each(Val v, CgEmit emit, void *ctx, Val keep);
Val ckpt_counter(Val v);   /* borrowed */
Val *ckpt_pending(Val v);  /* its dict of values a restore kept for Variables attached later (VT_UNDEF: none) */
/* obj.name = v: a Variable v attached under a name a restore kept a value for takes it, once (ckptgraph.c). */
void cg_attach(Val obj, const char *name, Val v);
/* What CheckpointManager (ckptmanager.c) uses of a Checkpoint: add 1 to the counter (its new value as an int),
 * write to exactly PREFIX (the path as a str), restore from PATH (a status; None restores nothing); the constructor. */
Val ckpt_bump(Val self);
Val ckpt_write_to(Val self, const char *prefix, const char *what);
Val ckpt_restore_from(Val self, Val path, const char *what);
Val ckpt_new(Val self, int n, const Val *args, const Kw *kw);

#endif
