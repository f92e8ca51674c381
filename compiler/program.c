/* program.c — load the main file and its imports (search order of docs/language.md), parse and analyse each. */
#include "program.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>

#include "autograph.h"
#include "objcache.h"
#include "parsecache.h"
#include "nameidx.h"
#include "nesting.h"
#include "parse.h"
#include "paths.h"
#include "object/object.h"
#include "modules/modules.h"


static bool is_builtin_name(const char *name) {
  if (strcmp(name, "tf") == 0 || strcmp(name, "ag") == 0 || strcmp(name, "ag__") == 0) return true;
  if (strcmp(name, "__name__") == 0) return true;   /* each module's own name (cgen) */
  Val v = builtins_lookup(name);
  bool ok = !val_is_undef(v);
  val_decref(v);
  return ok;
}

/* Source files are regular files or readable streams (a pipe, /dev/stdin);
 * errno gives the true reason otherwise.  A stream is read in chunks up to
 * SRC_MAX and no further than its first NUL byte, which no source may hold
 * (the parser reports it, located): `tfs run /dev/zero` ends at once. */
enum { SRC_MAX = 1 << 30 };

static char *read_stream(Arena *a, FILE *f, size_t *len) {
  size_t n = 0, cap = 1 << 16;
  char *buf = malloc(cap + 1);
  while (buf) {
    size_t k = fread(buf + n, 1, cap - n, f);
    bool nul = memchr(buf + n, 0, k) != NULL;
    n += k;
    if (k == 0 || nul) break;
    if (n == cap) {
      if (cap >= SRC_MAX) {
        free(buf);
        errno = EFBIG;
        return NULL;
      }
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) break;
      buf = nb;
      cap *= 2;
    }
  }
  if (!buf || ferror(f)) {
    int e = buf ? errno : ENOMEM;
    free(buf);
    errno = e ? e : EIO;
    return NULL;
  }
  char *src = arena_alloc(a, n + 1);
  memcpy(src, buf, n);
  src[n] = 0;
  free(buf);
  *len = n;
  return src;
}

static char *read_file(Arena *a, const char *path, size_t *len) {
  if (!strcmp(path, PROGRAM_STDIN)) return read_stream(a, stdin, len);   /* `tfs` with a program piped in */
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  struct stat st;
  if (fstat(fileno(f), &st) != 0) {
    int e = errno;
    fclose(f);
    errno = e;
    return NULL;
  }
  if (S_ISDIR(st.st_mode) || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode))) {
    fclose(f);
    errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    char *src = read_stream(a, f, len);
    int e = errno;
    fclose(f);
    errno = e;
    return src;
  }
  if (st.st_size > SRC_MAX) {
    fclose(f);
    errno = EFBIG;
    return NULL;
  }
  size_t cap = (size_t)st.st_size;
  char *buf = arena_alloc(a, cap + 1);
  size_t n = fread(buf, 1, cap, f);
  int e = ferror(f) ? errno : 0;
  fclose(f);
  if (e) {
    errno = e;
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}

static ProgModule *add_module(Program *p, const char *name, const char *path, char *src, size_t len) {
  if (p->nmods == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 4;
    ProgModule **n = arena_alloc(&p->arena, sizeof *n * (size_t)p->cap);
    if (p->nmods) memcpy(n, p->mods, sizeof *n * (size_t)p->nmods);
    p->mods = n;
  }
  ProgModule *m = arena_alloc(&p->arena, sizeof *m);
  m->index = p->nmods;
  m->name = arena_strdup(&p->arena, name);
  m->path = arena_strdup(&p->arena, path);
  m->source = src;
  m->len = len;
  const char *sd = p->stdlib_dir ? p->stdlib_dir : TFS_STDLIB_DIR;
  size_t sdl = strlen(sd);
  m->library = !strncmp(path, sd, sdl) && path[sdl] == '/' && !strchr(path + sdl + 1, '/');
  m->obj_fd = -1;
  p->mods[p->nmods++] = m;
  return m;
}

