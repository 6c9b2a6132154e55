/**
 * What is still being computed (issue 28 item 3), on a real PostgreSQL: the runner writes the job
 * log (workers/jobs/record.ts) — a pipeline's stages queued from its start, each running then
 * finished or failed, the stages it did not need taken off — and the status
 * (src/services/job-runs.ts through get_data_status) reads it: `computing` lists what is queued or
 * running, a row whose writer's session went away reads `interrupted` (the session is ended with
 * pg_terminate_backend, as a killed worker's would be), a failure shows its public message only.
 * GET /api/v1/status follows the log without a data version bump (never cached).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { readDataVersion } from '../../src/db/data-version.js';
import { loadEnv } from '../../src/env.js';
import { ExpectedError } from '../../src/errors.js';
import { readJobRuns } from '../../src/services/job-runs.js';
import { defineJob } from '../../workers/jobs/job.js';
import { plannedStages, runPipeline, type PipelinePlan } from '../../workers/jobs/pipeline.js';
import { JobLog } from '../../workers/jobs/record.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { FIXTURES_DIR, insertFixtureStores } from '../helpers/fixtures.js';
import { testRunner } from '../helpers/jobs.js';
import path from 'node:path';

let db: TestDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase('job_log');
  await insertFixtureStores(db.pool);
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

/** A job of the given name whose perform calls `during` (to look at the log while it runs). */
const probeJob = (name: string, during: () => Promise<void>) => defineJob({ name, locks: [], perform: during });

const jobOf = (s: Awaited<ReturnType<typeof readJobRuns>>, job: string) => s.jobs.find((j) => j.job === job);

