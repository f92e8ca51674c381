# keras_gen_common.py — helpers shared by the Keras golden generators: bad calls caught and printed, the .tfs/.out pair written.
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def emit_errors(P, O, errs):
    # each (code, "Class: message"): the call caught by its class and printed as "Class: message"
    for code, msg in errs:
        kind = msg.split(":")[0]
        P(f"try:\n    {code}\nexcept {kind} as e:\n    print(\"{kind}:\", e)")
        O(msg)


def write(name, program, output):
    with open(os.path.join(HERE, "programs", name + ".tfs"), "w") as f:
        f.write("\n".join(program) + "\n")
    with open(os.path.join(HERE, "programs", name + ".out"), "w") as f:
        f.write("\n".join(output) + "\n")
