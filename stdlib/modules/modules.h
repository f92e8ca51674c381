/* modules.h — what the stdlib's C files share: the tf and ag modules, native modules, tf submodule lookups. */
#ifndef TFS_MODULES_H
#define TFS_MODULES_H

#include "object/object.h"
#include "object/hosttypes.h"
#include "formats/npyfile.h"

/* The `tf` and `ag` modules (owned references), provided by their own files. */
Val tf_module(void);
Val kerasrt_module(void);   /* `_keras`: native helpers of stdlib/keras*.tfs */
Val numpy_native_module(void);   /* `_numpy`: native helpers of stdlib/numpy.tfs (npmod.c) */
struct MtState;
struct MtState *npm_mt_state(Val v);   /* the legacy MT19937 state of a `_numpy` state object, seeded on first use */
Val npm_mt_attr(const char *name);     /* `_numpy`'s legacy distribution helpers (npmtdist.c), VT_UNDEF when absent */
Val distmod_module(void);   /* `_dist`: the MPI job's collectives for stdlib/distribute.tfs */
Val tfdata_internal_module(void);   /* `_tfdata`: counters of the tf.data runtime for tests (dsparmap.c) */
/* tf.train.NAME (checkpoint.c), VT_UNDEF when absent. */
Val checkpoint_lookup(const char *name);
/* tf.saved_model.NAME (savedmodel.c), VT_UNDEF when absent. */
Val savedmodel_lookup(const char *name);
/* tf.<qual> ("keras.datasets"), or VT_UNDEF: the fallback of stdlib .tfs modules standing for tf submodules. */
Val tfmod_lookup(const char *qual);
Val ag_module(void);
/* ag.ret (agmod.c) and the names of TF's converted-code layout (agscope.c). */
Val ag_ret(Val self, int n, const Val *args, const Kw *kw);
Val ag_FunctionScope(Val self, int n, const Val *args, const Kw *kw);
Val ag_ConversionOptions(Val self, int n, const Val *args, const Kw *kw);
Val ag_ld(Val self, int n, const Val *args, const Kw *kw);
void ag_check_defined(Val v);   /* raises UnboundLocalError for an ag.Undefined (agmod.c) */
Val ag_autograph_artifact(Val self, int n, const Val *args, const Kw *kw);
Val ag_converted_call(Val self, int n, const Val *args, const Kw *kw);
/* range(t) with a traced tensor t: tf.range(...) (agmod.c); VT_UNDEF when no argument is traced. */
Val ag_range_tensor(int n, const Val *args);
/* ag.for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts) called from C (agmod.c):
 * Dataset.reduce while tracing loops over the dataset as AutoGraph's dataset loop. */
Val ag_for_stmt_call(int n, const Val *args);
/* enumerate(t, start) / zip(t1, ...) with a traced tensor among the sources
 * while tracing: a staged iterable that ag.for_stmt makes a graph loop
 * (agmod.c); VT_UNDEF otherwise. */
Val ag_staged_iter(bool is_zip, int n, const Val *args, Val start);

/* Native stdlib modules (`time`, `timeit`) for imports with no .tfs file of
 * that name; VT_UNDEF when unknown. */
Val stdlib_native_module(const char *name);
void native_noargs(const char *what, int n, const Kw *kw);   /* TypeError unless called with no arguments (timemod.c) */
Val gcmod_module(void);                          /* `gc` (gcmod.c) */
Val mathmod_module(void);                        /* `math` (mathmod.c) */
Val osmod_module(void);                          /* `_os`, the POSIX calls of os.tfs, io.tfs, ... (osmod.c) */
Val tfctl_module(void);                          /* `_tfctl`, tf.control_dependencies blocks of tfcore_ops.tfs (tfoperation.c) */
Val hashmod_module(void);                        /* `_hashlib`, OpenSSL's digests for hashlib.tfs (hashmod.c) */
Val gzmod_module(void);                          /* `_gzip`, zlib's gzip files of gzip.tfs (gzmod.c) */
Val examplemod_module(void);                      /* `_example`, tf.train.Example's wire form for tfcore_example.tfs (examplemod.c) */
Val h5mod_module(void);                          /* `_h5`, libhdf5 files for keras_saving.tfs (h5mod.c) */
Val zipmod_module(void);                         /* `_zip`, libzip archives for keras_saving.tfs (zipmod.c) */
Val kmetamod_module(void);                       /* `_kmeta`, keras_metadata.pb for keras_saving.tfs (kmetamod.c) */
Val dsnapmod_module(void);                       /* `_dsnap`, tf.data save/snapshot protos for tfdatasave.tfs (dsnapmod.c) */
Val remod_module(void);                          /* `_re`, the PCRE2 patterns of re.tfs (remod.c) */
Val randmod_module(void);                        /* `_random`, the generators of random.tfs (randmod.c) */

/* tf.summary.NAME (summary.c) and tf.io.NAME (graphdefobj.c); VT_UNDEF when unknown. */
Val summary_lookup(const char *name);
Val profiler_lookup(const char *name);   /* tf.profiler.experimental.NAME (profiler.c) */
Val tfio_lookup(const char *name);
Val eventread_lookup(const char *qual);
Val tfrwriter_lookup(const char *name);   /* tf.io.TFRecordWriter/TFRecordOptions (tfrwriter.c) */   /* tf.compat (summary_iterator), tf.make_ndarray (eventread.c) */
/* concrete.graph.as_graph_def(): a GraphDef value holding g (graphdefobj.c). */
struct Graph;
Val graphdef_obj_new(struct Graph *g);
struct Graph *graphdef_obj_graph(Val v);   /* the graph of such a value, or NULL */
struct Graph *funcgraph_of(Val v);   /* the graph of a FuncGraph value, or NULL */
/* concrete.graph: the FuncGraph value of g, and a list of symbolic tensors for refs (or, refs NULL, output 0 of
 * the nodes ids) of g (tfoperation.c, which also gives tf.Operation and symbolic tensors' graph attributes). */
struct GraphRef;
Val funcgraph_new(struct Graph *g);
Val funcgraph_refs(struct Graph *g, int n, const struct GraphRef *refs, const int *ids);
/* tf.compat.v1.get_default_graph() (tfoperation.c). */
Val tfop_default_graph(Val self, int n, const Val *args, const Kw *kw);

/* tf.Module (tfmodule.c): the class object (borrowed, immortal) and its test. */
Val tfmodule_class(void);
bool tfmodule_is(Val v);
#endif
