/* bigrange.h — ranges whose bounds or length leave int64 (bigrange.c), behind range.c's range type. */
#ifndef TFS_BIGRANGE_H
#define TFS_BIGRANGE_H

#include "object/object.h"

/* A Range with step 0 is a BigRange: its bounds and length live in GMP values after the Range header. */
static inline bool range_is_big(const Range *r) { return r->step == 0; }

Val range_from_args(int n, const Val *args);   /* range(stop) / range(start, stop[, step]) of ints of any size */
void bigrange_free(Range *r);
void bigrange_repr(StrBuf *b, Range *r);
bool bigrange_nonempty(Range *r);
tfs_i64 bigrange_len(Range *r);                /* OverflowError when the length leaves ssize_t */
Val range_item(Val self, Val key);             /* r[int] / r[slice] of a range of any size */
Val bigrange_iter(Val self);
bool range_eq_any(Range *x, Range *y);
tfs_u64 bigrange_hash(Range *r);
Val bigrange_attr(Range *r, const char *name); /* start / stop / step; VT_UNDEF for others */
/* index of x (an int of any size, or an integral float) in r: VT_NONE when absent */
Val range_find(Range *r, Val x);

#endif
