/* tfdata.h — tf.io, tf.data and tf.keras.datasets: the attributes they add to the tf module, and shared loaders. */
#ifndef TFS_TFDATA_H
#define TFS_TFDATA_H

#include "tensor/tensor.h"

/* tf.<qual> for "io", "io.*" (tfio.c), "data", "data.*" (dataset*.c), "keras.datasets*"
 * (kdatasets.c); VT_UNDEF for any other name.  Owned. */
Val tfio_attr(const char *qual);
Val tfdata_attr(const char *qual);
Val kdatasets_attr(const char *qual);
Val tfcore_attr(const char *qual);   /* tfcore.c: names written in stdlib/tfcore*.tfs */
/* tfcore.c: the tf name of a function or class of stdlib/tfcore*.tfs (fname: the function name), for help() */
bool tfcore_name_of(Val v, const char *fname, char *buf, size_t size);
Val tfcore_dispatching(const char *qual, Val fn);   /* tfcore.c: a native tf function with TF's dispatch wrapper */
Val tfcore_unwrap(Val v);   /* tfcore.c: the .tfs function of a tf name's dispatch wrapper, else v (borrowed) */

/* A .npz file as a dict name -> tensor; errors name `what` and the path. */
Val io_load_npz(const char *path, const char *what);
/* A comma-separated numeric file (gunzipped for .gz) as a rows x columns tensor of dt, after skipping `skip` lines. */
Val io_csv_matrix(const char *path, DType dt, tfs_i64 skip, const char *what);

/* Datasets for the rest of the system: is v one, its iterator (eager), and the
 * graph ops of AutoGraph's dataset loop: a fresh iterator handle, the next
 * (has_value, leaves...) tuple, the element rebuilt from leaves, release. */
bool tfdata_is_dataset(Val v);
/* The dataset of an iterator iter(ds) nothing has been taken from yet (borrowed; the iterator counts as
 * consumed from now on), else VT_UNDEF: `for e in iter(ds)` inside a tf.function loops in the graph, as TF. */
Val tfdata_fresh_iter_dataset(Val v);
Val tfdata_iter(Val ds);
Val tfdata_graph_iter(Val ds);
Val tfdata_graph_next(Val ds, Val handle);
Val tfdata_unflatten(Val ds, const Val *leaves);
void tfdata_graph_release(Val handle);
Val tfdata_unbound(Val ds);   /* the dataset a graph op keeps for ds: its stand-ins unbound (owned) */

/* iter(ds) inside a tf.function (dsgraphit.c): an iterator whose next() is a graph op; its dataset and handle
 * (borrowed); next(it, default) on it; tf.experimental.Optional over (has_value, value) (owned). */
Val tfdata_graph_iterator(Val ds);
Val tfdata_giter_new(Val ds, Val handle);
bool tfdata_is_giter(Val v);
bool tfdata_giter_parts(Val v, Val *ds, Val *handle);
Val tfdata_giter_next_default(Val it, Val dflt);
Val tfdata_optional(Val has, Val value, Val spec);
/* Dataset._graph_single(ds): get_single_element while tracing, a _DatasetSingle op on a fresh iterator */
Val tfdata_graph_single(Val self, int n, const Val *args, const Kw *kw);

/* Datasets as tf.function arguments (graph inputs, as TF's variant tensors):
 * the int64 handle a call feeds for a real dataset (borrowed, owned by the
 * dataset); the _VariantDataset a trace sees for it, standing on a handle
 * placeholder, and its release of the placeholder after the trace;
 * tf.data.DatasetSpec, the signature entry of such an argument. */
Tensor *tfdata_handle(Val ds);
bool tfdata_is_arg(Val v);
Val tfdata_arg_new(Val spec, Val handle);
void tfdata_arg_unbind(Val ds);
Val tfdata_element_spec(Val ds);
bool tfdata_is_spec(Val v);
Val tfdata_spec_element(Val spec);
Val tfdata_spec_of(Val ds);
/* Eager iterators (iter(ds)) as tf.function arguments, TF's OwnedIterator whose resource is a graph input: is v
 * one, the int64 handle a call feeds for it (borrowed, owned by the iterator), its element_spec (borrowed);
 * tf.data.IteratorSpec (tfdata_is_spec is true for it too) of an element_spec (owned). */
bool tfdata_is_eiter(Val v);
Tensor *tfdata_eiter_handle(Val it);
Val tfdata_eiter_spec(Val it);
bool tfdata_spec_is_iter(Val v);
Val tfdata_ispec_new(Val elem);

/* tf.<qual> through the tf module's attribute cache (tfmod.c). */
Val tfmod_lookup(const char *qual);

#endif
