/**
 * The store and area views (workers/views/stores.ts) against a real PostgreSQL, on generated
 * panels with known answers (made-up prices, not real data): stores, listings, store and national
 * spans written by SQL (or through the real ingest, whose national price is the median across the
 * chain's stores), the real basket (synced from the basket file) and basket_match rows by SQL.
 * Every build runs as the orchestrator runs it: inside one REPEATABLE READ transaction, its report
 * stored in view_run.detail as `{parts, report}` (workers/views/run.ts), where the next build finds
 * its state.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { prng } from '../helpers/prng.js';
import { addDays } from '../../src/domain/days.js';
import { inTransaction } from '../../src/db/transaction.js';
import { pricedItems, spreadBucket, spreadBucketSql, storeLevel, type LevelItem } from '../../src/domain/store-levels.js';
import { syncBasket } from '../../workers/index/basket.js';
import { ingest } from '../../workers/ingest/ingest.js';
import type { ObservationInput } from '../../workers/ingest/format.js';
import { buildStoreViews, type StoreViewsReport } from '../../workers/views/stores.js';

const D0 = '2026-07-01';
const D = (k: number) => addDays(D0, k);

let db: TestDatabase;
/** Observable basket items by group code, ascending id, with their weights. */
let itemsOf: Map<string, { id: number; weight: number }[]>;
let basket: Map<number, LevelItem>;

beforeAll(async () => {
  db = await createTestDatabase('store_levels');
  await syncBasket(db.pool);
  const r = await db.pool.query<{ id: number; weight: number; group_id: number; code: string }>(
    `SELECT i.id, i.weight, i.group_id, g.code FROM basket_item i JOIN basket_group g ON g.id = i.group_id WHERE g.observable AND i.active ORDER BY i.id`,
  );
  itemsOf = new Map();
  basket = new Map();
  for (const x of r.rows) {
    itemsOf.set(x.code, [...(itemsOf.get(x.code) ?? []), { id: x.id, weight: x.weight }]);
    basket.set(x.id, { weight: x.weight, group: x.group_id });
  }
});
afterAll(async () => db?.drop());
beforeEach(async () => {
  await db.pool.query(`TRUNCATE store_level_day, store_level, store_listing, area_level, view_run, basket_match, store_price_span,
    national_price_span, listing_day_stats, collection, listing, store CASCADE`);
  await db.pool.query('UPDATE retailer SET last_national_day = NULL, covered_day = NULL, last_run = NULL');
});

