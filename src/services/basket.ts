/**
 * Reads of the food-price-index basket (api-spec "Basket resources", get_basket, get_basket_item):
 * the basket items with their group, open-match count and latest daily state, and the open matches
 * of many items at once. One SQL statement per call whatever the number of items or matches, so
 * the dataloaders built on them (src/context.ts) keep a request's statement count flat.
 *
 * The tables are written by workers/index (basket_group, basket_item from src/domain/basket.ts's
 * file; basket_match by the matcher and curators; index_item_day by the index run). Weights are
 * stored as shares of the whole basket (0 to 1); the API reports percentages ({@link percent}).
 * Basket units are kg, l or each; the API states them as g, ml or each (src/domain/basket.ts apiSize).
 */
import type pg from 'pg';
import type { BasketUnit } from '../domain/basket.js';
import { groupRows } from './prices.js';

/**
 * A share of the basket (0 to 1) as the percentage the API reports, without the binary noise of
 * the multiplication (0.13 × 100 = 13.000000000000002 → 13): twelve significant digits.
 */
export function percent(share: number): number {
  return Number((share * 100).toPrecision(12));
}

/** One active basket item as get_basket and get_basket_item read it (weights as stored: shares). */
export interface BasketItemRow {
  id: number;
  /** Official series code (CPIM.SAP…) or the service's own stable NZGP.<slug>. */
  code: string;
  name: string;
  group_id: number;
  group_code: string;
  group_name: string;
  /** The group's share of the whole basket, 0 to 1. */
  group_weight: number;
  /** The item's share of the whole basket, 0 to 1. */
  weight: number;
  /** Whether the item's group is priced on supermarket shelves. */
  observable: boolean;
  per_unit: boolean;
  /** Dimension as the basket file states it (kg, l, each). */
  unit: BasketUnit;
  spec: string | null;
  /** Size bounds in `unit` (kg, l or items). */
  qty_min: number | null;
  qty_max: number | null;
  keywords: string[];
  exclusions: string[];
  /** Open matches (valid_to IS NULL): listings currently matched. */
  matches: number;
  /** The item's relative on its latest index_item_day row (null before any computation, or before its base day). */
  relative: number | null;
  /** Carried forward past the staleness cap on that row (null before any computation). */
  stale: boolean | null;
}

/**
 * Active basket items, by group id then name (byte order, COLLATE "C"; then id); with `id`, only that item (an empty list
 * when it is unknown or inactive). Each with its open-match count and its latest index_item_day
 * row's relative and staleness.
 */
export async function basketItems(pool: pg.Pool, id: number | null = null): Promise<BasketItemRow[]> {
  const { rows } = await pool.query<BasketItemRow>(
    `SELECT bi.id, bi.code, bi.name, bi.group_id, bg.code AS group_code, bg.name AS group_name, bg.weight AS group_weight,
       bi.weight, bg.observable, bi.per_unit, bi.unit, bi.spec, bi.qty_min, bi.qty_max, bi.keywords, bi.exclusions,
       (SELECT count(*)::int FROM basket_match m WHERE m.item_id = bi.id AND m.valid_to IS NULL) AS matches,
       d.relative, d.stale
     FROM basket_item bi
     JOIN basket_group bg ON bg.id = bi.group_id
     LEFT JOIN LATERAL (
       SELECT x.relative, x.stale FROM index_item_day x WHERE x.item_id = bi.id ORDER BY x.day DESC LIMIT 1
     ) d ON true
     WHERE bi.active AND ($1::int IS NULL OR bi.id = $1::int)
     ORDER BY bi.group_id, bi.name COLLATE "C", bi.id`,
    [id],
  );
  return rows;
}

/** One open match (valid_to IS NULL) of a basket item with the listing's own fields (api-spec BasketMatch, BasketItemListing). */
export interface OpenMatchRow {
  item_id: number;
  listing_id: number;
  /** Retailer slug. */
  retailer: string;
  name: string;
  brand: string | null;
  size_text: string | null;
  /** Pack quantity in `unit`. */
  qty: number | null;
  unit: 'g' | 'ml' | 'each' | 'm' | null;
  /** Sold loose by weight: the price is per kg. */
  weighable: boolean;
  /** The listing's `available` flag (api-spec availability also needs its latest national span open: src/domain/listings.ts isAvailable). */
  available_flag: boolean;
  image: string | null;
  origin: 'auto' | 'manual';
  locked: boolean;
  confidence: number | null;
  valid_from: string;
  /** Basis price when matched, cents on the item's basis (fractional for per-kg bases). */
  ref_price: number | null;
  linked_relative: number | null;
}

/**
 * The open matches of each item (valid_to IS NULL: listings currently matched, including those
 * whose valid_from is after the last computed day), by retailer slug then listing id.
 * @returns a map from item id; items without open matches are absent.
 */
export async function openMatches(pool: pg.Pool, itemIds: readonly number[]): Promise<Map<number, OpenMatchRow[]>> {
  const { rows } = await pool.query<OpenMatchRow>(
    `SELECT m.item_id, m.listing_id, r.slug AS retailer, l.name, l.brand, l.size_text, l.qty, l.unit, l.weighable,
       l.available AS available_flag, l.image, m.origin, m.locked, m.confidence, m.valid_from::text AS valid_from,
       m.ref_price, m.linked_relative
     FROM basket_match m
     JOIN listing l ON l.id = m.listing_id
     JOIN retailer r ON r.id = l.retailer_id
     WHERE m.item_id = ANY($1::int[]) AND m.valid_to IS NULL
     ORDER BY m.item_id, r.slug, m.listing_id`,
    [itemIds],
  );
  return groupRows(rows, (r) => r.item_id);
}
