/**
 * The chain views of the derived-views worker (issue 16 item 3): chain_item_price (compare_retailers'
 * items) and chain_level_day (get_retailer_levels, and compare_retailers' headline and groups on the
 * latest day). The rules are src/domain/chain-levels.ts (pure); this module reads their inputs and
 * writes their outputs, inside the transaction the orchestrator (workers/views/run.ts) opened.
 *
 * **Inputs**, as the index worker reads them (workers/index/compute.ts): the active basket items of
 * observable groups (basket_item, basket_group); their basket_match rows with [valid_from, valid_to)
 * intervals; the national price spans (national_price_span) of the matched listings, each ending by
 * the open-span rule (`spanToSql` / `nationalCoveredDay`, src/services/span-sql.ts), with the listing's
 * chain, pack total `qty × pack_count` (g or ml), `unit` and `weighable`.
 *
 * **Days.** The level days are the days the index has run: index_run.first_day … last_day. Without
 * an index run, the single latest national collection day of any chain (so compare_retailers has a
 * headline before the first index run). No span is read past the last day.
 *
 * **chain_item_price**: on the last level day, each active observable basket item at each chain
 * that prices it: the median of the basis prices of the chain's listings counted that day, rounded
 * to whole cents (`chainPricer`: specials count, club prices do not; per kg or litre for per-unit
 * items; a listing counts when its match is in force and it was priced nationally within the
 * 14-day cap), with `listings` = how many. Rewritten in full on every build (only rows that differ
 * are written).
 *
 * **chain_level_day**, for every level day: each chain's level for group 0 (all food) and for each
 * observable group, `chainLevels` of that day's chain item prices — the weighted geometric mean
 * (basket weights) over the items priced at ≥ 2 chains that day of chain price ÷ cross-chain median
 * of the item's chain prices; `items` = how many such items. A row exists for a chain and group on
 * a day when the chain priced at least one active observable item of the group that day (comparable
 * or not); `level` is null for all food under 20 comparable items (MIN_LEVEL_ITEMS, the store rule)
 * and for a group with no comparable item. A chain with no row on a day has no value that day.
 *
 * **Incremental.** The build's state (first and last level day, a watermark of the inputs of the
 * days up to the last one, and the row count of chain_level_day) is returned as
 * {@link ChainViewsReport.state}; the orchestrator stores it in view_run.detail of the view
 * `chains` (as `{report}` — workers/views/run.ts stores `{parts, report}` — or as `{state}`, or the
 * state itself); without it every build is full. The next build
 * reads it back and computes only the days after the stored last day when:
 * the first day is the same, the last day has not moved back, chain_level_day still holds the
 * stored number of rows, and the watermark of the stored last day S is unchanged. The watermark
 * of S is three order-independent digests (count and sum of 64-bit row hashes): every basket_match
 * row of an active observable item with valid_from ≤ S (id, item, listing, valid_from, valid_to
 * clipped to S + 1); every national span with first_day ≤ S of those listings (id, listing, first
 * day, end by the open-span rule clipped to S, price, promo price and kind) with its listing's
 * chain and size fields; and the active observable items (id, group, weight, basis). Anything that
 * changes an input of a stored day changes it (e.g. a chain whose last collection day was before S
 * ingesting a new day extends its open spans over stored days); then the build is full. `full`
 * forces a full build. A day's values depend only on that day's inputs, so an incremental build
 * writes exactly the rows a full one would (bit-identical: sums run in a fixed order).
 *
 * Idempotent: a build with nothing changed writes no row (rows are compared before writing).
 */
import type pg from 'pg';
import { addDays } from '../../src/domain/days.js';
import { chainLevels, chainPricer, type ChainItemPriceRow, type ChainMatch, type LevelItem } from '../../src/domain/chain-levels.js';
import { nationalCoveredDay, spanToSql } from '../../src/services/span-sql.js';
import { makeProgress } from '../progress.js';
import { loadMatchedSpans } from '../index/compute.js';

/** Version of {@link ChainViewsState}; a stored state of another version forces a full build. */
export const CHAIN_VIEWS_FORMAT = 1;

/** Digests of what the stored days were computed from (module comment, "Incremental"). */
export interface ChainWatermark {
  basket: string;
  matches: string;
  spans: string;
}

/** What the next build continues from; stored by the orchestrator in view_run.detail ('chains'). */
export interface ChainViewsState {
  format: number;
  /** First and last level day of this build. */
  firstDay: string;
  lastDay: string;
  /** The watermark of `lastDay`. */
  watermark: ChainWatermark;
  /** Rows of chain_level_day after this build. */
  levelRows: number;
}

