/* mesh_files.h - the bytes of uploaded meshes, DATA/meshes/<id>.stl
 * (mesh_files.c), and the resolver that hands them to the job parser
 * (ndem_job_parse_opts.mesh_bytes). No database: the parser runs where
 * only the data directory is known (the worker, a --recover rebuild). */
#ifndef NDEM_SERVER_MESH_FILES_H
#define NDEM_SERVER_MESH_FILES_H

#include "job.h"

#include <stddef.h>

#define NDEM_MESH_ID_LEN 16 /* lowercase hex digits, like a job id */

/* 1 when id is NDEM_MESH_ID_LEN lowercase hex digits (nothing else ever
 * becomes part of a path). */
int ndem_mesh_id_valid(const char *id);
/* A new random id (NDEM_MESH_ID_LEN + 1 bytes). 0, or -1. */
int ndem_mesh_new_id(char *id);
/* DATA/meshes/<id>.stl */
void ndem_mesh_file_path(const char *data, const char *id, char *buf, size_t len);
/* Writes the bytes durably: a temporary file, fsync, rename, fsync of the
 * directory (created when missing). 0, or -1 with errno set. */
int ndem_mesh_file_write(const char *data, const char *id, const void *bytes, size_t len);
/* The file's bytes (malloc'd, NUL-terminated). 0, 1 when there is no mesh
 * of that id (or the id is not one), -1 when it cannot be read (errno). */
int ndem_mesh_file_read(const char *data, const char *id, char **bytes, size_t *len);
/* Removes the file; 0 also when it was gone. */
int ndem_mesh_file_remove(const char *data, const char *id);
/* Removes temporary files an interrupted upload left; the number removed. */
int ndem_mesh_files_sweep(const char *data);

/* A resolver for one parse: reads the files of data, and records every
 * distinct id it resolved (the job's references; ids, count). */
typedef struct ndem_mesh_resolver {
    const char *data;
    char (*ids)[NDEM_MESH_ID_LEN + 1];
    int count, capacity;
    int failed; /* an id could not be recorded (out of memory) */
    /* NULL, or 0 for an id the submitter may not use (another owner's
     * mesh): it resolves as an unknown id */
    int (*visible)(void *ctx, const char *id, const char *owner);
    void *visible_ctx;
    const char *owner; /* NULL: every mesh */
} ndem_mesh_resolver;

/* opts for ndem_job_parse_with that resolve mesh ids through r (base_dir
 * NULL: a server never reads a client's paths). */
ndem_job_parse_opts ndem_mesh_resolver_opts(ndem_mesh_resolver *r, const char *data);
/* The mesh_bytes callback: ctx is an ndem_mesh_resolver. */
int ndem_mesh_resolve(void *ctx, const char *id, char **bytes, size_t *len);
void ndem_mesh_resolver_free(ndem_mesh_resolver *r);

#endif
