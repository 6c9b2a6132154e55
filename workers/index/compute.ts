/**
 * The index worker (issue 15, "The index worker"): computes the daily food-price index nowcast from
 * the national price spans of the listings matched to basket items, and stores it in index_item_day
 * (one row per observable item and day), index_day (all food, group id 0, and each observable group,
 * ids 1–4; restaurant meals, group 5, are not observable and get no rows) and index_run (the state to
 * continue from). The method is src/domain/price-index.ts (pure; its sources are cited there); this
 * module only reads its inputs and writes its outputs.
 *
 * One run = one REPEATABLE READ transaction (every statement sees the same snapshot, so what is
 * computed, the watermark stored with it and the rows written agree even while an ingest commits)
 * under a session advisory lock (the `index` lock, src/db/locks.ts) taken before the transaction starts, so
 * concurrent runs queue, the second one's snapshot includes the first's result, and readers see
 * either the old or the new index, never half of one. A serialization failure (a concurrent writer
 * of basket_match, e.g. the matcher) is retried.
 *
 * 1. The basket file is synced into basket_group / basket_item (workers/index/basket.ts), and with
 *    `dataDir` the official monthly FPI into official_index (workers/index/official.ts).
 * 2. **Inputs.** Matches: every basket_match row of an observable item, with its [valid_from,
 *    valid_to) interval. Prices: the national price spans (national_price_span) of the matched
 *    listings, each covering first_day … its end by the open-span rule (an open span ends at its
 *    chain's last national collection day: `spanToSql` / `nationalCoveredDay`, src/services/span-sql.ts),
 *    with the listing's pack total `qty × pack_count` (g or ml), `unit` and `weighable` (the shelf
 *    price of a weighable listing is per kg); promotion fields pass through (the method counts
 *    specials, promo_kind 1, and not club prices). Spans are not expanded to days: the method reads
 *    them as they are (price-index.ts `ListingSpan`).
 * 3. **Days.** From the first day a matched listing is priced while its match is in force (a price
 *    up to 14 days before valid_from counts from valid_from, as the method's cap says) to the last
 *    national collection day of any retailer, never after `today`. Every day in between is computed;
 *    days without prices are carried forward by the method.
 * 4. **Mode.** *full*: every day from scratch; index_item_day and index_day are rewritten (rows
 *    outside the range deleted). *incremental* (the default when possible): continue from the
 *    state stored in index_run over the new days only, writing only those days. Incremental is used
 *    when an index_run exists, its basket digest equals the current basket's, the last day has not
 *    moved back, and the **watermark** of its last day L is unchanged (which also keeps the first
 *    day: it depends only on matches and prices up to L). The watermark of L is
 *    what the days up to L were computed from, as two order-independent digests (count and sum of
 *    64-bit row hashes): every basket_match row with valid_from ≤ L (id, item, listing, valid_from,
 *    and valid_to clipped to L + 1), and every national span with first_day ≤ L of those listings
 *    (id, listing, first day, end by the open-span rule clipped to L, price, promo price and kind)
 *    with its listing's size fields (qty, pack_count, unit, weighable: a re-parsed size changes
 *    the basis of all history). Anything that changes an input of a computed day changes it: a
 *    match starting on or before L (the matcher starts new matches after L, but this is checked,
 *    not assumed), an ended or removed match, a span added or extended into computed days (a chain
 *    whose last collection day was before L ingesting a new day extends its open spans over days
 *    already computed), a listing's size. Then the run falls back to full. Nothing new (same
 *    watermark, no day after L to compute) → *unchanged*, nothing written.
 * 5. **Anchoring.** Each aggregate's `anchored` = raw × its factor from price-index.ts
 *    `anchorSeries` against its official series (all food: CPIM.SE901; groups: basket_group
 *    series_ref): the latest official month observed on every calendar day with coverage > 0. The
 *    factors are recomputed from all stored days on every run; when one changes (a new official
 *    month, or a month newly observed in full) every stored day of that aggregate is rescaled
 *    (`UPDATE index_day SET anchored = raw × factor`), even in an otherwise unchanged run.
 * 6. **Links.** Each open basket_match gets the link (ref_price, linked_relative) its listing had
 *    on the last day it was counted in its item while the match was in force, when that day is in
 *    the computed range; a match whose listing was not counted keeps its stored link.
 * 7. index_run (one row) holds first_day, last_day, the basket digest, the anchors by group id
 *    ({month, factor}) and the state: each item's state on last_day (relative, n, stale, last
 *    counted day, links with the basis that counted) and each aggregate's raw level
 *    (price-index.ts `stateToJson`), with the watermark and a format version; and `method`, the
 *    method that produced the rows.
 *
 * **Methods** (issue 30; names in src/domain/index-method.ts; `INDEX_METHOD`, `--method`). A run
 * whose method differs from the stored run's is a full run ("the method changed"), so the tables
 * never mix the two.
 * - `chained-jevons` (default): price-index.ts `computeIndex`, as above.
 * - `geks-jevons`: each item's relative is a real-time rolling GEKS-Jevons over 28 days with a
 *   window splice (src/domain/geks-index.ts) of its **counted-price panel** (price-index.ts
 *   `countedPanels`): for each day, the same listings with the same basis prices as the chained
 *   run counts that day (same matches in force, same spans, specials counted, club prices not,
 *   per kg/litre or per pack as the item says). Staleness: a listing stays in the panel with its
 *   latest price for STALE_DAYS (14) days after it was priced, then leaves it; an item with an
 *   empty panel carries its relative forward (n = 0), stale after 14 carried days — the chained
 *   run's rules. Upper levels, coverage, counts and anchoring are the chained run's. The GEKS run
 *   does not resume from a state: when there are new days it recomputes every day from the first
 *   (mode `full`). Each value is real time — it uses no day after its own — so a day's values do
 *   not depend on where the run stops and the full recomputation gives exactly what an incremental
 *   one would; with no new day and an unchanged watermark it writes nothing (`unchanged`), as the
 *   chained run. The links of basket_match (ref_price, linked_relative) belong to the chained
 *   Jevons and are left as they are; index_run.state holds only the aggregates' last levels and
 *   the watermark.
 */
