/**
 * Import of the real public data (../shared/data; see its README.md) into the database, through the
 * same ingest as every other observation. Steps, in order:
 *
 * 1. `stores`        — PAK'nSAVE, New World and Woolworths store lists, placed against the urban cores.
 * 2. `price-history` — the Woolworths national price-change log (2024-10-14 → 2025-05-03).
 * 3. `catalogue`     — the Woolworths online catalogue of 2026-07-27: every SKU's description and
 *                      the chain's national snapshot of that day, after the unknown days since the log.
 * 4. `samples`       — the store-level price samples (one combined day per chain, 2026-08-03): searches
 *                      for seven ingredients, so they change only what they mention.
 *
 * Each step is recorded in `import_run` (name, sha256 of its source files) and skipped when it has
 * already run on the same bytes, so running the import again changes nothing.
 */
import { lockSession, unlockSession } from '../../src/db/locks.js';
import type pg from 'pg';
import { DataDirError, resolveSources, sha256Files, type SourcePaths } from './sources.js';
import { importStores, type StoreImportReport } from './stores.js';
import { importPriceHistory, type PriceHistoryReport } from './price-history.js';
import { importCatalogue, type CatalogueReport } from './catalogue.js';
import { importSamples, type SamplesReport } from './samples.js';

export { DataDirError };

/** Options of {@link importRealData}. */
export interface ImportOptions {
  /** Show progress bars (default: when stderr is a terminal). */
  progress?: boolean;
}

/** One step's outcome: `ran` false when `import_run` already held the same digest (then `result` is null). */
export interface StepReport<T> {
  name: string;
  /** sha256 (hex) of the step's source files. */
  digest: string;
  ran: boolean;
  /** Wall time of the step, milliseconds. */
  ms: number;
  result: T | null;
}

/** What {@link importRealData} did. */
export interface ImportReport {
  dataDir: string;
  /** Wall time of the whole import, milliseconds. */
  ms: number;
  stores: StepReport<StoreImportReport>;
  priceHistory: StepReport<PriceHistoryReport>;
  catalogue: StepReport<CatalogueReport>;
  samples: StepReport<SamplesReport>;
}

/**
 * The import steps, in order, with their source files: the one list that {@link importRealData}
 * runs and {@link pendingImportSteps} checks.
 */
const STEP_FILES = (paths: SourcePaths): Record<'stores' | 'price-history' | 'catalogue' | 'samples', string[]> => ({
  stores: [paths.urbanCores, paths.paknsaveStores, paths.newworldStores, paths.woolworthsStores],
  'price-history': [paths.priceHistory],
  catalogue: [paths.catalogue],
  samples: [paths.fullResults, paths.woolworthsLatest, paths.newworldLatest, paths.paknsaveLatest],
});

/**
 * Import steps that have not run on the current bytes of `dataDir` (no `import_run` row with the
 * same digest), in order. Empty when the database holds the whole import, and when it holds none
 * of it (an empty database, or an instance loaded from an export, whose data came another way).
 * @throws DataDirError when `dataDir` or one of its files is missing.
 */
export async function pendingImportSteps(pool: pg.Pool, dataDir: string): Promise<string[]> {
  const files = STEP_FILES(resolveSources(dataDir));
  const done = new Map((await pool.query<{ name: string; digest: string }>('SELECT name, digest FROM import_run')).rows.map((r) => [r.name, r.digest]));
  if (done.size === 0) return [];
  return Object.entries(files).filter(([name, f]) => done.get(name) !== sha256Files(f)).map(([name]) => name);
}


async function step<T>(pool: pg.Pool, name: string, files: readonly string[], run: () => Promise<T>): Promise<StepReport<T>> {
  const started = Date.now();
  const digest = sha256Files(files);
  const done = await pool.query<{ digest: string }>('SELECT digest FROM import_run WHERE name = $1', [name]);
  if (done.rows[0]?.digest === digest) return { name, digest, ran: false, ms: Date.now() - started, result: null };
  const result = await run();
  await pool.query(
    `INSERT INTO import_run (name, digest, finished_at) VALUES ($1, $2, now())
     ON CONFLICT (name) DO UPDATE SET digest = EXCLUDED.digest, finished_at = EXCLUDED.finished_at`,
    [name, digest],
  );
  return { name, digest, ran: true, ms: Date.now() - started, result };
}

/**
 * Imports the real data in `dataDir` (stores → price log → catalogue → samples), each
 * step once per source digest. Holds an advisory lock so concurrent imports run one after the other.
 * @throws DataDirError (before anything is written) when `dataDir` or one of its files is missing;
 *   ImportError for a malformed source (file and line named); ObservationError, StoreInputError or
 *   ListingInputError when the data do not fit what is stored.
 */
export async function importRealData(pool: pg.Pool, dataDir: string, opts: ImportOptions = {}): Promise<ImportReport> {
  const started = Date.now();
  const paths: SourcePaths = resolveSources(dataDir);
  const lock = await pool.connect();
  try {
    await lockSession(lock, 'import', 'wait');
    const files = STEP_FILES(paths);
    const stores = await step(pool, 'stores', files.stores, () => importStores(pool, paths));
    const priceHistory = await step(pool, 'price-history', files['price-history'], () =>
      importPriceHistory(pool, paths.priceHistory, { progress: opts.progress }),
    );
    const catalogue = await step(pool, 'catalogue', files.catalogue, () => importCatalogue(pool, paths.catalogue, { progress: opts.progress }));
    const samples = await step(pool, 'samples', files.samples, () => importSamples(pool, paths, { progress: opts.progress }));
    return { dataDir: dataDir, ms: Date.now() - started, stores, priceHistory, catalogue, samples };
  } finally {
    lock.release(!(await unlockSession(lock, 'import')));
  }
}

/** True when the database holds no listings yet (the real data has not been imported). */
export async function isEmpty(pool: pg.Pool): Promise<boolean> {
  const r = await pool.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM listing) AS empty');
  return r.rows[0].empty;
}
