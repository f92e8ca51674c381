#!/usr/bin/env python3
"""Lists every error message the sources can raise and checks docs/errors.md indexes each one.

The sources are the single truth: a message is the format string of an error
call (rt_throw, op_fail, the parser's and converter's diagnostics, a command
line's "error:" line) or the text of a `raise` in stdlib/*.tfs. printf
conversions and f-string fields become `…`. The index in docs/errors.md is
the "Index of messages" section: table rows whose first cell is a template
in a code span. --check fails on a message with no row and on a row that no
longer matches any message, so the index cannot rot in either direction.

usage: errindex.py ROOT --check DOC | --selftest DOC | --missing | --list
"""
import os
import re
import sys

# function name -> index of its format argument
CALLS = {
    'rt_throw': 1, 'rt_throw_at': 2, 'rt_throw_msg': 2, 'op_fail': 2,
    'cv_err': 2, 'ast_err': 2, 'perr': 3, 'lex_err': 4, 'ag_error': 2,
    'diag_add': 5, 'error_at': 3, 'source_error_at': 3,
    'ag_fail': 2, 'call_fail': 1, 'ck_fail': 2, 'ck_note': 2,
    'ox_fail': 1, 'ex_error': 0,
}
# wrappers that fix the class, or put text before the format
WRAPPER_CLASS = {'call_fail': 'TypeError', 'ox_fail': 'UnimplementedError',
                 'ex_error': 'command line'}
PREFIX = {'call_fail': '… '}
KINDS = {
    'ERR_TYPE': 'TypeError', 'ERR_VALUE': 'ValueError', 'ERR_INDEX': 'IndexError',
    'ERR_KEY': 'KeyError', 'ERR_NAME': 'NameError', 'ERR_ATTRIBUTE': 'AttributeError',
    'ERR_ZERODIV': 'ZeroDivisionError', 'ERR_OVERFLOW': 'OverflowError',
    'ERR_ASSERTION': 'AssertionError', 'ERR_RUNTIME': 'RuntimeError',
    'ERR_STOPITER': 'StopIteration', 'ERR_IMPORT': 'ImportError',
    'ERR_UNBOUND': 'UnboundLocalError', 'ERR_NOTIMPL': 'NotImplementedError',
    'ERR_RECURSION': 'RecursionError', 'ERR_MEMORY': 'MemoryError', 'ERR_IO': 'OSError',
    'ERR_KEYBOARD_INTERRUPT': 'KeyboardInterrupt', 'ERR_MODULE_NOT_FOUND': 'ModuleNotFoundError',
    'ERR_INVALID_ARGUMENT': 'InvalidArgumentError', 'ERR_UNIMPLEMENTED': 'UnimplementedError',
    'ERR_OUT_OF_RANGE': 'OutOfRangeError', 'ERR_NOT_FOUND': 'NotFoundError',
    'ERR_RESOURCE_EXHAUSTED': 'ResourceExhaustedError',
    'ERR_DATA_LOSS': 'DataLossError', 'ERR_ALREADY_EXISTS': 'AlreadyExistsError',
    'ERR_UNAVAILABLE': 'UnavailableError', 'ERR_DEADLINE_EXCEEDED': 'DeadlineExceededError', 'ERR_INTERNAL': 'InternalError',
    'ERR_CANCELLED': 'CancelledError', 'ERR_UNKNOWN': 'UnknownError', 'ERR_PERMISSION_DENIED': 'PermissionDeniedError',
    'ERR_UNAUTHENTICATED': 'UnauthenticatedError', 'ERR_FAILED_PRECONDITION': 'FailedPreconditionError',
    'ERR_ABORTED': 'AbortedError',
}
SRC_DIRS = ('compiler', 'runtime', 'stdlib')
CONV = re.compile(r'%[-+ #0]*(\*|\d+)?(\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp]|%"\s*PRI[a-z0-9]+\s*"')
STR = re.compile(r'"(?:[^"\\\n]|\\.)*"')
CHR = re.compile(r"'(?:[^'\\\n]|\\.)*'")


def call_args(src, i):
    """Top-level argument texts of the call whose '(' is at src[i]."""
    depth, cur, out, j = 0, [], [], i
    while j < len(src):
        c = src[j]
        if c in '"\'':
            m = (STR if c == '"' else CHR).match(src, j)
            if m:
                cur.append(m.group(0))
                j = m.end()
                continue
        if c in '([{':
            depth += 1
            if depth == 1:
                j += 1
                continue
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                out.append(''.join(cur))
                return out
        elif c == ',' and depth == 1:
            out.append(''.join(cur))
            cur = []
            j += 1
            continue
        cur.append(c)
        j += 1
    return out


