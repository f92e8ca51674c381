/* grammar/src/scanner.c — external scanner for .tfs: NEWLINE/INDENT/DEDENT from indentation, and string delimiters/content. */

/*
 * Indentation: a stack of indent widths (bottom is always 0). At a line end
 * the scanner measures the next non-blank, non-comment line: wider pushes and
 * yields INDENT, narrower pops one level and yields DEDENT (the parser calls
 * again for each further level), otherwise NEWLINE. The tokens are only
 * produced where the parser can accept them, which keeps them out of
 * brackets: inside `()[]{}` no statement can end, so none is valid there.
 * All three tokens are zero-width, so comments skipped while looking ahead
 * are lexed again as ordinary `comment` extras.
 *
 * Strings: a stack of open delimiters (quote, triple, raw, f-string), pushed
 * by string_start and popped by string_end; one level per nested f-string.
 * String content stops before escapes and before `{`/`}` in f-strings so the
 * grammar can parse those as nodes.
 */

#include "tree_sitter/parser.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ORDER EXTERNALS: must match `externals` in grammar.js. */
enum TokenType {
  NEWLINE,
  INDENT,
  DEDENT,
  STRING_START,
  STRING_CONTENT,
  ESCAPE_INTERPOLATION,
  STRING_END,
};

/* Bits of one open-string delimiter. */
enum {
  DELIM_QUOTE_MASK = 0x7F, /* the quote character itself, ' or " */
  DELIM_TRIPLE = 0x100,
  DELIM_RAW = 0x200,
  DELIM_FORMAT = 0x400,
};

#define MAX_INDENTS 200
#define MAX_DELIMS 100

typedef struct {
  uint16_t indents[MAX_INDENTS]; /* indent widths; indents[0] == 0 */
  uint32_t nIndent;
  uint16_t delims[MAX_DELIMS];   /* open strings, innermost last */
  uint32_t nDelim;
} Scanner;

static void advance(TSLexer *lexer) { lexer->advance(lexer, false); }
static void skip(TSLexer *lexer) { lexer->advance(lexer, true); }

/* Scan the body of the innermost open string up to the next thing the grammar
 * must see: an escape, a brace in an f-string, or the closing quote. */
static bool scan_string_content(Scanner *s, TSLexer *lexer, const bool *valid) {
  uint16_t delim = s->delims[s->nDelim - 1];
  int32_t quote = delim & DELIM_QUOTE_MASK;
  bool triple = delim & DELIM_TRIPLE, raw = delim & DELIM_RAW, format = delim & DELIM_FORMAT;
  bool hasContent = false;

  for (;;) {
    int32_t c = lexer->lookahead;
    if (c == 0 && lexer->eof(lexer)) break;
    if (format && (c == '{' || c == '}')) {
      if (hasContent) break;
      advance(lexer);
      if (lexer->lookahead == c && valid[ESCAPE_INTERPOLATION]) {
        /* `{{` or `}}`: a literal brace */
        advance(lexer);
        lexer->mark_end(lexer);
        lexer->result_symbol = ESCAPE_INTERPOLATION;
        return true;
      }
      return false; /* the grammar's `{` / `}` of an interpolation */
    }
    if (c == '\\') {
      if (raw) {
        /* In raw strings a backslash is text, but still keeps the next
         * character (even a quote) from ending the string. */
        advance(lexer);
        if (lexer->lookahead != 0) advance(lexer);
        hasContent = true;
        continue;
      }
      break; /* escape_sequence is lexed by the grammar */
    }
    if (c == quote) {
      if (!triple) {
        if (hasContent) break;
        advance(lexer);
        lexer->mark_end(lexer);
        s->nDelim--;
        lexer->result_symbol = STRING_END;
        return true;
      }
      /* Triple-quoted: only three quotes in a row end it. */
      lexer->mark_end(lexer);
      int n = 0;
      while (n < 3 && lexer->lookahead == quote) {
        advance(lexer);
        n++;
      }
      if (n == 3) {
        if (hasContent) {
          lexer->result_symbol = STRING_CONTENT; /* ends at the mark, before the quotes */
          return true;
        }
        lexer->mark_end(lexer);
        s->nDelim--;
        lexer->result_symbol = STRING_END;
        return true;
      }
      hasContent = true; /* one or two quotes are text */
      continue;
    }
    if ((c == '\n' || c == '\r') && !triple) break; /* unterminated: let the parser report it */
    advance(lexer);
    hasContent = true;
  }
  if (!hasContent) return false;
  lexer->mark_end(lexer);
  lexer->result_symbol = STRING_CONTENT;
  return true;
}

/* At a possible string start: an optional prefix (r, b, u, f, two of them at
 * most) and a quote. Anything else is an identifier or operator. */
static bool scan_string_start(Scanner *s, TSLexer *lexer) {
  uint16_t flags = 0;
  int nPrefix = 0;
  for (;;) {
    int32_t c = lexer->lookahead;
    if (c == 'r' || c == 'R') flags |= DELIM_RAW;
    else if (c == 'f' || c == 'F') flags |= DELIM_FORMAT;
    else if (c == 'b' || c == 'B' || c == 'u' || c == 'U') {
    } else break;
    if (++nPrefix > 2) return false;
    advance(lexer);
  }
  int32_t quote = lexer->lookahead;
  if (quote != '"' && quote != '\'') return false;
  if (s->nDelim >= MAX_DELIMS) return false;
  advance(lexer);
  lexer->mark_end(lexer); /* `""` is an empty string: the token is one quote */
  if (lexer->lookahead == quote) {
    advance(lexer);
    if (lexer->lookahead == quote) {
      advance(lexer);
      lexer->mark_end(lexer);
      flags |= DELIM_TRIPLE;
    }
  }
  s->delims[s->nDelim++] = (uint16_t)(flags | (uint16_t)quote);
  lexer->result_symbol = STRING_START;
  return true;
}

