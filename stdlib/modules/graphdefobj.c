/* graphdefobj.c — the GraphDef value of concrete.graph.as_graph_def() (str: text format, SerializeToString: binary) and tf.io.write_graph. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "object/atomicfile.h"
#include "formats/graphdef.h"
#include "modules/modules.h"
#include "modules/nodedefobj.h"
#include "object/object.h"

typedef struct GraphDefObj { Obj hdr; Graph *g; } GraphDefObj;

static const Type graphdef_type;

static void gdo_free(Obj *o) {
  graph_release(((GraphDefObj *)o)->g);
  free(o);
}

static void gdo_text(StrBuf *b, Val v) { graphdef_text(b, ((GraphDefObj *)v.u.o)->g); }

static Val gdo_serialize(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "SerializeToString", .sig = "deterministic=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  size_t len;
  unsigned char *bin = graphdef_pack(((GraphDefObj *)self.u.o)->g, &len);
  Val r = bytes_new(bin, len);
  free(bin);
  return r;
}

/* gd.node: the NodeDefs of the graph's nodes, in the order the text format lists them (a new list each time) */
static void gdo_arena_free(void *a) { pa_free(a); }

static Val gdo_nodes(const GraphDefObj *o) {
  PbArena a = {0};
  int mark = rt_hold_fn(gdo_arena_free, &a);
  Tensorflow__GraphDef *gd = graphdef_build(&a, o->g);
  Val l = list_new((tfs_i64)gd->n_node);
  rt_hold_val(l);
  for (size_t i = 0; i < gd->n_node; i++) {
    Val nd = nodedef_obj_new(gd->node[i], gd->node[i]->name, gd->node[i]->op);
    list_append(l, nd);
    val_decref(nd);
  }
  rt_unhold(mark);
  pa_free(&a);
  return l;
}

static Val gdo_getattr(Val self, const char *name) {
  if (!strcmp(name, "node")) return gdo_nodes((const GraphDefObj *)self.u.o);
  if (!strcmp(name, "SerializeToString")) return builtin_new("GraphDef.SerializeToString", gdo_serialize, self, NULL);
  return val_undef();
}

static const Type graphdef_type = {
  .name = "GraphDef", .free = gdo_free, .repr = gdo_text, .str = gdo_text, .getattr = gdo_getattr,
  .hash = obj_identity_hash,
};

struct Graph *graphdef_obj_graph(Val v) { return val_is(v, &graphdef_type) ? ((GraphDefObj *)v.u.o)->g : NULL; }

Val graphdef_obj_new(struct Graph *g) {
  GraphDefObj *o = obj_new(&graphdef_type, sizeof(GraphDefObj));
  o->g = graph_retain(g);
  return val_obj(o);
}

/* tf.io.write_graph(graph_or_graph_def, logdir, name, as_text=True): the directory must exist
 * (TF creates it; a missing parent is NotFound); written whole or not at all. */
//! tf.io.write_graph(graph_or_graph_def, logdir, name, as_text=True)
//!   Writes a GraphDef (or a graph) to logdir/name as protobuf text or binary, atomically; returns the path.
static Val io_write_graph(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.io.write_graph", .sig = "graph_or_graph_def, logdir, name, as_text=True"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  Graph *g = val_is(a[0], &graphdef_type) ? ((GraphDefObj *)a[0].u.o)->g : funcgraph_of(a[0]);   /* TF: a Graph too */
  if (!g)
    rt_throw(ERR_TYPE, "tf.io.write_graph: expected a GraphDef or a graph (concrete_function.graph), got %s",
             val_type_name(a[0]));
  if (!val_is(a[1], &str_type) || !val_is(a[2], &str_type))
    rt_throw(ERR_TYPE, "tf.io.write_graph: logdir and name must be strings");
  const char *dir = str_cstr(a[1]);
  struct stat st;
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    rt_throw(errno == ENOENT ? ERR_NOT_FOUND : ERR_IO, "tf.io.write_graph: cannot create directory '%s': %s", dir,
             strerror(errno));
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    rt_throw(ERR_IO, "tf.io.write_graph: '%s' is not a directory", dir);
  StrBuf path;
  sb_init(&path);
  sb_printf(&path, "%s/%s", dir, str_cstr(a[2]));
  int mark = rt_hold_sb(&path);
  int e;
  if (rt_truthy(a[3])) {
    StrBuf t;
    sb_init(&t);
    graphdef_text(&t, g);
    e = af_write(path.data, t.data ? t.data : "", t.len);
    sb_free(&t);
  } else {
    size_t len;
    unsigned char *bin = graphdef_pack(g, &len);
    e = af_write(path.data, bin, len);
    free(bin);
  }
  if (e) rt_throw(e == ENOENT ? ERR_NOT_FOUND : ERR_IO, "tf.io.write_graph: cannot write '%s': %s", path.data, strerror(e));
  Val r = str_new(path.data, (tfs_i64)path.len);
  rt_unhold(mark);
  sb_free(&path);
  return r;
}

Val tfio_lookup(const char *name) {
  if (!strcmp(name, "write_graph")) return builtin_new("tf.io.write_graph", io_write_graph, val_undef(), NULL);
  return val_undef();
}
