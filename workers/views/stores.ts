/**
 * The store and area views of the derived-views worker (issue 16 items 1, 2 and 4): store_level_day
 * (get_store_levels), store_level (list_stores' level and counts, get_store's groups, spread and
 * listings_priced), store_listing (get_store_listings, get_store's dearer, cheaper and deals,
 * plan_shopping_list's store prices) and area_level (list_areas). The rules are
 * src/domain/store-levels.ts (pure; the level arithmetic is src/domain/levels.ts); this module
 * reads their inputs and writes their outputs, inside the transaction the orchestrator
 * (workers/views/run.ts) opened, which should be REPEATABLE READ or stricter so that every
 * statement sees the same snapshot.
 *
 * **Inputs.** The active basket items of observable groups (basket_item, basket_group; weights are
 * shares); basket_match rows with [valid_from, valid_to) intervals (a listing belongs to an item
 * while its match is in force); store spans (store_price_span; an open span ends at its store's
 * last_day) and national spans (national_price_span; an open span ends at its chain's
 * last_national_day) — both ends by the open-span rule `spanToSql` / `storeCoveredDay` /
 * `nationalLastDay` (src/services/span-sql.ts). Prices compared: a listing's store **shelf** price ÷
 * the chain's national median **shelf** price of the same listing in force the same day
 * (src/domain/store-levels.ts explains why promotions do not count); a zero price gives no ratio,
 * and a store price on a day without a national span of the listing is skipped.
 *
 * **store_level_day**, for every store with a last collection day and every day from its first
 * span day to store.last_day: the basket items priced that day are those with at least one listing
 * whose match is in force and which has a store span and a national span in force; level and
 * n_items are `dailyStoreLevels` (each item the geometric mean of its listings' ratios, the basket
 * level of the items with basket weights, null under 20 items). Days inside the range with no
 * price have n_items 0 and level null. SQL intersects the spans and matches set-based into
 * constant stretches (only spans of matched listings), TypeScript sweeps them day by day.
 *
 * **store_level**, one row per active store with a last collection day: `day` = store.last_day;
 * the store's listings are its **latest observation** of each listing — the latest store span of
 * the listing at the store, when its end (open-span rule) is within the last 7 days of the store's
 * collections (store.last_day − 6 … store.last_day) — written to **store_listing** with `median` =
 * the national span price of the listing in force on that end day (no row when there is none, or
 * a price is 0), `ratio` = price ÷ median, the span's promotion (kind, promo price, and a
 * multibuy's terms: multibuy_qty and multibuy_price, NULL for any other kind), and `day` = the
 * first day this price and this median have both held (the later of the two spans' first days:
 * the store span in force on `day` is the latest one). `day` is the start of the stretch, not its
 * end, so that an unchanged price is not rewritten every day (an open span's end moves with every
 * collection). From those rows: level and n_items (the listings whose match is in force on store.last_day — the
 * store's current basket — `pricedItems` / `storeLevel`), groups (`groupLevels` over the
 * observable groups in id order), spread (the 22-bucket histogram of price ÷ median over every
 * row, not only basket listings; `spreadBucketSql`) and listings_priced (the rows). club / sale / multibuy: the store's listings with a store span of
 * promo_kind 2 / 1 / 3 in force on some day of the 7-day window, counted once per listing (a
 * promotion whose price changed during the week is one promotion). Inactive stores, and stores
 * never collected, have no row.
 *
 * **area_level**: `rollUpAreas` of every active store (its store_level level and n_items when it
 * has a row): by region, urban class and town.
 *
 * **Incremental.** What a build continues from is {@link StoreViewsState}, returned in the report;
 * the orchestrator stores it in view_run.detail of 'stores' (workers/views/run.ts stores
 * `{parts, report}`; `{state}` or the bare state are read too). It holds a digest of the basket
 * (active observable items with weight and group, and the observable groups' codes and names) and,
 * for every month in which some basket_match starts or ends, a digest of those start and end events
 * (the matches in force on a day are fixed by the events on or before it; months rather than days
 * keep the state a few hundred bytes a year, at the price of recomputing from the 1st of the month).
 * - Without a readable state, with `full`, or when the basket digest differs: **full** — every
 *   store's days from its first span day.
 * - Otherwise, per store: the days after the last day stored for it (store.last_day moved on), and
 *   when the match events differ, the days from the first day X of the first month whose events
 *   differ — each store's stored days on or after X are recomputed. A store whose last_day moved
 *   back below its stored days is recomputed from its first span day. Store and national spans are
 *   append-only (an ingest only adds days after a scope's last day, never a day on or before its
 *   chain's last national day; closing a span writes the end it already had), so days already
 *   stored keep their inputs unless the matches or the basket change.
 * - A store_level row (and the store's store_listing rows) is rebuilt for the stores whose
 *   store.last_day differs from their store_level.day (every store when full). Its store_listing
 *   rows are continued from the stored panel's day: only the listings whose row can have changed
 *   since are recomputed (`storeListings` says which and why); a store without a panel, or whose
 *   last day moved back, is rebuilt whole. The level, n_items and groups of every other panel are
 *   recomputed when the basket or the matches changed.
 * - area_level is recomputed from the stores every build.
 * Every table is written by difference: rows equal to the stored ones are not written, rows no
 * longer produced are deleted, so a build with nothing changed writes nothing and an incremental
 * build leaves exactly (bit for bit: fixed summation order) what a full one would.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import { copyCell, copyRows } from '../copy-rows.js';
import { addDays } from '../../src/domain/days.js';
import {
  dailyStoreLevels, groupLevels, pricedItems, rollUpAreas, spreadBucketSql, storeLevel, SPREAD_BUCKETS,
  type AreaRow, type GroupInfo, type LevelItem, type ListingRatio, type RatioSegment,
} from '../../src/domain/store-levels.js';
import { DEAL_PROMO_KINDS } from '../../src/domain/deals.js';
import { PROMO_KIND } from '../../src/domain/spans.js';
import {
  latestSpanOrderSql, latestSpanSql, multibuyTermsSql, nationalCoveredDay, spanToSql, storeCoveredDay,
} from '../../src/services/span-sql.js';
import { makeProgress } from '../progress.js';

/** work_mem of a build (sorting the latest span of every store listing, hashing spans against matches). */
export const BUILD_WORK_MEM = '256MB';
/** temp_buffers of a build, when the session has not used a temporary table yet. */
export const BUILD_TEMP_BUFFERS = '256MB';

