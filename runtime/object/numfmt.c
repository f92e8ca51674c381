/* numfmt.c — shortest round-trip float digits (by correctly rounded printf + read-back) and repr(float). */
#include "object/numfmt.h"
#include "object/half.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does the decimal mantissa `m` (ndig digits, value 0.m x 10^decpt) read back as x? */
static bool numfmt_roundtrips(double x, int is_f32, const char *m, int decpt) {
  char buf[64];
  snprintf(buf, sizeof buf, "0.%se%d", m, decpt);
  if (is_f32 == 2) return f64_to_f16(strtod(buf, NULL)) == f64_to_f16(x);
  if (is_f32) return strtof(buf, NULL) == (float)x;
  return strtod(buf, NULL) == x;
}

/* Split printf's "%.*e" output "d.ddde±X" into a digit string and decpt. */
static int numfmt_split(const char *s, char *digits, int *decpt) {
  int n = 0;
  for (; *s && *s != 'e'; s++)
    if (*s >= '0' && *s <= '9') digits[n++] = *s;
  digits[n] = 0;
  *decpt = atoi(s + 1) + 1;
  return n;
}

/* Add `delta` (+1 or -1) to the last digit of an n-digit mantissa, carrying;
 * returns false when the result would change the digit count. */
static bool numfmt_bump(char *d, int n, int *decpt, int delta) {
  int i = n - 1;
  if (delta > 0) {
    while (i >= 0 && d[i] == '9') d[i--] = '0';
    if (i < 0) {          /* 999 -> 1000: keep n digits, one more power of ten */
      d[0] = '1';
      for (int k = 1; k < n; k++) d[k] = '0';
      (*decpt)++;
      return true;
    }
    d[i]++;
  } else {
    while (i >= 0 && d[i] == '0') d[i--] = '9';
    if (i < 0) return false;
    d[i]--;
    if (d[0] == '0') return false;     /* 100 -> 099 is no longer an n-digit mantissa */
  }
  return true;
}

static int numfmt_trim(char *d, int n) {
  while (n > 1 && d[n - 1] == '0') n--;
  d[n] = 0;
  return n;
}

int numfmt_shortest(double x, int is_f32, char *digits, int *decpt) {
  x = fabs(x);
  if (x == 0 || !isfinite(x)) {
    strcpy(digits, "0");
    *decpt = 1;
    return 1;
  }
  char buf[64], cand[NUMFMT_MAXDIGITS + 2];
  int maxp = is_f32 == 2 ? 5 : is_f32 ? 9 : 17, e2;
  if (frexp(x, &e2) != 0.5) {
    /* Not a power of two: the read-back interval is symmetric about x, so the
     * nearest p-digit decimal is the best p-digit candidate and reading back
     * is monotone in p; bisect for the shortest p. */
    int lo = 1, hi = maxp;
    while (lo < hi) {
      int mid = (lo + hi) / 2, dp;
      snprintf(buf, sizeof buf, "%.*e", mid - 1, x);
      numfmt_split(buf, digits, &dp);
      if (numfmt_roundtrips(x, is_f32, digits, dp)) hi = mid;
      else lo = mid + 1;
    }
    snprintf(buf, sizeof buf, "%.*e", lo - 1, x);
    int n = numfmt_split(buf, digits, decpt);
    return numfmt_trim(digits, n);
  }
  for (int p = 1; p <= maxp; p++) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, x);
    int dp, n = numfmt_split(buf, digits, &dp);
    if (numfmt_roundtrips(x, is_f32, digits, dp)) {
      *decpt = dp;
      return numfmt_trim(digits, n);
    }
    /* The nearest p-digit decimal misses; at a power of two the rounding
     * interval is lopsided, so a neighbour may still read back. */
    for (int delta = -1; delta <= 1; delta += 2) {
      int cdp = dp;
      memcpy(cand, digits, (size_t)n + 1);
      if (!numfmt_bump(cand, n, &cdp, delta)) continue;
      if (numfmt_roundtrips(x, is_f32, cand, cdp)) {
        memcpy(digits, cand, (size_t)n + 1);
        *decpt = cdp;
        return numfmt_trim(digits, n);
      }
    }
  }
  /* 17 (9, 5) significant digits always round-trip; not reached. */
  snprintf(buf, sizeof buf, "%.*e", maxp - 1, x);
  int n = numfmt_split(buf, digits, decpt);
  return numfmt_trim(digits, n);
}

void numfmt_repr_double(StrBuf *b, double x) {
  if (isnan(x)) { sb_puts(b, "nan"); return; }
  if (signbit(x)) sb_putc(b, '-');
  if (isinf(x)) { sb_puts(b, "inf"); return; }
  char d[NUMFMT_MAXDIGITS + 2];
  int decpt, n = numfmt_shortest(x, 0, d, &decpt);
  if (decpt <= -4 || decpt > 16) {
    /* scientific: d[.ddd]e±XX, at least two exponent digits */
    sb_putc(b, d[0]);
    if (n > 1) {
      sb_putc(b, '.');
      sb_putn(b, d + 1, (size_t)n - 1);
    }
    int e = decpt - 1;
    sb_printf(b, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
  } else if (decpt <= 0) {
    sb_puts(b, "0.");
    for (int i = 0; i < -decpt; i++) sb_putc(b, '0');
    sb_putn(b, d, (size_t)n);
  } else if (decpt >= n) {
    sb_putn(b, d, (size_t)n);
    for (int i = n; i < decpt; i++) sb_putc(b, '0');
    sb_puts(b, ".0");
  } else {
    sb_putn(b, d, (size_t)decpt);
    sb_putc(b, '.');
    sb_putn(b, d + decpt, (size_t)(n - decpt));
  }
}
