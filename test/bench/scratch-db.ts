/**
 * Scratch databases of the benches (test/bench/search.ts, levels.ts): a detached watchdog process that
 * drops database `name` on the server at `adminUrl` once this process is gone, however it ends — tsx
 * answers a Ctrl-C that a busy bench does not acknowledge within 30 ms with SIGKILL, which no signal
 * handler survives. On the benches' throwaway server (test/bench/server.ts), which goes away with the
 * bench too, the DROP finds the server still up or fails at once; either way the watchdog ends (the
 * connection and the statement are given 10 s and 30 s at most, so it never hangs).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/** Starts the watchdog for database `name` (a plain identifier: checked by the caller). */
export function dropWhenGone(adminUrl: string, name: string): void {
  const script = `
    const pg = require(${JSON.stringify(createRequire(import.meta.url).resolve('pg'))});
    const [url, name, pid] = process.argv.slice(1);
    const alive = () => { try { process.kill(Number(pid), 0); return true; } catch { return false; } };
    const timer = setInterval(async () => {
      if (alive()) return;
      clearInterval(timer);
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10000, query_timeout: 30000 });
      try { await c.connect(); await c.query('DROP DATABASE IF EXISTS ' + name + ' WITH (FORCE)'); } catch {} finally { await c.end().catch(() => {}); }
    }, 500);`;
  spawn(process.execPath, ['-e', script, adminUrl, name, String(process.pid)], { detached: true, stdio: 'ignore' }).unref();
}
