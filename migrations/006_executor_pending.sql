-- 006_executor_pending.sql - a job a worker has claimed whose executor still
-- holds it in a queue of its own (Slurm's PENDING, --executor slurm) is
-- queued to its users: its resource, the list's ?status=, a sweep's counts,
-- /health and /metrics all read the status as
-- CASE WHEN status = 'running' AND executor_pending THEN 'queued' ELSE status END
-- (server/db_priv.h). remote.c sets it from Slurm's state; every end and
-- requeue clears it, so it is 0 whenever status is not running.
ALTER TABLE jobs ADD COLUMN executor_pending INTEGER NOT NULL DEFAULT 0;
