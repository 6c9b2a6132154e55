/**
 * The bulk export's `index_daily` and `basket` tables (workers/export/sources.ts, columns.ts;
 * issue 15) against a real PostgreSQL: empty tables exported with their headers and schema; with
 * the basket synced from the real basket file (workers/index/basket.ts syncBasket) and index rows
 * present, the Parquet and CSV files hold exactly the expected rows, in order, with the contract's
 * units (weights in percent, API units g/ml/each); an import skips both tables and the imported
 * instance, after its own basket sync, exports the same basket without the source's matches.
 *
 * Data: the real listings of test/helpers/prices.ts. The basket matches, index_item_day and
 * index_day rows are SYNTHETIC, inserted by SQL (this test checks the export, not the index
 * method; the index worker is not run): their values are this test's inventions.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';
import { runExport, type ExportResult } from '../../workers/export/export.js';
import { DUCKDB_TYPE, exportTable, type ExportTable } from '../../workers/export/columns.js';
import { openDuckDb, parquetColumns, sqlString, type DuckDb } from '../../workers/export/parquet.js';
import { importExport } from '../../workers/export/import.js';
import { syncBasket } from '../../workers/index/basket.js';
import { ALL_FOOD, apiSize, groupId, GROUP_CODES, loadBasket } from '../../src/domain/basket.js';

/** A basket share (0 to 1) as the percent the API reports (src/services/basket.ts `percent`): twelve significant digits. */
const percent = (share: number) => Number((share * 100).toPrecision(12));
const readCsv = (file: string) => parse(zlib.gunzipSync(fs.readFileSync(file)), { columns: false }) as string[][];

/** Apples, 1kg (kg), Cream, 300ml (l), Eggs, dozen (each): one item of each unit. */
const APPLES = 1;
const CREAM = 51;
const EGGS = 57;
/** Apricots, dried, 100g: marked inactive (as if dropped from the basket file). */
const RETIRED = 2;

let db: TestDatabase;
let fresh: TestDatabase;
let seed: Seeded;
let tmp: string;
let duck: DuckDb;
let empty: ExportResult;
let full: ExportResult;

/** Rows of an exported Parquet file as DuckDB returns them (dates as Date, lists as arrays). */
async function parquetRows(folder: string, table: ExportTable['name']): Promise<Record<string, unknown>[]> {
  const r = await duck.connection.runAndReadAll(`SELECT * FROM read_parquet(${sqlString(path.join(folder, `${table}.parquet`))})`);
  return r.getRowObjectsJS() as Record<string, unknown>[];
}

/** A Parquet value written as the export's CSV writes it. */
function csvText(v: unknown, type: string): string {
  if (v === null || v === undefined) return '';
  if (type === 'text[]') return JSON.stringify(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return String(v);
}

/** Checks that a table's Parquet and CSV hold the same rows in the same order, and the catalogue's columns and types. */
async function expectSameParquetAndCsv(folder: string, name: ExportTable['name']): Promise<void> {
  const t = exportTable(name);
  expect(await parquetColumns(duck, path.join(folder, `${name}.parquet`))).toEqual(t.columns.map((c) => ({ name: c.name, type: DUCKDB_TYPE[c.type] })));
  const csv = readCsv(path.join(folder, `${name}.csv.gz`));
  expect(csv[0]).toEqual(t.columns.map((c) => c.name));
  const pq = await parquetRows(folder, name);
  expect(pq.length).toBe(csv.length - 1);
  pq.forEach((row, i) => {
    t.columns.forEach((c, j) => expect(csvText(row[c.name], c.type), `${name} row ${i + 1} ${c.name}`).toBe(csv[i + 1][j]));
  });
}

beforeAll(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'export-index-'));
  [db, fresh] = await Promise.all([createTestDatabase('export_index'), createTestDatabase('export_index_import')]);
  duck = await openDuckDb({ tempDirectory: path.join(tmp, '.duck') });
  seed = await seedRealPrices(db.pool);
  // Before any basket or index: both tables empty.
  empty = await runExport(db.pool, { dir: path.join(tmp, 'empty'), progress: false });

  await syncBasket(db.pool);
  await db.pool.query('UPDATE basket_item SET active = false WHERE id = $1', [RETIRED]);
  // SYNTHETIC matches: two open and one ended for the apples, one open (starting later) for the cream.
  const listings = [...seed.listingIds.values()].sort((a, b) => a - b);
  await db.pool.query(
    `INSERT INTO basket_match (item_id, listing_id, origin, locked, confidence, valid_from, valid_to, ref_price, linked_relative) VALUES
       ($1, $3, 'auto', false, 0.9, '2026-08-01', NULL, 350, 1),
       ($1, $4, 'manual', true, NULL, '2026-08-01', NULL, 420, 1),
       ($1, $5, 'auto', false, 0.7, '2026-08-01', '2026-08-03', 300, 1),
       ($2, $6, 'auto', false, 0.8, '2026-08-04', NULL, NULL, NULL)`,
    [APPLES, CREAM, listings[0], listings[1], listings[2], listings[3]],
  );
  // SYNTHETIC item days: the apples priced, the cream carried forward past the cap on its latest day,
  // the eggs not yet priced (relative null); the latest day is what the export shows.
  await db.pool.query(
    `INSERT INTO index_item_day (item_id, day, relative, n, stale) VALUES
       ($1, '2026-08-01', 1, 2, false), ($1, '2026-08-02', 1.02, 2, false), ($1, '2026-08-03', 1.0625, 2, false),
       ($2, '2026-08-01', 1, 1, false), ($2, '2026-08-03', 0.98, 0, true),
       ($3, '2026-08-03', NULL, NULL, NULL)`,
    [APPLES, CREAM, EGGS],
  );
  // SYNTHETIC index days, inserted out of order: all food, fruit and vegetables, grocery food.
  await db.pool.query(
    `INSERT INTO index_day (group_id, day, raw, anchored, coverage, items, listings) VALUES
       (3, '2026-08-02', 1001.5, NULL, 0.25, 16, 40),
       (0, '2026-08-03', 1003.25, 1402.1, 0.5, 60, 150),
       (1, '2026-08-01', 1000, 1350, 0.75, 29, 80),
       (0, '2026-08-01', 1000, NULL, 0.5, 60, 150),
       (1, '2026-08-02', 999.125, 1349.5, 0.7, 27, 75),
       (0, '2026-08-02', 1001, 1400, 0.5, 61, 152)`,
  );
  full = await runExport(db.pool, { dir: path.join(tmp, 'full'), progress: false });
}, 300_000);

