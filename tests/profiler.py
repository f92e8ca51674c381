#!/usr/bin/env python3
"""profiler.py — run each tests/profiler/NAME.tfs with a fresh log directory as argv[1], then check the profile it saved.

The profile must be TF's layout, LOGDIR/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb and
<host>.trace.json.gz.  The .xplane.pb is decoded with the committed proto/xplane.proto (Python
classes generated here by protoc; Debian python3-protobuf) and checked:
  - one plane "/host:CPU", hostnames [this host]; every event's and stat's metadata id resolves;
  - each line's events are sorted, inside the line's span, and nested events end inside their parent;
  - the program's (or NAME.expect's, for a program kept as written) `# expect eager OP SHAPES` lines: exactly these eager ops ran, in order, each with
    the .tfs line of its comment and those input shapes (`# expect eager-at LINE OP SHAPES`: at that line of the .tfs); `# expect trace NAME STEP...`: Trace ranges
    at that line with those step_num stats; `# expect graph-counts OP:N ...`: how many times each
    op ran inside tf.functions (the counts follow from the program's control flow);
  - when the run also exported a graph (trace_on(graph=True)), every graph event names a node of
    that GraphDef (or of a cond/while body in its library) with the event's op type;
  - the .trace.json.gz (zlib's gzip) parses as JSON with one complete ("ph": "X") event per
    XEvent, the same names, times and durations.
usage: profiler.py TFS PROTO_DIR TEST_DIR
"""
import glob
import gzip
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile


def load_protos(proto_dir, out):
    subprocess.run(["protoc", "-I", proto_dir, "--python_out=" + out, os.path.join(proto_dir, "xplane.proto"),
                    os.path.join(proto_dir, "tensorflow.proto")], check=True)
    sys.path.insert(0, out)
    import tensorflow_pb2
    import xplane_pb2
    return xplane_pb2, tensorflow_pb2


def typed(v):
    """A Trace keyword's value as TF's converter types the stat: int, else float, else text."""
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v


def expectations(src):
    eager, traces, counts, tstats = [], [], {}, {}
    for ln, line in enumerate(src.splitlines(), 1):
        m = re.search(r"# expect (\S+) (.*)$", line)
        if not m:
            continue
        kind, rest = m.group(1), m.group(2).split()
        if kind == "eager":
            eager.append((rest[0], ln, rest[1] if len(rest) > 1 else ""))
        elif kind == "eager-at":   # NAME.expect: an eager op at line LINE of the program
            eager.append((rest[1], int(rest[0]), rest[2] if len(rest) > 2 else ""))
        elif kind == "trace":
            traces += [(rest[0], ln, int(s)) for s in rest[1:]]
        elif kind == "trace-stats":
            # values may hold spaces: each item starts at a word holding '='
            items = re.findall(r"(\S+?)=(.*?)(?= \S+=|$)", m.group(2).split(None, 1)[1])
            tstats[rest[0]] = {k: typed(v) for k, v in items}
        elif kind == "graph-counts":
            counts.update({k: int(v) for k, v in (r.split(":") for r in rest)})
    return eager, traces, counts, tstats


def graph_nodes(tfpb, logdir):
    """{function name: {node: op}} of the GraphDefs in the event files ('' : the top level), or None."""
    found = None
    for ev in glob.glob(os.path.join(logdir, "events.out.tfevents.*")):
        data, pos = open(ev, "rb").read(), 0
        while pos < len(data):
            n = struct.unpack("<Q", data[pos:pos + 8])[0]
            rec = data[pos + 12:pos + 12 + n]
            pos += 16 + n
            e = tfpb.Event()
            e.ParseFromString(rec)
            gs = []
            if e.graph_def:
                g = tfpb.GraphDef()
                g.ParseFromString(e.graph_def)
                gs.append(g)
            # trace_export (TF 2.15): a summary whose string tensor is a RunMetadata with the functions' graphs
            for v in e.summary.value:
                if v.metadata.plugin_data.plugin_name.startswith("graph_run_metadata"):
                    rm = tfpb.RunMetadata()
                    rm.ParseFromString(v.tensor.string_val[0])
                    gs += [fg.pre_optimization_graph for fg in rm.function_graphs]
            for g in gs:
                found = found or {}
                found[""] = {**found.get("", {}), **{nd.name: nd.op for nd in g.node}}
                for f in g.library.function:
                    found[f.signature.name] = {nd.name: nd.op for nd in f.node_def}
    return found