static bool file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *dir_of(Arena *a, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return arena_strdup(a, ".");
  return arena_strndup(a, path, (size_t)(slash - path));
}

/* Resolve `name` to a .tfs path: importer's directory, $TFS_PATH, stdlib. */
static char *find_module_file(Program *p, const ProgModule *from, const char *name) {
  char *cand = arena_printf(&p->arena, "%s/%s.tfs", dir_of(&p->arena, from->path), name);
  if (file_exists(cand)) return cand;
  const char *tp = getenv("TFS_PATH");
  if (tp && *tp) {
    const char *s = tp;
    while (*s) {
      const char *e = strchr(s, ':');
      size_t n = e ? (size_t)(e - s) : strlen(s);
      if (n) {
        cand = arena_printf(&p->arena, "%.*s/%s.tfs", (int)n, s, name);
        if (file_exists(cand)) return cand;
      }
      s += n + (e ? 1 : 0);
    }
  }
  const char *sd = p->stdlib_dir ? p->stdlib_dir : paths_stdlib_dir();
  cand = arena_printf(&p->arena, "%s/%s.tfs", sd, name);
  if (file_exists(cand)) return cand;
  return NULL;
}

int program_find_module(Program *p, const ProgModule *from, const char *name) {
  char *path = find_module_file(p, from, name);
  if (path) {
    for (int i = 0; i < p->nmods; i++)
      if (strcmp(p->mods[i]->path, path) == 0) return i;
    return p->nmods; /* not loaded yet: the caller loads it */
  }
  Val m = stdlib_native_module(name);
  bool native = !val_is_undef(m);
  val_decref(m);
  return native ? -1 : -2;
}

static bool load_module(Program *p, ProgModule *m);
static bool program_load_into(Program *p, const char *path);

/* Resolve one import name; record the module index (+1) or -1 (native) in *slot. */
/* The names of TensorFlow's packages: paths into the built-in tf module, and Horovod's TensorFlow
 * packages (stdlib/horovod.tfs, not a .tfs package with submodules), resolved at run time
 * (stdlib/modules/native.c). */
static bool tf_package(const char *name) {
  return !strcmp(name, "tensorflow") || !strncmp(name, "tensorflow.", 11) || !strcmp(name, "keras") ||
         !strncmp(name, "keras.", 6) || !strcmp(name, "horovod.tensorflow") || !strcmp(name, "horovod.tensorflow.keras");
}

/* A module that is neither a .tfs file nor native, and a dotted name (tfs
 * has no packages besides TensorFlow's), import at run time as
 * rt_native_module does: ModuleNotFoundError there, which a try can catch,
 * as in Python. */
static bool resolve_import(Program *p, ProgModule *m, Ast *at, const char *name, int *slot) {
  (void)at;
  if (tf_package(name)) {
    *slot = -1;
    return true;
  }
  /* `import os.path`: a .tfs module's attribute that is a module (cgen walks to it) */
  const char *dot = strchr(name, '.');
  char *path = find_module_file(p, m, dot ? arena_strndup(&p->arena, name, (size_t)(dot - name)) : name);
  if (!path) {
    *slot = -1;
    return true;
  }
  for (int i = 0; i < p->nmods; i++)
    if (strcmp(p->mods[i]->path, path) == 0) {
      *slot = i + 1;
      p->main_imported |= i == 0;
      return true;
    }
  size_t len = 0;
  char *src = read_file(&p->arena, path, &len);
  if (!src) {
    diag_add(&p->diags, m->path, m->source, at->line, at->col, "cannot read module '%s': %s", path, strerror(errno));
    return false;
  }
  ProgModule *nm = add_module(p, dot ? arena_strndup(&p->arena, name, (size_t)(dot - name)) : name, path, src, len);
  *slot = nm->index + 1;
  return load_module(p, nm);
}