/** Options of {@link buildChainViews}. */
export interface ChainViewsOptions {
  /** Recompute every level day even when an incremental build is possible. */
  full?: boolean;
  /** Show a progress bar over the days (default: when stderr is a terminal). */
  progress?: boolean;
}

/** What {@link buildChainViews} did. */
export interface ChainViewsReport {
  /** full: every level day computed; incremental: the days after the stored last day; unchanged: only the last day, re-checked. */
  mode: 'full' | 'incremental' | 'unchanged';
  /** Why this mode (e.g. "no previous build", "inputs of days up to 2026-08-02 changed"). */
  reason: string;
  /** The day of chain_item_price (the last level day), or null when nothing is priced. */
  day: string | null;
  /** The level days after the build, or nulls when there are none. */
  firstDay: string | null;
  lastDay: string | null;
  /** Level days computed by this build. */
  days: number;
  /** chain_item_price rows after the build, and the chains among them. */
  itemPrices: number;
  chains: number;
  /** Rows written (inserted or updated) and deleted, per table. */
  rows: { itemPrices: { written: number; deleted: number }; levels: { written: number; deleted: number } };
  /** The state to store in view_run.detail (null when there are no level days). */
  state: ChainViewsState | null;
  /** Wall time of the build, and of its phases: deciding the mode (watermarks), reading, computing, writing. */
  seconds: number;
  phases: { prepare: number; read: number; compute: number; write: number };
}

/** SQL of a national span's last priced day (open-span rule), for alias `s` with retailer alias `r`. */
const SPAN_TO = spanToSql('s', nationalCoveredDay('r'));

/** Active basket items of observable groups, by id. */
const ITEMS_SQL = `SELECT i.id, i.group_id AS "groupId", i.weight, i.per_unit AS "perUnit"
  FROM basket_item i JOIN basket_group g ON g.id = i.group_id WHERE i.active AND g.observable`;

/**
 * Builds chain_item_price and chain_level_day (module comment) in the caller's transaction.
 * @throws the database's errors; RangeError on inconsistent stored spans.
 */
