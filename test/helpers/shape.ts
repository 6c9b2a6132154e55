/**
 * Shape assertions for contract JSON: exact key sets and per-field JSON types (api-spec
 * "Resources and their fields"). A kind ending in `?` may also be null.
 */
import { expect } from 'vitest';

/** JSON kinds a contract field can have. */
export type Kind = 'int' | 'num' | 'str' | 'bool' | 'day' | 'datetime' | 'arr' | 'obj';
/** Field name → kind (`int?` when nullable). */
export type Spec = Record<string, Kind | `${Kind}?`>;

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

function matches(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'int': return Number.isInteger(v);
    case 'num': return typeof v === 'number' && Number.isFinite(v);
    case 'str': return typeof v === 'string';
    case 'bool': return typeof v === 'boolean';
    case 'day': return typeof v === 'string' && DAY_RE.test(v);
    case 'datetime': return typeof v === 'string' && !Number.isNaN(Date.parse(v)) && v.endsWith('Z');
    case 'arr': return Array.isArray(v);
    case 'obj': return v !== null && typeof v === 'object' && !Array.isArray(v);
  }
}

/** Asserts `value` has exactly the keys of `spec`, each of the given kind. */
export function expectShape(value: unknown, spec: Spec, label = 'value'): void {
  expect(value, label).toBeTypeOf('object');
  const obj = value as Record<string, unknown>;
  expect(Object.keys(obj).sort(), `${label} keys`).toEqual(Object.keys(spec).sort());
  for (const [key, k] of Object.entries(spec)) {
    const nullable = k.endsWith('?');
    const kind = k.replace('?', '') as Kind;
    const v = obj[key];
    if (v === null) expect(nullable, `${label}.${key} is null but not nullable`).toBe(true);
    else expect(matches(kind, v), `${label}.${key} = ${JSON.stringify(v)} is not ${kind}`).toBe(true);
  }
}

/** api-spec ShelfSummary. */
export const SHELF_SUMMARY: Spec = { slug: 'str', label: 'str', depth: 'int', parent: 'str?', products: 'int', compare_unit: 'str?' };

/** api-spec ShelfProduct: the ProductGroup fields, `best` (an object: price, retailer, listing_id, promo_kind, shelf_price) and `per_unit`. */
export const SHELF_PRODUCT: Spec = {
  product_id: 'int?', name: 'str', brand: 'str?', size_text: 'str?', image: 'str?', generic_id: 'int?', generic_label: 'str?', offers: 'arr',
  best: 'obj', per_unit: 'num?',
};

/** ShelfProduct `best` (this service's decision; the contract does not show its type). */
export const SHELF_BEST: Spec = { price: 'num', retailer: 'str', listing_id: 'int', promo_kind: 'int?', shelf_price: 'int' };

/** api-spec ShelfPage. */
export const SHELF_PAGE: Spec = {
  shelf: 'obj', crumbs: 'arr', children: 'arr', unit: 'str?', kinds: 'arr', retailers: 'arr', total: 'int', params: 'obj', products: 'arr',
};

/** api-spec ListingCard. */
export const LISTING_CARD: Spec = {
  id: 'int', retailer: 'str', name: 'str', brand: 'str?', size_text: 'str?', price: 'int?', promo_price: 'int?',
  promo_kind: 'int?', multibuy_qty: 'int?', multibuy_price: 'int?', image: 'str?', available: 'bool', product_id: 'int?',
};

/** api-spec Retailer. */
export const RETAILER: Spec = { slug: 'str', name: 'str', listings: 'int', stores: 'int', last_run: 'datetime?' };

/** api-spec Store, with `distance_km` (issue 32: km from list_stores' point; null without one). */
export const STORE: Spec = {
  id: 'int', retailer: 'str', name: 'str', region: 'str?', lat: 'num', lng: 'num', distance_km: 'num?', level: 'num?', n_items: 'int',
  club: 'int', sale: 'int', multibuy: 'int', day: 'day?', town: 'str', area: 'str', urban: 'str?',
};

/** api-spec GroupLevel. */
export const GROUP_LEVEL: Spec = { code: 'str', name: 'str', level: 'num', n: 'int' };

/** api-spec StoreListing. */
export const STORE_LISTING: Spec = {
  id: 'int', name: 'str', price: 'int', median: 'int', ratio: 'num', brand: 'str?', size_text: 'str?', image: 'str?',
  promo_price: 'int?', promo_kind: 'int?',
};

/** api-spec Bin. */
export const BIN: Spec = { bucket: 'int', n: 'int' };

/** api-spec StoreDetail. */
export const STORE_DETAIL: Spec = {
  store: 'obj', groups: 'arr', dearer: 'arr', cheaper: 'arr', spread: 'arr', listings_priced: 'int', deals: 'arr',
};