/* Resolve, and record for the module's cached unit (ProgModule.imp_names). */
static bool record_import(Program *p, ProgModule *m, Ast *at, const char *name, int *slot) {
  bool ok = resolve_import(p, m, at, name, slot);
  if (m->nimp == m->cimp) {
    m->cimp = m->cimp ? m->cimp * 2 : 8;
    const char **n = arena_alloc(&p->arena, sizeof *n * (size_t)m->cimp), **q = arena_alloc(&p->arena, sizeof *q * (size_t)m->cimp);
    if (m->nimp) {
      memcpy(n, m->imp_names, sizeof *n * (size_t)m->nimp);
      memcpy(q, m->imp_paths, sizeof *q * (size_t)m->nimp);
    }
    m->imp_names = n;
    m->imp_paths = q;
  }
  m->imp_names[m->nimp] = arena_strdup(&p->arena, name);
  m->imp_paths[m->nimp++] = *slot > 0 ? p->mods[*slot - 1]->path : NULL;
  return ok;
}

static bool scan_imports(Program *p, ProgModule *m, AstList *body);

static bool scan_stmt(Program *p, ProgModule *m, Ast *st) {
  bool ok = true;
  switch (st->kind) {
  case A_IMPORT:
    for (int i = 0; i < st->names.n; i++) {
      Ast *al = st->names.items[i];
      ok &= record_import(p, m, al, al->name, &al->id);
    }
    break;
  case A_IMPORTFROM: ok &= record_import(p, m, st, st->name, &st->id); break;
  case A_FUNCDEF:
  case A_CLASSDEF:
  case A_WHILE:
  case A_FOR:
  case A_IF:
  case A_WITH:
    ok &= scan_imports(p, m, &st->body);
    ok &= scan_imports(p, m, &st->orelse);
    break;
  case A_TRY:
    ok &= scan_imports(p, m, &st->body);
    for (int i = 0; i < st->handlers.n; i++) ok &= scan_imports(p, m, &st->handlers.items[i]->body);
    ok &= scan_imports(p, m, &st->orelse);
    ok &= scan_imports(p, m, &st->finalbody);
    break;
  default: break;
  }
  return ok;
}

static bool scan_imports(Program *p, ProgModule *m, AstList *body) {
  bool ok = true;
  for (int i = 0; i < body->n; i++) ok &= scan_stmt(p, m, body->items[i]);
  return ok;
}

/* A SyntaxError at byte `at` that the parser must not see (a NUL, bad UTF-8):
 * the shown line stops before the byte, so the report itself stays clean. */
static bool source_error_at(Program *p, ProgModule *m, const char *at, const char *msg) {
  const char *bol = at;
  int line = 1;
  while (bol > m->source && bol[-1] != '\n') bol--;
  for (const char *q = m->source; q < bol; q++) line += *q == '\n';
  char *shown = arena_strndup(&p->arena, m->source, (size_t)(at - m->source));
  diag_add(&p->diags, m->path, shown, line, (int)(at - bol) + 1, "SyntaxError: %s", msg);
  return false;
}

/* Python's checks before parsing: no NUL byte, and UTF-8 only (tfs knows no
 * PEP 263 coding declarations). */
static bool check_source_bytes(Program *p, ProgModule *m) {
  const char *z = memchr(m->source, 0, m->len);
  if (z) return source_error_at(p, m, z, "source code cannot contain null bytes");
  const unsigned char *s = (const unsigned char *)m->source, *end = s + m->len;
  while (s < end) {
    size_t n = utf8_seq(s, (size_t)(end - s), NULL);
    if (!n) {
      char msg[96];
      snprintf(msg, sizeof msg, "Non-UTF-8 code starting with '\\x%02x', but no encoding declared", *s);
      return source_error_at(p, m, (const char *)s, msg);
    }
    s += n;
  }
  return true;
}

/* `import tensorflow as tf` binds the built-in tf, which a program has
 * without it: the statement goes (before scope analysis), so `tf` stays the
 * builtin AutoGraph and the code generator know by name. */
