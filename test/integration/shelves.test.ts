/**
 * Shelves (issue 17 items 3 and 5): list_shelves and browse_shelf through the assembled server
 * (app.inject) over a GENERATED catalogue (test/bench/synthetic-catalogue.ts, ingested and matched
 * by the real workers), then reshaped so every rule has cases: products linked across chains,
 * listings left unlinked, specials, club prices, multibuys, clearance and no-saving promotions,
 * listings off the site, closed spans and stores pricing some listings. The shelves view is built
 * by the derived-views worker (runViews). Expected totals, facets and sets are brute force: computed
 * here from the raw listing, span and store rows with the pure rules (src/domain/shelf-products.ts,
 * shelves.ts, unit-price.ts), not from the view. Every response is validated against the served
 * OpenAPI document and the zod resource; REST, GraphQL and MCP are compared on the same rows.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { documentText, operations } from '../../facades/operations.js';
import { admittedPrice } from '../../src/domain/shelf-products.js';
import { getShelf, shelfOfKind, shelfSet, SHELVES, type Shelf } from '../../src/domain/shelves.js';
import { measureOfListing, unitPrice } from '../../src/domain/unit-price.js';
import type { PromoKind } from '../../src/domain/spans.js';
import { loadEnv } from '../../src/env.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { runViews } from '../../workers/views/run.js';
import { runMatching } from '../../workers/match/match.js';
import { syntheticListings, syntheticObservations, SYNTHETIC_DAY } from '../bench/synthetic-catalogue.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { LISTING_CARD, SHELF_BEST, SHELF_PAGE, SHELF_PRODUCT, SHELF_SUMMARY, expectShape } from '../helpers/shape.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' });
const LISTINGS = 2400;

let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
const { get, expect400 } = checkedRequests(() => app, () => responses);

/** One chain's offer of a brute-force item. */
interface Offer {
  retailerId: number;
  shelf: number;
  best: number;
  perUnit: number | null;
}
/** A shelf product computed from the raw rows. */
interface Item {
  key: string;
  shelf: string;
  kind: string;
  stores: number;
  offers: Map<string, Offer>;
}
let items: Item[] = [];
const retailerIds = new Map<string, number>();

/** A product's key as the API shows it. */
const keyOf = (p: Json) => (p.product_id === null ? `l${p.offers[0].id}` : `p${p.product_id}`);

/** Items of a shelf under filters (brute force). */
function brute(slug: string, f: { retailer?: string; deals?: boolean; kind?: string } = {}): Item[] {
  const set = new Set(shelfSet(slug));
  return items.filter((it) => {
    if (!set.has(it.shelf)) return false;
    if (f.kind !== undefined && it.kind !== f.kind) return false;
    const offers = f.retailer ? [it.offers.get(f.retailer)].filter((o): o is Offer => !!o) : [...it.offers.values()];
    if (offers.length === 0) return false;
    return !f.deals || offers.some((o) => o.best < o.shelf);
  });
}

/** Facet counts by brute force: each value's total with that value chosen. */
function bruteFacets(slug: string, f: { retailer?: string; deals?: boolean; kind?: string }) {
  const count = (xs: Map<string, number>) => [...xs].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([s, n]) => [s, n]);
  const kinds = new Map<string, number>();
  for (const it of brute(slug, { ...f, kind: undefined })) kinds.set(it.kind, (kinds.get(it.kind) ?? 0) + 1);
  const chains = new Map<string, number>();
  for (const r of retailerIds.keys()) {
    const n = brute(slug, { ...f, retailer: r }).length;
    if (n > 0) chains.set(r, n);
  }
  return { kinds: count(kinds), retailers: count(chains) };
}

/** Every product of a browse (all pages of 96). */
async function all(slug: string, query: string): Promise<{ first: Json; products: Json[] }> {
  const out: Json[] = [];
  let first: Json | undefined;
  for (let offset = 0; ; offset += 96) {
    const r = await get(`/api/v1/shelves/${slug}?${query}&limit=96&offset=${offset}`, 'browse_shelf');
    expect(r.status, `${slug}?${query}`).toBe(200);
    expectShape(r.body, SHELF_PAGE, 'page');
    for (const x of [r.body.shelf, ...r.body.crumbs, ...r.body.children]) expectShape(x, SHELF_SUMMARY, 'summary');
    for (const p of r.body.products) {
      expectShape(p, SHELF_PRODUCT, 'product');
      expectShape(p.best, SHELF_BEST, 'best');
      for (const o of p.offers) expectShape(o, LISTING_CARD, 'offer');
    }
    first ??= r.body;
    out.push(...r.body.products);
    if (r.body.products.length < 96) break;
  }
  return { first: first!, products: out };
}