/** api-spec StoreListings. */
export const STORE_LISTINGS: Spec = { total: 'int', limit: 'int', offset: 'int', listings: 'arr' };

/** api-spec StoreLevels. */
export const STORE_LEVELS: Spec = { days: 'arr', level: 'arr', items: 'arr' };

/** api-spec Area. */
export const AREA: Spec = { key: 'str', label: 'str', stores: 'int', chains: 'arr', towns: 'arr', level: 'num?' };

/** api-spec Areas. */
export const AREAS: Spec = { regions: 'arr', urban: 'arr', towns: 'arr' };

/** api-spec CurrentPrice. */
export const CURRENT_PRICE: Spec = {
  day: 'day', price: 'int', promo_price: 'int?', promo_kind: 'int?', multibuy_qty: 'int?', multibuy_price: 'int?',
};

/** api-spec ListingStorePrice. */
export const LISTING_STORE_PRICE: Spec = {
  store_id: 'int', store: 'str', region: 'str?', lat: 'num?', lng: 'num?', day: 'day', price: 'int',
  promo_price: 'int?', promo_kind: 'int?', multibuy_qty: 'int?', multibuy_price: 'int?',
};

/** api-spec ListingDetail. */
export const LISTING_DETAIL: Spec = {
  id: 'int', retailer: 'str', retailer_slug: 'str', external_id: 'str', name: 'str', brand: 'str?', size_text: 'str?',
  qty: 'num?', unit: 'str?', gtin: 'int?', category_path: 'arr', first_seen: 'day', last_seen: 'day', image: 'str?',
  available: 'bool', product_id: 'int?', stores_total: 'int', current: 'obj?', stores: 'arr', stats: 'obj',
  retailer_url: 'str?',
};

/** api-spec DailyStats (when not empty). */
export const DAILY_STATS: Spec = { day: 'arr', min: 'arr', med: 'arr', max: 'arr', n: 'arr' };

/** api-spec History. */
export const HISTORY: Spec = {
  from: 'arr', to: 'arr', price: 'arr', promo: 'arr', kind: 'arr', multibuy_qty: 'arr', multibuy_price: 'arr',
};

/** api-spec Offer. */
export const OFFER: Spec = {
  id: 'int', retailer: 'str', retailer_name: 'str', name: 'str', weighable: 'bool', available: 'bool', last_seen: 'day',
  method: 'str', confidence: 'num', locked: 'bool', stores: 'int', stores_total: 'int', category_path: 'arr',
  brand: 'str?', size_text: 'str?', qty: 'num?', unit: 'str?', pack_count: 'int?', price: 'int?', promo_price: 'int?',
  promo_kind: 'int?', multibuy_qty: 'int?', multibuy_price: 'int?', price_day: 'day?', image: 'str?',
  retailer_url: 'str?', origin: 'str?', package_type: 'str?',
};

/** api-spec ProductDetail. */
export const PRODUCT_DETAIL: Spec = {
  id: 'int', name: 'str', weighable: 'bool', aliases: 'arr', retailers: 'int', gtins: 'arr', attributes: 'arr',
  offers: 'arr', alternatives: 'arr', brand: 'str?', brand_id: 'int?', size_text: 'str?', pack_count: 'int?',
  qty: 'num?', unit: 'str?', image: 'str?', generic_id: 'int?', generic_label: 'str?', generic_kind: 'str?',
  generic_kind_label: 'str?', shelf_slug: 'str?', shelf_label: 'str?', compare_unit: 'str?', brand_owner: 'str?',
  brand_parent: 'str?',
};

/** api-spec ProductStorePrice. */
export const PRODUCT_STORE_PRICE: Spec = {
  store_id: 'int', store: 'str', retailer: 'str', price: 'int', lat: 'num?', lng: 'num?', promo_price: 'int?',
  promo_kind: 'int?', multibuy_qty: 'int?', multibuy_price: 'int?',
};

/** api-spec Spread. */
export const SPREAD: Spec = { day: 'arr', min: 'arr', med: 'arr', max: 'arr', n: 'arr' };

/** api-spec ProductGroup. */
export const PRODUCT_GROUP: Spec = {
  product_id: 'int?', name: 'str', brand: 'str?', size_text: 'str?', image: 'str?', generic_id: 'int?',
  generic_label: 'str?', offers: 'arr',
};

/** api-spec Suggestion. */
export const SUGGESTION: Spec = {
  kind: 'str', id: 'int?', label: 'str', detail: 'str?', href: 'str', price: 'int?', promo_price: 'int?',
  promo_kind: 'int?', image: 'str?',
};

/** api-spec Error. */
export const ERROR_BODY: Spec = { error: 'obj' };

