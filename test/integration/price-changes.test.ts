/**
 * Price changes (issue 32 item 3, beyond the contract): list_price_changes on the real data
 * (test/helpers/prices.ts: the Woolworths national price log, then one store-level day) and on
 * constructed listings, against a reference written here independently of the SQL
 * (src/services/price-changes.ts) and of src/domain/price-changes.ts: each listing's national spans
 * in order, consecutive pairs compared on what a shopper without a card pays and on which deal is
 * on, dated by the later span's first day, windows counted back from the scope's last observed
 * day. Also: the SQL form of the rule equals the TypeScript rule over every combination of the
 * fields it reads; 404 and 400; GraphQL and MCP answer the REST body.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { dealOf } from '../../src/domain/deals.js';
import { priceChange } from '../../src/domain/price-changes.js';
import { departments, shelfSet } from '../../src/domain/shelves.js';
import { loadEnv } from '../../src/env.js';
import { createEmbeddedBackend } from '../../src/search/embedded.js';
import { priceChanges, priceChangeSql, dealKindSql } from '../../src/services/price-changes.js';
import { searchListingIds } from '../../src/services/search.js';
import { runMatching } from '../../workers/match/match.js';
import { runViews } from '../../workers/views/run.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { mcpToolCall } from '../helpers/mcp-call.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { seedRealPrices, STORE_DAY, type Seeded } from '../helpers/prices.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

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

// ---------------------------------------------------------------- the reference

interface RawSpan {
  id: string;
  listing_id: number;
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

/** Last observed day: last_day, or while open the latest of first_day, seen_day and the covered day. */
function refTo(s: RawSpan): string {
  if (s.last_day) return s.last_day;
  return [s.first_day, s.seen_day, s.covered].filter((d): d is string => d !== null).sort().at(-1)!;
}

/** What a shopper without a card pays: a special (kind 1) with a positive price under the shelf price, else the shelf price. */
function refPaid(s: RawSpan): number {
  return s.promo_kind === 1 && s.promo_price !== null && s.promo_price > 0 && s.promo_price < s.price ? s.promo_price : s.price;
}

/** Which deal is on: [kind, unit price] or null (special 1 / member 2 below shelf; multibuy 3 whose set rate is below shelf). */
function refDeal(s: RawSpan): [string, number] | null {
  if (!(s.price > 0)) return null;
  if ((s.promo_kind === 1 || s.promo_kind === 2) && s.promo_price !== null && s.promo_price > 0 && s.promo_price < s.price) {
    return [s.promo_kind === 1 ? 'special' : 'member', s.promo_price];
  }
  if (s.promo_kind === 3 && s.multibuy_qty && s.multibuy_qty > 0 && s.multibuy_price && s.multibuy_price > 0 && s.multibuy_price / s.multibuy_qty < s.price) {
    return ['multibuy', s.multibuy_price / s.multibuy_qty];
  }
  return null;
}

interface RefListing {
  id: number;
  name: string;
  retailer: string;
  spans: RawSpan[];
}