static void drop_tf_imports(AstList *body) {
  for (int i = 0; i < body->n; i++) {
    Ast *st = body->items[i];
    if (!st) continue;
    if (st->kind == A_IMPORT) {
      int keep = 0;
      for (int j = 0; j < st->names.n; j++) {
        Ast *al = st->names.items[j];
        if (!strcmp(al->name, "tensorflow") && al->asname && !strcmp(al->asname, "tf")) continue;
        st->names.items[keep++] = al;
      }
      st->names.n = keep;
      if (!keep) st->kind = A_PASS;   /* a PASS node is shorter than an IMPORT one */
      continue;
    }
    if (st->kind == A_CLASSDEF || st->kind == A_FUNCDEF) {
      drop_tf_imports(&st->body);
      continue;
    }
    for (AstBlocks b = ast_blocks(st); ast_blocks_next(&b);) drop_tf_imports(b.cur);
  }
}

/* A library module whose unit the cache holds (tfs run): its recorded
 * imports resolve as they did (else it is parsed after all), and load. */
static bool load_prebuilt(Program *p, ProgModule *m) {
  if (!p->prebuilt_ok || !m->library) return false;
  ObjcacheUnit u;
  if (!objcache_unit_find(m->name, m->path, m->source, m->len, &u)) return false;
  Ast at = {.line = 1, .col = 1};
  bool same = true;
  for (int i = 0; same && i < u.nimports; i++) {
    int slot = 0;
    same = record_import(p, m, &at, u.import_names[i], &slot) && p->diags.n == 0 &&
           (slot > 0 ? u.import_paths[i] && !strcmp(p->mods[slot - 1]->path, u.import_paths[i]) : !u.import_paths[i]);
  }
  if (same) {
    m->obj_fd = u.fd;
    m->obj_entry = arena_strdup(&p->arena, u.entry);
    m->unit_imports = arena_alloc(&p->arena, sizeof *m->unit_imports * (size_t)(u.nunit + 1));
    for (int i = 0; i < u.nunit; i++) m->unit_imports[i] = arena_strdup(&p->arena, u.unit_paths[i]);
    m->nunit_imports = u.nunit;
    u.fd = -1;
  }
  if (!same) m->nimp = 0;   /* parsing records them afresh */
  objcache_unit_release(&u);
  return same;
}

/* Parse a module's text (a library module's tree may come from the parse cache, parsecache.h). */
static bool parse_module(Program *p, ProgModule *m) {
  if (m->library && (m->ast = parsecache_get(&p->arena, m->path, m->source, m->len))) return true;
  if (!check_source_bytes(p, m)) return false;
  m->ast = parse_source(&p->arena, m->path, m->source, m->len, &p->diags);
  if (!m->ast || !nest_check(m->ast, m->path, m->source, &p->diags)) return false;
  drop_tf_imports(&m->ast->body);
  if (m->library && p->diags.n == 0) parsecache_put(m->path, m->source, m->len, m->ast);
  return true;
}

static bool load_module(Program *p, ProgModule *m) {
  if (load_prebuilt(p, m)) return true;
  if (!parse_module(p, m)) return false;
  bool ok = scope_analyze_seeded(&m->scopes, &p->arena, m->ast, m->path, m->source, &p->diags, is_builtin_name,
                                 m->input ? p->repl_globals : NULL, m->input ? p->repl_nglobals : 0);
  /* Keep going after scope errors so import errors are reported too. */
  ok &= scan_imports(p, m, &m->ast->body);
  return ok;
}

/* Map the converted module's global slots onto the original module's. */
static bool remap_globals(Program *p, ProgModule *m) {
  ScopeInfo *ci = &m->conv_scopes;
  bool ok = true;
  for (int s = 0; s < ci->n; s++)
    for (int i = 0; i < ci->all[s]->nsyms; i++) {
      Sym *y = ci->all[s]->syms[i];
      if (y->kind != SYM_GLOBAL) continue;
      int slot = scope_global_slot(&m->scopes, y->name);
      if (slot < 0) {
        diag_add(&p->diags, m->path, m->source, 1, 1, "internal error: converted code introduces global '%s'", y->name);
        ok = false;
      }
      y->index = slot;
    }
  return ok;
}

/* The main module converts only what a tf.function can reach, unless a
 * module imports it (its functions are then reached as attributes, which
 * the analysis does not follow); the others convert every function. */
