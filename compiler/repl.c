/* repl.c — the interactive prompt (`tfs` on a terminal, `tfs repl`): read a statement, compile it as a unit of its own, run it, echo it. */
#include "repl.h"

#define _GNU_SOURCE   /* ppoll */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <editline/readline.h>

#include "object/atomicfile.h"
#include "cgen.h"
#include "jit.h"
#include "program.h"
#include "object/hosttypes.h"
#include "object/object.h"

/* The namespace every input shares.  Generated code indexes it directly, so
 * it cannot move: a fixed array, far more names than a session defines. */
enum { REPL_MAX_GLOBALS = 1 << 16, HISTORY_MAX = 1000 };
static Val *repl_globals;

/* ---- reading one statement -------------------------------------------------- */

/* Does `src` still need lines (Python's rule at its prompt): an open
 * bracket, string or backslash continuation, or a compound statement or
 * decorator not yet closed by an empty line. */
static bool needs_more(const char *src) {
  int depth = 0;
  char quote = 0;
  bool triple = false;
  const char *p = src;
  for (; *p; p++) {
    if (quote) {
      if (*p == '\\' && p[1]) p++;
      else if (triple && *p == quote && p[1] == quote && p[2] == quote) quote = 0, p += 2;
      else if (!triple && *p == quote) quote = 0;
      else if (!triple && *p == '\n') quote = 0;   /* an unterminated string: the parser reports it */
      continue;
    }
    if (*p == '#') {
      while (p[1] && p[1] != '\n') p++;
    } else if (*p == '"' || *p == '\'') {
      quote = *p;
      triple = p[1] == *p && p[2] == *p;
      if (triple) p += 2;
    } else if (strchr("([{", *p)) {
      depth++;
    } else if (strchr(")]}", *p) && depth > 0) {
      depth--;
    } else if (*p == '\\' && p[1] == '\n' && !p[2]) {
      return true;
    }
  }
  if (quote && triple) return true;
  if (depth > 0) return true;
  /* the first line: its last character outside a comment */
  const char *s = src;
  while (*s == ' ' || *s == '\t') s++;
  bool header = *s == '@';
  char last = 0;
  quote = 0;
  for (const char *q = s; *q && *q != '\n'; q++) {
    if (quote) {
      if (*q == '\\' && q[1]) q++;
      else if (*q == quote) quote = 0;
      continue;
    }
    if (*q == '#') break;
    if (*q == '"' || *q == '\'') quote = *q;
    if (*q != ' ' && *q != '\t' && *q != '\r') last = *q;
  }
  header |= last == ':';
  if (!header) return false;
  size_t n = strlen(src);   /* a block, even of one line, ends with an empty line */
  return !(n >= 2 && src[n - 1] == '\n' && src[n - 2] == '\n');
}

static bool blank(const char *s) {
  for (; *s; s++) {
    if (*s == '#') {
      while (*s && *s != '\n') s++;
      if (!*s) break;
    } else if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') {
      return false;
    }
  }
  return true;
}

/* ---- history: ~/.tfs_history, one line per entry, replaced atomically ------------- */

typedef struct History {
  char *path;                 /* NULL: no HOME */
  char **lines;
  int n;
  bool warned;
} History;

/* The newest HISTORY_MAX lines are kept: the oldest goes first. */
static void history_keep(History *h, const char *line) {
  if (h->n == HISTORY_MAX) {
    free(h->lines[0]);
    memmove(h->lines, h->lines + 1, sizeof *h->lines * (HISTORY_MAX - 1));
    h->n--;
  }
  h->lines[h->n++] = strdup(line);
}

static void history_load(History *h) {
  const char *home = getenv("HOME");
  if (!home || !*home) return;
  size_t n = strlen(home) + sizeof "/.tfs_history";
  h->path = malloc(n);
  if (!h->path) return;
  snprintf(h->path, n, "%s/.tfs_history", home);
  h->lines = calloc(HISTORY_MAX, sizeof *h->lines);
  if (!h->lines) return;
  FILE *f = fopen(h->path, "r");
  if (!f) return;
  char *line = NULL;
  size_t cap = 0;
  ssize_t k;
  while ((k = getline(&line, &cap, f)) > 0) {
    if (line[k - 1] == '\n') line[k - 1] = 0;
    if (!*line) continue;
    history_keep(h, line);
    add_history(line);
  }
  free(line);
  fclose(f);
}

