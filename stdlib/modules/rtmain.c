/* rtmain.c — process entry for compiled programs (JIT or standalone): the layers' start-up hooks, argv, run, tear down, flush; the prompt's echo. */
#include <signal.h>
#include <sys/resource.h>

#include <pthread.h>
#include <string.h>

#include "function/tensorarray.h"
#include "function/tffunction.h"
#include "graph/tape.h"
#include "graph/trace.h"
#include "dist/dist.h"
#include "kernels/isa.h"
#include "kernels/ops.h"
#include "modules/modules.h"
#include "modules/upops.h"
#include "object/hooks.h"
#include "object/object.h"
#include "tensor/tensor.h"

/* libtcc gives every block-local of a generated function its own stack slot
 * (it does not reuse closed blocks' space), so a function of 100,000
 * statements needs about 20 MB of frame: a soft stack limit under 64 MB is
 * raised to it (the hard limit permitting; Linux leaves at least 128 MB below
 * the stack for it to grow), before the recursion guard
 * (func.c rt_stack_low) reads it. */
static void rt_stack_raise(void) {
  struct rlimit rl;
  const rlim_t want = (rlim_t)64 << 20;
  if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want) return;
  rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
  setrlimit(RLIMIT_STACK, &rl);
}

/* rt_builtin's names: the builtins, then the modules `tf` and `ag` (ag__ is
 * TF's name for it in converted code). */
static Val rt_builtin_lookup(const char *name) {
  Val v = builtins_lookup(name);
  if (!val_is_undef(v)) return v;
  if (!strcmp(name, "tf")) return tf_module();
  if (!strcmp(name, "ag") || !strcmp(name, "ag__")) return ag_module();
  return val_undef();
}

static Val tensor_numpy_of(Val v) { return val_tensor(v)->sym ? val_undef() : ndarray_new(val_tensor(v)); }

/* Dependencies point down (docs/architecture.md): where a lower layer needs
 * an upper one, it declares a slot and this fills it, once, before main (the
 * JIT, tests and libtfs link the whole runtime) and again from rt_start (which
 * pulls this file into archive-linked executables). */
static void rt_layers_fill(void) {
  rt_obj_hooks.builtin = rt_builtin_lookup;
  rt_obj_hooks.tf_lookup = tfmod_lookup;
  rt_obj_hooks.tensor_scalar = tensor_scalar_of;
  rt_obj_hooks.tensor_complex = tensor_complex_of;
  rt_obj_hooks.tensor_u64 = tensor_u64_of;
  rt_obj_hooks.is_tensor = tensor_is_eager_tensor;
  rt_obj_hooks.dtype_named = dtype_named;
  rt_obj_hooks.tracing = trace_active;
  rt_obj_hooks.range_tensor = ag_range_tensor;
  rt_obj_hooks.python_fn = tffn_python_fn;
  rt_obj_hooks.tensor_numpy = tensor_numpy_of;
  rt_obj_hooks.method_fn = tffn_method_fn;
  op_tape_record = tape_record;
  op_tape_var_accessed = tape_variable_accessed;
  op_scope_prefix = graph_scope_prefix;
  op_scope_enter_hook = trace_op_scope_enter;
  op_scope_exit_hook = graph_op_scope_exit;
  op_scope_reset_hook = graph_scope_reset;
  op_scope_restore_hook = graph_scope_restore;
  op_trace_graph_name = trace_graph_name;
  nest_composite = (NestComposite){&tensorarray_type, tensorarray_flow, tensorarray_with_flow};
  upops_bind();
  tensorobj_register();
  gradtape_register();
  ndarrayobj_register();
}

__attribute__((constructor)) void rt_layers_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, rt_layers_fill);
}

void rt_start(int argc, char **argv) {
  rt_layers_init();
  rt_stack_raise();
  signal(SIGXFSZ, SIG_IGN);   /* as Python: a file size limit is an OSError (EFBIG), not a kill */
  rt_sigint_install();
  rt_fatal_install();   /* a crash still shows the output so far and where it was */
  rt_set_argv(argc, argv);
  isa_init(); /* a bad TFS_ISA stops the program before it starts */
  dist_init(); /* under mpirun: join the job before the first line */
  tffn_init(); /* also pulls tf.function into archive-linked executables */
}

int rt_main(int argc, char **argv, void (*entry)(void), void (*leave)(void)) {
  rt_start(argc, argv);
  entry();
  dist_finish();   /* every rank leaves together (or learns who still waits) */
  /* the output so far is written before the teardown (as Python flushes its files before its final collection): a
   * crash freeing the globals then shows a complete stdout, telling it apart from one while the program ran */
  rt_flush();
  leave();
  rt_gc_shutdown();   /* what only reference cycles kept alive */
  rt_flush();
  return 0;
}

/* An expression statement typed at the interactive prompt: its repr on a
 * line of its own unless it is None, as Python's sys.displayhook does. */
void rt_repl_echo(Val v) {
  if (v.tag == VT_NONE) return;
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  val_repr(&b, v);
  sb_putc(&b, '\n');
  rt_write_stdout(b.data, b.len);
  rt_unhold(mark);
  sb_free(&b);
}
