/**
 * The job log, written (issue 28 item 3): what the status operation (src/services/job-runs.ts) and
 * the front door read to say what is still being computed. The runner (./runner.ts) writes one
 * `job_run` row per run of a job — `queued` when a pipeline plans it (./pipeline.ts
 * plannedStages), `running` when it starts, `finished` or `failed` when it ends — and deletes a
 * pipeline's planned stages it did not run when the pipeline ends.
 *
 * Rows are written on a connection of their own (not one of the pool's: the job keeps all of
 * those), held from the first row to the last of a pipeline or lone job. Its session's pid and
 * start time go into every row, so when the process dies the session goes with it and the reader
 * sees a queued or running row as interrupted. The log is bookkeeping: a failure to write it is
 * printed once and never fails or delays a job beyond {@link LOG_TIMEOUT_MS}.
 */
import pg from 'pg';
import { describeFailure } from '../../src/db/embedded.js';
import { ExpectedError } from '../../src/errors.js';
import type { JobRunState } from '../../src/services/job-runs.js';

/** Milliseconds a write of the log (or its connection) may take before the log gives up. */
export const LOG_TIMEOUT_MS = 10_000;

/** Days of rows kept (older rows are deleted when a log opens). */
export const KEEP_DAYS = 30;

/** Longest public error message stored (characters). */
const ERROR_MAX = 500;

/**
 * The public line for a failed run: an expected failure's own message (bad input, a locked job…),
 * else a generic line — a database or programming error's text stays in the worker's log.
 */
export function publicFailure(e: unknown): string {
  if (e instanceof ExpectedError) {
    const text = describeFailure(e);
    return text.length > ERROR_MAX ? `${text.slice(0, ERROR_MAX - 1)}…` : text;
  }
  return 'failed with an unexpected error (the worker log has the details)';
}

/** One open job log: the rows of one pipeline, or of one job run alone. */
export class JobLog {
  private broken = false;
  /** Rows queued by {@link queue} and not yet started, in order. */
  private readonly planned: { job: string; id: string }[] = [];

  private constructor(
    private readonly client: pg.Client,
    private readonly warn: (line: string) => void,
  ) {}

  /**
   * Opens a log on its own connection to the pool's database, deleting rows older than
   * {@link KEEP_DAYS} days. Resolves null (after one printed line) when it cannot connect: the jobs
   * then run unlogged.
   */
  static async open(pool: pg.Pool, warn: (line: string) => void): Promise<JobLog | null> {
    const client = new pg.Client({
      ...(pool.options as pg.ClientConfig),
      connectionTimeoutMillis: LOG_TIMEOUT_MS,
      query_timeout: LOG_TIMEOUT_MS,
      application_name: 'job log',
    });
    client.on('error', () => {}); // a lost connection surfaces on the next write, which gives up
    try {
      await client.connect();
      await client.query(`DELETE FROM job_run WHERE queued_at < now() - make_interval(days => $1)`, [KEEP_DAYS]);
      return new JobLog(client, warn);
    } catch (e) {
      warn(`job log: cannot write the job log (${describeFailure(e)}); the jobs run without it`);
      await client.end().catch(() => {});
      return null;
    }
  }

  /** Plans jobs (a pipeline's stages, in order): one `queued` row each. */
  async queue(jobs: readonly string[]): Promise<void> {
    if (!jobs.length) return;
    const rows = await this.write<{ id: string; job: string }>(
      `INSERT INTO job_run (job, state, backend_pid, backend_start)
       SELECT j.job, 'queued', s.pid, s.backend_start
       FROM unnest($1::text[]) WITH ORDINALITY AS j(job, n), ${SESSION} s
       ORDER BY j.n
       RETURNING id::text AS id, job`,
      [jobs],
    );
    // RETURNING gives the rows in insertion order, which the ORDER BY fixed.
    if (rows) this.planned.push(...rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)));
  }

  /** A job starts: its first queued row of this log becomes `running`, or a new `running` row. Resolves the row's id (null when not logged). */
  async start(job: string): Promise<string | null> {
    const at = this.planned.findIndex((p) => p.job === job);
    if (at >= 0) {
      const [{ id }] = this.planned.splice(at, 1);
      const rows = await this.write(`UPDATE job_run SET state = 'running', started_at = now() WHERE id = $1`, [id]);
      return rows ? id : null;
    }
    const rows = await this.write<{ id: string }>(
      `INSERT INTO job_run (job, state, started_at, backend_pid, backend_start)
       SELECT $1, 'running', now(), s.pid, s.backend_start FROM ${SESSION} s
       RETURNING id::text AS id`,
      [job],
    );
    return rows?.[0]?.id ?? null;
  }

  /** A run ends: `finished` (with what it changed, or null) or `failed` (with its public message). */
  async end(id: string | null, state: Extract<JobRunState, 'finished' | 'failed'>, detail: string | null): Promise<void> {
    if (id === null) return;
    await this.write(
      `UPDATE job_run SET state = $2, finished_at = now(), changed = CASE WHEN $2 = 'finished' THEN $3 END, error = CASE WHEN $2 = 'failed' THEN $3 END WHERE id = $1`,
      [id, state, detail],
    );
  }

  /** Closes the log: the planned jobs that did not run are deleted, then the connection ends. */
  async close(): Promise<void> {
    if (this.planned.length) {
      await this.write(`DELETE FROM job_run WHERE id = ANY($1::bigint[])`, [this.planned.map((p) => p.id)]);
      this.planned.length = 0;
    }
    await this.client.end().catch(() => {});
  }

  /** Runs one write; on failure prints one line, stops logging and resolves null. */
  private async write<T extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<T[] | null> {
    if (this.broken) return null;
    try {
      return (await this.client.query<T>(sql, params)).rows;
    } catch (e) {
      this.broken = true;
      this.warn(`job log: a write failed (${describeFailure(e)}); the rest of this run is not logged`);
      return null;
    }
  }
}

/** This connection's session, as pg_stat_activity names it (the reader's liveness test). */
const SESSION = `(SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())`;
