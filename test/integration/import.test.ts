/**
 * Full import of the real data (../shared/data, or DATA_DIR) into a fresh PostgreSQL database:
 * store counts and places, the Woolworths price log reproduced as national spans (the expectation
 * is computed here, independently, from the CSV), listing attributes, store samples, a second run
 * that changes nothing, and a missing or incomplete data directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { createTestDatabase, DATA_DIR, type TestDatabase } from '../helpers/db.js';
import { importRealData, isEmpty, DataDirError, type ImportReport } from '../../workers/import/index.js';
import { upsertStores, StoreInputError, type StoreInput } from '../../workers/ingest/stores.js';
import { updateListingAttributes, ListingInputError } from '../../workers/ingest/listings.js';
import { productSlug, sizeText, categoryPath, storeNameKey } from '../../workers/import/samples.js';
import { departmentNames, barcodeToGtin } from '../../workers/import/products.js';
import { cleanAddress } from '../../workers/import/stores.js';

const file = (rel: string) => path.join(DATA_DIR, rel);
const PRICE_LOG = file('neon-ninja--woolies/price_history.csv');
const FULL = file('Blim3202--NZ-Meal-Cost-Optimiser/data/full_results.csv');
const WW_LATEST = file('Blim3202--NZ-Meal-Cost-Optimiser/data/woolworths_latest_results');

// Independent of src/domain/days.ts: the Pacific/Auckland calendar day of a Unix time.
const nzFmt = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Auckland', year: 'numeric', month: '2-digit', day: '2-digit' });
const nzDayOf = (unix: number) => nzFmt.format(new Date(unix * 1000));

interface ExpectedSpan {
  from: string;
  to: string;
  price: number;
}

/** Expected national spans per SKU from the log: last change of each NZ day, equal neighbours merged. */
function expectedSpans(): { bySku: Map<string, ExpectedSpan[]>; lastDay: string } {
  const rows = parse(fs.readFileSync(PRICE_LOG), { columns: true }) as { SKU: string; timestamp: string; price: string }[];
  const perSku = new Map<string, Map<string, { ts: number; price: number }>>();
  const days = new Set<string>();
  for (const r of rows) {
    const ts = Number(r.timestamp);
    const day = nzDayOf(ts);
    days.add(day);
    const m = perSku.get(r.SKU) ?? new Map();
    perSku.set(r.SKU, m);
    const prev = m.get(day);
    if (!prev || ts >= prev.ts) m.set(day, { ts, price: Math.round(Number(r.price) * 100) });
  }
  const allDays = [...days].sort();
  const lastDay = allDays[allDays.length - 1];
  // A span closes on the chain's last collection day before the change.
  const dayBefore = (d: string) => allDays.filter((x) => x < d).pop() as string;
  const bySku = new Map<string, ExpectedSpan[]>();
  for (const [sku, m] of perSku) {
    const spans: ExpectedSpan[] = [];
    for (const [day, { price }] of [...m].sort(([a], [b]) => a.localeCompare(b))) {
      const open = spans[spans.length - 1];
      if (open && open.price === price) continue;
      if (open) open.to = dayBefore(day);
      spans.push({ from: day, to: lastDay, price });
    }
    bySku.set(sku, spans);
  }
  return { bySku, lastDay };
}