/** Version of {@link StoreViewsState}; a stored state of another version forces a full build. */
export const STORE_VIEWS_FORMAT = 1;

/** Days of a store's collections a current panel looks back over: store.last_day − 6 … last_day. */
export const PANEL_DAYS = 7;

/** What the next build continues from (module comment, "Incremental"). */
export interface StoreViewsState {
  format: number;
  /** Digest of the active observable basket items (id, group, weight) and observable groups (id, code, name). */
  basket: string;
  /** For each month (`YYYY-MM`) in which a basket_match starts (valid_from) or ends (valid_to): `count:sum` of 64-bit hashes of those events. */
  matches: Record<string, string>;
}

/** Options of {@link buildStoreViews}. */
export interface StoreViewsOptions {
  /** Recompute every store's days and panel even when an incremental build is possible. */
  full?: boolean;
  /** Show a progress bar over the stores (default: when stderr is a terminal). */
  progress?: boolean;
}

/** Rows written (inserted or updated because they differed) and deleted in one table. */
export interface TableWrites {
  written: number;
  deleted: number;
}

/** What {@link buildStoreViews} did. */
export interface StoreViewsReport {
  /** full: every store's days recomputed; incremental: some; unchanged: nothing to recompute (areas still checked). */
  mode: 'full' | 'incremental' | 'unchanged';
  /** Why this mode (e.g. "no stored state", "basket matches changed in 2026-08"). */
  reason: string;
  /** store_level_day: stores and store-days computed. */
  days: { stores: number; days: number } & TableWrites;
  /** store_level: panels computed in full (with store_listing) and those whose level alone was recomputed. */
  panels: { stores: number; levelsOnly: number } & TableWrites;
  listings: TableWrites;
  areas: { rows: number } & TableWrites;
  /** The state to store in view_run.detail. */
  state: StoreViewsState;
  /** Wall time and its phases (prepare: state and windows; days; panels; areas), seconds. */
  seconds: number;
  phases: { prepare: number; days: number; panels: number; areas: number };
}

/** Temporary tables of a build (dropped at its end, and on commit). */
const TEMP = ['sv_item', 'sv_win', 'sv_day', 'sv_ps', 'sv_natchg', 'sv_w7', 'sv_cand', 'sv_listing'];

/** SQL of a store span's last priced day (open-span rule), for span alias `sp`, store alias `st`. */
const STORE_SPAN_TO = spanToSql('sp', storeCoveredDay('st'));
/** SQL of a national span's last priced day (open-span rule), for span alias `ns`, retailer alias `r`. */
const NATIONAL_SPAN_TO = spanToSql('ns', nationalCoveredDay('r'));
/**
 * SQL of a store span's multibuy terms as store_listing keeps them, for span alias `sp`: its
 * multibuy_qty and multibuy_price on a multibuy, else both NULL (`multibuyTermsSql`; migration
 * 20261129000200_shopping_list backfilled the rows written before the columns existed the same way).
 */
const MULTIBUY_TERMS = multibuyTermsSql('sp');

/**
 * Builds store_level_day, store_level, store_listing and area_level (module comment) in the
 * caller's transaction (`client` must be inside one: temporary tables and a cursor live in it).
 * @throws the database's errors; RangeError on a stored ratio that is not positive.
 */
