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
import { importRealData, isEmpty, pendingImportSteps, DataDirError, type ImportReport } from '../../workers/import/index.js';
import { upsertStores, StoreInputError, type StoreInput } from '../../workers/ingest/stores.js';
import { updateListingAttributes, ListingInputError } from '../../workers/ingest/listings.js';
import { productSlug, sizeContradicted, sizeText, categoryPath, storeNameKey } from '../../workers/import/samples.js';
import { CATALOGUE_DAY, cataloguePrice, catalogueSizeText, readCatalogue } from '../../workers/import/catalogue.js';
import { cleanAddress } from '../../workers/import/stores.js';

const file = (rel: string) => path.join(DATA_DIR, rel);
const PRICE_LOG = file('neon-ninja--woolies/price_history.csv');
const FULL = file('Blim3202--NZ-Meal-Cost-Optimiser/data/full_results.csv');
const WW_LATEST = file('Blim3202--NZ-Meal-Cost-Optimiser/data/woolworths_latest_results');
const CATALOGUE = file('neon-ninja--woolies/products.columns.tsv');

/** The catalogue's rows as this test reads them (independently of workers/import/catalogue.ts). */
function catalogueRows(): Record<string, string>[] {
  return parse(fs.readFileSync(CATALOGUE), { columns: true, delimiter: '\t', quote: false }) as Record<string, string>[];
}

