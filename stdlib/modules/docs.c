/* docs.c — lookup and printing of the generated doc table: help(obj) in programs and `tfs doc NAME`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/docs.h"
#include "modules/tfdata.h"
#include "tensor/tensor.h"

const DocEntry *doc_find(const char *name) {
  int lo = 0, hi = doc_count - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, c = strcmp(name, doc_table[mid].name);
    if (c == 0) return &doc_table[mid];
    if (c < 0) hi = mid - 1;
    else lo = mid + 1;
  }
  return NULL;
}

/* Words of s after a 4-space indent, wrapped before column 80 as pydoc wraps nothing but a reader needs. */
static void put_wrapped(StrBuf *b, const char *s) {
  int col = 0;
  while (*s) {
    while (*s == ' ') s++;
    size_t w = strcspn(s, " ");
    if (!w) break;
    if (col && col + 1 + (int)w > 80) {
      sb_putc(b, '\n');
      col = 0;
    }
    if (!col) {
      sb_puts(b, "    ");
      col = 4;
    } else {
      sb_putc(b, ' ');
      col++;
    }
    sb_putn(b, s, w);
    col += (int)w;
    s += w;
  }
  if (col) sb_putc(b, '\n');
}

void doc_format(StrBuf *b, const DocEntry *e) {
  if (e->sig) sb_printf(b, "%s(%s)\n", e->name, e->sig);
  else sb_printf(b, "%s\n", e->name);
  put_wrapped(b, e->doc);
  if (e->args && *e->args) put_wrapped(b, e->args);
  if (e->also && *e->also) {
    StrBuf a;
    sb_init(&a);
    sb_puts(&a, "Also: ");
    for (const char *s = e->also; *s;) {
      size_t w = strcspn(s, " ");
      sb_putn(&a, s, w);
      s += w;
      while (*s == ' ') s++;
      if (*s) sb_puts(&a, ", ");
    }
    sb_putc(&a, '\0');
    put_wrapped(b, a.data);
    sb_free(&a);
  }
}

/* 2 * (longest common subsequence) / (total length): difflib's ratio measures matching blocks
 * instead, but ranks names the same way for the typos that matter (a letter missing, added, swapped). */
static double similarity(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (!n || !m || n > 200 || m > 200) return 0;
  int prev[201] = {0}, cur[201] = {0};
  for (size_t i = 1; i <= n; i++) {
    for (size_t j = 1; j <= m; j++)
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : (prev[j] > cur[j - 1] ? prev[j] : cur[j - 1]);
    memcpy(prev, cur, sizeof prev);
  }
  return 2.0 * prev[m] / (double)(n + m);
}

void doc_unknown(StrBuf *b, const char *name) {
  sb_printf(b, "no documentation for '%s'", name);
  const char *best[3] = {0};
  double score[3] = {0};
  for (int i = 0; i < doc_count; i++) {
    const char *cand = doc_table[i].name;
    double s = similarity(name, cand);
    /* a name without its tf. prefix still finds the tf name */
    if (!strncmp(cand, "tf.", 3) && strncmp(name, "tf.", 3)) {
      double s2 = similarity(name, cand + 3);
      if (s2 > s) s = s2;
    }
    if (s < 0.6) continue;
    for (int k = 0; k < 3; k++)
      if (s > score[k]) {
        for (int j = 2; j > k; j--) {
          score[j] = score[j - 1];
          best[j] = best[j - 1];
        }
        score[k] = s;
        best[k] = cand;
        break;
      }
  }
  if (!best[0]) return;
  sb_puts(b, "; did you mean ");
  for (int k = 0; k < 3 && best[k]; k++) {
    if (k) sb_puts(b, k + 1 < 3 && best[k + 1] ? ", " : " or ");
    sb_puts(b, best[k]);
  }
  sb_putc(b, '?');
}

_Noreturn static void help_fail(StrBuf *b) {
  char msg[512];
  snprintf(msg, sizeof msg, "%.*s", (int)b->len, b->data);
  sb_free(b);
  /* errindex: no documentation for '…'… */
  /* errindex: help: no documentation for a value of type …; pass a function, method, module or name */
  rt_throw(ERR_VALUE, "%s", msg);
}

