/* tests/grammar_corpus.c — runs the grammar corpus (grammar/test/corpus, one .txt per topic) against the generated parser, like `tree-sitter test`, without the CLI. */

/*
 * Usage: grammar_corpus CORPUS_DIR [QUERY.scm ...] [NAME_SUBSTRING]
 *
 * Each QUERY.scm (e.g. grammar/queries/highlights.scm) is compiled against
 * the language, so a query naming a node type or field that no longer exists
 * fails the test.
 *
 * Corpus format (tree-sitter's): a header line of 3+ `=`, the example name
 * (optionally followed by attribute lines such as `:skip` or `:error`), a
 * closing `=` line, the source, a line of 3+ `-` (the longest such line after
 * the header), then the expected S-expression. As in the CLI: the source is
 * everything between the header and the divider minus one final newline;
 * `;` comment lines are dropped from the expected tree and its whitespace
 * normalized; if the expected tree has no `field:` labels, labels are
 * stripped from the actual tree before comparing. `:error` only requires the
 * tree to contain an error.
 */

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_tfs(void);

/* Growable string. */
typedef struct {
  char *z;
  size_t n, cap;
} Buf;

static void buf_putn(Buf *b, const char *z, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = (b->n + n + 1) * 2;
    b->z = realloc(b->z, b->cap);
    if (!b->z) abort();
  }
  memcpy(b->z + b->n, z, n);
  b->n += n;
  b->z[b->n] = 0;
}
static void buf_putc(Buf *b, char c) { buf_putn(b, &c, 1); }

static char *read_file(const char *zPath, size_t *pn) {
  FILE *f = fopen(zPath, "rb");
  if (!f) return NULL;
  Buf b = {0};
  char chunk[8192];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) buf_putn(&b, chunk, k);
  fclose(f);
  if (!b.z) buf_putn(&b, "", 0);
  *pn = b.n;
  return b.z;
}

/* Length of the line starting at z (without its line end). */
static size_t line_len(const char *z, const char *zEnd) {
  const char *p = z;
  while (p < zEnd && *p != '\n') p++;
  if (p > z && p[-1] == '\r') p--;
  return (size_t)(p - z);
}
static const char *next_line(const char *z, const char *zEnd) {
  while (z < zEnd && *z != '\n') z++;
  return z < zEnd ? z + 1 : zEnd;
}
/* A run of at least 3 copies of c at the start of the line; returns its length or 0. */
static size_t rule_len(const char *z, const char *zEnd, char c) {
  size_t n = 0;
  while (z + n < zEnd && z[n] == c) n++;
  return n >= 3 ? n : 0;
}

/* Collapse whitespace to single spaces, trim, turn " )" into ")". If
 * stripComments, drop lines whose first non-blank is `;`. */
static char *normalize(const char *z, size_t n, bool stripComments) {
  Buf b = {0};
  buf_putn(&b, "", 0);
  const char *p = z, *zEnd = z + n;
  bool space = false;
  while (p < zEnd) {
    const char *zLine = p;
    const char *q = zLine;
    while (q < zEnd && (*q == ' ' || *q == '\t')) q++;
    const char *zNext = next_line(zLine, zEnd);
    if (stripComments && q < zEnd && *q == ';') {
      p = zNext;
      space = true;
      continue;
    }
    for (; p < zNext; p++) {
      if (isspace((unsigned char)*p)) {
        space = true;
      } else {
        if (space && b.n > 0 && *p != ')') buf_putc(&b, ' ');
        space = false;
        buf_putc(&b, *p);
      }
    }
  }
  return b.z;
}

/* Remove `name: ` field labels (a word followed by `: ` before a node). */
static char *strip_fields(const char *z) {
  Buf b = {0};
  buf_putn(&b, "", 0);
  for (const char *p = z; *p;) {
    if ((p == z || p[-1] == ' ' || p[-1] == '(') && (isalnum((unsigned char)*p) || *p == '_')) {
      const char *q = p;
      while (isalnum((unsigned char)*q) || *q == '_') q++;
      if (q[0] == ':' && q[1] == ' ') {
        p = q + 2;
        continue;
      }
    }
    buf_putc(&b, *p++);
  }
  return b.z;
}