/** Woolworths SKUs the store samples of 2026-08-03 price. */
function sampledSkus(): Set<string> {
  const sampled = new Set<string>();
  for (const r of parse(fs.readFileSync(FULL), { columns: true }) as Record<string, string>[]) if (r.company === 'Woolworths') sampled.add(r.sku);
  for (const r of parse(fs.readFileSync(WW_LATEST), { columns: true }) as Record<string, string>[]) sampled.add(r.sku);
  return sampled;
}

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
      stores: report.stores.ms, priceHistory: report.priceHistory.ms, catalogue: report.catalogue.ms, samples: report.samples.ms,
    });
  });
  afterAll(async () => db?.drop());

  // How long it takes is printed above and measured by test/e2e/start.test.ts, not asserted: a timed
  // assertion fails on a loaded machine without anything being wrong.
  it('runs every step on an empty database', () => {
    expect(emptyBefore).toBe(true);
    expect([report.stores, report.priceHistory, report.catalogue, report.samples].map((s) => s.ran)).toEqual([true, true, true, true]);
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
    // SKUs the store samples also price: checked separately. The catalogue's spans (from 2026-07-27)
    // follow the log's after the unknown days: checked in the catalogue test.
    const sampled = sampledSkus();

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
       WHERE rt.slug = 'woolworths' AND l.external_id = ANY($1::text[]) AND n.first_day < $2 ORDER BY l.external_id, n.first_day`,
      [sample, CATALOGUE_DAY],
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
    // The log's last span closes on the log's last day (the days until the catalogue are unknown);
    // the catalogue prices it at 1.49 on 2026-07-27, and three stores at 1.49 on 2026-08-03: the
    // national median equals the open span, which runs on.
    expect(catalogueRows().find((c) => c.sku === sku)).toMatchObject({ original_price: '1.49', sale_price: '1.49' });
    const expected: [string, string | null, number][] = logSpans.map((s) => [s.from, s.to, s.price]);
    expected.push([CATALOGUE_DAY, null, 149]);
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

  it('imports the catalogue as descriptions and the national snapshot of 2026-07-27', async () => {
    const rows = catalogueRows();
    expect(report.catalogue.result).toMatchObject({
      day: '2026-07-27', products: 17664, loggedSkus: 13862, newListings: 3802, notInCatalogue: 5756,
      gtins: 17555, gtinsDropped: { format: 0, 'check-digit': 0, restricted: 109 }, weighable: 284, multibuyUnrecorded: 164,
      promotions: { none: 10700, '1 special': 5411, '2 member/club': 1553 },
    });
    expect(report.catalogue.result?.tags).toMatchObject({ IsSpecial: 4847, IsClubPrice: 1553, IsGreatPrice: 96, IsMultiBuy: 66, IsGreatPriceMultiBuy: 98 });
    const sampled = sampledSkus();
    // Every 40th product, by this test's own reading of the file.
    const sample = rows.filter((_, i) => i % 40 === 0);
    const got = await db.pool.query(
      `SELECT l.external_id AS sku, l.name, l.brand, l.size_text, l.gtin, l.category_path, l.retailer_url, l.available,
         n.last_day, n.price, n.promo_price, n.promo_kind
       FROM listing l JOIN retailer r ON r.id = l.retailer_id
       JOIN national_price_span n ON n.listing_id = l.id AND n.first_day = $2
       WHERE r.slug = 'woolworths' AND l.external_id = ANY($1::text[])`,
      [sample.map((c) => c.sku), CATALOGUE_DAY],
    );
    const bySku = new Map(got.rows.map((x) => [x.sku as string, x]));
    expect(bySku.size).toBe(sample.length);
    const cents = (d: string) => Math.round(Number(d) * 100);
    for (const c of sample) {
      const lower = cents(c.sale_price) < cents(c.original_price);
      // A valid GTIN-13 with the GS1 check digit, not an in-store code (GTIN-13 prefix 2, or a
      // UPC of number system 2 or 4 in 13-digit form: 02…, 04…).
      const digits = c.barcode;
      const check = (10 - ([...digits.slice(0, 12)].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0) % 10)) % 10;
      const gtin = digits.length === 13 && check === Number(digits[12]) && !/^(2|02|04)/.test(digits) ? Number(digits) : undefined;
      const x = bySku.get(c.sku);
      expect({ sku: c.sku, name: x.name, brand: x.brand, category_path: x.category_path, size_text: x.size_text }).toEqual({
        // Inner runs of spaces ("pistachio &  caramel") collapse to one.
        sku: c.sku, name: c.name.replace(/\s+/g, ' '), brand: c.brand || null, category_path: [c.departments],
        size_text: c.unit === 'Kg' ? 'per kg' : c.volume_size || null,
      });
      if (gtin !== undefined) expect(x.gtin).toBe(gtin);
      expect(x.retailer_url).toBe(`https://www.woolworths.co.nz/shop/productdetails?stockcode=${c.sku}`);
      expect({ sku: c.sku, price: x.price, promo_price: x.promo_price, promo_kind: x.promo_kind }).toEqual({
        sku: c.sku, price: cents(c.original_price), promo_price: lower ? cents(c.sale_price) : null,
        promo_kind: lower ? (c.tag_type === 'IsClubPrice' ? 2 : 1) : null,
      });
      if (!sampled.has(c.sku)) expect({ sku: c.sku, last_day: x.last_day }).toEqual({ sku: c.sku, last_day: null });
    }
    // Placeholders remain only for logged SKUs the catalogue does not list.
    const named = await db.pool.query<{ placeholders: number; named: number }>(
      `SELECT count(*) FILTER (WHERE l.name ~ '^Woolworths item ')::int AS placeholders, count(*) FILTER (WHERE l.name !~ '^Woolworths item ')::int AS named
       FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths'`,
    );
    const inCatalogue = new Set(rows.map((c) => c.sku));
    const { bySku: logged } = expectedSpans();
    // The samples name two more of the 5,756 logged SKUs the catalogue lacks.
    expect(named.rows[0].placeholders).toBe([...logged.keys()].filter((k) => !inCatalogue.has(k) && !sampled.has(k)).length);
    expect(named.rows[0].named).toBeGreaterThanOrEqual(17664);
    // An in-store (restricted-circulation) barcode is not a GTIN.
    const rcn = (await db.pool.query(
      `SELECT l.gtin, l.size_text FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths' AND l.external_id = '324084'`,
    )).rows[0];
    expect(rcn.gtin).toBeNull();
    // Sold by weight: priced per kilogram (the file's "min order 250g" is not the size).
    const loose = (await db.pool.query(
      `SELECT l.size_text FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths' AND l.external_id = '133211'`,
    )).rows[0];
    expect(loose.size_text).toBe('per kg');
    const images = await db.pool.query('SELECT count(*)::int AS n FROM listing WHERE image IS NOT NULL');
    expect(images.rows[0].n).toBe(0);
  });

  it('leaves the days between the log and the catalogue unknown: no span runs across them', async () => {
    const { bySku, lastDay } = expectedSpans();
    const spans = async (sku: string) => (await db.pool.query<{ first_day: string; last_day: string | null; price: number }>(
      `SELECT n.first_day, n.last_day, n.price FROM national_price_span n JOIN listing l ON l.id = n.listing_id
       JOIN retailer rt ON rt.id = l.retailer_id WHERE rt.slug = 'woolworths' AND l.external_id = $1 ORDER BY n.first_day`, [sku])).rows;
    // SKU 168: the log's last price (2.60) is the catalogue's, yet two spans: the log's ends on its last day.
    const coconut = await spans('168');
    expect((bySku.get('168') as ExpectedSpan[]).at(-1)?.price).toBe(260);
    expect(coconut.slice(-2)).toEqual([
      { first_day: (bySku.get('168') as ExpectedSpan[]).at(-1)?.from, last_day: lastDay, price: 260 },
      { first_day: CATALOGUE_DAY, last_day: null, price: 260 },
    ]);
    // SKU 84 is logged but not in the catalogue: its last span ends with the log, its name stays a placeholder.
    const gone = await spans('84');
    expect(gone.at(-1)?.last_day).toBe(lastDay);
    const l = (await db.pool.query(`SELECT name FROM listing WHERE external_id = '84' AND retailer_id = (SELECT id FROM retailer WHERE slug = 'woolworths')`)).rows[0];
    expect(l.name).toBe('Woolworths item 84');
    // No Woolworths national span covers a day strictly between the log's last day and the catalogue's.
    const across = await db.pool.query(
      `SELECT count(*)::int AS n FROM national_price_span n JOIN listing l ON l.id = n.listing_id JOIN retailer r ON r.id = l.retailer_id
       WHERE r.slug = 'woolworths' AND n.first_day <= $1::date AND coalesce(n.last_day, r.last_national_day) > $1::date`, [lastDay]);
    expect(across.rows[0].n).toBe(0);
  });

  it('maps the catalogue prices and tags to promotions', () => {
    expect(cataloguePrice(300, 199, 'Other')).toEqual({ price: 300, promo_price: 199, promo_kind: 1 });
    expect(cataloguePrice(550, 490, 'IsClubPrice')).toEqual({ price: 550, promo_price: 490, promo_kind: 2 });
    expect(cataloguePrice(1530, 1370, 'IsSpecial')).toEqual({ price: 1530, promo_price: 1370, promo_kind: 1 });
    expect(cataloguePrice(245, 245, 'IsMultiBuy')).toEqual({ price: 245, promo_price: null, promo_kind: null });
    expect(cataloguePrice(839, 839, 'IsGreatPrice')).toEqual({ price: 839, promo_price: null, promo_kind: null });
    expect(() => cataloguePrice(100, 120, 'IsSpecial')).toThrow(/above/);
    expect(catalogueSizeText('Kg', 'min order 600g')).toBe('per kg');
    expect(catalogueSizeText('Each', ' 6pack ')).toBe('6pack');
    expect(catalogueSizeText('Each', '')).toBeNull();
  });

  it('refuses a malformed catalogue, naming the line, before writing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-'));
    try {
      const header = fs.readFileSync(CATALOGUE, 'utf8').split('\n')[0];
      const good = '44571\t9339687206599\tx\tessentials pasta spaghetti\tessentials\t\tEach\tPantry\t1.49\t1.49\t0.3\t100g\t\t500g\tOther';
      const bad = (name: string, text: string) => {
        const f = path.join(dir, name);
        fs.writeFileSync(f, text);
        return () => readCatalogue(f);
      };
      expect(bad('sale.tsv', `${header}\n${good.replace('1.49\t1.49', '1.49\t1.99')}\n`)).toThrow(/line 2: sku 44571: sale_price 199 is above original_price 149/);
      expect(bad('repeat.tsv', `${header}\n${good}\n${good}\n`)).toThrow(/line 3: sku 44571 is repeated/);
      expect(bad('header.tsv', `sku\tname\n1\tx\n`)).toThrow(/line 1: header must be/);
      expect(bad('price.tsv', `${header}\n${good.replace('1.49\t1.49', 'abc\t1.49')}\n`)).toThrow(/line 2/);
      expect(bad('short.tsv', `${header}\n${good.split('\t').slice(0, 14).join('\t')}\n`)).toThrow(/line 2/);
      expect(bad('ok.tsv', `${header}\n${good}\n`)().rows.map((r) => r.sku)).toEqual(['44571']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ingests the store samples as one day per chain, the dated row winning', async () => {
    const colls = await db.pool.query<{ slug: string; day: string; mode: string }>(
      `SELECT r.slug, c.day, c.mode FROM collection c JOIN retailer r ON r.id = c.retailer_id WHERE c.store_id IS NULL AND c.day = '2026-08-03' ORDER BY 1`,
    );
    expect(colls.rows).toEqual([
      { slug: 'newworld', day: '2026-08-03', mode: 'partial' },
      { slug: 'paknsave', day: '2026-08-03', mode: 'partial' },
      { slug: 'woolworths', day: '2026-08-03', mode: 'partial' },
    ]);
    // Searches for seven ingredients, not a catalogue: what they do not mention stays open (available).
    const open = await db.pool.query<{ open: number; sampled: number }>(
      `SELECT count(*) FILTER (WHERE n.first_day = $1 AND n.last_day IS NULL)::int AS open,
         count(*) FILTER (WHERE n.first_day = '2026-08-03')::int AS sampled
       FROM national_price_span n JOIN listing l ON l.id = n.listing_id JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths'`,
      [CATALOGUE_DAY],
    );
    expect(open.rows[0].open + open.rows[0].sampled).toBeGreaterThanOrEqual(17664);
    expect(open.rows[0].sampled).toBeLessThan(500);
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

  it('knows which steps a database lacks (an import by an older version)', async () => {
    expect(await pendingImportSteps(db.pool, DATA_DIR)).toEqual([]);
    const row = (await db.pool.query(`SELECT * FROM import_run WHERE name = 'catalogue'`)).rows[0];
    await db.pool.query(`UPDATE import_run SET digest = 'older' WHERE name = 'catalogue'`);
    try {
      expect(await pendingImportSteps(db.pool, DATA_DIR)).toEqual(['catalogue']);
    } finally {
      await db.pool.query('UPDATE import_run SET digest = $1 WHERE name = $2', [row.digest, 'catalogue']);
    }
  });

  it('changes nothing when run again', async () => {
    const before = await rowCounts(db);
    const again = await importRealData(db.pool, DATA_DIR, { progress: false });
    expect([again.stores, again.priceHistory, again.catalogue, again.samples].map((s) => s.ran)).toEqual([false, false, false, false]);
    expect(await rowCounts(db)).toEqual(before);
    expect(await isEmpty(db.pool)).toBe(false);
    // Even with the import record gone, every step finds its data already in place.
    await db.pool.query('DELETE FROM import_run');
    const forced = await importRealData(db.pool, DATA_DIR, { progress: false });
    expect(forced.stores.result).toMatchObject({ inserted: 0, updated: 0, unchanged: 383 });
    expect(forced.priceHistory.result?.ingest).toMatchObject({ merged: 0, skipped: 194 });
    expect(forced.catalogue.result?.ingest).toMatchObject({ merged: 0, skipped: 1 });
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

  it('drops a size the row\'s own unit price contradicts (issue 32 item 4), not a sale row\'s', () => {
    // SKU 6072822: "1 kg" at $31.90 with $17.72 per kg is a 1.8 kg pack.
    expect(sizeContradicted('1kg', '1kg', '17.72', '31.9')).toBe(true);
    expect(sizeContradicted('500g', '1kg', '17.72', '8.86')).toBe(false);
    // A sale row: its unit price is of the original price, so the price is below it.
    expect(sizeContradicted('400g', '1kg', '4.98', '1.59')).toBe(false);
    expect(sizeContradicted('per kg', '1kg', '17.72', '31.9')).toBe(false);
    expect(sizeContradicted('1kg', '', '17.72', '31.9')).toBe(false);
    expect(sizeContradicted('6 pack', '1kg', '17.72', '31.9')).toBe(false);
  });

  it('reads store names', () => {
    expect(storeNameKey('Mount Eden Woolworths')).toBe(storeNameKey('Woolworths Mt Eden'));
    expect(storeNameKey('Metro Auckland Victoria Street West')).toBe(storeNameKey('Woolworths Auckland Victoria Street West'));
    expect(cleanAddress('45 Jackson St\t,Petone,, 5012 ')).toBe('45 Jackson St, Petone, 5012');
  });
});
