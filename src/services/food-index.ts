/**
 * Reads of the daily food-price index (api-spec "Index resources", "Food price index"): the latest
 * level with its changes and sparkline, one aggregate's daily points, and the group and item series
 * over a window. The rows are written by workers/index (index_run, index_day, index_item_day; the
 * method is src/domain/price-index.ts); nothing here computes an index, it only reads and arranges.
 *
 * Windows end at the index's last computed day (index_run.last_day), not at today: the price data
 * may end well before today, and a window of empty days would say nothing. Each read is a fixed
 * number of SQL statements whatever the window.
 */
import type pg from 'pg';
import { ALL_FOOD, apiSize, type ApiUnit, type BasketUnit } from '../domain/basket.js';
import { addDays } from '../domain/days.js';
import { headlineChanges, sparkline } from '../domain/price-index.js';
import { BadRequest } from '../errors.js';
import { percent } from './basket.js';

/** Days of the IndexLatest sparkline (api-spec: "sparkline"). */
export const SPARKLINE_DAYS = 90;

/** Bounds and default of the `days` window of get_index_groups and get_index_items (api-spec Limits). */
export const INDEX_WINDOW = { min: 7, max: 3650, default: 365 } as const;

/** The days the index has computed (index_run), or none before the first computation. */
export interface IndexRunDays {
  firstDay: string;
  lastDay: string;
}

/** The computed range of the index: its one index_run row, or null before the first computation. */
export async function indexRunDays(pool: pg.Pool): Promise<IndexRunDays | null> {
  const { rows } = await pool.query<IndexRunDays>(`SELECT first_day::text AS "firstDay", last_day::text AS "lastDay" FROM index_run WHERE id = 1`);
  return rows[0] ?? null;
}

/** One aggregate on one day (api-spec IndexPoint, plus the counts of index_day). */
export interface IndexPointRow {
  day: string;
  /** 0 is all food, else basket_group.id. */
  group_id: number;
  /** Chained, 1000 on the index's first day. */
  raw: number;
  /** raw scaled to the last official month; null when no official month overlaps. */
  anchored: number | null;
  /** Share (0 to 1) of the aggregate's observable basket weight with a counted listing that day. */
  coverage: number;
  /** Basket items counted that day. */
  items: number;
  /** Listings counted that day. */
  listings: number;
}

/** api-spec IndexLatest `headline`: d1, d30 and yoy are null when the earlier day was not computed. */
export interface IndexHeadline {
  value: number;
  d1: number | null;
  d30: number | null;
  yoy: number | null;
}

/** api-spec IndexLatest `groups[]`. */
export interface IndexGroupLevel {
  code: string;
  name: string;
  value: number;
  coverage: number;
}

/** api-spec IndexLatest. */
export interface IndexLatest {
  as_of: string;
  headline: IndexHeadline;
  coverage: { weight: number; listings: number; items: number };
  groups: IndexGroupLevel[];
  sparkline: { t0: string | null; v: number[] };
}

/** The level a series shows: its anchored value, else (no official month overlaps) its raw value. */
function level(p: Pick<IndexPointRow, 'raw' | 'anchored'>): number {
  return p.anchored ?? p.raw;
}

/**
 * The latest computed day of the index (api-spec IndexLatest), or null before the first
 * computation (no index_run row, or no all-food row on its last day):
 * - `as_of` = the last computed day with coverage (all food observed on a collected day within the
 *   14-day cap: index_day.coverage > 0), never today by itself nor a day only carried forward over a
 *   gap without observation; index_run.last_day when no day has coverage;
 * - `headline.value` = all food's anchored level that day, or its raw level when no anchor exists;
 *   `d1`, `d30`, `yoy` = percent change of that same series against 1, 30 and 365 calendar days
 *   earlier (src/domain/price-index.ts headlineChanges), null when that earlier day was not computed;
 * - `coverage` = all food's weight coverage, counted listings and items that day;
 * - `groups` = the observable groups (by id) with a row that day: anchored level, else raw, and coverage;
 * - `sparkline` = the headline series over the last {@link SPARKLINE_DAYS} calendar days up to as_of,
 *   starting after the latest day without a value (src/domain/price-index.ts sparkline).
 */