afterAll(async () => {
  duck?.close();
  await Promise.all([db?.drop(), fresh?.drop()]);
  if (tmp) await fsp.rm(tmp, { recursive: true, force: true });
});

describe('index_daily and basket in the bulk export', () => {
  it('exports both tables empty, with their headers and Parquet schema, before the basket and index exist', async () => {
    for (const name of ['index_daily', 'basket'] as const) {
      expect(empty.rows[name]).toBe(0);
      expect(empty.manifest.files.filter((f) => f.name.startsWith(`${name}.`)).map((f) => [f.name, f.rows])).toEqual([
        [`${name}.parquet`, 0],
        [`${name}.csv.gz`, 0],
      ]);
      expect(readCsv(path.join(empty.path, `${name}.csv.gz`))).toEqual([exportTable(name).columns.map((c) => c.name)]);
      await expectSameParquetAndCsv(empty.path, name);
    }
  });

  it('index_daily: one row per group and day, ordered by group then day, with the group code', async () => {
    const rows = await parquetRows(full.path, 'index_daily');
    const simple = rows.map((r) => ({ ...r, day: (r.day as Date).toISOString().slice(0, 10) }));
    const day = (d: string, group_id: number, group_code: string, raw: number, anchored: number | null, coverage: number, items: number, listings: number) =>
      ({ day: d, group_id, group_code, raw, anchored, coverage, items, listings });
    expect(simple).toEqual([
      day('2026-08-01', ALL_FOOD.id, ALL_FOOD.code, 1000, null, 0.5, 60, 150),
      day('2026-08-02', 0, 'all', 1001, 1400, 0.5, 61, 152),
      day('2026-08-03', 0, 'all', 1003.25, 1402.1, 0.5, 60, 150),
      day('2026-08-01', groupId('fruit_veg'), 'fruit_veg', 1000, 1350, 0.75, 29, 80),
      day('2026-08-02', 1, 'fruit_veg', 999.125, 1349.5, 0.7, 27, 75),
      day('2026-08-02', groupId('grocery_food'), 'grocery_food', 1001.5, null, 0.25, 16, 40),
    ]);
    expect(full.rows.index_daily).toBe(6);
    // The CSV: the contract's IndexPoint names first, empty field for a null anchored value.
    const csv = readCsv(path.join(full.path, 'index_daily.csv.gz'));
    expect(csv[0]).toEqual(['day', 'group_id', 'group_code', 'raw', 'anchored', 'coverage', 'items', 'listings']);
    expect(csv[1]).toEqual(['2026-08-01', '0', 'all', '1000', '', '0.5', '60', '150']);
    await expectSameParquetAndCsv(full.path, 'index_daily');
  });

  it('basket: every active item, by group then name, weights in percent, sizes in the API’s units', async () => {
    const basket = loadBasket();
    const groups = new Map(basket.groups.map((g) => [g.code, g]));
    const active = basket.items.filter((i) => i.id !== RETIRED);
    const rows = await parquetRows(full.path, 'basket');
    expect(rows.length).toBe(active.length);
    expect(full.rows.basket).toBe(active.length);
    expect(rows.some((r) => r.id === RETIRED)).toBe(false);

    // Order: group (index group order), then name in byte order, then id.
    const byte = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const expectedOrder = [...active].sort((a, b) => GROUP_CODES.indexOf(a.group) - GROUP_CODES.indexOf(b.group) || byte(a.name, b.name) || a.id - b.id);
    expect(rows.map((r) => r.id)).toEqual(expectedOrder.map((i) => i.id));

    const latest = new Map<number, { relative: number | null; stale: boolean | null }>([
      [APPLES, { relative: 1.0625, stale: false }],
      [CREAM, { relative: 0.98, stale: true }],
      [EGGS, { relative: null, stale: null }],
    ]);
    const matches = new Map([[APPLES, 2], [CREAM, 1]]);
    for (const r of rows) {
      const item = active.find((i) => i.id === r.id)!;
      const g = groups.get(item.group)!;
      const size = apiSize(item);
      expect(r, item.name).toEqual({
        id: item.id,
        code: item.code,
        official_code: item.official_code,
        name: item.name,
        group_code: g.code,
        group_name: g.name,
        group_weight: percent(g.weight),
        weight: percent(item.weight),
        observable: g.observable,
        per_unit: item.per_unit,
        spec: item.spec,
        unit: size.unit,
        qty_min: size.qty_min,
        qty_max: size.qty_max,
        keywords: item.keywords,
        exclude: item.exclusions,
        matches: matches.get(item.id) ?? 0,
        relative: latest.get(item.id)?.relative ?? null,
        stale: latest.get(item.id)?.stale ?? null,
      });
    }

    // Spot checks of the units, by hand: kg → g, l → ml, each stays.
    const at = (id: number) => rows.find((r) => r.id === id)!;
    expect([at(APPLES).unit, at(APPLES).qty_min, at(APPLES).qty_max]).toEqual(['g', 200, 5000]);
    expect([at(CREAM).unit, at(CREAM).qty_min, at(CREAM).qty_max]).toEqual(['ml', 250, 330]);
    expect([at(EGGS).unit, at(EGGS).qty_min, at(EGGS).qty_max]).toEqual(['each', 12, 12]);
    // Percent: the five group weights sum to 100; the items (all active ones) to 100 less the retired item's weight.
    const groupWeights = new Map(rows.map((r) => [r.group_code, r.group_weight as number]));
    expect([...groupWeights.values()].reduce((s, w) => s + w, 0)).toBeCloseTo(100, 9);
    const retired = basket.items.find((i) => i.id === RETIRED)!;
    expect(rows.reduce((s, r) => s + (r.weight as number), 0)).toBeCloseTo(100 - retired.weight * 100, 8);
    expect(rows.filter((r) => !r.observable).every((r) => r.group_code === 'restaurant')).toBe(true);
    await expectSameParquetAndCsv(full.path, 'basket');
  });

  it('an import verifies and skips both tables; after its own basket sync the instance exports the same basket, without the matches', async () => {
    // The source with its whole basket file active again (the retired item is this test's invention).
    await syncBasket(db.pool);
    const source = await runExport(db.pool, { dir: path.join(tmp, 'source'), progress: false });
    const imported = await importExport(fresh.pool, source.path, { progress: false });
    expect(imported.skipped).toEqual(['index_daily', 'basket']);
    expect(imported.rows.index_daily).toBe(6);
    expect(imported.rows.basket).toBe(loadBasket().items.length);
    const n = async (sql: string) => (await fresh.pool.query<{ n: number }>(sql)).rows[0].n;
    for (const t of ['basket_group', 'basket_item', 'basket_match', 'basket_decision', 'index_item_day', 'index_day', 'index_run']) {
      expect(await n(`SELECT count(*)::int AS n FROM ${t}`), t).toBe(0);
    }

    // What the CLI does next: sync the basket (basket matching and the index then run on it).
    await syncBasket(fresh.pool);
    const again = await runExport(fresh.pool, { dir: path.join(tmp, 'again'), progress: false });
    expect(again.rows.index_daily).toBe(0);
    const cols = exportTable('basket').columns.map((c) => c.name);
    const derived = ['matches', 'relative', 'stale'].map((c) => cols.indexOf(c));
    const a = readCsv(path.join(source.path, 'basket.csv.gz'));
    const b = readCsv(path.join(again.path, 'basket.csv.gz'));
    const definition = (rows: string[][]) => rows.map((r) => r.filter((_, j) => !derived.includes(j)));
    expect(definition(b)).toEqual(definition(a));
    // The source's matches (curated or automatic) are not carried: counts start at 0, no relatives yet.
    expect(b.slice(1).map((r) => derived.map((j) => r[j]))).toEqual(b.slice(1).map(() => ['0', '', '']));
    expect(a.slice(1).some((r) => r[derived[0]] !== '0')).toBe(true);
  });
});
