/* nest.h — nested structures of values and their leaf markers (templates whose tensor leaves are numbered). */
#ifndef TFS_NEST_H
#define TFS_NEST_H

#include "object/value.h"

/* A copy of the list/tuple/dict structure of v (nested ones are for fn to
 * recurse into) with fn(ctx, element) in place of each element; any other v
 * comes back as itself (owned). */
Val nest_map(Val v, Val (*fn)(void *ctx, Val elem), void *ctx);
Val nest_unflatten(Val tmpl, const Val *leaves);   /* a template with leaf markers, filled from leaves (borrowed) */
bool nest_is_leaf(Val tmpl, int *index);          /* a marker: its leaf index */
Val nest_leaf(int index);                         /* a new marker (owned) */
extern const Type nest_leaf_type;

/* A composite tensor written in .tfs (tf.RaggedTensor) as a structure: its TypeSpec and a tuple of its
 * components.  nest_map maps the components; nest_unflatten gives spec._from_components(list) of the filled
 * ones (stdlib/function/tffunction.c makes them for tf.function's arguments and results). */
Val nest_packed(Val spec, Val comps);   /* both borrowed; owned result */
Val nest_packed_comps(Val v);           /* its components' tuple (borrowed) */
Val nest_packed_spec(Val v);            /* its TypeSpec (borrowed) */
extern const Type nest_packed_type;

/* A composite value with one tensor inside (tf.TensorArray: its flow), which
 * nest_map treats as a leaf structure; set at start-up by its owner
 * (stdlib/function/tensorarray.c). */
typedef struct NestComposite {
  const Type *type;
  Val (*flow)(Val v);                  /* borrowed */
  Val (*with_flow)(Val v, Val flow);   /* owned copy of v carrying flow */
} NestComposite;
extern NestComposite nest_composite;

#endif