import type pg from 'pg';
import { ALL_FOOD, groupId, loadBasket, type Basket } from '../../src/domain/basket.js';
import { addDays, isDay, nzToday } from '../../src/domain/days.js';
import {
  anchorSeries, computeIndex, countedPanels, stateFromJson, stateToJson, STALE_DAYS,
  type BasketItem as IndexBasketItem, type CoveredValue, type IndexRun, type IndexState, type ListingSpan, type Match,
} from '../../src/domain/price-index.js';
import { aggregateItemSeries, GEKS_OPTIONS, geksItemSeries, prepareGeksItem, type GeksItemSeries } from '../../src/domain/geks-index.js';
import { DEFAULT_INDEX_METHOD, parseIndexMethod, type IndexMethod } from '../../src/domain/index-method.js';
import { nationalCoveredDay, spanToSql } from '../../src/services/span-sql.js';
import { inTransaction } from '../../src/db/transaction.js';
import { lockSession, unlockSession } from '../../src/db/locks.js';
import { makeProgress } from '../progress.js';
import { copyCell, copyRows } from '../copy-rows.js';
import { syncBasket, type BasketSyncReport } from './basket.js';
import { importOfficialIndex, officialMonths } from './official.js';


/** Version of the index_run.state format; a stored state of another version forces a full run. */
export const INDEX_STATE_VERSION = 1;

/** Options of {@link runIndex}. */
export interface IndexOptions {
  /** Recompute every day from scratch even when an incremental run is possible. */
  full?: boolean;
  /** Folder of the shared data (DATA_DIR): when given, the official monthly FPI is imported from it first. */
  dataDir?: string;
  /** Show a progress bar over the days (default: when stderr is a terminal). */
  progress?: boolean;
  /** Today's NZ calendar day `YYYY-MM-DD` (default `nzToday()`): no day after it is computed. */
  today?: string;
  /**
   * The items' elementary method (src/domain/index-method.ts; default `chained-jevons`; the worker
   * passes `INDEX_METHOD` or `--method`). Module comment, "Methods".
   */
  method?: IndexMethod;
}

