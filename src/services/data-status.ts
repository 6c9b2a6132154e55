/**
 * The data status (issue 26, "Say how old every fact is"; beyond the contract): how old the data
 * is, chain by chain — first and last collection day, the last run, whether it is stale, how many
 * stores and listings the last day saw, the newest collector run, and the days no collection
 * covers. Read from the collections log (`collection`: one national row per chain-day, plus one row
 * per store-day), `collect_run`, `retailer` and `store`; rules in src/domain/freshness.ts.
 *
 * Days are New Zealand calendar days (`YYYY-MM-DD`); "today" is Pacific/Auckland's
 * (src/domain/days.ts nzToday) unless a caller passes one (tests). Collection days are those of the
 * chains' national rows (every ingested chain-day has one: workers/ingest), read through the
 * collection index's national prefix, so the store rows (hundreds a day at national size) are only
 * counted for each chain's last day. Gaps are computed in SQL with lag() over the distinct days, so
 * the work is bounded by the number of collection days (a few thousand at most). What is still
 * being computed comes from the job log (src/services/job-runs.ts).
 */
import type pg from 'pg';
import { nzToday } from '../domain/days.js';
import { isFresh, isStale, STALE_AFTER_DAYS } from '../domain/freshness.js';
import { STALE_DAYS } from '../domain/price-index.js';
import { readJobRuns, type JobRunStatus } from './job-runs.js';
import { groupRows } from './prices.js';

/** An inclusive range of days on which nothing was collected. */
export interface DayGap {
  /** First day of the range. */
  from: string;
  /** Last day of the range (inclusive). */
  to: string;
  /** Days in the range (to − from + 1). */
  days: number;
}

/** The newest run of a chain's collector (a `collect_run` row). */
export interface CollectRunStatus {
  /** running, finished, aborted or failed. */
  status: string;
  /** The NZ day the run collects. */
  day: string;
  /** When the run started. */
  started_at: Date;
  /** When it ended; null while running or when it was killed. */
  finished_at: Date | null;
  /** Scopes (stores, or the nation) of the run. */
  scopes: number;
  /** Scopes collected by this run. */
  collected: number;
  /** Scopes that failed. */
  failed: number;
  /** Why the run failed or was aborted; null otherwise. */
  error: string | null;
}

/** How old one chain's data is. */
export interface RetailerStatus {
  slug: string;
  name: string;
  /** First collection day of the chain (its first national collection row); null when never collected. */
  first_day: string | null;
  /** Last collection day of the chain; null when never collected. */
  last_day: string | null;
  /** When its prices were last collected (`retailer.last_run`); null when never. */
  last_run: Date | null;
  /** today − last_day, in days; null when never collected. */
  days_since: number | null;
  /** days_since > {@link STALE_AFTER_DAYS}, or never collected. */
  stale: boolean;
  /** Active stores of the chain (0 for a national-only chain). */
  stores_active: number;
  /** Stores with a collection row on last_day (0 when never collected or national prices only). */
  stores_collected: number;
  /**
   * Listings observed on last_day: the national row's `listings` (distinct listings of the
   * chain-day), else its `rows` (observation rows) where that is not recorded; 0 when never collected.
   */
  listings_seen: number;
  /** The chain's newest collector run (by start); null when the collector never ran for it. */
  run: CollectRunStatus | null;
  /** Ranges of days between first_day and last_day with no collection of the chain, oldest first. */
  gaps: DayGap[];
}

/** How old the data is, over every chain. */
export interface DataStatus {
  /** Today in New Zealand when answered. */
  today: string;
  /** The newest collection day over every chain; null when nothing has been collected. */
  newest_day: string | null;
  /**
   * True when at least one chain has been collected and every chain that has been collected was
   * last collected within {@link STALE_AFTER_DAYS} days of today (chains never collected do not count).
   */
  fresh: boolean;
  /** {@link STALE_AFTER_DAYS}: a chain not collected for more than this many days is stale. */
  stale_after_days: number;
  /** The contract's staleness cap in days (src/domain/price-index.ts STALE_DAYS). */
  cap_days: number;
  /** Ranges of days between the first and the newest collection day on which no chain was collected, oldest first. */
  gaps: DayGap[];
  /** Every chain, by slug, also those never collected. */
  retailers: RetailerStatus[];
  /**
   * The jobs queued or running now (names, in the order planned: e.g. `import`, `match`,
   * `basket-match`, `index`, `views` on a first start); empty when nothing is being computed. While
   * not empty, figures derived from the prices (matches, the index, levels, shelves, suggestions)
   * may still change or be missing.
   */
  computing: string[];
  /** The newest run of every job, by name (src/services/job-runs.ts). */
  jobs: JobRunStatus[];
}

/** Options of {@link readDataStatus}. */
export interface DataStatusOptions {
  /** Today (`YYYY-MM-DD`); default today in New Zealand (src/domain/days.ts nzToday). */
  today?: string;
}

