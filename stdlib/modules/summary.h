/* summary.h — between the WriteSummary kernel (k_summary.c) and the writer objects of tf.summary (summary.c). */
#ifndef TFS_SUMMARY_H
#define TFS_SUMMARY_H

#include "formats/pbutil.h"

/* Append an Event (wall time now, step, what the caller filled) to the
 * writer's event file; a closed writer drops it, as TF's does. */
void summary_emit(Val writer, tfs_i64 step, Tensorflow__Event *ev);

#endif
