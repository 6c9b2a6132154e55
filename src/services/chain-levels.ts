/**
 * Reads of the chain comparison (api-spec "Retailer and store level series", compare_retailers,
 * get_retailer_levels): each basket item's price at each chain and the chains' weighted levels
 * against the cross-chain median. The rows are written by the derived-views worker (workers/views:
 * chain_item_price, chain_level_day with group_id 0 = all food); nothing here computes a level, it
 * only reads and arranges (src/domain/levels.ts holds the formulas). Each read is a fixed number of
 * SQL statements whatever the number of chains, items or days.
 *
 * - "Now" is the latest day of chain_level_day's all-food rows: its headline and group levels are
 *   compare_retailers'. chain_item_price has no day (it is the current panel).
 * - Chains are listed in list_retailers' order (largest catalogue first, then slug).
 * - The level series' window ends at the index's last computed day (index_run.last_day), like
 *   get_index_groups, not at today: the price data may end well before today. Its days are the
 *   index's computed days in the window (the contract: "for every day the index has run").
 */
import type pg from 'pg';
import { ALL_FOOD, apiSize, type ApiUnit, type BasketUnit } from '../domain/basket.js';
import { BadRequest } from '../errors.js';
import { percent } from './basket.js';
import { groupRows } from './prices.js';

/** Bounds and default of get_retailer_levels' `days` (api-spec Limits: `days`). */
export const LEVEL_WINDOW = { min: 7, max: 3650, default: 365 } as const;

/**
 * The list_retailers order of chains in SQL: most listings first (`retailer.listing_count`, kept
 * by triggers on listing), then slug (the `retailers` root field's Prisma order). `r` is the alias
 * of the `retailer` row.
 */
export function retailerOrderSql(r: string): string {
  return `${r}.listing_count DESC, ${r}.slug`;
}

/** A chain's level on one day (api-spec Compare headline / group levels; LevelSeries entries). */
export interface ChainLevel {
  /** Retailer slug. */
  retailer: string;
  /** Weighted geometric mean of (chain price ÷ cross-chain median); 1.0 = the median; null with too few items. */
  level: number | null;
  /** Basket items priced at the chain that the level is computed from. */
  items: number;
}

/** One basket group's chain levels on the latest day (api-spec Compare `groups[]`). */
export interface CompareGroup {
  id: number;
  code: string;
  name: string;
  /** The group's weight, percent of the basket. */
  weight: number;
  /** One entry per compared chain with a row that day, in chain order. */
  levels: ChainLevel[];
}

/** A basket item's price at one chain (api-spec Compare `items[].prices`). */
export interface ChainPrice {
  /** Retailer slug. */
  retailer: string;
  /** Median over the chain's matched listings of their national price on the item's basis, cents (specials count, club prices do not). */
  price: number;
  /** Listings the median is taken over. */
  listings: number;
}

/** One basket item priced at one or more chains (api-spec Compare `items[]`). */
export interface CompareItem {
  /** Basket item id. */
  id: number;
  name: string;
  /** Basket group code. */
  group: string;
  /** Priced per kg or litre rather than per pack. */
  per_unit: boolean;
  /** One entry per chain pricing it, in chain order. */
  prices: ChainPrice[];
  /** The official size specification. */
  spec: string | null;
  /** Dimension of the specification: g, ml or each (src/domain/basket.ts apiSize). */
  unit: ApiUnit;
}

/** The chain comparison (api-spec Compare, with lists where the contract has maps). */
export interface Compare {
  /** The latest day of the chain levels (null before the first build). */
  day: string | null;
  /** Slugs of the chains with any priced basket item, in list_retailers order. */
  retailers: string[];
  /** All food on `day`, one entry per compared chain with a row that day (level null with too few items). */
  headline: ChainLevel[];
  /** Observable basket groups by id. */
  groups: CompareGroup[];
  /** Active basket items with at least one chain price, by group id then name. */
  items: CompareItem[];
}