/** The anchor of one aggregate (index_run.anchor): official month and factor, or nulls when none. */
export interface AggregateAnchor {
  /** 0 for all food, else basket_group.id. */
  groupId: number;
  /** `all` for all food, else the group code. */
  code: string;
  /** `YYYY-MM`, the latest official month observed on every day, or null. */
  month: string | null;
  /** anchored = raw × factor; null when no month qualifies. */
  factor: number | null;
}

/** What {@link runIndex} did. */
export interface IndexReport {
  /** full: every day recomputed; incremental: only days after the stored last day; unchanged: no day computed. */
  mode: 'full' | 'incremental' | 'unchanged';
  /** Why this mode (e.g. "no previous run", "data changed on or before 2025-05-03"). */
  reason: string;
  /** The method of the run (stored in index_run.method with the rows it wrote). */
  method: IndexMethod;
  /** Days computed by this run (0 when unchanged). */
  days: number;
  /** The index's first and last day after the run (null when there is nothing to compute). */
  firstDay: string | null;
  lastDay: string | null;
  /** On the last day, all food: items with at least one counted listing, and counted listings. */
  items: number;
  listings: number;
  /** Rows written: index_item_day and index_day inserted, index_day rows re-anchored, basket_match links updated. */
  rows: { itemDays: number; indexDays: number; reanchored: number; links: number };
  /** True when some aggregate's anchor factor changed (its stored days were rescaled). */
  reanchored: boolean;
  /** All food, then each observable group. */
  anchors: AggregateAnchor[];
  basket: BasketSyncReport;
  /** Official months inserted or updated (0 without `dataDir`). */
  official: number;
  /** Wall time of the run, and of its phases: deciding the mode (sync, range, watermark), reading prices and matches, computing, writing. */
  seconds: number;
  phases: { prepare: number; read: number; compute: number; write: number };
}

/** What the computed days were computed from (see the module comment, step 4). */
interface Watermark {
  matches: string;
  spans: string;
}

/** The stored state: price-index.ts state JSON with the format version and the watermark of its day. */
type StoredState = ReturnType<typeof stateToJson> & { version: number; watermark: Watermark };

interface RunRow {
  method: string;
  first_day: string;
  last_day: string;
  basket_digest: string;
  anchor: Record<string, { month: string | null; factor: number | null }>;
  state: StoredState;
}

/** The basket as the method and the tables see it. */
interface Items {
  /** Observable items, method form. */
  index: IndexBasketItem[];
  idByCode: Map<string, number>;
  codeById: Map<number, string>;
  /** Aggregates: all food first, then observable groups, with their official series. */
  aggregates: { groupId: number; code: string; seriesRef: string }[];
}

function basketItems(basket: Basket): Items {
  const observable = basket.items.filter((i) => i.observable);
  const groups = basket.groups.filter((g) => g.observable && observable.some((i) => i.group === g.code));
  return {
    index: observable.map((i) => ({ code: i.code, group: i.group, weight: i.weight, perUnit: i.per_unit, observable: true })),
    idByCode: new Map(observable.map((i) => [i.code, i.id])),
    codeById: new Map(observable.map((i) => [i.id, i.code])),
    aggregates: [
      { groupId: ALL_FOOD.id, code: ALL_FOOD.code, seriesRef: ALL_FOOD.series_ref },
      ...groups.map((g) => ({ groupId: groupId(g.code), code: g.code as string, seriesRef: g.series_ref })),
    ],
  };
}

/** SQL of a national span's last priced day (open-span rule), for alias `s` with retailer alias `r`. */
const SPAN_TO = spanToSql('s', nationalCoveredDay('r'));

/**
 * Computes the index (see the module comment): full, incremental or nothing, in one transaction.
 * @throws RangeError for a malformed `opts.today`; BasketError for an invalid basket file;
 *   OfficialIndexError for a malformed official file; the database's errors (nothing is written).
 */
