/* tfcore.c — tf names implemented in .tfs (stdlib/tfcore*.tfs): their lookup through the library's _API table, and their docs. */
#include "modules/modules.h"
#include "modules/tfdata.h"
#include "object/object.h"

/* The value of tf.<qual> from stdlib/tfcore.tfs's _API table, or VT_UNDEF (also when the program was
 * compiled without the library: it names none of its entries). */
Val tfcore_attr(const char *qual) {
  Val lib = module_import_library("tfcore");
  if (val_is_undef(lib)) return lib;
  Val api = rt_getattr(lib, "_API");
  val_decref(lib);
  Val v = dict_get_str(api, qual);
  val_decref(api);
  return v;
}

//! tf.nest
//!   Nested structures (lists, tuples and dicts of values; dicts in sorted key order, anything else is an atom):
//!   flatten, pack_sequence_as, map_structure, assert_same_structure, is_nested.
//! tf.nest.flatten(structure, expand_composites=False)
//!   The atoms of a nested structure as a flat list, depth first; dict values in sorted key order; an atom gives [atom].
//! tf.nest.pack_sequence_as(structure, flat_sequence, expand_composites=False)
//!   The inverse of flatten: a copy of structure's nesting filled with flat_sequence's items in order (ValueError when
//!   the counts differ, TypeError when flat_sequence is not a sequence).
//! tf.nest.map_structure(func, *structure, check_types=True, expand_composites=False)
//!   func applied to the atoms at the same place of each structure (which must match, as assert_same_structure),
//!   packed into the first structure's nesting.
//! tf.nest.assert_same_structure(nest1, nest2, check_types=True, expand_composites=False)
//!   Raises ValueError when the two structures nest differently (or dicts have different keys), TypeError when
//!   check_types and the sequence types differ (list vs. tuple); atoms are not compared.
//! tf.nest.is_nested(seq)
//!   True for a list, tuple or dict (a structure tf.nest walks into), False for an atom.
//! tf.map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True, name=None, fn_output_signature=None)
//!   fn applied to each slice of elems along dimension 0 (elems may be a nested structure of tensors with the same
//!   first dimension), results stacked; fn_output_signature (a dtype, tf.TensorSpec or a structure of them) gives the
//!   results' structure and dtypes when they differ from elems'. A tf.while_loop over TensorArrays: a Python loop
//!   eagerly, one While op inside tf.function, differentiable.
//! tf.scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True, reverse=False, name=None)
//!   The running accumulation acc = fn(acc, x) over the slices x of elems along dimension 0, every acc stacked;
//!   without initializer the first slice starts it; reverse runs from the end (outputs stay aligned with elems).
//! tf.foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None)
//!   The final acc = fn(acc, x) over the slices of elems along dimension 0, first to last (the first slice starts
//!   it when initializer is None).
//! tf.foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None)
//!   As tf.foldl, from the last slice to the first.
//! tf.vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True)
//!   fn applied to each slice of elems along dimension 0, results stacked (the values of TF's vectorised pfor): a
//!   static batch runs fn once per slice, an unknown one as tf.map_fn's loop.
//! tf.case(pred_fn_pairs, default=None, exclusive=False, strict=False, name='case')
//!   The result of the fn of the first (pred, fn) pair whose pred is true, else default() (the last pair's fn when
//!   default is None); nested tf.cond in graphs. exclusive=True asserts at most one pred is true.
//! tf.switch_case(branch_index, branch_fns, default=None, name='switch_case')
//!   branch_fns[branch_index]() (a list of callables, or (index, fn) pairs / a dict with keys 0..n-1); an index out of
//!   range runs default (the last branch when None). branch_index is an int32/int64 scalar tensor.
//! tf.split(value, num_or_size_splits, axis=0, num=None, name='split')
//!   Splits value along axis into num_or_size_splits equal pieces (an int dividing the dimension) or pieces of the
//!   given sizes (a list; one size may be -1 for the rest); returns a list of tensors (slices: they differentiate).
//! tf.repeat(input, repeats, axis=None, name=None)
//!   Repeats each element (each slice along axis; of the flattened input when axis is None) repeats times, or
//!   repeats[i] times for a list; repeats must be known while tracing.
//! tf.clip_by_norm(t, clip_norm, axes=None, name=None)
//!   t scaled so that its L2 norm (over axes, all by default) is at most clip_norm: t * clip_norm / max(norm, clip_norm).
//! tf.clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None)
//!   Scales every tensor of t_list by clip_norm / max(global_norm, clip_norm); returns (clipped list, global norm).
//!   None entries stay None; an infinite norm gives NaN tensors, as TF.
//! tf.linalg.global_norm(t_list, name=None)
//!   sqrt(sum of the squares of every element of every tensor of t_list); None entries are skipped.
//! tf.math.reduce_variance(input_tensor, axis=None, keepdims=False, name=None)
//!   The variance mean((x - mean(x))**2) over axis (all axes by default); float dtypes only (TypeError for ints, as TF).
//! tf.math.reduce_std(input_tensor, axis=None, keepdims=False, name=None)
//!   The standard deviation, sqrt(tf.math.reduce_variance) over axis.
//! tf.math.divide_no_nan(x, y, name=None)
//!   x / y, with 0 where y is 0 (also 0 / 0); its gradient is finite there too. Float dtypes.
//! tf.math.l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) | tf.nn.l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None)
//!   x / sqrt(max(sum(x**2, axis), epsilon)): unit L2 norm along axis (all axes by default).
//! tf.nn.moments(x, axes, shift=None, keepdims=False, name=None)
//!   (mean, variance) of x over axes; as TF the variance does not propagate gradients through the mean.
//! tf.nn.batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None)
//!   (x - mean) * scale / sqrt(variance + variance_epsilon) + offset, broadcasting; offset and scale may be None.
//! tf.nn.sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None)
//!   Element-wise logistic loss of logits against labels in [0, 1], in TF's overflow-free form
//!   max(x, 0) - x * z + log(1 + exp(-|x|)); labels and logits must have the same shape.
//! tf.nn.swish(features, beta=1.0) | tf.nn.silu(features, beta=1.0)
//!   features * sigmoid(beta * features).
//! tf.nn.embedding_lookup(params, ids, max_norm=None, name=None)
//!   The rows of params selected by ids (tf.gather along axis 0), shape ids.shape + params.shape[1:]; with max_norm
//!   each row is clipped to that L2 norm. params may be a one-element list.
