/* exceptions.c — the exception classes of docs/language.md (Python's hierarchy and tf.errors) and their instances. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

/* Builtin classes are immortal statics; `kind` is the ErrKind an instance is
 * raised as (classes with no runtime error of their own use their parent's). */
#define EXC(var, nm, kind, base) \
  static TypeObj var = {{TFS_IMMORTAL_RC, &type_type}, nm, &exc_type, VT_OBJ, NULL, kind, base, {0, {0}}, NULL}
EXC(e_base, "BaseException", ERR_RUNTIME, NULL);
EXC(e_kbint, "KeyboardInterrupt", ERR_KEYBOARD_INTERRUPT, &e_base);
EXC(e_genexit, "GeneratorExit", ERR_RUNTIME, &e_base);
EXC(e_sysexit, "SystemExit", ERR_SYSTEM_EXIT, &e_base);
EXC(e_exception, "Exception", ERR_RUNTIME, &e_base);
EXC(e_arith, "ArithmeticError", ERR_RUNTIME, &e_exception);
EXC(e_zero, "ZeroDivisionError", ERR_ZERODIV, &e_arith);
EXC(e_overflow, "OverflowError", ERR_OVERFLOW, &e_arith);
EXC(e_lookup, "LookupError", ERR_RUNTIME, &e_exception);
EXC(e_index, "IndexError", ERR_INDEX, &e_lookup);
EXC(e_key, "KeyError", ERR_KEY, &e_lookup);
EXC(e_value, "ValueError", ERR_VALUE, &e_exception);
EXC(e_unicode, "UnicodeError", ERR_VALUE, &e_value);
EXC(e_unicode_decode, "UnicodeDecodeError", ERR_VALUE, &e_unicode);
EXC(e_type, "TypeError", ERR_TYPE, &e_exception);
EXC(e_attr, "AttributeError", ERR_ATTRIBUTE, &e_exception);
EXC(e_name, "NameError", ERR_NAME, &e_exception);
EXC(e_unbound, "UnboundLocalError", ERR_UNBOUND, &e_name);
EXC(e_runtime, "RuntimeError", ERR_RUNTIME, &e_exception);
EXC(e_recursion, "RecursionError", ERR_RECURSION, &e_runtime);
EXC(e_notimpl, "NotImplementedError", ERR_NOTIMPL, &e_runtime);
EXC(e_assert, "AssertionError", ERR_ASSERTION, &e_exception);
EXC(e_stop, "StopIteration", ERR_STOPITER, &e_exception);
EXC(e_import, "ImportError", ERR_IMPORT, &e_exception);
EXC(e_modnotfound, "ModuleNotFoundError", ERR_MODULE_NOT_FOUND, &e_import);
EXC(e_memory, "MemoryError", ERR_MEMORY, &e_exception);
EXC(e_os, "OSError", ERR_IO, &e_exception);
EXC(e_notfound_file, "FileNotFoundError", ERR_IO, &e_os);
EXC(e_exists_file, "FileExistsError", ERR_IO, &e_os);
EXC(e_isdir, "IsADirectoryError", ERR_IO, &e_os);
EXC(e_notdir, "NotADirectoryError", ERR_IO, &e_os);
EXC(e_perm, "PermissionError", ERR_IO, &e_os);
EXC(e_op, "OpError", ERR_INVALID_ARGUMENT, &e_exception);
EXC(e_invalid, "InvalidArgumentError", ERR_INVALID_ARGUMENT, &e_op);
EXC(e_unimpl, "UnimplementedError", ERR_UNIMPLEMENTED, &e_op);
EXC(e_range, "OutOfRangeError", ERR_OUT_OF_RANGE, &e_op);
EXC(e_notfound, "NotFoundError", ERR_NOT_FOUND, &e_op);
EXC(e_exhausted, "ResourceExhaustedError", ERR_RESOURCE_EXHAUSTED, &e_op);
EXC(e_dataloss, "DataLossError", ERR_DATA_LOSS, &e_op);
EXC(e_exists, "AlreadyExistsError", ERR_ALREADY_EXISTS, &e_op);
EXC(e_unavailable, "UnavailableError", ERR_UNAVAILABLE, &e_op);
EXC(e_deadline, "DeadlineExceededError", ERR_DEADLINE_EXCEEDED, &e_op);
EXC(e_internal, "InternalError", ERR_INTERNAL, &e_op);
EXC(e_cancelled, "CancelledError", ERR_CANCELLED, &e_op);
EXC(e_unknown, "UnknownError", ERR_UNKNOWN, &e_op);
EXC(e_permission, "PermissionDeniedError", ERR_PERMISSION_DENIED, &e_op);
EXC(e_unauth, "UnauthenticatedError", ERR_UNAUTHENTICATED, &e_op);
EXC(e_precondition, "FailedPreconditionError", ERR_FAILED_PRECONDITION, &e_op);
EXC(e_aborted, "AbortedError", ERR_ABORTED, &e_op);
/* Python's warning categories (the warnings module raises and filters them) */
EXC(e_warning, "Warning", ERR_RUNTIME, &e_exception);
EXC(e_userwarn, "UserWarning", ERR_RUNTIME, &e_warning);
EXC(e_deprwarn, "DeprecationWarning", ERR_RUNTIME, &e_warning);
EXC(e_pendwarn, "PendingDeprecationWarning", ERR_RUNTIME, &e_warning);
EXC(e_syntwarn, "SyntaxWarning", ERR_RUNTIME, &e_warning);
EXC(e_rtwarn, "RuntimeWarning", ERR_RUNTIME, &e_warning);
EXC(e_futwarn, "FutureWarning", ERR_RUNTIME, &e_warning);
EXC(e_impwarn, "ImportWarning", ERR_RUNTIME, &e_warning);
EXC(e_uniwarn, "UnicodeWarning", ERR_RUNTIME, &e_warning);
EXC(e_byteswarn, "BytesWarning", ERR_RUNTIME, &e_warning);
EXC(e_reswarn, "ResourceWarning", ERR_RUNTIME, &e_warning);
EXC(e_encwarn, "EncodingWarning", ERR_RUNTIME, &e_warning);
/* AutoGraph's StagingError (tensorflow.python.autograph.impl.api): what an error raised while a converted
 * function is traced becomes when its class cannot be built again from one message (rt_ag_reraise). */
