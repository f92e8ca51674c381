/* bigint.h — GMP access to Python ints of any kind (int64, u64int, BigInt) for code that computes on them exactly. */
#ifndef TFS_BIGINT_H
#define TFS_BIGINT_H

#include <gmp.h>

#include "object/object.h"

Val bigint_from_mpz(const mpz_t z);   /* the int kind that holds z: int64, u64int or a BigInt */
bool bigint_get(Val v, mpz_t z);      /* z (initialised) = v when v is an int of any kind (bool too); false otherwise */
bool bigint_is_wide(Val v);           /* a u64int or BigInt: an int beyond int64 */
/* z = v for an int of any kind or an object with an index (numpy ints); TypeError "'T' object cannot be interpreted as an integer" */
void bigint_index(Val v, mpz_t z);

/* mpz_t temporaries released by the error machinery when an operation throws: BIGTMP_BEGIN(t, 3) ... BIGTMP_END(t) */
typedef struct BigTmp { mpz_t z[4]; int n; } BigTmp;
int bigtmp_init(BigTmp *t, int n);    /* initialises n (<= 4) values and holds them; returns the hold mark */
void bigtmp_done(BigTmp *t, int mark);

#endif
