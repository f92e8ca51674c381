#!/usr/bin/python3
"""out_re.py — a .out.re from a run of a Keras example: each stdout line escaped, with the values that vary by CPU
path (progress-bar timings, losses and metrics, a line of a label and one decimal value such as "Test loss: 0.1234"
or a custom loop's "Validation acc: 0.48", the ids of a concrete function's captures) as patterns.

    build/compiler/tfs run examples/keras/NAME.tfs ARGS > /tmp/NAME.txt && python3 scripts/out_re.py /tmp/NAME.txt examples/keras/NAME.out.re

Read the result before committing it: every other line is an exact expectation (summaries, shapes, facts).
"""
import re, sys
NUM = r"-?\d+\.\d+(e[-+]\d+)?"
out = []
for line in open(sys.argv[1]).read().splitlines():
    e = re.escape(line)
    if "/step" in line or "ms/epoch" in line:
        e = re.sub(r"\\-\\ \d+s\\ \d+(?:ms|us|s)/step", r"\\-\\ \\d+s \\d+(s|ms|us)/step", e)
        e = re.sub(r"\d+s\\ \\-\\ ", r"\\d+s\\ \\-\\ ", e, count=1) if "/epoch" in line else e
        e = re.sub(r"\d+(?:ms|us|s)/epoch\\ \\-\\ \d+(?:ms|us|s)/step", r"\\d+(s|ms|us)/epoch\\ \\-\\ \\d+(s|ms|us)/step", e)
        # every logged value (loss, accuracy, mae, d_loss, ...): "NAME: 0.1234"
        e = re.sub(r"(\w+):\\ (?:\\-)?\d+\\\.\d+(?:e[-+]\d+)?", lambda m: m.group(1) + ": *" + NUM, e)
    elif re.match(r"step \d+: mean loss = ", line):
        e = re.escape(line.split("=")[0] + "=") + r"\ " + NUM
    elif re.match(r"[A-Za-z][^:]*: -?\d+\.\d+(e[-+]\d+)?s?$", line):
        # a label and one decimal value ("Test loss: 0.1234", "Time taken: 0.06s", "discriminator loss at step 0: 0.69")
        e = re.escape(line.rsplit(":", 1)[0] + ":") + r"\ " + NUM + ("s" if line.endswith("s") else "")
    elif re.match(r"  \d+: TensorSpec\(", line):
        # a concrete function's captures, keyed by the tensor's id (an address)
        e = r"\ \ \d+:" + re.escape(line.split(":", 1)[1])
    elif re.match(r"Epoch \d+: \w+ (improved from|did not improve from) ", line):
        # ModelCheckpoint's verbose lines: the monitored values vary
        e = re.sub(r"(?:inf|-?\d+\\\.\d+)", lambda m: "(inf|" + NUM + ")", e)
    elif re.match(r"test loss, test acc: \[", line):
        e = re.escape(line.split("[")[0] + "[") + NUM + r",\ " + NUM + r"\]"
    out.append("^" + e + "$")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