export async function buildChainViews(client: pg.PoolClient, opts: ChainViewsOptions = {}): Promise<ChainViewsReport> {
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  const phases = { prepare: 0, read: 0, compute: 0, write: 0 };
  let mark = t0;
  const phase = (name: keyof typeof phases) => {
    const now = performance.now();
    phases[name] += (now - mark) / 1000;
    mark = now;
  };
  const range = await levelDays(client);
  const rows = { itemPrices: { written: 0, deleted: 0 }, levels: { written: 0, deleted: 0 } };

  if (range == null) {
    rows.levels.deleted = (await client.query('DELETE FROM chain_level_day')).rowCount ?? 0;
    rows.itemPrices.deleted = (await client.query('DELETE FROM chain_item_price')).rowCount ?? 0;
    return {
      mode: 'full', reason: 'no level day (no index run and no national collection)', day: null, firstDay: null, lastDay: null,
      days: 0, itemPrices: 0, chains: 0, rows, state: null, seconds: seconds(), phases,
    };
  }
  const { first, last } = range;

  // Mode (module comment, "Incremental").
  const prev = await storedState(client);
  let mode: ChainViewsReport['mode'] = 'full';
  let reason: string;
  let nextWatermark: ChainWatermark | null = null;
  if (opts.full) reason = 'full build requested';
  else if (!prev) reason = 'no previous build';
  else if (prev.firstDay !== first) reason = `the first day changed (${prev.firstDay} → ${first})`;
  else if (last < prev.lastDay) reason = `the last day moved back (${prev.lastDay} → ${last})`;
  else if (Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM chain_level_day')).rows[0].n) !== prev.levelRows) {
    reason = 'chain_level_day does not hold the rows of the previous build';
  } else {
    const [wm, next] = await watermarks(client, prev.lastDay, last);
    if (!sameWatermark(wm, prev.watermark)) reason = `inputs of days up to ${prev.lastDay} changed`;
    else {
      nextWatermark = next;
      mode = last === prev.lastDay ? 'unchanged' : 'incremental';
      reason = mode === 'unchanged' ? 'no new day' : `new days after ${prev.lastDay}`;
    }
  }
  const from = mode === 'full' ? first : mode === 'incremental' ? addDays(prev!.lastDay, 1) : last;

  phase('prepare');

  // Compute from..last.
  const items = (await client.query<LevelItem & { perUnit: boolean }>(`${ITEMS_SQL} ORDER BY i.id`)).rows;
  const ids = items.map((i) => i.id);
  const matches = await loadMatches(client, ids, from, last);
  const spans = await loadMatchedSpans(client, ids, from, last);
  phase('read');
  const pricer = chainPricer(items, matches, spans);
  const out = { retailer: [] as number[], group: [] as number[], day: [] as string[], level: [] as (number | null)[], items: [] as number[] };
  let lastPrices: ChainItemPriceRow[] = [];
  let days = 0;
  const nDays = Math.round((Date.parse(last) - Date.parse(from)) / 86_400_000) + 1;
  const progress = makeProgress(opts.progress, 'chain levels', nDays);
  for (let day = from; day <= last; day = addDays(day, 1)) {
    const prices = pricer(day);
    for (const l of chainLevels(items, prices)) {
      out.retailer.push(l.retailerId);
      out.group.push(l.groupId);
      out.day.push(day);
      out.level.push(l.level);
      out.items.push(l.items);
    }
    if (day === last) lastPrices = prices;
    days++;
    progress.increment();
  }
  progress.stop();
  phase('compute');

  // Write only what differs: rows of the computed days (and outside the level days) not computed
  // now are deleted; computed rows are inserted or updated when they differ.
  rows.levels.deleted = (await client.query(
    `DELETE FROM chain_level_day c USING (
       SELECT retailer_id, group_id, day FROM chain_level_day WHERE day >= $1::date OR day < $2::date
       EXCEPT SELECT * FROM unnest($3::int[], $4::int[], $5::date[])
     ) x WHERE c.retailer_id = x.retailer_id AND c.group_id = x.group_id AND c.day = x.day`,
    [from, first, out.retailer, out.group, out.day],
  )).rowCount ?? 0;
  rows.levels.written = (await client.query(
    `INSERT INTO chain_level_day (retailer_id, group_id, day, level, items)
     SELECT * FROM unnest($1::int[], $2::int[], $3::date[], $4::float8[], $5::int[])
     ON CONFLICT (retailer_id, group_id, day) DO UPDATE SET level = EXCLUDED.level, items = EXCLUDED.items
     WHERE (chain_level_day.level, chain_level_day.items) IS DISTINCT FROM (EXCLUDED.level, EXCLUDED.items)`,
    [out.retailer, out.group, out.day, out.level, out.items],
  )).rowCount ?? 0;

  const pi = { item: lastPrices.map((p) => p.itemId), retailer: lastPrices.map((p) => p.retailerId), price: lastPrices.map((p) => p.price), listings: lastPrices.map((p) => p.listings) };
  rows.itemPrices.deleted = (await client.query(
    `DELETE FROM chain_item_price c USING (
       SELECT item_id, retailer_id FROM chain_item_price EXCEPT SELECT * FROM unnest($1::int[], $2::int[])
     ) x WHERE c.item_id = x.item_id AND c.retailer_id = x.retailer_id`,
    [pi.item, pi.retailer],
  )).rowCount ?? 0;
  rows.itemPrices.written = (await client.query(
    `INSERT INTO chain_item_price (item_id, retailer_id, price, listings)
     SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::int[])
     ON CONFLICT (item_id, retailer_id) DO UPDATE SET price = EXCLUDED.price, listings = EXCLUDED.listings
     WHERE (chain_item_price.price, chain_item_price.listings) IS DISTINCT FROM (EXCLUDED.price, EXCLUDED.listings)`,
    [pi.item, pi.retailer, pi.price, pi.listings],
  )).rowCount ?? 0;

  const levelRows = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM chain_level_day')).rows[0].n);
  const watermark = nextWatermark ?? (await watermarks(client, last, last))[1];
  phase('write');
  return {
    mode, reason, day: last, firstDay: first, lastDay: last, days,
    itemPrices: lastPrices.length, chains: new Set(pi.retailer).size, rows,
    state: { format: CHAIN_VIEWS_FORMAT, firstDay: first, lastDay: last, watermark, levelRows },
    seconds: seconds(), phases,
  };
}

/**
 * The level days (module comment, "Days"): index_run's first … last day, else the latest national
 * collection day of any chain alone; null when neither exists.
 */
async function levelDays(client: pg.PoolClient): Promise<{ first: string; last: string } | null> {
  const run = (await client.query<{ first: string; last: string }>('SELECT first_day::text AS first, last_day::text AS last FROM index_run WHERE id = 1')).rows[0];
  if (run) return run;
  const d = (await client.query<{ d: string | null }>('SELECT max(last_national_day)::text AS d FROM retailer')).rows[0].d;
  return d == null ? null : { first: d, last: d };
}

