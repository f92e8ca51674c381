/* docs.h — the API doc table generated from ops.def and the //! blocks (scripts/gendoc.py), and help(). */
#ifndef TFS_DOCS_H
#define TFS_DOCS_H

#include "object/object.h"

typedef struct DocEntry {
  const char *name;      /* 'tf.reduce_sum', 'GradientTape.gradient', 'len' */
  const char *sig;       /* parameters without parentheses, or NULL for a value (tf.float32) */
  const char *doc;       /* the summary */
  const char *args;      /* ops: inputs and dtypes, host arguments ("" otherwise) */
  const char *also;      /* space-separated other names of the same thing */
} DocEntry;

extern const DocEntry doc_table[];   /* sorted by name */
extern const int doc_count;

const DocEntry *doc_find(const char *name);
/* The entry as help() and `tfs doc` print it: signature, then the indented summary. */
void doc_format(StrBuf *b, const DocEntry *e);
/* "no documentation for 'X'" plus up to three close matches, as difflib.get_close_matches picks them. */
void doc_unknown(StrBuf *b, const char *name);
/* help(obj): prints obj's entry; unknown names raise ValueError with close matches. */
Val bi_help(Val self, int n, const Val *args, const Kw *kw);

#endif
