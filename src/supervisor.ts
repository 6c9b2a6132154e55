/**
 * The API process's supervisor of the worker process (issue 27: "npm start starts the API and a
 * worker process … killing the worker leaves the API serving and the worker is restarted or
 * reported"). The API never runs a job and imports nothing from workers/: it starts
 * `workers/cli.ts start` as a child process (by path, with the same Node flags, so tsx loads it),
 * over an IPC channel on which the worker reports each job's start and end.
 *
 * A worker that exits with 0 (nothing scheduled) is left alone; one that dies otherwise (a crash,
 * a kill) is logged and started again after a backoff of 1 s, doubled each time up to 60 s, and
 * reset once a worker has run for ten minutes. The API goes on serving throughout. {@link
 * WorkerSupervisor.stop} sends SIGTERM (SIGKILL after `stopTimeoutMs`). A worker whose API
 * process is gone sees its IPC channel close and stops.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The worker's entry point, by path (not imported). */
export const WORKER_ENTRY = fileURLToPath(new URL('../workers/cli.ts', import.meta.url));

/** What the supervisor knows about the worker process. */
export interface WorkerState {
  /** `starting`/`running`: a worker process exists; `restarting`: waiting out a backoff; `finished`: exited 0; `stopped`: stop() called. */
  state: 'starting' | 'running' | 'restarting' | 'finished' | 'stopped';
  /** The running worker's process id, or null. */
  pid: number | null;
  /** Worker processes started after a death. */
  restarts: number;
  /** The last job event the worker reported (`index done`), or null. */
  lastJob: string | null;
  /** Whether start-up (import or refresh) has finished in the current worker. */
  ready: boolean;
}

/** A log with pino's shape (the part used here). */
export interface SupervisorLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Options of {@link superviseWorker}. */
export interface SupervisorOptions {
  log: SupervisorLog;
  /** Environment of the worker (default this process's). */
  env?: NodeJS.ProcessEnv;
  /** Worker command-line arguments (default `['start']`). */
  args?: string[];
  /** First restart delay, milliseconds (default 1,000). */
  backoffMs?: number;
  /** Longest restart delay, milliseconds (default 60,000). */
  maxBackoffMs?: number;
  /** Milliseconds stop() waits after SIGTERM before SIGKILL (default 30,000). */
  stopTimeoutMs?: number;
}

/** A supervised worker process. */
export interface WorkerSupervisor {
  /** The current state (a copy). */
  state(): WorkerState;
  /** Stops the worker (SIGTERM, then SIGKILL after the timeout) and does not restart it. */
  stop(): Promise<void>;
}

/** Starts the worker process and supervises it (see the module comment). */
export function superviseWorker(opts: SupervisorOptions): WorkerSupervisor {
  const st: WorkerState = { state: 'starting', pid: null, restarts: 0, lastJob: null, ready: false };
  const base = opts.backoffMs ?? 1000;
  const max = opts.maxBackoffMs ?? 60_000;
  let delay = base;
  let child: ChildProcess | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopping = false;

  const start = () => {
    timer = null;
    const startedAt = Date.now();
    st.state = 'starting';
    st.ready = false;
    const c = fork(WORKER_ENTRY, opts.args ?? ['start'], { env: opts.env ?? process.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child = c;
    st.pid = c.pid ?? null;
    opts.log.info({ workerPid: st.pid }, 'worker process started');
    c.on('message', (m: unknown) => {
      const msg = m as { type?: string; kind?: string; job?: string; seconds?: number; error?: string; bumped?: number | null } | null;
      if (msg?.type === 'job' && typeof msg.job === 'string') {
        st.state = 'running';
        st.lastJob = `${msg.job} ${msg.kind}`;
        // The worker's job events in the API's log: each start, retry, end and failure.
        const fields = { workerPid: st.pid, job: msg.job, seconds: msg.seconds, dataVersion: msg.bumped ?? undefined, error: msg.error };
        if (msg.kind === 'failed' || msg.kind === 'retry') opts.log.warn(fields, `worker job ${msg.kind}`);
        else opts.log.info(fields, `worker job ${msg.kind}`);
      } else if (msg?.type === 'ready') {
        st.state = 'running';
        st.ready = true;
        opts.log.info({ workerPid: st.pid }, 'worker process: start-up finished');
      }
    });
    c.on('error', (e) => opts.log.error({ err: e.message }, 'worker process could not be started'));
    c.on('exit', (code, signal) => {
      child = null;
      st.pid = null;
      if (stopping) return;
      if (code === 0) {
        st.state = 'finished';
        opts.log.info({ code }, 'worker process finished (nothing scheduled)');
        return;
      }
      if (Date.now() - startedAt > 10 * 60_000) delay = base;
      st.state = 'restarting';
      opts.log.warn({ code, signal, restartInSeconds: delay / 1000, restarts: st.restarts + 1 }, 'worker process died; the API goes on serving; restarting it');
      timer = setTimeout(() => {
        st.restarts++;
        start();
      }, delay);
      timer.unref();
      delay = Math.min(delay * 2, max);
    });
  };
  start();

  return {
    state: () => ({ ...st }),
    stop: async () => {
      stopping = true;
      st.state = 'stopped';
      if (timer) clearTimeout(timer);
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
      c.kill('SIGTERM');
      const t = setTimeout(() => c.kill('SIGKILL'), opts.stopTimeoutMs ?? 30_000);
      await exited;
      clearTimeout(t);
    },
  };
}