/**
 * The state stored by the previous build, or null: view_run.detail of 'chains' holding the report
 * under `report` (as workers/views/run.ts stores it), or the state under `state`, or the state.
 */
async function storedState(client: pg.PoolClient): Promise<ChainViewsState | null> {
  const r = await client.query<{ s: unknown }>(`SELECT coalesce(detail->'report'->'state', detail->'state', detail) AS s FROM view_run WHERE name = 'chains'`);
  const s = r.rows[0]?.s as Partial<ChainViewsState> | null | undefined;
  if (!s || typeof s !== 'object' || s.format !== CHAIN_VIEWS_FORMAT) return null;
  if (typeof s.firstDay !== 'string' || typeof s.lastDay !== 'string' || typeof s.levelRows !== 'number') return null;
  const w = s.watermark;
  if (!w || typeof w.basket !== 'string' || typeof w.matches !== 'string' || typeof w.spans !== 'string') return null;
  return s as ChainViewsState;
}

function sameWatermark(a: ChainWatermark, b: ChainWatermark): boolean {
  return a.basket === b.basket && a.matches === b.matches && a.spans === b.spans;
}

/**
 * The watermarks of days `a` and `b` (`a` ≤ `b`; module comment, "Incremental") in one scan of the
 * matches and spans.
 */
async function watermarks(client: pg.PoolClient, a: string, b: string): Promise<[ChainWatermark, ChainWatermark]> {
  const matchHash = (d: string) => `hashtextextended(ROW(m.id, m.item_id, m.listing_id, m.valid_from,
    least(coalesce(m.valid_to, 'infinity'::date), ${d}::date + 1))::text, 0)::numeric`;
  const spanHash = (d: string) => `hashtextextended(ROW(s.id, s.listing_id, s.first_day, least(${SPAN_TO}, ${d}::date),
    s.price, s.promo_price, s.promo_kind, l.retailer_id, l.qty, l.pack_count, l.unit, l.weighable)::text, 0)::numeric`;
  const digest = (hash: string, where: string) => `count(*) FILTER (WHERE ${where}) || ':' || coalesce(sum(${hash}) FILTER (WHERE ${where}), 0)`;
  // The same day twice: one digest each (hashing is most of the cost).
  const one = a === b;
  const r = await client.query<{ basket: string; ma: string; mb: string; sa: string; sb: string }>(
    `WITH items AS (${ITEMS_SQL}),
     m AS (SELECT * FROM basket_match WHERE item_id IN (SELECT id FROM items) AND valid_from <= $2::date),
     ml AS (SELECT listing_id, min(valid_from) AS valid_from FROM m GROUP BY listing_id)
     SELECT (SELECT count(*) || ':' || coalesce(sum(hashtextextended(ROW(id, "groupId", weight, "perUnit")::text, 0)::numeric), 0) FROM items) AS basket,
            ms.ma, ms.mb, ss.sa, ss.sb, $1::date AS a FROM
       (SELECT ${one ? 'NULL' : digest(matchHash('$1'), 'm.valid_from <= $1::date')} AS ma, ${digest(matchHash('$2'), 'true')} AS mb FROM m) ms,
       (SELECT ${one ? 'NULL' : digest(spanHash('$1'), 's.first_day <= $1::date AND ml.valid_from <= $1::date')} AS sa, ${digest(spanHash('$2'), 'true')} AS sb
          FROM national_price_span s JOIN ml ON ml.listing_id = s.listing_id
          JOIN listing l ON l.id = s.listing_id JOIN retailer r ON r.id = l.retailer_id
         WHERE s.first_day <= $2::date) ss`,
    [a, b],
  );
  const x = r.rows[0];
  const wb = { basket: x.basket, matches: x.mb, spans: x.sb };
  return [one ? wb : { basket: x.basket, matches: x.ma, spans: x.sa }, wb];
}

/** Matches of the items in force on some day of `from` … `to`, with the listing's chain. */
async function loadMatches(client: pg.PoolClient, ids: number[], from: string, to: string): Promise<ChainMatch[]> {
  const r = await client.query<ChainMatch>(
    `SELECT m.item_id AS "itemId", m.listing_id AS "listingId", l.retailer_id AS "retailerId",
            m.valid_from::text AS "validFrom", m.valid_to::text AS "validTo"
       FROM basket_match m JOIN listing l ON l.id = m.listing_id
      WHERE m.item_id = ANY($1::int[]) AND m.valid_from <= $3::date AND (m.valid_to IS NULL OR m.valid_to > $2::date)
      ORDER BY m.id`,
    [ids, from, to],
  );
  return r.rows;
}

