#!/usr/bin/python3
"""gen_np_doc.py — writes tests/programs/np_doc_*.out: each np_doc_*.tfs holds the Examples sections of numpy 1.24's
docstrings as plain Python, run under /usr/bin/python3 with Debian's python3-numpy 1.24 (numpy itself is the oracle).

    /usr/bin/python3 tests/gen_np_doc.py            # every tests/programs/np_doc_*.tfs
    /usr/bin/python3 tests/gen_np_doc.py np_doc_core
"""
import glob
import os
import sys

import plain_oracle

names = sys.argv[1:] or sorted(os.path.basename(p)[:-4]
                               for p in glob.glob(os.path.join(plain_oracle.HERE, "programs", "np_doc_*.tfs")))
for name in names:
    plain_oracle.write(name)
