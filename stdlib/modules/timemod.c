/* timemod.c — the native stdlib modules `_time` (under stdlib/time.tfs: perf_counter, time, sleep, localtime, strftime, ...) and `timeit` (timeit). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

static double tm_clock(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Python's errors for a native function that takes no arguments. */
void native_noargs(const char *what, int n, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s() takes no keyword arguments", what);
  if (n) rt_throw(ERR_TYPE, "%s() takes no arguments (%d given)", what, n);
}

static Val tm_perf_counter(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("time.perf_counter", n, kw);
  return val_float(tm_clock(CLOCK_MONOTONIC));
}

static Val tm_time(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("time.time", n, kw);
  return val_float(tm_clock(CLOCK_REALTIME));
}

static Val tm_process_time(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("time.process_time", n, kw);
  return val_float(tm_clock(CLOCK_PROCESS_CPUTIME_ID));
}

static Val tm_sleep(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "sleep", .sig = "secs"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  double s;
  if (!val_as_float(a[0], &s)) rt_throw(ERR_TYPE, "'%s' object cannot be interpreted as an integer", val_type_name(a[0]));
  if (s < 0) rt_throw(ERR_VALUE, "sleep length must be non-negative");
  rt_flush();
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0) {
  }
  return val_none();
}

/* timeit.timeit(stmt, setup=None, timer=None, number=1000000, globals=None): stmt and setup are callables. */
static Val tm_timeit(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "timeit", .sig = "stmt=None, setup=None, timer=None, number=1000000, globals=None"};
  Val a[5];
  args_parse(&spec, n, args, kw, a);
  int64_t number = val_to_index(a[3], NULL);
  if (a[1].tag != VT_NONE) val_decref(rt_call(a[1], 0, NULL, NULL));
  bool custom = a[2].tag != VT_NONE;
  double t0;
  Val tv = val_undef();
  if (custom) {
    tv = rt_call(a[2], 0, NULL, NULL);
    if (!val_as_float(tv, &t0)) t0 = 0;
    val_decref(tv);
  } else {
    t0 = tm_clock(CLOCK_MONOTONIC);
  }
  if (a[0].tag != VT_NONE)
    for (int64_t i = 0; i < number; i++) val_decref(rt_call(a[0], 0, NULL, NULL));
  double t1;
  if (custom) {
    tv = rt_call(a[2], 0, NULL, NULL);
    if (!val_as_float(tv, &t1)) t1 = 0;
    val_decref(tv);
  } else {
    t1 = tm_clock(CLOCK_MONOTONIC);
  }
  return val_float(t1 - t0);
}