const qs = (f: Record<string, string | boolean | undefined>) =>
  Object.entries(f)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => `${k}=${encodeURIComponent(v === true ? 'true' : String(v))}`)
    .join('&');

beforeAll(async () => {
  db = await createTestDatabase('shelves');
  await ingest(db.pool, syntheticObservations(syntheticListings(LISTINGS)), { progress: false, source: 'test:shelves synthetic' });
  await runMatching(db.pool);
  const q = (sql: string, params: unknown[] = []) => db.pool.query(sql, params);
  // Link listings of one generic across chains (one per chain per rank), and leave some unlinked.
  await q(`WITH c AS (SELECT id, generic_id, product_id, row_number() OVER (PARTITION BY generic_id, retailer_id ORDER BY id) AS rn
                        FROM listing WHERE generic_id IS NOT NULL AND id % 3 = 0),
                m AS (SELECT generic_id, rn, min(product_id) AS pid FROM c GROUP BY 1, 2)
           UPDATE listing l SET product_id = m.pid, link_locked = true FROM c JOIN m USING (generic_id, rn) WHERE l.id = c.id`);
  await q(`UPDATE listing SET product_id = NULL WHERE id % 9 = 1`);
  // Promotions on the open national spans.
  await q(`UPDATE national_price_span SET promo_kind = 1, promo_price = (price * 8) / 10 WHERE listing_id % 5 = 0`);
  await q(`UPDATE national_price_span SET promo_kind = 2, promo_price = price - 30 WHERE listing_id % 7 = 0 AND listing_id % 5 <> 0`);
  await q(`UPDATE national_price_span SET promo_kind = 3, multibuy_qty = 3, multibuy_price = price * 3 - 100 WHERE listing_id % 11 = 0 AND listing_id % 35 <> 0 AND promo_kind IS NULL`);
  await q(`UPDATE national_price_span SET promo_kind = 4, promo_price = price / 2 WHERE listing_id % 13 = 0 AND promo_kind IS NULL`);
  await q(`UPDATE national_price_span SET promo_kind = 1, promo_price = price WHERE listing_id % 17 = 0 AND promo_kind IS NULL`);
  // Off the site, or no longer collected (span closed).
  await q(`UPDATE listing SET available = false WHERE id % 19 = 0`);
  await q(`UPDATE national_price_span SET last_day = first_day WHERE listing_id % 23 = 0`);
  // Stores: three Woolworths stores pricing some listings (the popular order's second key).
  for (const n of [1, 2, 3]) {
    await q(
      `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area, last_day, covered_day)
       SELECT id, $1, $2, -36.8, 174.7, 'Auckland', 'Auckland', $3, $3 FROM retailer WHERE slug = 'woolworths'`,
      [`S${n}`, `Store ${n}`, SYNTHETIC_DAY],
    );
  }
  await q(
    `INSERT INTO store_price_span (listing_id, store_id, first_day, price)
     SELECT l.id, s.id, $1, 500 FROM listing l JOIN retailer r ON r.id = l.retailer_id AND r.slug = 'woolworths'
       JOIN store s ON s.external_id <= 'S' || (1 + l.id % 3) WHERE l.id % 2 = 0`,
    [SYNTHETIC_DAY],
  );
  await runViews(db.pool, { full: true });

  // Brute force from the raw rows.
  for (const r of (await q('SELECT id, slug FROM retailer')).rows) retailerIds.set(r.slug, r.id);
  const rows = (
    await q(`SELECT l.id, l.retailer_id, r.slug AS retailer, l.product_id, l.qty, l.unit, l.pack_count, l.weighable, l.size_text,
                    CASE WHEN l.product_id IS NULL THEN lk.slug ELSE pk.slug END AS kind,
                    s.price, s.promo_price, s.promo_kind, s.multibuy_qty, s.multibuy_price,
                    (SELECT count(*)::int FROM store_price_span sp JOIN store st ON st.id = sp.store_id
                      WHERE sp.listing_id = l.id AND sp.last_day IS NULL AND st.active AND st.last_day IS NOT NULL) AS stores_here,
                    (SELECT array_agg(sp.store_id) FROM store_price_span sp WHERE sp.listing_id = l.id AND sp.last_day IS NULL) AS store_ids
               FROM listing l JOIN retailer r ON r.id = l.retailer_id
               JOIN national_price_span s ON s.listing_id = l.id AND s.last_day IS NULL
               LEFT JOIN product p ON p.id = l.product_id LEFT JOIN generic pg ON pg.id = p.generic_id LEFT JOIN kind pk ON pk.id = pg.kind_id
               LEFT JOIN generic lg ON lg.id = l.generic_id LEFT JOIN kind lk ON lk.id = lg.kind_id
              WHERE l.available ORDER BY l.id`)
  ).rows;
  const byKey = new Map<string, Item & { storeIds: Set<number> }>();
  for (const r of rows) {
    if (!r.kind) continue;
    const shelf = shelfOfKind(r.kind)!;
    const key = r.product_id === null ? `l${r.id}` : `p${r.product_id}`;
    const it = byKey.get(key) ?? { key, shelf: shelf.slug, kind: r.kind, stores: 0, offers: new Map(), storeIds: new Set<number>() };
    byKey.set(key, it);
    for (const s of r.store_ids ?? []) it.storeIds.add(s);
    const a = admittedPrice({ ...r, promo_kind: r.promo_kind as PromoKind | null })!;
    const perUnit = unitPrice(a.price, measureOfListing({ qty: r.qty, unit: r.unit, packCount: r.pack_count, weighable: r.weighable, sizeText: r.size_text }), shelf.compareUnit!);
    const prev = it.offers.get(r.retailer);
    if (!prev || a.price < prev.best) it.offers.set(r.retailer, { retailerId: r.retailer_id, shelf: r.price, best: a.price, perUnit });
  }
  items = [...byKey.values()].map((it) => ({ ...it, stores: it.storeIds.size }));

  app = await createServer({ db, env, rateLimit: { perMinute: 1_000_000, perDay: 10_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
}, 300_000);

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

/** A department, an aisle and a leaf with products, and a shelf whose compare unit is null. */
function shelvesUnderTest(): { dept: Shelf; aisle: Shelf; leaf: Shelf; mixed: Shelf } {
  const size = (s: Shelf) => brute(s.slug).length;
  const biggest = (depth: number, leaf?: boolean) =>
    SHELVES.filter((s) => s.depth === depth && (leaf === undefined || (s.children.length === 0) === leaf)).sort((a, b) => size(b) - size(a))[0];
  const mixed = SHELVES.filter((s) => s.compareUnit === null).sort((a, b) => size(b) - size(a))[0];
  return { dept: biggest(1), aisle: biggest(2, false), leaf: biggest(3, true), mixed };
}

describe('the generated catalogue', () => {
  it('has every case the rules need', () => {
    expect(items.length).toBeGreaterThan(1000);
    expect(items.some((i) => i.key.startsWith('l'))).toBe(true);
    expect(items.some((i) => i.offers.size > 1)).toBe(true);
    expect(items.some((i) => [...i.offers.values()].some((o) => o.best < o.shelf))).toBe(true);
    expect(items.some((i) => i.stores > 1)).toBe(true);
    const { mixed } = shelvesUnderTest();
    expect(brute(mixed.slug).length).toBeGreaterThan(0);
  });
});

describe('list_shelves', () => {
  it('lists the whole directory, departments first then by parent, biggest first; counts equal browse_shelf totals and brute force', async () => {
    const r = await get('/api/v1/shelves', 'list_shelves');
    expect(r.status).toBe(200);
    const list = r.body as Json[];
    expect(list.map((s) => s.slug).sort()).toEqual(SHELVES.map((s) => s.slug).sort());
    // Depth never decreases; within a depth, grouped by parent in the order the parents came; biggest first within a parent.
    const pos = new Map(list.map((s, i) => [s.slug, i]));
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1], list[i]];
      expect(a.depth).toBeLessThanOrEqual(b.depth);
      if (a.depth === b.depth && a.parent === b.parent) expect(a.products).toBeGreaterThanOrEqual(b.products);
      if (a.depth === b.depth && b.depth > 1 && a.parent !== b.parent) expect(pos.get(a.parent)!).toBeLessThan(pos.get(b.parent)!);
    }
    for (const s of list) {
      const shelf = getShelf(s.slug)!;
      expect(s).toEqual({ slug: shelf.slug, label: shelf.label, depth: shelf.depth, parent: shelf.parent, products: brute(s.slug).length, compare_unit: shelf.compareUnit });
    }
    for (const s of list.filter((x) => x.depth <= 2)) {
      const page = await get(`/api/v1/shelves/${s.slug}?limit=1`, 'browse_shelf');
      expect(page.body.total, s.slug).toBe(s.products);
    }
  });

  it('q resolves one word to one shelf (plurals, case, "&"), or none; 400 over 100 characters', async () => {
    const one = async (q: string) => (await get(`/api/v1/shelves?q=${encodeURIComponent(q)}`, 'list_shelves')).body as Json[];
    const [apples] = await one('Apple');
    expect(apples).toMatchObject({ slug: 'apples-pears', depth: 3 });
    expect(apples.products).toBe(brute('apples-pears').length);
    expect((await one('fruit and veg')).map((s) => s.slug)).toEqual(['fruit-veg']);
    expect(await one('no such shelf')).toEqual([]);
    expect(await one('   ')).toHaveLength(SHELVES.length);
    await expect400(`/api/v1/shelves?q=${'a'.repeat(101)}`, /q/);
  });
});

