#!/usr/bin/env python3
"""npytext.py — files tfs's np.save / np.savez / np.savez_compressed write load in numpy (issue 29): text
('<U n') and numeric arrays, equal to the arrays numpy builds from the same values, and the .npy bytes equal
to numpy's own np.save output (skipped where /usr/bin/python3 has no numpy).

usage: npytext.py TFS
"""
import os
import subprocess
import sys
import tempfile

PROGRAM = r'''
import numpy as np
import sys
d = sys.argv[1]
np.save(d + "/a.npy", np.array([["ab", "h\u00e9llo"], ["", "x\u20ac\U0001F600"]]))
np.save(d + "/w.npy", np.array(["a", "bb"], dtype="U7"))
np.save(d + "/z.npy", np.array("solo"))
np.save(d + "/e.npy", np.zeros((0, 2), dtype=str))
np.savez(d + "/s.npz", np.array(["p", "qq"]), n=np.arange(3), f=np.array([1.5, 2.5], dtype=np.float32))
np.savez_compressed(d + "/c.npz", t=np.array(["long"] * 40).reshape(4, 10), b=np.array([True, False]))
'''

CHECK = r'''
import numpy as np, io, sys
d = sys.argv[1]
want = {
    "a.npy": np.array([["ab", "h\u00e9llo"], ["", "x\u20ac\U0001F600"]]),
    "w.npy": np.array(["a", "bb"], dtype="U7"),
    "z.npy": np.array("solo"),
    "e.npy": np.zeros((0, 2), dtype=str),
}
bad = 0
for name, w in want.items():
    got = np.load(d + "/" + name)
    buf = io.BytesIO()
    np.save(buf, w)
    if got.dtype != w.dtype or got.shape != w.shape or not np.array_equal(got, w):
        print("differs:", name, repr(got), repr(w)); bad += 1
    if open(d + "/" + name, "rb").read() != buf.getvalue():
        print("bytes differ from numpy's:", name); bad += 1
s = np.load(d + "/s.npz")
c = np.load(d + "/c.npz")
for got, w in [(s["arr_0"], np.array(["p", "qq"])), (s["n"], np.arange(3)), (s["f"], np.array([1.5, 2.5], np.float32)),
               (c["t"], np.array(["long"] * 40).reshape(4, 10)), (c["b"], np.array([True, False]))]:
    if got.dtype != w.dtype or not np.array_equal(got, w):
        print("differs:", repr(got), repr(w)); bad += 1
if s.files != ["n", "f", "arr_0"]:
    print("member order:", s.files); bad += 1
print("checked 9 arrays,", bad, "problems")
sys.exit(1 if bad else 0)
'''


def main():
    tfs = sys.argv[1]
    if subprocess.run(["/usr/bin/python3", "-c", "import numpy"], capture_output=True).returncode:
        print("skipped: /usr/bin/python3 has no numpy")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "write.tfs")
        with open(prog, "w") as f:
            f.write(PROGRAM)
        p = subprocess.run([tfs, "run", prog, tmp], capture_output=True, text=True, timeout=120)
        if p.returncode:
            sys.exit("tfs failed:\n" + p.stderr)
        p = subprocess.run(["/usr/bin/python3", "-c", CHECK, tmp], capture_output=True, text=True, timeout=120)
        sys.stdout.write(p.stdout + p.stderr)
        sys.exit(p.returncode)


if __name__ == "__main__":
    main()