/** The reference answer's scope-independent part: as_of, total and the page of changes. */
function refChanges(listings: RefListing[], o: { days: number; direction: string; kind: string | null; limit: number }): Json {
  const asOf = listings.flatMap((l) => l.spans.map(refTo)).sort().at(-1) ?? null;
  const all: Json[] = [];
  if (asOf !== null) {
    const from = addDays(asOf, -(o.days - 1));
    for (const l of listings) {
      for (let i = 1; i < l.spans.length; i++) {
        const [a, b] = [l.spans[i - 1], l.spans[i]];
        if (b.first_day < from || b.first_day > asOf) continue;
        const [da, db_] = [refDeal(a), refDeal(b)];
        const [op, np] = [refPaid(a), refPaid(b)];
        let kind: string | null = null;
        let deal: [string, number] | null = null;
        if (db_ && (!da || da[0] !== db_[0])) [kind, deal] = ['deal_start', db_];
        else if (da && !db_) [kind, deal] = ['deal_end', da];
        else if (op !== np) kind = 'price';
        if (kind === null) continue;
        const direction = np < op ? 'drop' : np > op ? 'rise' : 'none';
        if (o.direction === 'drop' && direction !== 'drop') continue;
        if (o.direction === 'rise' && direction !== 'rise') continue;
        if (o.kind !== null && !(kind === 'deal_start' && deal![0] === o.kind)) continue;
        all.push({
          id: `price-change:${l.id}:${b.first_day}:${deal ? `${kind}-${deal[0]}` : kind}:${op}-${np}`,
          listing_id: l.id, name: l.name, retailer: l.retailer, day: b.first_day, kind, old_price: op, new_price: np, direction,
          deal_kind: deal?.[0] ?? null, deal_price: deal?.[1] ?? null, span: BigInt(b.id),
        });
      }
    }
  }
  all.sort((x, y) => (x.day !== y.day ? (x.day > y.day ? -1 : 1) : x.listing_id - y.listing_id || (x.span < y.span ? -1 : 1)));
  return { as_of: asOf, total: all.length, changes: all.slice(0, o.limit).map(({ span: _s, ...c }) => c) };
}

