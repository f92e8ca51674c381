#!/usr/bin/python3
"""gen_np_same_file.py — writes tests/programs/NAME.out for each NAME given by running NAME.tfs (plain Python) under
/usr/bin/python3 with Debian's python3-numpy 1.24: numpy itself is the oracle.

    /usr/bin/python3 tests/gen_np_same_file.py np_object
"""
import sys

import plain_oracle

for name in sys.argv[1:]:
    plain_oracle.write(name)