static bool convert_module(Program *p, ProgModule *m) {
  bool reach = m->index == 0 && !m->input && !p->main_imported;
  m->conv = (reach ? ag_convert_module_reached : ag_convert_module)(&p->arena, m->ast, m->path, m->source, &p->diags);
  if (!m->conv) return false;
  /* an input's converted code sees the namespace as its original does */
  bool sok = scope_analyze_seeded(&m->conv_scopes, &p->arena, m->conv, m->path, m->source, &p->diags, is_builtin_name,
                                  m->input ? m->scopes.globals : NULL, m->input ? m->scopes.nglobals : 0);
  return sok && remap_globals(p, m);
}

bool program_convert(Program *p) {
  bool ok = true;
  for (int i = 0; i < p->nmods; i++)
    if (!p->mods[i]->library)   /* TF does not convert its own library: it runs as host code at trace time */
      ok &= convert_module(p, p->mods[i]);
  return ok && p->diags.n == 0;
}

/* tf.function anywhere in the program, or a tf.data transformation (TF traces map/filter/reduce
 * functions with AutoGraph on, as tf.function does): functions may be traced. */
static bool uses_tf_function(Program *p) {
  for (int i = 0; i < p->nmods; i++) {
    const char *s = p->mods[i]->source;
    if (strstr(s, "tf.function") || strstr(s, "autograph")) return true;
    if (strstr(s, "Dataset") && (strstr(s, ".map(") || strstr(s, ".filter(") || strstr(s, ".reduce(")))
      return true;
  }
  return false;
}

/* Whether a user module's source names `word` as an attribute (".word" not followed by an identifier char). */
static bool ident_char(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The identifiers a module's source names as attributes (`.name`) or as whole string literals ("name": what
 * getattr/hasattr take), into words. */
static void attr_words(Program *p, NameIdx *words, const char *src) {
  for (const char *d = src; *d; d++) {
    if (*d != '.' && *d != '"' && *d != '\'') continue;
    const char *e = d + 1;
    while (ident_char(*e)) e++;
    if (e == d + 1 || (*d != '.' && *e != *d)) continue;
    nameidx_put(words, &p->arena, arena_strndup(&p->arena, d + 1, (size_t)(e - d - 1)), 1);
    d = e - 1;
  }
}

/* tfcore.tfs names what it implements in its `_API = {"qual.name": fn, ...}` table: a program naming
 * one of those (as an attribute: tf.nest, tf.math.reduce_std; or as a string, getattr(ds, "window")) gets the
 * library compiled in.  The words of the program are indexed once, so the test costs source size plus table size. */
static bool names_tfcore(Program *p, const char *src) {
  const char *s = strstr(src, "\n_API = {");
  if (!s) return false;
  NameIdx words = {0};
  for (int i = 0; i < p->nmods; i++)
    if (!p->mods[i]->library) attr_words(p, &words, p->mods[i]->source);
  char word[128];
  for (s = strchr(s, '{'); *s && *s != '}'; s++) {
    if (*s != '"') continue;
    const char *e = strchr(s + 1, '"');
    if (!e) break;
    const char *w = s + 1;
    for (const char *d = w; d < e; d++)
      if (*d == '.') w = d + 1;
    size_t n = (size_t)(e - w);
    if (n < sizeof word) {
      memcpy(word, w, n);
      word[n] = 0;
      if (nameidx_get(&words, word) >= 0) return true;
    }
    s = strchr(e, '\n');
    if (!s) break;
  }
  return false;
}

/* Parts of `tf` written in .tfs (stdlib/keras*.tfs, tfcore*.tfs, distribute.tfs, horovod.tfs), and the
 * builtin open() (io.open of stdlib/io.tfs): a program whose source names one gets that library compiled
 * in as one more module, imported on the first use (tf.keras, a tfcore name, tf.distribute,
 * `import horovod.tensorflow`: stdlib/modules/tfmod.c, native.c; open: the library modules' sources count
 * too, libs_too).  Other programs pay nothing for them. */
