/* mathint.h — math's integer functions on GMP (mathint.c), shared with mathmod.c and builtins' pow and round. */
#ifndef TFS_MATHINT_H
#define TFS_MATHINT_H

#include "object/object.h"

/* math's argument checks (mathmod.c): CPython's messages for keywords and counts outside [lo, hi] */
void mm_count(const char *what, int n, const Kw *kw, int lo, int hi);

Val mi_factorial(Val self, int n, const Val *args, const Kw *kw);
Val mi_gcd(Val self, int n, const Val *args, const Kw *kw);
Val mi_lcm(Val self, int n, const Val *args, const Kw *kw);
Val mi_comb(Val self, int n, const Val *args, const Kw *kw);
Val mi_perm(Val self, int n, const Val *args, const Kw *kw);
Val mi_isqrt(Val self, int n, const Val *args, const Kw *kw);
Val mi_powmod(Val base, Val exp, Val mod);   /* pow(base, exp, mod) of ints */
Val mi_round_int(Val x, Val nd);             /* round(int, ndigits) */

#endif
