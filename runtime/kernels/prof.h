/* prof.h — the profiler's recorder: while on, one event per op executed (eagerly or by the graph executor) and per user trace range. */
#ifndef TFS_PROF_H
#define TFS_PROF_H

#include <stdbool.h>

#include "tensor/tensor.h"

/* The only thing the op paths read when the profiler is off: one predictable
 * branch per op (op_apply, the executor's step loop). */
extern bool prof_on;

typedef enum ProfKind { PROF_EAGER, PROF_GRAPH, PROF_TRACE } ProfKind;

typedef struct ProfEvent {
  ProfKind kind;
  const char *type;           /* the op's TF name (MatMul, If, While); a trace range: "Trace" */
  char *name;                 /* graph: the node's name; trace: the range's name; eager: NULL */
  char *fn;                   /* graph: the graph's name ('f', 'f/cond_true'); else NULL */
  int loc;                    /* rt_cur_loc (eager) or the node's loc: the .tfs line (0: none) */
  int tid;                    /* the kernel thread id that ran it */
  tfs_i64 start_ns, dur_ns;   /* wall-clock start (ns since the epoch) and duration */
  char *shapes;               /* the inputs as "float32[3,3];int32[]" (NULL: none) */
  tfs_i64 step;               /* trace ranges: step_num (-1: none) */
} ProfEvent;

/* Monotonic nanoseconds, what events are timed with. */
tfs_i64 prof_clock(void);
/* Start a session (clears earlier events) / stop recording (events stay until the next start or clear). */
void prof_start(void);
void prof_stop(void);
bool prof_session_active(void);
/* "dtype[d0,d1];..." for n inputs (NULL entries: absent), malloc'd; NULL when n == 0. */
char *prof_shapes(int n, Tensor *const *in);
/* Record an event that began at prof_clock() value t0 and ends now; takes `shapes`. */
void prof_add(ProfKind kind, const char *type, const char *name, const char *fn, int loc, tfs_i64 t0, char *shapes,
              tfs_i64 step);
/* The recorded events (in completion order), the session's wall-clock span, and clearing them. */
const ProfEvent *prof_events(int *n);
void prof_span(tfs_i64 *start_ns, tfs_i64 *end_ns);
void prof_clear(void);

#endif
