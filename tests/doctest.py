#!/usr/bin/env python3
"""doctest.py — runs the ```tfs code blocks of README.md and docs/**/*.md and compares what they print.

The convention (docs/testing.md): a ```tfs block is a whole program. When an ```output block follows it
(blank lines between are allowed), the program runs as `tfs run prog.tfs` in an empty directory and its
stdout followed by its stderr must equal the output block exactly; errors therefore show as
`prog.tfs:LINE:COL: error: ...`. A ```tfs block without an output block must still compile
(`tfsc --check`). Fragments that are not whole programs use ```python or ```text fences.

usage: doctest.py TFS TFSC ROOT [--min N] [--update]
  --min N    fail unless at least N blocks with output ran (the suite may not shrink unnoticed)
  --update   rewrite each output block with what the program printed (for authors; review the diff)
"""
import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w*)\s*$")


def blocks(path):
    """(lang, first line index, last line index exclusive, text) of each fenced block."""
    lines = open(path).read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != "```":
                j += 1
            out.append((m.group(1), i, j, "\n".join(lines[i + 1:j]) + "\n"))
            i = j + 1
        else:
            i += 1
    return lines, out


def pairs(path):
    """(tfs block, output block or None) for each ```tfs block of the file."""
    lines, bl = blocks(path)
    res = []
    for k, b in enumerate(bl):
        if b[0] != "tfs":
            continue
        nxt = bl[k + 1] if k + 1 < len(bl) else None
        if nxt and nxt[0] == "output" and all(not l.strip() for l in lines[b[2] + 1:nxt[1]]):
            res.append((b, nxt))
        else:
            res.append((b, None))
    return res


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")


def check_messages(root):
    """Each message of the common-messages table in docs/errors.md ("| `text` | cause | fix |", `…` for what varies) must
    still be in the sources: every literal piece between the `…`s is found in compiler/, runtime/ or stdlib/."""
    src = ""
    for d in ("compiler", "runtime", "stdlib"):
        for path in glob.glob(os.path.join(root, d, "**", "*.[ch]"), recursive=True):
            src += open(path, errors="replace").read()
    src = src.replace('\\"', '"')
    failures = 0
    text = open(os.path.join(root, "docs", "errors.md")).read()
    # the full index at the end has its own exact check (scripts/errindex.py, test errors-index)
    text = text.split("\n## Index of messages")[0]
    rows = re.findall(r"^\| `([^`]+)` \|", text, re.M)
    for msg in rows:
        for piece in msg.split("…"):
            if len(piece.strip()) >= 3 and piece not in src:
                failures += 1
                print("FAIL docs/errors.md: the message '%s' is not in the sources (piece '%s')" % (msg, piece))
    if len(rows) < 40:
        failures += 1
        print("FAIL docs/errors.md: only %d messages in the index" % len(rows))
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tfs")
    ap.add_argument("tfsc")
    ap.add_argument("root")
    ap.add_argument("--min", type=int, default=0)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--every", type=int, default=1, metavar="N",
                    help="every N-th block only (the sanitizer builds)")
    ap.add_argument("files", nargs="*", help="only these markdown files")
    a = ap.parse_intermixed_args()
    tfs, tfsc = os.path.abspath(a.tfs), os.path.abspath(a.tfsc)
    files = a.files or ([os.path.join(a.root, "README.md")] +
                        sorted(glob.glob(os.path.join(a.root, "docs", "**", "*.md"), recursive=True)))
    failures = ran = checked = with_output = blocks_seen = 0

    def one(prog, want):
        """Run one block in its own directory: (ran?, failure text or None, new output for --update)."""
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "prog.tfs"), "w") as f:
                f.write(prog[3])
            if want is None:
                rc, got = run([tfsc, "--check", "prog.tfs"], tmp)
                return False, (None if rc == 0 else "the block does not compile:\n%s" % got), None
            rc, got = run([tfs, "run", "prog.tfs"], tmp)
        if got and not got.endswith("\n"):
            got += "\n"   # a fenced block cannot show a missing final newline
        if got != (want[3] if want[3] != "\n" else ""):
            return True, "the program printed\n%s--- but the doc shows\n%s---" % (got, want[3]), got
        return True, None, None

    # blocks are independent programs: run them on every core
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for path in files:
            rel = os.path.relpath(path, a.root)
            edits = []
            every_pair = pairs(path)
            with_output += sum(want is not None for _, want in every_pair)
            ps = [pw for i, pw in enumerate(every_pair, blocks_seen + 1) if i % a.every == 0]   # --every: the N-th blocks
            blocks_seen += len(every_pair)
            for (prog, want), (was_run, fail, got) in zip(ps, pool.map(lambda pw: one(*pw), ps)):
                where = "%s:%d" % (rel, prog[1] + 1)
                ran += was_run
                checked += not was_run
                if fail is None:
                    continue
                if a.update and got is not None:
                    edits.append((want[1], want[2], got))
                    continue
                failures += 1
                print("FAIL %s: %s" % (where, fail))
            if edits:
                lines = open(path).read().split("\n")
                for s, e, got in reversed(edits):
                    lines[s + 1:e] = got[:-1].split("\n") if got else []
                with open(path, "w") as f:
                    f.write("\n".join(lines))
                print("updated %d output block(s) in %s" % (len(edits), rel))
    failures += check_messages(a.root)
    print("doctest: %d blocks run and compared, %d compiled only, %d failure(s)" % (ran, checked, failures))
    if with_output < a.min:
        print("doctest: only %d blocks with output (at least %d expected)" % (with_output, a.min))
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
