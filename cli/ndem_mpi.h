/* ndem_mpi.h - one scene over MPI ranks (`mpirun -np N ndem run JOB --mpi`,
 * docs/scale-out.md): a grid of blocks cut at equal particle counts (slabs
 * are one axis of it), owned and ghost particles, migration with the warm-start history, the HCSITS
 * velocity exchange after every sweep, and the totals and frames the outputs need. All of MPI lives
 * in cli/mpi.c; the engine sees hooks (ndem.h). */
#ifndef NDEM_CLI_NDEM_MPI_H
#define NDEM_CLI_NDEM_MPI_H

#include "decomp_grid.h"
#include "job.h"
#include "ndem.h"

#include <stddef.h>

typedef struct ndem_mpi ndem_mpi;

/* MPI_Init under mpirun: 0, or -1 with what to do when this process was
 * not started by mpirun. */
int ndem_mpi_init(int *argc, char ***argv, char *err, size_t err_len);
void ndem_mpi_finalize(void);
/* Ends every rank at once (an error on one rank leaves the others waiting). */
_Noreturn void ndem_mpi_abort(int code);
int ndem_mpi_world_rank(void);
int ndem_mpi_world_size(void);
/* 0 when the job is in the slice the MPI run supports, else -1 with a
 * message naming what is not (emitters, dynamic geometry, ...). */
int ndem_mpi_supported(const ndem_job *job, char *err, size_t err_len);
/* Splits the scene of sim (which holds every particle, as ndem_sim_create
 * made them on every rank) into a grid of dims[0] x dims[1] x dims[2]
 * blocks (any dims[a] < 1: the factorisation of the rank count with the
 * least cut area that leaves gravity's main axis uncut), at equal particle
 * counts or at `cuts` (ndem_grid_cut_count of them, NULL: find them), keeps
 * this rank's particles and ghosts and installs the engine's hooks.
 * balance_steps > 0: new cuts at equal counts every that many steps.
 * resume: sim is a restored checkpoint (ndem_sim_restore of the whole
 * scene), whose warm-start entries go with the particles. NULL with a
 * message (the same on every rank) when the scene cannot be split so. */
ndem_mpi *ndem_mpi_create(ndem_sim *sim, const double gravity[3], const int dims[3],
                          const double *cuts, long balance_steps, int resume, char *err,
                          size_t err_len);
void ndem_mpi_destroy(ndem_mpi *m);
int ndem_mpi_rank(const ndem_mpi *m);
int ndem_mpi_size(const ndem_mpi *m);
/* Before a step, on every rank: agrees on a stop (the largest `stop` of
 * any rank is returned) and migrates when a particle may have come within
 * reach of a process that does not hold it. */
int ndem_mpi_before_step(ndem_mpi *m, int stop);
/* After a step: rank 0's simulation gets the step's totals (statistics and
 * geometry loads summed over the ranks) for its outputs. */
void ndem_mpi_after_step(ndem_mpi *m);
/* Every particle's motion in creation order (as one process would number
 * them) into f on rank 0; the other ranks only send theirs. 0, or -1 on
 * rank 0 with what went wrong (out of memory, an id out of range or twice). */
int ndem_mpi_gather_frame(ndem_mpi *m, ndem_frame *f, char *err, size_t err_len);
/* Per-rank costs of the run so far (docs/scale-out.md): migrations, bytes
 * and messages this rank sent in sweeps' exchanges and migrations. */
typedef struct ndem_mpi_costs {
    long migrations, sweeps, rebalances;
    double sweep_bytes, sweep_messages, migrate_bytes, migrate_messages;
    long owned, ghosts;
    double exchange_seconds; /* wall time in the velocity exchange (waits included) */
    double migrate_seconds;  /* wall time migrating */
} ndem_mpi_costs;
void ndem_mpi_get_costs(const ndem_mpi *m, ndem_mpi_costs *c);
/* Collective, at the end of a step: the whole scene (every rank's own
 * particles and warm-start entries) into one ordinary checkpoint on rank 0
 * (*buffer, malloc'd; untouched elsewhere), and every rank's slab rebuilt
 * from it, as a run resumed from it rebuilds them: the same bits after.
 * 0, or -1 (rank 0 out of memory). */
int ndem_mpi_checkpoint(ndem_mpi *m, void **buffer, size_t *length);
/* The blocks (their dims and cuts, for checkpoint.json). */
const ndem_grid *ndem_mpi_grid(const ndem_mpi *m);
/* n doubles from every rank into all (rank 0 only; size * n of them). */
void ndem_mpi_gather_doubles(const double *mine, int n, double *all);

#endif
