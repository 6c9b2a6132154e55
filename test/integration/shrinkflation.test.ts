/**
 * Shrinkflation (issue 32 item 4, beyond the contract) on a SYNTHETIC history: generated store
 * observations (not real prices) of SYNTHETIC listings whose printed size changes, written day by
 * day through the real ingest (workers/ingest/ingest.ts) and the catalogue attribute writer
 * (workers/ingest/listings.ts). Checks the size history the listing triggers keep
 * (listing_size_span: spans, closing days, an idempotent re-run of a day, the writer without a
 * day), list_shrinkflation's answer against the domain rule applied to the raw tables (so the SQL
 * that picks sizes and prices is held equal to src/domain/shrinkflation.ts), its filters, 400 and
 * 404, REST = GraphQL = MCP, and the shrinkflation feed read back by feed parsers. On the real data (imported from DATA_DIR) the answer is empty,
 * and the test says why: the sources hold one size per item (the Woolworths catalogue is one row per
 * SKU, its price log has no sizes, the store samples are one day), and where the samples print a
 * catalogue item's size another way the pack is the same (or sold by weight).
 */
import { parseFeed as readerParse } from '@rowanmanning/feed-parser';
import type { FastifyInstance } from 'fastify';
import { parseAtomFeed, parseJsonFeed } from 'feedsmith';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { addDays } from '../../src/domain/days.js';
import { SHELVES, kindsUnder } from '../../src/domain/shelves.js';
import { shrinkEvents, type ShelfPriceSpan, type SizeSpan } from '../../src/domain/shrinkflation.js';
import { loadEnv } from '../../src/env.js';
import { ingest } from '../../workers/ingest/ingest.js';
import type { ObservationInput } from '../../workers/ingest/format.js';
import { updateListingAttributes } from '../../workers/ingest/listings.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createRealDataDatabase } from '../helpers/real-data.js';
import { shrinkflationEvents, sizeChanges } from '../../src/services/shrinkflation.js';
import { parseSize, totalQty } from '../../src/domain/sizes.js';
import { mcpToolCall, mcpToolRequest } from '../helpers/mcp-call.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' });
let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
const { get, expect400 } = checkedRequests(() => app, () => responses);

const START = '2026-05-01';
const DAYS = 10;
const LAST = addDays(START, DAYS - 1); // 2026-05-10
const STORES = ['SYN-S1', 'SYN-S2'];

/**
 * The SYNTHETIC listings: from day index `at` on, `after` replaces `before` (size, shelf price in
 * cents). The second store prices each 20 cents higher, so the national median is the mean of both.
 */
const PLAN: { id: string; at: number | null; before: [string, number]; after: [string, number] }[] = [
  { id: 'SYN-A', at: 4, before: ['150g', 399], after: ['140g', 399] }, // flat price: event (05-05)
  { id: 'SYN-B', at: 5, before: ['1L', 300], after: ['900ml', 320] }, // rising price: event (05-06)
  { id: 'SYN-C', at: 4, before: ['500g', 500], after: ['450g', 450] }, // price fell: none
  { id: 'SYN-D', at: 4, before: ['500g', 500], after: ['6pk', 500] }, // unit family changed: none
  { id: 'SYN-E', at: 8, before: ['6 x 330ml', 1200], after: ['6 x 300ml', 1250] }, // pack size: event (05-09)
  { id: 'SYN-F', at: 4, before: ['1L', 300], after: ['1000ml', 300] }, // equal size: none
  { id: 'SYN-G', at: null, before: ['250g', 450], after: ['250g', 450] }, // unchanged
];

/** Day `i`'s observations at both stores. */
function dayRows(i: number): ObservationInput[] {
  const day = addDays(START, i);
  return PLAN.flatMap((p) => {
    const [size, price] = p.at !== null && i >= p.at ? p.after : p.before;
    return STORES.map((store, s) => ({
      day, retailer: 'newworld', store, external_id: p.id, price: price + 20 * s,
      name: `SYNTHETIC ${p.id}`, brand: 'Synthetic', size_text: size,
    }));
  });
}