static void history_add(History *h, const char *line) {
  if (!*line || blank(line)) return;
  add_history(line);
  if (!h->path || !h->lines) return;
  history_keep(h, line);
  StrBuf b;
  sb_init(&b);
  for (int i = 0; i < h->n; i++)
    if (h->lines[i]) sb_printf(&b, "%s\n", h->lines[i]);
  int e = af_write(h->path, b.data ? b.data : "", b.len);
  sb_free(&b);
  if (e && !h->warned) {   /* once: the session goes on without saving */
    fprintf(stderr, "tfs: warning: cannot write the history file '%s': %s\n", h->path, strerror(e));
    h->warned = true;
  }
}

static void history_free(History *h) {
  for (int i = 0; h->lines && i < h->n; i++) free(h->lines[i]);
  free(h->lines);
  free(h->path);
}

/* libedit's character reader: Ctrl-C pending ends the line (readline returns
 * NULL, the caller sees the flag).  SIGINT stays blocked except inside
 * ppoll, which unblocks it atomically while waiting, so a Ctrl-C that lands
 * just before the wait is seen too.  (libedit's own reader retries an
 * interrupted read once in cooked mode: Ctrl-C waited for the next Enter.) */
static int edit_getc(FILE *f) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigprocmask(SIG_BLOCK, &block, &old);
  int c = EOF;
  for (;;) {
    if (rt_sigint_pending) break;
    struct pollfd pfd = {fileno(f), POLLIN, 0};
    int r = ppoll(&pfd, 1, NULL, &old);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    unsigned char ch;
    ssize_t k = read(fileno(f), &ch, 1);
    if (k == 1) c = ch;
    if (k < 0 && errno == EINTR) continue;
    break;
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  return c;
}

/* libedit prints the prompt in cooked mode and switches to raw mode only
 * when it reads the first key.  A Ctrl-D typed in between met the cooked
 * line discipline, which turned it into an end-of-file mark that reads as a
 * NUL byte once raw mode is on: the Ctrl-D was lost.  So the keys are taken
 * raw (no ICANON, no echo; signals stay) before the prompt is drawn.
 * libedit ignores a terminal state that is not cooked when it saves the
 * mode to restore, so it still puts back the real one after each line. */
static struct termios cooked;
static bool cooked_saved;

static void key_mode(void) {
  struct termios t;
  if (tcgetattr(0, &t) != 0) return;
  if (!cooked_saved && (t.c_lflag & ICANON)) {
    cooked = t;
    cooked_saved = true;
  }
  t.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ECHONL | IEXTEN);
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  tcsetattr(0, TCSANOW, &t);
}

/* One line without its newline (malloc'd), or NULL at end of input.  On a
 * terminal libedit edits it; otherwise the prompt goes to stderr, as
 * `python3 -i < file` does, so stdout holds only the program's output. */
static char *read_line(bool tty, const char *prompt) {
  if (tty) {
    key_mode();
    return readline(prompt);   /* keys come through edit_getc */
  }
  fputs(prompt, stderr);
  fflush(stderr);
  char *line = NULL;
  size_t cap = 0;
  ssize_t k = getline(&line, &cap, stdin);
  if (k < 0) {
    free(line);
    return NULL;
  }
  if (k > 0 && line[k - 1] == '\n') line[k - 1] = 0;
  return line;
}

/* ---- compiling and running one input ---------------------------------------------- */

typedef struct Repl {
  Program p;
  Jit **units;                /* every unit stays loaded: its functions may be called later */
  int nunits, cunits;
  int nlocs;                  /* locations registered so far */
} Repl;

static void forget_input(Repl *r, int nmods, const char *const *globals, int nglobals) {
  r->p.nmods = nmods;
  r->p.repl_globals = globals;
  r->p.repl_nglobals = nglobals;
  diag_free(&r->p.diags);
  diag_init(&r->p.diags);
}

