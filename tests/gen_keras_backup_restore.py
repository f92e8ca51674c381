#!/usr/bin/python3
# gen_keras_backup_restore.py — writes tests/programs/keras_backup_restore.out: Keras 2.15's BackupAndRestore resumption, worked out.
"""Expected output of keras_backup_restore.tfs.

    /usr/bin/python3 tests/gen_keras_backup_restore.py

Keras 2.15 (keras/callbacks.py BackupAndRestore, keras/distribute/
worker_training_state.py): the backup is a TF checkpoint in
backup_dir/chief kept by a CheckpointManager with max_to_keep=1 (files
ckpt-N.index / ckpt-N.data-00000-of-00001 / checkpoint, N counting saves);
with save_freq="epoch" it is written at each epoch's end and a new fit
starts at the epoch after the saved one; with an integer save_freq it is
written every save_freq batches and a new fit starts at the batch after the
saved one (the next epoch when it was the epoch's last); a fit that ends
deletes backup_dir/chief when delete_checkpoint.  The program's data gives
ceil(8 / 4) = 2 steps per epoch; the interrupting callback raises after
global step 5.  Weights compare equal (restored = saved; resumed run =
uninterrupted run, the model's initial weights being constants).
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = math.ceil(8 / 4)
STOP = 5
lines = []
# run 1: save_freq="epoch", epochs=5, the interrupt listed before BackupAndRestore
stop_epoch = (STOP - 1) // STEPS                 # 0-based epoch in which step STOP runs
lines += ["epoch %d" % (e + 1) for e in range(stop_epoch + 1)]
lines.append("RuntimeError: interrupted after step %d" % STOP)
saves = stop_epoch                                # epochs completed, one backup each
lines.append("True ['checkpoint', 'ckpt-%d.data-00000-of-00001', 'ckpt-%d.index']" % (saves, saves))
lines.append("restored iterations %d" % (saves * STEPS))
for e in range(saves, 5):
    lines.append("epoch %d" % (e + 1))
    lines += [" step %d" % b for b in range(STEPS)]
lines.append(str(list(range(saves, 5))))
lines.append(str([True] * 4))
lines.append(str([True] * 4))
lines.append("True False %d" % (5 * STEPS))
# run 2: save_freq=1 with BackupAndRestore listed first, so step STOP is backed up before the interrupt
lines += ["epoch %d" % (e + 1) for e in range(stop_epoch + 1)]
lines.append("RuntimeError: interrupted after step %d" % STOP)
lines.append("restored iterations %d" % STOP)
batch = (STOP - 1) % STEPS                        # the saved batch within its epoch
first_epoch, first_step = (stop_epoch + 1, 0) if batch == STEPS - 1 else (stop_epoch, batch + 1)
done = STOP
for e in range(first_epoch, 4):
    lines.append("epoch %d" % (e + 1))
    start = first_step if e == first_epoch else 0
    lines += [" step %d" % b for b in range(start, STEPS)]
    done += STEPS - start
lines.append("%s %d True" % (list(range(first_epoch, 4)), done))
lines.append("ValueError: Unrecognized save_freq: batch. Expected save_freq are 'epoch' or integer values")
lines.append("ValueError: Either `save_freq` or `save_before_preemption` must be set.")
with open(os.path.join(HERE, "programs", "keras_backup_restore.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