async function rowCounts(db: TestDatabase): Promise<Record<string, number>> {
  const tables = await db.pool.query<{ t: string }>(
    `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const out: Record<string, number> = {};
  for (const { t } of tables.rows) out[t] = Number((await db.pool.query(`SELECT count(*) AS n FROM "${t}"`)).rows[0].n);
  return out;
}

describe('import of the real data', () => {
  let db: TestDatabase;
  let report: ImportReport;
  let emptyBefore: boolean;
  let seconds: number;

  beforeAll(async () => {
    db = await createTestDatabase('import');
    emptyBefore = await isEmpty(db.pool);
    const t = performance.now();
    report = await importRealData(db.pool, DATA_DIR, { progress: false });
    seconds = (performance.now() - t) / 1000;
    console.log(`importRealData on an empty database: ${seconds.toFixed(1)} s`, {
      stores: report.stores.ms, priceHistory: report.priceHistory.ms, products: report.products.ms, samples: report.samples.ms,
    });
  });
  afterAll(async () => db?.drop());

  // How long it takes is printed above and measured by test/e2e/start.test.ts, not asserted: a timed
  // assertion fails on a loaded machine without anything being wrong.
  it('runs every step on an empty database', () => {
    expect(emptyBefore).toBe(true);
    expect([report.stores, report.priceHistory, report.products, report.samples].map((s) => s.ran)).toEqual([true, true, true, true]);
  });

  it('imports every store of the three lists, and no Four Square', async () => {
    const r = await db.pool.query<{ slug: string; n: string }>(
      'SELECT r.slug, count(s.id) AS n FROM retailer r LEFT JOIN store s ON s.retailer_id = r.id GROUP BY r.slug',
    );
    const n = Object.fromEntries(r.rows.map((x) => [x.slug, Number(x.n)]));
    expect(n).toEqual({ paknsave: 58, newworld: 148, woolworths: 177, freshchoice: 0, supervalue: 0, warehouse: 0 });
  });

  it('stores have clean names, region codes and places', async () => {
    const stores = (await db.pool.query('SELECT r.slug, s.* FROM store s JOIN retailer r ON r.id = s.retailer_id')).rows;
    for (const s of stores) {
      expect(s.name).toBe(s.name.replace(/\s+/g, ' ').trim());
      if (s.address) expect(s.address).not.toMatch(/\t|\s{2}|^\s|\s$|,\s*,/);
      expect(s.town).toBeTruthy();
      expect(s.area).toBeTruthy();
      expect(['major', 'large', 'medium', 'small', 'rural']).toContain(s.urban);
      if (s.urban === 'rural') expect(s.town).toBe(`Rural ${s.area}`);
      expect(s.region).toBe(s.slug === 'woolworths' ? null : s.region);
      if (s.slug !== 'woolworths') expect(['NI', 'SI']).toContain(s.region);
    }
    // PAK'nSAVE region from salesOrgId (5000 North Island, 12 South Island), checked against the JSON.
    const json = JSON.parse(fs.readFileSync(file('nwbort--stores-paknsave/api-prod.paknsave.co.nz-stores.json'), 'utf8')).stores as {
      id: string;
      salesOrgId: string;
    }[];
    for (const j of json) {
      const s = stores.find((x) => x.slug === 'paknsave' && x.external_id === j.id);
      expect(s?.region).toBe(j.salesOrgId === '5000' ? 'NI' : 'SI');
    }
    const ww = stores.find((x) => x.slug === 'woolworths' && x.external_id === '1646608');
    expect(ww).toMatchObject({ name: 'Woolworths Johnsonville', town: 'Wellington', area: 'Wellington', urban: 'major' });
    const queen = stores.find((x) => x.slug === 'woolworths' && x.external_id === '1906035');
    expect(queen).toMatchObject({ name: 'Woolworths Auckland Quay Street', town: 'Auckland', area: 'Auckland', urban: 'major' });
    // Rural stores whose nearest urban core lies across a regional boundary take their service town's council.
    const rural: [slug: string, externalId: string, area: string][] = [
      ['newworld', '517424bd-8840-49e7-8206-58f4da24b1d7', 'Manawatū-Whanganui'], // Taumarunui
      ['newworld', 'b2f012df-3c55-4bca-98ba-e30c3cd3aa70', "Hawke's Bay"], // Waipukurau
      ['woolworths', '951715', "Hawke's Bay"], // Waipukurau
      ['newworld', '8e5b742c-0957-4b97-b9e2-290d75c02046', 'Canterbury'], // Kaikoura
      ['newworld', '04ba529d-3dee-4f86-adb6-62b0111114d7', 'Canterbury'], // Waimate
      ['newworld', '80bebcaf-d5a3-4ca6-a999-beab902aef55', 'Otago'], // Balclutha
      ['woolworths', '3274314', 'Otago'], // Balclutha
      ['newworld', '6739e54f-ffab-47b9-9fe1-899d91a7ad78', 'Northland'], // Mangawhai
      ['woolworths', '2373720', 'Waikato'], // Te Aroha
    ];
    for (const [slug, id, area] of rural) {
      const s = stores.find((x) => x.slug === slug && x.external_id === id);
      expect({ id, town: s?.town, area: s?.area, urban: s?.urban }).toEqual({ id, town: `Rural ${area}`, area, urban: 'rural' });
    }
  });

  it('reproduces the Woolworths price log as national spans on the right NZ days', async () => {
    const { bySku, lastDay } = expectedSpans();
    // SKUs the store samples also price get another span on the sample day: checked separately.
    const sampled = new Set<string>();
    for (const r of parse(fs.readFileSync(FULL), { columns: true }) as Record<string, string>[]) if (r.company === 'Woolworths') sampled.add(r.sku);
    for (const r of parse(fs.readFileSync(WW_LATEST), { columns: true }) as Record<string, string>[]) sampled.add(r.sku);

    const ww = await db.pool.query<{ last_national_day: string }>(`SELECT last_national_day FROM retailer WHERE slug = 'woolworths'`);
    expect(ww.rows[0].last_national_day).toBe('2026-08-03');
    const skus = [...bySku.keys()].sort();
    // Every 40th SKU, plus the SKUs that changed most often.
    const busiest = [...bySku].sort((a, b) => b[1].length - a[1].length).slice(0, 20).map(([s]) => s);
    const sample = [...new Set([...skus.filter((_, i) => i % 40 === 0), ...busiest])].filter((s) => !sampled.has(s));
    expect(sample.length).toBeGreaterThan(400);

    const r = await db.pool.query<{ sku: string; first_day: string; to: string; price: number; promo_price: number | null; promo_kind: number | null }>(
      `SELECT l.external_id AS sku, n.first_day, coalesce(n.last_day, rt.last_national_day) AS to, n.price, n.promo_price, n.promo_kind
       FROM national_price_span n JOIN listing l ON l.id = n.listing_id JOIN retailer rt ON rt.id = l.retailer_id
       WHERE rt.slug = 'woolworths' AND l.external_id = ANY($1::text[]) ORDER BY l.external_id, n.first_day`,
      [sample],
    );
    const got = new Map<string, ExpectedSpan[]>();
    for (const x of r.rows) {
      expect(x.promo_price).toBeNull();
      expect(x.promo_kind).toBeNull();
      const list = got.get(x.sku) ?? [];
      list.push({ from: x.first_day, to: x.to, price: x.price });
      got.set(x.sku, list);
    }
    for (const sku of sample) expect({ sku, spans: got.get(sku) }).toEqual({ sku, spans: bySku.get(sku) });
    expect(lastDay).toBe('2025-05-04');
  });

  it('keeps the log of a SKU that the samples also price, then the sample day', async () => {
    const { bySku } = expectedSpans();
    const sku = '44571'; // essentials pasta spaghetti: in the log and in full_results.csv at three stores
    expect(bySku.has(sku)).toBe(true);
    const r = await db.pool.query<{ first_day: string; last_day: string | null; price: number }>(
      `SELECT n.first_day, n.last_day, n.price FROM national_price_span n JOIN listing l ON l.id = n.listing_id
       JOIN retailer rt ON rt.id = l.retailer_id WHERE rt.slug = 'woolworths' AND l.external_id = $1 ORDER BY n.first_day`,
      [sku],
    );
    const logSpans = bySku.get(sku) as ExpectedSpan[];
    // Three stores price it at 1.49 on 2026-08-03: the national median opens a span that day,
    // after the log's last span closed on the log's last day (the sample day is a snapshot).
    const expected: [string, string | null, number][] = logSpans.map((s) => [s.from, s.to, s.price]);
    if (logSpans[logSpans.length - 1].price !== 149) expected.push(['2026-08-03', null, 149]);
    else expected[expected.length - 1][1] = null;
    expect(r.rows.map((x) => [x.first_day, x.last_day, x.price])).toEqual(expected);
    const stores = await db.pool.query(
      `SELECT st.external_id, sp.price FROM store_price_span sp JOIN store st ON st.id = sp.store_id JOIN listing l ON l.id = sp.listing_id
       JOIN retailer rt ON rt.id = l.retailer_id WHERE rt.slug = 'woolworths' AND l.external_id = $1 ORDER BY 1`,
      [sku],
    );
    expect(stores.rows.length).toBeGreaterThanOrEqual(3);
    expect(stores.rows.every((x) => x.price === 149)).toBe(true);
  });

  it('creates one Woolworths listing per logged SKU, keyed by the SKU', async () => {
    const { bySku } = expectedSpans();
    const r = await db.pool.query<{ external_id: string }>(
      `SELECT l.external_id FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths'`,
    );
    const ids = new Set(r.rows.map((x) => x.external_id));
    for (const sku of bySku.keys()) expect(ids.has(sku)).toBe(true);
  });

  it('writes product-sample attributes onto existing listings only, without retailer images', async () => {
    expect(report.products.result).toMatchObject({ rows: 23, updated: 20, unknown: 3 });
    const l = (await db.pool.query(
      `SELECT l.* FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths' AND l.external_id = '133211'`,
    )).rows[0];
    expect(l).toMatchObject({
      name: 'fresh fruit bananas yellow loose',
      brand: 'fresh fruit',
      gtin: 9354829000064,
      category_path: ['Fruit & Veg'],
      image: null,
      retailer_url: 'https://www.woolworths.co.nz/shop/productdetails?stockcode=133211',
    });
    const sized = (await db.pool.query(
      `SELECT l.size_text, l.gtin FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths' AND l.external_id = '115160'`,
    )).rows[0];
    expect(sized).toEqual({ size_text: '120g', gtin: 9400597043656 });
    // An in-store (restricted-circulation) barcode is not a GTIN.
    const rcn = (await db.pool.query(
      `SELECT l.gtin FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths' AND l.external_id = '324084'`,
    )).rows[0];
    expect(rcn.gtin).toBeNull();
    const unknown = await db.pool.query(`SELECT 1 FROM listing WHERE external_id IN ('644247', '11723', '6018401')`);
    expect(unknown.rowCount).toBe(0);
    const images = await db.pool.query('SELECT count(*)::int AS n FROM listing WHERE image IS NOT NULL');
    expect(images.rows[0].n).toBe(0);
  });

  it('ingests the store samples as one day per chain, the dated row winning', async () => {
    const colls = await db.pool.query<{ slug: string; day: string; mode: string }>(
      `SELECT r.slug, c.day, c.mode FROM collection c JOIN retailer r ON r.id = c.retailer_id WHERE c.store_id IS NULL AND c.day = '2026-08-03' ORDER BY 1`,
    );
    expect(colls.rows).toEqual([
      { slug: 'newworld', day: '2026-08-03', mode: 'snapshot' },
      { slug: 'paknsave', day: '2026-08-03', mode: 'snapshot' },
      { slug: 'woolworths', day: '2026-08-03', mode: 'snapshot' },
    ]);
    const price = async (slug: string, store: string, ext: string) =>
      (await db.pool.query(
        `SELECT sp.price, sp.promo_price, sp.promo_kind, l.name, l.size_text, l.category_path FROM store_price_span sp
         JOIN store st ON st.id = sp.store_id JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id
         WHERE r.slug = $1 AND st.external_id = $2 AND l.external_id = $3`,
        [slug, store, ext],
      )).rows;
    // woolworths_latest_results says 8.90 at Victoria Street West; full_results.csv (dated) says 10.50.
    expect(await price('woolworths', '882226', '6043951')).toMatchObject([{ price: 1050, promo_price: null, promo_kind: null }]);
    // Resolved by name: "Newmarket Woolworths" → store 1768531 (only in the undated file).
    expect(await price('woolworths', '1768531', '253453')).toMatchObject([{ price: 890 }]);
    // A PAK'nSAVE sale row: price and promo_price are the price shown, promo_kind 1.
    expect(await price('paknsave', '60561e46-ece7-43a7-b142-9b14812586e4', '5349244-EA-000')).toEqual([
      { price: 555, promo_price: 555, promo_kind: 1, name: 'Beef Mince & Cheese Pie', size_text: '200g', category_path: ['Fridge, Deli & Eggs', 'Chilled Soups & Ready Meals'] },
    ]);
    // Second collection path: empty quantity, pack size in measurement_unit.
    expect(await price('paknsave', '60561e46-ece7-43a7-b142-9b14812586e4', '5282800-EA-000')).toMatchObject([{ price: 899, size_text: '400g' }]);
    // New World: no product id, external_id is the slug of name and size.
    const nw = await db.pool.query(
      `SELECT count(*)::int AS n FROM store_price_span sp JOIN listing l ON l.id = sp.listing_id WHERE l.external_id = 'chopped-tomatoes-in-juice-400g'
       AND l.retailer_id = (SELECT id FROM retailer WHERE slug = 'newworld')`,
    );
    expect(nw.rows[0].n).toBe(3);
    expect(await price('newworld', 'c387ac97-5e0a-43ed-9c93-f1edccda298d', 'beef-mince-and-cheese-pie-200g')).toMatchObject([
      { price: 576, promo_price: 576, promo_kind: 1 },
    ]);
    expect(report.samples.result?.woolworths).toMatchObject({ observations: 455, stores: 7, overriddenByDated: { woolworths_latest_results: 21 } });
    // 18 undated PAK'nSAVE rows name a product the dated file gives a product id (same name and
    // size): they take that id (adoptProductIds), so the dated row of the same store wins over them,
    // and no slug listing duplicates the product.
    expect(report.samples.result?.paknsave).toMatchObject({ observations: 413, overriddenByDated: { 'paknsave_latest_results.csv': 18 } });
    const slugTwins = await db.pool.query(
      `SELECT count(*)::int AS n FROM listing a JOIN listing b ON a.retailer_id = b.retailer_id AND a.id <> b.id
         AND lower(a.name) = lower(b.name) AND a.size_text = b.size_text
       WHERE a.retailer_id = (SELECT id FROM retailer WHERE slug = 'paknsave') AND a.external_id !~ '^[0-9]+-[A-Z]+-[0-9]+$'`,
    );
    expect(slugTwins.rows[0].n).toBe(0);
    expect(report.samples.result?.newworld.observations).toBe(21);
  });

  it('changes nothing when run again', async () => {
    const before = await rowCounts(db);
    const again = await importRealData(db.pool, DATA_DIR, { progress: false });
    expect([again.stores, again.priceHistory, again.products, again.samples].map((s) => s.ran)).toEqual([false, false, false, false]);
    expect(await rowCounts(db)).toEqual(before);
    expect(await isEmpty(db.pool)).toBe(false);
    // Even with the import record gone, every step finds its data already in place.
    await db.pool.query('DELETE FROM import_run');
    const forced = await importRealData(db.pool, DATA_DIR, { progress: false });
    expect(forced.stores.result).toMatchObject({ inserted: 0, updated: 0, unchanged: 383 });
    expect(forced.priceHistory.result?.ingest).toMatchObject({ merged: 0, skipped: 194 });
    expect(forced.samples.result?.woolworths.ingest).toMatchObject({ merged: 0, skipped: 1 });
    expect(await rowCounts(db)).toEqual(before);
  });

  it('rejects a missing or incomplete data directory, naming the path, before writing', async () => {
    const before = await rowCounts(db);
    const missing = path.join(os.tmpdir(), 'no-such-data-dir-for-import-test');
    const e1 = await importRealData(db.pool, missing).catch((e) => e);
    expect(e1).toBeInstanceOf(DataDirError);
    expect(e1.message).toContain(missing);

    const partial = fs.mkdtempSync(path.join(os.tmpdir(), 'partial-data-'));
    try {
      fs.mkdirSync(path.join(partial, 'l5--nz-cities'));
      fs.copyFileSync(file('l5--nz-cities/urban_cores.csv'), path.join(partial, 'l5--nz-cities/urban_cores.csv'));
      const e2 = await importRealData(db.pool, partial).catch((e) => e);
      expect(e2).toBeInstanceOf(DataDirError);
      expect(e2.message).toContain(path.join(partial, 'neon-ninja--woolies/price_history.csv'));
      expect(e2.message).not.toContain('urban_cores.csv');
    } finally {
      fs.rmSync(partial, { recursive: true, force: true });
    }
    expect(await rowCounts(db)).toEqual(before);
  });
});

