/* remod.c — `_re`: PCRE2 compiled patterns and matches (character offsets) under stdlib/re.tfs. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

/* Compiled patterns are numbered handles kept until exit (re.tfs caches them by pattern and flags). */
static pcre2_code **re_codes;
static int64_t re_n, re_cap;

static pcre2_code *re_get(Val h) {
  int64_t i;
  if (!val_as_int(h, &i) || i < 0 || i >= re_n) rt_throw(ERR_VALUE, "invalid pattern handle");
  return re_codes[i];
}

static const char *re_str(Val v, const char *what) {
  if (!val_is(v, &str_type)) rt_throw(ERR_TYPE, "%s: expected string, got '%s'", what, val_type_name(v));
  return str_cstr(v);
}

/* _re.compile(pattern, caseless, multiline, dotall, extended, ascii): a handle, or
 * ValueError "message at position N" (character position) that re.tfs raises as re.error. */
static Val re_compile(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 6 || (kw && kw->n)) rt_throw(ERR_TYPE, "_re.compile() takes 6 arguments");
  const char *p = re_str(args[0], "compile");
  uint32_t opt = PCRE2_UTF | PCRE2_NO_UTF_CHECK;
  if (rt_truthy(args[1])) opt |= PCRE2_CASELESS;
  if (rt_truthy(args[2])) opt |= PCRE2_MULTILINE;
  if (rt_truthy(args[3])) opt |= PCRE2_DOTALL;
  if (rt_truthy(args[4])) opt |= PCRE2_EXTENDED;
  if (!rt_truthy(args[5])) opt |= PCRE2_UCP;
  int err;
  PCRE2_SIZE off;
  pcre2_code *c = pcre2_compile((PCRE2_SPTR)p, (PCRE2_SIZE)str_len(args[0]), opt, &err, &off, NULL);
  if (!c) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    int64_t chars = 0;
    for (PCRE2_SIZE i = 0; i < off && p[i]; i++) chars += ((unsigned char)p[i] & 0xC0) != 0x80;
    rt_throw(ERR_VALUE, "%s at position %lld", (const char *)msg, (long long)chars);
  }
  pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
  if (re_n == re_cap) {
    re_cap = re_cap ? re_cap * 2 : 16;
    pcre2_code **t = realloc(re_codes, (size_t)re_cap * sizeof *t);
    if (!t) {
      pcre2_code_free(c);
      rt_throw(ERR_MEMORY, "out of memory");
    }
    re_codes = t;
  }
  re_codes[re_n] = c;
  return val_int(re_n++);
}

/* _re.info(h): (number of groups, {name: index}). */
static Val re_info(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 1) rt_throw(ERR_TYPE, "_re.info() takes 1 argument");
  pcre2_code *c = re_get(args[0]);
  uint32_t groups = 0, names = 0, esize = 0;
  PCRE2_SPTR table = NULL;
  pcre2_pattern_info(c, PCRE2_INFO_CAPTURECOUNT, &groups);
  pcre2_pattern_info(c, PCRE2_INFO_NAMECOUNT, &names);
  pcre2_pattern_info(c, PCRE2_INFO_NAMEENTRYSIZE, &esize);
  pcre2_pattern_info(c, PCRE2_INFO_NAMETABLE, &table);
  Val d = dict_new();
  for (uint32_t i = 0; i < names; i++) {
    PCRE2_SPTR e = table + (size_t)i * esize;
    Val k = str_from_cstr((const char *)e + 2);
    dict_set(d, k, val_int((e[0] << 8) | e[1]));
    val_decref(k);
  }
  Val r = tuple_pack(2, val_int(groups), d);
  val_decref(d);
  return r;
}

/* Byte offset of character index ci in s (clamped to its length). */
static size_t re_byte_at(const char *s, size_t len, int64_t ci) {
  size_t b = 0;
  for (int64_t k = 0; k < ci && b < len; k++) {
    b++;
    while (b < len && ((unsigned char)s[b] & 0xC0) == 0x80) b++;
  }
  return b;
}

/* The spans of one match as Python's tuple of (start, end, text) per group, character offsets
 * ((-1, -1, None) unset); byte offsets are counted into characters from (bpos, cpos), a known pair. */
static Val re_spans(pcre2_code *c, pcre2_match_data *md, int rc, const char *s, size_t bpos, int64_t cpos) {
  uint32_t groups = 0;
  pcre2_pattern_info(c, PCRE2_INFO_CAPTURECOUNT, &groups);
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
  uint32_t pairs = pcre2_get_ovector_count(md);
  Val t = tuple_new(groups + 1);
  Tuple *tp = (Tuple *)t.u.o;
  for (uint32_t g = 0; g <= groups; g++) {
    int64_t cs = -1, ce = -1;
    Val text = val_none();
    if (g < pairs && (g < (uint32_t)rc || rc == 0) && ov[2 * g] != PCRE2_UNSET) {
      cs = cpos, ce = cpos;
      for (size_t b = bpos; b < ov[2 * g]; b++) cs += ((unsigned char)s[b] & 0xC0) != 0x80;
      for (size_t b = bpos; b < ov[2 * g + 1]; b++) ce += ((unsigned char)s[b] & 0xC0) != 0x80;
      text = str_new(s + ov[2 * g], (tfs_i64)(ov[2 * g + 1] - ov[2 * g]));
    }
    tp->items[g] = tuple_pack(3, val_int(cs), val_int(ce), text);   /* the text too: slicing a str counts from its start */
    val_decref(text);
  }
  return t;
}

