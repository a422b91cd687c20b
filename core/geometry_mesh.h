/* geometry_mesh.h - a triangle mesh as scene geometry: the mesh placed
 * (scaled, turned, moved) into its reference frame, the tables its contacts
 * need (feature ids, vertex fans, coplanar group planes) and a uniform grid
 * of triangle bounds, so that finding a sphere's triangles costs O(1).
 * docs/meshes.md says which features a sphere feels. */
#ifndef NDEM_GEOMETRY_MESH_H
#define NDEM_GEOMETRY_MESH_H

#include "mesh.h"

#include <stddef.h>
#include <stdint.h>

/* Feature ids of a mesh contact: a coplanar group g is g; an edge is
 * n_groups + the half-edge 3 t + k of the triangle owning it; a vertex v is
 * n_groups + 3 n_triangles + v. */
typedef struct ndem_mesh_shape {
    ndem_mesh *mesh;    /* placed; the shape owns it */
    double *plane;      /* 4 per group: unit normal, offset (n . x = d on the plane) */
    int *edge_id;       /* per half-edge: the owner's half-edge of that edge */
    int *fan_start;     /* per vertex + 1: its triangles in fan (CSR) */
    int *fan;           /* triangles around each vertex */
    double *tri_sphere; /* 4 per triangle: bounding sphere centre, radius */
    double grid_lo[3];  /* grid: origin, cell size, cells per axis */
    double cell;
    int dim[3];
    int *cell_start; /* per cell + 1: its triangles in cell_tri (CSR) */
    int *cell_tri;
    int *cell_group;       /* per cell: the group when every triangle in it is flat and of
                              that group, else -1 */
    int *tri_cell0;        /* 3 per triangle: its first cell (x, y, z), for taking it once */
    unsigned char *flat;   /* per triangle: its edges and corners all inside its coplanar
                              group (it can only ever give its group's face contact) */
    uint64_t hash;         /* of the placed vertices and triangles (scene hash) */
    int feature_count;     /* groups + 3 triangles + vertices */
    double position[3];    /* the placement: where the body-frame origin went, */
    double orientation[4]; /* how it was turned (w, x, y, z) */
    double scale;          /* and scaled */
    ndem_mesh *source;     /* the mesh before placement, if its owner keeps it (the job
                              writes it back as the document gave it); freed with the shape */
} ndem_mesh_shape;

/* Places a copy of m: each vertex v becomes position + R(q) (scale v), with
 * q = [w, x, y, z] a unit quaternion and scale > 0; builds the tables and
 * the grid. Returns 0, or -1 with a message (out of memory). */
int ndem_mesh_shape_create(const ndem_mesh *m, const double position[3], const double q[4],
                           double scale, ndem_mesh_shape **out, char *err, size_t err_len);
void ndem_mesh_shape_destroy(ndem_mesh_shape *s);

#endif
