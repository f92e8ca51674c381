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
