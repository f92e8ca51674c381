/* vmath.h — float32 sigmoid and tanh over arrays, vectorised per ISA path, with the bits of the scalar glibc formulas. */
#ifndef TFS_VMATH_H
#define TFS_VMATH_H

#include "kernels/isa.h"
#include "object/object.h"

/* The reference values: through double, rounded once (glibc's exp and tanh), as the elementwise kernels'
 * Sigmoid and Tanh of float32 have always computed them. */
float vm_sigmoid_ref(float x);
float vm_tanh_ref(float x);
/* o[i] = ref(a[i]) for n contiguous floats (o may equal a), on the active ISA path; vm_*_on takes a path
 * (one the CPU has).  Each vector lane's value is used only where it provably rounds to the reference's
 * float; elsewhere the lane is recomputed by the reference, so every path gives the same bits. */
void vm_sigmoid_f32(float *o, const float *a, tfs_i64 n);
void vm_tanh_f32(float *o, const float *a, tfs_i64 n);
void vm_sigmoid_on(Isa isa, float *o, const float *a, tfs_i64 n);
void vm_tanh_on(Isa isa, float *o, const float *a, tfs_i64 n);

#endif
