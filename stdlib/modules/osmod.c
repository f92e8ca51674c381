/* osmod.c — `_os`: the POSIX calls under stdlib's os, posixpath, io (open), sys, glob, shutil and tempfile modules. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

extern char **environ;

static const char *os_path(Val v, const char *what) {
  if (!val_is(v, &str_type))
    rt_throw(ERR_TYPE, "%s: path should be string, bytes or os.PathLike, not %s", what, val_type_name(v));
  return str_cstr(v);
}

static void os_nargs(const char *what, int n, const Kw *kw, int lo, int hi) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s() takes no keyword arguments", what);
  if (n < lo || n > hi) rt_throw(ERR_TYPE, "%s() takes %d to %d arguments (%d given)", what, lo, hi, n);
}

static Val os_getcwd(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("getcwd", n, kw);
  char *c = getcwd(NULL, 0);
  if (!c) exc_os_error(errno, NULL);
  return str_take(c, (tfs_i64)strlen(c));
}

static Val os_chdir(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("chdir", n, kw, 1, 1);
  const char *p = os_path(args[0], "chdir");
  if (chdir(p)) exc_os_error(errno, p);
  return val_none();
}

static Val os_listdir(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("listdir", n, kw, 0, 1);
  const char *p = n ? os_path(args[0], "listdir") : ".";
  DIR *d = opendir(p);
  if (!d) exc_os_error(errno, p);
  Val l = list_new(8);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    Val s = str_from_cstr(e->d_name);
    list_append(l, s);
    val_decref(s);
  }
  closedir(d);
  return l;
}

static Val os_mkdir(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("mkdir", n, kw, 1, 2);
  const char *p = os_path(args[0], "mkdir");
  int64_t mode = n > 1 ? val_to_index(args[1], NULL) : 0777;
  if (mkdir(p, (mode_t)mode)) exc_os_error(errno, p);
  return val_none();
}

static Val os_path_call(const char *what, int n, const Val *args, const Kw *kw, int (*f)(const char *)) {
  os_nargs(what, n, kw, 1, 1);
  const char *p = os_path(args[0], what);
  if (f(p)) exc_os_error(errno, p);
  return val_none();
}
static Val os_rmdir(Val self, int n, const Val *args, const Kw *kw) { return os_path_call("rmdir", n, args, kw, rmdir); }
static Val os_remove(Val self, int n, const Val *args, const Kw *kw) { return os_path_call("remove", n, args, kw, unlink); }

static Val os_rename(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("rename", n, kw, 2, 2);
  const char *a = os_path(args[0], "rename"), *b = os_path(args[1], "rename");
  if (rename(a, b)) exc_os_error2(errno, a, b);
  return val_none();
}

/* _os.stat(path): (st_mode, st_size, st_mtime), or the OSError. */
static Val os_stat(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("stat", n, kw, 1, 1);
  const char *p = os_path(args[0], "stat");
  struct stat st;
  if (stat(p, &st)) exc_os_error(errno, p);
  return tuple_pack(3, val_int(st.st_mode), val_int(st.st_size),
                    val_float((double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec * 1e-9));
}

/* _os.kind(path): 0 missing, 1 regular file, 2 directory, 3 something else (never raises). */
static Val os_kind(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("kind", n, kw, 1, 1);
  if (!val_is(args[0], &str_type)) return val_int(0);
  struct stat st;
  if (stat(str_cstr(args[0]), &st)) return val_int(0);
  return val_int(S_ISREG(st.st_mode) ? 1 : S_ISDIR(st.st_mode) ? 2 : 3);
}

static Val os_environ(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("environ", n, kw);
  Val d = dict_new();
  for (char **e = environ; e && *e; e++) {
    const char *eq = strchr(*e, '=');
    if (!eq) continue;
    Val k = str_new(*e, (tfs_i64)(eq - *e)), v = str_from_cstr(eq + 1);
    dict_set(d, k, v);
    val_decref(k);
    val_decref(v);
  }
  return d;
}

static Val os_putenv(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("putenv", n, kw, 1, 2);
  const char *k = os_path(args[0], "putenv");
  if (n == 1) unsetenv(k);
  else setenv(k, os_path(args[1], "putenv"), 1);
  return val_none();
}

static Val os_getpid(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("getpid", n, kw);
  return val_int(getpid());
}

static Val os_cpu_count(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("cpu_count", n, kw);
  return val_int(sysconf(_SC_NPROCESSORS_ONLN));
}

/* _os.open(path, mode): a file descriptor for Python's mode letters r w a x (+). */
static Val os_open(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("open", n, kw, 2, 2);
  const char *p = os_path(args[0], "open"), *m = os_path(args[1], "open");
  bool plus = strchr(m, '+') != NULL;
  int fl = strchr(m, 'w') ? O_CREAT | O_TRUNC | (plus ? O_RDWR : O_WRONLY)
         : strchr(m, 'a') ? O_CREAT | O_APPEND | (plus ? O_RDWR : O_WRONLY)
         : strchr(m, 'x') ? O_CREAT | O_EXCL | (plus ? O_RDWR : O_WRONLY)
                          : (plus ? O_RDWR : O_RDONLY);
  int fd = open(p, fl | O_CLOEXEC, 0666);
  if (fd < 0) exc_os_error(errno, p);
  struct stat st;
  if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
    close(fd);
    exc_os_error(EISDIR, p);
  }
  return val_int(fd);
}

