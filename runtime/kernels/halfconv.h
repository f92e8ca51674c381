/* halfconv.h — float16 <-> float32 over arrays, F16C-vectorised per ISA path, with the bits of object/half.h's scalar conversions. */
#ifndef TFS_HALFCONV_H
#define TFS_HALFCONV_H

#include <stdint.h>

#include "kernels/isa.h"
#include "object/object.h"

/* o[i] = f16_to_f32(a[i]) / f32_to_f16(a[i]) for n contiguous elements on the active path; *_on takes a
 * path the CPU has.  The hardware conversions round to nearest even as the scalar ones do; only NaNs
 * differ (F16C keeps payloads, TF's conversion gives one quiet NaN), so a block holding a NaN is
 * converted by the scalar code and every path gives the same bits. */
void hc_f16_to_f32(float *o, const uint16_t *a, tfs_i64 n);
void hc_f32_to_f16(uint16_t *o, const float *a, tfs_i64 n);
void hc_f16_to_f32_on(Isa isa, float *o, const uint16_t *a, tfs_i64 n);
void hc_f32_to_f16_on(Isa isa, uint16_t *o, const float *a, tfs_i64 n);

#endif
