/* mesh.h - triangle meshes built from a triangle soup: nodes welded, bad
 * triangles dropped, topology (edge neighbours, owners, coplanar groups) and
 * mass properties. No I/O: api/stl.c turns STL bytes into the soup.
 * docs/meshes.md says what is welded, dropped and refused. */
#ifndef NDEM_MESH_H
#define NDEM_MESH_H

#include <stddef.h>

/* Largest soup ndem_mesh_build accepts (memory stays below ~1 GB). */
#define NDEM_MESH_MAX_TRIANGLES 5000000L
/* Largest |coordinate|: keeps every product of the mass integrals finite. */
#define NDEM_MESH_MAX_COORD 1e9
/* A triangle is degenerate when 2 area / (sum of squared edge lengths) is
 * below this (an equilateral triangle has 0.29). */
#define NDEM_MESH_DEGENERATE_RATIO 1e-10
/* A neighbour joins a coplanar group when 1 - cos(angle between its normal
 * and the group's first triangle's) is at most this (about 1.4e-4 rad) and its
 * nodes lie within NDEM_MESH_PLANE_TOLERANCE times the mesh's bounding-box
 * diagonal of that triangle's plane (loose enough for STL's float32). */
#define NDEM_MESH_COPLANAR_COS 1e-8
#define NDEM_MESH_PLANE_TOLERANCE 1e-6
/* A closed mesh enclosing less than this times its bounding-box diagonal
 * cubed is flat: volume 0, no mass properties. */
#define NDEM_MESH_FLAT_VOLUME 1e-12
/* neighbours[] value of an edge shared by more than two triangles */
#define NDEM_MESH_NON_MANIFOLD (-2)

typedef struct ndem_mesh {
    int n_vertices, n_triangles;
    double *vertices; /* 3 per vertex */
    int *triangles;   /* 3 vertex indices per triangle */
    /* Edge k of triangle t joins its vertices k and (k + 1) % 3.
     * neighbours[3t + k]: the triangle across it, -1 on a boundary,
     * NDEM_MESH_NON_MANIFOLD when more than two triangles share it.
     * edge_owner[3t + k]: the one triangle (lowest index) that owns it.
     * vertex_owner[v]: the one triangle (lowest index) that owns vertex v.
     * group[t]: coplanar group id, 0 .. n_groups - 1, in order of first
     * appearance. */
    int *neighbours, *edge_owner, *vertex_owner, *group;
    int n_groups;
    int boundary_edges, non_manifold_edges; /* counts of distinct edges */
    int closed;                             /* no boundary edge, no non-manifold edge */
    int oriented;                           /* every manifold edge is walked once each way */
    double bounds_min[3], bounds_max[3];
    double area;
    /* closed && oriented and not flat only (else 0): enclosed volume, its centroid, and
     * its inertia tensor about the centroid for density 1 (row-major). */
    double volume, centroid[3], inertia[9];
} ndem_mesh;

/* What the build changed, so that callers can warn. */
typedef struct ndem_mesh_report {
    long input_triangles;
    long merged_nodes; /* soup corners that became an existing node */
    long degenerate;   /* dropped: repeated node or area below the ratio */
    long duplicate;    /* dropped: same node set as an earlier triangle */
    int flipped;       /* a closed, oriented mesh turned inside out: reversed */
} ndem_mesh_report;

/* Builds a mesh from n_tri triangles of 9 doubles each (x0 y0 z0 x1 ... z2).
 * Nodes within weld_tolerance (>= 0) of an earlier node are merged into it.
 * Returns 0, or -1 with a message in err (non-finite or out-of-range
 * coordinates name their triangle; too many triangles; none left). */
int ndem_mesh_build(const double *soup, long n_tri, double weld_tolerance, ndem_mesh **out,
                    ndem_mesh_report *report, char *err, size_t err_len);

/* A copy of m placed: every vertex v becomes position + scale R(q) v, with q
 * = [w, x, y, z] a unit quaternion and scale > 0; topology, groups, bounds
 * and mass properties recomputed. Returns 0, or -1 (out of memory). */
int ndem_mesh_place(const ndem_mesh *m, const double position[3], const double q[4], double scale,
                    ndem_mesh **out, char *err, size_t err_len);

/* Mass and inertia about the centroid for a density; -1 when the mesh is not
 * closed and oriented, or flat (it has no inside). */
int ndem_mesh_mass_properties(const ndem_mesh *m, double density, double *mass, double inertia[9]);

void ndem_mesh_destroy(ndem_mesh *m);

#endif
