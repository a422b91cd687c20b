/* job.h - job documents (docs/job.md): JSON in, engine structures out, and
 * back. Every validation error carries a JSON Pointer into the submitted
 * document and a message; all errors are collected, not just the first.
 * The daemon and the `ndem` command line share this module. */
#ifndef NDEM_JOB_H
#define NDEM_JOB_H

#include "ndem.h"

#include <stddef.h>

/* Sanity bounds of a job document (docs/job.md). */
#define NDEM_JOB_MAX_PARTICLES 50000000L /* ndem_job_particle_estimate */
#define NDEM_JOB_MAX_MATERIALS 256
#define NDEM_JOB_MAX_ENTRIES 10000 /* geometry, particle generators, emitters */
#define NDEM_JOB_MAX_STEPS 1e9     /* solver.duration / solver.time_step */
/* Longest arrays (ndem_job_scan): a list's "spheres" and "velocities" hold
 * at most the particle limit, its "bonds" this many per particle, and no
 * other array of the schema is longer than NDEM_JOB_MAX_ARRAY. */
#define NDEM_JOB_BONDS_PER_SPHERE 6
#define NDEM_JOB_MAX_ARRAY 65536L

typedef enum ndem_job_status {
    NDEM_JOB_OK = 0,
    NDEM_JOB_MALFORMED = 1, /* not JSON (HTTP 400) */
    NDEM_JOB_INVALID = 2    /* JSON, but not a valid job (HTTP 422) */
} ndem_job_status;

typedef struct ndem_job_error {
    char *pointer; /* JSON Pointer (RFC 6901), "" for the whole document */
    char *message;
} ndem_job_error;

typedef struct ndem_job_errors {
    int count;
    int capacity;
    ndem_job_error *items;
} ndem_job_errors;

typedef struct ndem_output_def {
    double frame_interval; /* simulated seconds between frames */
    int contacts;          /* also the contact network with each frame (NDC1, docs/frames.md) */
} ndem_output_def;

/* A parsed, validated job. `scene` points into arrays owned by the job. */
typedef struct ndem_job {
    char name[NDEM_NAME_MAX * 2];
    ndem_scene_def scene;
    ndem_output_def output;
    /* owned storage behind scene */
    ndem_material_def *materials;
    ndem_contact_material_def *contact_materials;
    ndem_geometry_def *geometry;
    ndem_generator_def *generators;
    ndem_emitter_def *emitters;
    double **list_arrays; /* spheres/velocities of list generators */
    int list_array_count;
    struct ndem_mesh_shape **meshes; /* placed meshes behind mesh geometry */
    int mesh_count;
    /* Things the parser changed but did not refuse ("<pointer>: <what>"), e.g.
     * degenerate triangles dropped from a mesh: the CLI prints them, the
     * daemon keeps them with the job (ndem_job_warnings_to_json). */
    char **warnings;
    int warning_count;
} ndem_job;

/* Parses and validates `len` bytes of JSON text. On NDEM_JOB_OK *out holds a
 * new job (ndem_job_destroy). Otherwise *out is NULL and errs holds every
 * error found (ndem_job_errors_clear). errs must be zero-initialised (or
 * hold earlier errors, which are kept); it may be NULL. */
ndem_job_status ndem_job_parse(const char *text, size_t len, ndem_job **out, ndem_job_errors *errs);
void ndem_job_destroy(ndem_job *job);

/* Where a document's references to outside data may lead. A mesh geometry
 * may name a file (`"file"`, `ndem run` only) or an uploaded mesh
 * (`"mesh": "<id>"`, the daemon only); without a way to read one, the
 * parser refuses it at its pointer. */
typedef struct ndem_job_parse_opts {
    /* Directory a `file` is relative to (the job file's); NULL: `file` is
     * refused (a server never reads a client's paths). */
    const char *base_dir;
    /* The bytes (STL) of an uploaded mesh: 0 with *bytes malloc'd (the
     * parser frees it), or -1 when there is no mesh of that id. NULL: mesh
     * ids are refused. */
    int (*mesh_bytes)(void *ctx, const char *id, char **bytes, size_t *len);
    void *mesh_ctx;
} ndem_job_parse_opts;