static _Noreturn void re_match_failed(pcre2_match_data *md, int rc) {
  pcre2_match_data_free(md);
  PCRE2_UCHAR msg[256];
  pcre2_get_error_message(rc, msg, sizeof msg);
  rt_throw(ERR_RUNTIME, "regular expression match failed: %s", (const char *)msg);
}

/* _re.match(h, string, pos, endpos, mode, notempty_atstart): mode 0 search, 1 match, 2 fullmatch;
 * None, or the spans of the match (re_spans). */
static Val re_match(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 6 || (kw && kw->n)) rt_throw(ERR_TYPE, "_re.match() takes 6 arguments");
  pcre2_code *c = re_get(args[0]);
  const char *s = re_str(args[1], "match");
  size_t len = (size_t)str_len(args[1]);
  int64_t pos = val_to_index(args[2], NULL), endpos = val_to_index(args[3], NULL), mode = val_to_index(args[4], NULL);
  size_t bpos = re_byte_at(s, len, pos), bend = re_byte_at(s, len, endpos);
  if (bend < bpos) return val_none();
  uint32_t opt = mode == 1 ? PCRE2_ANCHORED : mode == 2 ? PCRE2_ANCHORED | PCRE2_ENDANCHORED : 0;
  if (rt_truthy(args[5])) opt |= PCRE2_NOTEMPTY_ATSTART;
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(c, NULL);
  if (!md) rt_throw(ERR_MEMORY, "out of memory");
  int rc = pcre2_match(c, (PCRE2_SPTR)s, bend, bpos, opt | PCRE2_NO_UTF_CHECK, md, NULL);
  if (rc == PCRE2_ERROR_NOMATCH) {
    pcre2_match_data_free(md);
    return val_none();
  }
  if (rc < 0) re_match_failed(md, rc);
  Val t = re_spans(c, md, rc, s, bpos, pos);
  pcre2_match_data_free(md);
  return t;
}

/* _re.scan(h, string, pos, endpos, limit): the spans of every successive match (finditer, findall,
 * sub, split), at most limit when limit > 0; after an empty match the next may not be empty at the
 * same place (Python 3.7+).  One pass: offsets advance from the last match, never from the start. */
static Val re_scan(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 5 || (kw && kw->n)) rt_throw(ERR_TYPE, "_re.scan() takes 5 arguments");
  pcre2_code *c = re_get(args[0]);
  const char *s = re_str(args[1], "scan");
  size_t len = (size_t)str_len(args[1]);
  int64_t pos = val_to_index(args[2], NULL), endpos = val_to_index(args[3], NULL), limit = val_to_index(args[4], NULL);
  size_t bpos = re_byte_at(s, len, pos), bend = re_byte_at(s, len, endpos);
  Val out = list_new(0);
  if (bend < bpos) return out;
  int mark = rt_hold_val(out);
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(c, NULL);
  if (!md) rt_throw(ERR_MEMORY, "out of memory");
  uint32_t opt = 0;
  for (int64_t k = 0; limit <= 0 || k < limit; k++) {
    int rc = pcre2_match(c, (PCRE2_SPTR)s, bend, bpos, opt | PCRE2_NO_UTF_CHECK, md, NULL);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) re_match_failed(md, rc);
    Val t = re_spans(c, md, rc, s, bpos, pos);
    list_append(out, t);
    val_decref(t);
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    for (size_t b = bpos; b < ov[1]; b++) pos += ((unsigned char)s[b] & 0xC0) != 0x80;
    opt = ov[0] == ov[1] ? PCRE2_NOTEMPTY_ATSTART : 0;
    bpos = ov[1];
    if (bpos > bend) break;
  }
  pcre2_match_data_free(md);
  rt_unhold(mark);
  return out;
}

#define RB(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "_re." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin re_fns[] = {RB("compile", re_compile), RB("info", re_info), RB("match", re_match), RB("scan", re_scan)};

static Val re_attr(const char *name) {
  for (size_t i = 0; i < sizeof re_fns / sizeof re_fns[0]; i++)
    if (!strcmp(re_fns[i].name + 4, name)) return val_obj(&re_fns[i]);
  return val_undef();
}

Val remod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_re", re_attr);
  return val_incref(mod);
}
