#!/usr/bin/env python3
"""gendoc.py — the API docs from their one source: op table doc strings and `//!` blocks beside native functions.

Reads runtime/kernels/ops.def (the last OP() argument) and every `//!` comment block in runtime/ and stdlib/,
finds every implemented name (op api names, native functions registered under `tf`, builtins, methods of
tfs objects), fails naming file:line when one has no doc, and writes:
  --c FILE      the doc table compiled into the runtime (help(), `tfs doc`);
  --md FILE     the API reference (checked in as docs/reference/tf.md);
  --check FILE  exit 1 when FILE differs from the reference it would write (a stale checked-in copy).

A `//!` block: the first line is `//! NAME(SIGNATURE)` (or `//! NAME` for a value), several names sharing
one doc separated by ` | `; the following indented `//!   ` lines are the summary.
"""
import argparse
import glob
import os
import re
import sys

DTYPES = {
    "DTM_NUM": "float32, float64, int32, int64",
    "DTM_FLOAT": "float32, float64",
    "DTM_INT": "int32, int64",
    "DTM_NUMBOOL": "float32, float64, int32, int64, bool",
    "DTM_ALL": "any dtype",
    "DTM(DT_BOOL)": "bool",
    "DTM_HALF": "float16, bfloat16",
    "DTM_FLOATS": "float32, float64, float16, bfloat16",
    "DTM_SIGNED": "float32, float64, int32, int64, float16, bfloat16, int8, int16",
    "DTM_REALX": "float32, float64, int32, int64, float16, bfloat16, uint8, int8, int16, uint16, uint32",
    "DTM_REAL": "float32, float64, int32, int64, float16, bfloat16, uint8, int8, int16, uint16, uint32, uint64",
    "DTM_CPLX": "complex64, complex128",
    "DTM_ALLC": "any dtype",
    "DTM_ANY": "any dtype",
}


def dtype_text(dtm):
    """The dtypes of an ops.def mask expression such as `DTM_NUM | DTM(DT_STRING)`, in order, once each."""
    names = []
    for term in dtm.replace(" ", "").split("|"):
        m = re.fullmatch(r"DTM\(DT_(\w+)\)", term)
        text = m.group(1).lower() if m else DTYPES.get(term, term)
        for n in text.split(", "):
            if n not in names:
                names.append(n)
    return ", ".join(names)


KIND = {"T": "tensor", "F": "tensor", "B": "bool tensor", "I": "int32/int64 tensor", "A": "tensor of any dtype",
        "L": "list of tensors", "H": "value or tensor", "R": "tf.Variable"}


class Entry:
    def __init__(self, name, sig, doc, where, group, aliases=(), args=""):
        self.name, self.sig, self.doc, self.where, self.group = name, sig, doc, where, group
        self.aliases = [a for a in aliases if a != name]
        self.args = args
        self.funcs = []      # C functions whose errors the entry lists (an op's meta and kernel, a native's body)
        self.shape = ""
        self.errors = []


def c_args(text):
    """Splits an OP(...) argument list: string literals are kept whole, commas inside them ignored."""
    out, cur, depth, i = [], "", 0, 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur += text[i:j + 1]
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    out.append(cur.strip())
    return out


def unquote(s):
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', s)).replace('\\"', '"')


