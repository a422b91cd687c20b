-- 002_interrupted.sql - how often a job was found `running` at start-up,
-- i.e. interrupted by a crash or a kill rather than stopped in order (a
-- SIGTERM puts a job back to queued after a checkpoint and does not count).
-- At --max-attempts the job fails instead of going back to the queue.
ALTER TABLE jobs ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;
