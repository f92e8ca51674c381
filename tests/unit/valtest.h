/* valtest.h — shared Check helpers for runtime value tests: repr/str of owned values, error expectations. */
#ifndef TFS_VALTEST_H
#define TFS_VALTEST_H

#include <check.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>

#include "object/object.h"
#include "object/value.h"

static inline Val I(int64_t i) { return val_int(i); }
static inline Val F(double f) { return val_float(f); }
static inline Val B(bool b) { return val_bool(b); }
static inline Val N(void) { return val_none(); }

/* repr() or str() of an owned value, released; the text lives until eight more calls. */
static inline const char *valtest_text(Val v, bool repr) {
  static char bufs[8][2048];
  static int k;
  StrBuf b;
  sb_init(&b);
  if (repr) val_repr(&b, v);
  else val_str(&b, v);
  val_decref(v);
  char *o = bufs[k++ % 8];
  snprintf(o, sizeof bufs[0], "%s", b.data ? b.data : "");
  sb_free(&b);
  return o;
}
static inline const char *R(Val v) { return valtest_text(v, true); }
static inline const char *STR(Val v) { return valtest_text(v, false); }

/* A tuple that takes over n owned values. */
static inline Val TUP(int n, ...) {
  Val t = tuple_new(n);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) ((Tuple *)t.u.o)->items[i] = va_arg(ap, Val);
  va_end(ap);
  return t;
}

#define EQ(expr, text) ck_assert_str_eq(R(expr), text)

/* Evaluate expr (an owned Val) and require it to raise kind with exactly msg. */
#define ERR(kind_, msg_, expr_)                                                                    \
  do {                                                                                             \
    RtTry t_;                                                                                      \
    rt_try_push(&t_);                                                                              \
    if (setjmp(t_.jb) == 0) {                                                                      \
      Val r_ = (expr_);                                                                            \
      rt_try_pop(&t_);                                                                             \
      val_decref(r_);                                                                              \
      ck_abort_msg("no error from %s", #expr_);                                                    \
    } else {                                                                                       \
      ck_assert_msg(t_.kind == (kind_), "%s raised %s: %s", #expr_, err_kind_name(t_.kind), t_.msg); \
      ck_assert_str_eq(t_.msg, msg_);                                                              \
      rt_try_clear(&t_);                                                                           \
    }                                                                                              \
  } while (0)

#endif
