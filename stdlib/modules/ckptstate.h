/* ckptstate.h — the `checkpoint` state file beside TF checkpoints, and the paths around it. */
#ifndef TFS_CKPTSTATE_H
#define TFS_CKPTSTATE_H

#include "object/object.h"

char *cstate_dir_of(const char *prefix);                 /* malloc'd: the directory part ("." when none) */
void cstate_mkdirs(const char *what, const char *dir);   /* mkdir -p; OSError naming `what` */
bool cstate_exists(const char *path);
/* Write DIR/checkpoint as TF's update_checkpoint_state does: model_checkpoint_path, all_model_checkpoint_paths
 * (relative to DIR when inside it), then the timestamps when given (stamps NULL / preserved <= 0: none). */
void cstate_write(const char *what, const char *dir, const char *latest, int n, char *const *all, const double *stamps,
                  double preserved);
/* The quoted values of FIELD lines in DIR/checkpoint (a list of str), or VT_UNDEF without a state file. */
Val cstate_read(const char *dir, const char *field);
Val cstate_join(const char *dir, const char *p);         /* DIR/p unless p is absolute (str) */
/* tf.train.latest_checkpoint's answer: DIR/<model_checkpoint_path> when its .index exists, else None. */
Val cstate_latest(const char *dir);
double cstate_now(void);                                 /* time.time() */
void cstate_remove(const char *prefix);                  /* delete PREFIX.index and PREFIX.data-00000-of-00001 */

#endif
