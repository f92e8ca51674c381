/* test_docs.c — the generated doc table against what is implemented: every op api name and dtype is
 * documented with the op table's signature, every documented tf name resolves, close matches for typos. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "modules/docs.h"
#include "modules/modules.h"
#include "object/object.h"
#include "kernels/ops.h"

/* The value of a dotted tf name (tf.autograph.experimental.set_loop_options) through the native modules'
 * getattr, as a program's attribute chain would find it; VT_UNDEF when some part is missing. */
static Val resolve(const char *name) {
  Val cur = tf_module();
  const char *s = name + 3;
  while (*s) {
    char part[128];
    size_t n = strcspn(s, ".");
    snprintf(part, sizeof part, "%.*s", (int)n, s);
    s += n + (s[n] == '.');
    if (!val_is(cur, &module_type)) {
      val_decref(cur);
      return val_undef();
    }
    Val next = ((Module *)cur.u.o)->getattr(part);
    val_decref(cur);
    if (val_is_undef(next)) return next;
    cur = next;
  }
  return cur;
}

START_TEST(test_every_op_name_documented) {
  int names = 0;
  for (int i = 0; i < OP__COUNT; i++) {
    const char *s = op_defs[i].api;
    while (*s) {
      size_t n = strcspn(s, " ");
      char q[128];
      snprintf(q, sizeof q, "tf.%.*s", (int)n, s);
      const DocEntry *e = doc_find(q);
      ck_assert_msg(e != NULL, "%s has no doc entry", q);
      ck_assert_str_eq(e->sig, op_defs[i].sig);
      ck_assert_msg(strlen(e->doc) > 10, "%s: summary too short", q);
      names++;
      s += n;
      while (*s == ' ') s++;
    }
  }
  ck_assert_int_gt(names, 150);
  for (int d = 0; d < DT__COUNT; d++) {
    char q[64];
    snprintf(q, sizeof q, "tf.%s", dtype_info[d].name);
    ck_assert_msg(doc_find(q) != NULL, "%s has no doc entry", q);
  }
}
END_TEST

/* The _API tables of stdlib/tfcore.tfs, tfextra.tfs, tfgfile.tfs and tfdatasave.tfs: the tf names written in .tfs, which exist only
 * in a program that compiles the library in (compiler/program.c), so this runtime alone cannot resolve them. */
enum { NAPI = 4 };
static char api_src[NAPI][1 << 16];
static const char *const api_file[NAPI] = {TFS_SOURCE_ROOT "/stdlib/tfcore.tfs", TFS_SOURCE_ROOT "/stdlib/tfextra.tfs",
                                           TFS_SOURCE_ROOT "/stdlib/tfgfile.tfs", TFS_SOURCE_ROOT "/stdlib/tfdatasave.tfs"};
