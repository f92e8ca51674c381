/* boardhtml.c — the `tfs board` report: one HTML page with inline SVG charts, graphs and profiles, no script and no external resource. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gvrender.h"
#include "modules/board.h"

enum { CH_W = 520, CH_H = 260, CH_L = 64, CH_R = 12, CH_T = 12, CH_B = 34 };
#define BD_SMOOTHING 0.6   /* TensorBoard's default smoothing weight */

static const char *const bd_palette[] = {"#ff7043", "#0077bb", "#009988", "#ee3377", "#33bbee",
                                         "#cc3311", "#8e24aa", "#43a047", "#fdd835", "#6d4c41"};
enum { BD_NPAL = sizeof bd_palette / sizeof bd_palette[0] };

static void esc(StrBuf *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '<': sb_puts(b, "&lt;"); break;
      case '>': sb_puts(b, "&gt;"); break;
      case '&': sb_puts(b, "&amp;"); break;
      case '"': sb_puts(b, "&quot;"); break;
      default: sb_putc(b, *s);
    }
  }
}

/* TensorBoard's smoothing: a debiased exponential moving average (the first points are not pulled
 * towards 0); a constant series and non-finite points are kept as they are. */
void board_smooth(const double *y, int n, double w, double *out) {
  bool constant = true;
  for (int i = 1; i < n; i++) constant = constant && y[i] == y[0];
  double last = 0;
  int acc = 0;
  for (int i = 0; i < n; i++) {
    if (constant || !isfinite(y[i])) {
      out[i] = y[i];
      continue;
    }
    last = last * w + (1 - w) * y[i];
    acc++;
    out[i] = last / (w == 1 ? 1 : 1 - pow(w, acc));
  }
}

/* "Nice" tick values over [lo, hi]: about 5, at 1/2/5 x 10^k. */
static int bd_ticks(double lo, double hi, double *t) {
  double span = hi - lo, step = pow(10, floor(log10(span / 5)));
  if (span / step > 25) step *= 5;
  else if (span / step > 10) step *= 2;
  int n = 0;
  for (double v = ceil(lo / step) * step; v <= hi + step * 1e-9 && n < 16; v += step) t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
  return n;
}

typedef struct BdFrame { double x0, x1, y0, y1; } BdFrame;

static double fx(const BdFrame *f, double x) { return CH_L + (x - f->x0) / (f->x1 - f->x0) * (CH_W - CH_L - CH_R); }
static double fy(const BdFrame *f, double y) { return CH_T + (f->y1 - y) / (f->y1 - f->y0) * (CH_H - CH_T - CH_B); }

static void bd_frame_fix(BdFrame *f) {
  if (!(f->x1 > f->x0)) f->x0 -= 1, f->x1 += 1;
  if (!(f->y1 > f->y0)) {
    double d = fabs(f->y0) > 0 ? fabs(f->y0) * 0.1 : 1;
    f->y0 -= d, f->y1 += d;
  }
}

static void bd_axes(StrBuf *b, const BdFrame *f, const char *xlabel) {
  double t[16];
  int n = bd_ticks(f->y0, f->y1, t);
  for (int i = 0; i < n; i++)
    sb_printf(b, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/><text class=\"tick\" x=\"%d\" y=\"%.1f\" "
                 "text-anchor=\"end\">%.4g</text>",
              CH_L, CH_W - CH_R, fy(f, t[i]), fy(f, t[i]), CH_L - 4, fy(f, t[i]) + 4, t[i]);
  n = bd_ticks(f->x0, f->x1, t);
  for (int i = 0; i < n; i++)
    sb_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.4g</text>", fx(f, t[i]), CH_H - CH_B + 14,
              t[i]);
  sb_printf(b, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", CH_L, CH_T, CH_W - CH_L - CH_R,
            CH_H - CH_T - CH_B);
  sb_printf(b, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>", (CH_L + CH_W - CH_R) / 2, CH_H - 4,
            xlabel);
}

