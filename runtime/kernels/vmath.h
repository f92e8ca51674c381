/* vmath.h — float32 sigmoid and tanh over arrays with TF 2.15's CPU bits (Eigen's float algorithms), vectorised per ISA path. */
#ifndef TFS_VMATH_H
#define TFS_VMATH_H

#include "kernels/isa.h"
#include "object/object.h"

/* Eigen evaluates TF's elementwise ops in packets of 8 floats (AVX), the last size % 8 elements as scalars */
#define VM_PACKET 8

/* One element: the sigmoid of a packet lane, the sigmoid of a scalar element (the tensor's last size % 8),
 * and the tanh of either (Eigen's tanh is one formula). */
float vm_sigmoid_vec1(float x);
float vm_sigmoid_tail1(float x);
float vm_tanh1(float x);
/* o = f(a) for n contiguous floats forming one tensor (o may equal a), on the active ISA path; vm_*_on takes
 * a path (one the CPU has).  Every path gives the same bits. */
void vm_sigmoid_f32(float *o, const float *a, tfs_i64 n);
void vm_tanh_f32(float *o, const float *a, tfs_i64 n);
void vm_sigmoid_on(Isa isa, float *o, const float *a, tfs_i64 n);
void vm_tanh_on(Isa isa, float *o, const float *a, tfs_i64 n);
/* a piece of a tensor: its first nv elements are packet lanes, the rest scalar elements */
void vm_sigmoid_part_f32(float *o, const float *a, tfs_i64 n, tfs_i64 nv);

#endif
