/* jsonread.c — JSON text to Python values through jansson (the word indexes of Keras's imdb and reuters data sets). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "formats/jsonread.h"

static void json_release(void *p) { json_decref(p); }

/* A jansson value as a Python value (owned); depth bounds the recursion (jansson's own parser nests at most 2048). */
static Val to_val(json_t *j, int depth) {
  switch (json_typeof(j)) {
  case JSON_OBJECT: {
    Val d = dict_new();
    int mark = rt_hold_val(d);
    const char *k;
    json_t *v;
    json_object_foreach(j, k, v) {   /* jansson keeps the insertion order, as json.loads's dict */
      Val key = str_from_cstr(k);
      int km = rt_hold_val(key);
      Val e = to_val(v, depth + 1);
      dict_set(d, key, e);
      val_decref(e);
      rt_unhold(km);
      val_decref(key);
    }
    rt_unhold(mark);
    return d;
  }
  case JSON_ARRAY: {
    Val l = list_new((tfs_i64)json_array_size(j));
    int mark = rt_hold_val(l);
    size_t i;
    json_t *v;
    json_array_foreach(j, i, v) {
      Val e = to_val(v, depth + 1);
      list_append(l, e);
      val_decref(e);
    }
    rt_unhold(mark);
    return l;
  }
  case JSON_STRING: return str_new(json_string_value(j), (tfs_i64)json_string_length(j));
  case JSON_INTEGER: return val_int((tfs_i64)json_integer_value(j));
  case JSON_REAL: return val_float(json_real_value(j));
  case JSON_TRUE: return val_bool(true);
  case JSON_FALSE: return val_bool(false);
  default: return val_none();
  }
}

Val json_read(const char *text, tfs_i64 len, const char *where) {
  json_error_t err;
  json_t *j = json_loadb(text, (size_t)len, JSON_DECODE_ANY, &err);
  if (!j) rt_throw(ERR_VALUE, "%s: %s: line %d column %d (char %d)", where, err.text, err.line, err.column, err.position);
  int mark = rt_hold_fn(json_release, j);
  Val v = to_val(j, 0);
  rt_unhold(mark);
  json_decref(j);
  return v;
}