EXC(e_staging, "StagingError", ERR_RUNTIME, &e_exception);

static TypeObj *const exc_builtin[] = {
  &e_base, &e_kbint, &e_exception, &e_arith, &e_zero, &e_overflow, &e_lookup, &e_index, &e_key, &e_value,
  &e_type, &e_attr, &e_name, &e_unbound, &e_runtime, &e_recursion, &e_notimpl, &e_assert, &e_stop, &e_import,
  &e_memory, &e_os, &e_unicode, &e_unicode_decode, &e_genexit, &e_modnotfound, &e_notfound_file, &e_exists_file,
  &e_isdir, &e_notdir, &e_perm, &e_sysexit, &e_warning, &e_userwarn, &e_deprwarn, &e_pendwarn, &e_syntwarn,
  &e_rtwarn, &e_futwarn, &e_impwarn, &e_uniwarn, &e_byteswarn, &e_reswarn, &e_encwarn,
};
static TypeObj *const exc_tf[] = {&e_op,       &e_invalid,    &e_unimpl,     &e_range,      &e_notfound,
                                  &e_exhausted, &e_dataloss,  &e_exists,     &e_unavailable, &e_deadline,
                                  &e_internal,  &e_cancelled, &e_unknown,    &e_permission,  &e_unauth,
                                  &e_precondition, &e_aborted};

/* ORDER ErrKind: the class a runtime error of each kind is caught as. */
static TypeObj *const exc_by_kind[ERR__COUNT] = {
  &e_type, &e_value, &e_index, &e_key, &e_name, &e_attr, &e_zero, &e_overflow, &e_assert, &e_runtime, &e_stop,
  &e_import, &e_unbound, &e_notimpl, &e_recursion, &e_memory, &e_os, &e_kbint, &e_modnotfound, &e_invalid, &e_unimpl, &e_range,
  &e_notfound, &e_exhausted, &e_dataloss, &e_exists, &e_unavailable, &e_deadline, &e_internal, &e_sysexit,
  &e_cancelled, &e_unknown, &e_permission, &e_unauth, &e_precondition, &e_aborted,
};