/* ndem_job_parse with references resolved through opts (may be NULL:
 * ndem_job_parse is this with NULL). */
ndem_job_status ndem_job_parse_with(const char *text, size_t len, const ndem_job_parse_opts *opts,
                                    ndem_job **out, ndem_job_errors *errs);

/* One pass over the text before parsing (job_scan.c): *values gets the
 * number of JSON values (cJSON allocates one node each), a string holding
 * "\u0000" is an error at its pointer, and when max_particles > 0 so is an
 * array longer than the limits above (found as soon as it gets too long).
 * NDEM_JOB_INVALID with the error in errs (may be NULL), else NDEM_JOB_OK;
 * text that is not JSON is left to the parser. ndem_job_parse runs it with
 * max_particles 0. */
ndem_job_status ndem_job_scan(const char *text, size_t len, long max_particles, size_t *values,
                              ndem_job_errors *errs);
void ndem_job_errors_clear(ndem_job_errors *errs);
/* Appends an error at pointer (printf-style message), for checks made
 * outside the parser (the daemon's limits, sweeps); dropped when out of
 * memory. */
void ndem_job_errors_add(ndem_job_errors *errs, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Puts errs in document order (docs/job.md "Errors"): by JSON Pointer,
 * members in the order text (the document, len bytes) writes them, array
 * elements by index, pointers the document lacks after those it has; ties
 * keep their order. ndem_job_parse returns its errors in this order already;
 * this is for errors added afterwards (the daemon's limits). */
void ndem_job_errors_sort(ndem_job_errors *errs, const char *text, size_t len);

/* The job as a JSON document with every default filled in (malloc'd text). */
char *ndem_job_to_json(const ndem_job *job);

/* The errors as a JSON array [{"pointer": "...", "message": "..."}, ...]
 * (malloc'd text; NULL when out of memory), for problem+json bodies. */
char *ndem_job_errors_to_json(const ndem_job_errors *errs);

/* The job's warnings in the same form, [{"pointer": "/scene/geometry/2",
 * "message": "mesh: dropped ..."}, ...] (malloc'd text; "[]" when none;
 * NULL when out of memory): what the daemon keeps with the job. */
char *ndem_job_warnings_to_json(const ndem_job *job);

/* An upper bound of the particles the job can hold at once: counts of the
 * generators (a lattice without count estimated from its region and
 * spacing) plus what each emitter can emit before the end of the run.
 * Saturates at LONG_MAX. */
long ndem_job_particle_estimate(const ndem_job *job);

/* Bytes of memory a particle takes in a run: 937 measured on bench/bed-100k
 * (docs/performance.md), rounded up. The daemon's --max-particles is also
 * its memory budget for a job, that many particles' worth. */
#define NDEM_JOB_PARTICLE_BYTES 940.0

/* Bytes the mesh of a mesh geometry holds while its job lives, counted from
 * the sizes of its arrays (the mesh as built, kept for ndem_job_to_json;
 * its placed copy; the contact tables and the grid of the shape); 0 for
 * other geometry. About 200 bytes a triangle (docs/meshes.md). *triangles
 * (may be NULL) gets the mesh's triangles. */
double ndem_job_mesh_bytes(const ndem_geometry_def *g, long *triangles);

/* Bytes of output the job's own numbers ask for: frames (duration /
 * frame_interval + 1, each a full NDF1 record of the particle estimate,
 * with output.contacts also an NDC1 record of NDEM_CONTACTS_PER_PARTICLE
 * contacts a particle) plus
 * one series.csv row per step (NDEM_SERIES_ROW_BYTES each). What the
 * daemon's --max-output is checked against at submission. */
double ndem_job_output_estimate(const ndem_job *job);

/* Reads a whole file for ndem_job_parse; NULL and errno set on failure. */
char *ndem_read_file(const char *path, size_t *len);

#endif