static bool has_fields(const char *z) {
  for (const char *p = z; *p; p++) {
    if ((p == z || p[-1] == ' ' || p[-1] == '(') && (isalnum((unsigned char)*p) || *p == '_')) {
      const char *q = p;
      while (isalnum((unsigned char)*q) || *q == '_') q++;
      if (q[0] == ':' && q[1] == ' ') return true;
    }
  }
  return false;
}

typedef struct {
  int nPass, nFail, nSkip;
  const char *zFilter;
} Stats;

/* Parse one example and compare; prints a report on mismatch. */
static void run_example(TSParser *parser, Stats *st, const char *zFile, const char *zName,
                        bool expectError, const char *zSrc, size_t nSrc, const char *zExp, size_t nExp) {
  TSTree *tree = ts_parser_parse_string(parser, NULL, zSrc, (uint32_t)nSrc);
  TSNode root = ts_tree_root_node(tree);
  char *zActual = ts_node_string(root);
  char *zWant = normalize(zExp, nExp, true);
  bool ok;
  char *zGot;
  if (expectError) {
    ok = ts_node_has_error(root);
    zGot = normalize(zActual, strlen(zActual), false);
  } else {
    char *zNorm = normalize(zActual, strlen(zActual), false);
    if (has_fields(zWant)) {
      zGot = zNorm;
    } else {
      zGot = strip_fields(zNorm);
      free(zNorm);
    }
    ok = strcmp(zGot, zWant) == 0;
  }
  if (ok) {
    st->nPass++;
  } else {
    st->nFail++;
    printf("FAIL %s: %s\n", zFile, zName);
    if (expectError) printf("  expected a tree with an ERROR or MISSING node\n");
    else printf("  expected: %s\n", zWant);
    printf("  actual:   %s\n\n", zGot);
  }
  free(zGot);
  free(zWant);
  free(zActual);
  ts_tree_delete(tree);
}

/* Split one corpus file into examples and run each. */
static int run_file(TSParser *parser, Stats *st, const char *zPath, const char *zBase) {
  size_t n;
  char *zText = read_file(zPath, &n);
  if (!zText) {
    printf("cannot read %s\n", zPath);
    return -1;
  }
  const char *zEnd = zText + n;
  const char *p = zText;
  /* Find the first header. */
  while (p < zEnd && !rule_len(p, zEnd, '=')) p = next_line(p, zEnd);
  while (p < zEnd) {
    /* Header: === / name and attribute lines / === */
    p = next_line(p, zEnd);
    Buf name = {0};
    buf_putn(&name, "", 0);
    bool skip = false, expectError = false;
    while (p < zEnd && !rule_len(p, zEnd, '=')) {
      size_t k = line_len(p, zEnd);
      if (k > 0 && p[0] == ':') {
        if (k >= 5 && !strncmp(p, ":skip", 5)) skip = true;
        if (k >= 6 && !strncmp(p, ":error", 6)) expectError = true;
      } else if (k > 0) {
        if (name.n) buf_putc(&name, ' ');
        buf_putn(&name, p, k);
      }
      p = next_line(p, zEnd);
    }
    if (p >= zEnd) {
      printf("%s: unterminated header for '%s'\n", zBase, name.z);
      free(name.z);
      free(zText);
      return -1;
    }
    const char *zBody = next_line(p, zEnd);
    /* Body ends at the next header line that is followed by a name and a
     * closing rule; the divider is the longest dash line before it. */
    const char *zNextHeader = zEnd;
    for (const char *q = zBody; q < zEnd; q = next_line(q, zEnd)) {
      if (rule_len(q, zEnd, '=') && q > zBody) {
        const char *r = next_line(q, zEnd);
        if (r < zEnd && !rule_len(r, zEnd, '=')) {
          zNextHeader = q;
          break;
        }
      }
    }
    const char *zDiv = NULL;
    size_t nDivBest = 0;
    for (const char *q = zBody; q < zNextHeader; q = next_line(q, zEnd)) {
      size_t k = rule_len(q, zEnd, '-');
      if (k > nDivBest) {
        nDivBest = k;
        zDiv = q;
      }
    }
    if (!zDiv) {
      printf("%s: no '---' divider in '%s'\n", zBase, name.z);
      free(name.z);
      free(zText);
      return -1;
    }
    size_t nSrc = (size_t)(zDiv - zBody);
    if (nSrc > 0 && zBody[nSrc - 1] == '\n') nSrc--; /* the CLI drops one final newline */
    if (nSrc > 0 && zBody[nSrc - 1] == '\r') nSrc--;
    const char *zExp = next_line(zDiv, zEnd);
    bool selected = !st->zFilter || strstr(name.z, st->zFilter);
    if (skip || !selected) st->nSkip++;
    else run_example(parser, st, zBase, name.z, expectError, zBody, nSrc, zExp, (size_t)(zNextHeader - zExp));
    free(name.z);
    p = zNextHeader;
  }
  free(zText);
  return 0;
}

