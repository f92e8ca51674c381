/* nesting.c — bound the nesting depth of a parsed module, so the recursive compiler passes cannot overflow the C stack. */
#include "nesting.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "object/value.h"

typedef struct NestItem { Ast *node; int depth; } NestItem;

/* An explicit stack instead of recursion: this walk is what protects the others. */
bool nest_check(Ast *root, const char *path, const char *source, DiagList *diags) {
  size_t n = 0, cap = 256;
  NestItem *stack = malloc(cap * sizeof *stack);
  if (!stack) return true;   /* no memory to check with: the passes' own guards remain */
  stack[n++] = (NestItem){root, 1};
  bool ok = true;
  while (n && ok) {
    NestItem it = stack[--n];
    Ast *a = it.node;
    if (it.depth > RT_COMPILE_NESTING_LIMIT) {
      diag_add(diags, path, source, a->line, a->col, "RecursionError: maximum recursion depth exceeded during compilation");
      ok = false;
      break;
    }
    /* the node's own child slots (ast.h's table): other kinds' bytes are not there */
    uint64_t mask = ast_kind_fields[a->kind];
    size_t more = (size_t)__builtin_popcountll(mask & AF_PTR_MASK);
    AST_FOR_FIELDS(f, a, AF_LIST_MASK) more += (size_t)ast_list_field(a, f)->n;
    if (n + more > cap) {
      while (n + more > cap) cap *= 2;
      NestItem *s = realloc(stack, cap * sizeof *stack);
      if (!s) break;
      stack = s;
    }
    /* Pushed last to first, so the walk meets the leftmost too-deep node first. */
    for (int f = AF_name; f-- > 0;) {
      if (!(mask >> f & 1)) continue;
      if (f >= AF_body) {
        AstList *l = ast_list_field(a, f);
        for (int k = l->n; k-- > 0;)
          if (l->items[k]) stack[n++] = (NestItem){l->items[k], it.depth + 1};
      } else {
        Ast *c = *ast_ptr_field(a, f);
        if (c) stack[n++] = (NestItem){c, it.depth + 1};
      }
    }
  }
  free(stack);
  return ok;
}
