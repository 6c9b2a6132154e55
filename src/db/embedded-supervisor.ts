/**
 * Supervision of the embedded PostgreSQL by the process that serves from it (issue 29: "after the
 * embedded PostgreSQL is killed, the service answers 503 for as long as it runs"). The API process
 * (src/main.ts, through src/db/database.ts `supervise`) checks every half second that the
 * postmaster it uses still runs (its pid, from `postmaster.pid`). When it is gone — killed, crashed,
 * or stopped with the process that started it — the supervisor starts the server of the same data
 * directory again on the same port (`openEmbeddedPostgres`: it attaches instead when another
 * process has started one meanwhile), so every pool of every process (the API's, the worker's)
 * reconnects to the same URL by itself. A failed start (orphaned backends still holding the shared
 * memory, the port taken) is logged and tried again after 1 s, doubled each time up to 30 s; the
 * backoff restarts at 1 s after a success. PostgreSQL replays its WAL on the way up (crash
 * recovery), so nothing committed is lost.
 *
 * A server that is alive but does not answer (stopped with SIGSTOP, overloaded) is not restarted:
 * the pools' time bounds (src/db/database.ts) turn that into 503s until it answers again.
 */
import { describeFailure, openEmbeddedPostgres, pidAlive, type EmbeddedServer } from './embedded.js';

/** The state of the database a process serves from, as /healthz reports it. */
export interface DatabaseState {
  /** `embedded`: the embedded PostgreSQL of EMBEDDED_PG_DIR; `external`: DATABASE_URL. */
  kind: 'embedded' | 'external';
  /**
   * `up`: the server process runs (whether it answers is /healthz's own check); `restarting`: the
   * embedded server is gone and being started again. Always `up` for an external database (this
   * process cannot see its server).
   */
  state: 'up' | 'restarting';
  /** Times the embedded server was started again by this process (0 for external). */
  restarts: number;
}

/** A log with pino's shape (the part used here). */
export interface EmbeddedSupervisorLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Options of {@link superviseEmbedded}. */
export interface EmbeddedSupervisorOptions {
  /** The server in use now. */
  server: EmbeddedServer;
  /** Extra server arguments for a server started again (as given to the first start). */
  postgresFlags?: string[];
  /** Called with the server in use after each start (to point pools at its URL should it differ). */
  onRestart?: (server: EmbeddedServer) => void;
  log?: EmbeddedSupervisorLog;
  /** Milliseconds between checks of the postmaster (default 500). */
  checkMs?: number;
  /** First delay before a start is tried again after a failed one, ms (default 1,000). */
  backoffMs?: number;
  /** Longest such delay, ms (default 30,000). */
  maxBackoffMs?: number;
}

/** A supervised embedded server. */
export interface EmbeddedSupervisor {
  /** The current state (a copy). */
  state(): DatabaseState;
  /** The server in use (the last one started or attached to). */
  server(): EmbeddedServer;
  /** Stops supervising (does not stop the server) and waits for a start under way to finish. */
  stop(): Promise<void>;
}

/**
 * How long one start of the server may take (crash recovery included) before it counts as failed
 * and is tried again: a server that comes up later is found and attached to by the next attempt.
 */
const START_TIMEOUT_MS = 60_000;

/** `promise`, or a rejection saying `what` after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error(what)), ms);
    t.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(t));
}

/** Supervises `opts.server` (see the module comment); the first check runs after `checkMs`. */
export function superviseEmbedded(opts: EmbeddedSupervisorOptions): EmbeddedSupervisor {
  const checkMs = opts.checkMs ?? 500;
  const base = opts.backoffMs ?? 1000;
  const max = opts.maxBackoffMs ?? 30_000;
  let current = opts.server;
  let restarts = 0;
  let restarting = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let wake: (() => void) | null = null;

  /** Waits `ms` (or until stop()). */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      t.unref();
      function done() {
        clearTimeout(t);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = tick();
    }, ms);
    timer.unref();
  };

  /** Starts the server again until it runs (or supervision stops), with backoff between failures. */
  const restart = async (): Promise<void> => {
    const gone = current;
    const since = Date.now();
    restarting = true;
    opts.log?.warn({ postmasterPid: gone.pid, port: gone.port, dir: gone.dir }, 'embedded PostgreSQL is gone; starting it again');
    // An owned server's handle: nothing is left to stop (embedded.ts stop() checks the pid).
    await gone.stop().catch(() => {});
    let delay = base;
    for (let attempt = 1; !stopped; attempt++) {
      try {
        // The same port, not any free one: the pools of this process and of the worker keep their URL.
        const next = await withTimeout(
          openEmbeddedPostgres(gone.dir, gone.port, { waitMs: 5_000, postgresFlags: opts.postgresFlags }),
          START_TIMEOUT_MS,
          `the server did not report ready within ${START_TIMEOUT_MS / 1000} s`,
        );
        if (stopped) {
          await next.stop().catch(() => {});
          return;
        }
        current = next;
        restarts++;
        restarting = false;
        opts.onRestart?.(next);
        opts.log?.info(
          { postmasterPid: next.pid, port: next.port, owned: next.owned, restarts, attempts: attempt, seconds: (Date.now() - since) / 1000 },
          next.owned ? 'embedded PostgreSQL started again' : 'embedded PostgreSQL started again by another process: attached to it',
        );
        return;
      } catch (e) {
        opts.log?.warn({ attempt, err: describeFailure(e), retryInSeconds: delay / 1000 }, 'embedded PostgreSQL could not be started again; retrying');
        await sleep(delay);
        delay = Math.min(delay * 2, max);
      }
    }
  };

  const tick = async (): Promise<void> => {
    if (stopped) return;
    if (!pidAlive(current.pid)) await restart();
    schedule(checkMs);
  };

  schedule(checkMs);

  return {
    state: () => ({ kind: 'embedded', state: restarting ? 'restarting' : 'up', restarts }),
    server: () => current,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      wake?.();
      // A start under way stops the server it brings up once it sees `stopped`; wait a little for it.
      await Promise.race([running, new Promise<void>((resolve) => setTimeout(resolve, 5_000).unref())]);
    },
  };
}
