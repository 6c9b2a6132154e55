/**
 * Where each export table's rows come from in PostgreSQL: one SELECT per table, columns in the
 * catalogue's order (workers/export/columns.ts) under the catalogue's names. A table whose data
 * does not exist yet has no source (`null`) and is exported with zero rows and its full schema; a
 * future table slots in by adding its entry here.
 *
 * Rules shared with the API, each from its one SQL home (src/services/span-sql.ts):
 * - a span's `last_day` column is its `to` (`spanToSql`; src/domain/spans.ts spanTo): its
 *   `last_day`, or while open its store's `last_day` (store spans) or its chain's
 *   `last_national_day` (national spans), else its own first day;
 * - a listing's `last_seen` and `available` come from its latest national span
 *   (`latestNationalSpanJoin`, `listingLastSeenSql`, `listingAvailableSql`; src/domain/listings.ts
 *   lastSeen and isAvailable).
 *
 * And with the basket's domain module (src/domain/basket.ts):
 * - all food is index group 0 with code `all` (`ALL_FOOD`);
 * - an item's unit and size bounds are the API's (`apiSize`: kg → g, l → ml, each → each; bounds
 *   × 1000 for g and ml, rounded to 1e-6), weights are percent (the tables hold shares 0 to 1) to
 *   twelve significant digits, as the API states them (src/services/basket.ts `percent`).
 */
import {
  latestNationalSpanJoin,
  listingAvailableSql,
  listingLastSeenSql,
  nationalCoveredDay,
  spanToSql,
  storeCoveredDay,
} from '../../src/services/span-sql.js';
import { ALL_FOOD, apiSize, type BasketUnit } from '../../src/domain/basket.js';
import { POSTGRES_TYPE, quoteIdent, type ColumnType, type ExportTable } from './columns.js';

/** A table's SELECT: an SQL expression per column name, its FROM clause and its ORDER BY. */
export interface TableSource {
  /** SQL expression of each column (by catalogue name), typed as its PostgreSQL counterpart. */
  columns: Record<string, string>;
  /** Everything after `FROM` (joins and any `WHERE` included), without `ORDER BY`. */
  from: string;
  /** The deterministic row order (an ORDER BY list). */
  orderBy: string;
  /**
   * The column (an SQL expression over `from`, a listing id) the export reads the table by, in
   * ranges of listing ids (issue 19: no sort of every row at once); it must lead `orderBy`, so the
   * ranges' rows concatenated are the whole table's rows in the same order. `from` then has no
   * `WHERE` of its own. Absent: one query.
   */
  chunkBy?: string;
}

/** A half-open range of listing ids `[from, to)`; a null bound is open. */
export interface IdRange {
  from: number | null;
  to: number | null;
}


/** A string as an SQL literal. */
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const BASKET_UNITS: readonly BasketUnit[] = ['kg', 'l', 'each'];

/** `apiSize` in SQL: the API unit of a basket_item.unit column `u`. */
const apiUnitSql = (u: string) =>
  `CASE ${u} ${BASKET_UNITS.map((b) => `WHEN ${lit(b)} THEN ${lit(apiSize({ unit: b, qty_min: null, qty_max: null }).unit)}`).join(' ')} END`;

/** `apiSize` in SQL: bound column `v` (kg, l or items, by unit column `u`) in the API unit (g, ml or items), rounded to 1e-6 as apiSize does. */
const apiBoundSql = (v: string, u: string) =>
  `round((${v} * CASE ${u} ${BASKET_UNITS.map((b) => `WHEN ${lit(b)} THEN ${apiSize({ unit: b, qty_min: 1, qty_max: null }).qty_min}`).join(' ')} END)::numeric, 6)::double precision`;

/**
 * A share of the basket (0 to 1, column `share`, positive) as the percent the API reports
 * (src/services/basket.ts `percent`: × 100, twelve significant digits, without the binary noise of
 * the multiplication).
 */
const percentSql = (share: string) => `round((${share} * 100)::numeric, 11 - floor(log(${share} * 100))::int)::double precision`;

const PROMO = (a: string) =>
  `${a}.price, ${a}.promo_price, ${a}.promo_kind::int AS promo_kind, ${a}.multibuy_qty, ${a}.multibuy_price`;

