/**
 * Historical lows (issue 32 item 2, beyond the contract): get_listing_lows and get_product_lows on
 * the real data (test/helpers/prices.ts: the Woolworths national price log, one store-level day),
 * plus constructed listings for the outlier rule, the store count, the no-card price and a
 * product's ties. Every answer is checked against a reference written here, independently of the
 * SQL (src/services/lows.ts) and of src/domain/lows.ts: spans expanded day by day, runs of equal
 * no-card price over consecutive days, windows counted back from the last observed day. GraphQL
 * (Listing.lows, Product.lows) and MCP answer the REST body; check_special's lowest_price is the
 * same rule with min_days 1 over its window.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { inTransaction } from '../../src/db/transaction.js';
import { lowestNoCardPrice } from '../../src/domain/lows.js';
import type { Span } from '../../src/domain/spans.js';
import { loadEnv } from '../../src/env.js';
import { listingLows, productLows } from '../../src/services/lows.js';
import { buildDeals } from '../../workers/views/deals.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { mcpToolCall } from '../helpers/mcp-call.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { seedRealPrices, STORE_DAY, WOOLWORTHS_STORES, type Seeded } from '../helpers/prices.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The response cache off: the constructed listings are written by hand (no data version bump).
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' });
let db: TestDatabase;
let app: FastifyInstance;
let seed: Seeded;
let responses: ResponseValidator;
const { get, expect400 } = checkedRequests(() => app, () => responses);
const made = new Map<string, number>();

/** `day` moved by `n` calendar days. */
function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

// ---------------------------------------------------------------- the reference, day by day

/** A span as read raw, with its scope's covered day. */
interface RawSpan {
  listing_id: number;
  store_id?: number;
  first_day: string;
  last_day: string | null;
  seen_day: string | null;
  covered: string | null;
  price: number;
  promo_price: number | null;
  promo_kind: number | null;
  multibuy_qty: number | null;
  multibuy_price: number | null;
}

/** Last observed day of a span: last_day, or while open the latest of first_day, seen_day and the covered day. */
function refTo(s: RawSpan): string {
  if (s.last_day) return s.last_day;
  return [s.first_day, s.seen_day, s.covered].filter((d): d is string => d !== null).sort().at(-1)!;
}

/** What a shopper without a card pays: a special (kind 1) with a positive price under the shelf price, else the shelf price. */
function refPaid(s: RawSpan): number {
  return s.promo_kind === 1 && s.promo_price !== null && s.promo_price > 0 && s.promo_price < s.price ? s.promo_price : s.price;
}

/** Every observed day of a listing's spans → its no-card price, only days in runs of at least minDays consecutive days at one price. */
function keptDays(spans: RawSpan[], minDays: number): Map<string, number> {
  const daily = new Map<string, number>();
  for (const s of spans) for (let d = s.first_day, to = refTo(s); d <= to; d = addDays(d, 1)) daily.set(d, refPaid(s));
  const days = [...daily.keys()].sort();
  const kept = new Map<string, number>();
  for (let i = 0; i < days.length; ) {
    let j = i;
    while (j + 1 < days.length && days[j + 1] === addDays(days[j], 1) && daily.get(days[j + 1]) === daily.get(days[i])) j++;
    if (j - i + 1 >= minDays) for (let k = i; k <= j; k++) kept.set(days[k], daily.get(days[i])!);
    i = j + 1;
  }
  return kept;
}

/** Stores whose own no-card price on `day` was `price`; null when no store span covers the day. */
function refStores(storeSpans: RawSpan[], day: string, price: number): number | null {
  const covering = storeSpans.filter((s) => s.first_day <= day && refTo(s) >= day);
  return covering.length === 0 ? null : covering.filter((s) => refPaid(s) === price).length;
}

const WINDOWS = [['last_90_days', 90], ['last_365_days', 365], ['all_time', null]] as const;