describe('browse_shelf facets and filters against brute force', () => {
  it('total, set, kinds and retailers under each combination of filters', async () => {
    const { dept, aisle, leaf } = shelvesUnderTest();
    for (const shelf of [dept, aisle, leaf]) {
      const some = brute(shelf.slug);
      const kind = some[Math.floor(some.length / 2)].kind;
      const chain = [...some.find((i) => i.offers.size > 1)?.offers.keys() ?? some[0].offers.keys()][0];
      const combos: { retailer?: string; deals?: boolean; kind?: string }[] = [
        {}, { retailer: chain }, { deals: true }, { retailer: chain, deals: true }, { kind }, { kind, retailer: chain, deals: true },
      ];
      for (const f of combos) {
        const label = `${shelf.slug} ${JSON.stringify(f)}`;
        const { first, products } = await all(shelf.slug, qs(f));
        const expected = brute(shelf.slug, f);
        expect(first.total, label).toBe(expected.length);
        expect(products.map(keyOf).sort(), label).toEqual(expected.map((i) => i.key).sort());
        const facets = bruteFacets(shelf.slug, f);
        expect(first.kinds.map((k: Json) => [k.slug, k.products]), label).toEqual(facets.kinds);
        expect(first.retailers.map((k: Json) => [k.slug, k.products]), label).toEqual(facets.retailers);
        expect(first.params, label).toEqual({ sort: 'popular', retailer: f.retailer ?? null, deals: f.deals ?? false, kind: f.kind ?? null, q: '', limit: 96, offset: 0 });
        // best and per_unit: the brute-force offer (the chain's with retailer).
        for (const p of products) {
          const it = expected.find((i) => i.key === keyOf(p))!;
          const offers = f.retailer ? [it.offers.get(f.retailer)!] : [...it.offers.values()];
          const best = offers.reduce((a, b) => (b.best < a.best || (b.best === a.best && b.retailerId < a.retailerId) ? b : a));
          expect(p.best.price, label).toBe(best.best);
          expect(p.best.shelf_price).toBe(best.shelf);
          expect(retailerIds.get(p.best.retailer)).toBe(best.retailerId);
          expect(p.per_unit).toBe(shelf.compareUnit === null ? null : best.perUnit);
          expect(p.offers.some((o: Json) => o.id === p.best.listing_id)).toBe(true);
        }
      }
    }
  });

  it('crumbs root first and itself last, children in directory order, unit', async () => {
    const { leaf, dept } = shelvesUnderTest();
    const page = (await get(`/api/v1/shelves/${leaf.slug}?limit=1`, 'browse_shelf')).body;
    expect(page.crumbs.map((c: Json) => c.slug)).toEqual([getShelf(getShelf(leaf.parent!)!.parent!)!.slug, leaf.parent, leaf.slug]);
    expect(page.shelf).toEqual(page.crumbs[2]);
    expect(page.children).toEqual([]);
    expect(page.unit).toBe(leaf.compareUnit);
    const top = (await get(`/api/v1/shelves/${dept.slug}?limit=1`, 'browse_shelf')).body;
    expect(top.crumbs.map((c: Json) => c.slug)).toEqual([dept.slug]);
    expect(top.children.map((c: Json) => c.slug)).toEqual(dept.children);
    for (const c of top.children) expect(c.products).toBe(brute(c.slug).length);
  });

  it('a kind not on the shelf gives an empty page with the shelf\'s facets; q narrows every count alike', async () => {
    const { dept } = shelvesUnderTest();
    const r = (await get(`/api/v1/shelves/${dept.slug}?kind=no-such-kind`, 'browse_shelf')).body;
    expect(r.total).toBe(0);
    expect(r.products).toEqual([]);
    expect(r.kinds.map((k: Json) => [k.slug, k.products])).toEqual(bruteFacets(dept.slug, {}).kinds);
    expect(r.retailers).toEqual([]);

    const word = 'garlic';
    const { first, products } = await all(dept.slug, `q=${word}`);
    expect(first.params.sort).toBe('relevance');
    expect(first.total).toBe(products.length);
    expect(first.total).toBeGreaterThan(0);
    expect(first.total).toBeLessThan(brute(dept.slug).length);
    for (const p of products) {
      const text = [p.name, p.brand, ...p.offers.map((o: Json) => `${o.name} ${o.brand ?? ''}`)].join(' ').toLowerCase();
      expect(text).toMatch(/garlic/);
    }
    for (const k of first.kinds) expect((await get(`/api/v1/shelves/${dept.slug}?q=${word}&kind=${k.slug}&limit=1`)).body.total).toBe(k.products);
    for (const c of first.retailers) expect((await get(`/api/v1/shelves/${dept.slug}?q=${word}&retailer=${c.slug}&limit=1`)).body.total).toBe(c.products);
    // A q without letters or digits filters nothing (relevance becomes popular).
    const blank = (await get(`/api/v1/shelves/${dept.slug}?q=${encodeURIComponent('%%')}&limit=1`, 'browse_shelf')).body;
    expect(blank.total).toBe(brute(dept.slug).length);
    expect(blank.params).toMatchObject({ sort: 'popular', q: '%%' });
  });
});