export async function buildStoreViews(client: pg.PoolClient, opts: StoreViewsOptions = {}): Promise<StoreViewsReport> {
  const t0 = performance.now();
  let mark = t0;
  const phases = { prepare: 0, days: 0, panels: 0, areas: 0 };
  const phase = (name: keyof typeof phases) => {
    const now = performance.now();
    phases[name] += (now - mark) / 1000;
    mark = now;
  };
  await client.query(`DROP TABLE IF EXISTS ${TEMP.map((t) => `pg_temp.${t}`).join(', ')}`);
  const settings = await localSettings(client);

  // The basket and the state.
  await client.query(`CREATE TEMP TABLE sv_item ON COMMIT DROP AS
    SELECT i.id, i.group_id, i.weight FROM basket_item i JOIN basket_group g ON g.id = i.group_id WHERE i.active AND g.observable`);
  await client.query('ALTER TABLE sv_item ADD PRIMARY KEY (id)');
  const items = (await client.query<{ id: number; group_id: number; weight: number }>('SELECT id, group_id, weight FROM sv_item ORDER BY id')).rows;
  const groups = (await client.query<GroupInfo>('SELECT id, code, name FROM basket_group WHERE observable ORDER BY id')).rows;
  const basket = new Map<number, LevelItem>(items.map((i) => [i.id, { weight: i.weight, group: i.group_id }]));
  const state: StoreViewsState = { format: STORE_VIEWS_FORMAT, basket: basketDigest(items, groups), matches: await matchEvents(client) };
  const stored = opts.full ? null : await storedState(client);

  let full = true;
  let reason: string;
  let changedFrom: string | null = null;
  if (opts.full) reason = 'full build requested';
  else if (!stored) reason = 'no stored state';
  else if (stored.basket !== state.basket) reason = 'the basket changed';
  else {
    full = false;
    const month = firstDifference(stored.matches, state.matches);
    changedFrom = month == null ? null : `${month}-01`;
    reason = month ? `basket matches changed in ${month}` : 'new store days only';
  }
  const levelsChanged = full || changedFrom != null;

  // ---- store_level_day
  const windows = await dayWindows(client, full, changedFrom);
  phase('prepare');
  const days = await buildDays(client, windows, basket, full, opts.progress);
  phase('days');

  // ---- store_level and store_listing
  const panels = await buildPanels(client, basket, groups, full, levelsChanged);
  phase('panels');

  // ---- area_level
  const areas = await buildAreas(client);
  phase('areas');

  await client.query(`DROP TABLE IF EXISTS ${TEMP.map((t) => `pg_temp.${t}`).join(', ')}`);
  await settings.restore();
  const computed = days.stores > 0 || panels.panels.stores > 0 || panels.panels.levelsOnly > 0;
  const mode: StoreViewsReport['mode'] = full ? 'full' : computed ? 'incremental' : 'unchanged';
  return {
    mode, reason: !full && !computed ? 'nothing new' : reason,
    days, panels: panels.panels, listings: panels.listings, areas, state,
    seconds: (performance.now() - t0) / 1000, phases,
  };
}

/**
 * Settings of the build, for the rest of the caller's transaction: memory for its sorts, hashes and
 * temporary tables ({@link BUILD_WORK_MEM}, {@link BUILD_TEMP_BUFFERS}), and
 * cursor_tuple_fraction 1 — the segment cursor is read to the end, and planned for its first rows
 * (the default 0.1) it nests a loop over stores around every segment (measured: 150 s instead of
 * 8 s for 500 stores). `restore` puts back work_mem and cursor_tuple_fraction as they were
 * (temp_buffers can only be raised before the session's first temporary table, so that is tried
 * under a savepoint and left as it is when refused).
 */
async function localSettings(client: pg.PoolClient): Promise<{ restore(): Promise<void> }> {
  const before = (await client.query<{ w: string; c: string }>(
    `SELECT current_setting('work_mem') AS w, current_setting('cursor_tuple_fraction') AS c`,
  )).rows[0];
  await client.query(`SELECT set_config('work_mem', $1, true), set_config('cursor_tuple_fraction', '1', true)`, [BUILD_WORK_MEM]);
  await client.query('SAVEPOINT sv_settings');
  try {
    await client.query(`SELECT set_config('temp_buffers', $1, true)`, [BUILD_TEMP_BUFFERS]);
    await client.query('RELEASE SAVEPOINT sv_settings');
  } catch {
    await client.query('ROLLBACK TO SAVEPOINT sv_settings');
    await client.query('RELEASE SAVEPOINT sv_settings');
  }
  return {
    async restore() {
      await client.query(`SELECT set_config('work_mem', $1, true), set_config('cursor_tuple_fraction', $2, true)`, [before.w, before.c]);
    },
  };
}

/** Digest of what every stored level depends on in the basket (module comment, "Incremental"). */
function basketDigest(items: { id: number; group_id: number; weight: number }[], groups: GroupInfo[]): string {
  const h = crypto.createHash('sha256');
  for (const g of groups) h.update(`g|${g.id}|${g.code}|${g.name}\n`);
  for (const i of items) h.update(`i|${i.id}|${i.group_id}|${i.weight}\n`);
  return h.digest('hex').slice(0, 16);
}

/**
 * Per month, the digest of the basket_match starts and ends in it (order-independent: count and sum
 * of 64-bit hashes of each event's kind, day, item and listing).
 */
async function matchEvents(client: pg.PoolClient): Promise<Record<string, string>> {
  const r = await client.query<{ month: string; digest: string }>(
    `SELECT to_char(day, 'YYYY-MM') AS month, count(*) || ':' || sum(h) AS digest FROM (
       SELECT valid_from AS day, hashtextextended(ROW('+', valid_from, item_id, listing_id)::text, 0)::numeric AS h FROM basket_match
       UNION ALL
       SELECT valid_to, hashtextextended(ROW('-', valid_to, item_id, listing_id)::text, 0)::numeric FROM basket_match WHERE valid_to IS NOT NULL
     ) e GROUP BY 1 ORDER BY 1`,
  );
  return Object.fromEntries(r.rows.map((x) => [x.month, x.digest]));
}

/** The first key (month `YYYY-MM`) whose digests differ between two event maps, or null when equal. */
function firstDifference(a: Record<string, string>, b: Record<string, string>): string | null {
  let first: string | null = null;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (a[key] !== b[key] && (first == null || key < first)) first = key;
  }
  return first;
}

/**
 * The state stored by the previous build, or null: view_run.detail of 'stores' holding the report
 * under `report` (as workers/views/run.ts stores it), or the state under `state`, or the state.
 */
async function storedState(client: pg.PoolClient): Promise<StoreViewsState | null> {
  const r = await client.query<{ s: unknown }>(`SELECT coalesce(detail->'report'->'state', detail->'state', detail) AS s FROM view_run WHERE name = 'stores'`);
  const s = r.rows[0]?.s as Partial<StoreViewsState> | null | undefined;
  if (!s || typeof s !== 'object' || s.format !== STORE_VIEWS_FORMAT || typeof s.basket !== 'string') return null;
  if (!s.matches || typeof s.matches !== 'object') return null;
  return s as StoreViewsState;
}

