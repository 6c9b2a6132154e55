/**
 * Factories of the collections log (`collection`) and collector runs (`collect_run`) for tests of
 * how old the data is (test/integration/data-status.test.ts): rows as workers/ingest and
 * workers/collect write them, without ingesting prices.
 */
import type pg from 'pg';

/** One collection row: a chain's national row (`store` absent) or one store's row. */
export interface CollectionFixture {
  /** Retailer slug. */
  retailer: string;
  /** The NZ day collected. */
  day: string;
  /** Store database id; absent or null for the chain's national row. */
  store?: number | null;
  /** Observation rows (default 1). */
  rows?: number;
  /** Distinct listings observed (the national row's `collection.listings`); absent leaves it null. */
  listings?: number;
  mode?: 'snapshot' | 'changes' | 'partial';
}

/** Inserts collection rows (digest and source are placeholders). */
export async function insertCollections(pool: pg.Pool, rows: readonly CollectionFixture[]): Promise<void> {
  for (const c of rows) {
    const columns = ['retailer_id', 'store_id', 'day', 'mode', 'rows', 'digest', 'source'];
    const values: unknown[] = [c.retailer, c.store ?? null, c.day, c.mode ?? 'snapshot', c.rows ?? 1];
    if (c.listings !== undefined) {
      columns.push('listings');
      values.push(c.listings);
    }
    const extra = c.listings !== undefined ? ', $6' : '';
    const { rowCount } = await pool.query(
      `INSERT INTO collection (${columns.join(', ')})
       SELECT id, $2, $3::date, $4, $5, 'test', 'test/helpers/collections.ts'${extra} FROM retailer WHERE slug = $1`,
      values,
    );
    if (rowCount !== 1) throw new Error(`no retailer ${c.retailer}`);
  }
}

/** National rows of a chain on each of `days`, as fixtures. */
export function nationalDays(retailer: string, days: readonly string[], extra: Omit<CollectionFixture, 'retailer' | 'day' | 'store'> = {}): CollectionFixture[] {
  return days.map((day) => ({ retailer, day, ...extra }));
}

/** One collector run of a chain. */
export interface CollectRunFixture {
  retailer: string;
  day: string;
  status: 'running' | 'finished' | 'aborted' | 'failed';
  startedAt: string;
  finishedAt?: string | null;
  scopes?: number;
  collected?: number;
  failed?: number;
  error?: string | null;
}

/** Inserts a collect_run row. @returns its id */
export async function insertCollectRun(pool: pg.Pool, r: CollectRunFixture): Promise<number> {
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO collect_run (retailer_id, day, origin, started_at, finished_at, status, scopes, collected, failed, error)
     SELECT id, $2::date, 'http://replay.test', $3, $4, $5, $6, $7, $8, $9 FROM retailer WHERE slug = $1 RETURNING id`,
    [r.retailer, r.day, r.startedAt, r.finishedAt ?? null, r.status, r.scopes ?? 0, r.collected ?? 0, r.failed ?? 0, r.error ?? null],
  );
  if (rows.length !== 1) throw new Error(`no retailer ${r.retailer}`);
  return rows[0].id;
}
