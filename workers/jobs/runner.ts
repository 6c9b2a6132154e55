/**
 * The one job runner (issue 27 item 1): the command line (workers/cli.ts), the schedule
 * (workers/jobs/schedule.ts) and start-up (the worker process, `npm run worker -- start`) run
 * every job through {@link JobRunner.run}, and every pipeline through {@link runPipeline}.
 *
 * For each job the runner: announces it; performs it, repeating a retryable failure up to the
 * job's `retries` with backoff; then, when the job's result changed what the API serves, moves the
 * one data version (src/db/data-version.ts) — the only place in the tree that does, so every API
 * process drops its response cache once per changing job — and prints the job's report.
 *
 * The bump follows the job's commit in its own transaction, so between the two an API may cache
 * an answer computed from the new rows under the old version; the bump drops it a moment later.
 * A process killed in that moment leaves the version behind until the next changing job (the
 * schedule's index run, at most INDEX_CRON later); the trade is the one issue 27 asks for (the
 * bump in one place, not inside seven jobs' transactions).
 *
 * Every run is written to the job log (./record.ts: queued, running, finished or failed), which the
 * status operation reads to say what is still being computed; a pipeline opens one log for all its
 * stages ({@link JobRunner.withPlan}), a job run alone opens its own.
 */
import { bumpDataVersion } from '../../src/db/data-version.js';
import { inTransaction } from '../../src/db/transaction.js';
import { describeFailure } from '../../src/db/embedded.js';
import { ExpectedError } from '../../src/errors.js';
import type { Job, JobContext } from './job.js';
import { JobLog, publicFailure } from './record.js';

/** What the runner tells a listener (the worker process forwards these to its supervisor). */
export type JobEvent =
  | { kind: 'start'; job: string }
  | { kind: 'retry'; job: string; attempt: number; error: string; waitMs: number }
  | { kind: 'done'; job: string; seconds: number; bumped: number | null }
  | { kind: 'failed'; job: string; seconds: number; error: string; bumped: number | null };

/** Runner options. */
export interface RunnerOptions {
  /** Called for every event, in order (tests record them; the worker forwards them). */
  onEvent?: (e: JobEvent) => void;
  /** Milliseconds before the first retry (doubled each time). Default 1,000. */
  retryDelayMs?: number;
}

/** PostgreSQL and socket failures after which the same run may succeed. */
const RETRYABLE_CODES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '57P01', // admin_shutdown
  '57P03', // cannot_connect_now (a server starting up)
  '08000', '08003', '08006', // connection exceptions
  'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT',
]);

/**
 * Whether a failure may go away when the run is repeated: an {@link ExpectedError} marked
 * retryable, or a PostgreSQL serialization failure, deadlock, shutdown or lost connection
 * (SQLSTATE classes 40, 57P, 08: https://www.postgresql.org/docs/current/errcodes-appendix.html).
 */
export function isRetryable(e: unknown): boolean {
  if (e instanceof ExpectedError) return e.retryable;
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_CODES.has(code);
}

/** Runs jobs in one context (see the module comment). */
export class JobRunner {
  constructor(
    readonly ctx: JobContext,
    private readonly opts: RunnerOptions = {},
  ) {}

  /**
   * Runs one job: perform (with retries), then the data-version bump when it changed something,
   * then its report; written to `plan` (a pipeline's log, {@link withPlan}), or, when `plan` is
   * undefined, to a log of its own (null: not logged).
   * @throws what the job threw on its last attempt (after the bump of a job that commits as it goes).
   */
  async run<I, R>(job: Job<I, R>, input: I, plan?: JobLog | null): Promise<R> {
    if (plan === undefined) {
      const own = await this.openLog();
      try {
        return await this.run(job, input, own);
      } finally {
        await own?.close();
      }
    }
    const t0 = performance.now();
    const seconds = () => (performance.now() - t0) / 1000;
    this.emit({ kind: 'start', job: job.name });
    const logged = (await plan?.start(job.name)) ?? null;
    let result: R;
    try {
      result = await this.attempt(job, input);
    } catch (e) {
      let bumped: number | null = null;
      if (job.commitsAsItGoes) {
        // Part of its writes may have committed: the API must not keep serving what it cached before.
        bumped = await this.bump(`${job.name} (failed)`).catch(() => null);
      }
      await plan?.end(logged, 'failed', publicFailure(e));
      this.emit({ kind: 'failed', job: job.name, seconds: seconds(), error: describeFailure(e), bumped });
      throw e;
    }
    const what = job.changed?.(result, input) ?? null;
    const bumped = what === null ? null : await this.bump(what, job.afterBump ? (tx) => job.afterBump!(tx, result) : undefined);
    await plan?.end(logged, 'finished', what);
    const line = job.report?.(result, input);
    if (line) this.ctx.log(line);
    this.emit({ kind: 'done', job: job.name, seconds: seconds(), bumped });
    return result;
  }

  /**
   * Runs `body` with one job log whose `stages` (job names, in order) are queued at once, so the
   * status lists them as still to be computed; `body` passes the log to {@link run}. Stages not run
   * by the end are taken off the log.
   */
  async withPlan<T>(stages: readonly string[], body: (plan: JobLog | null) => Promise<T>): Promise<T> {
    const plan = await this.openLog();
    try {
      await plan?.queue(stages);
      return await body(plan);
    } finally {
      await plan?.close();
    }
  }

  private openLog(): Promise<JobLog | null> {
    return JobLog.open(this.ctx.pool, (line) => this.ctx.log(line));
  }

  private async attempt<I, R>(job: Job<I, R>, input: I): Promise<R> {
    const retries = job.retries ?? 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await job.perform(this.ctx, input);
      } catch (e) {
        if (attempt > retries || !isRetryable(e)) throw e;
        const waitMs = (this.opts.retryDelayMs ?? 1000) * 2 ** (attempt - 1);
        this.emit({ kind: 'retry', job: job.name, attempt, error: describeFailure(e), waitMs });
        await new Promise((r) => setTimeout(r, waitMs));
      }
    }
  }

  /** Moves the data version (and runs `then` in the same transaction); resolves with the new version number. */
  private async bump(what: string, then?: (tx: import('pg').PoolClient) => Promise<void>): Promise<number> {
    return inTransaction(this.ctx.pool, async (tx) => {
      const v = await bumpDataVersion(tx, what);
      if (then) await then(tx);
      return v.version;
    });
  }

  private emit(e: JobEvent): void {
    this.opts.onEvent?.(e);
  }
}