/* Distinct strings of an array of records, in first-seen order (tags, runs). */
typedef struct BdNames { const char **v; int n, cap; } BdNames;

static int bd_name_add(BdNames *s, const char *x) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->v[i], x)) return i;
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 8;
    s->v = realloc(s->v, sizeof(char *) * (size_t)s->cap);
  }
  s->v[s->n] = x;
  return s->n++;
}

static int bd_by_step(const void *a, const void *b) {
  const BdScalar *x = a, *y = b;
  return x->step < y->step ? -1 : x->step > y->step;
}

static void bd_scalars(StrBuf *b, const Board *bd) {
  BdNames tags = {0}, runs = {0};
  for (int i = 0; i < bd->nscalars; i++) bd_name_add(&tags, bd->scalars[i].tag), bd_name_add(&runs, bd->scalars[i].run);
  sb_printf(b, "<section id=\"scalars\"><h2>Scalars</h2>\n<p class=\"note\">Smoothing %.1f (TensorBoard's debiased "
               "exponential moving average); the faint line is the raw value.</p>\n", BD_SMOOTHING);
  for (int t = 0; t < tags.n; t++) {
    BdScalar *pts = malloc(sizeof(BdScalar) * (size_t)(bd->nscalars + 1));
    double *ys = malloc(sizeof(double) * (size_t)(bd->nscalars + 1)), *sm = malloc(sizeof(double) * (size_t)(bd->nscalars + 1));
    BdFrame f = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (int i = 0; i < bd->nscalars; i++) {
      const BdScalar *p = &bd->scalars[i];
      if (strcmp(p->tag, tags.v[t])) continue;
      if (p->step < f.x0) f.x0 = (double)p->step;
      if (p->step > f.x1) f.x1 = (double)p->step;
      if (isfinite(p->v) && p->v < f.y0) f.y0 = p->v;
      if (isfinite(p->v) && p->v > f.y1) f.y1 = p->v;
    }
    bd_frame_fix(&f);
    sb_puts(b, "<figure class=\"chart scalar\" data-tag=\"");
    esc(b, tags.v[t]);
    sb_puts(b, "\"><figcaption>");
    esc(b, tags.v[t]);
    sb_printf(b, "</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">", CH_W,
              CH_H, CH_W, CH_H);
    bd_axes(b, &f, "step");
    StrBuf legend;
    sb_init(&legend);
    for (int r = 0; r < runs.n; r++) {
      int n = 0;
      for (int i = 0; i < bd->nscalars; i++)
        if (!strcmp(bd->scalars[i].tag, tags.v[t]) && !strcmp(bd->scalars[i].run, runs.v[r])) pts[n++] = bd->scalars[i];
      if (!n) continue;
      qsort(pts, (size_t)n, sizeof *pts, bd_by_step);
      for (int i = 0; i < n; i++) ys[i] = pts[i].v;
      board_smooth(ys, n, BD_SMOOTHING, sm);
      const char *col = bd_palette[r % BD_NPAL];
      for (int pass = 0; pass < 2; pass++) {
        const double *v = pass ? sm : ys;
        sb_printf(b, "<polyline class=\"%s\" stroke=\"%s\" points=\"", pass ? "smoothed" : "raw", col);
        for (int i = 0; i < n; i++)
          if (isfinite(v[i])) sb_printf(b, "%.1f,%.1f ", fx(&f, (double)pts[i].step), fy(&f, v[i]));
        sb_puts(b, "\"><title>");
        esc(b, runs.v[r]);
        sb_puts(b, "</title></polyline>");
      }
      sb_printf(&legend, "<span class=\"run\"><i style=\"background:%s\"></i>", col);
      esc(&legend, runs.v[r]);
      sb_printf(&legend, " — last %.6g (smoothed %.6g) at step %lld</span>", ys[n - 1], sm[n - 1], (long long)pts[n - 1].step);
    }
    sb_puts(b, "</svg><div class=\"legend\">");
    if (legend.data) sb_puts(b, legend.data);
    sb_puts(b, "</div></figure>\n");
    sb_free(&legend);
    free(pts);
    free(ys);
    free(sm);
  }
  sb_puts(b, "</section>\n");
  free(tags.v);
  free(runs.v);
}