/* _os.read(fd): the rest of the file as bytes. */
static Val os_read(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("read", n, kw, 1, 1);
  int fd = (int)val_to_index(args[0], NULL);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  char chunk[65536];
  for (;;) {
    ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) exc_os_error(errno, NULL);
    if (got == 0) break;
    sb_putn(&b, chunk, (size_t)got);
  }
  rt_unhold(mark);
  Val r = bytes_new(b.data ? b.data : "", b.len);
  sb_free(&b);
  return r;
}

/* _os.write(fd, data): data a str (UTF-8) or bytes; the bytes written. */
static Val os_write(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("write", n, kw, 2, 2);
  int fd = (int)val_to_index(args[0], NULL);
  const char *d;
  size_t len;
  if (val_is(args[1], &str_type)) {
    d = str_cstr(args[1]);
    len = (size_t)str_len(args[1]);
  } else if (val_is(args[1], &bytes_type)) {
    d = bytes_data(args[1], &len);
  } else {
    rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(args[1]));
  }
  if (fd == 1) {
    rt_write_stdout(d, len);
    return val_int((int64_t)len);
  }
  if (fd == 2) rt_flush();
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(fd, d + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) exc_os_error(errno, NULL);
    off += (size_t)w;
  }
  return val_int((int64_t)len);
}

static Val os_close(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("close", n, kw, 1, 1);
  int fd = (int)val_to_index(args[0], NULL);
  if (fd > 2 && close(fd)) exc_os_error(errno, NULL);
  return val_none();
}

/* _os.exit(code): flush and end the process at once (no SystemExit; sys.exit raises one). */
static Val os_exit(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("exit", n, kw, 1, 1);
  rt_flush();
  fflush(stderr);
  exit((int)val_to_index(args[0], NULL));
}

/* _os.glob(pattern): the C library's glob(3), sorted, no match -> []. */
static Val os_glob(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("glob", n, kw, 1, 1);
  glob_t g;
  memset(&g, 0, sizeof g);
  Val l = list_new(0);
  if (glob(os_path(args[0], "glob"), 0, NULL, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; i++) {
      Val s = str_from_cstr(g.gl_pathv[i]);
      list_append(l, s);
      val_decref(s);
    }
  }
  globfree(&g);
  return l;
}