static Val tm_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return val_int((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}
static Val tm_time_ns(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("time.time_ns", n, kw);
  return tm_ns(CLOCK_REALTIME);
}
static Val tm_perf_counter_ns(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("time.perf_counter_ns", n, kw);
  return tm_ns(CLOCK_MONOTONIC);
}

/* Seconds since the epoch from an optional argument (None: now), as time.localtime's. */
static time_t tm_secs(int n, const Val *args, const char *what) {
  if (n == 0 || args[0].tag == VT_NONE) return time(NULL);
  double s;
  if (args[0].tag == VT_OBJ || !val_as_float(args[0], &s))
    rt_throw(ERR_TYPE, "'%s' object cannot be interpreted as an integer", val_type_name(args[0]));
  if (s != s) rt_throw(ERR_VALUE, "Invalid value NaN (not a number)");
  if (s >= 9.2e18 || s <= -9.2e18) rt_throw(ERR_OVERFLOW, "timestamp out of range for platform time_t");
  (void)what;
  return (time_t)(s < 0 ? -(double)(int64_t)(-s) : (double)(int64_t)s);
}

/* A struct tm as Python's 9 fields (year, mon 1-12, mday, hour, min, sec, wday Monday=0, yday 1-366, isdst)
 * and tm_zone, tm_gmtoff: the 11 items stdlib/time.tfs makes a struct_time of. */
static Val tm_tuple(const struct tm *t) {
  Val zone = str_from_cstr(t->tm_zone ? t->tm_zone : "");
  Val r = tuple_pack(11, val_int(t->tm_year + 1900), val_int(t->tm_mon + 1), val_int(t->tm_mday), val_int(t->tm_hour),
                     val_int(t->tm_min), val_int(t->tm_sec), val_int((t->tm_wday + 6) % 7), val_int(t->tm_yday + 1),
                     val_int(t->tm_isdst), zone, val_int(t->tm_gmtoff));
  val_decref(zone);
  return r;
}

static void tm_from_tuple(Val v, struct tm *t, const char *what) {
  tfs_i64 n;
  const Val *it;
  if (!seq_items(v, &n, &it)) rt_throw(ERR_TYPE, "Tuple or struct_time argument required");
  if (n != 9) rt_throw(ERR_TYPE, "%s(): illegal time tuple argument", what);
  int64_t f[9];
  for (int i = 0; i < 9; i++)
    if (!val_as_int(it[i], &f[i]) || it[i].tag == VT_FLOAT)
      rt_throw(ERR_TYPE, "'%s' object cannot be interpreted as an integer", val_type_name(it[i]));
  memset(t, 0, sizeof *t);
  t->tm_year = (int)(f[0] - 1900);
  t->tm_mon = (int)f[1] - 1;
  t->tm_mday = (int)f[2];
  t->tm_hour = (int)f[3];
  t->tm_min = (int)f[4];
  t->tm_sec = (int)f[5];
  t->tm_wday = (int)((f[6] + 1) % 7);
  t->tm_yday = (int)f[7] - 1;
  t->tm_isdst = (int)f[8];
}

static Val tm_localtime(Val self, int n, const Val *args, const Kw *kw) {
  if (n > 1 || (kw && kw->n)) rt_throw(ERR_TYPE, "localtime expected at most 1 argument, got %d", n);
  time_t s = tm_secs(n, args, "localtime");
  struct tm t;
  if (!localtime_r(&s, &t)) rt_throw(ERR_OVERFLOW, "timestamp out of range for platform time_t");
  return tm_tuple(&t);
}

static Val tm_gmtime(Val self, int n, const Val *args, const Kw *kw) {
  if (n > 1 || (kw && kw->n)) rt_throw(ERR_TYPE, "gmtime expected at most 1 argument, got %d", n);
  time_t s = tm_secs(n, args, "gmtime");
  struct tm t;
  if (!gmtime_r(&s, &t)) rt_throw(ERR_OVERFLOW, "timestamp out of range for platform time_t");
  return tm_tuple(&t);
}

static Val tm_mktime(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 1 || (kw && kw->n)) rt_throw(ERR_TYPE, "time.mktime() takes exactly one argument (%d given)", n);
  struct tm t;
  tm_from_tuple(args[0], &t, "mktime");
  t.tm_wday = -1;
  time_t r = mktime(&t);
  if (r == (time_t)-1 && t.tm_wday == -1) rt_throw(ERR_OVERFLOW, "mktime argument out of range");
  return val_float((double)r);
}

/* time.strftime(format, t=localtime()): the C library's strftime, as CPython on Linux. */
static Val tm_strftime(Val self, int n, const Val *args, const Kw *kw) {
  if (n < 1 || n > 2 || (kw && kw->n)) rt_throw(ERR_TYPE, "strftime expected 1 or 2 arguments, got %d", n);
  if (!val_is(args[0], &str_type))
    rt_throw(ERR_TYPE, "strftime() argument 1 must be str, not %s", val_type_name(args[0]));
  struct tm t;
  if (n == 2) {
    tm_from_tuple(args[1], &t, "strftime");
    if (t.tm_mon < 0 || t.tm_mon > 11) rt_throw(ERR_VALUE, "month out of range");
    if (t.tm_mday < 0 || t.tm_mday > 31) rt_throw(ERR_VALUE, "day of month out of range");
    if (t.tm_hour < 0 || t.tm_hour > 23) rt_throw(ERR_VALUE, "hour out of range");
    if (t.tm_min < 0 || t.tm_min > 59) rt_throw(ERR_VALUE, "minute out of range");
    if (t.tm_sec < 0 || t.tm_sec > 61) rt_throw(ERR_VALUE, "seconds out of range");
    if (t.tm_yday < 0 || t.tm_yday > 365) rt_throw(ERR_VALUE, "day of year out of range");
    if (t.tm_mday == 0) t.tm_mday = 1;
  } else {
    time_t s = time(NULL);
    localtime_r(&s, &t);
  }
  const char *fmt = str_cstr(args[0]);
  if (!*fmt) return str_from_cstr("");
  /* strftime's 0 is ambiguous (empty result or too small): a marker character tells them apart */
  size_t fl = strlen(fmt);
  char *f2 = malloc(fl + 2);
  if (!f2) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(f2, fmt, fl);
  f2[fl] = 'x';
  f2[fl + 1] = 0;
  for (size_t cap = 256 + fl * 4;; cap *= 2) {
    char *buf = malloc(cap);
    if (!buf) {
      free(f2);
      rt_throw(ERR_MEMORY, "out of memory");
    }
    size_t got = strftime(buf, cap, f2, &t);
    if (got > 0) {
      free(f2);
      return str_take(buf, (tfs_i64)got - 1);
    }
    free(buf);
    if (cap > (1u << 24)) {
      free(f2);
      rt_throw(ERR_VALUE, "strftime result too long");
    }
  }
}

