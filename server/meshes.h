/* meshes.h - the index of uploaded meshes in SQLite (meshes.c): one row per
 * mesh, and the references of queued and running jobs that keep a mesh
 * from being deleted. The bytes are files (mesh_files.h). */
#ifndef NDEM_SERVER_MESHES_H
#define NDEM_SERVER_MESHES_H

#include "db.h"
#include "mesh_files.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ndem_meshes ndem_meshes;

/* What an upload found in its STL (a row of `meshes`). */
typedef struct ndem_mesh_info {
    char id[NDEM_MESH_ID_LEN + 1];
    char name[256];
    char format[8]; /* "ascii" or "binary" */
    int64_t created_us;
    long bytes;
    long input_triangles, triangles, vertices; /* triangles: kept by the build */
    long welded, degenerate, duplicate;        /* ndem_mesh_report */
    int closed, oriented;
    double min[3], max[3];
    double area, volume; /* volume 0 unless closed and oriented */
    char owner[65];      /* the token name that uploaded it; "" none (NULL) */
} ndem_mesh_info;

/* Checks STL bytes as a job would load them (ndem_stl_parse, then
 * ndem_mesh_build welding exact copies): 0 with *info filled (id, name,
 * created_us left alone), or -1 with the parser's or the build's message
 * in err. */
int ndem_mesh_inspect(const void *bytes, size_t len, ndem_mesh_info *info, char *err,
                      size_t err_len);

/* Opens the index in the daemon's database (migrated by ndem_db_open
 * already) on a connection of its own; drops references of jobs that are
 * gone and settles pending ones (no submission is in flight at start-up). */
ndem_meshes *ndem_meshes_open(const char *db_path, char *err, size_t err_len);
void ndem_meshes_close(ndem_meshes *m);

/* Start-up: files of DATA/meshes without a row. Normally these are what a
 * delete interrupted between its row and its file: removed. After
 * --recover rebuilt the database (reindex) they are the record: checked
 * and indexed again (name "", created at the file's time). Returns the
 * number of files removed or indexed. */
int ndem_meshes_reconcile(ndem_meshes *m, const char *data, int reindex);

/* After --recover: the references of the queued and running jobs of the
 * rebuilt database, found again by parsing their documents through the
 * resolver (call after ndem_meshes_reconcile, which indexes the meshes).
 * The number of jobs that hold a mesh again, or -1. */
int ndem_meshes_rehold(ndem_meshes *m, ndem_db *db, const char *data);

/* 0 added, -1 on a database error. */
int ndem_meshes_add(ndem_meshes *m, const ndem_mesh_info *info);
/* 0 found, 1 unknown, -1 error. */
int ndem_meshes_get(ndem_meshes *m, const char *id, ndem_mesh_info *info);
/* Newest first, rows with seq < before_seq (0: from the newest) of owner
 * (NULL: every owner), at most limit; *rows malloc'd, *seqs (may be NULL)
 * the seq of each. 0 or -1. */
int ndem_meshes_list(ndem_meshes *m, const char *owner, long before_seq, int limit,
                     ndem_mesh_info **rows, long **seqs, int *count);
/* The resolver's visible hook (ctx is the ndem_meshes): 1 when mesh id
 * exists and belongs to owner (NULL: to anyone). */
int ndem_meshes_visible(void *ctx, const char *id, const char *owner);
/* Deletes the row unless a queued or running job (or one being submitted)
 * references the mesh: 0 deleted, 1 unknown, 2 referenced (blocker gets
 * one such job's id), -1 error. The file is the caller's to remove. */
int ndem_meshes_delete(ndem_meshes *m, const char *id, char *blocker, size_t blocker_len);

/* A job being submitted references ids (count of them): each becomes a
 * pending reference. 0, 1 when one of them is no longer in the index
 * (*missing its index; nothing is held then), -1 error. */
int ndem_meshes_hold(ndem_meshes *m, const char *job_id, char (*ids)[NDEM_MESH_ID_LEN + 1],
                     int count, int *missing);
/* The job is in the queue: its references are its status's from now on. */
int ndem_meshes_settle(ndem_meshes *m, const char *job_id);
/* The submission failed: its references go. */
int ndem_meshes_release(ndem_meshes *m, const char *job_id);

#endif
