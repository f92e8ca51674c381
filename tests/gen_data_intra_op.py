#!/usr/bin/python3
# gen_data_intra_op.py — writes tests/programs/data_intra_op.out: the map's sums computed by numpy (the bound on intra-op threads changes no value).
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
M = (np.arange(160 * 160) % 7).reshape(160, 160).astype(np.float64)
V = (np.arange(1 << 17) % 5).astype(np.float64)
base = [(int(np.sum((M + i) @ M)), int(np.sum(np.sqrt((V + i) * (V + i))))) for i in range(4)]
lines = [str(base)]
for intra in [1, 2, 3, 64]:
    for parallel in [False, True]:
        lines.append(f"{intra} {parallel} True")
lines.append("None")
with open(os.path.join(HERE, "programs", "data_intra_op.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
