/**
 * The Redis the tests use (issue 28): the server TEST_REDIS_URL names, else a `redis-server` this
 * helper starts on a free loopback port (Debian's package; `.ci/run` installs it) with nothing
 * kept on disk, stopped when the test file ends; else none, and the caller skips its Redis tests
 * after one line saying why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/db/embedded.js';

/** A Redis for one test file. */
export interface TestRedis {
  url: string;
  /** Stops a server this helper started; nothing for TEST_REDIS_URL's. */
  stop(): Promise<void>;
}

/** The `redis-server` on PATH (or Debian's /usr/bin one), or null. */
function redisServerBinary(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin', '/usr/sbin'];
  for (const d of dirs) {
    const p = path.join(d, 'redis-server');
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Resolves with TEST_REDIS_URL's server, a started one, or null (after printing why) when there is
 * neither a URL nor a `redis-server` binary.
 * @throws Error when a started server does not answer PING within 10 s.
 */
export async function startTestRedis(what: string): Promise<TestRedis | null> {
  if (process.env.TEST_REDIS_URL) return { url: process.env.TEST_REDIS_URL, stop: async () => {} };
  const bin = redisServerBinary();
  if (!bin) {
    console.log(`${what}: skipped — no redis-server on this machine (apt-get install redis-server, or set TEST_REDIS_URL)`);
    return null;
  }
  const port = await freePort();
  const child: ChildProcess = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    const ok = await probe.connect().then(() => probe.ping()).then((r) => r === 'PONG', () => false);
    probe.disconnect();
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server (${bin}) did not answer on port ${port} within 10 s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