static const char *tfcore_api(int k) {
  if (!api_src[k][0]) {
    FILE *f = fopen(api_file[k], "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(api_src[k], 1, sizeof api_src[k] - 1, f);
    api_src[k][n] = 0;
    fclose(f);
  }
  const char *api = strstr(api_src[k], "\n_API = {");
  ck_assert_ptr_nonnull(api);
  return api;
}

/* Whether tf.<qual> (or the module holding it: tf.nest for tf.nest.flatten) is an entry of those tables. */
static bool in_tfcore(const char *qual) {
  char key[140];
  snprintf(key, sizeof key, "\"%s\":", qual);
  for (int k = 0; k < NAPI; k++)
    if (strstr(tfcore_api(k), key)) return true;
  const char *dot = strrchr(qual, '.');
  if (!dot) return false;
  char outer[128];
  snprintf(outer, sizeof outer, "%.*s", (int)(dot - qual), qual);
  return in_tfcore(outer);
}

START_TEST(test_tfcore_names_documented) {
  int n = 0;
  for (int k = 0; k < NAPI; k++) {
    const char *api = tfcore_api(k), *close = strchr(api, '}');
    for (const char *s = strchr(api, '{'); (s = strchr(s + 1, '"')) != NULL && s < close; n++) {
      const char *e = strchr(s + 1, '"');
      char q[140];
      snprintf(q, sizeof q, "tf.%.*s", (int)(e - s - 1), s + 1);
      ck_assert_msg(doc_find(q) != NULL, "%s (%s) has no doc entry", q, api_file[k]);
      s = strchr(e, '\n');
    }
  }
  ck_assert_int_gt(n, 20);
}
END_TEST

START_TEST(test_every_documented_tf_name_exists) {
  int checked = 0;
  for (int i = 0; i < doc_count; i++) {
    const char *nm = doc_table[i].name;
    if (i) ck_assert_msg(strcmp(doc_table[i - 1].name, nm) < 0, "doc table not sorted at %s", nm);
    if (!strcmp(nm, "tf")) continue;
    if (!strncmp(nm, "tf.", 3)) {
      Val v = resolve(nm);
      /* tf.distribute is stdlib/distribute.tfs, tf.keras.mixed_precision stdlib/keras_mixed_precision.tfs and
       * tf.keras.applications stdlib/keras_applications.tfs, compiled only into programs that name them
       * (compiler/program.c) */
      bool library = !strcmp(nm, "tf.distribute") || !strncmp(nm, "tf.distribute.", 14) ||
                     !strncmp(nm, "tf.keras.mixed_precision.", 25) || !strcmp(nm, "tf.keras.applications") ||
                     !strncmp(nm, "tf.keras.applications.", 22);
      ck_assert_msg(!val_is_undef(v) || in_tfcore(nm + 3) || library, "documented %s does not exist", nm);
      val_decref(v);
      checked++;
    } else if (!strchr(nm, '.')) {
      Val v = builtins_lookup(nm);
      ck_assert_msg(!val_is_undef(v), "documented builtin %s does not exist", nm);
      val_decref(v);
      checked++;
    }
  }
  ck_assert_int_gt(checked, 200);
}
END_TEST

static const char *unknown(const char *name) {
  static char out[512];
  StrBuf b;
  sb_init(&b);
  doc_unknown(&b, name);
  snprintf(out, sizeof out, "%.*s", (int)b.len, b.data);
  sb_free(&b);
  return out;
}

START_TEST(test_close_matches) {
  ck_assert_str_eq(unknown("tf.reduce_summ"),
                   "no documentation for 'tf.reduce_summ'; did you mean tf.reduce_sum, tf.reduce_max or tf.reduce_min?");
  ck_assert_str_eq(unknown("tf.zzzzzzzzzzzzzzzzz"), "no documentation for 'tf.zzzzzzzzzzzzzzzzz'");
  /* the tf. prefix may be left out */
  ck_assert_ptr_nonnull(strstr(unknown("matmull"), "did you mean tf.matmul"));
  ck_assert_ptr_nonnull(strstr(unknown("GradientTape.gradiant"), "did you mean GradientTape.gradient"));
  /* long names do not overflow the similarity table */
  char big[400];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = 0;
  ck_assert_ptr_nonnull(strstr(unknown(big), "no documentation for"));
}
END_TEST

START_TEST(test_format) {
  StrBuf b;
  sb_init(&b);
  doc_format(&b, doc_find("tf.add"));
  ck_assert_str_eq(b.data, "tf.add(x, y, name=None)\n"
                           "    Element-wise x + y, with NumPy broadcasting; string tensors concatenate.\n"
                           "    Inputs: x (tensor), y (tensor); dtypes: float32, float64, int32, int64,\n"
                           "    float16, bfloat16, uint8, int8, int16, uint16, uint32, uint64, complex64,\n"
                           "    complex128, string.\n"
                           "    Also: tf.math.add\n");
  sb_free(&b);
  ck_assert_ptr_null(doc_find("tf.nonexistent"));
  ck_assert_ptr_null(doc_find(""));
}
END_TEST

static Suite *docs_suite(void) {
  Suite *s = suite_create("docs");
  TCase *tc = tcase_create("docs");
  tcase_add_test(tc, test_every_op_name_documented);
  tcase_add_test(tc, test_every_documented_tf_name_exists);
  tcase_add_test(tc, test_tfcore_names_documented);
  tcase_add_test(tc, test_close_matches);
  tcase_add_test(tc, test_format);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(docs_suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
