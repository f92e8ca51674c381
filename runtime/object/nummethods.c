/* nummethods.c — the attributes of int, bool and float values: bit_length, real, imag, conjugate, is_integer. */
#include <math.h>
#include <string.h>

#include "object/object.h"
#include "object/value.h"

static void nm_noargs(const char *what, int n, const Kw *kw) {
  if ((kw && kw->n) || n) rt_throw(ERR_TYPE, "%s() takes no arguments (%d given)", what, n + (kw ? kw->n : 0));
}

static Val nm_bit_length(Val self, int n, const Val *args, const Kw *kw) {
  nm_noargs("int.bit_length", n, kw);
  uint64_t u = self.u.i < 0 ? (uint64_t)0 - (uint64_t)self.u.i : (uint64_t)self.u.i;
  return val_int(u ? 64 - __builtin_clzll(u) : 0);
}

static Val nm_conjugate(Val self, int n, const Val *args, const Kw *kw) {
  nm_noargs(self.tag == VT_FLOAT ? "float.conjugate" : "int.conjugate", n, kw);
  return self.tag == VT_BOOL ? val_int(self.u.i) : self;
}

static Val nm_is_integer(Val self, int n, const Val *args, const Kw *kw) {
  nm_noargs("float.is_integer", n, kw);
  return val_bool(isfinite(self.u.f) && self.u.f == floor(self.u.f));
}

/* VT_UNDEF when v has no such attribute. */
Val num_getattr(Val v, const char *name) {
  bool fl = v.tag == VT_FLOAT;
  if (!strcmp(name, "real")) return v.tag == VT_BOOL ? val_int(v.u.i) : v;
  if (!strcmp(name, "imag")) return fl ? val_float(0.0) : val_int(0);
  if (!strcmp(name, "conjugate")) return builtin_new(fl ? "float.conjugate" : "int.conjugate", nm_conjugate, v, NULL);
  if (fl && !strcmp(name, "is_integer")) return builtin_new("float.is_integer", nm_is_integer, v, NULL);
  if (!fl && !strcmp(name, "bit_length")) return builtin_new("int.bit_length", nm_bit_length, v, NULL);
  if (!fl && (!strcmp(name, "numerator"))) return val_int(v.u.i);
  if (!fl && (!strcmp(name, "denominator"))) return val_int(1);
  return val_undef();
}
