/**
 * The job log, read (issue 28 item 3: the status says what is still being computed). The worker's
 * job runner writes one `job_run` row per run of a job (workers/jobs/record.ts; migration
 * 20261204000000_job_run): `queued` when a pipeline plans it, `running`, then `finished` or
 * `failed`. A queued or running row whose writer's database session is gone (its process died or
 * lost the database) is reported as `interrupted`: PostgreSQL's own list of sessions
 * (pg_stat_activity: pid and backend_start) says whether the writer is still there, so a killed
 * worker never leaves "still computing" behind.
 */
import type pg from 'pg';

/** The states a `job_run` row is written with (the table's CHECK constraint lists the same). */
export const JOB_RUN_STATES = ['queued', 'running', 'finished', 'failed'] as const;
/** A written state. */
export type JobRunState = (typeof JOB_RUN_STATES)[number];
/** The states as read: a queued or running row whose writer is gone reads `interrupted`. */
export const JOB_RUN_STATUS_STATES = [...JOB_RUN_STATES, 'interrupted'] as const;
/** A state as read. */
export type JobRunStatusState = (typeof JOB_RUN_STATUS_STATES)[number];

/** The newest run of one job. */
export interface JobRunStatus {
  /** The job's name (workers/jobs/catalog.ts: import, ingest, collect, match, basket-match, index, views, export…). */
  job: string;
  /** queued, running, finished, failed, or interrupted (queued or running when its process went away). */
  state: JobRunStatusState;
  /** When it was queued (planned by a pipeline) or, run alone, started. */
  queued_at: Date;
  /** When it started; null while queued (or interrupted before it started). */
  started_at: Date | null;
  /** When it finished or failed; null otherwise. */
  finished_at: Date | null;
  /** finished_at − started_at in seconds (finished and failed runs); null otherwise. */
  seconds: number | null;
  /** What it changed (the data version's note), for a run that changed what the API serves; null otherwise. */
  changed: string | null;
  /** Why it failed (the public message); null unless failed. */
  error: string | null;
}

/** The job log as the status shows it. */
export interface JobRunsStatus {
  /** Names of the jobs queued or running now, in the order they were planned; empty when nothing is being computed. */
  computing: string[];
  /** The newest run of every job that has run (or is planned), by name. */
  jobs: JobRunStatus[];
}

/** Whether a row's writer (its database session) is still connected. */
const ALIVE = `EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = r.backend_pid AND a.backend_start = r.backend_start)`;

interface Row {
  id: string;
  job: string;
  state: JobRunState;
  alive: boolean;
  queued_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  changed: string | null;
  error: string | null;
}

/**
 * The job log's status (see {@link JobRunsStatus}): one statement over the newest row of each job
 * and the queued and running rows (the writer keeps 30 days of rows).
 */
export async function readJobRuns(pool: pg.Pool | pg.PoolClient): Promise<JobRunsStatus> {
  const { rows } = await pool.query<Row>(
    `SELECT r.id::text AS id, r.job, r.state, (r.state IN ('queued', 'running') AND ${ALIVE}) AS alive,
            r.queued_at, r.started_at, r.finished_at, r.changed, r.error
     FROM job_run r
     WHERE r.state IN ('queued', 'running') OR r.id IN (SELECT max(id) FROM job_run GROUP BY job)
     ORDER BY r.id`,
  );
  const ordered = rows; // by id: the order the runs were planned or started
  const computing: string[] = [];
  for (const r of ordered) if (r.alive && !computing.includes(r.job)) computing.push(r.job);
  const newest = new Map<string, Row>();
  for (const r of ordered) newest.set(r.job, r);
  const jobs = [...newest.values()]
    .sort((a, b) => (a.job < b.job ? -1 : a.job > b.job ? 1 : 0))
    .map(
      (r): JobRunStatus => ({
        job: r.job,
        state: (r.state === 'queued' || r.state === 'running') && !r.alive ? 'interrupted' : r.state,
        queued_at: r.queued_at,
        started_at: r.started_at,
        finished_at: r.finished_at,
        seconds: r.started_at && r.finished_at ? (r.finished_at.getTime() - r.started_at.getTime()) / 1000 : null,
        changed: r.changed,
        error: r.state === 'failed' ? r.error : null,
      }),
    );
  return { computing, jobs };
}
