#!/usr/bin/python3
"""gen_np_warnings.py — writes tests/programs/NAME.out and NAME.err for each NAME given by running NAME.tfs (plain
Python) under /usr/bin/python3 with Debian's python3-numpy 1.24 in tests/programs: numpy's output and the warnings it
shows (Python's default filters) are the oracle.

    /usr/bin/python3 tests/gen_np_warnings.py np_random_warn
"""
import sys

import plain_oracle

for name in sys.argv[1:]:
    plain_oracle.write(name, warnings=True)
