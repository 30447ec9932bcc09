-- A node's heartbeat names the process it comes from (a random id per start), so that a
-- request's Idempotency-Key in flight under another process is known to be running (its
-- process still beats) or abandoned (its node stopped, or started again as a new process).
ALTER TABLE nodes ADD COLUMN process TEXT NOT NULL DEFAULT '';