/* _os.mkdtemp(prefix, suffix, dir): mkdtemp(3) under dir. */
static Val os_mkdtemp(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("mkdtemp", n, kw, 3, 3);
  const char *pre = os_path(args[0], "mkdtemp"), *dir = os_path(args[2], "mkdtemp");
  char *t = NULL;
  if (asprintf(&t, "%s/%sXXXXXXXX", dir, pre) < 0) rt_throw(ERR_MEMORY, "out of memory");
  if (!mkdtemp(t)) {
    int e = errno;
    free(t);
    exc_os_error(e, dir);
  }
  Val r = str_from_cstr(t);
  free(t);
  if (val_is(args[1], &str_type) && str_len(args[1])) {
    Val s = rt_binop(BIN_ADD, r, args[1]);
    if (rename(str_cstr(r), str_cstr(s))) {
      val_decref(s);
      s = val_incref(r);
    }
    val_decref(r);
    r = s;
  }
  return r;
}

/* _os.mkstemp(prefix, suffix, dir): (fd, path) from mkostemps(3) under dir, opened read-write, mode 0600, close-on-exec
 * (Python's tempfile.mkstemp; the caller owns the descriptor). */
static Val os_mkstemp(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("mkstemp", n, kw, 3, 3);
  const char *pre = os_path(args[0], "mkstemp"), *suf = os_path(args[1], "mkstemp"), *dir = os_path(args[2], "mkstemp");
  char *t = NULL;
  if (asprintf(&t, "%s/%sXXXXXXXX%s", dir, pre, suf) < 0) rt_throw(ERR_MEMORY, "out of memory");
  int fd = mkostemps(t, (int)strlen(suf), O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    free(t);
    exc_os_error(e, dir);
  }
  Val fdv = val_int(fd), path = str_from_cstr(t);
  free(t);
  Val r = tuple_pack(2, fdv, path);
  val_decref(path);
  return r;
}

static int os_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f) {
  (void)st;
  (void)f;
  return flag == FTW_DP ? rmdir(p) : unlink(p);
}

/* _os.rmtree(path): the tree removed depth-first (nftw(3)). */
static Val os_rmtree(Val self, int n, const Val *args, const Kw *kw) {
  os_nargs("rmtree", n, kw, 1, 1);
  const char *p = os_path(args[0], "rmtree");
  struct stat st;
  if (lstat(p, &st)) exc_os_error(errno, p);
  if (!S_ISDIR(st.st_mode)) exc_os_error(ENOTDIR, p);
  if (nftw(p, os_rm_one, 16, FTW_DEPTH | FTW_PHYS)) exc_os_error(errno, p);
  return val_none();
}

/* _os.argv(): the program's arguments (the builtin argv's list, which sys.argv is). */
static Val os_argv(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("argv", n, kw);
  return builtins_lookup("argv");
}

#define OB(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "_os." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin os_fns[] = {
  OB("getcwd", os_getcwd), OB("chdir", os_chdir),     OB("listdir", os_listdir), OB("mkdir", os_mkdir),
  OB("rmdir", os_rmdir),   OB("remove", os_remove),   OB("rename", os_rename),   OB("stat", os_stat),
  OB("kind", os_kind),     OB("environ", os_environ), OB("putenv", os_putenv),   OB("getpid", os_getpid),
  OB("cpu_count", os_cpu_count), OB("open", os_open), OB("read", os_read),       OB("write", os_write),
  OB("close", os_close),   OB("exit", os_exit),       OB("glob", os_glob),       OB("mkdtemp", os_mkdtemp),
  OB("mkstemp", os_mkstemp), OB("rmtree", os_rmtree), OB("argv", os_argv),
};

static Val os_attr(const char *name) {
  for (size_t i = 0; i < sizeof os_fns / sizeof os_fns[0]; i++)
    if (!strcmp(os_fns[i].name + 4, name)) return val_obj(&os_fns[i]);
  return val_undef();
}

Val osmod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_os", os_attr);
  return val_incref(mod);
}
