/* dsparmap.h — Dataset.map's parallel path (dsparmap.c): mapped elements buffered from graph runs on several threads. */
#ifndef TFS_DSPARMAP_H
#define TFS_DSPARMAP_H

#include "object/value.h"

typedef struct ParMap ParMap;
typedef bool (*ParPull)(void *ctx, Val *out);      /* the next input element (owned); false at the end */
typedef Val (*ParFinish)(Val r);                    /* a function result (consumed) as an element */
typedef Val (*ParSeq)(void *ctx, Val elem);         /* map one element (consumed) the ordinary way */

/* A parallel map of concrete function conc over elements of `spec` on `lanes` threads (at most 64); NULL when
 * it must run in order on the calling thread (one lane, or a graph parexec_graph_ok keeps on the main thread).
 * sloppy (deterministic=False): each fill's results go out as their runs finished, not in input order;
 * ram_budget > 0 (autotune.ram_budget): the bytes of inputs one fill may hold (0: 16 MiB). */
ParMap *parmap_new(Val conc, Val spec, int lanes, bool sloppy, tfs_i64 ram_budget);
void parmap_free(ParMap *m);
/* The next mapped element (in input order unless sloppy); an element's error is raised when it is reached. */
bool parmap_next(ParMap *m, ParPull pull, void *ctx, ParFinish finish, ParSeq seq, Val *out);

/* Whether tensor t can feed a placeholder of meta pm as it is (dtype, rank, known dimensions). */
struct TMeta;
bool parmap_leaf_fits(const struct TMeta *pm, const struct Tensor *t);

#endif