/** A store's days to compute: `from` … `to` (store.last_day). */
interface DayWindow {
  storeId: number;
  from: string;
  to: string;
}

/**
 * The day windows of the stores to (re)compute (module comment, "Incremental"), ascending by store
 * id: stores with a last collection day and at least one span.
 */
async function dayWindows(client: pg.PoolClient, full: boolean, changedFrom: string | null): Promise<DayWindow[]> {
  const stores = (await client.query<{ id: number; last_day: string | null; min_day: string | null; max_day: string | null }>(
    `SELECT st.id, st.last_day::text AS last_day, d.min_day::text AS min_day, d.max_day::text AS max_day
     FROM store st LEFT JOIN (SELECT store_id, min(day) AS min_day, max(day) AS max_day FROM store_level_day GROUP BY store_id) d ON d.store_id = st.id
     ORDER BY st.id`,
  )).rows;
  const windows: DayWindow[] = [];
  const needFirst: number[] = [];
  for (const s of stores) {
    if (s.last_day == null) continue;
    if (full || s.max_day == null || s.max_day > s.last_day) {
      needFirst.push(s.id);
      continue;
    }
    let from = addDays(s.max_day, 1);
    if (changedFrom != null && changedFrom < from) from = changedFrom < s.min_day! ? s.min_day! : changedFrom;
    if (from <= s.last_day) windows.push({ storeId: s.id, from, to: s.last_day });
  }
  if (needFirst.length > 0) {
    const first = await client.query<{ store_id: number; first: string }>(
      `SELECT sp.store_id, min(sp.first_day)::text AS first FROM store_price_span sp WHERE sp.store_id = ANY($1::int[]) GROUP BY sp.store_id`,
      [needFirst],
    );
    const last = new Map(stores.map((s) => [s.id, s.last_day]));
    for (const f of first.rows) {
      const to = last.get(f.store_id)!;
      if (f.first <= to) windows.push({ storeId: f.store_id, from: f.first, to });
    }
  }
  windows.sort((a, b) => a.storeId - b.storeId);
  return windows;
}



/** Segment rows fetched from the cursor at a time. */
const FETCH_ROWS = 50_000;

/**
 * Computes the windows' days (module comment, store_level_day) and writes store_level_day by
 * difference; in a full build, also deletes the days of stores or before first days no longer
 * produced.
 */
async function buildDays(
  client: pg.PoolClient,
  windows: DayWindow[],
  basket: ReadonlyMap<number, LevelItem>,
  full: boolean,
  progress: boolean | undefined,
): Promise<StoreViewsReport['days']> {
  await client.query('CREATE TEMP TABLE sv_win (store_id int PRIMARY KEY, from_day date NOT NULL, last_day date NOT NULL) ON COMMIT DROP');
  await client.query('CREATE TEMP TABLE sv_day (store_id int NOT NULL, day date NOT NULL, level float8, n_items int NOT NULL) ON COMMIT DROP');
  let dayCount = 0;
  if (windows.length > 0) {
    await copyRows(client, 'sv_win (store_id, from_day, last_day)', windows.map((x) => `${x.storeId}\t${x.from}\t${x.to}\n`));
    await client.query('ANALYZE sv_win');
    // Constant stretches of each matched listing's ratio at each window's store: store span ×
    // national span × match, clipped to the window; as day offsets from the window's first day.
    await client.query(`DECLARE sv_seg NO SCROLL CURSOR FOR
      SELECT w.store_id, m.item_id AS item, sp.listing_id AS listing,
        greatest(sp.first_day, m.valid_from, ns.first_day, w.from_day) - w.from_day AS "from",
        least(${STORE_SPAN_TO}, coalesce(m.valid_to - 1, w.last_day), ${NATIONAL_SPAN_TO}, w.last_day) - w.from_day AS "to",
        sp.price, ns.price AS median
      FROM sv_win w
      JOIN store st ON st.id = w.store_id
      JOIN store_price_span sp ON sp.store_id = w.store_id AND sp.first_day <= w.last_day AND (sp.last_day IS NULL OR sp.last_day >= w.from_day)
      JOIN basket_match m ON m.listing_id = sp.listing_id AND m.valid_from <= w.last_day AND (m.valid_to IS NULL OR m.valid_to > w.from_day)
      JOIN sv_item i ON i.id = m.item_id
      JOIN listing l ON l.id = sp.listing_id
      JOIN retailer r ON r.id = l.retailer_id
      JOIN national_price_span ns ON ns.listing_id = sp.listing_id AND ns.first_day <= w.last_day AND (ns.last_day IS NULL OR ns.last_day >= w.from_day)
      WHERE sp.price > 0 AND ns.price > 0
        AND greatest(sp.first_day, m.valid_from, ns.first_day, w.from_day)
            <= least(${STORE_SPAN_TO}, coalesce(m.valid_to - 1, w.last_day), ${NATIONAL_SPAN_TO}, w.last_day)
      ORDER BY w.store_id`);
    const bar = makeProgress(progress, 'store level days', windows.length);
    const out: string[] = [];
    let wi = 0;
    const flush = (storeId: number, segs: RatioSegment[]) => {
      // Windows without any segment (before this store) get their empty days too.
      while (wi < windows.length && windows[wi].storeId <= storeId) {
        const win = windows[wi++];
        const n = Math.round((Date.parse(win.to) - Date.parse(win.from)) / 86_400_000) + 1;
        const series = dailyStoreLevels(win.storeId === storeId ? segs : [], n, basket);
        for (let d = 0; d < n; d++) out.push(`${win.storeId}\t${addDays(win.from, d)}\t${copyCell(series.level[d])}\t${series.nItems[d]}\n`);
        dayCount += n;
        bar.increment();
      }
    };
    let current: number | null = null;
    let segs: RatioSegment[] = [];
    for (;;) {
      const r = await client.query<{ store_id: number; item: number; listing: number; from: number; to: number; price: number; median: number }>(
        `FETCH FORWARD ${FETCH_ROWS} FROM sv_seg`,
      );
      for (const x of r.rows) {
        if (x.store_id !== current) {
          if (current != null) flush(current, segs);
          current = x.store_id;
          segs = [];
        }
        segs.push({ item: x.item, listing: x.listing, from: x.from, to: x.to, ratio: x.price / x.median });
      }
      if (r.rows.length < FETCH_ROWS) break;
    }
    await client.query('CLOSE sv_seg');
    if (current != null) flush(current, segs);
    flush(Number.MAX_SAFE_INTEGER, []);
    bar.stop();
    await copyRows(client, 'sv_day (store_id, day, level, n_items)', out);
    await client.query('ALTER TABLE sv_day ADD PRIMARY KEY (store_id, day)');
    await client.query('ANALYZE sv_day');
  }

  // Days no longer produced: of stores whose last day moved back or is gone, in recomputed windows,
  // and (full) of stores without a window or before their first day.
  let deleted = (await client.query(
    `DELETE FROM store_level_day d USING store st WHERE st.id = d.store_id AND (st.last_day IS NULL OR d.day > st.last_day)`,
  )).rowCount ?? 0;
  deleted += (await client.query(
    `DELETE FROM store_level_day d USING sv_win w WHERE w.store_id = d.store_id AND d.day >= w.from_day
       AND NOT EXISTS (SELECT 1 FROM sv_day n WHERE n.store_id = d.store_id AND n.day = d.day)`,
  )).rowCount ?? 0;
  if (full) {
    deleted += (await client.query(
      `DELETE FROM store_level_day d WHERE NOT EXISTS (SELECT 1 FROM sv_win w WHERE w.store_id = d.store_id AND d.day >= w.from_day)`,
    )).rowCount ?? 0;
  }
  const written = windows.length === 0 ? 0 : (await client.query(
    `INSERT INTO store_level_day (store_id, day, level, n_items) SELECT store_id, day, level, n_items FROM sv_day
     ON CONFLICT (store_id, day) DO UPDATE SET level = EXCLUDED.level, n_items = EXCLUDED.n_items
     WHERE (store_level_day.level, store_level_day.n_items) IS DISTINCT FROM (EXCLUDED.level, EXCLUDED.n_items)`,
  )).rowCount ?? 0;
  return { stores: windows.length, days: dayCount, written, deleted };
}