/* Each tag and run: the histograms of up to 10 steps as offset ridges (the newest in front), as TensorBoard's offset view. */
static void bd_histograms(StrBuf *b, const Board *bd) {
  BdNames keys = {0};
  StrBuf k;
  sb_init(&k);
  char **owned = malloc(sizeof(char *) * (size_t)(bd->nhists + 1));
  int nowned = 0;
  for (int i = 0; i < bd->nhists; i++) {
    k.len = 0;
    sb_printf(&k, "%s\x1f%s", bd->hists[i].tag, bd->hists[i].run);
    int before = keys.n;
    char *s = strdup(k.data);
    bd_name_add(&keys, s);
    if (keys.n > before) owned[nowned++] = s;
    else free(s);
  }
  sb_free(&k);
  sb_puts(b, "<section id=\"histograms\"><h2>Histograms</h2>\n");
  for (int h = 0; h < keys.n; h++) {
    const char *sep = strchr(keys.v[h], '\x1f');
    int idx[10], n = 0;
    BdFrame f = {INFINITY, -INFINITY, 0, 0};
    for (int i = bd->nhists - 1; i >= 0 && n < 10; i--) {
      const BdHist *x = &bd->hists[i];
      if (strncmp(x->tag, keys.v[h], (size_t)(sep - keys.v[h])) || x->tag[sep - keys.v[h]] || strcmp(x->run, sep + 1)) continue;
      idx[n++] = i;
      for (int j = 0; j < x->nb; j++) {
        if (x->v[3 * j] < f.x0) f.x0 = x->v[3 * j];
        if (x->v[3 * j + 1] > f.x1) f.x1 = x->v[3 * j + 1];
        if (x->v[3 * j + 2] > f.y1) f.y1 = x->v[3 * j + 2];
      }
    }
    bd_frame_fix(&f);
    double ridge = (CH_H - CH_T - CH_B) * 0.5 / (n > 1 ? n - 1 : 1);
    sb_puts(b, "<figure class=\"chart histogram\" data-tag=\"");
    sb_putn(b, keys.v[h], (size_t)(sep - keys.v[h]));
    sb_puts(b, "\" data-run=\"");
    esc(b, sep + 1);
    sb_puts(b, "\"><figcaption>");
    sb_putn(b, keys.v[h], (size_t)(sep - keys.v[h]));
    sb_puts(b, " <small>(");
    esc(b, sep + 1);
    sb_printf(b, ")</small></figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">",
              CH_W, CH_H, CH_W, CH_H);
    double t[16];
    int nt = bd_ticks(f.x0, f.x1, t);
    for (int i = 0; i < nt; i++)
      sb_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.4g</text>", fx(&f, t[i]), CH_H - CH_B + 14,
                t[i]);
    for (int r = n - 1; r >= 0; r--) {   /* oldest at the back (top), newest in front */
      const BdHist *x = &bd->hists[idx[r]];
      double off = r * ridge * -1.0 + 0;
      sb_printf(b, "<polygon class=\"ridge\" style=\"fill-opacity:%.2f\" points=\"%.1f,%.1f ", 0.25 + 0.6 * (n - r) / n,
                fx(&f, x->nb ? x->v[0] : 0), fy(&f, 0) + off);
      for (int j = 0; j < x->nb; j++)
        sb_printf(b, "%.1f,%.1f ", fx(&f, (x->v[3 * j] + x->v[3 * j + 1]) / 2),
                  fy(&f, x->v[3 * j + 2]) * 0.5 + fy(&f, 0) * 0.5 + off);
      sb_printf(b, "%.1f,%.1f\"><title>step %lld</title></polygon>", fx(&f, x->nb ? x->v[3 * x->nb - 2] : 0), fy(&f, 0) + off,
                (long long)x->step);
      sb_printf(b, "<text class=\"tick\" x=\"%d\" y=\"%.1f\">%lld</text>", CH_W - CH_R - 30, fy(&f, 0) + off - 2,
                (long long)x->step);
    }
    sb_puts(b, "</svg></figure>\n");
  }
  sb_puts(b, "</section>\n");
  for (int i = 0; i < nowned; i++) free(owned[i]);
  free(owned);
  free(keys.v);
}

