#!/usr/bin/python3
"""gen_bigint_funcs.py — writes tests/programs/bigint_funcs.out by running bigint_funcs.tfs (plain Python) under /usr/bin/python3:
Python's own ints are the oracle.

    /usr/bin/python3 tests/gen_bigint_funcs.py
"""
import plain_oracle

plain_oracle.write("bigint_funcs")