describe('browse_shelf sorts', () => {
  /** The sort key of a product under a sort (brute-force figures); ties end with the popular order. */
  function ordered(sort: string, products: Json[], shelf: Shelf, retailer?: string) {
    const it = (p: Json) => items.find((i) => i.key === keyOf(p))!;
    const pop = (p: Json) => [-it(p).offers.size, -it(p).stores];
    const disc = (p: Json) => {
      const offers = retailer ? [it(p).offers.get(retailer)!] : [...it(p).offers.values()];
      return Math.max(...offers.map((o) => (o.shelf - o.best) / o.shelf));
    };
    const pu = (p: Json, desc: boolean) => (p.per_unit === null ? [1, 0] : [0, desc ? -p.per_unit : p.per_unit]);
    const key: Record<string, (p: Json) => number[]> = {
      popular: (p) => pop(p),
      price: (p) => [p.best.price, ...pop(p)],
      price_desc: (p) => [-p.best.price, ...pop(p)],
      per_unit: (p) => [...pu(p, false), p.best.price, ...pop(p)],
      per_unit_desc: (p) => [...pu(p, true), -p.best.price, ...pop(p)],
      deal: (p) => [-disc(p), p.best.price, ...pop(p)],
    };
    for (let i = 1; i < products.length; i++) {
      const [a, b] = [key[sort](products[i - 1]), key[sort](products[i])];
      const cmp = a.map((x, j) => x - b[j]).find((d) => Math.abs(d) > 1e-9) ?? 0;
      expect(cmp, `${shelf.slug} ${sort} ${retailer ?? ''} at ${i}: ${a} then ${b}`).toBeLessThanOrEqual(0);
    }
  }

  it('every sort orders the whole set (all pages), with and without retailer; pages do not overlap', async () => {
    const { dept, leaf } = shelvesUnderTest();
    for (const shelf of [dept, leaf]) {
      for (const retailer of [undefined, 'woolworths']) {
        for (const sort of ['popular', 'price', 'price_desc', 'per_unit', 'per_unit_desc', 'deal']) {
          const { first, products } = await all(shelf.slug, qs({ sort, retailer }));
          expect(first.params.sort).toBe(sort);
          expect(new Set(products.map(keyOf)).size).toBe(products.length);
          expect(products.length).toBe(brute(shelf.slug, { retailer }).length);
          ordered(sort, products, shelf, retailer);
          if (sort.startsWith('per_unit')) {
            const nulls = products.findIndex((p) => p.per_unit === null);
            if (nulls >= 0) expect(products.slice(nulls).every((p) => p.per_unit === null)).toBe(true);
          }
        }
      }
    }
  });

  it('popular puts the most widely stocked first; the default sort is popular', async () => {
    const { dept } = shelvesUnderTest();
    const r = (await get(`/api/v1/shelves/${dept.slug}?limit=5`, 'browse_shelf')).body;
    expect(r.params.sort).toBe('popular');
    const most = Math.max(...brute(dept.slug).map((i) => i.offers.size));
    expect(r.products[0].offers.filter((o: Json) => o.available).length).toBeGreaterThanOrEqual(1);
    expect(items.find((i) => i.key === keyOf(r.products[0]))!.offers.size).toBe(most);
  });

  it('a shelf of mixed units: unit and every per_unit null, the per-unit sorts order by price', async () => {
    const { mixed } = shelvesUnderTest();
    const a = await all(mixed.slug, 'sort=per_unit');
    expect(a.first.unit).toBeNull();
    expect(a.products.every((p) => p.per_unit === null)).toBe(true);
    for (let i = 1; i < a.products.length; i++) expect(a.products[i - 1].best.price).toBeLessThanOrEqual(a.products[i].best.price);
    const d = await all(mixed.slug, 'sort=per_unit_desc');
    for (let i = 1; i < d.products.length; i++) expect(d.products[i - 1].best.price).toBeGreaterThanOrEqual(d.products[i].best.price);
  });
});