Val exc_lookup(const char *name, bool tf_errors) {
  TypeObj *const *tab = tf_errors ? exc_tf : exc_builtin;
  size_t n = tf_errors ? sizeof exc_tf / sizeof *exc_tf : sizeof exc_builtin / sizeof *exc_builtin;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(tab[i]->name, name)) return val_obj(tab[i]);
  return val_undef();
}

bool exc_is_class(Val cls) { return val_is(cls, &type_type) && ((TypeObj *)cls.u.o)->errkind >= 0; }

bool exc_class_sub(Val cls, Val base) {
  for (TypeObj *c = (TypeObj *)cls.u.o; c; c = c->base)
    if (c == (TypeObj *)base.u.o) return true;
  TypeObj *b2 = ((TypeObj *)cls.u.o)->base2;   /* a second (builtin exception) base: numpy's AxisError is an IndexError */
  return b2 && exc_class_sub(val_obj(b2), base);
}

Val exc_class_of(Val exc) { return val_obj(((Exc *)exc.u.o)->klass); }

static bool exc_is_op_error(TypeObj *c) { return exc_class_sub(val_obj(c), val_obj(&e_op)); }

/* ---- instances ------------------------------------------------------------------------------ */

static Val exc_alloc(TypeObj *cls, Val args) {
  Exc *e = obj_new(&exc_type, sizeof(Exc));
  e->kind = cls->errkind;
  e->cls = cls->name;
  e->klass = cls;
  cls->hdr.rc++;
  e->args = val_incref(args);
  e->dict = val_undef();
  e->cause = val_undef();
  e->loc = 0;
  /* str(e): Python's BaseException.__str__ (KeyError shows its key's repr);
   * a tf.errors class shows its message argument. */
  tfs_i64 n;
  const Val *items;
  seq_items(args, &n, &items);
  if (exc_is_op_error(cls) && n == 3) e->msg = str_of(items[2]);
  else if (n == 0) e->msg = str_from_cstr("");
  else if (n == 1) e->msg = exc_class_sub(val_obj(cls), val_obj(&e_key)) ? repr_of(items[0]) : str_of(items[0]);
  else e->msg = str_of(args);
  return val_obj(e);
}

Val exc_new(int kind, const char *cls, Val msg) {
  (void)cls;
  Val args = tuple_pack(1, msg);
  Val e = exc_alloc(exc_by_kind[kind >= 0 && kind < ERR__COUNT ? kind : ERR_RUNTIME], args);
  val_decref(args);
  return e;
}

Val exc_of_kind(int kind, const char *msg) {
  TypeObj *c = exc_by_kind[kind >= 0 && kind < ERR__COUNT ? kind : ERR_RUNTIME];
  Val m = str_from_cstr(msg);
  Val args = *msg ? tuple_pack(1, m) : tuple_new(0);
  Val e = exc_alloc(c, args);
  /* the text as the runtime formatted it (KeyError's already carries quotes) */
  Exc *x = (Exc *)e.u.o;
  val_decref(x->msg);
  x->msg = m;
  val_decref(args);
  return e;
}

Val exc_construct(Val cls, int n, const Val *args, const Kw *kw) {
  TypeObj *c = (TypeObj *)cls.u.o;
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s() takes no keyword arguments", c->name);
  Val tup = rt_tuple(n, args);
  Val e = exc_alloc(c, tup);
  val_decref(tup);
  return e;
}

_Noreturn void exc_key_error(Val key) {
  Val e = exc_construct(val_obj(&e_key), 1, &key, NULL);
  Exc *x = (Exc *)e.u.o;
  x->loc = rt_cur_loc;
  char msg[512];
  snprintf(msg, sizeof msg, "%s", str_cstr(x->msg));
  rt_throw_msg(rt_cur_loc, ERR_KEY, msg, e);
}

