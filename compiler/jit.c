/* jit.c — libtcc in-process: bind the runtime ABI by name, relocate into memory, or link an executable. */
#include "jit.h"
#include "objcache.h"
#include "paths.h"
#include "object/atomicfile.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libtcc.h>

/* A module compiled as a unit of its own (cgen_program_units). */
typedef struct Unit {
  TCCState *s;
  void (*main)(int module, const int *imports);
  void (*exit)(void);
  int module;
  int *imports;
} Unit;

/* A unit, and (tfs run) its second unit: the eager bodies of tf.functions,
 * compiled at the first call of one (cgen_program_lazy), and the modules
 * compiled apart. */
struct Jit {
  Unit *units;
  int nunits;
  TCCState *s;
  const RtLazyRef *refs;      /* unit 1's tfs_lazy_refs (NULL: no second unit) */
  char *lazy_text;            /* the second unit's C until it compiles */
  TCCState *lazy;             /* ... and once it has */
  struct Jit *next;           /* in lazy_jits */
};

int rt_main(int argc, char **argv, void (*entry)(void), void (*leave)(void));

/* libtcc keeps process-wide state: one compilation at a time. */
static pthread_mutex_t tcc_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_error(void *opaque, const char *msg) {
  StrBuf *b = opaque;
  if (b) {
    sb_puts(b, msg);
    sb_putc(b, '\n');
  }
}

/* tcc lowers every struct copy (a 16-byte Val) to a memmove call: a call to
 * libc's general memmove cost ~40% of a scalar `a + b` loop.  These handle
 * the Val case inline and defer to libc otherwise. */
static void *jit_memmove(void *d, const void *s, size_t n) {
  if (n == sizeof(Val)) {
    Val v;
    memcpy(&v, s, sizeof v);
    memcpy(d, &v, sizeof v);
    return d;
  }
  return memmove(d, s, n);
}

static void *jit_memcpy(void *d, const void *s, size_t n) { return jit_memmove(d, s, n); }

static const char *extra_name;
static void *extra_addr;

void jit_bind_extra(const char *name, void *addr) {
  extra_name = name;
  extra_addr = addr;
}

static void lazy_load(const RtLazyRef *refs);

/* The program whose units tfs_units_main and tfs_units_exit start and end
 * (one program runs at a time). */
static Jit *units_jit;

static void units_main(void) {
  for (int i = 0; units_jit && i < units_jit->nunits; i++) units_jit->units[i].main(units_jit->units[i].module, units_jit->units[i].imports);
}

static void units_exit(void) {
  for (int i = 0; units_jit && i < units_jit->nunits; i++) units_jit->units[i].exit();
}

static void bind_runtime(TCCState *s) {
  tcc_add_symbol(s, "tfs_units_main", (const void *)units_main);
  tcc_add_symbol(s, "tfs_units_exit", (const void *)units_exit);
  if (extra_name) tcc_add_symbol(s, extra_name, extra_addr);
  tcc_add_symbol(s, "tfs_lazy_load", (const void *)lazy_load);
#define BIND(ret, name, params) tcc_add_symbol(s, #name, (const void *)name);
  TFS_RT_API(BIND)
#undef BIND
  tcc_add_symbol(s, "rt_cur_loc", &rt_cur_loc);
  tcc_add_symbol(s, "rt_main", (const void *)rt_main); /* referenced by units built with a main() */
  /* tcc lowers struct copies and compound literals to these. */
  tcc_add_symbol(s, "_setjmp", (const void *)_setjmp);
  tcc_add_symbol(s, "memset", (const void *)memset);
  tcc_add_symbol(s, "memcpy", (const void *)jit_memcpy);
  tcc_add_symbol(s, "memmove", (const void *)jit_memmove);
}

/* What every in-memory unit is compiled with (part of the cache key). */
static const char mem_opts[] = "-nostdlib -nostdinc";

static TCCState *new_state(int output, const char *opts, StrBuf *err) {
  TCCState *s = tcc_new();
  if (!s) {
    sb_puts(err, "cannot create a tcc state\n");
    return NULL;
  }
  tcc_set_error_func(s, err, on_error);
  tcc_set_options(s, opts);
  tcc_set_output_type(s, output);
  return s;
}

