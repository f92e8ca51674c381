/* opscope.c — TF's name scopes of Python op wrappers and operators while tracing: which name an op call's node takes. */
#include <stdint.h>

#include "kernels/ops.h"
#include "object/hooks.h"
#include "object/object.h"

int (*op_scope_enter_hook)(const char *name, const OpDef *op);
void (*op_scope_exit_hook)(int token);
int (*op_scope_reset_hook)(void);
void (*op_scope_restore_hook)(int token);

bool op_tracing(void) { return !op_host_depth && rt_obj_hooks.tracing && rt_obj_hooks.tracing(); }

static void opscope_release(void *p) { op_scope_exit_hook((int)(intptr_t)p); }

OpScopeMark op_scope_enter(const char *name, const OpDef *op) {
  OpScopeMark m = {-1, -1};
  if (!op_scope_enter_hook || !op_tracing()) return m;
  m.token = op_scope_enter_hook(name, op);
  if (m.token >= 0) m.hold = rt_hold_fn(opscope_release, (void *)(intptr_t)m.token);   /* an error leaves it too */
  return m;
}

void op_scope_exit(OpScopeMark m) {
  if (m.token < 0) return;
  rt_unhold(m.hold);
  op_scope_exit_hook(m.token);
}

/* The scope TF's tf.* wrapper opens when called without name=, where it is not the op's type: math_ops.add's
 * name_scope(name, "Add"), divide/truediv's "truediv", array_ops' concat(name="concat"), stack(name="stack"),
 * transpose's name_scope(name, "transpose"). */
const char *op_default_scope(const OpDef *op) {
  switch (op->id) {
  case OP_ADD: return "Add";
  case OP_DIV: return "truediv";
  case OP_CONCAT: return "concat";
  case OP_STACK: return "stack";
  case OP_TRANSPOSE: return "transpose";
  default: return op->graph_name;
  }
}