/** A store_level row as computed. */
interface PanelRow {
  store_id: number;
  level: number | null;
  n_items: number;
  groups: unknown[];
}

/**
 * Rebuilds store_listing and store_level (module comment): panels in full for the stores whose
 * last day moved (all when `full`), levels and groups of every other panel when `levelsChanged`.
 */
async function buildPanels(
  client: pg.PoolClient,
  basket: ReadonlyMap<number, LevelItem>,
  groups: GroupInfo[],
  full: boolean,
  levelsChanged: boolean,
): Promise<{ panels: StoreViewsReport['panels']; listings: TableWrites }> {
  const listings: TableWrites = { written: 0, deleted: 0 };
  const panels = { stores: 0, levelsOnly: 0, written: 0, deleted: 0 };

  // Stores that have no panel any more (inactive, or never collected).
  const gone = (await client.query<{ store_id: number }>(
    `SELECT sl.store_id FROM store_level sl JOIN store st ON st.id = sl.store_id WHERE NOT st.active OR st.last_day IS NULL`,
  )).rows.map((r) => r.store_id);
  if (gone.length > 0) {
    listings.deleted += (await client.query('DELETE FROM store_listing WHERE store_id = ANY($1::int[])', [gone])).rowCount ?? 0;
    panels.deleted += (await client.query('DELETE FROM store_level WHERE store_id = ANY($1::int[])', [gone])).rowCount ?? 0;
  }

  // Panels to rebuild: the store's last day differs from its panel's (or no panel; all when full).
  // prev_day: the day of the stored panel the store's listings continue from, NULL to rebuild them
  // all (no panel, full, or a last day that moved back).
  await client.query(`CREATE TEMP TABLE sv_ps ON COMMIT DROP AS
    SELECT st.id AS store_id, st.last_day, ${full ? 'NULL::date' : 'CASE WHEN sl.day < st.last_day THEN sl.day END'} AS prev_day
    FROM store st LEFT JOIN store_level sl ON sl.store_id = st.id
    WHERE st.active AND st.last_day IS NOT NULL ${full ? '' : 'AND sl.day IS DISTINCT FROM st.last_day'}`);
  await client.query('ALTER TABLE sv_ps ADD PRIMARY KEY (store_id)');
  await client.query('ANALYZE sv_ps');
  const rebuild = (await client.query<{ store_id: number }>('SELECT store_id FROM sv_ps ORDER BY store_id')).rows.map((r) => r.store_id);
  panels.stores = rebuild.length;

  if (rebuild.length > 0) {
    await storeListings(client, listings);
  }

  // Levels and groups: of the rebuilt panels, and of every panel when the basket or matches changed.
  const levelStores = levelsChanged
    ? (await client.query<{ id: number }>('SELECT id FROM store WHERE active AND last_day IS NOT NULL ORDER BY id')).rows.map((r) => r.id)
    : rebuild;
  const levels = await panelLevels(client, levelStores, basket, groups);
  const rebuilt = new Set(rebuild);
  panels.levelsOnly = levelStores.filter((id) => !rebuilt.has(id)).length;

  if (rebuild.length > 0) {
    // Whole rows of the rebuilt panels: spread, listings priced and promotion counts.
    const payload = rebuild.map((id) => levels.get(id) ?? { store_id: id, level: null, n_items: 0, groups: [] });
    panels.written += (await client.query(
      `WITH lv AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(store_id int, level float8, n_items int, groups jsonb)),
       sp AS (SELECT store_id, array_agg(coalesce(n, 0) ORDER BY b) AS spread, coalesce(sum(n), 0)::int AS priced
              FROM (SELECT p.store_id, b.b, c.n FROM sv_ps p CROSS JOIN generate_series(0, ${SPREAD_BUCKETS - 1}) b(b)
                    LEFT JOIN (SELECT x.store_id, ${spreadBucketSql('x.price', 'x.median')} AS b, count(*)::int AS n
                               FROM store_listing x JOIN sv_ps p ON p.store_id = x.store_id GROUP BY 1, 2) c
                      ON c.store_id = p.store_id AND c.b = b.b) z
              GROUP BY store_id),
       pr AS (SELECT p.store_id,
                count(DISTINCT w.listing_id) FILTER (WHERE w.in_window AND w.promo_kind = ${PROMO_KIND.member})::int AS club,
                count(DISTINCT w.listing_id) FILTER (WHERE w.in_window AND w.promo_kind = ${PROMO_KIND.special})::int AS sale,
                count(DISTINCT w.listing_id) FILTER (WHERE w.in_window AND w.promo_kind = ${PROMO_KIND.multibuy})::int AS multibuy
              FROM sv_ps p LEFT JOIN sv_w7 w ON w.store_id = p.store_id GROUP BY p.store_id)
       INSERT INTO store_level (store_id, day, level, n_items, groups, spread, listings_priced, club, sale, multibuy)
       SELECT p.store_id, p.last_day, lv.level, lv.n_items, lv.groups, sp.spread, sp.priced, pr.club, pr.sale, pr.multibuy
       FROM sv_ps p JOIN lv ON lv.store_id = p.store_id JOIN sp ON sp.store_id = p.store_id JOIN pr ON pr.store_id = p.store_id
       ON CONFLICT (store_id) DO UPDATE SET day = EXCLUDED.day, level = EXCLUDED.level, n_items = EXCLUDED.n_items, groups = EXCLUDED.groups,
         spread = EXCLUDED.spread, listings_priced = EXCLUDED.listings_priced, club = EXCLUDED.club, sale = EXCLUDED.sale, multibuy = EXCLUDED.multibuy
       WHERE (store_level.day, store_level.level, store_level.n_items, store_level.groups, store_level.spread, store_level.listings_priced,
              store_level.club, store_level.sale, store_level.multibuy)
         IS DISTINCT FROM (EXCLUDED.day, EXCLUDED.level, EXCLUDED.n_items, EXCLUDED.groups, EXCLUDED.spread, EXCLUDED.listings_priced,
              EXCLUDED.club, EXCLUDED.sale, EXCLUDED.multibuy)`,
      [JSON.stringify(payload)],
    )).rowCount ?? 0;
  }
  const levelsOnly = levelStores.filter((id) => !rebuilt.has(id));
  if (levelsOnly.length > 0) {
    const payload = levelsOnly.map((id) => levels.get(id) ?? { store_id: id, level: null, n_items: 0, groups: [] });
    panels.written += (await client.query(
      `UPDATE store_level s SET level = x.level, n_items = x.n_items, groups = x.groups
       FROM jsonb_to_recordset($1::jsonb) AS x(store_id int, level float8, n_items int, groups jsonb)
       WHERE s.store_id = x.store_id AND (s.level, s.n_items, s.groups) IS DISTINCT FROM (x.level, x.n_items, x.groups)`,
      [JSON.stringify(payload)],
    )).rowCount ?? 0;
  }
  return { panels, listings };
}

