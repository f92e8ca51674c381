#!/usr/bin/python3
"""gen_bigint.py — writes tests/programs/bigint.out by running bigint.tfs (plain Python) under /usr/bin/python3:
Python's own ints are the oracle.

    /usr/bin/python3 tests/gen_bigint.py
"""
import plain_oracle

plain_oracle.write("bigint")