_Noreturn void exc_unicode_decode_error(const char *codec, unsigned byte, size_t start, size_t end, const char *why) {
  char msg[200];
  if (end - start > 1)
    snprintf(msg, sizeof msg, "'%s' codec can't decode bytes in position %zu-%zu: %s", codec, start, end - 1, why);
  else
    snprintf(msg, sizeof msg, "'%s' codec can't decode byte 0x%02x in position %zu: %s", codec, byte, start, why);
  exc_raise_class(val_obj(&e_unicode_decode), ERR_VALUE, msg);
}

/* An OSError from errno, with CPython's class and text: "[Errno 2] No such file or directory: 'x'". */
_Noreturn void exc_os_error(int err, const char *path) {
  TypeObj *c = err == ENOENT ? &e_notfound_file : err == EEXIST ? &e_exists_file : err == EISDIR ? &e_isdir
             : err == ENOTDIR ? &e_notdir : err == EACCES || err == EPERM ? &e_perm : &e_os;
  StrBuf b;
  sb_init(&b);
  sb_printf(&b, "[Errno %d] %s", err, strerror(err));
  if (path) {
    sb_puts(&b, ": ");
    str_repr_into(&b, path, (tfs_i64)strlen(path));
  }
  char msg[1200];
  snprintf(msg, sizeof msg, "%s", b.data ? b.data : "");
  sb_free(&b);
  exc_raise_class(val_obj(c), ERR_IO, msg);
}

_Noreturn void exc_raise_class(Val cls, ErrKind kind, const char *msg) {
  Val m = str_from_cstr(msg);
  Val e = exc_construct(cls, 1, &m, NULL);
  val_decref(m);
  ((Exc *)e.u.o)->loc = rt_cur_loc;
  rt_throw_msg(rt_cur_loc, kind, msg, e);
}

/* The exception AutoGraph's ErrorMetadata.create_exception makes of `orig` with the framed message `text`
 * (owned; VT_UNDEF: none, the error passes unchanged): the same class for the builtin ones that take a
 * message (TF's KNOWN_STRING_CONSTRUCTOR_ERRORS, exactly those classes), the tf.errors ones and a class
 * whose constructor is Exception's (no __init__ of its own below Exception); KeyError as its multi-line
 * variant (args: the original message, str: the framed one); StagingError for any other Exception. */
Val exc_ag_recreate(Val orig, Val text, Val cause) {
  TypeObj *c = ((Exc *)orig.u.o)->klass;
  if (!exc_class_sub(val_obj(c), val_obj(&e_exception))) return val_undef();   /* converted_call catches Exception */
  static TypeObj *const known[] = {&e_assert, &e_attr, &e_name, &e_notimpl, &e_runtime, &e_stop, &e_type,
                                   &e_unbound, &e_value, &e_staging};
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (c == known[i]) return exc_construct(val_obj(c), 1, &text, NULL);
  if (c == &e_key) {
    Val e = exc_construct(val_obj(c), 1, &cause, NULL);
    Exc *x = (Exc *)e.u.o;
    val_decref(x->msg);
    x->msg = val_incref(text);
    return e;
  }
  if (exc_is_op_error(c) && !c->module) {
    Val e = exc_construct(val_obj(c), 1, &text, NULL);
    return e;
  }
  TypeObj *b = c;
  for (; b && b->module; b = b->base) {   /* the user's classes down to the builtin one */
    Val init = dict_get_str(b->dict, "__init__");
    bool own = !val_is_undef(init);
    val_decref(init);
    if (own) break;
  }
  if (b == &e_exception) return rt_call(val_obj(c), 1, &text, NULL);
  return exc_construct(val_obj(&e_staging), 1, &text, NULL);
}

static void exc_free(Obj *o) {
  Exc *e = (Exc *)o;
  val_decref(e->msg);
  val_decref(e->args);
  val_decref(e->dict);
  val_decref(e->cause);
  val_decref(val_obj(e->klass));
  free(o);
}