static void bd_texts(StrBuf *b, const Board *bd) {
  BdNames tags = {0};
  for (int i = 0; i < bd->ntexts; i++) bd_name_add(&tags, bd->texts[i].tag);
  sb_puts(b, "<section id=\"text\"><h2>Text</h2>\n");
  for (int t = 0; t < tags.n; t++) {
    sb_puts(b, "<div class=\"text-summary\" data-tag=\"");
    esc(b, tags.v[t]);
    sb_puts(b, "\"><h3>");
    esc(b, tags.v[t]);
    sb_puts(b, "</h3><table><tr><th>run</th><th>step</th><th>text</th></tr>");
    for (int i = 0; i < bd->ntexts; i++) {
      const BdText *x = &bd->texts[i];
      if (strcmp(x->tag, tags.v[t])) continue;
      sb_puts(b, "<tr><td>");
      esc(b, x->run);
      sb_printf(b, "</td><td>%lld</td><td><pre>", (long long)x->step);
      esc(b, x->text);
      sb_puts(b, "</pre></td></tr>");
    }
    sb_puts(b, "</table></div>\n");
  }
  sb_puts(b, "</section>\n");
  free(tags.v);
}

/* Graphviz's SVG without its XML prolog and DOCTYPE (which names an external DTD): from "<svg" on. */
static void bd_inline_svg(StrBuf *b, const char *svg) {
  const char *s = strstr(svg, "<svg");
  sb_puts(b, s ? s : svg);
}

static void bd_graphs(StrBuf *b, const Board *bd) {
  sb_puts(b, "<section id=\"graphs\"><h2>Graphs</h2>\n");
  for (int i = 0; i < bd->ngraphs; i++) {
    const BdGraph *g = &bd->graphs[i];
    StrBuf dot;
    sb_init(&dot);
    board_graph_dot(&dot, g->gd);
    size_t len;
    const char *err = NULL;
    char *svg = gv_render(dot.data, "svg", &len, &err);
    sb_puts(b, "<figure class=\"tf-graph\" data-run=\"");
    esc(b, g->run);
    sb_printf(b, "\" data-step=\"%lld\" data-nodes=\"%zu\"><figcaption>", (long long)g->step, g->gd->n_node);
    esc(b, g->run);
    sb_printf(b, ", step %lld: %zu nodes, %zu functions</figcaption>", (long long)g->step, g->gd->n_node,
              g->gd->library ? g->gd->library->n_function : 0);
    if (svg) bd_inline_svg(b, svg);
    else sb_printf(b, "<p class=\"error\">%s</p>", err);
    sb_puts(b, "</figure>\n");
    free(svg);
    sb_free(&dot);
  }
  sb_puts(b, "</section>\n");
}

/* ---- profiles -------------------------------------------------------------------------------- */

typedef struct BdOp { const char *type; long long count; double total_us, self_us; } BdOp;

static int bd_by_total(const void *a, const void *b) {
  const BdOp *x = a, *y = b;
  return x->total_us < y->total_us ? 1 : x->total_us > y->total_us ? -1 : strcmp(x->type, y->type);
}

static const Tensorflow__Profiler__XEventMetadata *bd_meta(const Tensorflow__Profiler__XPlane *pl, int64_t id) {
  for (size_t i = 0; i < pl->n_event_metadata; i++)
    if (pl->event_metadata[i]->key == id) return pl->event_metadata[i]->value;
  return NULL;
}

/* The op type an event stands for: its metadata's display name (the op), else its name. */
static const char *bd_type(const Tensorflow__Profiler__XEventMetadata *m) {
  if (!m) return "?";
  return m->display_name && *m->display_name ? m->display_name : m->name;
}