export async function runIndex(pool: pg.Pool, opts: IndexOptions = {}): Promise<IndexReport> {
  const today = opts.today ?? nzToday();
  if (!isDay(today)) throw new RangeError(`today must be a day YYYY-MM-DD, not "${today}"`);
  // A caller's value may come from anywhere (JSON, a test): checked here, before any work.
  const method = parseIndexMethod(String(opts.method ?? DEFAULT_INDEX_METHOD), 'runIndex method');
  const client = await pool.connect();
  let broken = false;
  try {
    await lockSession(client, 'index', 'wait');
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await inTransaction(client, (tx) => computeRun(tx, opts, today, method), { setup: 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ' });
        } catch (e) {
          if ((e as { code?: string }).code !== SERIALIZATION_FAILURE || attempt >= 3) throw e;
        }
      }
    } finally {
      broken = !(await unlockSession(client, 'index'));
    }
  } finally {
    // A connection that could not release its lock must not go back to the pool holding it.
    client.release(broken);
  }
}

/** SQLSTATE of a serialization failure (REPEATABLE READ write conflict): the run is retried. */
const SERIALIZATION_FAILURE = '40001';

/** One run inside the transaction (see the module comment). */
async function computeRun(client: pg.PoolClient, opts: IndexOptions, today: string, method: IndexMethod): Promise<IndexReport> {
  const t0 = performance.now();
  const basket = loadBasket();
  const sync = await syncBasket(client, basket);
  const official = opts.dataDir ? await importOfficialIndex(client, opts.dataDir) : 0;
  const items = basketItems(basket);
  const ids = [...items.codeById.keys()];
  const seconds = () => (performance.now() - t0) / 1000;
  const phases = { prepare: 0, read: 0, compute: 0, write: 0 };
  let mark = performance.now();
  const phase = (name: keyof typeof phases) => {
    const now = performance.now();
    phases[name] += (now - mark) / 1000;
    mark = now;
  };
  const base = { basket: sync, official, phases, method };

  const last = await lastDayOf(client, today);
  const run = (await client.query<RunRow>(
    'SELECT method, first_day::text, last_day::text, basket_digest, anchor, state FROM index_run WHERE id = 1',
  )).rows[0] ?? null;

  // Mode. Continuing needs an unchanged watermark of the stored last day, which also fixes the
  // first day (it depends only on matches and prices up to then); a full run looks it up.
  let resume: IndexState | null = null;
  let nextWatermark: Watermark | null = null;
  let reason: string;
  if (opts.full) reason = 'full run requested';
  else if (!run) reason = 'no previous run';
  else if (run.method !== method) reason = `the method changed (${run.method} → ${method})`;
  else if (run.basket_digest !== sync.digest) reason = 'the basket changed';
  else if (run.state?.version !== INDEX_STATE_VERSION) reason = 'stored state of another version';
  else if (last == null || last < run.last_day) reason = `the last day moved back (${run.last_day} → ${last})`;
  else {
    // The stored last day's watermark, and (one scan) the new last day's, stored if this continues.
    const [wm, next] = await watermarks(client, ids, run.last_day, last);
    nextWatermark = next;
    if (wm.matches !== run.state.watermark?.matches) reason = `basket matches changed on or before ${run.last_day}`;
    else if (wm.spans !== run.state.watermark?.spans) reason = `prices or sizes changed on or before ${run.last_day}`;
    else {
      try {
        resume = stateFromJson(run.state);
        reason = last === run.last_day ? 'no new day' : `new days after ${run.last_day}`;
      } catch {
        reason = 'stored state unreadable';
      }
      if (resume && resume.day !== run.last_day) {
        resume = null;
        reason = 'stored state is not of the last day';
      }
      // GEKS-Jevons does not continue from a state: new days recompute every day (module comment, "Methods").
      if (resume && method === 'geks-jevons' && last !== run.last_day) {
        resume = null;
        reason = `new days after ${run.last_day} (GEKS-Jevons recomputes every day)`;
      }
    }
  }
  const first = resume ? run!.first_day : await firstDayOf(client, ids);
  const range = first != null && last != null && first <= last ? { first, last } : null;

  if (range == null) {
    // Nothing priced while matched: no index (get_index_latest answers 404 again).
    const had = run != null || (await client.query('SELECT 1 FROM index_day LIMIT 1')).rowCount! > 0;
    if (had) {
      await client.query('DELETE FROM index_item_day');
      await client.query('DELETE FROM index_day');
      await client.query('DELETE FROM index_run');
    }
    return {
      ...base, mode: had ? 'full' : 'unchanged', reason: 'no matched listing is priced while matched', days: 0, firstDay: null, lastDay: null,
      items: 0, listings: 0, rows: { itemDays: 0, indexDays: 0, reanchored: 0, links: 0 }, reanchored: false, anchors: [], seconds: seconds(),
    };
  }

  const from = resume ? addDays(resume.day, 1) : range.first;
  const to = range.last;
  /** The computed days' series (either method), and the chained run itself (links, state) when chained. */
  let computed: Series | null = null;
  let chained: IndexRun | null = null;
  phase('prepare');
  if (from <= to) {
    const matches = await loadMatches(client, items, from, to);
    const spans = await loadMatchedSpans(client, ids, from, to);
    phase('read');
    const n = Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
    if (method === 'geks-jevons') {
      const bar = makeProgress(opts.progress, 'index items (GEKS-Jevons)', items.index.length);
      computed = computeGeks(items.index, matches, spans, from, to, () => bar.increment());
      bar.stop();
    } else {
      const bar = makeProgress(opts.progress, resume ? 'index days (incremental)' : 'index days', n);
      computed = chained = computeIndex({ from, to, basket: items.index, matches, spans, resume, onDay: () => bar.increment() });
      bar.stop();
    }
    phase('compute');
  }
  const mode: IndexReport['mode'] = computed == null ? 'unchanged' : resume ? 'incremental' : 'full';

  // Rows of the new days (all days in full mode).
  const rows = { itemDays: 0, indexDays: 0, reanchored: 0, links: 0 };
  if (computed) {
    if (mode === 'full') {
      await client.query('DELETE FROM index_item_day');
      await client.query('DELETE FROM index_day');
    } else {
      await client.query('DELETE FROM index_item_day WHERE day > $1', [run!.last_day]);
      await client.query('DELETE FROM index_day WHERE day > $1', [run!.last_day]);
    }
  }

  // Anchors over every day (stored days before `from`, then the computed ones).
  const stored = mode === 'full' ? new Map<number, CoveredValue[]>() : await storedSeries(client);
  const anchors: AggregateAnchor[] = [];
  let reanchored = false;
  for (const a of items.aggregates) {
    const series = [...(stored.get(a.groupId) ?? [])];
    const s = computed ? aggregateOf(computed, a.code) : null;
    if (computed && s) computed.days.forEach((day, i) => series.push({ day, value: s.raw[i], coverage: s.coverage[i] }));
    const { month, factor } = anchorSeries(series, await officialMonths(client, a.seriesRef));
    anchors.push({ groupId: a.groupId, code: a.code, month, factor });
    const before = run?.anchor?.[String(a.groupId)];
    if (mode !== 'full' && (before?.factor ?? null) !== factor) {
      reanchored = true;
      const r = await client.query(
        `UPDATE index_day SET anchored = raw * $2::float8 WHERE group_id = $1 AND day <= $3 AND anchored IS DISTINCT FROM raw * $2::float8`,
        [a.groupId, factor, run!.last_day],
      );
      rows.reanchored += r.rowCount ?? 0;
    }
  }

  if (computed) {
    rows.itemDays = await copyRows(client, 'index_item_day (item_id, day, relative, n, stale)', itemDayRows(computed, items));
    rows.indexDays = await copyRows(client, 'index_day (group_id, day, raw, anchored, coverage, items, listings)', indexDayRows(computed, items, anchors));
    // The links (basket_match ref_price, linked_relative) are the chained Jevons's: a GEKS run leaves them as they are.
    if (chained) rows.links = await updateLinks(client, chained, items);
    const endState = chained ? chained.state : lastLevels(computed, to);
    const state: StoredState = { ...stateToJson(endState), version: INDEX_STATE_VERSION, watermark: resume && nextWatermark ? nextWatermark : (await watermarks(client, ids, to, to))[0] };
    await client.query(
      `INSERT INTO index_run (id, first_day, last_day, anchor, basket_digest, state, computed_at, method)
       VALUES (1, $1, $2, $3, $4, $5, now(), $6)
       ON CONFLICT (id) DO UPDATE SET first_day = EXCLUDED.first_day, last_day = EXCLUDED.last_day, anchor = EXCLUDED.anchor,
         basket_digest = EXCLUDED.basket_digest, state = EXCLUDED.state, computed_at = EXCLUDED.computed_at, method = EXCLUDED.method`,
      [range.first, to, JSON.stringify(anchorJson(anchors)), sync.digest, JSON.stringify(state), method],
    );
  } else if (reanchored) {
    await client.query('UPDATE index_run SET anchor = $1 WHERE id = 1', [JSON.stringify(anchorJson(anchors))]);
  }

  phase('write');
  let counted = { items: 0, listings: 0 };
  if (computed) {
    const i = computed.days.length - 1;
    counted = { items: computed.all.items[i], listings: computed.all.listings[i] };
  } else {
    const r = await client.query<{ items: number; listings: number }>('SELECT items, listings FROM index_day WHERE group_id = 0 AND day = $1', [to]);
    if (r.rows[0]) counted = r.rows[0];
  }
  return {
    ...base, mode, reason, days: computed?.days.length ?? 0, firstDay: range.first, lastDay: to, ...counted, rows, reanchored, anchors, seconds: seconds(),
  };
}

