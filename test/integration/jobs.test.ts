/**
 * The job model and the one runner (issue 27 item 1), on a real PostgreSQL: the runner moves the
 * data version once after a job that changed something and never for one that did not, retries
 * only what may succeed again, bumps after a failed job that commits as it goes; the one pipeline
 * runs for the command line (the real `workers/cli.ts ingest`, spawned), the schedule (an entry
 * run as its cron tick would) and start-up, each through the runner. And the lock registry holds
 * every advisory lock of the tree.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { FIXTURES_DIR, insertFixtureStores } from '../helpers/fixtures.js';
import { loadEnv, ROOT_DIR } from '../../src/env.js';
import { readDataVersion } from '../../src/db/data-version.js';
import { LOCKS } from '../../src/db/locks.js';
import { ExpectedError } from '../../src/errors.js';
import { defineJob } from '../../workers/jobs/job.js';
import { JobRunner, type JobEvent } from '../../workers/jobs/runner.js';
import { scheduleEntries, startSchedule } from '../../workers/jobs/schedule.js';
import { startup } from '../../workers/jobs/startup.js';
import * as catalog from '../../workers/jobs/catalog.js';

let db: TestDatabase;
const lines: string[] = [];

function runnerFor(env: Record<string, string> = {}) {
  const events: JobEvent[] = [];
  const runner = new JobRunner(
    { pool: db.pool, env: loadEnv({ ...process.env, DATABASE_URL: db.url, ELASTICSEARCH_URL: '', ...env } as NodeJS.ProcessEnv), progress: false, log: (l) => lines.push(l) },
    { onEvent: (e) => events.push(e), retryDelayMs: 1 },
  );
  return { runner, events, jobs: () => events.filter((e) => e.kind === 'done' || e.kind === 'failed').map((e) => `${e.job} ${e.kind}`) };
}

const version = async () => (await readDataVersion(db.pool)).version;

beforeAll(async () => {
  db = await createTestDatabase('jobs');
  await insertFixtureStores(db.pool);
});

afterAll(async () => {
  await db?.drop();
});

describe('the runner', () => {
  it('moves the data version once after a job whose result changed something, never otherwise', async () => {
    const { runner, events } = runnerFor();
    const changing = defineJob<number, number>({ name: 'changing', locks: [], perform: async (_c, n) => n, changed: (n) => (n > 0 ? `changing ${n}` : null) });
    const v0 = await version();
    expect(await runner.run(changing, 0)).toBe(0);
    expect(await version()).toBe(v0);
    await runner.run(changing, 2);
    expect(await version()).toBe(v0 + 1);
    expect((await readDataVersion(db.pool)).what).toBe('changing 2');
    expect(events.filter((e) => e.kind === 'done').map((e) => (e as { bumped: number | null }).bumped)).toEqual([null, v0 + 1]);
  });

  it('retries a retryable failure up to the job\'s retries, and never an expected one', async () => {
    const { runner, events } = runnerFor();
    let calls = 0;
    const flaky = defineJob<void, string>({
      name: 'flaky', locks: [], retries: 2,
      perform: async () => {
        calls++;
        if (calls < 3) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        return 'ok';
      },
    });
    expect(await runner.run(flaky, undefined)).toBe('ok');
    expect(calls).toBe(3);
    expect(events.filter((e) => e.kind === 'retry')).toHaveLength(2);

    let bad = 0;
    const refused = defineJob<void, void>({ name: 'refused', locks: [], retries: 5, perform: async () => { bad++; throw new ExpectedError('bad input'); } });
    await expect(runner.run(refused, undefined)).rejects.toThrow('bad input');
    expect(bad).toBe(1);
  });

  it('moves the data version after a failed job that commits as it goes, and not after one that does not', async () => {
    const { runner } = runnerFor();
    const v0 = await version();
    const atomic = defineJob<void, void>({ name: 'atomic', locks: [], changed: () => 'atomic', perform: async () => { throw new Error('boom'); } });
    await expect(runner.run(atomic, undefined)).rejects.toThrow('boom');
    expect(await version()).toBe(v0);
    const partial = defineJob<void, void>({ name: 'partial', locks: [], commitsAsItGoes: true, perform: async () => { throw new Error('half way'); } });
    await expect(runner.run(partial, undefined)).rejects.toThrow('half way');
    expect(await version()).toBe(v0 + 1);
    expect((await readDataVersion(db.pool)).what).toBe('partial (failed)');
  });

  it('refuses a job naming a lock the registry does not have', () => {
    expect(() => defineJob({ name: 'x', locks: ['nope' as never], perform: async () => {} })).toThrow(/unknown lock/);
    expect(() => defineJob({ name: 'Bad Name', locks: [], perform: async () => {} })).toThrow(/job name/);
  });
});

describe('the one pipeline, for each entry point', () => {
  it('the command line: `worker -- ingest` runs ingest, matching, basket matching, the index and the views, each moving the version once', async () => {
    const v0 = await version();
    const r = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const p = spawn(path.join(ROOT_DIR, 'node_modules/.bin/tsx'), ['workers/cli.ts', 'ingest', path.join(FIXTURES_DIR, 'paknsave-2026-08-03.csv')], {
        cwd: ROOT_DIR, env: { ...process.env, DATABASE_URL: db.url, ELASTICSEARCH_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (out += d));
      p.once('error', reject);
      p.once('close', (code) => resolve({ code, out }));
    });
    expect(r.code, r.out).toBe(0);
    const order = ['paknsave-2026-08-03.csv', 'matching: ', 'basket matching: ', 'index: ', 'views (data version'].map((s) => r.out.indexOf(s));
    expect(order.every((i) => i >= 0), r.out).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // ingest, matching and the views changed what the API serves (the basket and index may not, on one day of fixtures).
    const { rows } = await db.pool.query<{ v: number }>('SELECT version AS v FROM data_version');
    expect(rows[0].v).toBeGreaterThanOrEqual(v0 + 3);
  }, 120_000);

  it('the schedule: an INDEX_CRON tick runs basket matching, the index and the views through the runner', async () => {
    const { runner, jobs } = runnerFor({ INDEX_CRON: '*/10 * * * *', EXPORT_CRON: 'off', COLLECT_CRON: 'off' });
    const entries = scheduleEntries(runner.ctx.env);
    expect(entries.map((e) => e.name)).toEqual(['index']);
    const schedule = startSchedule(runner, entries);
    try {
      await schedule.runNow('index');
    } finally {
      await schedule.stop();
    }
    expect(jobs()).toEqual(['basket-match done', 'index done', 'views done']);
  }, 120_000);

  it('start-up (after the command line test ingested a day): a database with data gets the refresh pipeline; an empty one with no data folder is served empty, saying why', async () => {
    const withData = runnerFor({ IMPORT_ON_START: 'true' });
    const r = await startup(withData.runner);
    expect(r?.stages).toEqual(['basket-match', 'index', 'views']);
    expect(withData.jobs()).toEqual(['basket-match done', 'index done', 'views done']);

    const empty = await createTestDatabase('jobs_empty');
    try {
      const events: JobEvent[] = [];
      const logged: string[] = [];
      const runner = new JobRunner(
        { pool: empty.pool, env: loadEnv({ ...process.env, DATABASE_URL: empty.url, DATA_DIR: '/nonexistent/data', ELASTICSEARCH_URL: '' } as NodeJS.ProcessEnv), progress: false, log: (l) => logged.push(l) },
        { onEvent: (e) => events.push(e) },
      );
      expect(await startup(runner)).toBeNull();
      expect(events.map((e) => `${e.job} ${e.kind}`)).toEqual(['import start', 'import failed']);
      expect(logged.join('\n')).toMatch(/serving without data/);
    } finally {
      await empty.drop();
    }
  }, 120_000);
});

describe('the lock registry', () => {
  it('gives every lock its own key within its key space', () => {
    for (const kind of ['single', 'class'] as const) {
      const keys = Object.values(LOCKS).filter((l) => l.kind === kind).map((l) => l.key);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('is the only place in the tree that takes an advisory lock, and every job names registered locks', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (e.name !== 'generated' && e.name !== 'node_modules') walk(p);
        } else if (e.name.endsWith('.ts') && /pg_(try_)?advisory/.test(fs.readFileSync(p, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))) {
          offenders.push(path.relative(ROOT_DIR, p));
        }
      }
    };
    for (const d of ['src', 'workers', 'facades']) walk(path.join(ROOT_DIR, d));
    expect(offenders).toEqual(['src/db/locks.ts']);
    for (const job of Object.values(catalog)) {
      if (typeof job === 'object' && job && 'perform' in job) for (const l of job.locks) expect(Object.hasOwn(LOCKS, l)).toBe(true);
    }
  });
});