interface RetailerRow {
  id: number;
  slug: string;
  name: string;
  last_run: Date | null;
  first_day: string | null;
  last_day: string | null;
  days_since: number | null;
  stores_active: number;
  stores_collected: number;
  listings_seen: number;
  run_status: string | null;
  run_day: string | null;
  run_started_at: Date | null;
  run_finished_at: Date | null;
  run_scopes: number | null;
  run_collected: number | null;
  run_failed: number | null;
  run_error: string | null;
}

interface GapRow extends DayGap {
  retailer_id: number;
}

/**
 * National collection rows. `coalesce(store_id, 0) = 0` is the national prefix of the unique index
 * collection_scope_day_idx (retailer_id, COALESCE(store_id, 0), day), so store rows are not read.
 */
const NATIONAL = 'coalesce(store_id, 0) = 0';

/** Gaps of consecutive distinct days `day` (partitioned by `by` when given) as DayGap columns. */
const gapsOf = (days: string, by: string | null) => `
  SELECT ${by ? `${by}, ` : ''}(prev + 1)::text AS "from", (day - 1)::text AS "to", (day - prev - 1)::int AS days
  FROM (SELECT ${by ? `${by}, ` : ''}day, lag(day) OVER (${by ? `PARTITION BY ${by} ` : ''}ORDER BY day) AS prev FROM (${days}) d) g
  WHERE day - prev > 1
  ORDER BY ${by ? `${by}, ` : ''}prev`;

/**
 * The data status (see {@link DataStatus}): four statements (chains with their last day and newest
 * run; each chain's gaps; the gaps of all chains together; the job log).
 * @param options `today` for tests; the API uses today in New Zealand
 */
export async function readDataStatus(pool: pg.Pool, options: DataStatusOptions = {}): Promise<DataStatus> {
  const today = options.today ?? nzToday();
  const [chains, chainGaps, allGaps, jobRuns] = await Promise.all([
    pool.query<RetailerRow>(
      `WITH span AS (
         SELECT retailer_id, min(day) AS first_day, max(day) AS last_day FROM collection WHERE ${NATIONAL} GROUP BY retailer_id)
       SELECT r.id, r.slug, r.name, r.last_run, s.first_day::text AS first_day, s.last_day::text AS last_day,
              ($1::date - s.last_day) AS days_since,
              (SELECT count(*)::int FROM store st WHERE st.retailer_id = r.id AND st.active) AS stores_active,
              (SELECT count(*)::int FROM collection c
                WHERE c.retailer_id = r.id AND c.store_id IS NOT NULL AND c.day = s.last_day) AS stores_collected,
              coalesce((SELECT coalesce(c.listings, c.rows) FROM collection c
                         WHERE c.retailer_id = r.id AND coalesce(c.store_id, 0) = 0 AND c.day = s.last_day), 0) AS listings_seen,
              run.status AS run_status, run.day::text AS run_day, run.started_at AS run_started_at,
              run.finished_at AS run_finished_at, run.scopes AS run_scopes, run.collected AS run_collected,
              run.failed AS run_failed, run.error AS run_error
       FROM retailer r
       LEFT JOIN span s ON s.retailer_id = r.id
       LEFT JOIN LATERAL (
         SELECT status, day, started_at, finished_at, scopes, collected, failed, error
         FROM collect_run WHERE retailer_id = r.id ORDER BY started_at DESC, id DESC LIMIT 1) run ON true
       ORDER BY r.slug`,
      [today],
    ),
    pool.query<GapRow>(gapsOf(`SELECT retailer_id, day FROM collection WHERE ${NATIONAL}`, 'retailer_id')),
    pool.query<DayGap>(gapsOf(`SELECT DISTINCT day FROM collection WHERE ${NATIONAL}`, null)),
    readJobRuns(pool),
  ]);
  const gapsByChain = groupRows(chainGaps.rows, (g) => g.retailer_id);
  const retailers = chains.rows.map((r): RetailerStatus => ({
    slug: r.slug,
    name: r.name,
    first_day: r.first_day,
    last_day: r.last_day,
    last_run: r.last_run,
    days_since: r.days_since,
    stale: isStale(r.days_since),
    stores_active: r.stores_active,
    stores_collected: r.stores_collected,
    listings_seen: r.listings_seen,
    run:
      r.run_status === null
        ? null
        : {
            status: r.run_status,
            day: r.run_day as string,
            started_at: r.run_started_at as Date,
            finished_at: r.run_finished_at,
            scopes: r.run_scopes ?? 0,
            collected: r.run_collected ?? 0,
            failed: r.run_failed ?? 0,
            error: r.run_error,
          },
    gaps: (gapsByChain.get(r.id) ?? []).map(({ retailer_id: _chain, ...gap }) => gap),
  }));
  const lastDays = retailers.flatMap((r) => (r.last_day === null ? [] : [r.last_day]));
  return {
    today,
    newest_day: lastDays.length ? lastDays.reduce((a, b) => (a > b ? a : b)) : null,
    fresh: isFresh(retailers.map((r) => r.days_since)),
    stale_after_days: STALE_AFTER_DAYS,
    cap_days: STALE_DAYS,
    gaps: allGaps.rows,
    retailers,
    computing: jobRuns.computing,
    jobs: jobRuns.jobs,
  };
}