describe('upsertStores and updateListingAttributes', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('import_units');
  });
  afterAll(async () => db?.drop());

  const store = (over: Partial<StoreInput> = {}): StoreInput => ({
    retailer: 'newworld', external_id: 'nw-1', name: 'New World Test', address: '1 Test St, Te Aro', region: 'NI',
    lat: -41.29, lng: 174.78, town: 'Wellington', area: 'Wellington', urban: 'major', ...over,
  });

  it('inserts, then rewrites only changed stores', async () => {
    expect(await upsertStores(db.pool, [store(), store({ external_id: 'nw-2' })])).toEqual({ inserted: 2, updated: 0, unchanged: 0 });
    expect(await upsertStores(db.pool, [store(), store({ external_id: 'nw-2' })])).toEqual({ inserted: 0, updated: 0, unchanged: 2 });
    expect(await upsertStores(db.pool, [store({ name: 'New World Te Aro' }), store({ external_id: 'nw-2' })])).toEqual({ inserted: 0, updated: 1, unchanged: 1 });
  });

  it('rejects bad input whole, naming the store', async () => {
    const before = (await db.pool.query('SELECT count(*)::int AS n FROM store')).rows[0].n;
    await expect(upsertStores(db.pool, [store({ external_id: 'nw-9' }), store({ external_id: 'nw-9' })])).rejects.toThrow(StoreInputError);
    await expect(upsertStores(db.pool, [store({ external_id: 'nw-8', lat: 174.78, lng: -41.29 })])).rejects.toThrow(/not in New Zealand/);
    await expect(upsertStores(db.pool, [store({ external_id: 'nw-7', retailer: 'foursquare' })])).rejects.toThrow(/unknown retailer "foursquare"/);
    await expect(upsertStores(db.pool, [store({ external_id: 'nw-6', name: '  ' })])).rejects.toThrow(/store #0 .*name/);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM store')).rows[0].n).toBe(before);
  });

  it('updates existing listings only, idempotently, and refuses retailer image URLs', async () => {
    await db.pool.query(`INSERT INTO listing (retailer_id, external_id, name, first_seen) SELECT id, '42', 'Woolworths item 42', '2025-01-01' FROM retailer WHERE slug = 'woolworths'`);
    const row = { retailer: 'woolworths', external_id: '42', name: 'essentials pasta spaghetti', size_text: '500g', category_path: ['Pantry'] };
    expect(await updateListingAttributes(db.pool, [row, { retailer: 'woolworths', external_id: '43', name: 'x' }])).toEqual({
      updated: 1, unchanged: 0, unknown: 1, unknownIds: ['woolworths:43'],
    });
    expect(await updateListingAttributes(db.pool, [row])).toMatchObject({ updated: 0, unchanged: 1, unknown: 0 });
    // Empty values leave stored ones.
    expect(await updateListingAttributes(db.pool, [{ retailer: 'woolworths', external_id: '42', name: '', category_path: [] }])).toMatchObject({ updated: 0 });
    const l = (await db.pool.query(`SELECT name, size_text, category_path, image FROM listing WHERE external_id = '42'`)).rows[0];
    expect(l).toEqual({ name: 'essentials pasta spaghetti', size_text: '500g', category_path: ['Pantry'], image: null });
    await expect(
      updateListingAttributes(db.pool, [{ retailer: 'woolworths', external_id: '42', image: 'https://assets.woolworths.com.au/images/2010/42.jpg' }]),
    ).rejects.toThrow(ListingInputError);
  });
});

