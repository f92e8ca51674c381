/* xplane.h — the profiler's files: the recorded events as TF's XSpace (<host>.xplane.pb) and as a Chrome trace (<host>.trace.json.gz). */
#ifndef TFS_XPLANE_H
#define TFS_XPLANE_H

/* Write base + ".xplane.pb" and base + ".trace.json.gz" (base: "DIR/<host>") from
 * the recorder's events (kernels/prof.h); 0 or the errno of the failed write. */
int xplane_write(const char *base, const char *host);

#endif