/* Compile one query file against the language; report where it fails. */
static int check_query(const char *zPath) {
  size_t n;
  char *zText = read_file(zPath, &n);
  if (!zText) {
    printf("cannot read %s\n", zPath);
    return -1;
  }
  uint32_t errOffset = 0;
  TSQueryError err = TSQueryErrorNone;
  TSQuery *q = ts_query_new(tree_sitter_tfs(), zText, (uint32_t)n, &errOffset, &err);
  int rc = 0;
  if (!q) {
    static const char *azKind[] = {"none", "syntax", "node type", "field", "capture", "structure", "language"};
    uint32_t line = 1;
    for (uint32_t i = 0; i < errOffset && i < n; i++) line += zText[i] == '\n';
    printf("FAIL %s:%u: query error (%s) at: %.40s\n", zPath, line,
           (unsigned)err < sizeof azKind / sizeof *azKind ? azKind[err] : "?", zText + errOffset);
    rc = -1;
  } else {
    printf("query %s: %u patterns ok\n", zPath, ts_query_pattern_count(q));
    ts_query_delete(q);
  }
  free(zText);
  return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR [QUERY.scm ...] [NAME_SUBSTRING]\n", argv[0]);
    return 2;
  }
  DIR *d = opendir(argv[1]);
  if (!d) {
    fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[1]);
    return 2;
  }
  char **azFile = NULL;
  size_t nFile = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t k = strlen(e->d_name);
    if (k > 4 && !strcmp(e->d_name + k - 4, ".txt")) {
      azFile = realloc(azFile, (nFile + 1) * sizeof *azFile);
      azFile[nFile++] = strdup(e->d_name);
    }
  }
  closedir(d);
  if (nFile == 0) {
    fprintf(stderr, "%s: no .txt files in %s\n", argv[0], argv[1]);
    return 1;
  }
  qsort(azFile, nFile, sizeof *azFile, cmp_str);

  TSParser *parser = ts_parser_new();
  if (!ts_parser_set_language(parser, tree_sitter_tfs())) {
    fprintf(stderr, "%s: the runtime rejects the parser's ABI version %u\n", argv[0],
            ts_language_version(tree_sitter_tfs()));
    return 1;
  }
  Stats st = {0, 0, 0, NULL};
  int rc = 0;
  for (int i = 2; i < argc; i++) {
    size_t k = strlen(argv[i]);
    if (k > 4 && !strcmp(argv[i] + k - 4, ".scm")) {
      if (check_query(argv[i]) < 0) rc = 1;
    } else {
      st.zFilter = argv[i];
    }
  }
  for (size_t i = 0; i < nFile; i++) {
    size_t k = strlen(argv[1]) + strlen(azFile[i]) + 2;
    char *zPath = malloc(k);
    snprintf(zPath, k, "%s/%s", argv[1], azFile[i]);
    if (run_file(parser, &st, zPath, azFile[i]) < 0) rc = 1;
    free(zPath);
    free(azFile[i]);
  }
  free(azFile);
  ts_parser_delete(parser);
  printf("grammar corpus: %d passed, %d failed, %d skipped\n", st.nPass, st.nFail, st.nSkip);
  return (rc || st.nFail) ? 1 : 0;
}