static void bd_profile(StrBuf *b, const BdProfile *p) {
  sb_puts(b, "<div class=\"profile\" data-run=\"");
  esc(b, p->run);
  sb_puts(b, "\"><h3>");
  esc(b, p->run);
  sb_puts(b, "</h3>");
  for (size_t pi = 0; pi < p->space->n_planes; pi++) {
    const Tensorflow__Profiler__XPlane *pl = p->space->planes[pi];
    BdOp *ops = NULL;
    int nops = 0, cap = 0;
    long long nev = 0;
    double span_us = 0;
    for (size_t li = 0; li < pl->n_lines; li++) {
      const Tensorflow__Profiler__XLine *ln = pl->lines[li];
      if (ln->duration_ps / 1e6 > span_us) span_us = ln->duration_ps / 1e6;
      for (size_t ei = 0; ei < ln->n_events; ei++) {
        const Tensorflow__Profiler__XEvent *e = ln->events[ei];
        const char *type = bd_type(bd_meta(pl, e->metadata_id));
        double dur = e->duration_ps / 1e6, child = 0;
        /* self time: minus the events nested directly inside (a cond's body, the ops in a Trace range) */
        int64_t end = e->offset_ps + e->duration_ps, cover = e->offset_ps;
        for (size_t j = ei + 1; j < ln->n_events && ln->events[j]->offset_ps < end; j++) {
          const Tensorflow__Profiler__XEvent *c = ln->events[j];
          if (c->offset_ps >= cover) {
            child += c->duration_ps / 1e6;
            cover = c->offset_ps + c->duration_ps;
          }
        }
        int k = 0;
        while (k < nops && strcmp(ops[k].type, type)) k++;
        if (k == nops) {
          if (nops == cap) ops = realloc(ops, sizeof(BdOp) * (size_t)(cap = cap ? 2 * cap : 16));
          ops[nops++] = (BdOp){type, 0, 0, 0};
        }
        ops[k].count++;
        ops[k].total_us += dur;
        ops[k].self_us += dur - child > 0 ? dur - child : 0;
        nev++;
      }
    }
    qsort(ops, (size_t)nops, sizeof *ops, bd_by_total);
    double self_all = 0;
    for (int k = 0; k < nops; k++) self_all += ops[k].self_us;
    sb_puts(b, "<h4>");
    esc(b, pl->name ? pl->name : "");
    sb_printf(b, ": %lld events over %.1f µs</h4>", nev, span_us);
    sb_puts(b, "<table class=\"op-table\"><tr><th>op</th><th>count</th><th>total µs</th><th>self µs</th><th>avg µs</th>"
               "<th>self %</th></tr>");
    for (int k = 0; k < nops; k++) {
      sb_puts(b, "<tr><td>");
      esc(b, ops[k].type);
      sb_printf(b, "</td><td>%lld</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.1f</td></tr>", ops[k].count, ops[k].total_us,
                ops[k].self_us, ops[k].total_us / (double)ops[k].count, self_all > 0 ? 100 * ops[k].self_us / self_all : 0);
    }
    sb_puts(b, "</table>");
    /* the timeline: a row per line, a bar per event (nested events one level lower), up to 5000 bars */
    int rows = 0;
    for (size_t li = 0; li < pl->n_lines; li++) rows += 4;
    int W = 960, rowh = 14, H = 24 + rows * rowh;
    sb_printf(b, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">",
              W, H, W, H);
    double scale = span_us > 0 ? (W - 120) / span_us : 1;
    long long drawn = 0;
    int y0 = 18;
    for (size_t li = 0; li < pl->n_lines; li++) {
      const Tensorflow__Profiler__XLine *ln = pl->lines[li];
      sb_printf(b, "<text class=\"tick\" x=\"2\" y=\"%d\">", y0 + 10);
      esc(b, ln->name ? ln->name : "");
      sb_puts(b, "</text>");
      int64_t ends[4] = {0, 0, 0, 0};
      for (size_t ei = 0; ei < ln->n_events && drawn < 5000; ei++, drawn++) {
        const Tensorflow__Profiler__XEvent *e = ln->events[ei];
        int depth = 0;
        while (depth < 3 && ends[depth] > e->offset_ps) depth++;
        ends[depth] = e->offset_ps + e->duration_ps;
        for (int d = depth + 1; d < 4; d++) ends[d] = 0;
        const char *type = bd_type(bd_meta(pl, e->metadata_id));
        unsigned h = 5381;
        for (const char *s = type; *s; s++) h = h * 33 + (unsigned char)*s;
        double x = 110 + e->offset_ps / 1e6 * scale, w = e->duration_ps / 1e6 * scale;
        sb_printf(b, "<rect class=\"ev\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>", x,
                  y0 + depth * rowh, w < 0.5 ? 0.5 : w, rowh - 2, bd_palette[h % BD_NPAL]);
        const Tensorflow__Profiler__XEventMetadata *m = bd_meta(pl, e->metadata_id);
        esc(b, m && m->name ? m->name : type);
        sb_printf(b, " %.3f µs</title></rect>", e->duration_ps / 1e6);
      }
      y0 += 4 * rowh;
    }
    sb_printf(b, "<text class=\"axis\" x=\"110\" y=\"12\">0 µs</text><text class=\"axis\" x=\"%d\" y=\"12\" "
                 "text-anchor=\"end\">%.1f µs</text></svg>", W - 10, span_us);
    free(ops);
  }
  sb_puts(b, "</div>\n");
}

