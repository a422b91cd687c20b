-- 003_meshes.sql - uploaded meshes (POST /api/v1/meshes; server/meshes.c).
-- The STL bytes are the file meshes/<id>.stl of the data directory; a row
-- holds what the upload found in them. seq orders the listing (newest
-- first). welded, degenerate and duplicate are ndem_mesh_build's report
-- (exact copies welded); bounds are those of the built mesh.
CREATE TABLE meshes (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT    NOT NULL UNIQUE,
    name            TEXT    NOT NULL,
    created_us      INTEGER NOT NULL,
    bytes           INTEGER NOT NULL,
    format          TEXT    NOT NULL CHECK (format IN ('ascii', 'binary')),
    input_triangles INTEGER NOT NULL,
    triangles       INTEGER NOT NULL,
    vertices        INTEGER NOT NULL,
    welded          INTEGER NOT NULL,
    degenerate      INTEGER NOT NULL,
    duplicate       INTEGER NOT NULL,
    closed          INTEGER NOT NULL,
    oriented        INTEGER NOT NULL,
    min_x REAL NOT NULL, min_y REAL NOT NULL, min_z REAL NOT NULL,
    max_x REAL NOT NULL, max_y REAL NOT NULL, max_z REAL NOT NULL,
    area            REAL    NOT NULL,
    volume          REAL    NOT NULL
);

-- Which jobs reference which meshes (found by the resolver while the job
-- was parsed), so that a mesh a queued or running job needs is not
-- deleted. pending: the job is being submitted (its row may not exist
-- yet); start-up clears it and drops the rows of jobs that are gone.
CREATE TABLE job_meshes (
    job_id  TEXT    NOT NULL,
    mesh_id TEXT    NOT NULL,
    pending INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (job_id, mesh_id)
) WITHOUT ROWID;
CREATE INDEX job_meshes_by_mesh ON job_meshes (mesh_id);
