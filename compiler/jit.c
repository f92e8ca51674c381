/* jit.c — libtcc in-process: bind the runtime ABI by name, relocate into memory, or link an executable. */
#include "jit.h"
#include "paths.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libtcc.h>

struct Jit { TCCState *s; };

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

static void bind_runtime(TCCState *s) {
  if (extra_name) tcc_add_symbol(s, extra_name, extra_addr);
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

Jit *jit_compile(const char *csrc, StrBuf *err) {
  pthread_mutex_lock(&tcc_lock);
  TCCState *s = tcc_new();
  if (!s) {
    pthread_mutex_unlock(&tcc_lock);
    sb_puts(err, "cannot create a tcc state\n");
    return NULL;
  }
  tcc_set_error_func(s, err, on_error);
  tcc_set_options(s, "-nostdlib -nostdinc");
  tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
  if (tcc_compile_string(s, csrc) != 0) goto fail;
  bind_runtime(s);
  if (tcc_relocate(s, TCC_RELOCATE_AUTO) < 0) goto fail;
  pthread_mutex_unlock(&tcc_lock);
  Jit *j = malloc(sizeof *j);
  if (!j) abort();
  j->s = s;
  return j;
fail:
  tcc_delete(s);
  pthread_mutex_unlock(&tcc_lock);
  return NULL;
}

void *jit_symbol(Jit *j, const char *name) { return tcc_get_symbol(j->s, name); }

void jit_free(Jit *j) {
  if (!j) return;
  pthread_mutex_lock(&tcc_lock);
  tcc_delete(j->s);
  pthread_mutex_unlock(&tcc_lock);
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

/* libtcc compiles the program to an object file in-process; the system
 * linker then joins it with the runtime archive.  (The gcc-built runtime uses
 * thread-local storage and CPU-dispatched kernels, which tcc's own linker
 * cannot relocate.) */
bool jit_output_exe(const char *csrc, const char *out_path, StrBuf *err) {
  const char *rtlib = paths_runtime_archive();
  if (!rtlib) {
    sb_puts(err, "cannot find the tfs runtime library (libtfsrt.a); set TFS_RTLIB\n");
    return false;
  }
  char obj[] = "/tmp/tfsc-XXXXXX.o";
  int fd = mkstemps(obj, 2);
  if (fd < 0) {
    sb_puts(err, "cannot create a temporary object file\n");
    return false;
  }
  close(fd);
  pthread_mutex_lock(&tcc_lock);
  TCCState *s = tcc_new();
  bool ok = false;
  if (s) {
    tcc_set_error_func(s, err, on_error);
    tcc_set_options(s, "-nostdinc");
    tcc_set_output_type(s, TCC_OUTPUT_OBJ);
    ok = tcc_compile_string(s, csrc) == 0 && tcc_output_file(s, obj) == 0;
    tcc_delete(s);
  }
  pthread_mutex_unlock(&tcc_lock);
  if (ok) {
    const char *cc = getenv("CC");
    /* tcc objects carry no .note.GNU-stack: say so, or ld warns on every build */
    char *argv[] = {(char *)(cc && *cc ? cc : "cc"), "-no-pie", "-Wl,-z,noexecstack", "-o", (char *)out_path, obj, (char *)rtlib,
                    "-lxsmm", "-lopenblas", "-lprotobuf-c", "-lz", "-lm", "-lpthread", "-ldl", NULL};
    ok = run_tool(argv, err);
  }
  unlink(obj);
  return ok;
}