/* Compile `csrc` to the object file `path`: 1 done, -1 the C does not
 * compile (tcc's messages in err), 0 it could not be written (a full disk:
 * the caller compiles in memory, and no message about it reaches the user). */
static int compile_obj(const char *csrc, const char *opts, const char *path, StrBuf *err) {
  TCCState *s = new_state(TCC_OUTPUT_OBJ, opts, err);
  if (!s) return 0;
  int r = tcc_compile_string(s, csrc) == 0 ? 1 : -1;
  if (r > 0) {
    StrBuf quiet;
    sb_init(&quiet);
    tcc_set_error_func(s, &quiet, on_error);
    if (tcc_output_file(s, path) != 0) r = 0;
    sb_free(&quiet);
  }
  tcc_delete(s);
  return r;
}

/* The unit's object from the cache (objcache.c), compiled into it first
 * when missing or damaged; NULL when there is no usable cache, or its entry
 * cannot be loaded (the caller compiles in memory then).  fd: /proc's view
 * of the open entry, which a concurrent prune or rewrite cannot change. */
static TCCState *load_object(int fd, const char *entry, StrBuf *err);

/* An open descriptor of the unit's cache entry, compiled into it first when
 * missing or damaged; -1 when there is no usable cache (*failed: the C
 * itself does not compile).  *entry_out: the entry's path (malloc'd). */
static int cached_fd(const char *csrc, const char *what, StrBuf *err, bool *failed, char **entry_out) {
  *entry_out = NULL;
  char *entry = objcache_entry(csrc, mem_opts);
  if (!entry) return -1;
  int fd = objcache_open(entry);
  objcache_trace(fd >= 0 ? "hit" : "miss", what, entry);
  if (fd < 0) {
    char *tmp = objcache_temp(entry);
    /* a file size limit (ulimit -f) is a write error here, as rt_main makes it for the program, not a kill */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGXFSZ, &ign, &old);
    int r = tmp ? compile_obj(csrc, mem_opts, tmp, err) : 0;
    if (r > 0) {
      fd = objcache_commit(tmp, entry);
    } else {
      af_abort(tmp);
      *failed = r < 0;   /* the C itself is wrong: compiling again would say the same */
    }
    sigaction(SIGXFSZ, &old, NULL);
  }
  if (fd >= 0) *entry_out = entry;
  else free(entry);
  return fd;
}

static TCCState *load_cached(const char *csrc, const char *what, StrBuf *err, bool *failed, char **entry_out) {
  char *entry;
  int fd = cached_fd(csrc, what, err, failed, &entry);
  TCCState *s = fd >= 0 ? load_object(fd, entry, err) : NULL;
  if (s && entry_out) *entry_out = entry;
  else free(entry);
  return s;
}

/* The object file the cache entry `entry` holds, open as fd (closed here),
 * in a new state; NULL (the entry removed) when tcc refuses it. */
static TCCState *load_object(int fd, const char *entry, StrBuf *err) {
  char via[64];
  snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
  StrBuf quiet;   /* an entry tcc refuses is dropped and the unit compiled afresh: its messages are no one's business */
  sb_init(&quiet);
  TCCState *s = new_state(TCC_OUTPUT_MEMORY, mem_opts, &quiet);
  if (s) {
    tcc_set_options(s, "-xb");   /* an object file, whatever its name says (/proc/self/fd/N has no .o) */
    if (tcc_add_file(s, access(via, R_OK) == 0 ? via : entry) == 0) {
      tcc_set_error_func(s, err, on_error);
    } else {
      tcc_delete(s);
      s = NULL;
      unlink(entry);
    }
  }
  sb_free(&quiet);
  close(fd);
  return s;
}

/* Bind the runtime and `refs`' slot-0 entries, and relocate (false: s deleted). */
static bool bind_relocate(TCCState *s, const RtLazyRef *refs) {
  bind_runtime(s);
  for (const RtLazyRef *r = refs; r && r->name; r++)
    if (!r->slot) tcc_add_symbol(s, r->name, r->addr);
  if (tcc_relocate(s, TCC_RELOCATE_AUTO) >= 0) return true;
  tcc_delete(s);
  return false;
}

/* Compile and relocate `csrc` in memory (through the object cache when it
 * has one), with the runtime and `refs`' slot-0 entries bound; the caller
 * holds tcc_lock. */