describe('browse_shelf errors', () => {
  it('404 for an unknown slug; 400 for a bad retailer, sort, deals, limit, offset, q or kind', async () => {
    const r = await get('/api/v1/shelves/no-such-shelf', 'browse_shelf');
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ status: 404 });
    await expect400('/api/v1/shelves/pantry?retailer=nosuchchain', /retailer/);
    await expect400('/api/v1/shelves/pantry?sort=cheapest', /sort/);
    await expect400('/api/v1/shelves/pantry?deals=maybe', /deals/);
    await expect400('/api/v1/shelves/pantry?limit=0', /limit/);
    await expect400('/api/v1/shelves/pantry?limit=97', /limit/);
    await expect400('/api/v1/shelves/pantry?offset=-1', /offset/);
    await expect400(`/api/v1/shelves/pantry?q=${'a'.repeat(101)}`, /q/);
    await expect400(`/api/v1/shelves/pantry?kind=${'a'.repeat(101)}`, /kind/);
    const past = (await get('/api/v1/shelves/pantry?offset=100000', 'browse_shelf')).body;
    expect(past.products).toEqual([]);
    expect(past.total).toBe(brute('pantry').length);
    expect((await get('/api/v1/shelves/pantry?deals=1&limit=1')).body.total).toBe(brute('pantry', { deals: true }).length);
  });
});

