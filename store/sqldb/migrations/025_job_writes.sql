-- Imports that fail cleanly.
--
-- The records a built-in job adds, by key range, noted in the transaction that adds them: a
-- job that fails, is canceled or is interrupted by a restart takes them back, so an import
-- is all or nothing. The rows go when the job completes.
CREATE TABLE job_writes (
    job_id   TEXT NOT NULL,
    sheet_id TEXT NOT NULL,
    lo       INTEGER NOT NULL,  -- first and last record key (rid) of one insert
    hi       INTEGER NOT NULL
);
CREATE INDEX job_writes_job ON job_writes(job_id);

-- The Sluice node whose built-in worker carries out an executing job: at start a node fails
-- its own jobs that were running when it stopped, at once, instead of after the ack window.
ALTER TABLE jobs ADD COLUMN runner TEXT NOT NULL DEFAULT '';