/**
 * Rewrites store_listing for the stores of sv_ps (module comment, store_level) and leaves sv_w7:
 * their spans in force during the 7-day window with promotions (`in_window`, for the counts).
 *
 * A store with `prev_day` NULL is rebuilt whole: the latest of its spans in the window, per
 * listing. A store whose panel of day P = `prev_day` is stored is continued: only the listings
 * whose row can differ between P and the new last day L are recomputed — those with a store span
 * starting after P, a store span closed on or after P (its end stopped moving with the store's
 * collections) or on P − 6 … L − 7 (it leaves the window), or an open store span while the
 * listing's national spans changed after P (one started or closed on or after P, so the median in
 * force on the end day may differ). Every other row is the same at L as at P: its latest span
 * either ended before P (same end, same median, still in the window) or is open with the same
 * national span in force, and `day` (the start of the stretch) does not move.
 */
async function storeListings(client: pg.PoolClient, listings: TableWrites): Promise<void> {
  const w = PANEL_DAYS - 1;
  // Listings whose national spans changed since the earliest continued panel.
  await client.query(`CREATE TEMP TABLE sv_natchg ON COMMIT DROP AS
    SELECT DISTINCT ns.listing_id FROM national_price_span ns, (SELECT min(prev_day) AS p FROM sv_ps) m
    WHERE m.p IS NOT NULL AND (ns.first_day > m.p OR ns.last_day >= m.p)`);
  await client.query('ALTER TABLE sv_natchg ADD PRIMARY KEY (listing_id)');
  await client.query('ANALYZE sv_natchg');
  // One pass over the stores' spans: the window's spans of whole rebuilds (all) and of continued
  // stores (promotions only, for the counts), and the spans that make a listing a candidate.
  await client.query(`CREATE TEMP TABLE sv_w7 ON COMMIT DROP AS
    SELECT * FROM (
      SELECT sp.store_id, sp.listing_id, sp.id, sp.first_day, sp.last_day, ${STORE_SPAN_TO} AS to_day, sp.price, sp.promo_price,
        sp.promo_kind, ${MULTIBUY_TERMS}, p.prev_day,
        ${STORE_SPAN_TO} >= st.last_day - ${w} AS in_window,
        p.prev_day IS NOT NULL AND (sp.first_day > p.prev_day OR sp.last_day >= p.prev_day
          OR ${STORE_SPAN_TO} BETWEEN p.prev_day - ${w} AND st.last_day - ${w + 1}
          OR (sp.last_day IS NULL AND c.listing_id IS NOT NULL)) AS candidate
      FROM sv_ps p JOIN store st ON st.id = p.store_id
      JOIN store_price_span sp ON sp.store_id = p.store_id
      LEFT JOIN sv_natchg c ON c.listing_id = sp.listing_id
      WHERE sp.first_day <= st.last_day
    ) x
    WHERE candidate OR (in_window AND (prev_day IS NULL OR promo_kind IN (${DEAL_PROMO_KINDS.join(', ')})))`);
  // Candidate listings of continued stores (their rows are recomputed, or deleted).
  await client.query(`CREATE TEMP TABLE sv_cand ON COMMIT DROP AS SELECT DISTINCT store_id, listing_id FROM sv_w7 WHERE candidate`);
  await client.query('ALTER TABLE sv_cand ADD PRIMARY KEY (store_id, listing_id)');
  await client.query('ANALYZE sv_cand');
  // The new rows: latest span in the window (latestSpanOrderSql; whole rebuilds: from sv_w7;
  // candidates: the pair's latest span, a backward step of store_price_span_listing_idx — a store's
  // spans of a listing never share a first day: a span is only ever closed on a day before the next
  // one opens, so the id tie-break costs an incremental sort of the one row of that day), with
  // the national span in force on its end day. Memoize is off for this statement: every lookup
  // key is distinct, and its cache churn made the statement 3.5 × slower (58 s instead of 16 s for
  // 750,000 candidates, measured).
  const memoize = (await client.query<{ m: string }>(`SELECT current_setting('enable_memoize') AS m`)).rows[0].m;
  await client.query(`SELECT set_config('enable_memoize', 'off', true)`);
  await client.query(`CREATE TEMP TABLE sv_listing ON COMMIT DROP AS
    SELECT x.store_id, x.listing_id, greatest(x.first_day, ns.first_day) AS day, x.price, x.promo_price, x.promo_kind, ns.price AS median,
      x.price::float8 / ns.price AS ratio, x.multibuy_qty, x.multibuy_price
    FROM (
      (SELECT DISTINCT ON (w.store_id, w.listing_id) w.store_id, w.listing_id, w.first_day, w.to_day, w.price, w.promo_price, w.promo_kind,
         w.multibuy_qty, w.multibuy_price
       FROM sv_w7 w WHERE w.prev_day IS NULL ORDER BY w.store_id, w.listing_id, ${latestSpanOrderSql('w')})
      UNION ALL
      SELECT k.store_id, k.listing_id, y.first_day, y.to_day, y.price, y.promo_price, y.promo_kind, y.multibuy_qty, y.multibuy_price
      FROM sv_cand k JOIN store st ON st.id = k.store_id
      CROSS JOIN LATERAL ${latestSpanSql('store_price_span', 'sp',
        'sp.listing_id = k.listing_id AND sp.store_id = k.store_id AND sp.first_day <= st.last_day',
        `sp.first_day, ${STORE_SPAN_TO} AS to_day, sp.price, sp.promo_price, sp.promo_kind, ${MULTIBUY_TERMS}`)} y
      WHERE y.to_day >= st.last_day - ${w}
    ) x
    JOIN listing l ON l.id = x.listing_id JOIN retailer r ON r.id = l.retailer_id
    JOIN national_price_span ns ON ns.listing_id = x.listing_id AND ns.first_day <= x.to_day AND ${NATIONAL_SPAN_TO} >= x.to_day
    WHERE x.price > 0 AND ns.price > 0`);
  await client.query(`SELECT set_config('enable_memoize', $1, true)`, [memoize]);
  await client.query('ALTER TABLE sv_listing ADD PRIMARY KEY (store_id, listing_id)');
  await client.query('ANALYZE sv_listing');
  // Rows no longer produced: of whole rebuilds, and of candidates.
  listings.deleted += (await client.query(
    `DELETE FROM store_listing s USING sv_ps p WHERE p.store_id = s.store_id AND p.prev_day IS NULL
       AND NOT EXISTS (SELECT 1 FROM sv_listing n WHERE n.store_id = s.store_id AND n.listing_id = s.listing_id)`,
  )).rowCount ?? 0;
  listings.deleted += (await client.query(
    `DELETE FROM store_listing s USING sv_cand k WHERE k.store_id = s.store_id AND k.listing_id = s.listing_id
       AND NOT EXISTS (SELECT 1 FROM sv_listing n WHERE n.store_id = s.store_id AND n.listing_id = s.listing_id)`,
  )).rowCount ?? 0;
  // Only rows that differ are offered to the upsert (a join, not one index probe per row).
  listings.written += (await client.query(
    `INSERT INTO store_listing (store_id, listing_id, day, price, promo_price, promo_kind, median, ratio, multibuy_qty, multibuy_price)
     SELECT n.store_id, n.listing_id, n.day, n.price, n.promo_price, n.promo_kind, n.median, n.ratio, n.multibuy_qty, n.multibuy_price
     FROM sv_listing n LEFT JOIN store_listing o ON o.store_id = n.store_id AND o.listing_id = n.listing_id
     WHERE o.store_id IS NULL OR (o.day, o.price, o.promo_price, o.promo_kind, o.median, o.ratio, o.multibuy_qty, o.multibuy_price)
       IS DISTINCT FROM (n.day, n.price, n.promo_price, n.promo_kind, n.median, n.ratio, n.multibuy_qty, n.multibuy_price)
     ON CONFLICT (store_id, listing_id) DO UPDATE SET day = EXCLUDED.day, price = EXCLUDED.price, promo_price = EXCLUDED.promo_price,
       promo_kind = EXCLUDED.promo_kind, median = EXCLUDED.median, ratio = EXCLUDED.ratio,
       multibuy_qty = EXCLUDED.multibuy_qty, multibuy_price = EXCLUDED.multibuy_price
     WHERE (store_listing.day, store_listing.price, store_listing.promo_price, store_listing.promo_kind, store_listing.median, store_listing.ratio,
            store_listing.multibuy_qty, store_listing.multibuy_price)
       IS DISTINCT FROM (EXCLUDED.day, EXCLUDED.price, EXCLUDED.promo_price, EXCLUDED.promo_kind, EXCLUDED.median, EXCLUDED.ratio,
            EXCLUDED.multibuy_qty, EXCLUDED.multibuy_price)`,
  )).rowCount ?? 0;
}