const records = (rows: ObservationInput[]) => rows.map((record, i) => ({ line: i + 2, record }));
const ingestDay = (i: number) => ingest(db.pool, records(dayRows(i)), { source: 'SYNTHETIC shrinkflation test', today: '2026-12-31' });

async function sizeSpans(): Promise<Json[]> {
  return (await db.pool.query(
    `SELECT l.external_id, s.size_text, s.first_day::text, s.last_day::text FROM listing_size_span s
     JOIN listing l ON l.id = s.listing_id ORDER BY l.external_id, s.first_day`,
  )).rows;
}

/** The reference: the domain rule over every listing's raw size and national price spans. */
async function reference(from: string, to: string): Promise<Json[]> {
  const { rows: listings } = await db.pool.query<{ id: number; retailer: string; name: string; brand: string | null; weighable: boolean }>(
    'SELECT l.id, r.slug AS retailer, l.name, l.brand, l.weighable FROM listing l JOIN retailer r ON r.id = l.retailer_id',
  );
  const sizes = (await db.pool.query<SizeSpan & { listing_id: number }>('SELECT listing_id, size_text, first_day::text, last_day::text FROM listing_size_span')).rows;
  const prices = (await db.pool.query<ShelfPriceSpan & { listing_id: number }>('SELECT listing_id, first_day::text, price FROM national_price_span')).rows;
  return listings.flatMap((l) =>
    shrinkEvents(sizes.filter((s) => s.listing_id === l.id), prices.filter((p) => p.listing_id === l.id), l.weighable, from, to)
      .map((e) => ({ listing_id: l.id, retailer: l.retailer, name: l.name, brand: l.brand, ...e })),
  ).sort((a, b) => (a.day !== b.day ? (a.day < b.day ? 1 : -1) : b.unit_price_change - a.unit_price_change || a.listing_id - b.listing_id));
}

