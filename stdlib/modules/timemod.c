/* timemod.c — the native stdlib modules `time` (perf_counter, time, sleep, ...) and `timeit` (timeit). */
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

#define TM(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin tm_time_fns[] = {
  TM("time.perf_counter", tm_perf_counter), TM("time.time", tm_time), TM("time.process_time", tm_process_time),
  TM("time.sleep", tm_sleep), TM("time.monotonic", tm_perf_counter),
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
  if (!strcmp(name, "time")) {
    if (val_is_undef(time_mod)) time_mod = module_native("time", tm_time_attr);
    return val_incref(time_mod);
  }
  if (!strcmp(name, "timeit")) {
    if (val_is_undef(timeit_mod)) timeit_mod = module_native("timeit", tm_timeit_attr);
    return val_incref(timeit_mod);
  }
  if (!strcmp(name, "gc")) return gcmod_module();
  if (!strcmp(name, "math")) return mathmod_module();
  if (!strcmp(name, "_random")) return randmod_module();
  if (!strcmp(name, "_keras")) return kerasrt_module();
  return val_undef();
}