static const char bd_css[] =
  "body{font:14px/1.4 sans-serif;margin:16px 24px;color:#212121;background:#fafafa}"
  "h1{font-size:20px}h2{font-size:17px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:28px}"
  "figure{display:inline-block;vertical-align:top;margin:8px;padding:8px;background:#fff;border:1px solid #e0e0e0}"
  "figcaption{font-weight:bold;margin-bottom:4px}.note{color:#666;font-size:12px}"
  ".grid{stroke:#eee}.frame{fill:none;stroke:#bbb}.tick,.axis{font-size:10px;fill:#555}"
  ".raw{fill:none;stroke-width:1;stroke-opacity:.3}.smoothed{fill:none;stroke-width:2}"
  ".ridge{fill:#ff7043;stroke:#bf360c;stroke-width:.5}.legend{font-size:12px}.run{display:block}"
  ".run i{display:inline-block;width:10px;height:10px;margin-right:4px}"
  "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}"
  "th{background:#f0f0f0}pre{margin:0;white-space:pre-wrap}.tf-graph svg{max-width:100%;height:auto}"
  ".ev{stroke:#fff;stroke-width:.3}.profile{background:#fff;border:1px solid #e0e0e0;padding:8px;margin:8px 0}";

void board_html(StrBuf *b, const Board *bd) {
  sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tfs board: ");
  esc(b, bd->logdir);
  sb_printf(b, "</title><style>%s</style></head><body>\n<h1>tfs board: ", bd_css);
  esc(b, bd->logdir);
  sb_puts(b, "</h1>\n");
  if (bd->nscalars) bd_scalars(b, bd);
  if (bd->nhists) bd_histograms(b, bd);
  if (bd->ntexts) bd_texts(b, bd);
  if (bd->ngraphs) bd_graphs(b, bd);
  if (bd->nprofiles) {
    sb_puts(b, "<section id=\"profile\"><h2>Profile</h2>\n");
    for (int i = 0; i < bd->nprofiles; i++) bd_profile(b, &bd->profiles[i]);
    sb_puts(b, "</section>\n");
  }
  if (!bd->nscalars && !bd->nhists && !bd->ntexts && !bd->ngraphs && !bd->nprofiles)
    sb_puts(b, "<p class=\"empty\">No event files or profiles in this directory.</p>\n");
  sb_puts(b, "</body></html>\n");
}