#define TM(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin tm_time_fns[] = {
  TM("time.perf_counter", tm_perf_counter), TM("time.time", tm_time), TM("time.process_time", tm_process_time),
  TM("time.sleep", tm_sleep), TM("time.monotonic", tm_perf_counter), TM("time.time_ns", tm_time_ns),
  TM("time.perf_counter_ns", tm_perf_counter_ns), TM("time.monotonic_ns", tm_perf_counter_ns),
  TM("time.localtime", tm_localtime), TM("time.gmtime", tm_gmtime), TM("time.mktime", tm_mktime),
  TM("time.strftime", tm_strftime),
};
static Builtin tm_timeit_fns[] = {TM("timeit.timeit", tm_timeit), TM("timeit.default_timer", tm_perf_counter)};

static Val tm_find(Builtin *t, size_t n, const char *prefix, const char *name) {
  size_t pl = strlen(prefix);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(t[i].name + pl, name)) return val_obj(&t[i]);
  return val_undef();
}

static Val tm_time_attr(const char *name) {
  return tm_find(tm_time_fns, sizeof tm_time_fns / sizeof tm_time_fns[0], "time.", name);
}

static Val tm_timeit_attr(const char *name) {
  return tm_find(tm_timeit_fns, sizeof tm_timeit_fns / sizeof tm_timeit_fns[0], "timeit.", name);
}

Val stdlib_native_module(const char *name) {
  static Val time_mod = {VT_UNDEF, {0}}, timeit_mod = {VT_UNDEF, {0}};
  if (!strcmp(name, "_time")) {   /* under stdlib/time.tfs */
    if (val_is_undef(time_mod)) time_mod = module_native("_time", tm_time_attr);
    return val_incref(time_mod);
  }
  if (!strcmp(name, "timeit")) {
    if (val_is_undef(timeit_mod)) timeit_mod = module_native("timeit", tm_timeit_attr);
    return val_incref(timeit_mod);
  }
  if (!strcmp(name, "gc")) return gcmod_module();
  if (!strcmp(name, "math")) return mathmod_module();
  if (!strcmp(name, "_random")) return randmod_module();
  if (!strcmp(name, "_os")) return osmod_module();
  if (!strcmp(name, "_re")) return remod_module();
  if (!strcmp(name, "_gzip")) return gzmod_module();
  if (!strcmp(name, "_hashlib")) return hashmod_module();
  if (!strcmp(name, "_example")) return examplemod_module();
  if (!strcmp(name, "_h5")) return h5mod_module();
  if (!strcmp(name, "_zip")) return zipmod_module();
  if (!strcmp(name, "_kmeta")) return kmetamod_module();
  if (!strcmp(name, "_dsnap")) return dsnapmod_module();
  if (!strcmp(name, "_keras")) return kerasrt_module();
  if (!strcmp(name, "_numpy")) return numpy_native_module();
  if (!strcmp(name, "_dist")) return distmod_module();
  if (!strcmp(name, "_tfdata")) return tfdata_internal_module();
  if (!strcmp(name, "_tfctl")) return tfctl_module();
  return val_undef();
}