beforeAll(async () => {
  db = await createTestDatabase('shrinkflation');
  for (const s of STORES) {
    await db.pool.query(
      `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area)
       SELECT id, $1, 'SYNTHETIC store ' || $1, -41.3, 174.8, 'Wellington', 'Wellington' FROM retailer WHERE slug = 'newworld'`,
      [s],
    );
  }
  for (let i = 0; i < DAYS; i++) await ingestDay(i);
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('size history (listing_size_span)', () => {
  it('the ingest opens a span on the day a size is first observed and closes the old one the day before', async () => {
    expect(await sizeSpans()).toEqual([
      { external_id: 'SYN-A', size_text: '150g', first_day: START, last_day: '2026-05-04' },
      { external_id: 'SYN-A', size_text: '140g', first_day: '2026-05-05', last_day: null },
      { external_id: 'SYN-B', size_text: '1L', first_day: START, last_day: '2026-05-05' },
      { external_id: 'SYN-B', size_text: '900ml', first_day: '2026-05-06', last_day: null },
      { external_id: 'SYN-C', size_text: '500g', first_day: START, last_day: '2026-05-04' },
      { external_id: 'SYN-C', size_text: '450g', first_day: '2026-05-05', last_day: null },
      { external_id: 'SYN-D', size_text: '500g', first_day: START, last_day: '2026-05-04' },
      { external_id: 'SYN-D', size_text: '6pk', first_day: '2026-05-05', last_day: null },
      { external_id: 'SYN-E', size_text: '6 x 330ml', first_day: START, last_day: '2026-05-08' },
      { external_id: 'SYN-E', size_text: '6 x 300ml', first_day: '2026-05-09', last_day: null },
      { external_id: 'SYN-F', size_text: '1L', first_day: START, last_day: '2026-05-04' },
      { external_id: 'SYN-F', size_text: '1000ml', first_day: '2026-05-05', last_day: null },
      { external_id: 'SYN-G', size_text: '250g', first_day: START, last_day: null },
    ]);
    // Each span remembers the size it follows (what list_shrinkflation reads through its partial
    // index): the previous span's text, NULL for a listing's first span.
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE prev_size_text IS NOT DISTINCT FROM prev)::int AS same, count(prev_size_text)::int AS changes
       FROM (SELECT prev_size_text, lag(size_text) OVER (PARTITION BY listing_id ORDER BY first_day, id) AS prev FROM listing_size_span) x`,
    );
    expect(rows[0].same).toBe(rows[0].n);
    expect(rows[0].changes).toBeGreaterThanOrEqual(6);
  });

  it('a re-run of days already ingested changes nothing', async () => {
    const before = await sizeSpans();
    expect(await ingestDay(4)).toMatchObject({ merged: [], skipped: 1 });
    expect(await ingestDay(DAYS - 1)).toMatchObject({ merged: [], skipped: 1 });
    expect(await sizeSpans()).toEqual(before);
  });

  it('the catalogue writer (no day of its own) records a change on the chain\'s last collection day, once', async () => {
    const id = (await db.pool.query(`SELECT id FROM listing WHERE external_id = 'SYN-G'`)).rows[0].id as number;
    const write = () => updateListingAttributes(db.pool, [{ retailer: 'newworld', external_id: 'SYN-G', size_text: '225g' }]);
    expect(await write()).toMatchObject({ updated: 1 });
    expect(await write()).toMatchObject({ updated: 0, unchanged: 1 });
    const spans = (await db.pool.query(`SELECT size_text, first_day::text, last_day::text FROM listing_size_span WHERE listing_id = $1 ORDER BY first_day`, [id])).rows;
    expect(spans).toEqual([
      { size_text: '250g', first_day: START, last_day: addDays(LAST, -1) },
      { size_text: '225g', first_day: LAST, last_day: null },
    ]);
    // Back to the old size, so the answers below keep to the ingested history.
    await db.pool.query(`DELETE FROM listing_size_span WHERE listing_id = $1 AND size_text = '225g'`, [id]);
    await db.pool.query(`UPDATE listing_size_span SET last_day = NULL WHERE listing_id = $1`, [id]);
    await db.pool.query(`ALTER TABLE listing DISABLE TRIGGER listing_size_span_update`);
    await db.pool.query(`UPDATE listing SET size_text = '250g' WHERE id = $1`, [id]);
    await db.pool.query(`ALTER TABLE listing ENABLE ALWAYS TRIGGER listing_size_span_update`);
  });

  it('an insert with a size opens a span on first_seen; delete and truncate of listing take the spans with them', async () => {
    const t = await db.pool.connect();
    try {
      await t.query('BEGIN');
      const { rows } = await t.query(
        `INSERT INTO listing (retailer_id, external_id, name, size_text, first_seen)
         SELECT id, 'SYN-X', 'SYNTHETIC X', '2L', '2026-04-01' FROM retailer WHERE slug = 'newworld' RETURNING id`,
      );
      expect((await t.query('SELECT size_text, first_day::text, last_day FROM listing_size_span WHERE listing_id = $1', [rows[0].id])).rows)
        .toEqual([{ size_text: '2L', first_day: '2026-04-01', last_day: null }]);
      await t.query('DELETE FROM listing WHERE id = $1', [rows[0].id]);
      expect((await t.query('SELECT count(*)::int AS n FROM listing_size_span WHERE listing_id = $1', [rows[0].id])).rows[0].n).toBe(0);
      await t.query('TRUNCATE listing, national_price_span, store_price_span, listing_day_stats CASCADE');
      expect((await t.query('SELECT count(*)::int AS n FROM listing_size_span')).rows[0].n).toBe(0);
    } finally {
      await t.query('ROLLBACK');
      t.release();
    }
    expect((await db.pool.query('SELECT count(*)::int AS n FROM listing_size_span')).rows[0].n).toBe(13);
  });
});

describe('list_shrinkflation', () => {
  it('finds the flat-price, rising-price and pack-size shrinks, and nothing else, equal to the rule over the raw tables', async () => {
    const r = await get('/api/v1/shrinkflation', 'list_shrinkflation');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ as_of: LAST, from: addDays(LAST, -364), days: 365, total: 3 });
    expect(r.body.events.map((e: Json) => [e.name, e.day])).toEqual([
      ['SYNTHETIC SYN-E', '2026-05-09'],
      ['SYNTHETIC SYN-B', '2026-05-06'],
      ['SYNTHETIC SYN-A', '2026-05-05'],
    ]);
    // National price: the median (mean) of the two stores, 399 and 419.
    expect(r.body.events[2]).toMatchObject({
      retailer: 'newworld', brand: 'Synthetic', old_size: '150g', new_size: '140g', old_qty: 150, new_qty: 140, unit: 'g',
      old_price: 409, new_price: 409, compare_unit: 'kg', old_unit_price: 2726.67, new_unit_price: 2921.43, unit_price_change: 7.1,
    });
    expect(r.body.events[1]).toMatchObject({ old_size: '1L', new_size: '900ml', old_price: 310, new_price: 330, compare_unit: 'l', unit: 'ml' });
    expect(r.body.events[0]).toMatchObject({ old_qty: 1980, new_qty: 1800, old_price: 1210, new_price: 1260 });
    expect(r.body.events).toEqual(await reference(r.body.from, r.body.as_of));
  });

  it('filters by window, chain, shelf and listing, and bounds limit', async () => {
    const short = await get('/api/v1/shrinkflation?days=2', 'list_shrinkflation');
    expect(short.body).toMatchObject({ from: '2026-05-09', total: 1 });
    expect(short.body.events.map((e: Json) => e.name)).toEqual(['SYNTHETIC SYN-E']);
    const limited = await get('/api/v1/shrinkflation?limit=1', 'list_shrinkflation');
    expect(limited.body).toMatchObject({ total: 3 });
    expect(limited.body.events).toHaveLength(1);
    expect((await get('/api/v1/shrinkflation?retailer=newworld', 'list_shrinkflation')).body.total).toBe(3);
    // A chain with no collection: no as_of, nothing to find.
    expect((await get('/api/v1/shrinkflation?retailer=paknsave', 'list_shrinkflation')).body).toEqual({ as_of: null, from: null, days: 365, total: 0, events: [] });

    const a = (await db.pool.query(`SELECT id FROM listing WHERE external_id = 'SYN-A'`)).rows[0].id as number;
    const one = await get(`/api/v1/shrinkflation?listing=${a}`, 'list_shrinkflation');
    expect(one.body.events.map((e: Json) => e.listing_id)).toEqual([a]);
    const c = (await db.pool.query(`SELECT id FROM listing WHERE external_id = 'SYN-C'`)).rows[0].id as number;
    expect((await get(`/api/v1/shrinkflation?listing=${c}`, 'list_shrinkflation')).body.total).toBe(0);

    // A shelf: SYN-A given a generic of a kind on it; the shelf's parent set holds it too.
    const shelf = SHELVES.find((s) => kindsUnder(s.slug).length > 0 && s.parent !== null)!;
    const kind = kindsUnder(shelf.slug)[0];
    const k = await db.pool.query(`INSERT INTO kind (slug, label, compare_unit, shelf_slug) VALUES ($1, 'SYNTHETIC kind', 'kg', $2) RETURNING id`, [kind, shelf.slug]);
    const g = await db.pool.query(`INSERT INTO generic (kind_id, key, label) VALUES ($1, 'syn-shrink', 'SYNTHETIC generic') RETURNING id`, [k.rows[0].id]);
    await db.pool.query('UPDATE listing SET generic_id = $1 WHERE id = $2', [g.rows[0].id, a]);
    for (const slug of [shelf.slug, shelf.parent!]) {
      const onShelf = await get(`/api/v1/shrinkflation?shelf=${encodeURIComponent(slug)}`, 'list_shrinkflation');
      expect(onShelf.body.events.map((e: Json) => e.listing_id), slug).toEqual([a]);
    }
    const other = SHELVES.find((s) => s.parent === null && !kindsUnder(s.slug).includes(kind))!;
    expect((await get(`/api/v1/shrinkflation?shelf=${encodeURIComponent(other.slug)}`, 'list_shrinkflation')).body.total).toBe(0);
  });

  it('400 for bad parameters and unknown slugs, 404 for an unknown listing', async () => {
    await expect400('/api/v1/shrinkflation?days=0', /days/);
    await expect400('/api/v1/shrinkflation?days=731', /days/);
    await expect400('/api/v1/shrinkflation?days=1.5', /days/);
    await expect400('/api/v1/shrinkflation?limit=201', /limit/);
    await expect400('/api/v1/shrinkflation?retailer=nope', /retailer/);
    await expect400('/api/v1/shrinkflation?shelf=nope', /shelf/);
    await expect400('/api/v1/shrinkflation?listing=abc', /listing/);
    await expect400('/api/v1/shrinkflation?listing=0', /listing/);
    const missing = await get('/api/v1/shrinkflation?listing=999999');
    expect(missing.status).toBe(404);
    expect(missing.body.error.status).toBe(404);
  });

  it('GraphQL and MCP answer the REST body', async () => {
    const rest = (await get('/api/v1/shrinkflation?days=30&limit=5', 'list_shrinkflation')).body;
    const query = `{ shrinkflation(days: 30, limit: 5) { as_of: asOf from days total events {
      listing_id: listingId retailer name brand day old_size: oldSize new_size: newSize old_qty: oldQty new_qty: newQty unit
      old_price: oldPrice new_price: newPrice compare_unit: compareUnit old_unit_price: oldUnitPrice new_unit_price: newUnitPrice
      unit_price_change: unitPriceChange } } }`;
    const gql = (await app.inject({ method: 'POST', url: '/graphql', payload: { query } })).json();
    expect(gql.errors).toBeUndefined();
    expect(gql.data.shrinkflation).toEqual(rest);
    const bad = (await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ shrinkflation(days: 0) { total } }' } })).json();
    expect(bad.errors[0].extensions.code).toBe('BAD_REQUEST');
    const mcp = await mcpToolCall(app, 'list_shrinkflation', { days: 30, limit: 5 });
    expect(mcp.structuredContent).toEqual(rest);
    const unknown = (await mcpToolRequest(app, 'list_shrinkflation', { listing: 999999 })).json();
    expect(unknown.result.isError).toBe(true);
  });
});

describe('the shrinkflation feed (/feeds/shrinkflation)', () => {
  it('Atom and JSON Feed 1.1 parse (an independent reader\'s parser and feedsmith) and carry the REST events: stable unique ids, both sizes and prices, the day', async () => {
    const rest = (await get('/api/v1/shrinkflation?retailer=newworld&days=30', 'list_shrinkflation')).body;
    expect(rest.total).toBe(3);
    const atom = await app.inject({ method: 'GET', url: '/feeds/shrinkflation.atom?retailer=newworld&days=30' });
    expect(atom.statusCode).toBe(200);
    expect(atom.headers['content-type']).toMatch(/^application\/atom\+xml/);
    const reader = readerParse(atom.body);
    const smith = parseAtomFeed(atom.body) as Json;
    expect(reader.items).toHaveLength(rest.events.length);
    expect(smith.entries).toHaveLength(rest.events.length);
    expect(new Date(smith.updated).toISOString().slice(0, 10)).toBe(rest.as_of);
    for (const [i, e] of rest.events.entries()) {
      const title = String(reader.items[i].title);
      expect(title).toContain(e.name);
      expect(title).toContain(`${e.old_size} → ${e.new_size}`);
      expect(reader.items[i].published?.toISOString().slice(0, 10)).toBe(e.day);
    }
    const ids = smith.entries.map((x: Json) => x.id);
    expect(new Set(ids).size).toBe(ids.length);

    const json = await app.inject({ method: 'GET', url: '/feeds/shrinkflation.json?retailer=newworld&days=30' });
    expect(json.headers['content-type']).toMatch(/^application\/feed\+json/);
    const feed = parseJsonFeed(json.body) as Json;
    expect(JSON.parse(json.body).version).toBe('https://jsonfeed.org/version/1.1');
    expect(feed.items.map((x: Json) => x.id)).toEqual(
      rest.events.map((e: Json) => `shrinkflation:${e.listing_id}:${e.day}:${e.old_qty}${e.unit}-${e.new_qty}${e.unit}:${e.old_price}-${e.new_price}`),
    );
    // Stable: the same ids on a second request; the body's ETag answers 304.
    const again = await app.inject({ method: 'GET', url: '/feeds/shrinkflation.json?retailer=newworld&days=30' });
    expect((parseJsonFeed(again.body) as Json).items.map((x: Json) => x.id)).toEqual(feed.items.map((x: Json) => x.id));
    const etag = json.headers.etag as string;
    expect(etag).toBeTruthy();
    const notModified = await app.inject({ method: 'GET', url: '/feeds/shrinkflation.json?retailer=newworld&days=30', headers: { 'if-none-match': etag } });
    expect(notModified.statusCode).toBe(304);
    // Bounded: limit passes through; bad parameters are the operation's 400, an unknown listing 404.
    expect((parseJsonFeed((await app.inject({ method: 'GET', url: '/feeds/shrinkflation.json?limit=1' })).body) as Json).items).toHaveLength(1);
    const bad = await app.inject({ method: 'GET', url: '/feeds/shrinkflation.atom?days=0' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.status).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/feeds/shrinkflation.json?listing=999999' })).statusCode).toBe(404);
  });
});

describe('on the real data', () => {
  let real: TestDatabase;
  beforeAll(async () => {
    real = await createRealDataDatabase('shrinkflation_real');
  }, 600_000);
  afterAll(async () => real?.drop());

  it('is empty: the sources hold one size per item, and their few disagreements are the same pack or a loose product', async () => {
    const { rows } = await real.pool.query<{ sized: number; spans: number }>(
      `SELECT (SELECT count(*)::int FROM listing WHERE size_text IS NOT NULL) AS sized, (SELECT count(*)::int FROM listing_size_span) AS spans`,
    );
    expect(rows[0].sized).toBeGreaterThan(10_000);
    const feed = await shrinkflationEvents(real.pool, { days: 730 });
    expect(feed.as_of).not.toBeNull();
    expect(feed).toMatchObject({ total: 0, events: [] });
    // The second sizes come from the store samples of 2026-08-03 printing a catalogue item's size
    // another way ("6pack" → "6 pack", "per kg" → "1kg"): equal pack totals, or sold by weight.
    const changes = await sizeChanges(real.pool, '2000-01-01', feed.as_of!);
    expect(rows[0].spans).toBe(rows[0].sized + changes.length);
    expect(changes.length).toBeLessThan(20);
    for (const c of changes) {
      const [a, b] = [parseSize(c.old_size), parseSize(c.new_size)];
      const same = a && b && !a.perKg && !b.perKg && a.unit === b.unit && totalQty(a) === totalQty(b);
      expect(Boolean(same || c.weighable || a?.perKg || b?.perKg), `${c.old_size} → ${c.new_size}`).toBe(true);
    }
  });
});