export async function indexLatest(pool: pg.Pool): Promise<IndexLatest | null> {
  const run = await indexRunDays(pool);
  if (!run) return null;
  const covered = await pool.query<{ day: string | null }>(
    `SELECT max(day)::text AS day FROM index_day WHERE group_id = 0 AND coverage > 0 AND day BETWEEN $1::date AND $2::date`,
    [run.firstDay, run.lastDay],
  );
  const asOf = covered.rows[0]?.day ?? run.lastDay;
  const { rows } = await pool.query<IndexPointRow & { code: string | null; name: string | null; observable: boolean | null }>(
    `SELECT d.group_id, d.day::text AS day, d.raw, d.anchored, d.coverage, d.items, d.listings, g.code, g.name, g.observable
     FROM index_day d LEFT JOIN basket_group g ON g.id = d.group_id
     WHERE (d.group_id = 0 AND d.day BETWEEN $1::date - 365 AND $1::date) OR d.day = $1::date
     ORDER BY d.group_id, d.day`,
    [asOf],
  );
  const all = rows.filter((r) => r.group_id === ALL_FOOD.id);
  const today = all.find((r) => r.day === asOf);
  if (!today) return null;
  // The headline series: anchored when the last day has an anchor, else raw (all days alike).
  const anchored = today.anchored !== null;
  const series = all.flatMap((r) => {
    const value = anchored ? r.anchored : r.raw;
    return value === null ? [] : [{ day: r.day, value }];
  });
  const byDay = new Map(series.map((p) => [p.day, p.value]));
  const window = Array.from({ length: SPARKLINE_DAYS }, (_, k) => {
    const day = addDays(asOf, k - SPARKLINE_DAYS + 1);
    return { day, value: byDay.get(day) ?? null };
  });
  const gap = window.map((p) => p.value === null).lastIndexOf(true);
  return {
    as_of: asOf,
    headline: { value: level(today), ...headlineChanges(series) },
    coverage: { weight: today.coverage, listings: today.listings, items: today.items },
    groups: rows
      .filter((r) => r.group_id !== ALL_FOOD.id && r.day === asOf && r.observable === true && r.code !== null && r.name !== null)
      .map((r) => ({ code: r.code as string, name: r.name as string, value: level(r), coverage: r.coverage })),
    sparkline: sparkline(window.slice(gap + 1), SPARKLINE_DAYS),
  };
}

/** The message of a `from` after `to`. */
export const REVERSED_RANGE = 'Invalid parameter "from": must not be after "to"';

/**
 * Daily points of one aggregate from `from` to `to` inclusive, oldest first (api-spec
 * get_index_daily). Days the index did not compute are absent; a group that is not observable
 * (restaurant meals) has no points, so its answer is empty.
 * @param group 0 for all food, else a basket_group id.
 * @throws BadRequest when `from` is after `to`, or `group` is neither 0 nor a basket group's id.
 */
export async function indexSeries(pool: pg.Pool, group: number, from: string, to: string): Promise<IndexPointRow[]> {
  if (from > to) throw new BadRequest(REVERSED_RANGE);
  const { rows } = await pool.query<IndexPointRow & { known: boolean }>(
    `SELECT k.known, d.group_id, d.day::text AS day, d.raw, d.anchored, d.coverage, d.items, d.listings
     FROM (SELECT $1::int = 0 OR EXISTS (SELECT 1 FROM basket_group WHERE id = $1::int) AS known) k
     LEFT JOIN index_day d ON k.known AND d.group_id = $1::int AND d.day BETWEEN $2::date AND $3::date
     ORDER BY d.day`,
    [group, from, to],
  );
  if (!rows[0]?.known) throw new BadRequest(`Invalid parameter "group": no index group ${group} (0 is all food; the others are the ids of get_index_groups)`);
  return rows.filter((r) => r.day !== null).map(({ known: _known, ...point }) => point);
}

/**
 * The computed days of the window of `days` calendar days ending at the index's last computed day
 * (index_run.last_day), oldest first: the days with an all-food point (the worker computes every
 * day from first_day to last_day, so there are no gaps). Empty before the first computation.
 */
async function windowDays(pool: pg.Pool, days: number): Promise<string[]> {
  const { rows } = await pool.query<{ day: string }>(
    `SELECT d.day::text AS day FROM index_run r
     JOIN index_day d ON d.group_id = 0 AND d.day BETWEEN r.last_day - ($1::int - 1) AND r.last_day
     WHERE r.id = 1 ORDER BY d.day`,
    [days],
  );
  return rows.map((r) => r.day);
}

/** @throws BadRequest when `days` is not an integer within {@link INDEX_WINDOW}. */
function checkWindow(days: number): void {
  if (!Number.isInteger(days) || days < INDEX_WINDOW.min || days > INDEX_WINDOW.max) {
    throw new BadRequest(`Invalid parameter "days": must be an integer from ${INDEX_WINDOW.min} to ${INDEX_WINDOW.max}`);
  }
}

/** api-spec GroupSeries: arrays aligned with the window's days. */
export interface GroupSeries {
  id: number;
  code: string;
  name: string;
  /** Basket weight, percent: 100 for all food, the official group weight for a group. */
  weight: number;
  anchored: (number | null)[];
  raw: (number | null)[];
  coverage: (number | null)[];
}