/**
 * The first day to compute: the first day a listing is priced while matched to an observable item
 * (a price from up to 14 days before valid_from counts from valid_from); null when there is none.
 */
async function firstDayOf(client: pg.PoolClient, ids: number[]): Promise<string | null> {
  const r = await client.query<{ first: string | null }>(
    `SELECT min(greatest(m.valid_from, s.first_day))::text AS first
       FROM basket_match m
       JOIN national_price_span s ON s.listing_id = m.listing_id
       JOIN listing l ON l.id = m.listing_id JOIN retailer r ON r.id = l.retailer_id
      WHERE m.item_id = ANY($1::int[]) AND ${SPAN_TO} + $2::int >= m.valid_from
        AND (m.valid_to IS NULL OR greatest(m.valid_from, s.first_day) < m.valid_to)`,
    [ids, STALE_DAYS],
  );
  return r.rows[0].first;
}

/** The last day to compute: the latest national collection day of any retailer, at most `today`; null when none. */
async function lastDayOf(client: pg.PoolClient, today: string): Promise<string | null> {
  const r = await client.query<{ last: string | null }>('SELECT least(max(last_national_day), $1::date)::text AS last FROM retailer', [today]);
  return r.rows[0].last;
}

/**
 * The watermarks of days `a` and `b` (module comment, step 4; `a` ≤ `b`), in one scan of the
 * matches and spans: digests of the matches and spans that the days up to each read.
 */