/** The reference lows of a group of listings (one listing, or a product's): windows end at the group's last observed day. */
function refLows(
  listings: { id: number; retailer: string; spans: RawSpan[]; stores: RawSpan[] }[],
  minDays: number,
  withListing: boolean,
): Json {
  const ends = listings.flatMap((l) => l.spans.map(refTo)).sort();
  const asOf = ends.at(-1) ?? null;
  const out: Json = { as_of: asOf, min_days: minDays, last_90_days: null, last_365_days: null, all_time: null };
  if (asOf === null) return out;
  for (const [name, n] of WINDOWS) {
    const from = n === null ? '0000-01-01' : addDays(asOf, -(n - 1));
    let best: Json | null = null;
    for (const l of listings) {
      const inWindow = [...keptDays(l.spans, minDays)].filter(([d]) => d >= from && d <= asOf);
      if (inWindow.length === 0) continue;
      const price = Math.min(...inWindow.map(([, p]) => p));
      const paidDays = inWindow.filter(([, p]) => p === price).map(([d]) => d).sort();
      const day = paidDays.at(-1)!;
      const low: Json = { price, day, days: paidDays.length, stores: refStores(l.stores, day, price) };
      if (withListing) Object.assign(low, { listing_id: l.id, retailer: l.retailer });
      const better =
        best === null ||
        price < best.price ||
        (price === best.price &&
          (day > best.day || (day === best.day && ((low.stores ?? -1) > (best.stores ?? -1) || ((low.stores ?? -1) === (best.stores ?? -1) && l.id < best.id)))));
      if (better) best = { ...low, id: l.id };
    }
    if (best) {
      const { id: _id, ...low } = best;
      out[name] = low;
    }
  }
  return out;
}

/** Every listing's raw national and store spans, with its chain. */
async function readListings(): Promise<Map<number, { id: number; retailer: string; product_id: number | null; spans: RawSpan[]; stores: RawSpan[] }>> {
  const cols = `sp.first_day::text, sp.last_day::text, sp.seen_day::text, sp.price, sp.promo_price, sp.promo_kind, sp.multibuy_qty, sp.multibuy_price`;
  const { rows: listings } = await db.pool.query<{ id: number; retailer: string; product_id: number | null }>(
    `SELECT l.id, r.slug AS retailer, l.product_id FROM listing l JOIN retailer r ON r.id = l.retailer_id`,
  );
  const { rows: national } = await db.pool.query<RawSpan>(
    `SELECT sp.listing_id, ${cols}, r.covered_day::text AS covered FROM national_price_span sp
     JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id`,
  );
  const { rows: store } = await db.pool.query<RawSpan>(
    `SELECT sp.listing_id, sp.store_id, ${cols}, st.covered_day::text AS covered FROM store_price_span sp JOIN store st ON st.id = sp.store_id`,
  );
  const out = new Map(listings.map((l) => [l.id, { ...l, spans: [] as RawSpan[], stores: [] as RawSpan[] }]));
  for (const s of national) out.get(s.listing_id)!.spans.push(s);
  for (const s of store) out.get(s.listing_id)!.stores.push(s);
  for (const l of out.values()) l.spans.sort((a, b) => (a.first_day < b.first_day ? -1 : 1));
  return out;
}

// ---------------------------------------------------------------- constructed listings

async function newListing(key: string, retailer: string): Promise<number> {
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, brand, first_seen)
     SELECT id, $1, $2, 'Acme', '2026-01-01' FROM retailer WHERE slug = $3 RETURNING id`,
    [`lows-${key}`, `Lows ${key}`, retailer],
  );
  made.set(key, rows[0].id);
  return rows[0].id;
}

/** A closed national span; promo = [promo_price, promo_kind], multi = [qty, total]. */
async function national(listingId: number, from: string, to: string, price: number, promo?: [number, number], multi?: [number, number]) {
  await db.pool.query(
    `INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [listingId, from, to, price, promo?.[0] ?? null, promo?.[1] ?? null, multi?.[0] ?? null, multi?.[1] ?? null],
  );
}