/**
 * compare_retailers: the current chain comparison, in five statements run together.
 * - `retailers`: chains with any row in chain_item_price, list_retailers order;
 * - `headline` and `groups[].levels`: chain_level_day on its latest all-food day, for those chains
 *   (a chain without a row that day is absent; one with a row keeps a null level);
 * - `groups`: the observable basket groups by id, weight in percent (restaurant meals are not on
 *   shelves and never compared);
 * - `items`: active basket items with at least one chain price, by group id then name (byte
 *   order, then id: get_basket's order), prices in chain order.
 */
export async function compareRetailers(pool: pg.Pool): Promise<Compare> {
  const [chains, levels, groups, items, prices] = await Promise.all([
    pool.query<{ slug: string }>(
      `SELECT r.slug FROM retailer r WHERE EXISTS (SELECT 1 FROM chain_item_price p WHERE p.retailer_id = r.id) ORDER BY ${retailerOrderSql('r')}`,
    ),
    pool.query<{ slug: string; group_id: number; day: string; level: number | null; items: number }>(
      `SELECT r.slug, c.group_id, c.day::text AS day, c.level, c.items
       FROM chain_level_day c JOIN retailer r ON r.id = c.retailer_id
       WHERE c.day = (SELECT max(day) FROM chain_level_day WHERE group_id = 0)`,
    ),
    pool.query<{ id: number; code: string; name: string; weight: number }>(
      `SELECT id, code, name, weight FROM basket_group WHERE observable ORDER BY id`,
    ),
    pool.query<{ id: number; name: string; group: string; per_unit: boolean; spec: string | null; unit: BasketUnit }>(
      `SELECT bi.id, bi.name, bg.code AS "group", bi.per_unit, bi.spec, bi.unit
       FROM basket_item bi JOIN basket_group bg ON bg.id = bi.group_id
       WHERE bi.active AND EXISTS (SELECT 1 FROM chain_item_price p WHERE p.item_id = bi.id)
       ORDER BY bi.group_id, bi.name COLLATE "C", bi.id`,
    ),
    pool.query<{ item_id: number; slug: string; price: number; listings: number }>(
      `SELECT p.item_id, r.slug, p.price, p.listings FROM chain_item_price p JOIN retailer r ON r.id = p.retailer_id`,
    ),
  ]);
  const retailers = chains.rows.map((r) => r.slug);
  const order = new Map(retailers.map((slug, i) => [slug, i]));
  const byChainOrder = <T extends { retailer: string }>(list: T[]) =>
    list.filter((x) => order.has(x.retailer)).sort((a, b) => order.get(a.retailer)! - order.get(b.retailer)!);
  const levelsOf = (groupId: number): ChainLevel[] =>
    byChainOrder(levels.rows.filter((r) => r.group_id === groupId).map((r) => ({ retailer: r.slug, level: r.level, items: r.items })));
  const pricesOf = groupRows(prices.rows, (p) => p.item_id);
  return {
    day: levels.rows[0]?.day ?? null,
    retailers,
    headline: levelsOf(ALL_FOOD.id),
    groups: groups.rows.map((g) => ({ id: g.id, code: g.code, name: g.name, weight: percent(g.weight), levels: levelsOf(g.id) })),
    items: items.rows
      .map((i) => ({
        id: i.id,
        name: i.name,
        group: i.group,
        per_unit: i.per_unit,
        prices: byChainOrder((pricesOf.get(i.id) ?? []).map((p) => ({ retailer: p.slug, price: p.price, listings: p.listings }))),
        spec: i.spec,
        unit: apiSize({ unit: i.unit, qty_min: null, qty_max: null }).unit,
      }))
      .filter((i) => i.prices.length > 0),
  };
}

/** A chain's group level on the latest day (the Retailer type's `groupLevels`). */
export interface ChainGroupLevel {
  /** Basket group id; 0 is all food. */
  group_id: number;
  /** `all` for all food, else the basket group code. */
  code: string;
  name: string;
  day: string;
  level: number | null;
  items: number;
}

/**
 * The latest-day rows (all food and every group, by group id) of each chain in `retailerIds`, from
 * chain_level_day on its latest all-food day; one statement.
 * @returns a map from retailer id; chains without a row that day are absent.
 */