describe('the job log', () => {
  it('queues a pipeline\'s stages at its start, marks each running then finished, and takes off the stages it did not run', async () => {
    const runner = testRunner(db.pool);
    const seen: Awaited<ReturnType<typeof readJobRuns>>[] = [];
    await runner.withPlan(['match', 'basket-match', 'index'], async (plan) => {
      seen.push(await readJobRuns(db.pool));
      await runner.run(probeJob('match', async () => void seen.push(await readJobRuns(db.pool))), undefined, plan);
      await runner.run(probeJob('basket-match', async () => {}), undefined, plan);
      seen.push(await readJobRuns(db.pool));
      // `index` is never run: the plan found it unneeded.
    });
    const after = await readJobRuns(db.pool);

    expect(seen[0].computing).toEqual(['match', 'basket-match', 'index']);
    expect(jobOf(seen[0], 'match')).toMatchObject({ state: 'queued', started_at: null, finished_at: null, seconds: null });
    expect(seen[1].computing).toEqual(['match', 'basket-match', 'index']);
    expect(jobOf(seen[1], 'match')).toMatchObject({ state: 'running', finished_at: null });
    expect(jobOf(seen[1], 'match')!.started_at).toBeInstanceOf(Date);
    expect(seen[2].computing).toEqual(['index']);
    expect(jobOf(seen[2], 'match')).toMatchObject({ state: 'finished', changed: null, error: null });
    expect(jobOf(seen[2], 'match')!.seconds).toBeGreaterThanOrEqual(0);

    expect(after.computing).toEqual([]);
    expect(jobOf(after, 'index')).toBeUndefined();
    expect(after.jobs.map((j) => `${j.job} ${j.state}`)).toEqual(['basket-match finished', 'match finished']);
  });

  it('records a failure: an expected one with its message, anything else with a generic line (no database text)', async () => {
    const runner = testRunner(db.pool);
    const expected = defineJob({ name: 'probe-expected', locks: [], perform: async () => { throw new ExpectedError('the data folder is missing'); } });
    const internal = defineJob({ name: 'probe-internal', locks: [], perform: async () => { throw new Error('relation "secret_table" does not exist'); } });
    await expect(runner.run(expected, undefined)).rejects.toThrow('the data folder is missing');
    await expect(runner.run(internal, undefined)).rejects.toThrow('secret_table');
    const s = await readJobRuns(db.pool);
    expect(jobOf(s, 'probe-expected')).toMatchObject({ state: 'failed', error: 'the data folder is missing' });
    expect(jobOf(s, 'probe-internal')).toMatchObject({ state: 'failed' });
    expect(jobOf(s, 'probe-internal')!.error).not.toMatch(/secret_table/);
    expect(s.computing).toEqual([]);
  });

  it('reads a queued or running row as interrupted once its writer\'s session is gone, and not as computing', async () => {
    const log = (await JobLog.open(db.pool, () => {}))!;
    expect(log).not.toBeNull();
    await log.queue(['probe-views', 'probe-export']);
    await log.start('probe-views');
    expect((await readJobRuns(db.pool)).computing).toEqual(['probe-views', 'probe-export']);
    // The worker dies: its sessions end with it.
    const { rowCount } = await db.pool.query(
      `SELECT pg_terminate_backend(backend_pid) FROM job_run WHERE job IN ('probe-views', 'probe-export') GROUP BY backend_pid`,
    );
    expect(rowCount).toBe(1);
    let s = await readJobRuns(db.pool);
    for (let i = 0; i < 50 && s.computing.length; i++) {
      await new Promise((r) => setTimeout(r, 100)); // the terminated backend leaves pg_stat_activity a moment later
      s = await readJobRuns(db.pool);
    }
    expect(s.computing).toEqual([]);
    expect(jobOf(s, 'probe-views')).toMatchObject({ state: 'interrupted', finished_at: null });
    expect(jobOf(s, 'probe-export')).toMatchObject({ state: 'interrupted', started_at: null });
    // Writes after the connection died give up quietly: closing the log does not throw.
    await log.end('1', 'finished', null);
    await log.close();
  });

  it('plans every stage the pipeline runs, in the same order (ingest, and the refresh the schedule runs)', async () => {
    const runner = testRunner(db.pool);
    const plans: PipelinePlan[] = [
      { source: { kind: 'ingest', input: { files: [path.join(FIXTURES_DIR, 'paknsave-2026-08-03.csv')], mode: 'snapshot', afterGap: false } } },
      { source: { kind: 'none' } },
      // The same day again merges nothing: 'if-new-data' stages are planned, then taken off.
      { source: { kind: 'ingest', input: { files: [path.join(FIXTURES_DIR, 'paknsave-2026-08-03.csv')], mode: 'snapshot', afterGap: false } }, match: 'if-new-data', refresh: 'if-new-data' },
    ];
    const ran: string[][] = [];
    for (const plan of plans) {
      const planned = plannedStages(plan, runner.ctx.env);
      const r = await runPipeline(runner, plan);
      ran.push(r.stages);
      expect(planned.filter((s) => r.stages.includes(s)), `planned ${planned.join(',')}`).toEqual(r.stages);
      expect((await readJobRuns(db.pool)).computing).toEqual([]);
    }
    expect(ran).toEqual([
      ['ingest', 'match', 'basket-match', 'index', 'views'],
      ['basket-match', 'index', 'views'],
      ['ingest'],
    ]);
    const s = await readJobRuns(db.pool);
    for (const job of ['ingest', 'match', 'basket-match', 'index', 'views']) expect(jobOf(s, job)?.state, job).toBe('finished');
    // The newest ingest (the day again) merged nothing: no change recorded; the first one's was.
    expect(jobOf(s, 'ingest')!.changed).toBeNull();
    const { rows } = await db.pool.query<{ changed: string | null }>(`SELECT changed FROM job_run WHERE job = 'ingest' ORDER BY id`);
    expect(rows[0].changed).toMatch(/ingest/);
  }, 120_000);
});

describe('GET /api/v1/status computing and jobs', () => {
  it('follows the job log at once, without a data version bump (the answer is never cached)', async () => {
    const v0 = (await readDataVersion(db.pool)).version;
    const before = await app.inject({ url: '/api/v1/status' });
    expect(before.statusCode).toBe(200);
    expect(before.json().computing).toEqual([]);
    const log = (await JobLog.open(db.pool, () => {}))!;
    try {
      await log.queue(['probe-index']);
      const during = await app.inject({ url: '/api/v1/status' });
      expect(during.json().computing).toEqual(['probe-index']);
      expect(during.json().jobs.find((j: { job: string }) => j.job === 'probe-index')).toMatchObject({ state: 'queued', started_at: null });
      const gql = await app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        payload: { query: '{ dataStatus { computing jobs { job state } } }' },
      });
      expect(gql.json().data.dataStatus.computing).toEqual(['probe-index']);
      expect(gql.json().data.dataStatus.jobs).toContainEqual({ job: 'probe-index', state: 'queued' });
    } finally {
      await log.close();
    }
    expect((await app.inject({ url: '/api/v1/status' })).json().computing).toEqual([]);
    expect((await readDataVersion(db.pool)).version).toBe(v0);
  });
});