def unescape(s):
    return re.sub(r'\\(.)', lambda m: {'n': '\\n', 't': '\\t'}.get(m.group(1), m.group(1)), s)


def templates_of(arg):
    """The messages a format argument can be: adjacent literals join; `?:` alternatives split."""
    out, cur = [], []
    pos = 0
    for m in STR.finditer(arg):
        gap = arg[pos:m.start()]
        if cur and re.search(r'[?:]', gap):
            out.append(''.join(cur))
            cur = []
        cur.append(m.group(0)[1:-1])
        pos = m.end()
    if cur:
        out.append(''.join(cur))
    res = []
    for s in out:
        s = CONV.sub('…', s.replace('%%', '\x00')).replace('\x00', '%')
        s = unescape(s)
        if s.strip('… :') and s.strip() != '…':
            res.append(s)
    return res


def area_of(path):
    base = os.path.basename(path)
    for pat, area in AREAS:
        if re.search(pat, base):
            return area
    return 'Python values and built-ins'


AREAS = [
    (r'^(parse|nesting)\.c$', 'Syntax'),
    (r'^(scope|program|cgen|ag_.*|jit)\.c$', 'Compiling: names, modules and statements'),
    (r'^(driver|main_.*|isa|paths|outbuf)\.c$', 'Command line and output'),
    (r'^(tape|grad|k_grad|gradtape|graphgrad|loopgrad)\.c$', 'Gradients'),
    (r'^(trace|exec|tffunction|agmod|agscope|graph)\.c$', 'tf.function, AutoGraph and graphs'),
    (r'^(dataset|dsnapmod)\.c$', 'tf.data'),
    (r'^(tfio|iofile|npyfile|kdatasets|atomicfile)\.c$', 'Files, tf.io and data sets'),
    (r'^(summary|k_summary|tfrecord|graphdef.*|pbutil|profiler|xplane)\.c$', 'TensorBoard and GraphDef'),
    (r'^(keras.*\.tfs|kerasrt\.c)$', 'tf.keras'),
    (r'^(tfmodule|ctxmgr)\.c$', 'tf.Module and scopes'),
    (r'^(tensor|op|ndarray|tfmod|k_.*|tprint)\.c$', 'Tensors and ops'),
    # the .tfs sources of the tf API, in the sections that already hold their messages
    (r'^(tfcore_data|tfcore_data_resample|tfdatasave|tfcore_ragged|tfcore_strings)\.tfs$', 'tf.data'),
    (r'^tfcore_image\.tfs$', 'tf.image and image files'),
    (r'^tfcore_fwdacc\.tfs$', 'Gradients'),
    (r'^(distribute|horovod|tfcore_dist)\.tfs$', 'Distributed training (MPI)'),
    (r'^tfgfile\.tfs$', 'Files, tf.io and data sets'),
    (r'^tfcore_.*\.tfs$', 'tf.nest and the functional ops'),
]