static TCCState *compile_locked(const char *csrc, const char *what, const RtLazyRef *refs, StrBuf *err, char **entry) {
  bool failed = false;
  TCCState *s = load_cached(csrc, what, err, &failed, entry);
  if (failed) return NULL;
  if (!s) {
    s = new_state(TCC_OUTPUT_MEMORY, mem_opts, err);
    if (!s) return NULL;
    if (tcc_compile_string(s, csrc) != 0) goto fail;
  }
  if (!bind_relocate(s, refs)) return NULL;
  return s;
fail:
  tcc_delete(s);
  return NULL;
}

Jit *jit_compile(const char *csrc, StrBuf *err) {
  pthread_mutex_lock(&tcc_lock);
  TCCState *s = compile_locked(csrc, "program", NULL, err, NULL);
  pthread_mutex_unlock(&tcc_lock);
  if (!s) return NULL;
  Jit *j = calloc(1, sizeof *j);
  if (!j) abort();
  j->s = s;
  return j;
}

/* The units with a second one not freed yet, and how many second units
 * have been compiled (jit_lazy_compiles); both under tcc_lock. */
static Jit *lazy_jits;
static int lazy_compiles;

Jit *jit_compile_lazy(const char *csrc, StrBuf *lazy, StrBuf *err) {
  Jit *j = jit_compile(csrc, err);
  if (!j || !lazy->len) return j;
  j->refs = jit_symbol(j, "tfs_lazy_refs");
  if (!j->refs) {
    sb_puts(err, "the unit has no tfs_lazy_refs table\n");
    jit_free(j);
    return NULL;
  }
  j->lazy_text = sb_steal(lazy);
  pthread_mutex_lock(&tcc_lock);
  j->next = lazy_jits;
  lazy_jits = j;
  pthread_mutex_unlock(&tcc_lock);
  return j;
}

/* The second unit of j, with unit 1's objects bound by name; each body's
 * address is stored into its pointer only once all are found. */
static bool lazy_compile_locked(Jit *j, StrBuf *err) {
  TCCState *s = compile_locked(j->lazy_text, "eager bodies", j->refs, err, NULL);
  if (!s) return false;
  for (const RtLazyRef *r = j->refs; r->name; r++)
    if (r->slot && !tcc_get_symbol(s, r->name)) {
      sb_printf(err, "the eager unit does not define %s\n", r->name);
      tcc_delete(s);
      return false;
    }
  /* release: a thread that sees a pointer sees the relocated code */
  for (const RtLazyRef *r = j->refs; r->name; r++)
    if (r->slot) __atomic_store_n((void **)r->addr, tcc_get_symbol(s, r->name), __ATOMIC_RELEASE);
  j->lazy = s;
  free(j->lazy_text);
  j->lazy_text = NULL;
  lazy_compiles++;
  return true;
}

bool jit_load_lazy(Jit *j, StrBuf *err) {
  pthread_mutex_lock(&tcc_lock);
  bool ok = !j->refs || j->lazy || lazy_compile_locked(j, err);
  pthread_mutex_unlock(&tcc_lock);
  return ok;
}

/* Called by unit 1's stub of a tf.function's eager body whose pointer is
 * still null (the first eager call, or a thread racing it).  A failure is an
 * internal error, raised at the call. */
static void lazy_load(const RtLazyRef *refs) {
  StrBuf err;
  sb_init(&err);
  pthread_mutex_lock(&tcc_lock);
  Jit *j = lazy_jits;
  while (j && j->refs != refs) j = j->next;
  pthread_mutex_unlock(&tcc_lock);
  bool ok = j && jit_load_lazy(j, &err);
  if (!j) sb_puts(&err, "no unit of the JIT holds the calling stub's table");
  if (ok) {
    sb_free(&err);
    return;
  }
  char msg[1024];   /* the error unwinds past this frame: nothing of it may need freeing */
  while (err.len && err.data[err.len - 1] == '\n') err.len--;
  snprintf(msg, sizeof msg, "%.*s", (int)err.len, err.data ? err.data : "");
  sb_free(&err);
  rt_throw(ERR_RUNTIME, "internal error: the eager code of the program's tf.functions did not compile\n%s", msg);
}

