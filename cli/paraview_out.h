/* paraview_out.h - the ParaView time series `ndem run` writes into
 * DIR/paraview/ (docs/cli.md): api/paraview.h's files of every frame, and
 * frames.pvd, the collection ParaView opens in one step, whole after every
 * frame. */
#ifndef NDEM_CLI_PARAVIEW_OUT_H
#define NDEM_CLI_PARAVIEW_OUT_H

#include "ndem.h"
#include "paraview.h"

#include <stdio.h>

typedef struct ndem_pv_out {
    char dir[4200];
    FILE *pvd;
    long tail_at; /* where frames.pvd's closing tags start */
    ndem_paraview series;
} ndem_pv_out;

/* Creates DIR/paraview and an empty frames.pvd; resume_at >= 0: goes on
 * with an earlier run's frames.pvd, its entries kept up to that byte (the
 * closing tags' place at a checkpoint). 0, or -1 (errno set). */
int ndem_pv_out_open(ndem_pv_out *p, const char *dir, const ndem_scene_def *scene, long resume_at);
/* The files of frame `index` and its entries in frames.pvd. */
int ndem_pv_out_frame(ndem_pv_out *p, const ndem_frame *f, long index);
void ndem_pv_out_close(ndem_pv_out *p);

#endif
