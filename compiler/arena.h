/* arena.h — bump allocator for compiler data: everything freed at once with the arena. */
#ifndef TFS_ARENA_H
#define TFS_ARENA_H

#include <stddef.h>

/* ARENA_ASAN: an AddressSanitizer build (gcc or clang), where arena users may
 * poison bytes they hand out but do not use (ast.c's short nodes). */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#endif

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena { ArenaBlock *head, *spare; } Arena;   /* spare: see arena_release */
typedef struct ArenaMark { ArenaBlock *block; size_t used; } ArenaMark;

void arena_init(Arena *a);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t n);           /* zeroed, 16-byte aligned */
size_t arena_bytes(const Arena *a);
/* Scratch use: everything allocated after the mark goes at release (the
 * blocks then made are freed; big blocks behind the head are not: keep big
 * allocations out of a scratch arena). */
ArenaMark arena_mark(const Arena *a);
void arena_release(Arena *a, ArenaMark m);              /* bytes handed out (scaling tests) */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