int jit_lazy_compiles(void) {
  pthread_mutex_lock(&tcc_lock);
  int n = lazy_compiles;
  pthread_mutex_unlock(&tcc_lock);
  return n;
}

/* Each module unit in a tcc state of its own (its names are its own, and
 * libtcc relocates one state at a time), then the program's. */
Jit *jit_compile_units(const char *csrc, StrBuf *lazy, CgUnit *cus, int n, StrBuf *err) {
  Unit *us = calloc((size_t)n + 1, sizeof *us);
  if (!us) abort();
  int k = 0;
  bool ok = true;
  for (; ok && k < n; k++) {
    pthread_mutex_lock(&tcc_lock);
    TCCState *s;
    if (cus[k].fd >= 0) {   /* cached, the module not parsed: its object as it is */
      s = load_object(cus[k].fd, cus[k].entry, err);
      cus[k].fd = -1;
      if (s && !bind_relocate(s, NULL)) s = NULL;
      if (!s) sb_printf(err, "the cached unit of module %s cannot be loaded\n", cus[k].name);
    } else {
      s = compile_locked(cus[k].text.data, cus[k].name, NULL, err, &cus[k].entry);
    }
    pthread_mutex_unlock(&tcc_lock);
    Unit *u = &us[k];
    u->s = s;
    u->module = cus[k].module;
    u->imports = malloc(sizeof *u->imports * (size_t)(cus[k].nimports + 1));
    if (!u->imports) abort();
    if (cus[k].nimports) memcpy(u->imports, cus[k].imports, sizeof *u->imports * (size_t)cus[k].nimports);
    if (s) {
      StrBuf sym;
      sb_init(&sym);
      cgen_unit_symbol(&sym, "main", cus[k].name);
      u->main = (void (*)(int, const int *))tcc_get_symbol(s, sym.data);
      sym.len = 0;
      cgen_unit_symbol(&sym, "exit", cus[k].name);
      u->exit = (void (*)(void))tcc_get_symbol(s, sym.data);
      sb_free(&sym);
    }
    ok = s && u->main && u->exit;
    if (s && !ok) sb_printf(err, "the unit of module %s does not define its tfs_unit_main/exit\n", cus[k].name);
  }
  Jit *j = ok ? jit_compile_lazy(csrc, lazy, err) : NULL;
  if (!j) {
    for (int i = 0; i < k; i++) {
      pthread_mutex_lock(&tcc_lock);
      if (us[i].s) tcc_delete(us[i].s);
      pthread_mutex_unlock(&tcc_lock);
      free(us[i].imports);
    }
    free(us);
    return NULL;
  }
  j->units = us;
  j->nunits = n;
  units_jit = j;
  return j;
}

void *jit_symbol(Jit *j, const char *name) { return tcc_get_symbol(j->s, name); }

void jit_free(Jit *j) {
  if (!j) return;
  pthread_mutex_lock(&tcc_lock);
  for (Jit **p = &lazy_jits; *p; p = &(*p)->next)
    if (*p == j) {
      *p = j->next;
      break;
    }
  if (j->lazy) tcc_delete(j->lazy);
  tcc_delete(j->s);
  for (int i = 0; i < j->nunits; i++) {
    tcc_delete(j->units[i].s);
    free(j->units[i].imports);
  }
  if (units_jit == j) units_jit = NULL;
  pthread_mutex_unlock(&tcc_lock);
  free(j->units);
  free(j->lazy_text);
  free(j);
}

/* Run argv[0] with argv; true when it exits 0.  Its stderr is the user's. */
/* Run a tool with its stderr captured into err: its raw messages reach the
 * user only inside an internal-error report, never for a user mistake. */
static bool run_tool(char *const *argv, StrBuf *err) {
  int fds[2];
  if (pipe(fds) != 0) {
    sb_puts(err, "cannot start the linker\n");
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    sb_puts(err, "cannot start the linker\n");
    return false;
  }
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t k;
  while ((k = read(fds[0], buf, sizeof buf)) != 0) {
    if (k > 0) sb_putn(err, buf, (size_t)k);
    else if (errno != EINTR) break;
  }
  close(fds[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 127) sb_printf(err, "cannot run '%s'\n", argv[0]);
  if (WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ) sb_printf(err, "%s\n", strerror(EFBIG));   /* ulimit -f */
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Whether binutils' gold is on PATH, where cc -fuse-ld=gold looks for it. */
static bool have_gold(void) {
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/bin:/bin";
  char dir[4096];
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, ":");
    if (n && n < sizeof dir - 16) {
      snprintf(dir, sizeof dir, "%.*s/ld.gold", (int)n, p);
      if (access(dir, X_OK) == 0) return true;
    }
    p += n + (p[n] == ':');
  }
  return false;
}

