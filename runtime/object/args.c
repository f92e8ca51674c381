/* args.c — Python argument binding with CPython's TypeError texts, and builtin signature strings (ArgSpec). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "object/hooks.h"
#include "object/value.h"

/* "'x'", "'x' and 'y'", "'x', 'y', and 'z'" */
static void args_name_list(StrBuf *b, int n, const char *const *names) {
  for (int i = 0; i < n; i++) {
    if (i > 0) sb_puts(b, n == 2 ? " and " : i == n - 1 ? ", and " : ", ");
    sb_printf(b, "'%s'", names[i]);
  }
}

/* "f() takes ... positional argument(s) but N ... given", CPython's text. */
static _Noreturn void args_too_many(const char *what, int npos, int nposdef, int given, int kwonly_given) {
  char sig[64], kwsig[96] = "";
  if (nposdef) snprintf(sig, sizeof sig, "from %d to %d", npos - nposdef, npos);
  else snprintf(sig, sizeof sig, "%d", npos);
  bool plural = nposdef || npos != 1;
  if (kwonly_given)
    snprintf(kwsig, sizeof kwsig, " positional argument%s (and %d keyword-only argument%s)", given != 1 ? "s" : "",
             kwonly_given, kwonly_given != 1 ? "s" : "");
  rt_throw(ERR_TYPE, "%s() takes %s positional argument%s but %d%s %s given", what, sig, plural ? "s" : "", given,
           kwsig, given == 1 && !kwonly_given ? "was" : "were");
}

static _Noreturn void args_missing(const char *what, int nmissing, const char *const *missing, const char *kind) {
  StrBuf b;
  sb_init(&b);
  args_name_list(&b, nmissing, missing);
  char msg[512];
  snprintf(msg, sizeof msg, "%s() missing %d required %s argument%s: %s", what, nmissing, kind,
           nmissing == 1 ? "" : "s", b.data);
  sb_free(&b);
  rt_throw(ERR_TYPE, "%s", msg);
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
  if (n > nparams) args_too_many(what, nparams, ndefaults, n, 0);
  int nreq = nparams - ndefaults, nmissing = 0;
  const char *missing[64];
  for (int i = 0; i < nreq; i++)
    if (val_is_undef(out[i]) && nmissing < 64) missing[nmissing++] = params[i];
  if (nmissing) args_missing(what, nmissing, missing, "positional");
  for (int i = nreq; i < nparams; i++)
    if (val_is_undef(out[i])) out[i] = defaults[i - nreq];
}

/* Keyword k names a positional-only parameter (and there is no **kwargs): CPython's
 * error, naming every positional-only parameter the call passed by keyword. */
static void args_posonly_as_kw(const FuncInfo *info, const Kw *kw, int k) {
  int i = 0;
  while (i < info->nposonly && strcmp(info->params[i], kw->names[k])) i++;
  if (i == info->nposonly) return;
  StrBuf b;
  sb_init(&b);
  rt_hold_sb(&b);
  for (i = 0; i < info->nposonly; i++)
    for (int m = 0; m < kw->n; m++)
      if (!strcmp(info->params[i], kw->names[m])) {
        sb_printf(&b, "%s%s", b.len ? ", " : "", info->params[i]);
        break;
      }
  rt_throw(ERR_TYPE, "%s() got some positional-only arguments passed as keyword arguments: '%s'", info->name, b.data);
}

/* A signature with *args, keyword-only parameters or **kwargs (docs/language.md,
 * Calls): params is [positional..., *args, keyword-only..., **kwargs] and the
 * defaults are the positional ones followed by one slot per keyword-only
 * parameter (VT_UNDEF when it has none).  out[] borrows like args_bind, except
 * that the *args tuple and the **kwargs dict are new: args_unbind releases them. */
void args_bind_ext(const FuncInfo *info, int ndefaults, const Val *defaults, int n, const Val *args, const Kw *kw,
                   Val *out) {
  const char *what = info->name;
  int np = info->nparams, nkw = info->nkwonly;
  int npos = np - nkw - info->varargs - info->varkw;
  int k0 = npos + info->varargs, vk = info->varkw ? np - 1 : -1;
  int nposdef = ndefaults - nkw;
  for (int i = 0; i < np; i++) out[i] = val_undef();
  int ncopy = n < npos ? n : npos;
  for (int i = 0; i < ncopy; i++) out[i] = args[i];
  int mark = -1;
  if (info->varargs) {
    int extra = n > npos ? n - npos : 0;
    Val t = tuple_new(extra);
    for (int i = 0; i < extra; i++) ((Tuple *)t.u.o)->items[i] = val_incref(args[npos + i]);
    out[npos] = t;
    mark = rt_hold_val(t);
  }
  if (vk >= 0) {
    out[vk] = dict_new();
    int m = rt_hold_val(out[vk]);
    if (mark < 0) mark = m;
  }
  int kwonly_given = 0;
  for (int k = 0; kw && k < kw->n; k++) {
    int j = -1;
    for (int i = info->nposonly; i < npos && j < 0; i++)
      if (!strcmp(info->params[i], kw->names[k])) j = i;
    for (int i = k0; i < k0 + nkw && j < 0; i++)
      if (!strcmp(info->params[i], kw->names[k])) j = i;
    if (j < 0) {
      if (vk < 0) args_posonly_as_kw(info, kw, k);
      if (vk < 0) rt_throw(ERR_TYPE, "%s() got an unexpected keyword argument '%s'", what, kw->names[k]);
      Val key = str_from_cstr(kw->names[k]);
      dict_set(out[vk], key, kw->vals[k]);
      val_decref(key);
      continue;
    }
    if (!val_is_undef(out[j])) rt_throw(ERR_TYPE, "%s() got multiple values for argument '%s'", what, info->params[j]);
    out[j] = kw->vals[k];
    if (j >= k0) kwonly_given++;
  }
  if (n > npos && !info->varargs) args_too_many(what, npos, nposdef, n, kwonly_given);
  const char *missing[64];
  int nmissing = 0;
  for (int i = 0; i < npos - nposdef; i++)
    if (val_is_undef(out[i]) && nmissing < 64) missing[nmissing++] = info->params[i];
  if (nmissing) args_missing(what, nmissing, missing, "positional");
  for (int i = npos - nposdef; i < npos; i++)
    if (val_is_undef(out[i])) out[i] = defaults[i - (npos - nposdef)];
  for (int i = 0; i < nkw; i++)
    if (val_is_undef(out[k0 + i])) {
      if (val_is_undef(defaults[nposdef + i])) {
        if (nmissing < 64) missing[nmissing++] = info->params[k0 + i];
      } else {
        out[k0 + i] = defaults[nposdef + i];
      }
    }
  if (nmissing) args_missing(what, nmissing, missing, "keyword-only");
  if (mark >= 0) rt_unhold(mark);
}

/* Release what args_bind_ext created in out[]. */
void args_unbind(const FuncInfo *info, Val *out) {
  int np = info->nparams;
  if (info->varargs) val_decref(out[np - info->nkwonly - info->varargs - info->varkw]);
  if (info->varkw) val_decref(out[np - 1]);
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
    Val dt = rt_obj_hooks.dtype_named ? rt_obj_hooks.dtype_named(buf) : val_undef();
    if (!val_is_undef(dt)) return dt;
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
