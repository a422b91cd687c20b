/* output.h - what `ndem run` writes into its output directory: binary
 * frames (docs/frames.md), the ParaView time series (paraview_out.h), an
 * index of frames, the per-step series as CSV, final.json and summary.json. */
#ifndef NDEM_CLI_OUTPUT_H
#define NDEM_CLI_OUTPUT_H

#include "ndem.h"
#include "paraview_out.h"
#include "series.h"

#include <stdio.h>

typedef struct ndem_output {
    char dir[4096];
    FILE *series;
    FILE *frame_index;
    long frames;
    int vtk;               /* write paraview/ (--no-vtk: not) */
    ndem_pv_out pv;        /* its files */
    ndem_series_cols cols; /* the named geometry's series columns */
    char *row;             /* a series row's buffer, grown to fit */
    size_t row_cap;
} ndem_output;

/* Where the files stood at a checkpoint (bytes written, frames), so that a
 * resumed run cuts them back there and goes on (docs/cli.md, "Checkpoints"). */
typedef struct ndem_output_mark {
    long series_bytes, index_bytes, pvd_bytes, frames;
} ndem_output_mark;

/* Creates DIR (and DIR/frames, DIR/paraview); opens series.csv (with the
 * columns of the scene's named geometry) and frames/index.csv. With
 * `resume`, the files of an earlier run in DIR are cut back to the mark and
 * appended to instead. */
int ndem_output_open(ndem_output *o, const char *dir, int vtk, const ndem_scene_def *scene,
                     const ndem_output_mark *resume, char *err, size_t err_len);
/* Flushes the files and says where they stand. 0, or -1. */
int ndem_output_mark_now(ndem_output *o, ndem_output_mark *m);
/* The row of sim's last step. */
int ndem_output_series_row(ndem_output *o, const ndem_sim *sim);
int ndem_output_frame(ndem_output *o, const ndem_sim *sim);
/* The same for a frame at hand (an MPI run's, gathered on rank 0). */
int ndem_output_frame_of(ndem_output *o, const ndem_frame *f);
/* Writes a whole text file into DIR atomically (temporary name, rename). */
int ndem_output_text(const ndem_output *o, const char *name, const char *text);
/* meshes/<geometry index>.stl: each mesh geometry as placed, binary STL
 * (written once: meshes do not change shape). */
int ndem_output_meshes(const ndem_output *o, const ndem_scene_def *s);
void ndem_output_close(ndem_output *o);

#endif