/* A temporary object file's name (malloc'd; the file made, empty), or NULL. */
static char *temp_object(StrBuf *err) {
  char *obj = strdup("/tmp/tfsc-XXXXXX.o");
  int fd = obj ? mkstemps(obj, 2) : -1;
  if (fd < 0) {
    free(obj);
    sb_puts(err, "cannot create a temporary object file\n");
    return NULL;
  }
  close(fd);
  return obj;
}

/* A module unit's object as the linker reads it: the cache entry (filled
 * first when missing, as tfs run does; cu->entry set), held open so that a
 * concurrent prune or rewrite cannot change it, or compiled into a scratch
 * file when there is no cache.  Every unit's entries have names of their own
 * (cgen_unit_symbol), so the objects link as they are. */
typedef struct UnitObj {
  char *path;      /* malloc'd */
  int fd;          /* the open cache entry, or -1 */
  char *scratch;   /* a file to unlink, or NULL */
} UnitObj;

static bool unit_object(CgUnit *cu, UnitObj *o, StrBuf *err) {
  o->fd = cu->fd;
  o->scratch = NULL;
  o->path = NULL;
  cu->fd = -1;
  char *entry = NULL;
  bool failed = false, ok = true;
  pthread_mutex_lock(&tcc_lock);
  if (o->fd < 0) {
    o->fd = cached_fd(cu->text.data, cu->name, err, &failed, &entry);
    if (o->fd >= 0) {
      free(cu->entry);
      cu->entry = entry;
    } else if (!failed && (o->scratch = temp_object(err))) {
      ok = compile_obj(cu->text.data, mem_opts, o->scratch, err) > 0;
    } else {
      ok = false;
    }
  }
  pthread_mutex_unlock(&tcc_lock);
  if (!ok) return false;
  char proc[64];
  /* the open entry through /proc (the linker is our child); its name when /proc is absent */
  if (o->fd >= 0) snprintf(proc, sizeof proc, "/proc/%d/fd/%d", (int)getpid(), o->fd);
  const char *from = o->scratch ? o->scratch : access(proc, R_OK) == 0 ? proc : cu->entry;
  if (!from) {
    sb_printf(err, "cannot read the cached unit of module %s\n", cu->name);
    return false;
  }
  if (!(o->path = strdup(from))) abort();
  return true;
}

static void unit_object_done(UnitObj *o) {
  free(o->path);
  if (o->fd >= 0) close(o->fd);
  if (o->scratch) unlink(o->scratch);
  free(o->scratch);
}

/* libtcc compiles the program to an object file in-process; the system
 * linker then joins it with the module units' objects (cached, as tfs run
 * uses them) and the runtime archive.  (The gcc-built runtime uses
 * thread-local storage and CPU-dispatched kernels, which tcc's own linker
 * cannot relocate.)  tfs_units_main/exit, which jit.c provides tfs run, are
 * generated here: each unit's main with its module and imports, in order. */