/**
 * Level, n_items and groups of each of `storeIds` from its store_listing rows whose listing's
 * match is in force on the store's last day (stores with no priced basket item are absent).
 */
async function panelLevels(
  client: pg.PoolClient,
  storeIds: number[],
  basket: ReadonlyMap<number, LevelItem>,
  groups: GroupInfo[],
): Promise<Map<number, PanelRow>> {
  const out = new Map<number, PanelRow>();
  if (storeIds.length === 0) return out;
  const r = await client.query<{ store_id: number; item: number; listing: number; ratio: number }>(
    `SELECT x.store_id, m.item_id AS item, x.listing_id AS listing, x.ratio
     FROM store_listing x JOIN store st ON st.id = x.store_id
     JOIN basket_match m ON m.listing_id = x.listing_id AND m.valid_from <= st.last_day AND (m.valid_to IS NULL OR m.valid_to > st.last_day)
     JOIN sv_item i ON i.id = m.item_id
     WHERE x.store_id = ANY($1::int[])
     ORDER BY x.store_id`,
    [storeIds],
  );
  const byStore = new Map<number, ListingRatio[]>();
  for (const x of r.rows) {
    let a = byStore.get(x.store_id);
    if (!a) byStore.set(x.store_id, (a = []));
    a.push({ item: x.item, listing: x.listing, ratio: x.ratio });
  }
  for (const [storeId, ls] of byStore) {
    const priced = pricedItems(ls, basket);
    const { level, nItems } = storeLevel(priced);
    out.set(storeId, { store_id: storeId, level, n_items: nItems, groups: groupLevels(priced, groups) });
  }
  return out;
}