def read_ops(root, errors):
    path = os.path.join(root, "runtime", "kernels", "ops.def")
    text = open(path).read()
    entries, group = [], "Ops"
    pos = 0
    for m in re.finditer(r"/\* ---- (.*?) ---- \*/|^OP(?:_UP)?\(", text, re.M):
        if m.group(1):
            group = m.group(1)
            continue
        line = text.count("\n", 0, m.start()) + 1
        depth, j = 1, m.end()
        while depth:
            if text[j] == '"':
                j += 1
                while text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
            elif text[j] == "(":
                depth += 1
            elif text[j] == ")":
                depth -= 1
            j += 1
        args = c_args(text[m.end():j - 1])
        pos = j
        opid, api, sig, kinds, dtm = args[0], unquote(args[2]), unquote(args[3]), unquote(args[4]), args[5]
        names = ["tf." + a for a in api.split()]
        if not names:
            continue
        doc = unquote(args[9]) if len(args) > 9 else ""
        if not doc.strip():
            errors.append("runtime/kernels/ops.def:%d: error: op %s (%s) has no doc: add its summary as the last OP() "
                          "argument" % (line, opid, ", ".join(names)))
            continue
        params = [p.strip().split("=")[0] for p in sig.split(",") if p.strip()]
        params = [p for p in params if p != "name"]
        ins = [p for p, k in zip(params, kinds) if k != "."]
        attrs = [p for p, k in zip(params, kinds) if k == "."]
        dts = dtype_text(dtm)
        parts = []
        if ins:
            parts.append("Inputs: " + ", ".join("%s (%s)" % (p, KIND[k.upper()]) for p, k in zip(params, kinds) if k != ".")
                         + "; dtypes: " + dts + ".")
        if attrs:
            parts.append("Host arguments: " + ", ".join(attrs) + ".")
        for n in names:
            e = Entry(n, sig, doc, "runtime/kernels/ops.def:%d" % line, "tf ops: " + re.sub(r" \(.*\)$", "", group),
                      names, " ".join(parts))
            e.funcs = [args[7].strip(), args[8].strip()] if len(args) > 8 else []
            entries.append(e)
    return entries


def read_blocks(root, errors):
    """The `//!` blocks of the C files under runtime/ and stdlib/."""
    entries = []
    for path in sorted(glob.glob(os.path.join(root, "runtime", "**", "*.c"), recursive=True) + glob.glob(os.path.join(root, "stdlib", "**", "*.c"), recursive=True)):
        rel = os.path.relpath(path, root)
        lines = open(path).read().split("\n")
        i = 0
        while i < len(lines):
            if not lines[i].lstrip().startswith("//!"):
                i += 1
                continue
            start = i
            block = [lines[i].lstrip()[3:].strip()]
            i += 1
            # continuation lines are indented (`//!   text`); an unindented `//! ` line starts the next block
            while i < len(lines) and lines[i].lstrip().startswith("//!  "):
                block.append(lines[i].lstrip()[3:].strip())
                i += 1
            head, doc = block[0], " ".join(block[1:]).strip()
            names = []
            for h in head.split(" | "):
                m = re.match(r"^([A-Za-z_][\w.]*)(\((.*)\))?$", h.strip())
                if not m:
                    errors.append("%s:%d: error: bad doc header '%s' (want NAME(SIGNATURE) or NAME)" % (rel, start + 1, h))
                    continue
                names.append((m.group(1), m.group(3)))
            if not doc:
                errors.append("%s:%d: error: doc block for %s has no summary line" % (rel, start + 1, head))
            # the native function defined right below the block raises the entry's errors
            fm = re.match(r"^(?:static\s+)?[A-Za-z_][\w\s*]*?\b(\w+)\s*\(", lines[i]) if i < len(lines) else None
            for n, sig in names:
                e = Entry(n, sig, doc, "%s:%d" % (rel, start + 1), group_of(n), [x[0] for x in names])
                e.funcs = [fm.group(1)] if fm else []
                entries.append(e)
    return entries


# Helpers every op goes through: their messages belong to the common errors, not to one entry.
COMMON = {"op_fail", "rt_throw", "rt_throw_at", "args_parse", "op_attr", "op_attr_int", "op_attr_bool", "op_attr_axes",
          "rt_repr", "rt_str", "op_call", "op_run", "rt_call", "ag_convert_value", "to_tensor", "rt_to_tensor"}


COMMON_AT = 9    # distinct functions reaching a message before it counts as common to all (8 op families broadcast two
                 # inputs, so reaching `Incompatible shapes` is no sign of the shared machinery)


def c_functions(root):
    """name -> (file, first line, last line, body) of every function defined in runtime/ and stdlib/."""
    funcs = {}
    for path in sorted(glob.glob(os.path.join(root, "runtime", "**", "*.c"), recursive=True) + glob.glob(os.path.join(root, "stdlib", "**", "*.c"), recursive=True)):
        rel = os.path.relpath(path, root)
        lines = open(path).read().split("\n")
        for i, l in enumerate(lines):
            m = re.match(r"^(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w\s*]*?\b(\w+)\s*\([^;]*$", l)
            if not m or l.startswith((" ", "#", "/", "}", "{")) or l.startswith(("if", "for", "while", "return")):
                continue
            j = i
            while j < len(lines) and lines[j] != "}" and (j == i or not re.match(r"^\w.*\)\s*\{\s*$", lines[j])):
                j += 1
            funcs.setdefault(m.group(1), (rel, i + 1, j + 1, "\n".join(lines[i:j + 1])))
    return funcs


