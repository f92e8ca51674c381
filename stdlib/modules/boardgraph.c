/* boardgraph.c — a GraphDef as Graphviz DOT for `tfs board`: ops coloured by type, cond/while bodies drawn as clusters. */
#include <stdio.h>
#include <string.h>

#include "modules/board.h"

static const char *const bg_fill[] = {"#ffccbc", "#bbdefb", "#c8e6c9", "#f8bbd0", "#b2ebf2",
                                      "#ffe0b2", "#d1c4e9", "#dcedc8", "#fff9c4", "#d7ccc8"};

/* A DOT double-quoted string. */
static void bg_q(StrBuf *b, const char *s) {
  sb_putc(b, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') sb_putc(b, '\\');
    sb_putc(b, *s);
  }
  sb_putc(b, '"');
}

static const char *bg_color(const char *op) {
  if (!strcmp(op, "Placeholder") || !strcmp(op, "Const") || !strcmp(op, "Identity") || !strcmp(op, "NoOp")) return "#eeeeee";
  unsigned h = 5381;
  for (const char *s = op; *s; s++) h = h * 33 + (unsigned char)*s;
  return bg_fill[h % (sizeof bg_fill / sizeof bg_fill[0])];
}

static const Tensorflow__FunctionDef *bg_fn(const Tensorflow__GraphDef *gd, const char *name) {
  if (!gd->library) return NULL;
  for (size_t i = 0; i < gd->library->n_function; i++) {
    const Tensorflow__FunctionDef *f = gd->library->function[i];
    if (f->signature && f->signature->name && !strcmp(f->signature->name, name)) return f;
  }
  return NULL;
}

static int bg_cluster;   /* clusters drawn so far: unique cluster ids */

static void bg_nodes(StrBuf *b, const Tensorflow__GraphDef *gd, const char *prefix, Tensorflow__NodeDef *const *nodes,
                     size_t n, int depth);

/* The body functions a control-flow node names (then/else, cond/body) as clusters, linked to the node. */
static void bg_bodies(StrBuf *b, const Tensorflow__GraphDef *gd, const char *prefix, const Tensorflow__NodeDef *nd, int depth) {
  for (size_t a = 0; a < nd->n_attr; a++) {
    const Tensorflow__AttrValue *v = nd->attr[a]->value;
    if (!v || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_FUNC || !v->func || !v->func->name) continue;
    const Tensorflow__FunctionDef *f = bg_fn(gd, v->func->name);
    if (!f || depth > 8) continue;
    int id = bg_cluster++;
    char sub[512];
    snprintf(sub, sizeof sub, "%s%s/%s/", prefix, nd->name, nd->attr[a]->key);
    sb_printf(b, "subgraph cluster_%d {\nlabel=", id);
    bg_q(b, v->func->name);
    sb_puts(b, "; style=\"dashed,rounded\"; color=\"#9e9e9e\"; fontsize=10;\n");
    /* an anchor for the edge from the control-flow node (compound edges end at the cluster's border) */
    sb_printf(b, "\"anchor_%d\" [shape=point, width=0.05, label=\"\"];\n", id);
    bg_nodes(b, gd, sub, f->node_def, f->n_node_def, depth + 1);
    sb_puts(b, "}\n");
    StrBuf from;
    sb_init(&from);
    sb_printf(&from, "%s%s", prefix, nd->name);
    bg_q(b, from.data);
    sb_printf(b, " -> \"anchor_%d\" [style=dashed, color=\"#9e9e9e\", lhead=cluster_%d, label=", id, id);
    bg_q(b, nd->attr[a]->key);
    sb_puts(b, ", fontsize=9];\n");
    sb_free(&from);
  }
}

/* Nodes and data edges (inputs "name", "name:k" or a body's "name:out:k"; "^name" a control edge). */
static void bg_nodes(StrBuf *b, const Tensorflow__GraphDef *gd, const char *prefix, Tensorflow__NodeDef *const *nodes,
                     size_t n, int depth) {
  StrBuf id;
  sb_init(&id);
  for (size_t i = 0; i < n; i++) {
    const Tensorflow__NodeDef *nd = nodes[i];
    id.len = 0;
    sb_printf(&id, "%s%s", prefix, nd->name);
    bg_q(b, id.data);
    sb_puts(b, " [label=");
    StrBuf lab;
    sb_init(&lab);
    if (strcmp(nd->name, nd->op)) sb_printf(&lab, "%s\n%s", nd->name, nd->op);
    else sb_puts(&lab, nd->op);   /* "MatMul" named after its op: once */
    bg_q(b, lab.data);
    sb_free(&lab);
    sb_printf(b, ", fillcolor=\"%s\"];\n", bg_color(nd->op));
  }
  for (size_t i = 0; i < n; i++) {
    const Tensorflow__NodeDef *nd = nodes[i];
    for (size_t k = 0; k < nd->n_input; k++) {
      const char *in = nd->input[k];
      bool ctrl = in[0] == '^';
      if (ctrl) in++;
      size_t len = strcspn(in, ":");
      bool known = false;   /* a body's arguments are not nodes: no edge */
      for (size_t j = 0; j < n && !known; j++) known = strlen(nodes[j]->name) == len && !strncmp(nodes[j]->name, in, len);
      if (!known) continue;
      id.len = 0;
      sb_printf(&id, "%s%.*s", prefix, (int)len, in);
      bg_q(b, id.data);
      sb_puts(b, " -> ");
      id.len = 0;
      sb_printf(&id, "%s%s", prefix, nd->name);
      bg_q(b, id.data);
      sb_puts(b, ctrl ? " [style=dotted];\n" : ";\n");
    }
    bg_bodies(b, gd, prefix, nd, depth);
  }
  sb_free(&id);
}

void board_graph_dot(StrBuf *b, const Tensorflow__GraphDef *gd) {
  bg_cluster = 0;
  sb_puts(b, "digraph G {\ncompound=true; rankdir=TB; bgcolor=\"transparent\";\n"
             "node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10, color=\"#616161\"];\n"
             "edge [color=\"#757575\", arrowsize=0.6];\n");
  bg_nodes(b, gd, "", gd->node, gd->n_node, 0);
  sb_puts(b, "}\n");
}
