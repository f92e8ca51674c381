#!/usr/bin/env python3
"""errtext.py — .tfs source shared by the differential testers' generated programs (opdiff.py, tffuzz.py, difftest.py)."""

# _emsg(e): an error as "Class: first line", read through AutoGraph's "in user code:" framing, so that an error
# raised while tracing compares with the same error raised eagerly.
EMSG = r'''
def _emsg(e):
    # "Class: first line" of the error; AutoGraph's "in user code:" framing (a graph trace) is read through: the
    # original error's line follows the last `File` entry, its source line and a blank line
    s = str(e)
    if s.startswith("in user code:"):
        lines = s.split("\n")
        files = [i for i, l in enumerate(lines) if l.startswith("    File ")]
        if files and files[-1] + 3 < len(lines):
            return lines[files[-1] + 3].strip()
    return type(e).__name__ + ": " + s.split("\n")[0]
'''