/** api-spec IndexGroups. */
export interface IndexGroups {
  days: string[];
  groups: GroupSeries[];
}

/**
 * All food and every basket group over the window (api-spec get_index_groups): all food first
 * (id 0, code `all`, weight 100), then the groups by id with their official weight in percent of
 * the basket (restaurant meals included, though not observable: its arrays are all null). `days` =
 * the computed days of the `days` calendar days ending at the last computed day ({@link windowDays});
 * each array has one entry per day, null where the aggregate has no row that day.
 * @throws BadRequest when `days` is outside 7 to 3650.
 */
export async function indexGroups(pool: pg.Pool, days: number): Promise<IndexGroups> {
  checkWindow(days);
  const window = await windowDays(pool, days);
  const [{ rows: groups }, { rows: points }] = await Promise.all([
    pool.query<{ id: number; code: string; name: string; weight: number }>(`SELECT id, code, name, weight FROM basket_group ORDER BY id`),
    pool.query<Pick<IndexPointRow, 'group_id' | 'day' | 'raw' | 'anchored' | 'coverage'>>(
      `SELECT group_id, day::text AS day, raw, anchored, coverage FROM index_day WHERE day = ANY($1::date[])`,
      [window],
    ),
  ]);
  const at = new Map(points.map((p) => [`${p.group_id}|${p.day}`, p]));
  const series = (id: number, code: string, name: string, weight: number): GroupSeries => {
    const row = window.map((day) => at.get(`${id}|${day}`));
    return {
      id,
      code,
      name,
      weight,
      anchored: row.map((p) => p?.anchored ?? null),
      raw: row.map((p) => p?.raw ?? null),
      coverage: row.map((p) => p?.coverage ?? null),
    };
  };
  return {
    days: window,
    groups: [series(ALL_FOOD.id, ALL_FOOD.code, ALL_FOOD.name, 100), ...groups.map((g) => series(g.id, g.code, g.name, percent(g.weight)))],
  };
}

/** api-spec ItemSeries: `relative` and `n` aligned with the window's days. */
export interface ItemSeries {
  id: number;
  name: string;
  /** Basket group code. */
  group: string;
  /** Share of the whole basket, percent. */
  weight: number;
  per_unit: boolean;
  spec: string | null;
  unit: ApiUnit;
  relative: (number | null)[];
  n: (number | null)[];
}

/** api-spec IndexItems. */
export interface IndexItems {
  days: string[];
  items: ItemSeries[];
}

/**
 * One series per active observable basket item, by group id then name (api-spec get_index_items),
 * over the same days as {@link indexGroups}: `relative` (1.0 on the item's base day) and `n`
 * (listings counted; 0 = carried forward), null where the item has no row that day or no value yet.
 * `unit` is the API unit of the item's specification (g, ml or each; src/domain/basket.ts apiSize).
 * @throws BadRequest when `days` is outside 7 to 3650.
 */
export async function indexItems(pool: pg.Pool, days: number): Promise<IndexItems> {
  checkWindow(days);
  const window = await windowDays(pool, days);
  const { rows } = await pool.query<{
    id: number; name: string; group: string; weight: number; per_unit: boolean; spec: string | null; unit: BasketUnit;
    days: string[] | null; relative: (number | null)[] | null; n: (number | null)[] | null;
  }>(
    `SELECT bi.id, bi.name, bg.code AS "group", bi.weight, bi.per_unit, bi.spec, bi.unit, x.days, x.relative, x.n
     FROM basket_item bi
     JOIN basket_group bg ON bg.id = bi.group_id
     LEFT JOIN LATERAL (
       SELECT array_agg(d.day::text ORDER BY d.day) AS days, array_agg(d.relative ORDER BY d.day) AS relative,
              array_agg(d.n ORDER BY d.day) AS n
       FROM index_item_day d WHERE d.item_id = bi.id AND d.day = ANY($1::date[])
     ) x ON true
     WHERE bi.active AND bg.observable
     ORDER BY bi.group_id, bi.name COLLATE "C", bi.id`,
    [window],
  );
  return {
    days: window,
    items: rows.map((r) => {
      const at = new Map((r.days ?? []).map((day, i) => [day, i]));
      const pick = <T>(values: (T | null)[] | null) => window.map((day) => (at.has(day) ? (values?.[at.get(day)!] ?? null) : null));
      return {
        id: r.id,
        name: r.name,
        group: r.group,
        weight: percent(r.weight),
        per_unit: r.per_unit,
        spec: r.spec,
        unit: apiSize({ unit: r.unit, qty_min: null, qty_max: null }).unit,
        relative: pick(r.relative),
        n: pick(r.n),
      };
    }),
  };
}
