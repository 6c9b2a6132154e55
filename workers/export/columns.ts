/**
 * The bulk export's tables and columns: the one place their names, types and meanings are written.
 *
 * The export worker (workers/export/export.ts) writes each table as Zstd Parquet
 * (`<name>.parquet`) and gzipped CSV (`<name>.csv.gz`, RFC 4180, header row, UTF-8, empty field =
 * null); the import (workers/export/import.ts) reads them back; the README and the export folder's
 * README.md are generated from the `doc` texts. Conventions (api-spec "Global conventions"): days
 * are dates (`YYYY-MM-DD`, New Zealand calendar); money is integer New Zealand cents; ids are the
 * service's own ids, the same as in the API.
 */

/** A column's logical type: its DuckDB/Parquet type is given by {@link DUCKDB_TYPE}. */
export type ColumnType = 'integer' | 'bigint' | 'double' | 'boolean' | 'date' | 'text' | 'text[]';

/** One column of an export table. */
export interface ExportColumn {
  /** Column name, as in the Parquet schema and the CSV header. */
  name: string;
  type: ColumnType;
  /** Whether the column may be null (empty in CSV). */
  nullable: boolean;
  /** What the column holds, with its unit. */
  doc: string;
}

/** One export table (written as `<name>.parquet` and `<name>.csv.gz`). */
export interface ExportTable {
  name: 'listings' | 'stores' | 'price_spans' | 'index_daily' | 'basket';
  doc: string;
  columns: ExportColumn[];
}

/** DuckDB (and so Parquet) type of each logical type. `text[]` is a Parquet LIST of strings; in CSV it is a JSON array. */
export const DUCKDB_TYPE: Record<ColumnType, string> = {
  integer: 'INTEGER',
  bigint: 'BIGINT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  date: 'DATE',
  text: 'VARCHAR',
  'text[]': 'VARCHAR[]',
};

/** PostgreSQL type of each logical type. */
export const POSTGRES_TYPE: Record<ColumnType, string> = {
  integer: 'integer',
  bigint: 'bigint',
  double: 'double precision',
  boolean: 'boolean',
  date: 'date',
  text: 'text',
  'text[]': 'text[]',
};

/** A column name quoted as an SQL identifier (PostgreSQL and DuckDB). */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

const c = (name: string, type: ColumnType, nullable: boolean, doc: string): ExportColumn => ({ name, type, nullable, doc });