bool jit_output_exe_units(const char *csrc, CgUnit *cus, int n, const char *out_path, StrBuf *err) {
  const char *rtlib = paths_runtime_archive();
  if (!rtlib) {
    sb_puts(err, "cannot find the tfs runtime library (libtfsrt.a); set TFS_RTLIB\n");
    return false;
  }
  char *prog_obj = temp_object(err);
  UnitObj *objs = calloc((size_t)n + 1, sizeof *objs);
  if (!objs) abort();
  for (int k = 0; k < n; k++) objs[k].fd = -1;
  bool ok = prog_obj != NULL;
  for (int k = 0; ok && k < n; k++) ok = unit_object(&cus[k], &objs[k], err);
  StrBuf glue, sym;
  sb_init(&glue);
  sb_init(&sym);
  if (n) {
    sb_puts(&glue, csrc);
    sb_puts(&glue, "\n/* the module units (compiler/jit.c) */\n");
    for (int k = 0; k < n; k++) {
      sym.len = 0;
      cgen_unit_symbol(&sym, "main", cus[k].name);
      sb_printf(&glue, "void %s(int mod, const int *im);\n", sym.data);
      sym.len = 0;
      cgen_unit_symbol(&sym, "exit", cus[k].name);
      sb_printf(&glue, "void %s(void);\nstatic const int IMS_%d[] = {", sym.data, k);
      for (int i = 0; i < cus[k].nimports; i++) sb_printf(&glue, "%d, ", cus[k].imports[i]);
      sb_puts(&glue, "0};\n");
    }
    sb_puts(&glue, "void tfs_units_main(void) {\n");
    for (int k = 0; k < n; k++) {
      sym.len = 0;
      cgen_unit_symbol(&sym, "main", cus[k].name);
      sb_printf(&glue, "  %s(%d, IMS_%d);\n", sym.data, cus[k].module, k);
    }
    sb_puts(&glue, "}\nvoid tfs_units_exit(void) {\n");
    for (int k = 0; k < n; k++) {
      sym.len = 0;
      cgen_unit_symbol(&sym, "exit", cus[k].name);
      sb_printf(&glue, "  %s();\n", sym.data);
    }
    sb_puts(&glue, "}\n");
  }
  sb_free(&sym);
  if (ok) {
    pthread_mutex_lock(&tcc_lock);
    TCCState *s = tcc_new();
    ok = false;
    if (s) {
      tcc_set_error_func(s, err, on_error);
      tcc_set_options(s, "-nostdinc");
      tcc_set_output_type(s, TCC_OUTPUT_OBJ);
      ok = tcc_compile_string(s, n ? glue.data : csrc) == 0 && tcc_output_file(s, prog_obj) == 0;
      tcc_delete(s);
    }
    pthread_mutex_unlock(&tcc_lock);
  }
  sb_free(&glue);
  if (ok) {
    const char *cc = getenv("CC");
    /* tcc objects carry no .note.GNU-stack: say so, or ld warns on every build.  gold
     * (binutils) links the 30 MB executable in a third of ld.bfd's time. */
    const char *head[] = {cc && *cc ? cc : "cc", "-no-pie", "-Wl,-z,noexecstack", "-o", out_path, have_gold() ? "-fuse-ld=gold" : NULL};
    const char *tail[] = {rtlib, "-lxsmm", "-llapacke", "-lopenblas", "-lprotobuf-c", "-lgvc", "-lcgraph", "-lz", "-lpng16", "-ljpeg", "-lgif",
                          "-lpcre2-8", "-licuuc", "-licudata", "-lcrypto", "-lzip", "-lsnappy", "-ljansson", "-lgmp", "-lkissfft-float",
                          TFS_HDF5_LDFLAG, "-lhdf5",   /* Keras's .h5 files (runtime/formats/h5file.c) */
                          "-L" TFS_NPYRANDOM_DIR, "-lnpyrandom", "-lm", "-lpthread", "-ldl",
#ifdef TFS_HAVE_MPI
                          "-L" TFS_MPI_LIBDIR, "-lmpi",   /* the runtime's collectives (runtime/dist) */
#endif
    };
    size_t nh = sizeof head / sizeof *head, nt = sizeof tail / sizeof *tail, na = 0;
    char **argv = malloc(sizeof *argv * (nh + (size_t)n + 1 + nt + 1));
    if (!argv) abort();
    for (size_t i = 0; i < nh; i++)
      if (head[i]) argv[na++] = (char *)head[i];
    argv[na++] = prog_obj;
    for (int k = 0; k < n; k++) argv[na++] = objs[k].path;
    for (size_t i = 0; i < nt; i++) argv[na++] = (char *)tail[i];
    argv[na] = NULL;
    ok = run_tool(argv, err);
    free(argv);
  }
  for (int k = 0; k < n; k++) unit_object_done(&objs[k]);
  free(objs);
  if (prog_obj) unlink(prog_obj);
  free(prog_obj);
  return ok;
}

bool jit_output_exe(const char *csrc, const char *out_path, StrBuf *err) { return jit_output_exe_units(csrc, NULL, 0, out_path, err); }
