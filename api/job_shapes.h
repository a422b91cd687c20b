/* job_shapes.h - the shape templates of a job document (docs/shapes.md,
 * "Output"): the table a particle's frame `shapes` index points into, built
 * from the document alone (no engine), and its listing in the job resource.
 * Template k is the k-th `shape` met in scene.particles[0..] and then
 * scene.emitters[0..] (entries without one are plain spheres and take no
 * index), built as the parser checks it: at bounding radius 1, so that a
 * particle of radius r is its template times r. */
#ifndef NDEM_JOB_SHAPES_H
#define NDEM_JOB_SHAPES_H

#include "shape.h"

#include <cjson/cJSON.h>

/* The templates of doc (a parsed job document) into a new table, in
 * index order; a shape that does not build (only in a document the parser
 * refuses) is a unit sphere there, so later indices stay in place. NULL
 * when memory runs out; an empty table when doc has no shapes. */
ndem_shape_table *ndem_job_shape_table(const cJSON *doc);
/* The listing: [{"index", "type", "source" (the shape's JSON Pointer),
 * "radius": 1, "spheres": [[x, y, z, r], ..] (clump) or "vertices": [[x, y,
 * z], ..] and "faces": [[i, j, k, ..], ..] (polyhedron: the hull's faces,
 * counter-clockwise seen from outside; compound: every piece's hull over one
 * vertex list, and "piece_faces": the faces of each piece in order)}, ...]
 * ("error" instead of the
 * geometry for a shape that does not build). NULL when memory runs out. */
cJSON *ndem_job_shape_list(const cJSON *doc);

#endif
