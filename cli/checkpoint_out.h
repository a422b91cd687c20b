/* checkpoint_out.h - checkpoints of `ndem run` (docs/cli.md, "Checkpoints"):
 * DIR/checkpoint.ndck, the engine's checkpoint of the whole scene (one
 * process's or gathered from MPI ranks: the same format), and
 * DIR/checkpoint.json, where the run stood (step, frames, the next frame's
 * time, how far the output files went, and an MPI run's ranks and cuts). */
#ifndef NDEM_CLI_CHECKPOINT_OUT_H
#define NDEM_CLI_CHECKPOINT_OUT_H

#include "output.h"

#include <stddef.h>

typedef struct ndem_ckpt_meta {
    long step;
    double next_frame;
    ndem_output_mark mark;
    int ranks;    /* 1: one process */
    int grid[3];  /* an MPI run's blocks along x, y, z (ndem_grid), else 0s */
    int n_cuts;   /* ndem_grid_cut_count of that grid */
    double *cuts; /* n_cuts of them (malloc'd), NULL for one process */
} ndem_ckpt_meta;

/* Writes both files (each to a temporary name, then renamed: the state
 * first, so checkpoint.json never names a state that is not there). */
int ndem_ckpt_write(const char *dir, const void *state, size_t len, const ndem_ckpt_meta *m,
                    char *err, size_t err_len);
/* Reads both; *state malloc'd. 0, or -1 with what is wrong. */
int ndem_ckpt_read(const char *dir, void **state, size_t *len, ndem_ckpt_meta *m, char *err,
                   size_t err_len);
void ndem_ckpt_meta_free(ndem_ckpt_meta *m);

#endif
