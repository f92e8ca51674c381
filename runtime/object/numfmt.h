/* numfmt.h — shortest round-trip decimal digits for floats, and Python's repr(float). */
#ifndef TFS_NUMFMT_H
#define TFS_NUMFMT_H

#include "object/value.h"

/* Longest digit string numfmt_shortest can produce, plus the NUL. */
#define NUMFMT_MAXDIGITS 20

/* Shortest decimal digits of |x| (finite) that read back as x at float64
 * precision, or at float32 precision when is_f32 is 1, float16 when 2 (x must then hold
 * such a value).  Among equally short candidates the one nearest x wins.  The value
 * is 0.DIGITS x 10^decpt; digits gets a NUL-terminated string without
 * trailing zeros ("0" with decpt 1 for zero).  Returns the digit count. */
int numfmt_shortest(double x, int is_f32, char *digits, int *decpt);

/* Python's repr(float): 1.0 0.1 1e-05 1e+16 123456789.0 inf -inf nan -0.0 */
void numfmt_repr_double(StrBuf *b, double x);

#endif
