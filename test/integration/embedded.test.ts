/**
 * One embedded PostgreSQL per data directory (src/db/embedded.ts): the lock-file parsing as pure
 * functions, then a real embedded server in a fresh directory — started once, attached to by a
 * second opener (whatever port that one asks for), never stopped by it, restarted over a stale
 * postmaster.pid, shared by two openers racing on a stopped directory, a failed start reported in
 * one line naming the cause, and a server killed under its owner leaving a stale lock file.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import {
  connectHost,
  describeFailure,
  embeddedUrl,
  EmbeddedPostgresError,
  findEmbeddedPostgres,
  openEmbeddedPostgres,
  parsePostmasterPid,
  type EmbeddedServer,
} from '../../src/db/embedded.js';

/** A postmaster.pid as PostgreSQL 18 writes it (status padded to a fixed width). */
const SAMPLE = '6947\n/tmp/pgdisc-xwh1\n1795779219\n45123\n/tmp\nlocalhost\n  2147706        14\nready   \n';

describe('parsePostmasterPid', () => {
  it('reads pid, data directory, start time, port, socket directory, listen address and status', () => {
    expect(parsePostmasterPid(SAMPLE)).toEqual({
      pid: 6947,
      dataDir: '/tmp/pgdisc-xwh1',
      startedAt: 1795779219,
      port: 45123,
      socketDir: '/tmp',
      listenAddress: 'localhost',
      status: 'ready',
    });
  });

  it('gives a null status while the postmaster has not written it yet', () => {
    expect(parsePostmasterPid('6947\n/tmp/d\n1795779219\n45123\n')).toMatchObject({ pid: 6947, port: 45123, socketDir: '', listenAddress: '', status: null });
    expect(parsePostmasterPid(SAMPLE.replace('ready   ', 'starting'))?.status).toBe('starting');
  });

  it('gives null for a file without a pid, data directory or port', () => {
    expect(parsePostmasterPid('')).toBeNull();
    expect(parsePostmasterPid('6947\n')).toBeNull();
    expect(parsePostmasterPid('6947\n/tmp/d\n')).toBeNull();
    expect(parsePostmasterPid('-6947\n/tmp/d\n1\n5432\n')).toBeNull(); // single-user backend
    expect(parsePostmasterPid('abc\n/tmp/d\n1\n5432\n')).toBeNull();
    expect(parsePostmasterPid('12\n/tmp/d\n1\n99999\n')).toBeNull();
  });
});

describe('connectHost and embeddedUrl', () => {
  it('maps wildcards and localhost to a loopback address, and falls back to the socket directory', () => {
    expect(connectHost({ listenAddress: 'localhost', socketDir: '/tmp' })).toBe('127.0.0.1');
    expect(connectHost({ listenAddress: '*', socketDir: '/tmp' })).toBe('127.0.0.1');
    expect(connectHost({ listenAddress: '0.0.0.0', socketDir: '' })).toBe('127.0.0.1');
    expect(connectHost({ listenAddress: '::', socketDir: '' })).toBe('::1');
    expect(connectHost({ listenAddress: '10.0.0.5', socketDir: '/tmp' })).toBe('10.0.0.5');
    expect(connectHost({ listenAddress: '', socketDir: '/run/pg' })).toBe('/run/pg');
    expect(connectHost({ listenAddress: '', socketDir: '' })).toBeNull();
  });

  it('writes IPv6 hosts in brackets and socket directories encoded', () => {
    expect(embeddedUrl('127.0.0.1', 54329)).toBe('postgresql://postgres:postgres@127.0.0.1:54329/prices');
    expect(embeddedUrl('::1', 54329, 'postgres')).toBe('postgresql://postgres:postgres@[::1]:54329/postgres');
    expect(embeddedUrl('/tmp', 54329)).toBe('postgresql://postgres:postgres@%2Ftmp:54329/prices');
  });
});

describe('describeFailure', () => {
  it('describes any thrown value in one line, never as a bare "undefined"', () => {
    expect(describeFailure(new Error('boom'))).toBe('boom');
    expect(describeFailure(undefined)).toBe('failed without a reason (undefined was thrown)');
    expect(describeFailure(null)).toBe('failed without a reason (null was thrown)');
    expect(describeFailure('plain')).toBe('plain');
    expect(describeFailure({ code: 'X', detail: 'y' })).toBe("{ code: 'X', detail: 'y' }");
    expect(describeFailure(new Error('Invalid configuration:\n  PORT: too big\n  HOST: empty'))).toBe('Invalid configuration: PORT: too big; HOST: empty');
    const refused = Object.assign(new Error(''), { code: 'ECONNREFUSED' });
    expect(describeFailure(refused)).toBe('ECONNREFUSED');
    expect(describeFailure(new AggregateError([new Error('connect ECONNREFUSED ::1:1'), new Error('connect ECONNREFUSED 127.0.0.1:1')]))).toBe(
      'connect ECONNREFUSED ::1:1; connect ECONNREFUSED 127.0.0.1:1',
    );
  });
});

