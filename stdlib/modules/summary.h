/* summary.h — between the WriteSummary kernel (k_summary.c) and the writer objects of tf.summary (summary.c). */
#ifndef TFS_SUMMARY_H
#define TFS_SUMMARY_H

#include "formats/pbutil.h"

/* Append an Event (wall time now, step, what the caller filled) to the
 * writer's event file; a closed writer drops it, as TF's does. */
void summary_emit(Val writer, tfs_i64 step, Tensorflow__Event *ev);

/* mkdir -p; 0 or errno. */
int summary_mkdirs(const char *dir);

/* The profile layout under logdir: LOGDIR/plugins/profile/<run>/<host>.xplane.pb and
 * .trace.json.gz from the profiler's recorded events (profiler.c); errors name `what`. */
void profiler_save(const char *logdir, const char *what);
/* Start / stop a profiling session (tf.profiler.experimental.start/stop, trace_on(profiler=True)):
 * AlreadyExistsError when one runs, UnavailableError when none does. */
void profiler_begin(void);
void profiler_end(void);

#endif
