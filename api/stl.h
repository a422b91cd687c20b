/* stl.h - STL bytes (ASCII or binary) to a triangle soup for
 * ndem_mesh_build (core/mesh.h). docs/meshes.md describes both forms. */
#ifndef NDEM_STL_H
#define NDEM_STL_H

#include <stddef.h>

/* Parses len bytes of STL. Binary when len == 84 + 50 n for the count n in
 * bytes 80..83 (even if the header starts with "solid"), else ASCII when it
 * starts with "solid". On success *soup holds 9 doubles per triangle (free
 * it) and *n_tri their count (>= 1, <= NDEM_MESH_MAX_TRIANGLES); facet
 * normals are ignored (the vertex order defines the face). Returns 0, or -1
 * with a message saying what and where (ASCII: line; binary: triangle and
 * byte offset). */
int ndem_stl_parse(const unsigned char *bytes, size_t len, double **soup, long *n_tri, char *err,
                   size_t err_len);

#endif
