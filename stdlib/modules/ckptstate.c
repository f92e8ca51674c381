/* ckptstate.c — the `checkpoint` state file beside TF checkpoints (written and read as TF's checkpoint_management does), and the paths around it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "object/atomicfile.h"
#include "dist/dist.h"
#include "formats/iofile.h"
#include "modules/ckptstate.h"
#include "object/object.h"

char *cstate_dir_of(const char *prefix) {
  const char *slash = strrchr(prefix, '/');
  if (!slash) return strdup(".");
  if (slash == prefix) return strdup("/");
  return strndup(prefix, (size_t)(slash - prefix));
}

void cstate_mkdirs(const char *what, const char *dir) {
  char *p = strdup(dir);
  int mark = rt_hold_mem(p);
  for (char *s = p + 1; ; s++) {
    bool end = !*s;
    if (*s == '/' || end) {
      *s = 0;
      if (mkdir(p, 0777) && errno != EEXIST) rt_throw(ERR_IO, "%s: cannot create the directory %s: %s", what, p, strerror(errno));
      if (end) break;
      *s = '/';
    }
  }
  rt_unhold(mark);
  free(p);
}

bool cstate_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* Python's repr of a float (the shortest text that reads back), as text_format prints a double. */
static void put_double(StrBuf *b, double v) {
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  sb_puts(b, buf);
}

/* The name in the state file: relative to the directory when inside it (save_relative_paths). */
static const char *rel_to(const char *dir, const char *path) {
  size_t n = strlen(dir);
  if (!strcmp(dir, ".") && !strchr(path, '/')) return path;
  if (!strncmp(path, dir, n) && path[n] == '/') return path + n + 1;
  return path;
}

/* Write DIR/checkpoint as TF's update_checkpoint_state does (a CheckpointState in text format). */
void cstate_write(const char *what, const char *dir, const char *latest, int n, char *const *all, const double *stamps,
                        double preserved) {
  if (!dist_writes()) return;   /* with N > 1 the chief writes (§18.7) */
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  sb_puts(&b, "model_checkpoint_path: ");
  const char *l = rel_to(dir, latest);
  str_repr_into(&b, l, (tfs_i64)strlen(l));
  sb_putc(&b, '\n');
  for (int i = 0; i < n; i++) {
    const char *a = rel_to(dir, all[i]);
    sb_puts(&b, "all_model_checkpoint_paths: ");
    str_repr_into(&b, a, (tfs_i64)strlen(a));
    sb_putc(&b, '\n');
  }
  for (int i = 0; stamps && i < n; i++) {
    sb_puts(&b, "all_model_checkpoint_timestamps: ");
    put_double(&b, stamps[i]);
    sb_putc(&b, '\n');
  }
  if (preserved > 0) {
    sb_puts(&b, "last_preserved_timestamp: ");
    put_double(&b, preserved);
    sb_putc(&b, '\n');
  }
  /* text_format quotes with double quotes; str_repr_into picked single ones */
  for (size_t i = 0; i < b.len; i++)
    if (b.data[i] == '\'') b.data[i] = '"';
  char *path = malloc(strlen(dir) + 16);
  if (!path) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(path);
  sprintf(path, "%s/checkpoint", dir);
  int e = af_write(path, b.data, b.len);
  if (e) rt_throw(ERR_IO, "%s: cannot write %s: %s", what, path, strerror(e));
  rt_unhold(mark);
  free(path);
  sb_free(&b);
}

/* The quoted values of `field:` lines in DIR/checkpoint (a list of str), or VT_UNDEF when there is no state file. */
Val cstate_read(const char *dir, const char *field) {
  char *path = malloc(strlen(dir) + 16);
  if (!path) rt_throw(ERR_MEMORY, "out of memory");
  sprintf(path, "%s/checkpoint", dir);
  int mark = rt_hold_mem(path);
  if (!cstate_exists(path)) {
    rt_unhold(mark);
    free(path);
    return val_undef();
  }
  tfs_i64 len;
  char *text = io_read_bytes(path, "tf.train.latest_checkpoint", &len, false);
  rt_hold_mem(text);
  Val out = list_new(0);
  rt_hold_val(out);
  size_t fl = strlen(field);
  for (char *line = text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    while (*line == ' ') line++;
    if (!strncmp(line, field, fl) && line[fl] == ':') {
      char *q = strchr(line + fl, '"');
      char *e = q ? strrchr(q + 1, '"') : NULL;
      if (q && e) {
        Val s = str_new(q + 1, (tfs_i64)(e - q - 1));
        list_append(out, s);
        val_decref(s);
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  rt_unhold(mark);
  free(text);
  free(path);
  return out;
}

/* DIR joined with a state-file path unless that is absolute. */
Val cstate_join(const char *dir, const char *p) {
  if (p[0] == '/') return str_from_cstr(p);
  StrBuf b;
  sb_init(&b);
  sb_printf(&b, "%s/%s", dir, p);
  Val r = str_new(b.data, (tfs_i64)b.len);
  sb_free(&b);
  return r;
}

/* tf.train.latest_checkpoint's answer: DIR/<model_checkpoint_path> when its .index exists, else None. */
Val cstate_latest(const char *dir) {
  Val l = cstate_read(dir, "model_checkpoint_path");
  if (val_is_undef(l)) return val_none();
  int mark = rt_hold_val(l);
  tfs_i64 n;
  const Val *items;
  seq_items(l, &n, &items);
  Val r = val_none();
  if (n > 0) {
    Val p = cstate_join(dir, str_cstr(items[n - 1]));
    char *idx = malloc((size_t)str_len(p) + 8);
    if (!idx) rt_throw(ERR_MEMORY, "out of memory");
    sprintf(idx, "%s.index", str_cstr(p));
    if (cstate_exists(idx)) r = p;
    else val_decref(p);
    free(idx);
  }
  rt_unhold(mark);
  val_decref(l);
  return r;
}

double cstate_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Delete a checkpoint's two files (CheckpointManager's rotation). */
void cstate_remove(const char *prefix) {
  if (!dist_writes()) return;
  size_t n = strlen(prefix) + 32;
  char *p = malloc(n);
  if (!p) rt_throw(ERR_MEMORY, "out of memory");
  snprintf(p, n, "%s.index", prefix);
  unlink(p);
  snprintf(p, n, "%s.data-00000-of-00001", prefix);
  unlink(p);
  free(p);
}
