# filecheck.py — what the file-format checkers (keras_h5.py, ckpt_format.py) share: failures collected, tfs runs of their programs.
import os
import subprocess


class Checks:
    """Failures collected across a checker's steps; run() runs one of its .tfs programs under tfs."""

    def __init__(self, progdir, timeout):
        self.progdir, self.timeout, self.failures = progdir, timeout, []

    def check(self, cond, what):
        if not cond:
            self.failures.append(what)
            print("FAIL", what)

    def run(self, tfs, prog, *args):
        return subprocess.run([tfs, "run", os.path.join(self.progdir, prog)] + list(args), capture_output=True,
                              text=True, timeout=self.timeout)