async function watermarks(client: pg.PoolClient, ids: number[], a: string, b: string): Promise<[Watermark, Watermark]> {
  const matchHash = (d: string) => `hashtextextended(ROW(m.id, m.item_id, m.listing_id, m.valid_from,
    least(coalesce(m.valid_to, 'infinity'::date), ${d}::date + 1))::text, 0)::numeric`;
  const spanHash = (d: string) => `hashtextextended(ROW(s.id, s.listing_id, s.first_day, least(${SPAN_TO}, ${d}::date),
    s.price, s.promo_price, s.promo_kind, l.qty, l.pack_count, l.unit, l.weighable)::text, 0)::numeric`;
  const digest = (hash: string, where: string) => `count(*) FILTER (WHERE ${where}) || ':' || coalesce(sum(${hash}) FILTER (WHERE ${where}), 0)`;
  // The same day twice (nothing new to compute): one digest each (hashing is most of the cost).
  const one = a === b;
  const r = await client.query<{ ma: string; mb: string; sa: string; sb: string }>(
    `WITH m AS (SELECT * FROM basket_match WHERE item_id = ANY($1::int[]) AND valid_from <= $3::date),
     ml AS (SELECT listing_id, min(valid_from) AS valid_from FROM m GROUP BY listing_id)
     SELECT ms.ma, ms.mb, ss.sa, ss.sb, $2::date AS a FROM
       (SELECT ${one ? 'NULL' : digest(matchHash('$2'), 'm.valid_from <= $2::date')} AS ma, ${digest(matchHash('$3'), 'true')} AS mb FROM m) ms,
       (SELECT ${one ? 'NULL' : digest(spanHash('$2'), 's.first_day <= $2::date AND ml.valid_from <= $2::date')} AS sa,
               ${digest(spanHash('$3'), 'true')} AS sb
          FROM national_price_span s JOIN ml ON ml.listing_id = s.listing_id
          JOIN listing l ON l.id = s.listing_id JOIN retailer r ON r.id = l.retailer_id
         WHERE s.first_day <= $3::date) ss`,
    [ids, a, b],
  );
  const x = r.rows[0];
  const wb = { matches: x.mb, spans: x.sb };
  return [one ? wb : { matches: x.ma, spans: x.sa }, wb];
}