describe('REST = GraphQL = MCP', () => {
  async function mcp(name: string, args: Json) {
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
    const r = await app.inject({
      method: 'POST', url: '/mcp', payload: JSON.stringify(message),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    });
    return r.json().result;
  }

  it('the same bodies for list_shelves and browse_shelf', async () => {
    const cases: [string, Json, string][] = [
      ['list_shelves', {}, '/api/v1/shelves'],
      ['list_shelves', { q: 'apples' }, '/api/v1/shelves?q=apples'],
      ['browse_shelf', { slug: 'pantry', sort: 'per_unit', retailer: 'woolworths', deals: 'true', limit: 10, offset: 3 }, '/api/v1/shelves/pantry?sort=per_unit&retailer=woolworths&deals=true&limit=10&offset=3'],
      ['browse_shelf', { slug: 'vegetables', q: 'garlic' }, '/api/v1/shelves/vegetables?q=garlic'],
    ];
    for (const [name, args, url] of cases) {
      const rest = await get(url, name);
      expect(rest.status).toBe(200);
      const tool = await mcp(name, args);
      expect(tool.isError ?? false, JSON.stringify(tool)).toBe(false);
      // The text content is the REST body (structuredContent wraps an array body as { result }).
      expect(JSON.parse(tool.content[0].text)).toEqual(rest.body);
      expect(tool.structuredContent).toEqual(Array.isArray(rest.body) ? { result: rest.body } : rest.body);
      const op = operations.find((o) => o.name === name)!;
      const params = op.params.parse(Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)])));
      const r = await app.inject({ method: 'POST', url: '/graphql', payload: { query: documentText(name), variables: op.variables(params), operationName: name } });
      const body = r.json();
      expect(body.errors).toBeUndefined();
      expect(op.shape(body.data, params)).toEqual(rest.body);
    }
  });

  it('GraphQL: nested shelves, a page with its products\' offers, and Listing/Product shelf and perUnit', async () => {
    const r = await app.inject({
      method: 'POST', url: '/graphql',
      payload: {
        query: `{ shelves { slug products: productCount children { slug products: productCount children { slug compareUnit } } }
                  shelf(slug: "canned-tomatoes", sort: price, limit: 3) { total shelf { slug products: productCount } products { productId best { price retailer } perUnit
                    offers { id perUnit shelf { slug crumbs { slug } } product { id perUnit shelf { slug } } } } } }`,
      },
    });
    const body = r.json();
    expect(body.errors).toBeUndefined();
    const d = body.data;
    expect(d.shelves).toHaveLength(SHELVES.length);
    const pantry = d.shelves.find((s: Json) => s.slug === 'pantry');
    expect(pantry.children.map((c: Json) => c.slug)).toEqual(getShelf('pantry')!.children);
    expect(d.shelf.total).toBe(d.shelf.shelf.products);
    expect(d.shelf.total).toBe(brute('canned-tomatoes').length);
    for (const p of d.shelf.products) {
      for (const o of p.offers) {
        if (o.shelf) expect(o.shelf.crumbs.at(-1).slug).toBe(o.shelf.slug);
        if (o.product) {
          expect(o.product.shelf.slug).toBe('canned-tomatoes');
          expect(o.product.id).toBe(p.productId);
          expect(o.product.perUnit).toBe(p.perUnit);
        }
      }
    }
  });
});

describe('the shelves view in the derived-views worker', () => {
  it('is skipped while its inputs are unchanged, diff-written (a full rebuild of equal rows writes none), and rebuilt after a relink', async () => {
    const again = await runViews(db.pool);
    expect(again.views.shelves).toMatchObject({ built: false });
    const full = await runViews(db.pool, { full: true });
    expect(full.views.shelves.report).toMatchObject({ products: items.length, written: 0, deleted: 0 });
    // Unlinking a listing changes no collection (the shared data version) but the shelves' own inputs.
    const { rows } = await db.pool.query<{ id: number }>(`SELECT id FROM listing WHERE product_id IS NOT NULL AND available ORDER BY id LIMIT 1`);
    await db.pool.query(`UPDATE listing SET product_id = NULL WHERE id = $1`, [rows[0].id]);
    const relinked = await runViews(db.pool);
    expect(relinked.views.shelves.built).toBe(true);
    expect((relinked.views.shelves.report as { written: number }).written).toBeGreaterThan(0);
    const { rows: run } = await db.pool.query(`SELECT data_version FROM view_run WHERE name = 'shelves'`);
    expect(run[0].data_version).toMatch(/\+/);
  });
});