describe('one embedded PostgreSQL per data directory', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prices-embedded-'));
  const port = 20000 + Math.floor(Math.random() * 12000); // below the ephemeral range (32768–60999)
  const started: EmbeddedServer[] = [];
  const lockPid = () => parsePostmasterPid(fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8'))?.pid;
  const answers = async (url: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n === 1;
    } finally {
      await c.end();
    }
  };

  afterAll(async () => {
    for (const s of started) await s.stop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts a server on a directory without one, and attaches a second opener to it (its port, not the one asked for)', async () => {
    expect(await findEmbeddedPostgres(dir)).toBeNull();
    const owner = await openEmbeddedPostgres(dir, port);
    started.push(owner);
    expect(owner).toMatchObject({ owned: true, port, dir });
    expect(owner.pid).toBe(lockPid());
    expect(await answers(owner.url)).toBe(true);

    const attached = await openEmbeddedPostgres(dir, port + 1);
    expect(attached).toMatchObject({ owned: false, port, pid: owner.pid });
    expect(await answers(attached.url)).toBe(true);
    await attached.stop(); // an attached process never stops the server
    expect(await answers(owner.url)).toBe(true);
    expect(lockPid()).toBe(owner.pid);

    await owner.stop();
    started.length = 0;
    expect(fs.existsSync(path.join(dir, 'postmaster.pid'))).toBe(false);
    expect(await findEmbeddedPostgres(dir)).toBeNull();
  }, 90_000);

  it('starts its own server over a stale postmaster.pid (dead pid)', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!; // exited: its pid names no process
    fs.writeFileSync(path.join(dir, 'postmaster.pid'), SAMPLE.replace('6947', String(dead)).replace('/tmp/pgdisc-xwh1', dir));
    expect(await findEmbeddedPostgres(dir)).toBeNull();
    const s = await openEmbeddedPostgres(dir, port);
    started.push(s);
    expect(s.owned).toBe(true);
    expect(s.pid).not.toBe(dead);
    expect(await answers(s.url)).toBe(true);
    await s.stop();
    started.length = 0;
  }, 60_000);

  it('gives two openers racing on a stopped directory one server', async () => {
    const both = await Promise.all([openEmbeddedPostgres(dir, port), openEmbeddedPostgres(dir, port)]);
    started.push(...both);
    expect(both.map((s) => s.owned).sort()).toEqual([false, true]);
    expect(both[0].pid).toBe(both[1].pid);
    for (const s of both) expect(await answers(s.url)).toBe(true);
    for (const s of both) await s.stop();
    started.length = 0;
  }, 60_000);

  it('says in one line why the server could not start (the port is taken), never "undefined", naming EMBEDDED_PG_PORT; with the port left to it, takes a free one', async () => {
    const blockers = await Promise.all(
      ['127.0.0.1', '::1'].map(
        (host) =>
          new Promise<net.Server | null>((resolve) => {
            const srv = net.createServer();
            srv.once('error', () => resolve(null)); // no IPv6 here: 127.0.0.1 is enough
            srv.listen(port, host, () => resolve(srv));
          }),
      ),
    );
    try {
      const err = await openEmbeddedPostgres(dir, port).then(
        (s) => {
          started.push(s);
          return null;
        },
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EmbeddedPostgresError);
      const message = (err as Error).message;
      expect(message).toContain(`embedded PostgreSQL could not start in ${dir} on port ${port}: `);
      expect(message).toMatch(/could not (bind|create)/);
      expect(message).not.toContain('undefined');
      expect(message).not.toContain('\n');
      expect(message).toContain('set EMBEDDED_PG_PORT to a free port');

      // A port the user did not choose (EMBEDDED_PG_PORT unset): a free one instead, found by others through postmaster.pid.
      const s = await openEmbeddedPostgres(dir, port, { anyFreePort: true });
      started.push(s);
      expect(s.owned).toBe(true);
      expect(s.port).not.toBe(port);
      expect(await answers(s.url)).toBe(true);
      expect((await findEmbeddedPostgres(dir))?.port).toBe(s.port);
      await s.stop();
      started.length = 0;
    } finally {
      for (const b of blockers) await new Promise((r) => (b ? b.close(r) : r(null)));
    }
  }, 60_000);

  it('stops (resolves) even when its server has died meanwhile', async () => {
    const s = await openEmbeddedPostgres(dir, port);
    started.push(s);
    process.kill(s.pid, 'SIGKILL');
    while (fs.existsSync(`/proc/${s.pid}`) && !fs.readFileSync(`/proc/${s.pid}/stat`, 'utf8').includes(') Z')) await new Promise((r) => setTimeout(r, 50));
    await s.stop();
    started.length = 0;
    expect(await findEmbeddedPostgres(dir)).toBeNull(); // a stale postmaster.pid: the next opener starts its own
  }, 60_000);
});