static void exc_repr(StrBuf *b, Val v) {
  Exc *e = (Exc *)v.u.o;
  sb_puts(b, e->cls);
  tfs_i64 n;
  const Val *items;
  seq_items(e->args, &n, &items);
  if (n == 1) {
    sb_putc(b, '(');
    val_repr(b, items[0]);
    sb_putc(b, ')');
  } else {
    val_repr(b, e->args);   /* (a, b) or () */
  }
}

static void exc_str(StrBuf *b, Val v) { val_str(b, ((Exc *)v.u.o)->msg); }

void exc_set_args(Val exc, int n, const Val *args) {
  Exc *e = (Exc *)exc.u.o;
  Val tup = rt_tuple(n, args);
  Val fresh = exc_alloc(e->klass, tup);
  Exc *f = (Exc *)fresh.u.o;
  val_decref(e->args);
  val_decref(e->msg);
  e->args = tup;
  e->msg = f->msg;
  f->msg = val_none();
  val_decref(fresh);
}

/* SystemExit.code: None, the one argument, or the argument tuple (owned). */
static Val exc_exit_code(Exc *e) {
  tfs_i64 n;
  const Val *items;
  seq_items(e->args, &n, &items);
  return n == 0 ? val_none() : n == 1 ? val_incref(items[0]) : val_incref(e->args);
}

/* An uncaught SystemExit ends the process as CPython's handler does: None is
 * status 0, an int its own status, anything else is printed to stderr (status 1). */
int exc_exit_status(Val exc) {
  if (!val_is(exc, &exc_type)) return 1;
  Val code = exc_exit_code((Exc *)exc.u.o);
  int st = 0;
  if (code.tag == VT_INT || code.tag == VT_BOOL) {
    st = (int)code.u.i;   /* the OS keeps the low byte, as exit() does in CPython */
  } else if (code.tag != VT_NONE) {
    Val s = str_of(code);
    rt_flush();
    fprintf(stderr, "%s\n", str_cstr(s));
    val_decref(s);
    st = 1;
  }
  val_decref(code);
  return st;
}

static Val exc_getattr(Val self, const char *name) {
  Exc *e = (Exc *)self.u.o;
  Val v = inst_getattr_dict(self, e->dict, name);
  if (!val_is_undef(v)) return v;
  if (!strcmp(name, "args")) return val_incref(e->args);
  if (!strcmp(name, "__cause__")) return val_is_undef(e->cause) ? val_none() : val_incref(e->cause);
  if (!strcmp(name, "__class__")) return val_incref(val_obj(e->klass));
  if (!strcmp(name, "code") && exc_class_sub(val_obj(e->klass), val_obj(&e_sysexit))) return exc_exit_code(e);
  if (!strcmp(name, "value") && exc_class_sub(val_obj(e->klass), val_obj(&e_stop))) {   /* StopIteration.value */
    tfs_i64 n;
    const Val *items;
    seq_items(e->args, &n, &items);
    return n ? val_incref(items[0]) : val_none();
  }
  if (exc_is_op_error(e->klass)) {
    if (!strcmp(name, "message")) return val_incref(e->msg);
    if (!strcmp(name, "op") || !strcmp(name, "node_def")) return val_none();
  }
  return val_undef();
}

static void exc_setattr(Val self, const char *name, Val v) { inst_setattr_dict(self, &((Exc *)self.u.o)->dict, name, v); }

/* The cycle collector's view (gc.c). */
static void exc_traverse(Obj *o, GcVisit visit, void *arg) {
  Exc *e = (Exc *)o;
  visit(e->msg, true, arg);
  visit(e->args, true, arg);
  visit(e->dict, true, arg);
  visit(e->cause, true, arg);
  if (e->klass) visit(val_obj(&e->klass->hdr), true, arg);
}

static void exc_clear(Obj *o) {
  Exc *e = (Exc *)o;
  Val d = e->dict, c = e->cause;
  e->dict = e->cause = val_undef();
  val_decref(d);
  val_decref(c);
}

const Type exc_type = {
  .name = "Exception",
  .free = exc_free, .traverse = exc_traverse, .clear = exc_clear,
  .repr = exc_repr,
  .str = exc_str,
  .getattr = exc_getattr,
  .setattr = exc_setattr,
  .hash = obj_identity_hash,
};
