-- 004_sweeps.sql - parameter sweeps (docs/api.md, "Sweeps"): a base job
-- document expanded over parameters into jobs that are queued together.
-- parameters is the submitted list [{"pointer", "values"}] as JSON; each job
-- of a sweep names it (sweep_id), has its place in the expansion
-- (sweep_index, from 0) and the values it took, as a JSON array in the
-- order of parameters (sweep_values). A job outside any sweep has NULLs.
CREATE TABLE sweeps (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT    NOT NULL UNIQUE,
    mode       TEXT    NOT NULL CHECK (mode IN ('product', 'zip')),
    parameters TEXT    NOT NULL,
    created_us INTEGER NOT NULL
);
ALTER TABLE jobs ADD COLUMN sweep_id TEXT REFERENCES sweeps (id);
ALTER TABLE jobs ADD COLUMN sweep_index INTEGER;
ALTER TABLE jobs ADD COLUMN sweep_values TEXT;
CREATE INDEX jobs_by_sweep ON jobs (sweep_id, sweep_index);