async function atStore(listingId: number, storeId: number, from: string, to: string, price: number, promo?: [number, number]) {
  await db.pool.query(
    `INSERT INTO store_price_span (listing_id, store_id, first_day, last_day, price, promo_price, promo_kind) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [listingId, storeId, from, to, price, promo?.[0] ?? null, promo?.[1] ?? null],
  );
}

beforeAll(async () => {
  db = await createTestDatabase('lows');
  seed = await seedRealPrices(db.pool);
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());

  // A: 500 for months (a multibuy 2 for 600 in February does not count: the set must be taken), a
  // one-day special at 300 on 07-01, a five-day special at 450 (shelf 520), then 480 (a club
  // price at 400 from 08-01 does not count, and does not break the 480 run). Last day 08-03.
  const a = await newListing('a', 'woolworths');
  await national(a, '2026-01-01', '2026-01-31', 500);
  await national(a, '2026-02-01', '2026-02-10', 500, [300, 3], [2, 600]);
  await national(a, '2026-02-11', '2026-06-30', 500);
  await national(a, '2026-07-01', '2026-07-01', 500, [300, 1]);
  await national(a, '2026-07-02', '2026-07-20', 500);
  await national(a, '2026-07-21', '2026-07-25', 520, [450, 1]);
  await national(a, '2026-07-26', '2026-07-31', 480);
  await national(a, '2026-08-01', '2026-08-03', 480, [400, 2]);
  // On 07-25 two of three stores had the 450 special, the third its shelf price; the third was at 500 until 07-20.
  const [s1, s2, s3] = WOOLWORTHS_STORES.map((s) => seed.storeIds.get(s)!);
  await atStore(a, s1, '2026-07-21', '2026-07-25', 520, [450, 1]);
  await atStore(a, s2, '2026-07-24', '2026-07-27', 520, [450, 1]);
  await atStore(a, s3, '2026-07-01', '2026-07-20', 500);
  await atStore(a, s3, '2026-07-21', '2026-07-31', 520);
  // B (PAK'nSAVE): 450 from 07-10 to 07-30, no store prices; C: never priced.
  const b = await newListing('b', 'paknsave');
  await national(b, '2026-07-10', '2026-07-30', 450);
  await newListing('c', 'woolworths');
  const { rows } = await db.pool.query<{ id: number }>(`INSERT INTO product (name) VALUES ('Lows product') RETURNING id`);
  made.set('product', rows[0].id);
  await db.pool.query(`UPDATE listing SET product_id = $1, link_method = 'manual', link_confidence = 1, linked_at = now() WHERE id = ANY($2::int[])`, [
    rows[0].id,
    [a, b],
  ]);
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const lowsUrl = (kind: 'listings' | 'products', id: number, minDays?: number) =>
  `/api/v1/${kind}/${id}/lows${minDays === undefined ? '' : `?min_days=${minDays}`}`;

describe('get_listing_lows', () => {
  it('answers the day-by-day reference for every listing of the real data, at min_days 1, 2 (default) and 7', async () => {
    const all = await readListings();
    const ids = [...all.keys()];
    let priced = 0;
    let storeCounted = 0;
    for (const minDays of [1, 2, 7]) {
      const got = await listingLows(db.pool, ids, minDays);
      for (const l of all.values()) {
        const { id: _id, ...body } = got.get(l.id)!;
        const strip = (w: Json | null) => (w === null ? null : { price: w.price, day: w.day, days: w.days, stores: w.stores });
        const answer = { ...body, last_90_days: strip(body.last_90_days), last_365_days: strip(body.last_365_days), all_time: strip(body.all_time) };
        expect(answer, `listing ${l.id} min_days ${minDays}`).toEqual(refLows([l], minDays, false));
        if (answer.all_time) priced++;
        if (answer.all_time?.stores != null) storeCounted++;
      }
    }
    // The real data reaches every branch: priced listings, and lows counted at stores.
    expect(priced).toBeGreaterThan(50);
    expect(storeCounted).toBeGreaterThan(0);
  });

  it('REST: a real listing with a national price log, the windows counted back from its last observed day', async () => {
    // price_history.csv, SKU 42246: 13.50 from 2024-10-14, 13.70, 13.90, then 16.99 in stores on the store day (one day).
    const id = seed.listingIds.get('woolworths:42246')!;
    const r = await get(lowsUrl('listings', id), 'get_listing_lows');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ listing_id: id, as_of: STORE_DAY, min_days: 2 });
    // The store day's price held one observed day: an outlier at the default, so nothing in the last 90 or 365 days.
    expect(r.body.last_90_days).toBeNull();
    expect(r.body.all_time).toMatchObject({ price: 1350, day: '2025-02-24', stores: null }); // its span's last observed day
    const one = await get(lowsUrl('listings', id, 1), 'get_listing_lows');
    expect(one.body.last_90_days).toMatchObject({ price: 1699, day: STORE_DAY, days: 1 });
    expect(one.body.last_90_days.stores).toBeGreaterThan(0);
    const all = await readListings();
    expect(r.body).toEqual({ listing_id: id, ...refLows([all.get(id)!], 2, false) });
    expect(one.body).toEqual({ listing_id: id, ...refLows([all.get(id)!], 1, false) });
  });

  it('ignores one-day outliers by default, club and multibuy prices always; counts the stores paying the low', async () => {
    const a = made.get('a')!;
    const byDefault = (await get(lowsUrl('listings', a), 'get_listing_lows')).body;
    expect(byDefault).toEqual({
      listing_id: a,
      as_of: '2026-08-03',
      min_days: 2,
      last_90_days: { price: 450, day: '2026-07-25', days: 5, stores: 2 },
      last_365_days: { price: 450, day: '2026-07-25', days: 5, stores: 2 },
      all_time: { price: 450, day: '2026-07-25', days: 5, stores: 2 },
    });
    // min_days 1: the one-day special at 300 is the low (on 07-01 only store 3 was observed, at 500: 0 stores).
    expect((await get(lowsUrl('listings', a, 1))).body.last_90_days).toEqual({ price: 300, day: '2026-07-01', days: 1, stores: 0 });
    // min_days 10: the 450 special (5 days) and the 480 run (07-26 … 08-03, 9 days, the club price not breaking it) are ignored.
    expect((await get(lowsUrl('listings', a, 10))).body.last_90_days).toEqual({ price: 500, day: '2026-07-20', days: 56 + 19, stores: 1 });
    const all = await readListings();
    for (const m of [1, 2, 10, 30]) expect((await get(lowsUrl('listings', a, m))).body).toEqual({ listing_id: a, ...refLows([all.get(a)!], m, false) });
  });

  it('a listing never priced has as_of null and null windows; 404 for an unknown listing; 400 for a bad min_days', async () => {
    const c = made.get('c')!;
    expect((await get(lowsUrl('listings', c), 'get_listing_lows')).body).toEqual({
      listing_id: c, as_of: null, min_days: 2, last_90_days: null, last_365_days: null, all_time: null,
    });
    const missing = await get(lowsUrl('listings', 99_999_999));
    expect(missing.status).toBe(404);
    expect(missing.body.error.status).toBe(404);
    for (const bad of ['0', '31', 'x', '2.5', '-1']) await expect400(`/api/v1/listings/${c}/lows?min_days=${bad}`, /min_days/);
    await expect400('/api/v1/listings/x/lows', /id/);
  });
});

describe('get_product_lows', () => {
  it("takes each window's lowest across the product's listings, ties to the most recent day, with the listing and chain", async () => {
    const p = made.get('product')!;
    const [a, b] = [made.get('a')!, made.get('b')!];
    const r = await get(lowsUrl('products', p), 'get_product_lows');
    // 450 at both chains; PAK'nSAVE paid it last on 07-30 (no store prices: stores null).
    expect(r.body).toEqual({
      product_id: p,
      as_of: '2026-08-03',
      min_days: 2,
      last_90_days: { price: 450, day: '2026-07-30', days: 21, stores: null, listing_id: b, retailer: 'paknsave' },
      last_365_days: { price: 450, day: '2026-07-30', days: 21, stores: null, listing_id: b, retailer: 'paknsave' },
      all_time: { price: 450, day: '2026-07-30', days: 21, stores: null, listing_id: b, retailer: 'paknsave' },
    });
    expect((await get(lowsUrl('products', p, 1))).body.last_90_days).toMatchObject({ price: 300, listing_id: a, retailer: 'woolworths' });
  });

  it('answers the reference for the real linked product and the constructed one', async () => {
    const all = await readListings();
    for (const p of [seed.productId, made.get('product')!]) {
      const listings = [...all.values()].filter((l) => l.product_id === p);
      expect(listings.length).toBeGreaterThan(1);
      for (const m of [1, 2, 7]) {
        expect((await get(lowsUrl('products', p, m), 'get_product_lows')).body).toEqual({ product_id: p, ...refLows(listings, m, true) });
        const { id: _id, ...service } = (await productLows(db.pool, [p], m)).get(p)!;
        expect(service).toEqual(refLows(listings, m, true));
      }
    }
  });

  it('404 for an unknown product; an empty product has null windows; 400 for a bad min_days', async () => {
    expect((await get(lowsUrl('products', 99_999_999))).status).toBe(404);
    const { rows } = await db.pool.query<{ id: number }>(`INSERT INTO product (name) VALUES ('Nothing linked') RETURNING id`);
    expect((await get(lowsUrl('products', rows[0].id), 'get_product_lows')).body).toEqual({
      product_id: rows[0].id, as_of: null, min_days: 2, last_90_days: null, last_365_days: null, all_time: null,
    });
    await expect400(`/api/v1/products/${rows[0].id}/lows?min_days=31`, /min_days/);
  });
});

describe('GraphQL and MCP', () => {
  const windowFields = (extra: string) => `{ price day days stores ${extra} }`;
  const lowsSelection = (args: string, extra: string) =>
    `lows${args} { as_of: asOf min_days: minDays last_90_days: last90Days ${windowFields(extra)} last_365_days: last365Days ${windowFields(extra)} all_time: allTime ${windowFields(extra)} }`;

  async function gql(query: string): Promise<{ data?: Json; errors?: Json[] }> {
    return (await app.inject({ method: 'POST', url: '/graphql', payload: { query } })).json();
  }

  it('Listing.lows and Product.lows answer the REST bodies, for several listings in one document', async () => {
    const ids = [made.get('a')!, seed.listingIds.get('woolworths:42246')!, made.get('c')!];
    for (const m of [1, 2]) {
      const doc = `{ ${ids.map((id, i) => `l${i}: listing(id: ${id}) { listing_id: id ${lowsSelection(`(minDays: ${m})`, '')} }`).join(' ')} }`;
      const r = await gql(doc);
      expect(r.errors).toBeUndefined();
      for (const [i, id] of ids.entries()) {
        const { lows, ...rest } = r.data![`l${i}`];
        expect({ ...rest, ...lows }).toEqual((await get(lowsUrl('listings', id, m))).body);
      }
    }
    const p = made.get('product')!;
    const r = await gql(`{ product(id: ${p}) { product_id: id ${lowsSelection('', 'listing_id: listingId retailer')} } }`);
    const { lows, ...rest } = r.data!.product;
    expect({ ...rest, ...lows }).toEqual((await get(lowsUrl('products', p))).body);
  });

  it('GraphQL refuses minDays out of range with BAD_REQUEST', async () => {
    const r = await gql(`{ listing(id: ${made.get('a')}) { lows(minDays: 0) { asOf } } }`);
    expect(r.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  it('MCP: get_listing_lows and get_product_lows return the REST bodies; errors are tool errors', async () => {
    const a = made.get('a')!;
    const r = await mcpToolCall(app, 'get_listing_lows', { id: a, min_days: 1 });
    expect(r.isError ?? false).toBe(false);
    expect(r.structuredContent).toEqual((await get(lowsUrl('listings', a, 1))).body);
    const p = await mcpToolCall(app, 'get_product_lows', { id: made.get('product')! });
    expect(p.structuredContent).toEqual((await get(lowsUrl('products', made.get('product')!))).body);
    expect((await mcpToolCall(app, 'get_listing_lows', { id: 99_999_999 })).isError).toBe(true);
    expect((await mcpToolCall(app, 'get_listing_lows', { id: a, min_days: 0 })).isError).toBe(true);
  });
});

describe('check_special reuses the lows rule', () => {
  it("its lowest_price is the lowest no-card price over its window with min_days 1 (the reference and src/domain/lows.ts)", async () => {
    // D: on a special at 400 from 2026-07-01; in the 90 days before, a one-day special at 300
    // (counted: check_special keeps every price paid), a club price at 250 and a multibuy (neither counts).
    const d = await newListing('d', 'woolworths');
    await national(d, '2026-03-01', '2026-04-30', 500);
    await national(d, '2026-05-01', '2026-05-01', 500, [300, 1]);
    await national(d, '2026-05-02', '2026-05-20', 500, [250, 2]);
    await national(d, '2026-05-21', '2026-06-10', 500, [200, 3], [3, 600]);
    await national(d, '2026-06-11', '2026-06-30', 500);
    await db.pool.query(
      `INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind) VALUES ($1, '2026-07-01', NULL, 500, 400, 1)`,
      [d],
    );
    await inTransaction(db.pool, (c) => buildDeals(c));
    const { rows } = await db.pool.query<{ listing_id: number; lowest_price: number | null; window_from: string; window_to: string }>(
      `SELECT listing_id, lowest_price, window_from::text, window_to::text FROM special_check`,
    );
    expect(rows.find((r) => r.listing_id === d)).toMatchObject({ lowest_price: 300 });
    const all = await readListings();
    for (const check of rows) {
      const l = all.get(check.listing_id)!;
      const kept = [...keptDays(l.spans, 1)].filter(([day]) => day >= check.window_from && day <= check.window_to).map(([, p]) => p);
      expect(check.lowest_price, `listing ${check.listing_id}`).toBe(kept.length ? Math.min(...kept) : null);
      const spans: Span[] = l.spans.map((s) => ({ ...s, promo_kind: s.promo_kind as Span['promo_kind'] }));
      const rule = lowestNoCardPrice(spans, l.spans[0]?.covered ?? null, { from: check.window_from, to: check.window_to, minDays: 1 });
      expect(check.lowest_price).toBe(rule?.price ?? null);
    }
    // And the lows operation, at min_days 1, finds the same one-day 300 as its all-time low.
    expect((await get(lowsUrl('listings', d, 1))).body.all_time).toMatchObject({ price: 300, day: '2026-05-01', days: 1 });
  });
});
