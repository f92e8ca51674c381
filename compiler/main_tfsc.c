/* main_tfsc.c — `tfsc prog.tfs -o prog`, `--emit-c`, `--check`, `--to-code`: the ahead-of-time front door. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "hugemem.h"
#include "program.h"

static const char usage_text[] =
    "usage: tfsc prog.tfs -o prog                 build a standalone executable\n"
    "       tfsc --emit-c prog.tfs [-o prog.c]    print the generated C\n"
    "       tfsc --check prog.tfs                 parse and analyse only\n"
    "       tfsc --to-code prog.tfs [--function NAME]   print AutoGraph-converted code\n"
    "       tfsc --onnx prog.tfs --function NAME -o model.onnx [--save-io io.json]\n"
    "                                             export a tf.function with an input_signature to ONNX\n"
    "       tfsc --onnx SAVED_DIR --signature NAME -o model.onnx\n"
    "                                             export a SavedModel's signature to ONNX\n";

static int usage(void) {
  fputs(usage_text, stderr);
  return 2;
}

int main(int argc, char **argv) {
  const char *mode = NULL, *in = NULL, *out = NULL, *fn = NULL, *io = NULL, *sig = NULL;
  signal(SIGXFSZ, SIG_IGN);   /* as Python: a file size limit is an error (EFBIG) to report, not a kill */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      return 0;
    } else if (strcmp(a, "--emit-c") == 0 || strcmp(a, "--check") == 0 || strcmp(a, "--to-code") == 0 ||
               strcmp(a, "--onnx") == 0) {
      if (mode) return usage();
      mode = a;
    } else if (strcmp(a, "-o") == 0) {
      if (++i >= argc || out) return usage();
      out = argv[i];
    } else if (strcmp(a, "--function") == 0) {
      if (++i >= argc || fn) return usage();
      fn = argv[i];
    } else if (strcmp(a, "--signature") == 0) {
      if (++i >= argc || sig) return usage();
      sig = argv[i];
    } else if (strcmp(a, "--save-io") == 0) {
      if (++i >= argc || io) return usage();
      io = argv[i];
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "tfsc: unknown option '%s'\n", a);
      return usage();
    } else {
      if (in) return usage();
      in = a;
    }
  }
  if (!in) return usage();
  hm_huge_pages_for(in, PROGRAM_KERAS_WORD, argv);
  if (mode && strcmp(mode, "--onnx") == 0) return out ? driver_onnx_any(in, fn, sig, out, io) : usage();
  if (sig || io || (fn && (!mode || strcmp(mode, "--to-code") != 0))) return usage();
  if (!mode) return out ? driver_build_exe(in, out) : usage();
  if (strcmp(mode, "--check") == 0) return out ? usage() : driver_check(in);
  if (strcmp(mode, "--emit-c") == 0) return driver_emit_c(in, out);
  return out ? usage() : driver_to_code(in, fn);
}
