#!/usr/bin/python3
"""gen_np_bool_scalar.py — writes tests/programs/np_bool_scalar.out by running np_bool_scalar.tfs (plain Python)
under /usr/bin/python3 with Debian's python3-numpy 1.24: numpy itself is the oracle.

    /usr/bin/python3 tests/gen_np_bool_scalar.py
"""
import plain_oracle

plain_oracle.write("np_bool_scalar")
