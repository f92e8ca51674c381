/* meet.c — 2 ranks on one host: the header exchange as two mailboxes in an MPI shared window, with spin-then-futex waiting. */
#include "dist/dist_mpi.h"

#ifdef TFS_HAVE_MPI
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "object/object.h"

/* Every collective starts with a meeting of the ranks: each states its header and reads the other's.  Through MPI
 * (MPI_Isend/MPI_Irecv, then MPI_Testall polls that run Open MPI's whole progress engine) a meeting costs microseconds
 * of both cores, and a rank that has spun past TFS_DIST_SPIN_US can only sleep in 100 us naps, so it notices its partner
 * up to 100 us late.  Here each rank owns a mailbox in a shared window: it writes its header into one of two slots,
 * publishes the meeting's number, and reads the partner's header once the partner's number has reached its own.  A
 * rank that has spun its time sleeps on the partner's number (a futex on the shared page, FUTEX_WAIT without _PRIVATE),
 * and the partner, after publishing, wakes it only if it said it sleeps (seq_cst on both sides: one of the two always
 * sees the other's store, so no wake is lost).  The sleep is still a 100 us nap, cut short by the wake: with naps of
 * 50 ms instead (woken all the same, strace shows) the 2-rank step's median went from 0.4-0.5 ms to 14-26 ms at load
 * average 20 on the 2-core machine: after a long sleep the woken rank waits far longer for its core than after a nap.  Slot k&1 is written again at meeting k+2, which the writer reaches only
 * after the partner has published k+1, i.e. after the partner finished reading slot k&1. */
typedef struct Box {
  _Atomic uint32_t seq;       /* meetings this rank has entered (its header is in slot[seq & 1]) */
  _Atomic uint32_t sleeping;  /* this rank waits in FUTEX_WAIT on the partner's seq */
  char pad[56];
  Hdr slot[2];
} Box;

static MPI_Win meet_win = MPI_WIN_NULL;
static Box *meet_mine, *meet_peer;
static uint32_t meet_n;

bool dist_meet_on(void) { return meet_win != MPI_WIN_NULL; }

void dist_meet_init(MPI_Comm shm) {
  Box *base = NULL;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");   /* each mailbox on its own pages */
  int rc = MPI_Win_allocate_shared((MPI_Aint)sizeof(Box), 1, info, shm, &base, &meet_win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    meet_win = MPI_WIN_NULL;   /* the exchange stays on MPI point-to-point */
    return;
  }
  int me = 0, du = 1;
  MPI_Aint sz = 0;
  MPI_Comm_rank(shm, &me);
  MPI_Win_shared_query(meet_win, 1 - me, &sz, &du, &meet_peer);
  meet_mine = base;
  memset(meet_mine, 0, sizeof *meet_mine);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, meet_win);
  MPI_Barrier(shm);   /* both mailboxes zeroed before either is used */
}

void dist_meet_free(void) {
  if (meet_win == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(meet_win);
  MPI_Win_free(&meet_win);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static bool reached(uint32_t k) { return (int32_t)(atomic_load(&meet_peer->seq) - k) >= 0; }

/* State *mine and read the partner's header into *peer (the 60 s warning and TFS_COLLECTIVE_TIMEOUT as dist_wait). */
void dist_meet_exchange(const Hdr *mine, Hdr *peer) {
  uint32_t k = ++meet_n;
  meet_mine->slot[k & 1] = *mine;
  atomic_store(&meet_mine->seq, k);
  if (atomic_load(&meet_peer->sleeping)) syscall(SYS_futex, &meet_mine->seq, FUTEX_WAKE, 1, NULL, NULL, 0);
  double t0 = dist_wait_clock(), spin = dist_wait_spin();
  bool slept = false, warned = false;
  for (unsigned i = 0; !reached(k); i++) {
    cpu_relax();
    if (!slept && ((i & 63) || dist_wait_clock() - t0 < spin)) continue;
    slept = true;
    atomic_store(&meet_mine->sleeping, 1);
    uint32_t v = atomic_load(&meet_peer->seq);
    if ((int32_t)(v - k) >= 0) break;
    struct timespec ts = {0, 100000};   /* a nap, cut short by the partner's wake (see above) */
    syscall(SYS_futex, &meet_peer->seq, FUTEX_WAIT, v, &ts, NULL, 0);
    if (reached(k)) break;
    atomic_store(&meet_mine->sleeping, 0);   /* dist_wait_tick may raise (the timeout) */
    dist_wait_tick(mine, dist_wait_clock() - t0, &warned);
  }
  if (slept) atomic_store(&meet_mine->sleeping, 0);
  *peer = meet_peer->slot[k & 1];
  dist_wait_stat(DIST_WAIT_HEADER, dist_wait_clock() - t0, slept);
}
#endif
