/* hugemem.h — big zeroed mappings on transparent huge pages, for the compiler's bulk memory. */
#ifndef TFS_HUGEMEM_H
#define TFS_HUGEMEM_H

#include <stdbool.h>
#include <stddef.h>

/* A huge page: mappings are multiples of it and aligned to it. */
#define HM_PAGE ((size_t)2 << 20)
static inline size_t hm_round(size_t n) { return (n + HM_PAGE - 1) & ~(HM_PAGE - 1); }

/* `size` bytes (rounded up to HM_PAGE), zeroed and HM_PAGE-aligned, or NULL.
 * The kernel backs them with 2 MiB pages where it can: a big parse touches
 * hundreds of MB once, and 4 KiB page faults were a fifth of its time. */
void *hm_map(size_t size);
void hm_unmap(void *p, size_t size);

/* Does the kernel give transparent huge pages on request (madvise or always)? */
bool hm_thp_offered(void);

/* Is malloc glibc's, which GLIBC_TUNABLES configures (not a sanitizer's)? */
bool hm_malloc_reads_tunables(void);

/* A source from this size on is big: compiling it touches hundreds of MB. */
#define HM_BIG_SOURCE ((size_t)256 << 10)

/* glibc's malloc asks for huge pages only when GLIBC_TUNABLES says so at
 * start-up (glibc.malloc.hugetlb=1), and libtcc and the runtime allocate
 * with malloc.  So before compiling a big source file, or one naming
 * `big_word` (a library whose cached code is big: loading Keras's ~50 MB of
 * objects touches ~130 MB, and 4 KiB faults were half of a warm start), the
 * tools re-execute themselves once with HM_TUNABLES set, where the kernel
 * offers transparent huge pages on request.  The trim and mmap thresholds go with it: with
 * the default trimming, free() gave the heap's top huge page back and the
 * next malloc faulted a new one in (2 MiB cleared each time), which made
 * one run in three spend 2.3 s in the kernel.  Small programs are left
 * alone: each huge page costs a 2 MiB clear, which doubled the CPU time of
 * a one-line program.  A GLIBC_TUNABLES already set, even empty, is
 * respected (that is also how to opt out).  Under a sanitizer, whose
 * allocator ignores the tunables, nothing is done.  Returns only when it
 * did not re-execute. */
#define HM_TUNABLES "glibc.malloc.hugetlb=1:glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432"
void hm_huge_pages_for(const char *source_path, const char *big_word, char **argv);

#endif
