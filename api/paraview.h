/* paraview.h - a job's frames as a ParaView time series (docs/frames.md,
 * "ParaView"): each geometry as VTK XML PolyData at a frame's pose, and the
 * .pvd collection that names every file with its time, so that ParaView
 * opens particles and geometry of the whole run in one step. The particles'
 * files are ndem_frame_to_vtp's (frame_export.h). Shared by `ndem run`
 * (cli/paraview_out.c) and the daemon's job archive (server/archive.c). */
#ifndef NDEM_PARAVIEW_H
#define NDEM_PARAVIEW_H

#include "ndem.h"
#include "shape.h"

#include <stddef.h>

/* Where an infinite plane is cut for drawing: a square of half side `half`
 * about the point of the plane nearest `focus` (in the plane's frame as
 * defined). ndem_paraview_plane_view derives it from a frame's particles. */
typedef struct ndem_plane_view {
    double focus[3];
    double half;
} ndem_plane_view;

/* The particles' centre and a half side of 0.75 of their bounding box's
 * diagonal (at least 0.05 m; the origin and 0.5 m without particles). */
ndem_plane_view ndem_paraview_plane_view(const ndem_frame *f);

/* Geometry g as PolyData surfaces placed at `pose` (7 numbers: reference
 * point and orientation, as frames carry them; NULL: as defined): a box's
 * six faces, a cylinder's side and caps (48 segments), a plane's square, a
 * mesh's triangles. Field data TimeValue (time) and geometry (index).
 * malloc'd text (*len bytes); NULL when out of memory or g has no surface
 * (a mesh without its mesh). */
char *ndem_geometry_to_vtp(const ndem_geometry_def *g, int index, const double *pose,
                           const ndem_plane_view *plane, double time, size_t *len);

/* The frame's non-spherical particles (f->shapes indexes t; a template
 * scaled by the particle's radius, turned by its orientation) as PolyData
 * polygons: a polyhedron's hull faces, a clump's member spheres (8 x 4
 * facets each). Cell data id (the particle's place in the frame) and shape
 * (its template); field data TimeValue and frame. Plain spheres are left
 * out (particles_NNNNNN.vtp has every particle). malloc'd text (*len
 * bytes), NULL when out of memory. */
char *ndem_shapes_to_vtp(const ndem_frame *f, const ndem_shape_table *t, long index, size_t *len);

/* The head of a PolyData file of polygons (geometry, shaped particles),
 * through its <Piece> line: field data TimeValue (time) and one more
 * array, `name` of VTK type `type` (Int32, Int64) holding value; the piece
 * has `points` points and `polys` polygons. */
struct ndem_jw;
void ndem_vtp_polys_head(struct ndem_jw *w, double time, const char *type, const char *name,
                         long value, long points, long polys);

/* A run's time series, frame by frame: what is known of the frames before
 * (frame 0's poses and box extents, where planes are cut). Zero it, set
 * scene and, when its particles have shapes, shapes (owned: freed by
 * ndem_paraview_free). */
typedef struct ndem_paraview {
    const ndem_scene_def *scene;
    ndem_shape_table *shapes; /* the templates frames' shapes index; NULL: none */
    double *first_poses;      /* 7 per geometry; NULL until a frame with poses */
    double *first_extents;    /* 6 per geometry; NULL until a frame with extents */
    int started;
    ndem_plane_view plane;
} ndem_paraview;

/* Hands each file of one frame to emit (its name in the series' folder,
 * its text): particles_NNNNNN.vtp, then each geometry at the frame's pose
 * (a box with walls: between the frame's extents), geometry_G.vtp for the
 * pose of the first frame (written with the first frame) or
 * geometry_G_NNNNNN.vtp for another; a frame without poses (an older
 * record) places every geometry as defined; then, when the frame has
 * shaped particles and p has their templates, shapes_NNNNNN.vtp (part
 * G + 1 for G geometry). *entries gets the
 * frame's .pvd lines (malloc'd, *entries_len bytes). 0, or -1 when emit
 * fails or memory runs out. */
typedef int (*ndem_paraview_emit)(void *ctx, const char *name, const char *text, size_t len);
int ndem_paraview_frame(ndem_paraview *p, const ndem_frame *f, long index, ndem_paraview_emit emit,
                        void *ctx, char **entries, size_t *entries_len);
void ndem_paraview_free(ndem_paraview *p);

/* The .pvd collection, written as head, entries, tail: an entry is one
 * file of one part at one time (part 0 the particles, part g + 1 geometry
 * g, part G + 1 the shaped particles); a static geometry's one file is
 * named at every time. */
extern const char ndem_pvd_head[];
extern const char ndem_pvd_tail[];
/* One <DataSet> line into buf (cap bytes); returns its length, or -1 when
 * it does not fit (file names are short: 256 bytes always fit). */
int ndem_pvd_entry(char *buf, size_t cap, double time, int part, const char *file);

#endif
