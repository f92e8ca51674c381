#!/usr/bin/env python3
"""board.py — `tfs board` checked in a real browser: headless Chromium loads the report from disk, offline.

tests/board/board_run.tfs writes scalars (two runs), histograms, text, two traced graphs and a profile
into a fresh log directory; `tfs board LOGDIR -o report.html` turns it into one page.  Chromium
(Debian `chromium`) loads file://.../report.html with every host resolving nowhere and a dead proxy,
its own background services off, and a net log of every request it made: the page may request
nothing but its own file.  The rendered DOM (--dump-dom) must hold, against what the log directory
holds (the event files and the .xplane.pb decoded here with proto/*.proto, independently of tfs):
  - one scalar chart per scalar tag (data-tag), each with a smoothed and a raw line per run;
  - one histogram figure per (tag, run), text rows per text summary;
  - one graph figure per GraphDef event or per function graph of a trace_export RunMetadata, whose Graphviz SVG has a node titled with each GraphDef
    node and a cluster per cond/while body (a function-valued attribute naming a library function);
  - the op table: one row per op type of the profile with its event count.
A screenshot is kept in the build folder (board-report.png) for people to look at.  Then
tests/board/plot_model.tfs draws a model with tf.keras.utils.plot_model: the PNG must be a PNG,
the SVG must have a node per layer and an edge per connection.
Exit 77 (skipped) only when Chromium cannot start at all.
usage: board.py TFS PROTO_DIR TEST_DIR OUT_DIR
"""
import glob
import html.parser
import json
import math
import re
import os
import struct
import subprocess
import sys
import tempfile

CHROMIUM_FLAGS = ["--headless", "--disable-gpu", "--no-sandbox", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
                  "--disable-client-side-phishing-detection", "--disable-features=Translate,OptimizationHints,MediaRouter",
                  "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9"]


class Dom(html.parser.HTMLParser):
    """Elements as (tag, attrs, text inside title elements) in document order, with their nesting path."""

    def __init__(self):
        super().__init__()
        self.stack, self.elems, self.titles = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append((tag, a))
        self.elems.append((tag, a, [s for s in self.stack]))

    def handle_startendtag(self, tag, attrs):
        self.elems.append((tag, dict(attrs), list(self.stack) + [(tag, dict(attrs))]))

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] == "title":
            self.titles.append((data, list(self.stack)))


def classes(a):
    return (a.get("class") or "").split()


def events(logdir, tfpb):
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "**", "events.out.tfevents.*"), recursive=True)):
        run = os.path.relpath(os.path.dirname(path), logdir)
        data, pos = open(path, "rb").read(), 0
        while pos < len(data):
            n = struct.unpack("<Q", data[pos:pos + 8])[0]
            e = tfpb.Event()
            e.ParseFromString(data[pos + 12:pos + 12 + n])
            pos += 16 + n
            out.append((run, e))
    return out


def chromium(args, url, tmp, netlog):
    cmd = ["chromium"] + CHROMIUM_FLAGS + ["--user-data-dir=" + os.path.join(tmp, "chromium-profile"),
                                           "--log-net-log=" + netlog] + args + [url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def page_requests(netlog):
    """The URLs the page loaded from file:// asked for (Chromium's own services run in another
    network isolation key; their requests are not the page's)."""
    d = json.load(open(netlog))
    start = d["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return sorted({e["params"]["url"] for e in d["events"] if e["type"] == start and "url" in e.get("params", {})
                   and e["params"].get("network_isolation_key", "").startswith("file://")})


def tb_smooth(ys, w=0.6):
    """TensorBoard's scalar smoothing (its default weight 0.6): a debiased exponential moving average;
    a constant series and non-finite values are left as they are."""
    if all(y == ys[0] for y in ys):
        return list(ys)
    out, last, n = [], 0.0, 0
    for y in ys:
        if not math.isfinite(y):
            out.append(y)
            continue
        last = last * w + (1 - w) * y
        n += 1
        out.append(last / (1 - w ** n))
    return out


