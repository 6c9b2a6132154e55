-- The job log (issue 28 item 3: "the status operation and the front door saying what is still
-- being computed"). The job runner (workers/jobs/runner.ts, through workers/jobs/record.ts) writes
-- one row per run of a job: 'queued' when a pipeline plans it, 'running' when it starts, then
-- 'finished' or 'failed'. A pipeline's planned stages that it decides not to run are deleted when
-- it ends. Each row names the database session of the process that wrote it (backend_pid and
-- backend_start, as pg_stat_activity gives them): a row still 'queued' or 'running' whose session
-- is gone was interrupted (its process died), which the status (src/services/job-runs.ts) reports
-- as such instead of "still computing". Rows older than 30 days are deleted by the writer.
CREATE TABLE job_run (
  id             BIGSERIAL PRIMARY KEY,
  job            TEXT NOT NULL,
  state          TEXT NOT NULL CHECK (state IN ('queued', 'running', 'finished', 'failed')),
  queued_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
  started_at     TIMESTAMPTZ,
  finished_at    TIMESTAMPTZ,
  -- The data version's `what` when the run changed what the API serves; NULL otherwise.
  changed        TEXT,
  -- Why a failed run failed, as shown to the public (the message of an expected failure, else a
  -- generic line: the worker's log has the rest).
  error          TEXT,
  backend_pid    INTEGER NOT NULL,
  backend_start  TIMESTAMPTZ NOT NULL
);
CREATE INDEX job_run_job_idx ON job_run (job, id);
CREATE INDEX job_run_state_idx ON job_run (state, id);
