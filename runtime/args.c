/* args.c — Python argument binding with CPython's TypeError texts, and builtin signature strings (ArgSpec). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"
#include "tensor.h"
#include "value.h"

/* "'x'", "'x' and 'y'", "'x', 'y', and 'z'" */
static void args_name_list(StrBuf *b, int n, const char *const *names) {
  for (int i = 0; i < n; i++) {
    if (i > 0) sb_puts(b, n == 2 ? " and " : i == n - 1 ? ", and " : ", ");
    sb_printf(b, "'%s'", names[i]);
  }
}

void args_bind(const char *what, int nparams, const char *const *params, int ndefaults, const Val *defaults,
               int n, const Val *args, const Kw *kw, Val *out) {
  for (int i = 0; i < nparams; i++) out[i] = val_undef();
  int npos = n < nparams ? n : nparams;
  for (int i = 0; i < npos; i++) out[i] = args[i];
  if (kw) {
    for (int k = 0; k < kw->n; k++) {
      int j = 0;
      while (j < nparams && strcmp(params[j], kw->names[k]) != 0) j++;
      if (j == nparams) rt_throw(ERR_TYPE, "%s() got an unexpected keyword argument '%s'", what, kw->names[k]);
      if (!val_is_undef(out[j])) rt_throw(ERR_TYPE, "%s() got multiple values for argument '%s'", what, params[j]);
      out[j] = kw->vals[k];
    }
  }
  if (n > nparams) {
    int lo = nparams - ndefaults;
    if (ndefaults > 0)
      rt_throw(ERR_TYPE, "%s() takes from %d to %d positional arguments but %d %s given", what, lo, nparams, n,
               n == 1 ? "was" : "were");
    rt_throw(ERR_TYPE, "%s() takes %d positional argument%s but %d %s given", what, nparams, nparams == 1 ? "" : "s",
             n, n == 1 ? "was" : "were");
  }
  int nreq = nparams - ndefaults, nmissing = 0;
  const char *missing[64];
  for (int i = 0; i < nreq; i++)
    if (val_is_undef(out[i]) && nmissing < 64) missing[nmissing++] = params[i];
  if (nmissing) {
    StrBuf b;
    sb_init(&b);
    args_name_list(&b, nmissing, missing);
    char msg[512];
    snprintf(msg, sizeof msg, "%s() missing %d required positional argument%s: %s", what, nmissing,
             nmissing == 1 ? "" : "s", b.data);
    sb_free(&b);
    rt_throw(ERR_TYPE, "%s", msg);
  }
  for (int i = nreq; i < nparams; i++)
    if (val_is_undef(out[i])) out[i] = defaults[i - nreq];
}

/* ---- signature strings ---------------------------------------------------------------- */

static bool args_is(const char *s, size_t n, const char *word) { return strlen(word) == n && !memcmp(s, word, n); }

/* One default's text -> value (owned by the spec for the life of the program). */
static Val args_default(const ArgSpec *spec, const char *s, size_t n) {
  if (n == 0) return val_undef();
  if (args_is(s, n, "None")) return val_none();
  if (args_is(s, n, "True")) return val_bool(true);
  if (args_is(s, n, "False")) return val_bool(false);
  if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) return str_new(s + 1, (tfs_i64)n - 2);
  char buf[64];
  if (n < sizeof buf) {
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    long long i = strtoll(buf, &end, 10);
    if (*end == 0) return val_int(i);
    double f = strtod(buf, &end);
    if (*end == 0) return val_float(f);
    for (int dt = 0; dt < DT__COUNT; dt++)
      if (!strcmp(dtype_info[dt].name, buf)) return dtype_val((DType)dt);
  }
  rt_throw(ERR_RUNTIME, "bad default '%.*s' in the signature of %s", (int)n, s, spec->what);
}

static void args_parse_sig(ArgSpec *spec) {
  const char *p = spec->sig;
  spec->nparams = spec->ndefaults = 0;
  while (*p) {
    while (*p == ' ' || *p == ',') p++;
    if (!*p) break;
    const char *name = p;
    while (*p && *p != '=' && *p != ',' && *p != ' ') p++;
    size_t nlen = (size_t)(p - name);
    while (*p == ' ') p++;
    bool has_default = *p == '=';
    const char *dflt = NULL;
    size_t dlen = 0;
    if (has_default) {
      p++;
      while (*p == ' ') p++;
      dflt = p;
      if (*p == '\'' || *p == '"') {   /* a quoted default may contain commas */
        char q = *p++;
        while (*p && *p != q) p++;
        if (*p) p++;
      } else {
        while (*p && *p != ',') p++;
      }
      dlen = (size_t)(p - dflt);
      while (dlen && dflt[dlen - 1] == ' ') dlen--;
    }
    if (spec->nparams >= 16) rt_throw(ERR_RUNTIME, "too many parameters in the signature of %s", spec->what);
    if (!has_default && spec->ndefaults)
      rt_throw(ERR_RUNTIME, "required parameter after a default in the signature of %s", spec->what);
    char *nm = malloc(nlen + 1);
    if (!nm) rt_throw(ERR_MEMORY, "out of memory");
    memcpy(nm, name, nlen);
    nm[nlen] = 0;
    spec->params[spec->nparams] = nm;
    if (has_default) spec->defaults[spec->ndefaults++] = args_default(spec, dflt, dlen);
    spec->nparams++;
  }
  spec->ready = true;
}

void args_parse(ArgSpec *spec, int n, const Val *args, const Kw *kw, Val *out) {
  if (!spec->ready) args_parse_sig(spec);
  args_bind(spec->what, spec->nparams, spec->params, spec->ndefaults, spec->defaults, n, args, kw, out);
}