/** Matches of observable items that are in force on some day of `from`…`to`, by id. */
async function loadMatches(client: pg.PoolClient, items: Items, from: string, to: string): Promise<Match[]> {
  const r = await client.query<{ listing_id: number; item_id: number; valid_from: string; valid_to: string | null }>(
    `SELECT listing_id, item_id, valid_from::text, valid_to::text FROM basket_match
     WHERE item_id = ANY($1::int[]) AND valid_from <= $3::date AND (valid_to IS NULL OR valid_to > $2::date) ORDER BY id`,
    [[...items.codeById.keys()], from, to],
  );
  return r.rows.map((m) => ({ listingId: m.listing_id, itemCode: items.codeById.get(m.item_id)!, validFrom: m.valid_from, validTo: m.valid_to }));
}

/**
 * National spans of the listings of those matches that can count on a day of `from`…`to`: starting
 * on or before `to` and priced on or after `from − 14` (the cap), ends by the open-span rule
 * (clipped to `to`), with the listing's pack total in g or ml (`qty × pack_count`), unit and
 * weighable flag.
 */
export async function loadMatchedSpans(client: pg.PoolClient, ids: number[], from: string, to: string): Promise<ListingSpan[]> {
  const r = await client.query<ListingSpan>(
    `SELECT s.listing_id AS "listingId", s.first_day::text AS "firstDay", least(${SPAN_TO}, $3::date)::text AS "lastDay",
            s.price, s.promo_price AS "promoPrice", s.promo_kind AS "promoKind",
            l.qty * coalesce(l.pack_count, 1) AS qty, l.unit, l.weighable
       FROM national_price_span s JOIN listing l ON l.id = s.listing_id JOIN retailer r ON r.id = l.retailer_id
      WHERE s.listing_id IN (SELECT listing_id FROM basket_match WHERE item_id = ANY($1::int[]) AND valid_from <= $3::date
                               AND (valid_to IS NULL OR valid_to > $2::date))
        AND s.first_day <= $3::date AND ${SPAN_TO} >= $2::date - $4::int
      ORDER BY s.listing_id, s.first_day, s.id`,
    [ids, from, to, STALE_DAYS],
  );
  return r.rows;
}

/** Stored raw and coverage of every aggregate, by group id, oldest first. */
async function storedSeries(client: pg.PoolClient): Promise<Map<number, CoveredValue[]>> {
  const r = await client.query<{ group_id: number; day: string; raw: number; coverage: number }>(
    'SELECT group_id, day::text, raw, coverage FROM index_day ORDER BY group_id, day',
  );
  const out = new Map<number, CoveredValue[]>();
  for (const row of r.rows) {
    let l = out.get(row.group_id);
    if (!l) out.set(row.group_id, (l = []));
    l.push({ day: row.day, value: row.raw, coverage: row.coverage });
  }
  return out;
}

/** The series of computed days that both methods produce (and the tables store). */
type Series = Pick<IndexRun, 'days' | 'all' | 'groups' | 'items'>;