/** One build as the orchestrator runs it; the report is stored in view_run.detail. */
async function build(full = false): Promise<StoreViewsReport> {
  return inTransaction(db.pool, async (c) => {
    const report = await buildStoreViews(c, { full, progress: false });
    await c.query(
      `INSERT INTO view_run (name, data_version, seconds, detail) VALUES ('stores', 'test', $1, $2)
       ON CONFLICT (name) DO UPDATE SET seconds = EXCLUDED.seconds, detail = EXCLUDED.detail`,
      [report.seconds, JSON.stringify({ parts: {}, report })],
    );
    return report;
  }, { setup: 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ' });
}

/** Rows written and deleted by a build, over its four tables. */
const writes = (r: StoreViewsReport) =>
  r.days.written + r.days.deleted + r.panels.written + r.panels.deleted + r.listings.written + r.listings.deleted + r.areas.written + r.areas.deleted;

/** Every row of the four views as text (float8 text output is exact). */
async function snapshot() {
  const q = async (sql: string) => (await db.pool.query(sql)).rows;
  return {
    days: await q('SELECT store_id, day::text, level::text, n_items FROM store_level_day ORDER BY 1, 2'),
    panels: await q('SELECT store_id, day::text, level::text, n_items, groups::text, spread, listings_priced, club, sale, multibuy FROM store_level ORDER BY 1'),
    listings: await q('SELECT store_id, listing_id, day::text, price, promo_price, promo_kind, median, ratio::text, multibuy_qty, multibuy_price FROM store_listing ORDER BY 1, 2'),
    areas: await q('SELECT scope, key, label, ord, level::text, stores, chains, towns FROM area_level ORDER BY 1, 2'),
  };
}

interface Place {
  town: string;
  area: string;
  urban: string | null;
}
const AKL: Place = { town: 'Auckland', area: 'Auckland', urban: 'major' };
const HAM: Place = { town: 'Hamilton', area: 'Waikato', urban: 'large' };
const RURAL: Place = { town: 'Rural Waikato', area: 'Waikato', urban: 'rural' };

async function retailerId(slug: string): Promise<number> {
  return (await db.pool.query<{ id: number }>('SELECT id FROM retailer WHERE slug = $1', [slug])).rows[0].id;
}
/** A store of chain `slug`; `lastDay` its last collection day. */
async function store(ext: string, slug: string, place: Place, lastDay: string | null): Promise<number> {
  const r = await db.pool.query<{ id: number }>(
    `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area, urban, last_day, covered_day)
     VALUES ($1, $2, $3, -37, 175, $4, $5, $6, $7, $7) RETURNING id`,
    [await retailerId(slug), ext, `Test store ${ext}`, place.town, place.area, place.urban, lastDay],
  );
  return r.rows[0].id;
}
async function listing(ext: string, slug: string): Promise<number> {
  const r = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, first_seen) VALUES ($1, $2, $3, $4) RETURNING id`,
    [await retailerId(slug), ext, `Test item ${ext}`, D0],
  );
  return r.rows[0].id;
}
async function nspan(listingId: number, first: string, last: string | null, price: number) {
  await db.pool.query('INSERT INTO national_price_span (listing_id, first_day, last_day, price) VALUES ($1, $2, $3, $4)', [listingId, first, last, price]);
}
async function sspan(listingId: number, storeId: number, first: string, last: string | null, price: number, promo: [number, number] | null = null) {
  await db.pool.query(
    'INSERT INTO store_price_span (listing_id, store_id, first_day, last_day, price, promo_price, promo_kind) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [listingId, storeId, first, last, price, promo?.[0] ?? null, promo?.[1] ?? null],
  );
}
async function match(itemId: number, listingId: number, from: string, to: string | null = null) {
  await db.pool.query(
    `INSERT INTO basket_match (item_id, listing_id, origin, confidence, valid_from, valid_to) VALUES ($1, $2, 'manual', 1, $3, $4)`,
    [itemId, listingId, from, to],
  );
}
async function chainDay(slug: string, day: string) {
  await db.pool.query('UPDATE retailer SET last_national_day = $2, covered_day = $2 WHERE slug = $1', [slug, day]);
}

/**
 * `n` basket items (fruit & vegetables first, then grocery food), each with one listing of chain
 * `slug` matched from D0, priced nationally at 200 cents on D0–D4 and 400 from D5 (open); returns
 * the listing ids in item order.
 */
async function matchedListings(prefix: string, n: number, slug = 'woolworths', medians: [number, number] = [200, 400]): Promise<{ listing: number; item: number }[]> {
  const pool = [...itemsOf.get('fruit_veg')!, ...itemsOf.get('grocery_food')!];
  const out: { listing: number; item: number }[] = [];
  for (let i = 0; i < n; i++) {
    const id = await listing(`${prefix}${i}`, slug);
    await nspan(id, D0, D(4), medians[0]);
    await nspan(id, D(5), null, medians[1]);
    await match(pool[i].id, id, D0);
    out.push({ listing: id, item: pool[i].id });
  }
  return out;
}

async function days(storeId: number) {
  return (await db.pool.query<{ day: string; level: number | null; n_items: number }>(
    'SELECT day::text, level, n_items FROM store_level_day WHERE store_id = $1 ORDER BY day', [storeId],
  )).rows;
}
async function panel(storeId: number) {
  return (await db.pool.query('SELECT day::text, level, n_items, groups, spread, listings_priced, club, sale, multibuy FROM store_level WHERE store_id = $1', [storeId])).rows[0];
}

describe('store levels', () => {
  it('a store at exactly 1.05 × the median on every one of 22 items has level 1.05 every day and in its panel; 19 items give null', async () => {
    await chainDay('woolworths', D(9));
    const dear = await store('W1', 'woolworths', AKL, D(9));
    const thin = await store('W2', 'woolworths', AKL, D(9));
    const ls = await matchedListings('L', 22);
    for (const [i, l] of ls.entries()) {
      // The store follows the national change on D5: 210 then 420 (1.05 × 200, 1.05 × 400).
      await sspan(l.listing, dear, D0, D(4), 210);
      await sspan(l.listing, dear, D(5), null, 420);
      if (i < 19) await sspan(l.listing, thin, D(2), null, i % 2 ? 190 : 210);
    }
    const r = await build();
    expect(r.mode).toBe('full');
    const series = await days(dear);
    expect(series.map((d) => d.day)).toEqual(Array.from({ length: 10 }, (_, k) => D(k)));
    for (const d of series) {
      expect(d.n_items).toBe(22);
      expect(Math.abs(d.level! - 1.05)).toBeLessThan(1e-9);
    }
    const p = await panel(dear);
    expect(p.day).toBe(D(9));
    expect(p.n_items).toBe(22);
    expect(Math.abs(p.level - 1.05)).toBeLessThan(1e-9);
    expect(p.listings_priced).toBe(22);
    expect(p.spread[13]).toBe(22); // 1.05 is in [1.04, 1.06): bucket 13
    // 19 items: no level, but the items are counted; the series starts on the store's first span day.
    const thinDays = await days(thin);
    expect(thinDays.map((d) => d.day)).toEqual(Array.from({ length: 8 }, (_, k) => D(k + 2)));
    for (const d of thinDays) expect(d).toMatchObject({ level: null, n_items: 19 });
    expect(await panel(thin)).toMatchObject({ level: null, n_items: 19, listings_priced: 19 });

    // One more collection day with nothing changed: one new day per store, the panels' day moves,
    // no store listing is rewritten.
    await chainDay('woolworths', D(10));
    await db.pool.query('UPDATE store SET last_day = $1, covered_day = $1', [D(10)]);
    const next = await build();
    expect(next.mode).toBe('incremental');
    expect(next.days).toMatchObject({ stores: 2, days: 2, written: 2, deleted: 0 });
    expect(next.panels).toMatchObject({ stores: 2, written: 2 });
    expect(next.listings).toEqual({ written: 0, deleted: 0 });
    expect((await days(dear)).at(-1)!.level).toBeCloseTo(1.05, 12);
    expect((await panel(dear)).day).toBe(D(10));
  });

  it('weights items by their basket weights (19 fruit & vegetables at 1.0, one beverage at 2.0), with group levels', async () => {
    await chainDay('woolworths', D(3));
    const s = await store('W1', 'woolworths', AKL, D(3));
    const fv = itemsOf.get('fruit_veg')!.slice(0, 19);
    const bev = itemsOf.get('beverages')![0];
    for (const [i, it] of [...fv, bev].entries()) {
      const l = await listing(`X${i}`, 'woolworths');
      await nspan(l, D0, null, 300);
      await sspan(l, s, D0, null, it === bev ? 600 : 300);
      await match(it.id, l, D0);
    }
    await build();
    // Hand-computed from the basket file's weights: fruit & vegetables 0.13 / 38 items, beverages 0.11 / 14.
    const wf = 0.13 / 38;
    const wb = 0.11 / 14;
    const want = Math.exp((wb * Math.log(2)) / (19 * wf + wb));
    expect(want).toBeCloseTo(1.0776, 4); // 2^(0.11/14 / (19 × 0.13/38 + 0.11/14)) = 2^0.10784
    const series = await days(s);
    expect(series).toHaveLength(4);
    for (const d of series) {
      expect(d.n_items).toBe(20);
      expect(d.level).toBeCloseTo(want, 12);
    }
    const p = await panel(s);
    expect(p.level).toBeCloseTo(want, 12);
    expect(p.groups).toEqual([
      { code: 'fruit_veg', name: expect.any(String), level: 1, n: 19 },
      { code: 'beverages', name: expect.any(String), level: 2, n: 1 },
    ]);
  });

  it('counts a listing only while its match is in force, and an item once however many listings it has', async () => {
    await chainDay('woolworths', D(5));
    const s = await store('W1', 'woolworths', AKL, D(5));
    const ls = await matchedListings('L', 20, 'woolworths', [100, 100]);
    for (const l of ls) await sspan(l.listing, s, D0, null, 100);
    // A second listing of the first item at 1.21 × its median: the item is sqrt(1 × 1.21) = 1.1.
    const extra = await listing('E', 'woolworths');
    await nspan(extra, D0, null, 100);
    await sspan(extra, s, D0, null, 121);
    await match(ls[0].item, extra, D(2));
    // The last item's match ends on D4 (valid_to exclusive): from D4 the store has 19 items.
    await db.pool.query('UPDATE basket_match SET valid_to = $2 WHERE listing_id = $1', [ls[19].listing, D(4)]);
    await build();
    const series = await days(s);
    const w = ls.map((l) => basket.get(l.item)!.weight);
    const sum = w.reduce((a, b) => a + b, 0);
    expect(series.map((d) => d.n_items)).toEqual([20, 20, 20, 20, 19, 19]);
    expect(series[0].level).toBe(1);
    expect(series[2].level).toBeCloseTo(Math.exp((w[0] * Math.log(1.1)) / sum), 12);
    expect(series[4].level).toBeNull();
  });
});

describe('store panel: listings, spread and promotion counts', () => {
  it('buckets every listing priced in the last 7 days by price ÷ median, edges included; skips stale listings and those without a median', async () => {
    const last = D(20);
    await chainDay('woolworths', last);
    const s = await store('W1', 'woolworths', AKL, last);
    // (store price, median): ratios 0.79, 0.80, 0.8199, 0.82, 0.83, 1.00, 1.19, 1.20, 1.5.
    const cases: [number, number, number][] = [
      [79, 100, 0], [80, 100, 1], [8199, 10000, 1], [82, 100, 2], [83, 100, 2], [100, 100, 11], [119, 100, 20], [120, 100, 21], [150, 100, 21],
    ];
    const ids: number[] = [];
    for (const [i, [price, median]] of cases.entries()) {
      const l = await listing(`S${i}`, 'woolworths');
      ids.push(l);
      await nspan(l, D0, null, median);
      await sspan(l, s, D(3), null, price);
    }
    // Latest span ended on D13 (= last − 7): outside the window. Ended on D14: inside, median of D14.
    const stale = await listing('OLD', 'woolworths');
    await nspan(stale, D0, null, 100);
    await sspan(stale, s, D0, D(13), 100);
    const recent = await listing('RECENT', 'woolworths');
    await nspan(recent, D0, D(14), 200);
    await nspan(recent, D(15), null, 300);
    await sspan(recent, s, D0, D(14), 150);
    // No national span on its day: skipped. Price 0: skipped.
    const orphan = await listing('ORPHAN', 'woolworths');
    await nspan(orphan, D0, D(2), 100);
    await sspan(orphan, s, D(10), null, 100);
    const free = await listing('FREE', 'woolworths');
    await nspan(free, D0, null, 100);
    await sspan(free, s, D(10), null, 0);
    await build();
    const p = await panel(s);
    const want = new Array(22).fill(0);
    for (const [, , b] of cases) want[b]++;
    want[0]++; // RECENT: 150 / 200 = 0.75
    expect(p.spread).toEqual(want);
    expect(p.listings_priced).toBe(cases.length + 1);
    const rows = (await db.pool.query('SELECT listing_id, day::text, price, median, ratio FROM store_listing WHERE store_id = $1 ORDER BY listing_id', [s])).rows;
    expect(rows.map((r) => r.listing_id)).toEqual([...ids, recent]);
    // `day`: the first day both the store price and the median held (the later of the spans' first days).
    expect(rows.at(-1)).toEqual({ listing_id: recent, day: D0, price: 150, median: 200, ratio: 0.75 });
    expect(rows[3]).toMatchObject({ day: D(3), price: 82, median: 100, ratio: 0.82 });
    // The SQL bucket rule agrees with spreadBucket on these rows.
    for (const [price, median, b] of cases) expect(spreadBucket(price / median)).toBe(b);
  });

  it('counts club prices, specials and multibuys in force during the last 7 days, once per listing', async () => {
    const last = D(20);
    await chainDay('woolworths', last);
    const s = await store('W1', 'woolworths', AKL, last);
    const l = async (ext: string) => {
      const id = await listing(ext, 'woolworths');
      await nspan(id, D0, null, 500);
      return id;
    };
    const a = await l('A'); // club price, open
    await sspan(a, s, D(10), null, 500, [450, 2]);
    const b = await l('B'); // club price that ended on D14 (inside the window), now shelf
    await sspan(b, s, D(10), D(14), 500, [450, 2]);
    await sspan(b, s, D(15), null, 500);
    const c = await l('C'); // two specials in the window: one promotion
    await sspan(c, s, D(12), D(16), 500, [400, 1]);
    await sspan(c, s, D(17), null, 500, [380, 1]);
    const d = await l('D'); // a special that ended before the window
    await sspan(d, s, D(5), D(13), 500, [400, 1]);
    await sspan(d, s, D(14), null, 500);
    const e = await l('E'); // multibuy
    await sspan(e, s, D(18), null, 500, [400, 3]);
    const f = await l('F'); // clearance: not counted
    await sspan(f, s, D(18), null, 500, [100, 4]);
    // Multibuy terms: kept for the multibuy (2 for 800), not for a promotion of another kind.
    await db.pool.query('UPDATE store_price_span SET multibuy_qty = 2, multibuy_price = 800 WHERE listing_id = ANY($1::int[])', [[e, f]]);
    await build();
    expect(await panel(s)).toMatchObject({ club: 2, sale: 1, multibuy: 1, listings_priced: 6 });
    const terms = (await db.pool.query('SELECT listing_id, multibuy_qty, multibuy_price FROM store_listing WHERE store_id = $1 AND multibuy_qty IS NOT NULL', [s])).rows;
    expect(terms).toEqual([{ listing_id: e, multibuy_qty: 2, multibuy_price: 800 }]);
    const promo = (await db.pool.query('SELECT listing_id, promo_price, promo_kind FROM store_listing WHERE store_id = $1 ORDER BY listing_id', [s])).rows;
    expect(promo).toEqual([
      { listing_id: a, promo_price: 450, promo_kind: 2 },
      { listing_id: b, promo_price: null, promo_kind: null },
      { listing_id: c, promo_price: 380, promo_kind: 1 },
      { listing_id: d, promo_price: null, promo_kind: null },
      { listing_id: e, promo_price: 400, promo_kind: 3 },
      { listing_id: f, promo_price: 100, promo_kind: 4 },
    ]);
  });

  it('spreadBucketSql agrees with spreadBucket on price ÷ median in whole cents', async () => {
    const pairs: [number, number][] = [];
    for (let m = 1; m <= 300; m += 7) for (let p = 1; p <= 400; p += 3) pairs.push([p, m]);
    for (const m of [100, 250, 999_999, 5_000_000]) for (let k = 38; k <= 62; k++) for (const e of [-1, 0, 1]) pairs.push([Math.max(1, (k * m) / 50 + e), m].map(Math.round) as [number, number]);
    const r = await db.pool.query<{ b: number }>(
      `SELECT ${spreadBucketSql('p', 'm')} AS b FROM unnest($1::int[], $2::int[]) WITH ORDINALITY AS x(p, m, o) ORDER BY o`,
      [pairs.map((x) => x[0]), pairs.map((x) => x[1])],
    );
    const bad = pairs.filter(([p, m], i) => spreadBucket(p / m) !== r.rows[i].b);
    expect(bad).toEqual([]);
  });

  it('has no panel for an inactive store, and removes it when the store becomes inactive', async () => {
    await chainDay('woolworths', D(2));
    const s = await store('W1', 'woolworths', AKL, D(2));
    const l = await listing('A', 'woolworths');
    await nspan(l, D0, null, 100);
    await sspan(l, s, D0, null, 100);
    await build();
    expect(await panel(s)).toBeDefined();
    await db.pool.query('UPDATE store SET active = false WHERE id = $1', [s]);
    const r = await build();
    expect(r.panels.deleted).toBe(1);
    expect(r.listings.deleted).toBe(1);
    expect(await panel(s)).toBeUndefined();
    expect((await db.pool.query('SELECT count(*)::int AS n FROM area_level')).rows[0].n).toBe(0);
  });
});

describe('areas', () => {
  it('take the chain mix out: two chains 10 % apart, every store at its own chain’s median → every area 1.0 whatever the mix', async () => {
    await chainDay('woolworths', D(3));
    await chainDay('paknsave', D(3));
    const ww = await matchedListings('W', 20, 'woolworths', [200, 200]);
    const pk = await matchedListings('P', 20, 'paknsave', [180, 180]);
    // Auckland: two Woolworths, one PAK'nSAVE; Hamilton: one PAK'nSAVE; rural Waikato: one Woolworths.
    const stores = [
      [await store('W1', 'woolworths', AKL, D(3)), ww, 200],
      [await store('W2', 'woolworths', AKL, D(3)), ww, 200],
      [await store('W3', 'woolworths', RURAL, D(3)), ww, 200],
      [await store('P1', 'paknsave', AKL, D(3)), pk, 180],
      [await store('P2', 'paknsave', HAM, D(3)), pk, 180],
    ] as const;
    for (const [s, ls, price] of stores) for (const l of ls) await sspan(l.listing, s, D0, null, price);
    await build();
    const areas = (await db.pool.query('SELECT scope, key, label, ord, level, stores, chains, towns FROM area_level ORDER BY scope, ord')).rows;
    expect(areas.map((a) => `${a.scope}:${a.key}`)).toEqual([
      'region:auckland', 'region:waikato', 'town:auckland', 'town:hamilton', 'town:rural waikato', 'urban:major', 'urban:large', 'urban:rural',
    ]);
    for (const a of areas) expect(a.level).toBe(1);
    expect(areas[0]).toMatchObject({ label: 'Auckland', stores: 3, chains: ['paknsave', 'woolworths'], towns: ['Auckland'] });
    expect(areas[1]).toMatchObject({ label: 'Waikato', stores: 2, chains: ['paknsave', 'woolworths'], towns: ['Hamilton', 'Rural Waikato'] });
    expect(areas[5]).toMatchObject({ label: 'Metropolitan area', stores: 3 });
  });

  it('weight each store by its items, and count stores without a level', async () => {
    await chainDay('woolworths', D(1));
    const ls = await matchedListings('L', 22, 'woolworths', [200, 200]);
    const a = await store('W1', 'woolworths', HAM, D(1));
    const b = await store('W2', 'woolworths', HAM, D(1));
    const c = await store('W3', 'woolworths', HAM, D(1));
    await store('W4', 'woolworths', HAM, null); // never collected: counted, no level
    for (const [i, l] of ls.entries()) {
      await sspan(l.listing, a, D0, null, 210); // 22 items at 1.05
      if (i < 20) await sspan(l.listing, b, D0, null, 200); // 20 items at 1.0
      if (i < 5) await sspan(l.listing, c, D0, null, 300); // 5 items: no level
    }
    await build();
    const town = (await db.pool.query(`SELECT level, stores FROM area_level WHERE scope = 'town' AND key = 'hamilton'`)).rows[0];
    expect(town.stores).toBe(4);
    expect(town.level).toBeCloseTo(Math.exp((22 * Math.log(1.05)) / 42), 12);
  });
});

describe('incremental builds', () => {
  // Days across a month boundary (match changes are located to the month: module comment).
  const E0 = '2026-07-25';
  const E = (k: number) => addDays(E0, k);
  /**
   * A generated panel through the real ingest: two chains, five stores (one collected only from
   * day 3), 26 listings per chain matched to 22 items (four items with two listings), daily store
   * prices around the chain's level × a store factor with noise, some listings missing some days,
   * promotions now and then.
   */
  const STORES: [string, string][] = [['W1', 'woolworths'], ['W2', 'woolworths'], ['W3', 'woolworths'], ['P1', 'paknsave'], ['P2', 'paknsave']];
  async function setupPanel() {
    const places = [AKL, HAM, RURAL, AKL, HAM];
    for (const [i, [ext, slug]] of STORES.entries()) await store(ext, slug, places[i], null);
  }
  function dayObservations(k: number): ObservationInput[] {
    const rnd = prng(1000 + k);
    const out: ObservationInput[] = [];
    for (const [si, [ext, slug]] of STORES.entries()) {
      if (ext === 'W3' && k < 3) continue;
      const factor = [1, 1.06, 0.97, 1, 1.03][si];
      for (let j = 0; j < 26; j++) {
        if (rnd() < 0.08) continue;
        const base = (slug === 'paknsave' ? 180 : 200) + 15 * j + 5 * Math.floor((k + j) / 4);
        const price = Math.round(base * factor * (1 + 0.03 * (rnd() - 0.5)));
        const kind = rnd() < 0.1 ? 1 + Math.floor(rnd() * 3) : null;
        const promo = kind == null
          ? { promo_price: null, promo_kind: null }
          : kind === 3
            ? { promo_price: Math.round(price * 0.8), promo_kind: 3, multibuy_qty: 2, multibuy_price: Math.round(price * 1.6) }
            : { promo_price: Math.round(price * 0.8), promo_kind: kind };
        out.push({ day: E(k), retailer: slug, store: ext, external_id: `${slug}-${j}`, price, ...promo } as ObservationInput);
      }
    }
    return out;
  }
  async function ingestDays(from: number, to: number) {
    for (let k = from; k <= to; k++) {
      const obs = dayObservations(k);
      await ingest(db.pool, obs.map((record, i) => ({ line: i + 2, record })), { progress: false, today: '2026-12-31' });
    }
  }
  async function matchAll() {
    const pool = [...itemsOf.get('fruit_veg')!.slice(0, 11), ...itemsOf.get('meat_poultry_fish')!.slice(0, 11)];
    for (const slug of ['woolworths', 'paknsave']) {
      for (let j = 0; j < 26; j++) {
        const id = (await db.pool.query<{ id: number }>('SELECT id FROM listing WHERE external_id = $1', [`${slug}-${j}`])).rows[0].id;
        await match(pool[j % 22].id, id, E0);
      }
    }
  }

  /** Each stored store day against the one-day rule evaluated from the spans by a plain per-day query. */
  async function checkAgainstOneDayRule() {
    const rows = (await db.pool.query<{ store_id: number; day: string; level: number | null; n_items: number }>(
      'SELECT store_id, day::text, level, n_items FROM store_level_day ORDER BY 1, 2',
    )).rows;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const ls = (await db.pool.query<{ item: number; listing: number; ratio: number }>(
        `SELECT m.item_id AS item, sp.listing_id AS listing, sp.price::float8 / ns.price AS ratio
         FROM store_price_span sp JOIN store st ON st.id = sp.store_id
         JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id
         JOIN national_price_span ns ON ns.listing_id = sp.listing_id
         JOIN basket_match m ON m.listing_id = sp.listing_id
         WHERE sp.store_id = $1 AND sp.first_day <= $2::date AND coalesce(sp.last_day, st.last_day) >= $2::date
           AND ns.first_day <= $2::date AND coalesce(ns.last_day, r.last_national_day) >= $2::date
           AND m.valid_from <= $2::date AND (m.valid_to IS NULL OR m.valid_to > $2::date)`,
        [row.store_id, row.day],
      )).rows;
      const want = storeLevel(pricedItems(ls, basket));
      expect({ store: row.store_id, day: row.day, level: row.level, n: row.n_items }).toEqual({ store: row.store_id, day: row.day, level: want.level, n: want.nItems });
    }
  }

  it('builds only new days and changed matches, leaves exactly what a full build leaves, and writes nothing when nothing changed', async () => {
    await setupPanel();
    await ingestDays(0, 0);
    await matchAll();
    await ingestDays(1, 6);
    const first = await build();
    expect(first.mode).toBe('full');
    expect(first.reason).toBe('no stored state');
    expect(first.days.days).toBe(4 * 7 + 4);

    // Idempotent: nothing changed, nothing written.
    const before = await snapshot();
    const again = await build();
    expect(again.mode).toBe('unchanged');
    expect(writes(again)).toBe(0);
    expect(await snapshot()).toEqual(before);

    // New days: only they are computed.
    await ingestDays(7, 9);
    const inc = await build();
    expect(inc.mode).toBe('incremental');
    expect(inc.days).toMatchObject({ stores: 5, days: 15 });
    expect(inc.panels.stores).toBe(5);
    expect(inc.panels.levelsOnly).toBe(0);

    // A match ended on E5 (in July) and a new one from E8: every store's days from 1 July (all of them) are recomputed.
    const [a, b] = (await db.pool.query<{ id: number }>(`SELECT id FROM listing WHERE external_id IN ('woolworths-3', 'paknsave-4') ORDER BY id`)).rows;
    await db.pool.query('UPDATE basket_match SET valid_to = $2 WHERE listing_id = $1', [a.id, E(5)]);
    await match(itemsOf.get('grocery_food')![0].id, a.id, E(8));
    await db.pool.query('UPDATE basket_match SET valid_to = $2 WHERE listing_id = $1', [b.id, E(9)]);
    await ingestDays(10, 11);
    const changed = await build();
    expect(changed.mode).toBe('incremental');
    expect(changed.reason).toBe('basket matches changed in 2026-07');
    expect(changed.days).toMatchObject({ stores: 5, days: 4 * 12 + 9 });
    expect(changed.days.written).toBeGreaterThan(0);
    await checkAgainstOneDayRule();

    // A match change alone (no new day): every panel's level is recomputed, no listing rewritten.
    const c = (await db.pool.query<{ id: number }>(`SELECT id FROM listing WHERE external_id = 'woolworths-7'`)).rows[0];
    await db.pool.query('UPDATE basket_match SET valid_to = $2 WHERE listing_id = $1', [c.id, E(11)]);
    const levelsOnly = await build();
    expect(levelsOnly.mode).toBe('incremental');
    // E11 is in August: the days from 1 August (E7) are recomputed.
    expect(E(7)).toBe('2026-08-01');
    expect(levelsOnly.reason).toBe('basket matches changed in 2026-08');
    expect(levelsOnly.days).toMatchObject({ stores: 5, days: 5 * 5 });
    expect(levelsOnly.panels).toMatchObject({ stores: 0, levelsOnly: 5 });
    // Panels count the matches in force on the store's last day (D11): the Woolworths stores that
    // priced that listing this week change.
    const affected = (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM store_listing WHERE listing_id = $1`, [c.id])).rows[0].n;
    expect(affected).toBeGreaterThan(0);
    expect(levelsOnly.panels.written).toBe(affected);
    expect(levelsOnly.listings).toEqual({ written: 0, deleted: 0 });
    await checkAgainstOneDayRule();

    // A full build finds nothing to write; so does a build from scratch.
    const inc2 = await snapshot();
    const full = await build(true);
    expect(full.mode).toBe('full');
    expect(writes(full)).toBe(0);
    expect(await snapshot()).toEqual(inc2);
    await db.pool.query('TRUNCATE store_level_day, store_level, store_listing, area_level, view_run');
    const scratch = await build();
    expect(scratch.mode).toBe('full');
    expect(await snapshot()).toEqual(inc2);
    expect(writes(await build())).toBe(0);
  });

  it('continues the store listings day by day exactly as a full build computes them (stable prices, rare changes, gaps)', async () => {
    // Three Woolworths stores, 30 listings; each day a listing's price at a store changes with
    // probability 4 %, its promotion toggles with 4 %, it is missing with 5 % (and listing 0 is
    // missing at W2 for ten days: it leaves the window and comes back).
    for (const [ext, place] of [['W1', AKL], ['W2', HAM], ['W3', RURAL]] as const) await store(ext, 'woolworths', place, null);
    const rnd = prng(77);
    const state = new Map<string, { price: number; promo: number | null }>();
    const obsOf = (k: number): ObservationInput[] => {
      const out: ObservationInput[] = [];
      for (const st of ['W1', 'W2', 'W3']) {
        for (let j = 0; j < 30; j++) {
          const key = `${st}/${j}`;
          const cur = state.get(key) ?? { price: 300 + 10 * j, promo: null };
          if (rnd() < 0.04) cur.price = Math.round(cur.price * (0.95 + 0.1 * rnd()));
          if (rnd() < 0.04) cur.promo = cur.promo == null ? Math.round(cur.price * 0.8) : null;
          state.set(key, cur);
          if (rnd() < 0.05 || (st === 'W2' && j === 0 && k >= 6 && k < 16)) continue;
          out.push({ day: E(k), retailer: 'woolworths', store: st, external_id: `s-${j}`, price: cur.price,
            promo_price: cur.promo, promo_kind: cur.promo == null ? null : 1 } as ObservationInput);
        }
      }
      return out;
    };
    const ingestDay = (k: number) => ingest(db.pool, obsOf(k).map((record, i) => ({ line: i + 2, record })), { progress: false, today: '2026-12-31' });
    await ingestDay(0);
    const pool = [...itemsOf.get('fruit_veg')!, ...itemsOf.get('grocery_food')!];
    for (let j = 0; j < 30; j++) {
      const id = (await db.pool.query<{ id: number }>('SELECT id FROM listing WHERE external_id = $1', [`s-${j}`])).rows[0].id;
      await match(pool[j % 24].id, id, E0);
    }
    let continued = 0;
    // Builds after one day or after several (as when the ten-minute job runs after a few ingests).
    const buildAfter = new Set([1, 2, 3, 5, 8, 9, 12, 13, 17, 18, 21, 24]);
    for (let k = 1; k <= 24; k++) {
      await ingestDay(k);
      if (!buildAfter.has(k)) continue;
      const r = await build();
      expect(r.mode).toBe(k === 1 ? 'full' : 'incremental');
      continued += r.listings.written + r.listings.deleted;
      const full = await build(true);
      expect({ day: k, writes: writes(full) }).toEqual({ day: k, writes: 0 });
    }
    // The continued builds did write (prices changed, listings left and came back).
    expect(continued).toBeGreaterThan(30);
    await checkAgainstOneDayRule();
  });

  it('a store seen for the first time, a basket weight change and a last day moved back', async () => {
    await setupPanel();
    await ingestDays(0, 0);
    await matchAll();
    await ingestDays(1, 4);
    await build();
    // A store that appears later (first collected on D5) is computed from its first day.
    await store('W9', 'woolworths', HAM, null);
    const obs = dayObservations(5);
    obs.push(...obs.filter((o) => o.store === 'W1').map((o) => ({ ...o, store: 'W9', price: Number(o.price) + 10 })));
    await ingest(db.pool, obs.map((record, i) => ({ line: i + 2, record })), { progress: false, today: '2026-12-31' });
    const r = await build();
    expect(r.mode).toBe('incremental');
    const w9 = (await db.pool.query<{ id: number }>(`SELECT id FROM store WHERE external_id = 'W9'`)).rows[0].id;
    expect((await days(w9)).map((d) => d.day)).toEqual([E(5)]);

    // The basket changes (a weight): full build.
    const item = itemsOf.get('fruit_veg')![0].id;
    await db.pool.query('UPDATE basket_item SET weight = weight * 2 WHERE id = $1', [item]);
    basket.set(item, { ...basket.get(item)!, weight: basket.get(item)!.weight * 2 });
    try {
      const w = await build();
      expect(w.mode).toBe('full');
      expect(w.reason).toBe('the basket changed');
      await checkAgainstOneDayRule();
    } finally {
      await db.pool.query('UPDATE basket_item SET weight = weight / 2 WHERE id = $1', [item]);
      basket.set(item, { ...basket.get(item)!, weight: basket.get(item)!.weight / 2 });
    }

    // A store whose last day moved back (history rewritten): its later days go.
    await db.pool.query('UPDATE store SET last_day = $2, covered_day = $2 WHERE id = $1', [w9, E(4)]);
    await build();
    expect(await days(w9)).toEqual([]);
  });
});
