-- 005_owners.sql - bearer tokens and owners (docs/api.md, "Authentication").
-- A token is 256 random bits shown once by `ndemd token create`; only its
-- SHA-256 is kept (hash, 32 bytes). name is the owner it stands for;
-- revoked_us is set by `ndemd token revoke` and the token stops working at
-- once (nothing caches tokens). A row is never deleted, so a revoked name
-- is never handed to someone else.
CREATE TABLE tokens (
    name       TEXT    NOT NULL UNIQUE,
    hash       BLOB    NOT NULL UNIQUE,
    admin      INTEGER NOT NULL DEFAULT 0,
    created_us INTEGER NOT NULL,
    revoked_us INTEGER
);
-- The token name that created a job, a sweep (and its jobs) or a mesh.
-- NULL: made without authentication (--auth off, or before this migration):
-- visible to admin tokens and to a daemon running without authentication.
ALTER TABLE jobs ADD COLUMN owner TEXT;
ALTER TABLE sweeps ADD COLUMN owner TEXT;
ALTER TABLE meshes ADD COLUMN owner TEXT;
CREATE INDEX jobs_by_owner ON jobs (owner, seq);