/** Recomputes area_level from the active stores and their panels; writes by difference. */
async function buildAreas(client: pg.PoolClient): Promise<StoreViewsReport['areas']> {
  const stores = (await client.query<{ retailer: string; town: string; area: string; urban: string | null; level: number | null; n_items: number }>(
    `SELECT r.slug AS retailer, st.town, st.area, st.urban, sl.level, coalesce(sl.n_items, 0) AS n_items
     FROM store st JOIN retailer r ON r.id = st.retailer_id LEFT JOIN store_level sl ON sl.store_id = st.id
     WHERE st.active ORDER BY st.id`,
  )).rows;
  const rows: AreaRow[] = rollUpAreas(stores.map((s) => ({ ...s, nItems: s.n_items })));
  const payload = JSON.stringify(rows);
  const deleted = (await client.query(
    `DELETE FROM area_level a WHERE NOT EXISTS (
       SELECT 1 FROM jsonb_to_recordset($1::jsonb) AS x(scope text, key text) WHERE x.scope = a.scope AND x.key = a.key)`,
    [payload],
  )).rowCount ?? 0;
  const written = rows.length === 0 ? 0 : (await client.query(
    `INSERT INTO area_level (scope, key, label, ord, level, stores, chains, towns)
     SELECT x.scope, x.key, x.label, x.ord, x.level, x.stores, ARRAY(SELECT jsonb_array_elements_text(x.chains)), ARRAY(SELECT jsonb_array_elements_text(x.towns))
     FROM jsonb_to_recordset($1::jsonb) AS x(scope text, key text, label text, ord int, level float8, stores int, chains jsonb, towns jsonb)
     ON CONFLICT (scope, key) DO UPDATE SET label = EXCLUDED.label, ord = EXCLUDED.ord, level = EXCLUDED.level, stores = EXCLUDED.stores,
       chains = EXCLUDED.chains, towns = EXCLUDED.towns
     WHERE (area_level.label, area_level.ord, area_level.level, area_level.stores, area_level.chains, area_level.towns)
       IS DISTINCT FROM (EXCLUDED.label, EXCLUDED.ord, EXCLUDED.level, EXCLUDED.stores, EXCLUDED.chains, EXCLUDED.towns)`,
    [payload],
  )).rowCount ?? 0;
  return { rows: rows.length, written, deleted };
}