static void run_input(Repl *r, const char *src) {
  Program *p = &r->p;
  int first = p->nmods, nglobals = p->repl_nglobals;
  const char *const *globals = p->repl_globals;
  bool ok = program_add_input(p, src, strlen(src));
  if (ok && p->repl_nglobals > REPL_MAX_GLOBALS) {
    diag_add(&p->diags, PROGRAM_STDIN, NULL, 0, 0, "too many names in one session (at most %d)", REPL_MAX_GLOBALS);
    ok = false;
  }
  StrBuf c, err;
  sb_init(&c);
  sb_init(&err);
  int nlocs = r->nlocs;
  ok = ok && cgen_input(p, &c, first, &nlocs);
  if (!ok) {
    rt_flush();
    diag_print(&p->diags, stderr);
    forget_input(r, first, globals, nglobals);
    sb_free(&c);
    return;
  }
  Jit *j = jit_compile(c.data, &err);
  sb_free(&c);
  if (!j) {
    fprintf(stderr, "tfs: internal error: %s\n%.*s", "generated C did not compile", (int)err.len, err.data ? err.data : "");
    sb_free(&err);
    forget_input(r, first, globals, nglobals);
    return;
  }
  sb_free(&err);
  if (r->nunits == r->cunits) {
    r->cunits = r->cunits ? r->cunits * 2 : 16;
    r->units = realloc(r->units, sizeof *r->units * (size_t)r->cunits);
    if (!r->units) abort();
  }
  r->units[r->nunits++] = j;
  r->nlocs = nlocs;
  void (*entry)(void) = (void (*)(void))jit_symbol(j, "tfs_program_main");
  RtTry t;
  rt_try_push(&t);
  t.toplevel = 1;
  if (setjmp(t.jb) == 0) {
    entry();
    rt_try_pop(&t);
  } else if (t.kind == ERR_SYSTEM_EXIT) {   /* exit() / sys.exit(n) end the session with that status */
    int st = exc_exit_status(t.exc);
    rt_flush();
    exit(st);
  } else {
    rt_report_caught(&t);   /* the session goes on; what ran before the error stays done */
  }
  rt_sigint_pending = 0;
  rt_flush();
}

static void repl_free(Repl *r) {
  for (int i = 0; i < r->p.repl_nglobals; i++) {
    Val v = repl_globals[i];
    repl_globals[i].tag = VT_UNDEF;
    val_decref(v);
  }
  for (int i = r->nunits - 1; i >= 0; i--) {
    void (*leave)(void) = (void (*)(void))jit_symbol(r->units[i], "tfs_program_exit");
    leave();
  }
  rt_gc_shutdown();
  rt_flush();
  for (int i = 0; i < r->nunits; i++) jit_free(r->units[i]);
  free(r->units);
  program_free(&r->p);
  rt_program_tables_free();
}

int repl_main(void) {
  bool tty = isatty(0) && isatty(1);
  repl_globals = calloc(REPL_MAX_GLOBALS, sizeof *repl_globals);
  if (!repl_globals) {
    fputs("tfs: error: out of memory\n", stderr);
    return 1;
  }
  jit_bind_extra("tfs_repl_globals", repl_globals);
  char *argv0[] = {"", NULL};   /* Python's sys.argv at its prompt */
  rt_start(1, argv0);
  Repl r = {0};
  program_repl_init(&r.p);
  History h = {0};
  if (tty) {
    rl_catch_signals = 0;
    rl_getc_function = edit_getc;
    rl_initialize();   /* libedit saves the terminal's mode now, while it is still cooked (key_mode) */
    history_load(&h);
    printf("tfs %s interactive prompt: statements run as they are entered; Ctrl-D exits\n", TFS_VERSION);
    fflush(stdout);
  }
  StrBuf buf;
  sb_init(&buf);
  for (;;) {
    rt_sigint_pending = 0;
    char *line = read_line(tty, buf.len ? "... " : ">>> ");
    if (rt_sigint_pending) {   /* Ctrl-C at the prompt drops what was typed, as Python does */
      free(line);
      fputs("\nKeyboardInterrupt\n", stderr);
      buf.len = 0;
      continue;
    }
    if (!line) {
      if (tty) fputc('\n', stdout);
      break;
    }
    if (tty) history_add(&h, line);
    sb_puts(&buf, line);
    sb_putc(&buf, '\n');
    free(line);
    if (needs_more(buf.data)) continue;
    if (!blank(buf.data)) run_input(&r, buf.data);
    buf.len = 0;
    buf.data[0] = 0;
  }
  /* an unfinished block at end of input still runs, as Python runs it */
  if (buf.len && !blank(buf.data)) run_input(&r, buf.data);
  sb_free(&buf);
  if (cooked_saved) tcsetattr(0, TCSANOW, &cooked);   /* leave the terminal as we found it */
  history_free(&h);
  repl_free(&r);
  free(repl_globals);
  return 0;
}
