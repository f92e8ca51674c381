#!/usr/bin/python3
"""gen_np_random_legacy.py — writes tests/programs/np_random_legacy.out by running np_random_legacy.tfs (plain Python)
under /usr/bin/python3 with Debian's python3-numpy 1.24: numpy's own legacy RandomState is the oracle.

    /usr/bin/python3 tests/gen_np_random_legacy.py
"""
import plain_oracle

plain_oracle.write("np_random_legacy")