def scan(root):
    """template -> (class, area, [sites])"""
    found = {}
    dynamic, seen = [], set()
    unmarked = scan.unmarked = []

    def add(tpl, cls, site):
        if tpl not in found:
            found[tpl] = (cls, area_of(site.split(':')[0]), [])
        found[tpl][2].append(site)

    names = '|'.join(CALLS)
    for d, f in sorted((os.path.relpath(dp, root), fn) for top in SRC_DIRS
                       for dp, _dirs, fns in os.walk(os.path.join(root, top)) for fn in fns):
            if not f.endswith('.c'):
                continue
            src = open(os.path.join(root, d, f), encoding='utf-8').read()
            for m in re.finditer(r'(?<![\w.>])(%s)\s*\(' % names, src):
                line_start = src.rfind('\n', 0, m.start()) + 1
                head = src[line_start:m.start()]
                if re.search(r'\b(void|bool|int)\s*\**\s*$', head):
                    continue  # a declaration or definition, not a call
                a = call_args(src, m.end() - 1)
                k = CALLS[m.group(1)]
                if len(a) <= k:
                    continue
                kind = a[k - 1].strip() if m.group(1) in ('rt_throw', 'rt_throw_at', 'rt_throw_msg', 'op_fail', 'ag_fail') else ''
                kinds = re.findall(r'ERR_[A-Z_]+', kind)
                cls = '/'.join(dict.fromkeys(KINDS.get(x, x) for x in kinds)) if kinds else (
                    WRAPPER_CLASS.get(m.group(1)) or ('compile time' if not kind else 'varies'))
                line = src.count('\n', 0, m.start()) + 1
                for t in templates_of(a[k]):
                    add(PREFIX.get(m.group(1), '') + t, cls, f'{d}/{f}:{line}')
                if re.fullmatch(r'\s*"%s"\s*', a[k]) and not re.fullmatch(r'\s*""\s*', a[k + 1] if len(a) > k + 1 else '""'):
                    dynamic.append((f'{d}/{f}', line, cls))
            for m in re.finditer(r"(?<![\w.>])(?:op_fail_sb|fail_buf|assert_fail)\s*\(", src):
                line = src.count('\n', 0, m.start()) + 1
                if not re.search(r'\b(void|bool|int)\s*\**\s*$', src[src.rfind('\n', 0, m.start()) + 1:m.start()]):
                    kinds = re.findall(r'ERR_[A-Z_]+', ''.join(call_args(src, m.end() - 1)[1:2]))
                    dynamic.append((f'{d}/{f}', line, '/'.join(KINDS.get(x, x) for x in kinds) or 'InvalidArgumentError'))
            # a message assembled at run time names its template in a marker comment above the throw
            lines = src.split('\n')
            for fn, line, cls in [x for x in dynamic if x[0] == f'{d}/{f}' and x not in seen]:
                seen.add((fn, line, cls))
                # a message formatted into a buffer just above the throw
                near = '\n'.join(lines[max(line - 14, 0):line])
                sn = list(re.finditer(r'snprintf\s*\(', near))
                if sn:
                    a = call_args(near, sn[-1].end() - 1)
                    tpls = templates_of(a[2]) if len(a) > 2 else []
                    if tpls and not re.fullmatch(r'\s*"%(\.\*)?s"\s*', a[2]):
                        for t in tpls:
                            add(t, cls, f'{fn}:{line}')
                        continue
                marks = []
                for back in range(line - 1, max(line - 16, 0) - 1, -1):
                    mm = re.search(r'errindex: (.*?)\s*(\*/)?$', lines[back])
                    if mm:
                        marks.append(mm.group(1))
                        continue
                    if marks:
                        break
                if not marks:
                    unmarked.append(f'{fn}:{line}')
                for mk in marks:
                    if not mk.startswith('-'):
                        add(mk, cls, f'{fn}:{line}')
            # command-line errors: "prog: error: ..." written directly to stderr
            for m in re.finditer(r'fprintf\(stderr,\s*("(?:[^"\\]|\\.)*")', src):
                lit = m.group(1)[1:-1]
                mm = re.match(r'(?:%s|tfsc?): (?:internal )?error: (.*?)(?:\\n)?$', lit)
                if mm:
                    line = src.count('\n', 0, m.start()) + 1
                    for t in templates_of('"' + mm.group(1) + '"'):
                        add(t, 'command line', f'{d}/{f}:{line}')
    sd = os.path.join(root, 'stdlib')
    for f in sorted(os.listdir(sd)):
        if not f.endswith('.tfs'):
            continue
        lines = open(os.path.join(sd, f), encoding='utf-8').read().split('\n')
        for i, l in enumerate(lines):
            if not re.search(r'\braise [\w.]+\(', l):
                continue
            # a raise spread over lines: joined until its parentheses close (a few lines at most)
            stmt, k = l.strip(), i
            while open_parens(stmt) > 0 and k + 1 < len(lines) and k < i + 6:
                k += 1
                stmt += ' ' + lines[k].strip()
            # tf.errors.X(node_def, op, message) names its class by the last part of the dotted name
            m = re.search(r'\braise (?:[\w]+\.)*(\w+)\((.*)\)\s*(?:from\b.*)?$', stmt)
            if not m:
                continue
            s = tfs_template(m.group(2))
            if s is not None and s.strip('… :'):
                add(s, m.group(1), f'stdlib/{f}:{i + 1}')
    return found