describe('importer helpers', () => {
  it('slugs product names and sizes stably', () => {
    expect(productSlug('Chopped Tomatoes in Juice', '400g')).toBe('chopped-tomatoes-in-juice-400g');
    expect(productSlug('Beef Mince & Cheese Pie', '200g')).toBe('beef-mince-and-cheese-pie-200g');
    expect(productSlug('  Carrots ', 'kg')).toBe('carrots-kg');
    expect(productSlug('Kūmara', '1kg')).toBe('kumara-1kg');
  });

  it('builds size text and category paths from full_results.csv columns', () => {
    expect(sizeText('500', 'g')).toBe('500g');
    expect(sizeText('', '400g')).toBe('400g');
    expect(sizeText('6', 'pack')).toBe('6 pack');
    expect(sizeText('3', 'x 31g')).toBe('3 x 31g');
    expect(sizeText('', '')).toBeNull();
    expect(categoryPath('Meat, Poultry & Seafood', 'Beef|Mince, Sausages & Meatballs')).toEqual(['Meat, Poultry & Seafood', 'Beef']);
    expect(categoryPath('Pantry', '')).toEqual(['Pantry']);
  });

  it('reads Python-literal department lists, barcodes and store names', () => {
    expect(departmentNames("[{'id': 1, 'name': 'Fruit & Veg'}, {'id': 2, 'name': \"Baker's Delight\"}]")).toEqual(['Fruit & Veg', "Baker's Delight"]);
    expect(barcodeToGtin('9414742352296')).toBe('9414742352296');
    expect(barcodeToGtin('0267175000000')).toBeNull();
    expect(barcodeToGtin('2112345678900')).toBeNull();
    expect(barcodeToGtin('n/a')).toBeNull();
    expect(storeNameKey('Mount Eden Woolworths')).toBe(storeNameKey('Woolworths Mt Eden'));
    expect(storeNameKey('Metro Auckland Victoria Street West')).toBe(storeNameKey('Woolworths Auckland Victoria Street West'));
    expect(cleanAddress('45 Jackson St\t,Petone,, 5012 ')).toBe('45 Jackson St, Petone, 5012');
  });
});