/**
 * The GEKS-Jevons index over `from`…`to` (module comment, "Methods"): each observable item's
 * counted-price panel from the same matches and spans the chained run reads (price-index.ts
 * `countedPanels`), its real-time rolling GEKS-Jevons (src/domain/geks-index.ts, window
 * `GEKS_WINDOW_DAYS`, bilateral indices only between days the window can compare), and the same
 * upper levels. One item at a time (its panel and bilateral indices are dropped before the next:
 * geks-index.ts `geksIndex` in steps). `onItem` after each item (progress).
 */
function computeGeks(basket: IndexBasketItem[], matches: Match[], spans: ListingSpan[], from: string, to: string, onItem: () => void): Series {
  const panels = countedPanels({ from, to, basket, matches, spans });
  const series = new Map<string, GeksItemSeries>();
  for (const code of panels.codes) {
    series.set(code, geksItemSeries(prepareGeksItem(code, panels.panel(code), GEKS_OPTIONS.window - 1), panels.days));
    onItem();
  }
  return aggregateItemSeries(basket, series, panels.days);
}

/**
 * A GEKS run's state on its last day `day`, for index_run.state: the aggregates' raw levels and no
 * item states (GEKS-Jevons never resumes from it; the row keeps the watermark and the format).
 */
function lastLevels(s: Series, day: string): IndexState {
  const i = s.days.length - 1;
  return { day, raw: { all: s.all.raw[i], groups: new Map([...s.groups].map(([g, x]) => [g, x.raw[i]])) }, items: new Map() };
}

function aggregateOf(run: Series, code: string) {
  return code === ALL_FOOD.code ? run.all : run.groups.get(code) ?? null;
}

function anchorJson(anchors: AggregateAnchor[]): RunRow['anchor'] {
  return Object.fromEntries(anchors.map((a) => [String(a.groupId), { month: a.month, factor: a.factor }]));
}


function* itemDayRows(run: Series, items: Items): Generator<string> {
  for (const [code, s] of run.items) {
    const id = items.idByCode.get(code)!;
    for (let i = 0; i < run.days.length; i++) {
      yield `${id}\t${run.days[i]}\t${copyCell(s.relative[i])}\t${copyCell(s.n[i])}\t${copyCell(s.stale[i])}\n`;
    }
  }
}

function* indexDayRows(run: Series, items: Items, anchors: AggregateAnchor[]): Generator<string> {
  for (const a of items.aggregates) {
    const s = aggregateOf(run, a.code);
    if (!s) continue;
    const factor = anchors.find((x) => x.groupId === a.groupId)?.factor ?? null;
    for (let i = 0; i < run.days.length; i++) {
      const coverage = Math.min(1, Math.max(0, s.coverage[i]));
      yield `${a.groupId}\t${run.days[i]}\t${copyCell(s.raw[i])}\t${copyCell(factor == null ? null : s.raw[i] * factor)}\t${coverage}\t${s.items[i]}\t${s.listings[i]}\n`;
    }
  }
}


/**
 * Writes the links of the run onto the open matches (module comment, step 6): only where the
 * listing was counted on or after the match's valid_from, and only values that differ.
 */
async function updateLinks(client: pg.PoolClient, run: IndexRun, items: Items): Promise<number> {
  const listing: number[] = [];
  const item: number[] = [];
  const ref: number[] = [];
  const rel: number[] = [];
  const day: string[] = [];
  for (const [code, links] of run.links) {
    const id = items.idByCode.get(code)!;
    for (const [lid, l] of links) {
      listing.push(lid);
      item.push(id);
      ref.push(l.refPrice);
      rel.push(l.linkedRelative);
      day.push(l.day);
    }
  }
  if (listing.length === 0) return 0;
  const r = await client.query(
    `UPDATE basket_match m SET ref_price = u.ref, linked_relative = u.rel
       FROM unnest($1::int[], $2::int[], $3::float8[], $4::float8[], $5::date[]) AS u(listing_id, item_id, ref, rel, day)
      WHERE m.listing_id = u.listing_id AND m.item_id = u.item_id AND m.valid_to IS NULL AND m.valid_from <= u.day
        AND (m.ref_price, m.linked_relative) IS DISTINCT FROM (u.ref, u.rel)`,
    [listing, item, ref, rel, day],
  );
  return r.rowCount ?? 0;
}
