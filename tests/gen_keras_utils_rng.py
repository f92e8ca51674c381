#!/usr/bin/python3
"""gen_keras_utils_rng.py — writes tests/programs/keras_utils_rng.out with numpy (run with /usr/bin/python3, Debian
python3-numpy 1.24).

    /usr/bin/python3 tests/gen_keras_utils_rng.py

Keras 2.15 (keras/src/utils/dataset_utils.py index_directory, image_dataset.py, text_dataset.py,
timeseries_dataset.py): a missing seed is np.random.randint(1e6) from the global stream, once per call; the file list
(class subdirectories sorted, files sorted in each) and its labels are shuffled by their own
np.random.RandomState(seed), as are a timeseries' start positions np.arange(0, num_seqs, sequence_stride); nothing
else touches the global stream.  text_dataset_from_directory's validation subset is the last
int(validation_split * n) files of the shuffled list.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def shuffled(items, seed):
    items = list(items)
    np.random.RandomState(seed).shuffle(items)
    return items


pngs = [f"{c}/{i}.png" for c in "ab" for i in range(5)]
txts = [f"{c}/{i}.txt" for c in "ab" for i in range(5)]
found = "Found 10 files belonging to 2 classes."
lines = []
np.random.seed(11)
lines += [found, str(shuffled(pngs, 7)), str(np.random.rand(3))]
seed = np.random.randint(1e6)
lines += [found, str(shuffled(pngs, seed)), str(np.random.rand(2))]
val = shuffled(txts, 5)[-int(0.3 * 10):]
lines += [found, "Using 7 files for training.", "Using 3 files for validation.",
          str(sorted([p.replace("/", " ").replace(".txt", "") for p in val])), str(np.random.rand(2))]
# the windows: RandomState(3) shuffles their starts, Dataset.shuffle (TF's stream, not numpy's) their order again
lines += [str(list(range(10))), str(np.random.rand(2))]
np.random.randint(1e6)
lines += [str(list(range(10))), str(np.random.rand(2))]
with open(os.path.join(HERE, "programs", "keras_utils_rng.out"), "w") as fh:
    fh.write("\n".join(lines) + "\n")
