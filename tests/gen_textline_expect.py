#!/usr/bin/python3
# gen_textline_expect.py — writes tests/programs/data_textline.out from Python (TF's TextLineDataset lines and interleave order).
"""Reference for tests/programs/data_textline.tfs:

    /usr/bin/python3 tests/gen_textline_expect.py

lines() is TF's InputBuffer::ReadLine as TextLineDataset uses it: a line ends at "\\n", a "\\r" before it (or at
the end of the file) is dropped, a last line without "\\n" counts, and nothing follows a final "\\n".  The
interleave order is gen_data_expect.interleave, through gen_parallel_interleave_expect (TF's InterleaveDatasetOp; ParallelInterleaveDatasetV4 with
deterministic order gives the same).  Error texts are tfs's forms of TF's: the missing file's "<name>; No such
file or directory" behind the reader's name, StringToNumber's and DecodeCSV's texts with the node and function.  Whether work
left the main thread is tfs's rule (docs/data.md): a parallel interleave with cycle_length > 1 reads lines on
workers; a map whose graph has no stateful or host op runs on workers when num_parallel_calls > 1.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_parallel_interleave_expect import Failed, interleave  # noqa: E402  (TF's order, errors at their element)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "data_textline.out")
SPEC = "TensorSpec(shape=(), dtype=tf.string, name=None)"


def lines(text):
    out = text.split("\n")
    if out[-1] == "":
        out.pop()
    return [l[:-1] if l.endswith("\r") else l for l in out]


def blist(items):
    return "[" + ", ".join(repr(s.encode()) for s in items) + "]"


def parse(line):
    return int(line[0]) * 100 + int(line[2:4].rstrip(",")), "<" + line + ">"


def main():
    res = []
    out = res.append
    texts = ["alpha\nbeta\r\ngamma", "", "\n\none\r\n", "7,1.5,x\n8,2.5,y\n9,3.5,z\n", "last\r"]
    out("<TextLineDatasetV2 element_spec=%s>" % SPEC)
    out("%s -2" % SPEC)
    out(blist([l for t in texts for l in lines(t)]))
    out(blist(lines("zipped 1\nzipped 2\n")))
    out(blist(lines(texts[4]) + lines(texts[0])))
    out("InvalidArgumentError: Unsupported compression_type: BZ2.")

    nums = ["".join("%d,%d\n" % (f, r) for r in range(2 + 3 * f)) for f in range(6)]
    for cl, bl in [(1, 1), (2, 1), (3, 2), (4, 3), (6, 1)]:
        for npc in ["None", "2", "-1"]:
            got, _ = interleave(range(6), lambda f: lines(nums[f]), cl, bl)
            out("%d %d %s %s %s" % (cl, bl, npc, npc != "None" and cl > 1, " ".join(got)))

    all_lines = [l for t in nums for l in lines(t)]
    mapped = [parse(l) for l in all_lines]
    for npc in ["None", "3", "-1"]:   # None: TF 2.15's default map_parallelization makes it an AUTOTUNE map
        out("%s %s %d %s %s" % (npc, True, len(mapped), mapped[:3], mapped[-1]))
    got, _ = interleave(range(6), lambda f: [parse(l)[0] for l in lines(nums[f])], 3, 1)
    out("interleave+map True %s" % got)

    missing = "tf.data.TextLineDataset: OUT/missing.txt; No such file or directory"

    def opener(i):
        if i == 1:
            return iter([Failed(missing)])
        return lines(nums[[1, None, 0][i]])

    for npc in ["None", "-1"]:
        got, err = interleave(range(3), opener, 3, 1)
        out("%s after %s NotFoundError: %s" % (npc, got, err))
    out("NotFoundError: " + missing)
    got = []
    for l in lines(texts[3]) + lines(texts[4]):
        if not l[0].isdigit():
            err = "StringToNumberOp could not correctly convert string: %s (node StringToNumber in tf.function '<lambda>')" % l[0]
            break
        got.append(float(l[0]))
    for npc in ["None", "4"]:
        out("%s after %s InvalidArgumentError: %s" % (npc, got, err))
    rows = [(i, i + 0.5, "w" if i % 3 else "?") for i in range(12)]   # "?": the default of an empty field
    for npc in ["None", "3"]:   # None: the default map_parallelization, as above
        out("%s %s %s" % (npc, True, rows))
    out("InvalidArgumentError: Expect 4 fields but have 3 in record 0 (node DecodeCSV in tf.function '<lambda>')")
    with open(OUT, "w") as f:
        f.write("\n".join(res) + "\n")


if __name__ == "__main__":
    main()
