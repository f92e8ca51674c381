#!/usr/bin/env python3
# tests/check_grammar_fresh.py — fails when grammar/grammar.js changed after grammar/src was last generated.
"""Usage: check_grammar_fresh.py [GRAMMAR_DIR]   (default: the grammar/ beside this tests/ folder)

scripts/regen-grammar.sh records the SHA-256 of grammar.js in
src/grammar.js.sha256 (sha256sum format) whenever it regenerates src/; a
mismatch means the committed parser does not match its source.
"""
import hashlib
import os
import sys

STALE = "grammar/src is stale: run scripts/regen-grammar.sh"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    gdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "grammar")
    try:
        with open(os.path.join(gdir, "grammar.js"), "rb") as f:
            actual = hashlib.sha256(f.read()).hexdigest()
    except OSError as e:
        print("check_grammar_fresh: cannot read grammar.js: %s" % e, file=sys.stderr)
        return 1
    try:
        with open(os.path.join(gdir, "src", "grammar.js.sha256")) as f:
            words = f.read().split()
        recorded = words[0].lower() if words else ""
    except OSError:
        recorded = ""
    if recorded != actual:
        print(STALE, file=sys.stderr)
        print("  grammar.js sha256: %s\n  recorded:          %s" % (actual, recorded or "(none)"),
              file=sys.stderr)
        return 1
    print("grammar/src is up to date with grammar.js")
    return 0


if __name__ == "__main__":
    sys.exit(main())