def add_details(root, entries):
    """Each entry's shape rule (the `/* shape: ... */` line above its op's meta function) and the messages its
    meta function, kernel or native body can raise, found by errindex.py in those functions and their callees."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import errindex
    found = errindex.scan(root)
    bysite = {}
    for t, (cls, _area, sites) in found.items():
        for site in sites:
            f, ln = site.rsplit(":", 1)
            bysite.setdefault(f, []).append((int(ln), t, cls))
    funcs = c_functions(root)
    shapes = {}
    for path in glob.glob(os.path.join(root, "runtime", "**", "*.c"), recursive=True) + glob.glob(os.path.join(root, "stdlib", "**", "*.c"), recursive=True):
        for m in re.finditer(r"^/\* shape: (.*?)\s*\*/\n(?:static )?void (meta_\w+)\(", open(path).read(), re.M):
            shapes[m.group(2)] = m.group(1)

    def msgs(fn, depth, seen):
        if fn in seen or fn not in funcs or fn in COMMON:
            return []
        seen.add(fn)
        rel, a, b, body = funcs[fn]
        out = sorted((ln, t, c) for (ln, t, c) in bysite.get(rel, []) if a <= ln <= b)
        out = [(t, c) for _ln, t, c in out]
        if depth:
            for callee in dict.fromkeys(re.findall(r"\b([a-z]\w*)\s*\(", body[body.find("{"):])):
                out += msgs(callee, depth - 1, seen)
        return out

    for e in entries:
        seen = set()
        got = []
        for fn in e.funcs:
            got += msgs(fn, 2, seen)
        e.errors = list(dict.fromkeys((" ".join(t.split()), c) for t, c in got))
        e.shape = next((shapes[f] for f in e.funcs if f in shapes), "")
    # a message most entries reach comes from the shared call machinery: list it once, not per entry
    count, done = {}, set()
    for e in entries:
        if tuple(e.funcs) in done:
            continue    # ops sharing a meta function and kernel count once
        done.add(tuple(e.funcs))
        for x in e.errors:
            count[x] = count.get(x, 0) + 1
    common = [x for x, k in count.items() if k >= COMMON_AT]
    for e in entries:
        e.errors = [x for x in e.errors if x not in common]
    return sorted(common, key=lambda x: (x[1], x[0]))


def group_of(name):
    if name.startswith("tf."):
        return "tf functions, classes and modules"
    if "." in name:
        return "Methods and attributes of tfs objects: " + name.split(".")[0]
    return "Python builtins"


def implemented(root):
    """(name, where) of every native name that must have a doc, found beside its definition."""
    found = []

    def add(name, rel, text, pos):
        if "__" in name or "<" in name:
            return
        found.append((name, "%s:%d" % (rel, text.count("\n", 0, pos) + 1)))

    for path in sorted(glob.glob(os.path.join(root, "runtime", "**", "*.c"), recursive=True) + glob.glob(os.path.join(root, "stdlib", "**", "*.c"), recursive=True)):
        rel = os.path.relpath(path, root)
        text = open(path).read()
        for m in re.finditer(r'builtin_new\("([^"]+)"', text):
            n = m.group(1)
            if n.startswith("tf.") or re.match(r"^[A-Z]\w*\.[a-z]\w*$", n):
                add(n, rel, text, m.start())
        for m in re.finditer(r'tfmod_register\("([\w.]+)"', text):
            add("tf." + m.group(1), rel, text, m.start())
        for m in re.finditer(r'\{"([\w.]+)", (?:tf|tffn)_\w+\}', text):
            add("tf." + m.group(1), rel, text, m.start())
        for m in re.finditer(r'\{"\w+", "([A-Z]\w*\.\w+)", \w+\}', text):
            add(m.group(1), rel, text, m.start())
        for m in re.finditer(r'!strcmp\((?:qual|base), "([\w.]+)"\)\)(?: \|\| !strcmp\(qual, "([\w.]+)"\)\))? return', text):
            for n in m.groups():
                if n:
                    add("tf." + n, rel, text, m.start())
        for m in re.finditer(r'\bBI\("(\w+)"', text):
            add(m.group(1), rel, text, m.start())
        for m in re.finditer(r"#define SUBMODULES\(X\)(.*)", text):
            for s in re.findall(r"X\((\w+)\)", m.group(1)):
                add("tf." + s, rel, text, m.start())
    return found


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"' if s is not None else "0"


def write_c(entries):
    out = ["/* docs_table.c — generated by scripts/gendoc.py from ops.def and the //! blocks; do not edit. */",
           '#include "modules/docs.h"', "", "const DocEntry doc_table[] = {"]
    for e in entries:
        out.append("  {%s, %s, %s, %s, %s}," % (c_str(e.name), c_str(e.sig), c_str(e.doc), c_str(e.args),
                                              c_str(" ".join(e.aliases))))
    out += ["};", "const int doc_count = %d;" % len(entries), ""]
    return "\n".join(out)


def anchor(name):
    return re.sub(r"[^a-z0-9_-]", "", name.lower().replace(" ", "-"))


EXAMPLES = os.path.join("docs", "reference", "examples.txt")


def read_examples(root):
    """name -> [code lines, output lines or None] from docs/reference/examples.txt."""
    path = os.path.join(root, EXAMPLES)
    ex, cur, part = {}, None, 0
    if not os.path.exists(path):
        return ex
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("== "):
            cur = ex.setdefault(line[3:].strip(), [[], None])
            part = 0
        elif cur is None:
            continue   # the file's header
        elif line == "-- output":
            cur[1], part = [], 1
        else:
            cur[part].append(line)
    for code_out in ex.values():
        for part in (0, 1):
            while code_out[part] and not code_out[part][-1].strip():
                code_out[part].pop()
    return ex


def write_examples(root, ex, header):
    out = header[:]
    for name, (code, outp) in ex.items():
        out += ["== " + name] + code + ["-- output"] + (outp or []) + [""]
    with open(os.path.join(root, EXAMPLES) + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    os.replace(os.path.join(root, EXAMPLES) + ".tmp", os.path.join(root, EXAMPLES))


def update_examples(root, tfs):
    """Run every example with TFS and store what it printed (stdout, then stderr), as tests/doctest.py compares."""
    import subprocess
    import tempfile
    path = os.path.join(root, EXAMPLES)
    text = open(path, encoding="utf-8").read().split("\n")
    header = text[:next(i for i, l in enumerate(text) if l.startswith("== "))]
    ex = read_examples(root)
    for name, code_out in ex.items():
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "prog.tfs"), "w") as f:
                f.write("\n".join(code_out[0]) + "\n")
            p = subprocess.run([os.path.abspath(tfs), "run", "prog.tfs"], cwd=d, capture_output=True, timeout=120)
            outp = (p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")).split("\n")
            while outp and not outp[-1].strip():
                outp.pop()
            code_out[1] = outp
    write_examples(root, ex, header)


def err_item(t, c):
    code, pad = ("``", " ") if "`" in t else ("`", "")
    return "- %s: %s%s%s%s%s" % (c, code, pad, t, pad, code)


def write_md(entries, examples=None, common=()):
    groups = {}
    for e in entries:
        groups.setdefault(e.group, []).append(e)
    # ops in op-table order, then the other tf names, methods, builtins
    order = sorted(groups, key=lambda g: (not g.startswith("tf ops"), not g.startswith("tf "), g.startswith("Python"),
                                          min(e.seq for e in groups[g]) if g.startswith("tf ops") else g))
    out = ["# API reference", "",
           "<!-- generated by scripts/gendoc.py from runtime/kernels/ops.def and the //! blocks beside each native "
           "function; edit those, then run `python3 scripts/gendoc.py . --md docs/reference/tf.md` (the "
           "docs-reference test fails while this copy is stale). -->", "",
           "Every name below is implemented. `help(NAME)` in a program and `tfs doc NAME` print the same entry. "
           "Hand-written notes on the `tf` module are in [tf-notes.md](tf-notes.md).", ""]
    for g in order:
        out.append("- [%s](#%s)" % (g, anchor(g)))
    out.append("")
    if common:
        out += ["Each entry lists the messages its own code can raise, found in the sources by scripts/errindex.py "
                "(every message is explained in [errors.md](../errors.md#index-of-messages)). Besides those, any "
                "call can fail with the argument errors of Python (`… takes at most … arguments`, "
                "`… got an unexpected keyword argument …`) and these, raised by the machinery all calls share:", ""]
        out += [err_item(t, c) for t, c in common]
        out.append("")
    seen = set()
    for g in order:
        out += ["## " + g, ""]
        for e in sorted(groups[g], key=lambda e: e.name):
            key = (e.doc, e.sig, tuple(sorted(e.aliases + [e.name])))
            if key in seen:
                continue
            seen.add(key)
            head = "`%s(%s)`" % (e.name, e.sig) if e.sig is not None else "`%s`" % e.name
            out += ["### " + e.name, "", head, ""]
            out.append(e.doc)
            if e.args:
                out += ["", e.args]
            if e.shape:
                out += ["", "Shape: " + e.shape]
            if e.errors:
                out += ["", "Errors its implementation can raise (a kernel shared by several ops lists them all; see [errors.md](../errors.md#index-of-messages)):", ""]
                out += [err_item(t, c) for t, c in e.errors]
            if e.aliases:
                out += ["", "Also: " + ", ".join("`%s`" % a for a in e.aliases)]
            ex = (examples or {}).get(e.name)
            if ex:
                out += ["", "Example:", "", "```tfs"] + ex[0] + ["```", "", "```output"] + (ex[1] or []) + ["```"]
            out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--c")
    ap.add_argument("--md")
    ap.add_argument("--check")
    ap.add_argument("--update-examples", metavar="TFS", help="run each example with TFS and store its output")
    a = ap.parse_args()
    if a.update_examples:
        update_examples(a.root, a.update_examples)
    errors = []
    entries = read_ops(a.root, errors) + read_blocks(a.root, errors)
    for i, e in enumerate(entries):
        e.seq = i
    common = add_details(a.root, entries)
    for e in entries:
        if e.where.startswith("runtime/kernels/ops.def") and not e.shape and e.funcs:
            errors.append("%s: error: %s's meta function %s has no `/* shape: ... */` line above its definition"
                          % (e.where, e.name, e.funcs[0]))
    names = {}
    for e in entries:
        if e.name in names:
            errors.append("%s: error: '%s' is documented twice (also at %s)" % (e.where, e.name, names[e.name].where))
        names[e.name] = e
    for n, where in implemented(a.root):
        if n not in names:
            errors.append("%s: error: '%s' is implemented here but has no doc: add a `//! %s(...)` block with its "
                          "summary beside its definition" % (where, n, n))
    if errors:
        for e in sorted(set(errors)):
            print(e, file=sys.stderr)
        sys.exit(1)
    entries.sort(key=lambda e: e.name)
    examples = read_examples(a.root)
    if a.check or a.md:
        # every documented name shows an example, and every example belongs to a documented name
        shown = set()
        for e in entries:
            if e.name in examples:
                shown.add(e.name)
            elif not any(x in examples for x in e.aliases):
                errors.append("%s: error: '%s' has no example in %s" % (e.where, e.name, EXAMPLES))
        for n in examples:
            if n not in names:
                errors.append("%s: error: the example '%s' names nothing documented" % (EXAMPLES, n))
            elif examples[n][1] is None:
                errors.append("%s: error: the example '%s' has no output: run `python3 scripts/gendoc.py . "
                              "--update-examples build/compiler/tfs`" % (EXAMPLES, n))
        if errors:
            for e in sorted(set(errors)):
                print(e, file=sys.stderr)
            sys.exit(1)
    if a.c:
        with open(a.c, "w") as f:
            f.write(write_c(entries))
    md = write_md(entries, examples, common)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md)
    if a.check:
        if not os.path.exists(a.check) or open(a.check).read() != md:
            print("%s is stale: regenerate it with `python3 scripts/gendoc.py . --md %s`" % (a.check, a.check),
                  file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