export async function latestChainLevels(pool: pg.Pool, retailerIds: readonly number[]): Promise<Map<number, ChainGroupLevel[]>> {
  const { rows } = await pool.query<ChainGroupLevel & { retailer_id: number }>(
    `SELECT c.retailer_id, c.group_id, coalesce(g.code, $2) AS code, coalesce(g.name, $3) AS name, c.day::text AS day, c.level, c.items
     FROM chain_level_day c LEFT JOIN basket_group g ON g.id = c.group_id
     WHERE c.retailer_id = ANY($1::int[]) AND c.day = (SELECT max(day) FROM chain_level_day WHERE group_id = 0)
       AND (c.group_id = 0 OR g.id IS NOT NULL)
     ORDER BY c.retailer_id, c.group_id`,
    [retailerIds, ALL_FOOD.code, ALL_FOOD.name],
  );
  const out = new Map<number, ChainGroupLevel[]>();
  for (const { retailer_id, ...row } of rows) {
    const list = out.get(retailer_id);
    if (list) list.push(row);
    else out.set(retailer_id, [row]);
  }
  return out;
}

/** One chain's all-food level over a window (api-spec LevelSeries), aligned with `days`. */
export interface LevelSeries {
  /** Retailer slug. */
  retailer: string;
  /** The window's days (the same for every chain of one answer). */
  days: string[];
  /** Null where the chain has no row that day, or too few items. */
  level: (number | null)[];
  /** Basket items priced; null where the chain has no row that day. */
  items: (number | null)[];
}

/** api-spec RetailerLevels. */
export interface RetailerLevels {
  /** The index's computed days in the window, oldest first. */
  days: string[];
  /** Chains with a row in the window, list_retailers order. */
  retailers: LevelSeries[];
}

/** @throws BadRequest when `days` is not an integer within {@link LEVEL_WINDOW}. */
export function checkLevelWindow(days: number): void {
  if (!Number.isInteger(days) || days < LEVEL_WINDOW.min || days > LEVEL_WINDOW.max) {
    throw new BadRequest(`Invalid parameter "days": must be an integer from ${LEVEL_WINDOW.min} to ${LEVEL_WINDOW.max}`);
  }
}

/**
 * get_retailer_levels: every chain's all-food level (compare_retailers' headline) on each day the
 * index computed within the `days` calendar days ending at the index's last computed day
 * (index_run.last_day; empty before the first computation). A chain appears when it has a
 * chain_level_day row on any of those days; its `level[]` and `items[]` are aligned with `days[]`,
 * null where it has no row (and `level` null where the row has too few items). Two statements.
 * @throws BadRequest when `days` is outside 7 to 3650.
 */
export async function retailerLevels(pool: pg.Pool, days: number): Promise<RetailerLevels> {
  checkLevelWindow(days);
  const { rows: window } = await pool.query<{ day: string }>(
    `SELECT d.day::text AS day FROM index_run r
     JOIN index_day d ON d.group_id = 0 AND d.day BETWEEN r.last_day - ($1::int - 1) AND r.last_day
     WHERE r.id = 1 ORDER BY d.day`,
    [days],
  );
  const dayList = window.map((w) => w.day);
  const { rows } = await pool.query<{ slug: string; days: string[]; levels: (number | null)[]; items: number[] }>(
    `SELECT r.slug, x.days, x.levels, x.items
     FROM retailer r
     JOIN LATERAL (
       SELECT array_agg(c.day::text ORDER BY c.day) AS days, array_agg(c.level ORDER BY c.day) AS levels, array_agg(c.items ORDER BY c.day) AS items
       FROM chain_level_day c WHERE c.retailer_id = r.id AND c.group_id = 0 AND c.day = ANY($1::date[])
     ) x ON x.days IS NOT NULL
     ORDER BY ${retailerOrderSql('r')}`,
    [dayList],
  );
  return {
    days: dayList,
    retailers: rows.map((r) => {
      const at = new Map(r.days.map((day, i) => [day, i]));
      return {
        retailer: r.slug,
        days: dayList,
        level: dayList.map((day) => (at.has(day) ? r.levels[at.get(day)!] : null)),
        items: dayList.map((day) => (at.has(day) ? r.items[at.get(day)!] : null)),
      };
    }),
  };
}