//! help(obj)
//!   Prints the signature and summary of a documented function, method, module or value, or of a name
//!   given as a string (help('tf.add')), the same text `tfs doc NAME` prints. An unknown name raises
//!   ValueError listing close matches.
Val bi_help(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "help", .sig = "obj"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  Val v = tfcore_unwrap(a[0]);   /* a tf function written in .tfs: the function its dispatch wrapper holds */
  /* an instance: help on its class, as pydoc does */
  if (val_is(v, &inst_type)) v = val_obj(((Inst *)v.u.o)->klass);
  char name[160];
  name[0] = 0;
  DType dt;
  const TypeObj *cls = val_is(v, &type_type) ? (const TypeObj *)v.u.o : NULL;
  if (cls) {
    /* tfs classes are documented under their tf name (tf.Module, tf.Tensor); other classes of the
     * program are described from their body, builtin types by name */
    char tfname[160];
    snprintf(tfname, sizeof tfname, "tf.%s", cls->name);
    bool tf_class = cls->module && !strncmp(cls->module, "tensorflow.", 11);   /* tf.Tensor's class: tensorflow.python... */
    if (tf_class && doc_find(tfname)) snprintf(name, sizeof name, "%s", tfname);
    else if (doc_find(cls->name) || val_is_undef(cls->dict)) snprintf(name, sizeof name, "%s", cls->name);
    else if (doc_find(tfname)) snprintf(name, sizeof name, "%s", tfname);
  } else if (val_is(v, &str_type)) {
    snprintf(name, sizeof name, "%s", str_cstr(v));
  } else if (val_is(v, &builtin_type)) {
    snprintf(name, sizeof name, "%s", ((Builtin *)v.u.o)->name);
  } else if (val_is(v, &module_type)) {
    /* TF's module names (tensorflow._api.v2.nn, keras.api._v2.keras.layers) are documented as tf.nn, tf.keras.layers */
    const char *mn = module_shown_name(v);
    if (!strcmp(mn, "tensorflow")) snprintf(name, sizeof name, "tf");
    else if (!strncmp(mn, "tensorflow._api.v2.", 19)) snprintf(name, sizeof name, "tf.%s", mn + 19);
    else if (!strncmp(mn, "keras.api._v2.", 14)) snprintf(name, sizeof name, "tf.%s", mn + 14);
    else snprintf(name, sizeof name, "%s", mn);
  } else if (val_is(v, &dtype_type) && val_as_dtype(v, &dt)) {
    snprintf(name, sizeof name, "tf.%s", dtype_info[dt].name);
  }
  /* the tf functions and classes written in .tfs (stdlib/tfcore*.tfs) are documented under their tf name */
  if (!name[0] && (val_is(v, &func_type) || cls) &&
      tfcore_name_of(v, val_is(v, &func_type) ? ((Func *)v.u.o)->info->name : NULL, name, sizeof name) && !doc_find(name))
    name[0] = 0;
  if (name[0]) cls = NULL;
  StrBuf b;
  sb_init(&b);
  if (cls && !name[0]) {
    /* a class of the program: its name, base and the methods its body defines */
    sb_printf(&b, "class %s(%s)\n", cls->name, cls->base ? cls->base->name : "object");
    tfs_i64 n_items;
    const Val *items;
    Val keys = dict_keys_list(cls->dict);
    if (seq_items(keys, &n_items, &items))
      for (tfs_i64 i = 0; i < n_items; i++) sb_printf(&b, "    %s\n", str_cstr(items[i]));
    val_decref(keys);
  } else if (val_is(v, &func_type) && !name[0]) {
    /* a function of the program: its signature, as pydoc shows an undocumented function */
    const Func *f = (Func *)v.u.o;
    const FuncInfo *fi = f->info;
    /* params: [positional..., *args, keyword-only..., **kwargs]; defaults belong to the last positionals */
    int npos = fi->nparams - fi->varargs - fi->nkwonly - fi->varkw;
    sb_printf(&b, "%s(", fi->name);
    for (int i = 0; i < fi->nparams; i++) {
      const char *star = fi->varargs && i == npos ? "*" : fi->varkw && i == fi->nparams - 1 ? "**" : "";
      if (i == npos && fi->nkwonly && !fi->varargs) sb_puts(&b, i ? ", *" : "*");   /* bare * before keyword-only */
      sb_printf(&b, "%s%s%s", i || (fi->nkwonly && !fi->varargs) ? ", " : "", star, fi->params[i]);
      /* defaults: those of the last positionals, then one per keyword-only parameter (undef: none) */
      int nposdef = f->ndefaults - fi->nkwonly, k0 = npos + fi->varargs;
      int d = i < npos ? i - (npos - nposdef) : i >= k0 && i < k0 + fi->nkwonly ? nposdef + i - k0 : -1;
      if (d >= 0 && d < f->ndefaults && (i >= npos || d < nposdef) && !val_is_undef(f->defaults[d])) {
        sb_putc(&b, '=');
        val_repr(&b, f->defaults[d]);
      }
    }
    sb_puts(&b, ")\n");
  } else if (!name[0]) {
    sb_printf(&b, "help: no documentation for a value of type %s; pass a function, method, module or name", val_type_name(v));
    help_fail(&b);
  } else {
    const DocEntry *e = doc_find(name);
    if (!e) {
      doc_unknown(&b, name);
      help_fail(&b);
    }
    doc_format(&b, e);
  }
  rt_write_stdout(b.data, b.len);
  sb_free(&b);
  return val_none();
}