PYCONV = re.compile(r'%(\(\w+\))?[-+ #0]*(\*|\d+)?(\.(\*|\d+))?[diouxXeEfFgGcrsa]')
LIT = re.compile(r'([rbf]*)(["\'])((?:(?!\2)[^\\]|\\.)*)\2')


def tfs_template(args):
    """The message of a .tfs raise's arguments: its string literals joined, f-string fields as `…`.
    Literals followed by a `%` operator are a %-format: their conversions become `…` and the
    operand's own literals (`"" if n == 1 else "s"`) are not part of the message."""
    s, pos, pct = '', 0, False
    for lm in LIT.finditer(args):
        if s and re.search(r'(?<![%=])%(?!=)', args[pos:lm.start()]):
            pct = True
            break
        fpre, body = lm.group(1), lm.group(3)
        s += re.sub(r'\{[^{}]*\}', '…', body) if 'f' in fpre else body
        pos = lm.end()
    if not s:
        return None
    if not pct and re.match(r'\s*%(?!=)', args[pos:]):
        pct = True
    if pct:
        s = PYCONV.sub('…', s.replace('%%', '\x00')).replace('\x00', '%')
    return unescape(s)


def open_parens(code):
    """Parentheses a line of .tfs code leaves open, its string literals aside."""
    bare = re.sub(r'([\'"])(?:(?!\1)[^\\]|\\.)*\1', '', code)
    return bare.count('(') - bare.count(')')


def index_rows(doc):
    text = open(doc, encoding='utf-8').read()
    at = text.find('\n## Index of messages')
    if at < 0:
        return None
    rows = set()
    for l in text[at:].splitlines():
        m = re.match(r'\|\s*(`+) ?(.*?) ?\1\s*\|', l)
        if m:
            rows.add(m.group(2).replace('\\|', '|'))
    return rows


def selftest(root, doc, found):
    """The check must notice a dropped row and an invented one."""
    import tempfile
    text = open(doc, encoding='utf-8').read()
    at = text.index('\n## Index of messages')
    lines = text[at:].split('\n')
    first = next(i for i, l in enumerate(lines) if l.startswith('| `'))
    dropped = index_rows(doc)
    lines[first] = '| `a message no source raises` | TypeError | invented |'
    with tempfile.NamedTemporaryFile('w', suffix='.md', delete=False) as f:
        f.write(text[:at] + '\n'.join(lines))
    rows = index_rows(f.name)
    os.unlink(f.name)
    missing = [t for t in found if t not in rows]
    stale = rows - set(found)
    ok = len(missing) == 1 and missing[0] in dropped and stale == {'a message no source raises'}
    print('selftest', 'passed' if ok else f'FAILED: missing {missing}, stale {sorted(stale)}')
    return 0 if ok else 1


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root, mode = argv[1], argv[2]
    found = scan(root)
    if mode == '--list':
        for t, (cls, area, sites) in sorted(found.items(), key=lambda x: (x[1][1], x[0])):
            print(f'{area:40} {cls:22} {t}    [{sites[0]}]')
        print(f'{len(found)} messages', file=sys.stderr)
        return 0
    doc = argv[3] if len(argv) > 3 else os.path.join(root, 'docs/errors.md')
    if mode == '--selftest':
        return selftest(root, doc, found)
    rows = index_rows(doc)
    if rows is None:
        print(f'{doc}: no "## Index of messages" section', file=sys.stderr)
        return 1
    missing = [t for t in found if t not in rows]
    for site in scan.unmarked:
        print(f'{site}: a message built at run time needs an "errindex: TEMPLATE" comment above the call')
    stale = sorted(rows - set(found))
    if mode == '--missing':
        for t in sorted(missing, key=lambda t: (found[t][1], t)):
            cls, area, sites = found[t]
            code = '``' if '`' in t else '`'
            pad = ' ' if '`' in t else ''
            print(f'{area}\t| {code}{pad}{t.replace("|", chr(92) + "|")}{pad}{code} | {cls} | TODO |\t{sites[0]}')
        for t in stale:
            print(f'stale\t{t}')
        return 0
    for t in missing:
        print(f'{doc}: message not indexed: "{t}" ({found[t][1]}; raised at {", ".join(found[t][2][:3])})')
    for t in stale:
        print(f'{doc}: indexed message no longer raised anywhere: "{t}"')
    print(f'{len(found)} messages in the sources, {len(rows)} rows in the index, '
          f'{len(missing)} missing, {len(stale)} stale')
    return 1 if missing or stale or scan.unmarked else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