def main():
    tfs, proto_dir, test_dir, out_dir = (os.path.abspath(a) for a in sys.argv[1:5])
    errs = []
    with tempfile.TemporaryDirectory() as tmp:
        # the probe: a page with one external image; the net log must show that request, or the check
        # below could not see one either
        probe_page = os.path.join(tmp, "probe.html")
        open(probe_page, "w").write('<p>probe</p><img src="http://tfs-board-probe.invalid/x.png">')
        try:
            probe = chromium(["--dump-dom"], "file://" + probe_page, tmp, os.path.join(tmp, "probe.json"))
        except (OSError, subprocess.TimeoutExpired) as e:
            print("SKIP: chromium cannot run:", e)
            return 77
        if "probe" not in probe.stdout:
            print("SKIP: chromium cannot run:", probe.stderr[-500:])
            return 77
        if page_requests(os.path.join(tmp, "probe.json")) != ["http://tfs-board-probe.invalid/x.png"]:
            print("FAIL the net log does not show the probe page's external request:",
                  page_requests(os.path.join(tmp, "probe.json")))
            return 1
        subprocess.run(["protoc", "-I", proto_dir, "--python_out=" + tmp, os.path.join(proto_dir, "tensorflow.proto"),
                        os.path.join(proto_dir, "xplane.proto")], check=True)
        sys.path.insert(0, tmp)
        import tensorflow_pb2 as tfpb
        import xplane_pb2 as xpb
        logdir = os.path.join(tmp, "logs")
        p = subprocess.run([tfs, "run", os.path.join(test_dir, "board_run.tfs"), logdir], capture_output=True, text=True)
        if p.returncode:
            print("FAIL board_run.tfs:", p.stderr)
            return 1
        report = os.path.join(tmp, "report.html")
        p = subprocess.run([tfs, "board", logdir, "-o", report], capture_output=True, text=True)
        if p.returncode:
            print("FAIL tfs board:", p.stderr)
            return 1
        # what the log directory holds, read here
        evs = events(logdir, tfpb)
        scalar_tags, hist_keys, texts, graphs = set(), set(), 0, []
        series = {}   # (tag, run) -> [(step, value)]
        for run, e in evs:
            if e.WhichOneof("what") == "graph_def":
                g = tfpb.GraphDef()
                g.ParseFromString(e.graph_def)
                graphs.append(g)
            elif e.WhichOneof("what") == "summary":
                for v in e.summary.value:
                    plugin = v.metadata.plugin_data.plugin_name
                    if plugin == "scalars":
                        scalar_tags.add(v.tag)
                        t = tfpb.TensorProto()
                        t.CopyFrom(v.tensor)
                        val = t.float_val[0] if t.float_val else struct.unpack("<f", t.tensor_content[:4])[0]
                        series.setdefault((v.tag, run), []).append((e.step, val))
                    elif plugin == "histograms":
                        hist_keys.add((v.tag, run))
                    elif plugin == "text":
                        texts += 1
                    elif plugin.startswith("graph_run_metadata"):   # trace_export: a RunMetadata in the string tensor
                        rm = tfpb.RunMetadata()
                        rm.ParseFromString(v.tensor.string_val[0])
                        graphs += [fg.pre_optimization_graph for fg in rm.function_graphs]
        op_counts = {}
        for path in glob.glob(os.path.join(logdir, "**", "*.xplane.pb"), recursive=True):
            sp = xpb.XSpace()
            sp.ParseFromString(open(path, "rb").read())
            for pl in sp.planes:
                for ln in pl.lines:
                    for ev in ln.events:
                        t = pl.event_metadata[ev.metadata_id].display_name
                        op_counts[t] = op_counts.get(t, 0) + 1
        if not scalar_tags or not hist_keys or not texts or len(graphs) != 2 or not op_counts:
            errs.append("the log directory lacks what board_run.tfs writes: %r" % [scalar_tags, hist_keys, texts, len(graphs)])
        # the browser: the DOM it rendered, what it requested, a screenshot
        netlog = os.path.join(tmp, "net.json")
        r = chromium(["--dump-dom"], "file://" + report, tmp, netlog)
        if r.returncode or "<html" not in r.stdout:
            errs.append("chromium --dump-dom failed: %s" % r.stderr[-800:])
        others = [u for u in page_requests(netlog) if not u.startswith("file://")]
        if others:
            errs.append("the page requested external resources: %r" % others)
        shot = os.path.join(out_dir, "board-report.png")
        s = chromium(["--screenshot=" + shot, "--window-size=1280,3200", "--hide-scrollbars"], "file://" + report, tmp,
                     os.path.join(tmp, "net2.json"))
        if s.returncode or not os.path.exists(shot) or os.path.getsize(shot) < 20000 or \
                open(shot, "rb").read(8) != b"\x89PNG\r\n\x1a\n":
            errs.append("no screenshot: %s" % s.stderr[-500:])
        dom = Dom()
        dom.feed(r.stdout)
        charts = [(a, path) for t, a, path in dom.elems if t == "figure" and "scalar" in classes(a)]
        if sorted(a["data-tag"] for a, _ in charts) != sorted(scalar_tags):
            errs.append("scalar charts %r, tags %r" % ([a["data-tag"] for a, _ in charts], sorted(scalar_tags)))
        runs_per_tag = {}
        for t, a, path in dom.elems:
            fig = [x for x in path if x[0] == "figure" and "scalar" in classes(x[1])]
            if t == "polyline" and fig:
                runs_per_tag.setdefault(fig[0][1]["data-tag"], []).append(classes(a)[0])
        for tag in scalar_tags:   # two runs (train, validation): a raw and a smoothed line each
            if sorted(runs_per_tag.get(tag, [])) != ["raw", "raw", "smoothed", "smoothed"]:
                errs.append("chart %s lines %r" % (tag, runs_per_tag.get(tag)))
        # each legend's last smoothed value against TensorBoard's smoothing computed here from the events
        for (tag, run), pts in series.items():
            pts.sort()
            want = tb_smooth([v for _, v in pts])[-1]
            fig = r.stdout.split('data-tag="%s"' % tag, 1)[-1].split("</figure>", 1)[0]
            m = re.search(r"</i>%s — last ([-\d.e+]+) \(smoothed ([-\d.e+]+)\) at step (\d+)" % re.escape(run), fig)
            if not m or abs(float(m.group(2)) - want) > 1e-5 * max(1, abs(want)) or int(m.group(3)) != pts[-1][0] \
                    or abs(float(m.group(1)) - pts[-1][1]) > 1e-5 * max(1, abs(pts[-1][1])):
                errs.append("chart %s run %s: legend %r, want last %g smoothed %g" % (tag, run, m and m.group(0), pts[-1][1], want))
        hists = {(a["data-tag"], a["data-run"]) for t, a, _ in dom.elems if t == "figure" and "histogram" in classes(a)}
        if hists != hist_keys:
            errs.append("histograms %r, want %r" % (hists, hist_keys))
        rows = [1 for t, a, path in dom.elems if t == "tr" and any("text-summary" in classes(x[1]) for x in path)]
        if len(rows) != texts + 1:   # + the header row
            errs.append("text rows %d, want %d" % (len(rows) - 1, texts))
        figs = [a for t, a, _ in dom.elems if t == "figure" and "tf-graph" in classes(a)]
        if len(figs) != len(graphs):
            errs.append("graph figures %d, GraphDefs %d" % (len(figs), len(graphs)))
        for k, g in enumerate(graphs):
            in_fig = [d for d, path in dom.titles
                      if any(x[0] == "figure" and "tf-graph" in classes(x[1]) and x[1] is figs[min(k, len(figs) - 1)]
                             for x in path)]
            node_titles = {d for d in in_fig}
            missing = [n.name for n in g.node if n.name not in node_titles]
            if missing:
                errs.append("graph %d: GraphDef nodes not drawn: %r" % (k, missing))
            bodies = sum(1 for n in g.node for v in n.attr.values() if v.WhichOneof("value") == "func")
            clusters = sum(1 for t, a, path in dom.elems if t == "g" and "cluster" in classes(a)
                           and any(x[1] is figs[min(k, len(figs) - 1)] for x in path))
            if clusters != bodies or not bodies:
                errs.append("graph %d: %d clusters for %d cond/while bodies" % (k, clusters, bodies))
        # the cells' text: parse the table rows again as text
        cells = []
        for line in r.stdout.split('<table class="op-table">', 1)[-1].split("</table>", 1)[0].split("<tr>")[2:]:
            cells.append([c.split("</td>")[0] for c in line.split("<td>")[1:]])
        got = {c[0]: int(c[1]) for c in cells if len(c) >= 2}
        if got != op_counts:
            errs.append("op table %r, profile %r" % (got, op_counts))
        # plot_model
        p = subprocess.run([tfs, "run", os.path.join(test_dir, "plot_model.tfs"), tmp], capture_output=True, text=True)
        if p.returncode:
            errs.append("plot_model.tfs: " + p.stderr)
        else:
            if open(os.path.join(tmp, "model.png"), "rb").read(8) != b"\x89PNG\r\n\x1a\n":
                errs.append("model.png is not a PNG")
            svg = open(os.path.join(tmp, "model.svg")).read()
            for layer in ["features", "hidden", "head_a", "head_b"]:
                if layer + ": " not in svg:
                    errs.append("model.svg has no box for layer %s" % layer)
            if svg.count('class="edge"') != 3:
                errs.append("model.svg: %d edges, want 3" % svg.count('class="edge"'))
    for e in errs:
        print("FAIL", e)
    print("%d passed, %d failed" % (0 if errs else 1, 1 if errs else 0))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