bool tree_sitter_tfs_external_scanner_scan(void *payload, TSLexer *lexer, const bool *valid) {
  Scanner *s = payload;
  /* During error recovery every symbol is valid; STRING_CONTENT and INDENT
   * are never both valid otherwise. */
  bool errorRecovery = valid[STRING_CONTENT] && valid[INDENT];

  if (valid[STRING_CONTENT] && s->nDelim > 0 && !errorRecovery)
    return scan_string_content(s, lexer, valid);

  /* Look ahead over blanks, comments and line continuations to measure the
   * next line's indentation. Every indentation token ends here. */
  lexer->mark_end(lexer);
  bool foundEol = false;
  uint32_t width = 0;
  int32_t firstCommentWidth = -1;
  bool sawContinuation = false;
  for (;;) {
    int32_t c = lexer->lookahead;
    if (c == '\n') {
      foundEol = true;
      width = 0;
      skip(lexer);
    } else if (c == ' ') {
      width++;
      skip(lexer);
    } else if (c == '\t') {
      width = (width / 8 + 1) * 8; /* to the next multiple of 8 */
      skip(lexer);
    } else if (c == '\r' || c == '\v') {
      skip(lexer);
    } else if (c == '\f') {
      width = 0; /* Python: a form feed resets the column */
      skip(lexer);
    } else if (c == '#') {
      /* A comment after code on the same line: not our business. */
      if (!foundEol) return false;
      if (firstCommentWidth < 0) firstCommentWidth = (int32_t)width;
      while (lexer->lookahead != '\n' && !(lexer->lookahead == 0 && lexer->eof(lexer))) skip(lexer);
    } else if (c == '\\') {
      /* `\` + newline joins lines; anything else after `\` is an error. */
      skip(lexer);
      if (lexer->lookahead == '\r') skip(lexer);
      if (lexer->lookahead == '\n' || lexer->eof(lexer)) skip(lexer);
      else return false;
      sawContinuation = true;
    } else if (c == 0 && lexer->eof(lexer)) {
      width = 0;
      foundEol = true;
      break;
    } else {
      break;
    }
  }

  if (foundEol) {
    uint32_t current = s->indents[s->nIndent - 1];
    if (width > current && valid[INDENT] && s->nIndent < MAX_INDENTS) {
      s->indents[s->nIndent++] = (uint16_t)(width > 0xFFFF ? 0xFFFF : width);
      lexer->result_symbol = INDENT;
      return true;
    }
    /* A comment still indented at the inner level belongs to the inner
     * block: dedent only after it. */
    if (width < current && valid[DEDENT] && s->nIndent > 1 &&
        (firstCommentWidth < 0 || (uint32_t)firstCommentWidth < current)) {
      s->nIndent--;
      lexer->result_symbol = DEDENT;
      return true;
    }
    if (valid[NEWLINE] && !errorRecovery) {
      lexer->result_symbol = NEWLINE;
      return true;
    }
  }

  /* A skipped comment or `\` must be lexed first (they are nodes in the
   * tree); the parser will call again right after it. */
  if (firstCommentWidth < 0 && !sawContinuation && valid[STRING_START] && !errorRecovery)
    return scan_string_start(s, lexer);
  return false;
}

void *tree_sitter_tfs_external_scanner_create(void) {
  Scanner *s = calloc(1, sizeof(Scanner));
  if (!s) abort();
  s->nIndent = 1; /* indents[0] == 0 */
  return s;
}

void tree_sitter_tfs_external_scanner_destroy(void *payload) { free(payload); }

/* Layout: nDelim, then each delimiter as 2 bytes, then indents[1..] as 2 bytes each. */
unsigned tree_sitter_tfs_external_scanner_serialize(void *payload, char *buffer) {
  Scanner *s = payload;
  unsigned n = 0;
  uint32_t nDelim = s->nDelim;
  if (nDelim > 255) nDelim = 255;
  buffer[n++] = (char)nDelim;
  for (uint32_t i = 0; i < nDelim; i++) {
    buffer[n++] = (char)(s->delims[i] & 0xFF);
    buffer[n++] = (char)(s->delims[i] >> 8);
  }
  for (uint32_t i = 1; i < s->nIndent && n + 2 <= TREE_SITTER_SERIALIZATION_BUFFER_SIZE; i++) {
    buffer[n++] = (char)(s->indents[i] & 0xFF);
    buffer[n++] = (char)(s->indents[i] >> 8);
  }
  return n;
}

void tree_sitter_tfs_external_scanner_deserialize(void *payload, const char *buffer, unsigned length) {
  Scanner *s = payload;
  s->nDelim = 0;
  s->nIndent = 1;
  s->indents[0] = 0;
  if (length == 0) return;
  unsigned n = 0;
  uint32_t nDelim = (uint8_t)buffer[n++];
  for (uint32_t i = 0; i < nDelim && n + 2 <= length; i++) {
    s->delims[s->nDelim++] = (uint16_t)((uint8_t)buffer[n] | ((uint8_t)buffer[n + 1] << 8));
    n += 2;
  }
  while (n + 2 <= length && s->nIndent < MAX_INDENTS) {
    s->indents[s->nIndent++] = (uint16_t)((uint8_t)buffer[n] | ((uint8_t)buffer[n + 1] << 8));
    n += 2;
  }
}
