#!/usr/bin/python3
# gen_npy_text_fixtures.py — writes tests/programs/data/npytext/*: .npy/.npz files numpy 1.24 writes (text arrays, object arrays, a pickle) for np_text_files.tfs.
"""numpy's own files, for tfs's np.load to read:

    /usr/bin/python3 tests/gen_npy_text_fixtures.py [OUTDIR]    # default tests/programs/data/npytext

u5.npy       a 2-d '<U5' array with non-ASCII text (UTF-32LE code units)
u1_empty.npy an empty '<U1' array;  u0d.npy a 0-d '<U3' array
be.npy       a big-endian '>U4' array;  fortran.npy a Fortran-ordered '<U2' array
mixed.npz    text and numbers (np.savez);  comp.npz the same compressed
obj.npy      an object array (pickled by numpy);  objmember.npz an .npz with one
pickle.bin   a plain pickle of a list (np.load refuses it without allow_pickle)
"""
import os
import pickle
import sys

import numpy as np


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "data", "npytext")
    os.makedirs(out, exist_ok=True)
    text = np.array([["ab", "héllo"], ["", "x€😀"]])
    np.save(os.path.join(out, "u5.npy"), text)
    np.save(os.path.join(out, "u1_empty.npy"), np.array([], dtype="U1"))
    np.save(os.path.join(out, "u0d.npy"), np.array("abc"))
    np.save(os.path.join(out, "be.npy"), np.array(["big", "end"], dtype=">U4"))
    np.save(os.path.join(out, "fortran.npy"), np.asfortranarray(np.array([["a", "b", "c"], ["d", "e", "ff"]])))
    np.savez(os.path.join(out, "mixed.npz"), text, nums=np.arange(3), word=np.array("z"))
    np.savez_compressed(os.path.join(out, "comp.npz"), t=text[:, 1], n=np.ones(2))
    np.save(os.path.join(out, "obj.npy"), np.array([b"a", 1], dtype=object))
    np.savez(os.path.join(out, "objmember.npz"), ok=np.arange(2), bad=np.array([None, 1], dtype=object))
    with open(os.path.join(out, "pickle.bin"), "wb") as f:
        pickle.dump([1, 2], f)


if __name__ == "__main__":
    main()
