/**
 * The job model (issue 27 item 1): every piece of work the worker process does — import, ingest,
 * collect, matching, images, search indexing, basket matching, the index, the derived views, the
 * export and the curators' commands — is one {@link Job}, declared once with {@link defineJob}
 * (workers/jobs/catalog.ts) and run only by the job runner (workers/jobs/runner.ts), which the
 * command line, the schedule and start-up all use.
 *
 * A job says what it is (name), which advisory locks it takes (names from the one registry,
 * src/db/locks.ts; the job's own code takes them, where its connection and transaction need them),
 * whether its result changed what the API serves (then the runner moves the data version, once,
 * after the job: src/db/data-version.ts), whether a failure may be retried, and how to print its
 * report. Expected failures are {@link ExpectedError}s (src/errors.ts), one base class.
 *
 * The shape follows Outline's BaseTask (perform, schedule, retries) as the issue suggests; the
 * scheduling itself is node-cron's (workers/jobs/schedule.ts).
 */
import type pg from 'pg';
import type { Env } from '../../src/env.js';
import { LOCKS, type LockName } from '../../src/db/locks.js';

/** What a job gets to run with: the database, the configuration and how to report. */
export interface JobContext {
  /** The database pool. */
  readonly pool: pg.Pool;
  /** The validated configuration (src/env.ts). */
  readonly env: Env;
  /** Progress bars: false for the schedule and start-up; undefined: when stderr is a terminal. */
  readonly progress?: boolean;
  /** Prints one line of a report (the CLI: stdout; the worker process: its log). */
  readonly log: (line: string) => void;
}

/** One kind of work, with input `I` and result `R`. */
export interface Job<I, R> {
  /** Short name, as in the CLI and the logs (`match`, `basket-match`, `views`). */
  readonly name: string;
  /** The advisory locks it takes, by registry name (src/db/locks.ts). */
  readonly locks: readonly LockName[];
  /**
   * Whether the result changed what the API serves: the data version's `what` (e.g.
   * `match`, `ingest 2026-05-03`) to record, or null when nothing changed. Absent: never.
   */
  readonly changed?: (result: R, input: I) => string | null;
  /**
   * The job commits as it goes (one transaction per day or per step): a failure may leave part
   * of its writes, so the runner moves the data version even when it throws.
   */
  readonly commitsAsItGoes?: boolean;
  /** Runs in the transaction of the runner's data-version bump, right after it (the views mark the type-ahead rows current). */
  readonly afterBump?: (tx: pg.PoolClient, result: R) => Promise<void>;
  /**
   * How many times the runner repeats a failed run that may succeed again (a serialization
   * failure, a deadlock, a dropped connection: see runner.ts `isRetryable`). Only for jobs whose
   * run is one transaction or idempotent. Default 0.
   */
  readonly retries?: number;
  /** Does the work. @throws ExpectedError subclasses for expected failures. */
  readonly perform: (ctx: JobContext, input: I) => Promise<R>;
  /** One line (or a few) describing the result, printed by the runner. */
  readonly report?: (result: R, input: I) => string | null;
}

const NAME = /^[a-z][a-z-]*$/;

/**
 * Declares a job (see {@link Job}).
 * @throws TypeError for a malformed name, an unknown lock name or a negative retry count (a bug).
 */
export function defineJob<I = void, R = void>(job: Job<I, R>): Job<I, R> {
  if (!NAME.test(job.name)) throw new TypeError(`job name "${job.name}" is not lower-case words joined by -`);
  for (const l of job.locks) if (!Object.hasOwn(LOCKS, l)) throw new TypeError(`job ${job.name}: unknown lock "${l}"`);
  if ((job.retries ?? 0) < 0 || !Number.isInteger(job.retries ?? 0)) throw new TypeError(`job ${job.name}: retries must be a whole number`);
  return Object.freeze({ ...job });
}
