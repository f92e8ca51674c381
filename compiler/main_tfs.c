/* main_tfs.c — `tfs run [--eager] [--dump-graphs DIR] prog.tfs [args...]`, `tfs doc NAME...`, `tfs board LOGDIR [-o FILE]`, the prompt (`tfs repl`, `tfs` on a terminal), or a program on standard input. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modules/board.h"
#include "modules/docs.h"
#include "driver.h"
#include "hugemem.h"
#include "program.h"
#include "repl.h"

#define TFS_USAGE                                                          \
  "usage: tfs run [--eager] [--dump-graphs DIR] prog.tfs [args...]\n"     \
  "       tfs doc NAME...\n"                                               \
  "       tfs board LOGDIR [-o report.html]   (the log directory as one HTML page)\n" \
  "       tfs repl | tfs   (the interactive prompt, on a terminal)\n"      \
  "       tfs < prog.tfs | tfs -   (a program on standard input)\n"

static int usage(void) {
  fputs(TFS_USAGE, stderr);
  return 2;
}

/* `tfs doc NAME...`: each name's entry, as help(NAME) prints it; status 1 if one is unknown. */
static int doc_main(int argc, char **argv) {
  if (argc < 3) return usage();
  int rc = 0, shown = 0;
  for (int i = 2; i < argc; i++) {
    StrBuf b;
    sb_init(&b);
    const DocEntry *e = doc_find(argv[i]);
    if (e) {
      if (shown++) fputc('\n', stdout);   /* entries apart, as pydoc separates them */
      doc_format(&b, e);
      fwrite(b.data, 1, b.len, stdout);
    } else {
      doc_unknown(&b, argv[i]);
      fprintf(stderr, "tfs: error: %.*s\n", (int)b.len, b.data);
      rc = 1;
    }
    sb_free(&b);
  }
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || (argc == 2 && !strcmp(argv[1], "-"))) {
    if (isatty(0) && argc < 2) return repl_main();   /* as `python3` on a terminal */
    /* as `python3 < prog.py`: the program comes from standard input, argv is [''] ('-' for `tfs -`) */
    DriverOpts opts = {0};
    char *pargv[] = {argc < 2 ? "" : "-", NULL};
    return driver_run(PROGRAM_STDIN, 1, pargv, &opts);
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fputs(TFS_USAGE, stdout);
    return 0;
  }
  if (strcmp(argv[1], "doc") == 0) return doc_main(argc, argv);
  if (strcmp(argv[1], "board") == 0) {   /* `tfs board LOGDIR [-o FILE]`: FILE defaults to LOGDIR/report.html */
    if (argc == 3) {
      StrBuf out;
      sb_init(&out);
      sb_printf(&out, "%s/report.html", argv[2]);
      int rc = board_main(argv[2], out.data);
      sb_free(&out);
      return rc;
    }
    if (argc == 5 && !strcmp(argv[3], "-o")) return board_main(argv[2], argv[4]);
    if (argc == 5 && !strcmp(argv[2], "-o")) return board_main(argv[4], argv[3]);
    return usage();
  }
  if (strcmp(argv[1], "repl") == 0) return argc == 2 ? repl_main() : usage();
  if (strcmp(argv[1], "run") != 0) return usage();
  DriverOpts opts = {0};
  int i = 2;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (strcmp(argv[i], "--eager") == 0) opts.eager = true;
    else if (strcmp(argv[i], "--dump-graphs") == 0 && i + 1 < argc) opts.dump_graphs = argv[++i];
    else {
      fprintf(stderr, "tfs: unknown option '%s'\n", argv[i]);
      return usage();
    }
  }
  if (i >= argc) return usage();
  hm_huge_pages_for(argv[i], PROGRAM_KERAS_WORD, argv);
  if (opts.dump_graphs && mkdir(opts.dump_graphs, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "tfs: error: cannot create '%s': %s\n", opts.dump_graphs, strerror(errno));
    return 1;
  }
  /* The program sees argv as Python's sys.argv: script first. */
  return driver_run(argv[i], argc - i, argv + i, &opts);
}