/** Every listing's national spans (ordered by first day, then id), name and chain. */
async function readListings(): Promise<Map<number, RefListing & { product_id: number | null; retailer_id: number }>> {
  const { rows: listings } = await db.pool.query<{ id: number; name: string; retailer: string; product_id: number | null; retailer_id: number }>(
    `SELECT l.id, l.name, r.slug AS retailer, l.product_id, l.retailer_id FROM listing l JOIN retailer r ON r.id = l.retailer_id`,
  );
  const { rows: spans } = await db.pool.query<RawSpan>(
    `SELECT sp.id::text, sp.listing_id, sp.first_day::text, sp.last_day::text, sp.seen_day::text, sp.price, sp.promo_price, sp.promo_kind,
            sp.multibuy_qty, sp.multibuy_price, r.covered_day::text AS covered
       FROM national_price_span sp JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id`,
  );
  const out = new Map(listings.map((l) => [l.id, { ...l, spans: [] as RawSpan[] }]));
  for (const s of spans) out.get(s.listing_id)!.spans.push(s);
  for (const l of out.values()) l.spans.sort((a, b) => (a.first_day !== b.first_day ? (a.first_day < b.first_day ? -1 : 1) : BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  return out;
}

// ---------------------------------------------------------------- constructed listings

async function newListing(key: string, retailer: string): Promise<number> {
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, brand, first_seen)
     SELECT id, $1, $2, 'Acme', '2026-01-01' FROM retailer WHERE slug = $3 RETURNING id`,
    [`changes-${key}`, `Changes ${key}`, retailer],
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

beforeAll(async () => {
  db = await createTestDatabase('price_changes');
  seed = await seedRealPrices(db.pool);
  // Kinds and generics (matching), then the shelf view the shelf scope reads.
  await runMatching(db.pool);
  await runViews(db.pool, { full: true });
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());

  // A (PAK'nSAVE, its own chain so the window is its own): 500 until 06-30; a special at 450
  // (shelf 520: a shelf rise under a special) 07-01 … 07-05; 480 (the special ended, below 500);
  // a member price 400 from 07-10 (no-card unchanged); a multibuy 2 for 800 from 07-15 (member
  // ended, multibuy started); 470 from 07-20 after a gap (multibuy ended and price dropped); the
  // same 470 again after a gap (no change). Last day 08-03.
  const a = await newListing('a', 'paknsave');
  await national(a, '2026-01-01', '2026-06-30', 500);
  await national(a, '2026-07-01', '2026-07-05', 520, [450, 1]);
  await national(a, '2026-07-06', '2026-07-09', 480);
  await national(a, '2026-07-10', '2026-07-14', 480, [400, 2]);
  await national(a, '2026-07-15', '2026-07-17', 480, [400, 3], [2, 800]);
  await national(a, '2026-07-20', '2026-07-25', 470);
  await national(a, '2026-07-28', '2026-08-03', 470);
  await newListing('never', 'paknsave');
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const url = (query: string) => `/api/v1/price-changes?${query}`;
const OP = 'list_price_changes';

describe('the rule: SQL form equals src/domain/price-changes.ts', () => {
  it('priceChangeSql and dealKindSql equal priceChange and dealOf over every combination', async () => {
    // Shelf price, promotional price, kind and multibuy terms that hit every branch (non-positive,
    // equal, above and below the shelf price; each PromoKind; a missing field).
    const tuples: Json[] = [];
    for (const price of [0, 500]) {
      for (const kind of [null, 1, 2, 3, 4]) {
        for (const promo of [null, 0, 400, 500, 600]) {
          for (const multi of kind === 3 ? [[null, null], [2, 800], [2, 1200], [0, 800], [2, 0]] : [[null, null]]) {
            tuples.push({ price, promo_price: promo, promo_kind: kind, multibuy_qty: multi[0], multibuy_price: multi[1] });
          }
        }
      }
    }
    const pairs = tuples.flatMap((p) => tuples.map((n) => [p, n]));
    const cols = (t: Json) => [t.price, t.promo_price, t.promo_kind, t.multibuy_qty, t.multibuy_price];
    // One VALUES row per tuple; pairs joined by index in SQL to keep the parameter count small.
    const values = tuples.map((_, i) => `(${i}, $${5 * i + 1}::int, $${5 * i + 2}::int, $${5 * i + 3}::int, $${5 * i + 4}::int, $${5 * i + 5}::int)`).join(', ');
    const { rows } = await db.pool.query<Json>(
      `WITH t(i, price, promo_price, promo_kind, multibuy_qty, multibuy_price) AS (VALUES ${values})
       SELECT p.i AS pi, n.i AS ni, ${dealKindSql('n')} AS deal, c.kind, c.old_price, c.new_price, c.deal_kind, c.deal_price
         FROM t p CROSS JOIN t n CROSS JOIN LATERAL ${priceChangeSql('p', 'n')} c ORDER BY p.i, n.i`,
      tuples.flatMap(cols),
    );
    expect(rows.length).toBe(pairs.length);
    let changes = 0;
    for (const r of rows) {
      const [p, n] = [tuples[r.pi], tuples[r.ni]];
      expect(r.deal, JSON.stringify(n)).toBe(dealOf(n as never)?.kind ?? null);
      const want = priceChange(p as never, n as never);
      const got = r.kind === null ? null : { kind: r.kind, old_price: r.old_price, new_price: r.new_price, deal_kind: r.deal_kind, deal_price: r.deal_price };
      expect(got, `${JSON.stringify(p)} → ${JSON.stringify(n)}`).toEqual(want);
      if (want) changes++;
    }
    // Every kind was reached.
    const kinds = new Set(rows.map((r) => r.kind));
    expect([...kinds].sort()).toEqual(['deal_end', 'deal_start', 'price', null].sort());
    expect(changes).toBeGreaterThan(100);
  });
});

describe('list_price_changes on the real data', () => {
  it('every listing, at days 1, 30 and 90 and each direction, answers the reference', async () => {
    const all = await readListings();
    let withChanges = 0;
    for (const o of [{ days: 30, direction: 'any' }, { days: 90, direction: 'drop' }, { days: 1, direction: 'rise' }]) {
      for (const l of all.values()) {
        const got = await priceChanges({ pool: db.pool, search: createEmbeddedBackend(db.pool) }, { listingId: l.id, ...o, limit: 100 });
        const ref = refChanges([l], { ...o, kind: null, limit: 100 });
        expect({ as_of: got.as_of, total: got.total, changes: got.changes.map(({ retailer_name: _r, ...c }) => c) }, `listing ${l.id} ${JSON.stringify(o)}`).toEqual(ref);
        if (got.total > 0) withChanges++;
      }
    }
    expect(withChanges).toBeGreaterThan(10);
  });

  it('a chain, its new specials, a search and a shelf answer the reference over REST', async () => {
    const all = await readListings();
    const listings = [...all.values()];
    const check = async (query: string, scope: RefListing[], o: { days?: number; direction?: string; kind?: string; limit?: number }) => {
      const r = await get(url(query), OP);
      expect(r.status, query).toBe(200);
      const ref = refChanges(scope, { days: o.days ?? 30, direction: o.direction ?? 'any', kind: o.kind ?? null, limit: o.limit ?? 50 });
      expect({ as_of: r.body.as_of, total: r.body.total, changes: r.body.changes.map(({ retailer_name: _r, ...c }: Json) => c) }, query).toEqual(ref);
      return r.body;
    };
    const woolworths = listings.filter((l) => l.retailer === 'woolworths');
    const body = await check('retailer=woolworths&days=90&limit=100', woolworths, { days: 90, limit: 100 });
    expect(body.as_of).toBe(STORE_DAY);
    expect(body.total).toBeGreaterThan(0);
    expect(body.scope).toEqual({ type: 'retailer', key: 'woolworths', name: expect.any(String) });
    await check('retailer=woolworths&days=90&kind=special', woolworths, { days: 90, kind: 'special' });
    await check('retailer=woolworths&direction=drop&limit=5', woolworths, { direction: 'drop', limit: 5 });
    await check('retailer=paknsave&days=90', listings.filter((l) => l.retailer === 'paknsave'), { days: 90 });

    const ids = await searchListingIds({ pool: db.pool, search: createEmbeddedBackend(db.pool) }, { q: 'mandarins', limit: 100 });
    expect(ids.length).toBeGreaterThan(0);
    const search = await check('q=mandarins&days=90', ids.map((id) => all.get(id)!), { days: 90 });
    expect(search.scope).toEqual({ type: 'search', key: 'mandarins', name: 'mandarins' });
    expect(search.total).toBeGreaterThan(0); // two mandarin listings went on special on the store day

    // The department with the most listings on its shelves, and its set's listings.
    const sets = await Promise.all(
      departments().map(async (d) => {
        const { rows } = await db.pool.query<{ ids: number[] | null }>(
          'SELECT array_agg(DISTINCT l) AS ids FROM shelf_product, unnest(listing_ids) l WHERE shelf_slug = ANY($1::text[])',
          [shelfSet(d.slug)],
        );
        return { slug: d.slug, ids: rows[0].ids ?? [] };
      }),
    );
    const dept = sets.sort((x, y) => y.ids.length - x.ids.length)[0];
    expect(dept.ids.length, 'the views built shelves').toBeGreaterThan(0);
    const shelf = await check(`shelf=${dept.slug}&days=90`, dept.ids.map((id) => all.get(id)!), { days: 90 });
    expect(shelf.scope.type).toBe('shelf');

    const product = await check(`product_id=${seed.productId}&days=90`, listings.filter((l) => l.product_id === seed.productId), { days: 90 });
    expect(product.scope.type).toBe('product');
  });
});

describe('list_price_changes on constructed listings', () => {
  it('names every kind of change, in order, with both prices and the deal', async () => {
    const a = made.get('a')!;
    const r = await get(url(`listing_id=${a}&days=90`), OP);
    expect(r.body).toMatchObject({ as_of: '2026-08-03', days: 90, direction: 'any', kind: null, total: 5, scope: { type: 'listing', key: String(a), name: 'Changes a' } });
    const brief = r.body.changes.map((c: Json) => [c.day, c.kind, c.old_price, c.new_price, c.direction, c.deal_kind, c.deal_price]);
    expect(brief).toEqual([
      ['2026-07-20', 'deal_end', 480, 470, 'drop', 'multibuy', 400],
      ['2026-07-15', 'deal_start', 480, 480, 'none', 'multibuy', 400],
      ['2026-07-10', 'deal_start', 480, 480, 'none', 'member', 400],
      ['2026-07-06', 'deal_end', 450, 480, 'rise', 'special', 450],
      ['2026-07-01', 'deal_start', 500, 450, 'drop', 'special', 450],
    ]);
    expect(r.body.changes[0].id).toBe(`price-change:${a}:2026-07-20:deal_end-multibuy:480-470`);
    expect((await get(url(`listing_id=${a}&days=90&direction=drop`), OP)).body.total).toBe(2);
    expect((await get(url(`listing_id=${a}&days=90&direction=rise`), OP)).body.total).toBe(1);
    expect((await get(url(`listing_id=${a}&days=90&kind=member`), OP)).body.changes.map((c: Json) => c.day)).toEqual(['2026-07-10']);
    // The window ends at as_of: 15 days reach back to 07-20 only.
    expect((await get(url(`listing_id=${a}&days=15`), OP)).body.changes.map((c: Json) => c.day)).toEqual(['2026-07-20']);
    // limit bounds the page, not the total.
    const one = await get(url(`listing_id=${a}&days=90&limit=1`), OP);
    expect([one.body.total, one.body.changes.length]).toEqual([5, 1]);
    const all = await readListings();
    expect({ as_of: r.body.as_of, total: r.body.total, changes: r.body.changes.map(({ retailer_name: _r, ...c }: Json) => c) })
      .toEqual(refChanges([all.get(a)!], { days: 90, direction: 'any', kind: null, limit: 50 }));
  });

  it('a listing never priced: as_of null, no changes', async () => {
    const r = await get(url(`listing_id=${made.get('never')}`), OP);
    expect(r.body).toMatchObject({ as_of: null, total: 0, changes: [] });
  });

  it('404 for an unknown listing, product, retailer or shelf; 400 for bad parameters', async () => {
    for (const q of ['listing_id=99999999', 'product_id=99999999', 'retailer=nope', 'shelf=nope']) {
      const r = await get(url(q));
      expect(r.status, q).toBe(404);
      expect(r.body.error.status).toBe(404);
    }
    await expect400(url(''), /exactly one/);
    await expect400(url(`listing_id=${made.get('a')}&retailer=woolworths`), /exactly one/);
    await expect400(url('listing_id=x'), /listing_id/);
    for (const d of ['0', '91', 'x']) await expect400(url(`retailer=woolworths&days=${d}`), /days/);
    for (const l of ['0', '101']) await expect400(url(`retailer=woolworths&limit=${l}`), /limit/);
    await expect400(url('retailer=woolworths&direction=down'), /direction/);
    await expect400(url('retailer=woolworths&kind=clearance'), /kind/);
    await expect400(url(`q=${'x'.repeat(101)}`), /q/);
  });
});

describe('GraphQL and MCP', () => {
  it('priceChanges answers the REST body; MCP list_price_changes too; errors are errors', async () => {
    const a = made.get('a')!;
    const rest = (await get(url(`listing_id=${a}&days=90&direction=drop`), OP)).body;
    const r = await app.inject({
      method: 'POST',
      url: '/graphql',
      payload: {
        query: `{ priceChanges(listingId: ${a}, days: 90, direction: drop) { scope { type key name } as_of: asOf days direction kind total
          changes { id listing_id: listingId name retailer retailer_name: retailerName day kind old_price: oldPrice new_price: newPrice direction deal_kind: dealKind deal_price: dealPrice } } }`,
      },
    });
    expect(r.json().errors).toBeUndefined();
    expect(r.json().data.priceChanges).toEqual(rest);
    const bad = await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ priceChanges(days: 90) { total } }' } });
    expect(bad.json().errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    const missing = await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ priceChanges(listingId: 99999999) { total } }' } });
    expect(missing.json().errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const m = await mcpToolCall(app, 'list_price_changes', { listing_id: a, days: 90, direction: 'drop' });
    expect(m.isError ?? false).toBe(false);
    expect(m.structuredContent).toEqual(rest);
    expect((await mcpToolCall(app, 'list_price_changes', { listing_id: 99_999_999 })).isError).toBe(true);
    expect((await mcpToolCall(app, 'list_price_changes', { days: 0, retailer: 'woolworths' })).isError).toBe(true);
  });
});
