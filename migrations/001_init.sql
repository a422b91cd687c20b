-- 001_init.sql - the job queue and record (server/db.c applies it).
-- seq orders the queue (FIFO by creation) and the listing (newest first);
-- id is the public, unguessable name. Times are microseconds since the
-- epoch (UTC). document is the normalized job (defaults filled in), so that
-- a worker parses exactly what the API showed.
CREATE TABLE jobs (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT    NOT NULL UNIQUE,
    name           TEXT    NOT NULL,
    status         TEXT    NOT NULL CHECK (status IN
                       ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    document       TEXT    NOT NULL,
    created_us     INTEGER NOT NULL,
    started_us     INTEGER,
    finished_us    INTEGER,
    step           INTEGER NOT NULL DEFAULT 0,
    steps_total    INTEGER NOT NULL,
    sim_time       REAL    NOT NULL DEFAULT 0,
    duration       REAL    NOT NULL,
    particles      INTEGER NOT NULL DEFAULT 0,
    contacts       INTEGER NOT NULL DEFAULT 0,
    kinetic_energy REAL    NOT NULL DEFAULT 0,
    wall_seconds   REAL    NOT NULL DEFAULT 0,
    attempts       INTEGER NOT NULL DEFAULT 0,
    error          TEXT
);
CREATE INDEX jobs_by_status ON jobs (status, seq);

-- The frames a job has written, in order; the files are jobs/<id>/frames/.
CREATE TABLE frames (
    job_id    TEXT    NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    idx       INTEGER NOT NULL,
    step      INTEGER NOT NULL,
    time      REAL    NOT NULL,
    particles INTEGER NOT NULL,
    PRIMARY KEY (job_id, idx)
) WITHOUT ROWID;
