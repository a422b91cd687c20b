/* paraview_out.h - the ParaView time series `ndem run` writes into
 * DIR/paraview/ (docs/cli.md): per frame the particles (particles_NNNNNN.vtp)
 * and each geometry at the frame's pose (geometry_G.vtp while it stays where
 * it started, geometry_G_NNNNNN.vtp when it has moved), and frames.pvd, the
 * collection ParaView opens in one step, valid after every frame. */
#ifndef NDEM_CLI_PARAVIEW_OUT_H
#define NDEM_CLI_PARAVIEW_OUT_H

#include "ndem.h"
#include "paraview.h"

#include <stdio.h>

typedef struct ndem_pv_out {
    char dir[4200];
    const ndem_scene_def *scene;
    FILE *pvd;
    long tail_at;        /* where frames.pvd's closing tags start */
    double *first_poses; /* frame 0's poses (7 per geometry) */
    ndem_plane_view plane;
} ndem_pv_out;

/* Creates DIR/paraview and an empty frames.pvd. 0, or -1 (errno set). */
int ndem_pv_out_open(ndem_pv_out *p, const char *dir, const ndem_scene_def *scene);
/* The files of frame `index` and its entries in frames.pvd. */
int ndem_pv_out_frame(ndem_pv_out *p, const ndem_frame *f, long index);
void ndem_pv_out_close(ndem_pv_out *p);

#endif