/** Asserts an Error body with `status` whose message contains every `parts` (case-insensitive). */
export function expectError(body: unknown, status: number, ...parts: string[]): void {
  expectShape(body, ERROR_BODY, 'error body');
  const e = (body as { error: Record<string, unknown> }).error;
  expectShape(e, { status: 'int', message: 'str' }, 'error');
  expect(e.status).toBe(status);
  for (const p of parts) expect((e.message as string).toLowerCase()).toContain(p.toLowerCase());
}

/** api-spec IndexLatest (headline's d1/d30/yoy are nested; see the operation's description for their nulls). */
export const INDEX_LATEST: Spec = { as_of: 'day', headline: 'obj', coverage: 'obj', groups: 'arr', sparkline: 'obj' };

/** api-spec IndexPoint. */
export const INDEX_POINT: Spec = { day: 'day', group_id: 'int', raw: 'num', coverage: 'num', anchored: 'num?' };

/** api-spec GroupSeries. */
export const GROUP_SERIES: Spec = { id: 'int', code: 'str', name: 'str', weight: 'num', anchored: 'arr', raw: 'arr', coverage: 'arr' };

/** api-spec IndexGroups. */
export const INDEX_GROUPS: Spec = { days: 'arr', groups: 'arr' };

/** api-spec ItemSeries. */
export const ITEM_SERIES: Spec = {
  id: 'int', name: 'str', group: 'str', weight: 'num', per_unit: 'bool', relative: 'arr', n: 'arr', spec: 'str?', unit: 'str?',
};

/** api-spec IndexItems. */
export const INDEX_ITEMS: Spec = { days: 'arr', items: 'arr' };

/** api-spec BasketItem (`match_list` is present only with include=matches: optional, not nullable). */
export const BASKET_ITEM: Spec = {
  id: 'int', code: 'str', name: 'str', group_code: 'str', group_name: 'str', group_weight: 'num', weight: 'num',
  observable: 'bool', per_unit: 'bool', keywords: 'arr', exclude: 'arr', matches: 'int', spec: 'str?', unit: 'str?',
  qty_min: 'num?', qty_max: 'num?', relative: 'num?', stale: 'bool?', match_list: 'arr',
};

/** api-spec BasketMatch. */
export const BASKET_MATCH: Spec = {
  listing_id: 'int', retailer: 'str', name: 'str', origin: 'str', locked: 'bool', valid_from: 'day', brand: 'str?',
  size_text: 'str?', price: 'int?', promo_price: 'int?', confidence: 'num?', ref_price: 'int?', linked_relative: 'num?', image: 'str?',
};

/** api-spec BasketItemDetail. */
export const BASKET_ITEM_DETAIL: Spec = {
  id: 'int', name: 'str', group: 'str', group_name: 'str', per_unit: 'bool', weight: 'num', listings: 'arr', spec: 'str?', unit: 'str?',
};

/** api-spec BasketItemListing. */
export const BASKET_ITEM_LISTING: Spec = {
  listing_id: 'int', retailer: 'str', name: 'str', weighable: 'bool', valid_from: 'day', origin: 'str', available: 'bool',
  brand: 'str?', size_text: 'str?', qty: 'num?', unit: 'str?', price: 'int?', promo_price: 'int?', basis_price: 'num?',
  priced_on: 'day?', image: 'str?',
};

/** api-spec Compare (headline and each group's `levels` map a retailer slug to the pair [level, items]). */
export const COMPARE: Spec = { retailers: 'arr', headline: 'obj', groups: 'arr', items: 'arr' };

/** api-spec Compare `groups[]`. */
export const COMPARE_GROUP: Spec = { code: 'str', name: 'str', weight: 'num', levels: 'obj' };

/** api-spec Compare `items[]` (`prices` maps a retailer slug to integer cents). */
export const COMPARE_ITEM: Spec = { id: 'int', name: 'str', group: 'str', per_unit: 'bool', prices: 'obj', spec: 'str?', unit: 'str?' };

/** api-spec LevelSeries. */
export const LEVEL_SERIES: Spec = { retailer: 'str', level: 'arr', items: 'arr' };

/** api-spec RetailerLevels. */
export const RETAILER_LEVELS: Spec = { days: 'arr', retailers: 'arr' };

/** api-spec Deals. */
export const DEALS: Spec = { kind: 'str', total: 'int', listings: 'arr' };

/** api-spec CategoryNode. */
export const CATEGORY_NODE: Spec = { label: 'str', listings: 'int' };

/** api-spec RetailerBrowse. */
export const RETAILER_BROWSE: Spec = {
  retailer: 'obj', path: 'arr', categories: 'arr', total: 'int', limit: 'int', offset: 'int', listings: 'arr', q: 'str',
};