def check(name, xpb, tfpb, logdir, src):
    errs = []
    runs = glob.glob(os.path.join(logdir, "plugins", "profile", "*"))
    if len(runs) != 1 or not re.fullmatch(r"\d{4}(_\d\d){5}", os.path.basename(runs[0])):
        return ["profile runs: %r" % runs]
    host = socket.gethostname()
    files = sorted(os.listdir(runs[0]))
    if files != sorted([host + ".xplane.pb", host + ".trace.json.gz"]):
        return ["files in the run: %r" % files]
    sp = xpb.XSpace()
    sp.ParseFromString(open(os.path.join(runs[0], host + ".xplane.pb"), "rb").read())
    if list(sp.hostnames) != [host]:
        errs.append("hostnames %r" % list(sp.hostnames))
    if [p.name for p in sp.planes] != ["/host:CPU"]:
        return errs + ["planes %r" % [p.name for p in sp.planes]]
    pl = sp.planes[0]
    smeta = {k: v.name for k, v in pl.stat_metadata.items()}
    events = []   # (line, start_ns, end_ns, metadata, stats)
    for ln in pl.lines:
        prev, stack = -1, []
        for ev in ln.events:
            if ev.metadata_id not in pl.event_metadata:
                errs.append("event metadata %d missing" % ev.metadata_id)
                continue
            md = pl.event_metadata[ev.metadata_id]
            stats = {}
            for s in list(ev.stats) + list(md.stats):
                if s.metadata_id not in smeta:
                    errs.append("stat metadata %d missing" % s.metadata_id)
                    continue
                stats[smeta[s.metadata_id]] = getattr(s, s.WhichOneof("value"))
            start, end = ev.offset_ps, ev.offset_ps + ev.duration_ps
            if start < prev:
                errs.append("line %s: events not sorted" % ln.name)
            prev = start
            if end > ln.duration_ps:
                errs.append("line %s: %s ends after the line" % (ln.name, md.name))
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and end > stack[-1]:
                errs.append("line %s: %s overlaps its parent's end" % (ln.name, md.name))
            stack.append(end)
            events.append((ln.id, start, end, md, stats))
    eager_want, traces_want, counts_want, tstats_want = expectations(src)
    base = os.path.basename
    eager = [(md.display_name, int(st["source"].rsplit(":", 1)[1]), st.get("input_shapes", ""))
             for _, _, _, md, st in events if st.get("is_eager") == 1]
    if eager != eager_want:
        errs.append("eager ops:\n  got  %r\n  want %r" % (eager, eager_want))
    for _, _, _, md, st in events:
        if "source" in st and base(st["source"].rsplit(":", 1)[0]) != name + ".tfs":
            errs.append("source %r is not the program" % st["source"])
    traces = [(md.name, int(st["source"].rsplit(":", 1)[1]), st.get("step_num"))
              for _, _, _, md, st in events if "is_eager" not in st]
    if traces != traces_want:
        errs.append("trace ranges:\n  got  %r\n  want %r" % (traces, traces_want))
    fixed = {"source", "step_num", "input_shapes", "tf_op", "tf_function", "is_eager"}
    for tname, want in tstats_want.items():
        got = [{k: v for k, v in st.items() if k not in fixed} for _, _, _, md, st in events if md.name == tname]
        if got != [want]:
            errs.append("trace %s stats:\n  got  %r\n  want %r" % (tname, got, [want]))
    graph = [(md, st) for _, _, _, md, st in events if st.get("is_eager") == 0]
    counts = {}
    for md, _ in graph:
        counts[md.display_name] = counts.get(md.display_name, 0) + 1
    if counts != counts_want:
        errs.append("graph op counts:\n  got  %r\n  want %r" % (counts, counts_want))
    nodes = graph_nodes(tfpb, logdir)
    if nodes is not None:
        for md, st in graph:
            node, op = md.name.rsplit(":", 1)
            fn = st["tf_function"]
            # a body graph 'cond_true' is the library function 'cond_true_<k>'
            cands = [nodes[""]] if fn not in nodes and not any(re.fullmatch(re.escape(fn) + r"_\d+", k) for k in nodes) \
                else [v for k, v in nodes.items() if k and (k == fn or re.fullmatch(re.escape(fn) + r"_\d+", k))]
            ok = any(node in c and (c[node] == op or c[node] in ("Stateless" + op,)) for c in cands)
            if not ok:
                errs.append("graph event %s (in %s) is no node of the exported GraphDef" % (md.name, fn))
    # the Chrome trace: one complete event per XEvent, same names and times
    js = json.loads(gzip.open(os.path.join(runs[0], host + ".trace.json.gz")).read())
    xs = [e for e in js["traceEvents"] if e["ph"] == "X"]
    if len(xs) != len(events):
        errs.append("trace.json: %d complete events, %d XEvents" % (len(xs), len(events)))
    else:
        for e, (tid, start, end, md, st) in zip(xs, events):
            want = md.name if "is_eager" not in st else md.display_name
            if e["name"] != want or e["tid"] != tid or abs(e["ts"] - start / 1e6) > 0.002 \
                    or abs(e["dur"] - (end - start) / 1e6) > 0.002:
                errs.append("trace.json event %r differs from XEvent %s" % (e, md.name))
                break
    return errs


def main():
    tfs, proto_dir, test_dir = (os.path.abspath(a) for a in sys.argv[1:4])
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        xpb, tfpb = load_protos(proto_dir, tmp)
        progs = sorted(glob.glob(os.path.join(test_dir, "*.tfs")))
        for prog in progs:
            name = os.path.basename(prog)[:-4]
            # each program runs in a fresh folder from a copy of itself, so its sources read "NAME.tfs:LINE"
            # and a program writing relative paths (the seed's logs/func/<stamp>) writes there
            rundir = os.path.join(tmp, name)
            os.makedirs(rundir)
            src = open(prog).read()
            open(os.path.join(rundir, name + ".tfs"), "w").write(src)
            logdir = os.path.join(rundir, "logdir")
            p = subprocess.run([tfs, "run", name + ".tfs", logdir], cwd=rundir, capture_output=True, text=True,
                               timeout=120)
            if not os.path.isdir(logdir):   # the log directory the program chose: the one holding plugins/
                found = glob.glob(os.path.join(rundir, "**", "plugins", "profile"), recursive=True)
                logdir = os.path.dirname(os.path.dirname(found[0])) if len(found) == 1 else logdir
            expect = prog[:-4] + ".expect"
            if os.path.exists(expect):
                src += "\n" + open(expect).read()
            errs = ["exit %d: %s" % (p.returncode, p.stderr)] if p.returncode else \
                check(name, xpb, tfpb, logdir, src)
            print("%s %s" % ("FAIL" if errs else "ok  ", name))
            for e in errs:
                print("   ", e)
            failed += bool(errs)
    print("%d passed, %d failed" % (len(progs) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
