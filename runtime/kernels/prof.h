/* prof.h — the profiler's recorder: while on, one event per op executed (eagerly or by the graph executor) and per user trace range. */
#ifndef TFS_PROF_H
#define TFS_PROF_H

#include <stdbool.h>

#include "tensor/tensor.h"

/* The only thing the op paths read when the profiler is off: one predictable
 * branch per op (op_apply, the executor's step loop). */
#ifdef TFS_PROF_COMPILED_OUT   /* bench/run_prof.sh's baseline build: no branch at all, to measure the one left */
#define prof_on false
#else
extern bool prof_on;
#endif

typedef enum ProfKind { PROF_EAGER, PROF_GRAPH, PROF_TRACE } ProfKind;

/* The inputs' dtypes and shapes, noted inline (no allocation per op): up to PROF_MAXIN inputs of up to
 * PROF_MAXDIM dimensions each; more are shown as "...". */
enum { PROF_MAXIN = 4, PROF_MAXDIM = 4 };
typedef struct ProfInputs {
  unsigned char n;                        /* inputs (may exceed PROF_MAXIN) */
  signed char dtype[PROF_MAXIN];          /* -1: absent */
  unsigned char rank[PROF_MAXIN];
  int64_t dim[PROF_MAXIN][PROF_MAXDIM];
} ProfInputs;

typedef struct ProfEvent {
  ProfKind kind;
  const char *type;           /* the op's TF name (MatMul, If, While); a trace range: "Trace" */
  const char *name;           /* graph: the node's name; trace: the range's name; eager: NULL (interned) */
  const char *fn;             /* graph: the graph's name ('f', 'cond_true'); else NULL (interned) */
  int loc;                    /* rt_cur_loc (eager) or the node's loc: the .tfs line (0: none) */
  int tid;                    /* the kernel thread id that ran it */
  tfs_i64 start_ns, dur_ns;   /* wall-clock start (ns since the epoch) and duration */
  ProfInputs in;
  tfs_i64 step;               /* trace ranges: step_num (-1: none) */
} ProfEvent;

/* Monotonic nanoseconds, what events are timed with. */
tfs_i64 prof_clock(void);
/* Start a session (clears earlier events) / stop recording (events stay until the next start or clear). */
void prof_start(void);
void prof_stop(void);
bool prof_session_active(void);
/* Note n inputs (NULL entries: absent). */
void prof_inputs(ProfInputs *pi, int n, Tensor *const *in);
/* Append the inputs as "float32[3,3];int32[]" (nothing when there are none). */
void prof_inputs_text(StrBuf *b, const ProfInputs *pi);
/* Record an event that began at prof_clock() value t0 and ends now (in: NULL for none). */
void prof_add(ProfKind kind, const char *type, const char *name, const char *fn, int loc, tfs_i64 t0, const ProfInputs *in,
              tfs_i64 step);
/* The recorded events (in completion order), the session's wall-clock span, and clearing them. */
const ProfEvent *prof_events(int *n);
void prof_span(tfs_i64 *start_ns, tfs_i64 *end_ns);
void prof_clear(void);

#endif
