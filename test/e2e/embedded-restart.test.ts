/**
 * A supervised embedded database (issue 29 #4), end to end: the real service (`src/main.ts`, as
 * `npm start` runs it, without the worker) on a fresh embedded PostgreSQL. Its postmaster is killed
 * (SIGKILL) twice; each time the service starts its database again by itself, on the same port,
 * and serves again (/healthz 200, REST 200) within 15 s — the figure asked for — without a restart
 * of the service; /healthz's `Database-State` header counts the restarts, and the log says what
 * happened. Stopping the service then stops the database it started (no orphaned postmaster).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostmasterPid, pidAlive } from '../../src/db/embedded.js';

const ROOT = new URL('../../', import.meta.url).pathname;
// Below the kernel's ephemeral range (32768–60999 here), so an outgoing connection cannot hold it.
const PORT = 20000 + 2 * Math.floor(Math.random() * 6000);
const PG_PORT = PORT + 1;
const BASE = `http://127.0.0.1:${PORT}`;
/** The behaviour asked for: serving again within 15 s of the kill. */
const SERVE_AGAIN_WITHIN_MS = 15_000;

let child: ChildProcess;
let pgDir: string;
let output = '';

/** The postmaster recorded in the data directory's lock file, or null. */
function postmaster(): { pid: number; port: number } | null {
  const file = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(file)) return null;
  const info = parsePostmasterPid(fs.readFileSync(file, 'utf8'));
  return info && { pid: info.pid, port: info.port };
}

async function health(): Promise<{ status: number; state: string | null; body: string } | null> {
  try {
    const r = await fetch(`${BASE}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return { status: r.status, state: r.headers.get('database-state'), body: await r.text() };
  } catch {
    return null;
  }
}

beforeAll(async () => {
  pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prices-e2e-restart-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    HOST: '127.0.0.1',
    EMBEDDED_PG_DIR: pgDir,
    EMBEDDED_PG_PORT: String(PG_PORT),
    START_WORKER: 'false',
    LOG_LEVEL: 'info',
  };
  delete env.DATABASE_URL;
  child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const t0 = Date.now();
  while ((await health())?.status !== 200) {
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode}:\n${output}`);
    if (Date.now() - t0 > 150_000) throw new Error(`service not up after 150 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, 180_000);

afterAll(async () => {
  const pm = postmaster();
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  // The service stopped the database it had started again: no postmaster is left behind.
  if (pm) {
    for (let i = 0; i < 50 && pidAlive(pm.pid); i++) await new Promise((r) => setTimeout(r, 100));
    const alive = pidAlive(pm.pid);
    if (alive) process.kill(pm.pid, 'SIGQUIT');
    expect(alive, `postmaster ${pm.pid} still runs after the service stopped`).toBe(false);
  }
  fs.rmSync(pgDir, { recursive: true, force: true });
});

describe('the embedded database killed under a running service', () => {
  it('is started again by the service, which serves again within 15 s, twice over; /healthz counts the restarts', async () => {
    const first = await health();
    expect(first?.state).toBe('embedded; state=up; restarts=0');

    for (const round of [1, 2]) {
      const before = postmaster();
      expect(before, 'postmaster.pid').not.toBeNull();
      process.kill(before!.pid, 'SIGKILL');
      const t0 = Date.now();
      const seen: string[] = [];
      let last: Awaited<ReturnType<typeof health>> = null;
      for (;;) {
        last = await health();
        seen.push(last ? `${last.status} ${last.state}` : 'no answer');
        if (last?.status === 200 && last.state === `embedded; state=up; restarts=${round}`) break;
        expect(child.exitCode, output).toBeNull();
        expect(Date.now() - t0, `round ${round}: not serving again after ${Date.now() - t0} ms; /healthz said ${[...new Set(seen)].join(', ')}\n${output.slice(-4000)}`).toBeLessThan(SERVE_AGAIN_WITHIN_MS);
        await new Promise((r) => setTimeout(r, 100));
      }
      const ms = Date.now() - t0;
      console.log(`embedded PostgreSQL killed (round ${round}): serving again after ${ms} ms; /healthz said ${[...new Set(seen)].join(', ')}`);
      // Every answer meanwhile was a 200 or a 503 (never a 500, never a hang past the fetch's 5 s).
      for (const s of seen) expect(s).toMatch(/^(200|503) /);

      const after = postmaster();
      expect(after?.pid).not.toBe(before!.pid);
      expect(after?.port).toBe(PG_PORT);
      const r = await fetch(`${BASE}/api/v1/retailers`);
      expect(r.status).toBe(200);
    }
    expect(output).toMatch(/"msg":"embedded PostgreSQL is gone; starting it again"/);
    expect(output.match(/"msg":"embedded PostgreSQL started again"/g)?.length).toBe(2);
  });
});
