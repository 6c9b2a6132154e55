/**
 * Jobs in tests run as the worker process runs them: through the one runner
 * (workers/jobs/runner.ts), so the data version moves exactly as in production (once after a job
 * that changed what the API serves). Calling a job's module directly skips that bump.
 */
import type pg from 'pg';
import { loadEnv } from '../../src/env.js';
import type { IngestResult } from '../../workers/ingest/ingest.js';
import type { RawRecord } from '../../workers/ingest/format.js';
import type { CollectionMode } from '../../src/domain/spans.js';
import type { Job } from '../../workers/jobs/job.js';
import { JobRunner } from '../../workers/jobs/runner.js';
import { ingestJob } from '../../workers/jobs/catalog.js';

/** A runner over `pool` with the test environment (no Elasticsearch, no progress bars), logging nowhere. */
export function testRunner(pool: pg.Pool, env: Record<string, string> = {}): JobRunner {
  return new JobRunner({
    pool,
    env: loadEnv({ ...process.env, ELASTICSEARCH_URL: '', ...env } as NodeJS.ProcessEnv),
    progress: false,
    log: () => {},
  });
}

/** Runs one job through a {@link testRunner}; resolves with its result. */
export function runJob<I, R>(pool: pg.Pool, job: Job<I, R>, input: I): Promise<R> {
  return testRunner(pool).run(job, input);
}

/** Ingests in-memory observations as the ingest job does (one source); resolves with ingest's result. */
export async function ingestRecords(
  pool: pg.Pool,
  records: Iterable<RawRecord> | AsyncIterable<RawRecord>,
  opts: { source: string; mode?: CollectionMode; afterGap?: boolean; today?: string },
): Promise<IngestResult> {
  const r = await runJob(pool, ingestJob, {
    batches: [{ source: opts.source, records }],
    mode: opts.mode ?? 'snapshot',
    afterGap: opts.afterGap ?? false,
    today: opts.today,
  });
  return r.files[0].result;
}
