/* job_parts.h - readers of the parts of a job document, shared between
 * api/job.c (document, materials, solver, output) and api/job_scene.c
 * (geometry, particles, emitters). Internal to api/. */
#ifndef NDEM_JOB_PARTS_H
#define NDEM_JOB_PARTS_H

#include "job.h"
#include "job_check.h"

/* Reads a material name at the current pointer (v already pushed) into
 * *out. With materials_ok == 0 (the material table itself was broken) an
 * unknown name is not reported again. */
int ndem_job_material_value(ndem_jc *c, const cJSON *v, const ndem_job *job, int materials_ok,
                            int *out);
/* The same for the member `key` of obj; absent leaves *out alone. */
int ndem_job_material_ref(ndem_jc *c, const cJSON *obj, const char *key, const ndem_job *job,
                          int materials_ok, int *out);

/* scene.geometry, scene.particles, scene.emitters: allocate the job's
 * arrays and fill them; errors go to c. */
void ndem_job_read_geometry(ndem_jc *c, const cJSON *scene, ndem_job *job, int materials_ok);
/* A geometry's "motion" member (job_motion.c) into g. */
void ndem_job_read_motion(ndem_jc *c, const cJSON *item, ndem_job *job, ndem_geometry_def *g);
/* A geometry's "dynamic" member (job_dynamic.c) into g->dynamic; its
 * initial velocities into g->velocity and g->angular_velocity. */
void ndem_job_read_dynamic(ndem_jc *c, const cJSON *item, ndem_geometry_def *g);
/* A box's "walls" member (job_walls.c) into g->walls: a stress-controlled
 * box; only on a box with inside true, not with dynamic or motion. */
void ndem_job_read_walls(ndem_jc *c, const cJSON *item, ndem_geometry_def *g);
/* A quaternion [w, x, y, z] at the current pointer (v already pushed),
 * finite and not zero, normalised into out (job_scene.c). */
int ndem_job_quaternion_value(ndem_jc *c, const cJSON *v, double out[4]);
/* A malloc'd array of n doubles owned by the job (freed with it); NULL on
 * oom (reported through c). */
double *ndem_job_list_array(ndem_jc *c, ndem_job *job, size_t doubles);
void ndem_job_read_particles(ndem_jc *c, const cJSON *scene, ndem_job *job, int materials_ok);
void ndem_job_read_emitters(ndem_jc *c, const cJSON *scene, ndem_job *job, int materials_ok);
/* A generator's or emitter's "shape" (job_shape.c): checked in full and
 * filled into *out (its data owned by job); absent leaves *out a sphere. */
void ndem_job_read_shape(ndem_jc *c, const cJSON *item, ndem_job *job,
                         ndem_particle_shape_def *out);
/* A lattice generator's pitch against its particles' size, at its
 * "spacing" (job_lattice.c); shape_given: the item has a "shape" (one that
 * failed to read is not checked). */
void ndem_job_check_lattice(ndem_jc *c, const ndem_generator_def *g, int shape_given);
/* Once the scene is read: what the engine cannot run with a shape yet (a
 * uniform radius, bonds, under NDEM walls and dynamic geometry), at
 * the shape's pointer. */
void ndem_job_check_shapes(ndem_jc *c, const ndem_job *job);

/* A quaternion [w, x, y, z] value (v already pushed), normalised into out;
 * the zero quaternion is an error. */
int ndem_job_quaternion_value(ndem_jc *c, const cJSON *v, double out[4]);

/* The mesh members of a geometry entry (type "mesh", job_mesh.c): builds
 * and places the mesh, owned by job, into g->mesh. */
void ndem_job_read_mesh(ndem_jc *c, const cJSON *item, ndem_job *job, ndem_geometry_def *g);
/* Writes the placed mesh of g as "vertices" and "triangles" members. */
struct ndem_jw;
void ndem_job_emit_mesh(struct ndem_jw *w, const ndem_geometry_def *g);

/* Reports every field of root that the solver's method or contact model
 * would ignore, set to anything but its neutral value (job_methods.c). */
void ndem_job_check_methods(ndem_jc *c, const cJSON *root, const ndem_solver_def *s);
/* Once the scene is read: each dynamic body that can touch static geometry
 * under a contact model without a law for it, at /scene/geometry/i/dynamic
 * (job_methods.c; core/rigid_contact.h says which). */
void ndem_job_check_body_contacts(ndem_jc *c, const ndem_scene_def *s);

/* Sorts errs->items[from, to) in document order (job_order.c); root is
 * the parsed document (NULL: no document, pointers compare as text). */
void ndem_job_errors_order(ndem_job_errors *errs, int from, int to, const cJSON *root);

#endif