/** The five export tables, in manifest order. */
export const EXPORT_TABLES: ExportTable[] = [
  {
    name: 'listings',
    doc: "One row per listing (one chain's product), with its cross-chain product link.",
    columns: [
      c('listing_id', 'integer', false, 'listing id (as in /api/v1/listings/{id})'),
      c('retailer', 'text', false, 'retailer slug'),
      c('external_id', 'text', false, "retailer's own product id"),
      c('name', 'text', false, 'name as the retailer shows it'),
      c('brand', 'text', true, 'brand'),
      c('size_text', 'text', true, 'size as the retailer writes it'),
      c('qty', 'double', true, 'parsed quantity, in `unit`'),
      c('unit', 'text', true, 'unit of `qty`: g, ml, each or m'),
      c('pack_count', 'integer', true, 'units in a multipack'),
      c('weighable', 'boolean', false, 'sold loose by weight (the price is per kilogram)'),
      c('gtin', 'bigint', true, 'barcode as an integer (leading zeros fall away)'),
      c('category_path', 'text[]', false, "retailer's own breadcrumb, root first"),
      c('image', 'text', true, 'image path'),
      c('retailer_url', 'text', true, "the product on the retailer's site"),
      c('available', 'boolean', false, 'available at the last collection'),
      c('first_seen', 'date', false, 'first day observed'),
      c('last_seen', 'date', false, 'last day observed'),
      c('product_id', 'integer', true, 'linked product id (as in /api/v1/products/{id}); null when not linked'),
      c('link_method', 'text', true, 'how the link was made: gtin, retailer_id, name, manual, or single (a product of this listing alone)'),
      c('link_confidence', 'double', true, 'confidence of the link, 0 to 1'),
      c('link_locked', 'boolean', false, 'link (or unlinked state) pinned by a curator'),
      c('kind', 'text', true, 'what the item is, a kind slug of the curated taxonomy (e.g. beef-mince); null when no kind claims it'),
      c('generic', 'text', true, 'its generic: kind, variant and size (e.g. "Beef mince, lean, 500 g"); null when no kind claims it'),
    ],
  },
  {
    name: 'stores',
    doc: 'One row per store in the price panel.',
    columns: [
      c('store_id', 'integer', false, 'store id (as in /api/v1/stores/{id})'),
      c('retailer', 'text', false, 'retailer slug'),
      c('external_id', 'text', false, "retailer's own store id"),
      c('name', 'text', false, 'store name'),
      c('address', 'text', true, 'street address'),
      c('region', 'text', true, "retailer's own region code"),
      c('lat', 'double', false, 'latitude, WGS 84 degrees'),
      c('lng', 'double', false, 'longitude, WGS 84 degrees'),
      c('town', 'text', false, 'nearest urban area, or `Rural <region>`'),
      c('area', 'text', false, 'region (regional council)'),
      c('urban', 'text', true, 'urban class: major, large, medium, small, rural'),
      c('active', 'boolean', false, 'still in the panel'),
      c('last_day', 'date', true, 'last day the store was collected'),
    ],
  },
  {
    name: 'price_spans',
    doc:
      'The full price history as spans: one row per price, from the day it appeared to the day it last held (inclusive). ' +
      '`scope` national rows are the chain-wide price (the median across reporting stores; for a national-only chain, the national observation); ' +
      '`scope` store rows are one store\'s shelf price.',
    columns: [
      c('scope', 'text', false, '`national` or `store`'),
      c('listing_id', 'integer', false, 'listing id'),
      c('store_id', 'integer', true, 'store id for store rows; null for national rows'),
      c('first_day', 'date', false, 'first day of the span'),
      c('last_day', 'date', false, 'last day of the span, inclusive (for the current span: the last day it was observed)'),
      c('current', 'boolean', false, 'the span is still open (the latest price; no later observation changed or ended it)'),
      c('price', 'integer', false, 'shelf price, cents'),
      c('promo_price', 'integer', true, 'promotional price, cents'),
      c('promo_kind', 'integer', true, 'promotion kind: 1 special, 2 member/club price, 3 multibuy, 4 clearance'),
      c('multibuy_qty', 'integer', true, 'multibuy: units'),
      c('multibuy_price', 'integer', true, 'multibuy: price of `multibuy_qty` units together, cents'),
    ],
  },
  {
    name: 'index_daily',
    doc:
      'The daily food-price index nowcast (api-spec IndexPoint, as GET /api/v1/index/daily returns it), one row per day and index group: ' +
      'all food (group_id 0) and each basket group the index computes. A nowcast of Stats NZ\'s Food Price Index from online shelf prices, ' +
      'not an official statistic. Derived from the spans and the basket\'s matches by the index worker (workers/index). ' +
      'Ordered by group_id, then day. Empty until the index has been computed.',
    columns: [
      c('day', 'date', false, 'day (New Zealand calendar)'),
      c('group_id', 'integer', false, 'index group: 0 = all food, 1 to 5 = the basket groups (as in /api/v1/index/groups)'),
      c('group_code', 'text', false, '`all` for all food, else the group\'s code (as `basket.group_code`: fruit_veg, meat_poultry_fish, grocery_food, beverages, restaurant)'),
      c('raw', 'double', false, 'chained index level, index points: 1000 on the first computed day, chained daily from the item relatives with the basket weights'),
      c(
        'anchored',
        'double',
        true,
        'index points on the official FPI scale (Stats NZ, base June 2017 = 1000): `raw` times one factor per series, chosen so that the mean of `anchored` over the anchor month equals that month\'s official value; the anchor month is the latest official month in which every calendar day was observed (coverage > 0); null when no official month qualifies',
      ),
      c('coverage', 'double', false, 'share of the group\'s observable basket weight (all food: of the whole observable basket) held by items with at least one counted listing that day, 0 to 1'),
      c('items', 'integer', false, 'basket items with at least one counted listing that day (count)'),
      c('listings', 'integer', false, 'listings counted that day over those items (count; a listing counts when priced within the last 14 days)'),
    ],
  },
  {
    name: 'basket',
    doc:
      'The index basket (api-spec BasketItem, as GET /api/v1/basket returns it): one row per active item of Stats NZ\'s Food Price Index basket, ' +
      'with its group, weight, comparison basis, matching rules, current matches and latest relative price. Weights are percent of the whole basket, ' +
      'to twelve significant digits (the API\'s convention). Ordered by group (`basket.group_code` in index group order), then name, then id. Empty until the basket exists.',
    columns: [
      c('id', 'integer', false, 'basket item id (as in /api/v1/basket/{id})'),
      c('code', 'text', false, 'item code: the Stats NZ FPI series reference (`CPIM.SAP…`) when `official_code`, else the service\'s own stable code (`NZGP.<slug>`)'),
      c('official_code', 'boolean', false, 'whether `code` is a Stats NZ series reference (false: the service\'s own code)'),
      c('name', 'text', false, 'official Stats NZ item name, with the priced size (e.g. "Milk - standard homogenised, 2 litres")'),
      c('group_code', 'text', false, 'basket group code: fruit_veg, meat_poultry_fish, grocery_food, beverages or restaurant (as `index_daily.group_code`)'),
      c('group_name', 'text', false, 'basket group name'),
      c('group_weight', 'double', false, 'the group\'s weight, percent of the whole basket (Stats NZ\'s published FPI group weight; the five groups sum to 100)'),
      c('weight', 'double', false, 'the item\'s weight, percent of the whole basket to twelve significant digits (the items of a group sum to its `group_weight`, up to that rounding)'),
      c('observable', 'boolean', false, 'whether the group is observable from supermarket shelves (false: restaurant meals and ready-to-eat food, outside the nowcast)'),
      c('per_unit', 'boolean', false, 'compared per kg or litre (the per-unit price) instead of per pack'),
      c('spec', 'text', true, 'the official size specification priced (e.g. "2 litres", "dozen"); null when the name gives none'),
      c('unit', 'text', true, 'dimension of the specification and unit of `qty_min` and `qty_max`: g, ml or each'),
      c('qty_min', 'double', true, 'smallest admitted listing size, in `unit` (grams, millilitres or items; in g or ml a multipack counts its total); null for no bound'),
      c('qty_max', 'double', true, 'largest admitted listing size, in `unit` (grams, millilitres or items); null for no bound'),
      c('keywords', 'text[]', false, 'match phrases (lower case): a listing is a candidate when all the words of one phrase are among the words of its name, in any order'),
      c('exclude', 'text[]', false, 'exclusion phrases (lower case): a listing whose name contains one, as consecutive words, is refused'),
      c('matches', 'integer', false, 'listings currently matched to the item (open matches, count)'),
      c('relative', 'double', true, 'the item\'s relative price on its latest computed index day (unitless; 1.0 = its level on its base day); null before the index has priced it'),
      c('stale', 'boolean', true, 'whether that relative was carried forward past the 14-day staleness cap; null when the index has no day for the item'),
    ],
  },
];

/** The export table called `name`; throws on an unknown name. */
export function exportTable(name: ExportTable['name']): ExportTable {
  const t = EXPORT_TABLES.find((x) => x.name === name);
  if (!t) throw new Error(`unknown export table ${name}`);
  return t;
}