/** The SQL source of each export table; `null` = no data yet (exported empty). */
export const TABLE_SOURCES: Record<ExportTable['name'], TableSource | null> = {
  listings: {
    columns: {
      listing_id: 'l.id',
      retailer: 'r.slug',
      external_id: 'l.external_id',
      name: 'l.name',
      brand: 'l.brand',
      size_text: 'l.size_text',
      qty: 'l.qty',
      unit: 'l.unit',
      pack_count: 'l.pack_count',
      weighable: 'l.weighable',
      gtin: 'l.gtin',
      category_path: 'l.category_path',
      image: 'l.image',
      retailer_url: 'l.retailer_url',
      available: listingAvailableSql('l', 'latest'),
      first_seen: 'l.first_seen',
      last_seen: listingLastSeenSql('l', 'latest'),
      product_id: 'l.product_id',
      link_method: 'l.link_method',
      link_confidence: 'l.link_confidence',
      link_locked: 'l.link_locked',
      kind: 'k.slug',
      generic: 'g.label',
    },
    from: `listing l JOIN retailer r ON r.id = l.retailer_id LEFT JOIN generic g ON g.id = l.generic_id LEFT JOIN kind k ON k.id = g.kind_id ${latestNationalSpanJoin('l', 'r', 'latest')}`,
    orderBy: 'l.id',
  },
  stores: {
    columns: {
      store_id: 's.id',
      retailer: 'r.slug',
      external_id: 's.external_id',
      name: 's.name',
      address: 's.address',
      region: 's.region',
      lat: 's.lat',
      lng: 's.lng',
      town: 's.town',
      area: 's.area',
      urban: 's.urban',
      active: 's.active',
      last_day: 's.last_day',
    },
    from: 'store s JOIN retailer r ON r.id = s.retailer_id',
    orderBy: 's.id',
  },
  price_spans: {
    columns: {
      scope: 'u.scope',
      listing_id: 'u.listing_id',
      store_id: 'u.store_id',
      first_day: 'u.first_day',
      last_day: 'u.last_day',
      current: 'u.current',
      price: 'u.price',
      promo_price: 'u.promo_price',
      promo_kind: 'u.promo_kind',
      multibuy_qty: 'u.multibuy_qty',
      multibuy_price: 'u.multibuy_price',
    },
    // Listing by listing (issue 31): for each listing of the range in id order (its primary key),
    // its national spans then its store spans, by their listing indexes; PostgreSQL then sorts only
    // each listing's own spans (an incremental sort with presorted key ll.id) instead of a whole
    // range's, which made the export's SELECT several times slower than a COPY of the table.
    from: `listing ll JOIN retailer r ON r.id = ll.retailer_id CROSS JOIN LATERAL (
      SELECT 'national'::text AS scope, sp.listing_id, NULL::int AS store_id, sp.first_day,
        ${spanToSql('sp', nationalCoveredDay('r'))} AS last_day, sp.last_day IS NULL AS current,
        ${PROMO('sp')}, sp.id
      FROM national_price_span sp WHERE sp.listing_id = ll.id
      UNION ALL
      SELECT 'store'::text, sp.listing_id, sp.store_id, sp.first_day,
        ${spanToSql('sp', storeCoveredDay('st'))}, sp.last_day IS NULL,
        ${PROMO('sp')}, sp.id
      FROM store_price_span sp JOIN store st ON st.id = sp.store_id WHERE sp.listing_id = ll.id
    ) u`,
    // national before store ('national' < 'store'), then store id, oldest span first.
    orderBy: 'll.id, u.scope, u.store_id NULLS FIRST, u.first_day, u.id',
    // Read by listing-id ranges (the range bounds the listing scan; each listing's spans come by index).
    chunkBy: 'll.id',
  },
  index_daily: {
    columns: {
      day: 'd.day',
      group_id: 'd.group_id',
      group_code: `CASE WHEN d.group_id = ${ALL_FOOD.id} THEN ${lit(ALL_FOOD.code)} ELSE g.code END`,
      raw: 'd.raw',
      anchored: 'd.anchored',
      coverage: 'd.coverage',
      items: 'd.items',
      listings: 'd.listings',
    },
    from: 'index_day d LEFT JOIN basket_group g ON g.id = d.group_id',
    orderBy: 'd.group_id, d.day',
  },
  basket: {
    columns: {
      id: 'i.id',
      code: 'i.code',
      official_code: 'i.official_code',
      name: 'i.name',
      group_code: 'g.code',
      group_name: 'g.name',
      // Shares (0 to 1) in the tables, percent in the API and the export.
      group_weight: percentSql('g.weight'),
      weight: percentSql('i.weight'),
      observable: 'g.observable',
      per_unit: 'i.per_unit',
      spec: 'i.spec',
      unit: apiUnitSql('i.unit'),
      qty_min: apiBoundSql('i.qty_min', 'i.unit'),
      qty_max: apiBoundSql('i.qty_max', 'i.unit'),
      keywords: 'i.keywords',
      exclude: 'i.exclusions',
      // Open matches (valid_to null), those starting on the next computed day included.
      matches: '(SELECT count(*) FROM basket_match m WHERE m.item_id = i.id AND m.valid_to IS NULL)',
      relative: 'latest.relative',
      stale: 'latest.stale',
    },
    from: `basket_item i JOIN basket_group g ON g.id = i.group_id
      LEFT JOIN LATERAL (SELECT d.relative, d.stale FROM index_item_day d WHERE d.item_id = i.id ORDER BY d.day DESC LIMIT 1) latest ON true
      WHERE i.active`,
    // Group, then name in byte order (the same on every instance, whatever its collation), then id.
    orderBy: 'i.group_id, i.name COLLATE "C", i.id',
  },
};