static bool load_library(Program *p, const char *name, const char *word, bool libs_too) {
  bool named = false;
  for (int i = 0; i < p->nmods; i++) {
    if (!strcmp(p->mods[i]->name, name) && p->mods[i]->library) return true;
    named |= (libs_too || !p->mods[i]->library) && strstr(p->mods[i]->source, word) != NULL;
  }
  if (!named) return true;
  const char *sd = p->stdlib_dir ? p->stdlib_dir : TFS_STDLIB_DIR;
  char *path = arena_printf(&p->arena, "%s/%s.tfs", sd, name);
  size_t len = 0;
  char *src = read_file(&p->arena, path, &len);
  if (!src) {
    diag_add(&p->diags, p->mods[0]->path, NULL, 0, 0, "cannot read the %s library '%s': %s", name, path, strerror(errno));
    return false;
  }
  if ((!strcmp(name, "tfcore") || !strcmp(name, "tfextra")) && !names_tfcore(p, src)) return true;
  return load_module(p, add_module(p, name, path, src, len));
}

static bool load_libraries(Program *p) {
  return load_library(p, "keras", PROGRAM_KERAS_WORD, false) && load_library(p, "keras_applications", "applications", false) &&
         load_library(p, "tfcore", "tf", false) &&
         load_library(p, "tfextra", "tf", false) &&
         load_library(p, "distribute", "distribute", false) && load_library(p, "horovod", "horovod", false) &&
         load_library(p, "tfgfile", "gfile", false) && load_library(p, "tfdatasave", ".save", false) &&
         load_library(p, "tfdatasave", ".load", false) && load_library(p, "tfdatasave", ".snapshot", false) &&
         load_library(p, "io", "open", true);
}


static bool load_main(Program *p, ProgModule *m) {
  if (!load_module(p, m) || !load_libraries(p)) return false;
  p->autograph = uses_tf_function(p);
  return p->autograph ? program_convert(p) : true;
}

bool program_load_source(Program *p, const char *path, const char *src, size_t len) {
  memset(p, 0, sizeof *p);
  arena_init(&p->arena);
  diag_init(&p->diags);
  char *copy = arena_strndup(&p->arena, src, len);
  ProgModule *m = add_module(p, "__main__", path, copy, len);
  return load_main(p, m);
}

bool program_load_run(Program *p, const char *path) {
  memset(p, 0, sizeof *p);
  p->prebuilt_ok = true;
  return program_load_into(p, path);
}

bool program_load(Program *p, const char *path) {
  memset(p, 0, sizeof *p);
  return program_load_into(p, path);
}

static bool program_load_into(Program *p, const char *path) {
  arena_init(&p->arena);
  diag_init(&p->diags);
  size_t len = 0;
  char *src = read_file(&p->arena, path, &len);
  if (!src) {
    diag_add(&p->diags, path, NULL, 0, 0, "cannot open '%s': %s", path, strerror(errno));
    return false;
  }
  ProgModule *m = add_module(p, "__main__", path, src, len);
  return load_main(p, m);
}

void program_repl_init(Program *p) {
  memset(p, 0, sizeof *p);
  arena_init(&p->arena);
  diag_init(&p->diags);
  p->autograph = true;
}

bool program_add_input(Program *p, const char *src, size_t len) {
  int first = p->nmods;
  ProgModule *m = add_module(p, "__main__", PROGRAM_STDIN, arena_strndup(&p->arena, src, len), len);
  m->input = true;
  bool ok = load_module(p, m) && load_libraries(p);
  for (int i = first; ok && i < p->nmods; i++)
    if (!p->mods[i]->library) ok = convert_module(p, p->mods[i]);
  if (!ok || p->diags.n) {
    p->nmods = first;   /* what the input added is forgotten; the arena keeps its bytes until the end */
    return false;
  }
  p->repl_globals = m->scopes.globals;
  p->repl_nglobals = m->scopes.nglobals;
  return true;
}

void program_free(Program *p) {
  for (int i = 0; i < p->nmods; i++)
    if (p->mods[i]->obj_fd >= 0) close(p->mods[i]->obj_fd);
  diag_free(&p->diags);
  arena_free(&p->arena);
}