const PG_TYPE = POSTGRES_TYPE;
const ident = quoteIdent;

/**
 * A column expression rendered as the export's CSV text (under the export's settings, DateStyle
 * 'ISO, YMD'): dates `YYYY-MM-DD`, booleans
 * `true`/`false`, `text[]` as a JSON array of strings, numbers as PostgreSQL prints them (doubles
 * shortest round-trip); null stays null (an empty CSV field).
 */
function csvExpression(expr: string, type: ColumnType): string {
  switch (type) {
    case 'date':
      // COPY prints a date with the type's own output function, YYYY-MM-DD under DateStyle 'ISO, YMD'
      // (the export's transaction settings): faster than to_char, and than a cast to text first
      // (the same bytes; 13 % of the price_spans SELECT on a SYNTHETIC 479,000-span panel).
      return `(${expr})::date`;
    case 'boolean':
      return `(${expr})::boolean::text`;
    case 'text[]':
      return `to_json((${expr})::text[])::text`;
    case 'integer':
      return `(${expr})::integer`;
    case 'bigint':
      return `(${expr})::bigint`;
    case 'double':
      return `(${expr})::double precision`;
    case 'text':
      return `(${expr})::text`;
  }
}

/**
 * The SELECT whose rows are the CSV of `table`: every catalogue column, in order, under its name,
 * rendered by the CSV conventions; zero rows when the table has no source.
 * @throws when the source lacks a catalogue column or has one the catalogue does not list.
 */
export function exportSelect(table: ExportTable, source: TableSource | null = TABLE_SOURCES[table.name], range: IdRange | null = null): string {
  if (!source) {
    const cols = table.columns.map((c) => `${csvExpression(`NULL::${PG_TYPE[c.type]}`, c.type)} AS ${ident(c.name)}`);
    return `SELECT ${cols.join(', ')} WHERE false`;
  }
  const names = table.columns.map((c) => c.name);
  const extra = Object.keys(source.columns).filter((n) => !names.includes(n));
  const missing = names.filter((n) => !(n in source.columns));
  if (extra.length || missing.length) {
    throw new Error(`export source of ${table.name} does not match the catalogue (missing: ${missing.join(', ') || '-'}; extra: ${extra.join(', ') || '-'})`);
  }
  const cols = table.columns.map((c) => `${csvExpression(source.columns[c.name], c.type)} AS ${ident(c.name)}`);
  const bounds = range && source.chunkBy ? rangeCondition(source.chunkBy, range) : null;
  return `SELECT ${cols.join(',\n  ')}\nFROM ${source.from}${bounds ? `\nWHERE ${bounds}` : ''}\nORDER BY ${source.orderBy}`;
}

/** SQL of `expr` within `range` (integer bounds inlined: COPY takes no parameters); null when unbounded. */
function rangeCondition(expr: string, range: IdRange): string | null {
  const parts: string[] = [];
  if (range.from !== null) parts.push(`${expr} >= ${Math.trunc(range.from)}`);
  if (range.to !== null) parts.push(`${expr} < ${Math.trunc(range.to)}`);
  return parts.length ? parts.join(' AND ') : null;
}

/** `SELECT count(*)` of a table's rows (0 without a source), for progress totals. */
export function countSelect(table: ExportTable, source: TableSource | null = TABLE_SOURCES[table.name]): string {
  if (!source) return 'SELECT 0::bigint AS n';
  return `SELECT count(*)::bigint AS n FROM ${source.from}`;
}
