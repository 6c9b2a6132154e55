/**
 * Search, suggestions and GTIN lookup over the real catalogue, as a newcomer tries them: the full
 * import of ../shared/data (the Woolworths catalogue of 2026-07-27 names ~17,700 listings) and a
 * matching run, then the REST operations through the assembled server on the embedded search
 * backend. The queries are the issue's: `milk`, `anchor butter`, `bananas`.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import type { TestDatabase } from '../helpers/db.js';
import { createRealDataDatabase } from '../helpers/real-data.js';
import { runMatching } from '../../workers/match/match.js';
import { runViews } from '../../workers/views/run.js';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { correctSpelling } from '../../src/search/spelling.js';

let db: TestDatabase;
let app: FastifyInstance;

type Card = { id: number; retailer: string; name: string; brand: string | null; size_text: string | null };

const get = async (url: string) => {
  const r = await app.inject({ method: 'GET', url });
  return { status: r.statusCode, body: r.json() };
};

/** Kind slug of each listing id (null when unclassified). */
async function kinds(ids: number[]): Promise<(string | null)[]> {
  const r = await db.pool.query<{ id: number; slug: string | null }>(
    `SELECT l.id, k.slug FROM listing l LEFT JOIN generic g ON g.id = l.generic_id LEFT JOIN kind k ON k.id = g.kind_id WHERE l.id = ANY($1::int[])`,
    [ids],
  );
  const by = new Map(r.rows.map((x) => [x.id, x.slug]));
  return ids.map((id) => by.get(id) ?? null);
}

beforeAll(async () => {
  db = await createRealDataDatabase('catalogue_search'); // the run's one import of the real data, copied
  await runMatching(db.pool);
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
}, 300_000);

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('search on the real catalogue', () => {
  it('q=milk: plain milk first, not flavoured, plant or formula milk', async () => {
    const { status, body } = await get('/api/v1/listings?q=milk&limit=10');
    expect(status).toBe(200);
    const cards = body as Card[];
    expect(cards.length).toBe(10);
    const top = cards.slice(0, 5);
    expect(await kinds(top.map((c) => c.id))).toEqual(['milk', 'milk', 'milk', 'milk', 'milk']);
    for (const c of top) expect(c.name).not.toMatch(/^Woolworths item |chocolate|oat|almond|soy|toddler|formula/i);
  });

  it('q=anchor butter: Anchor butter first', async () => {
    const cards = (await get('/api/v1/listings?q=anchor%20butter&limit=10')).body as Card[];
    expect(cards[0].brand).toBe('anchor');
    expect(cards[0].name).toMatch(/^anchor butter/);
    expect((await kinds([cards[0].id]))[0]).toBe('butter');
  });

  it('q=bananas: fresh bananas first, not banana-flavoured food or sunscreen', async () => {
    const cards = (await get('/api/v1/listings?q=bananas&limit=10')).body as Card[];
    expect(await kinds(cards.slice(0, 2).map((c) => c.id))).toEqual(['bananas', 'bananas']);
    expect(cards.slice(0, 3).map((c) => c.name)).toContain('fresh fruit bananas yellow loose');
  });

  it('applies the kind prior to synonyms and typos: ground beef → beef mince, bannana → bananas', async () => {
    const ground = (await get('/api/v1/listings?q=ground%20beef&limit=5')).body as Card[];
    expect(await kinds(ground.slice(0, 3).map((c) => c.id))).toEqual(['beef-mince', 'beef-mince', 'beef-mince']);
    const typo = (await get('/api/v1/listings?q=bannana&limit=5')).body as Card[];
    expect((await kinds([typo[0].id]))[0]).toBe('bananas');
    const carots = (await get('/api/v1/listings?q=carots&limit=5')).body as Card[];
    expect((await kinds([carots[0].id]))[0]).toBe('carrots');
  });

  it('search_products groups the same ranking: plain milk first', async () => {
    const groups = (await get('/api/v1/search?q=milk&limit=5')).body as { name: string; offers: { id: number }[] }[];
    expect(groups.length).toBe(5);
    expect((await kinds([groups[0].offers[0].id]))[0]).toBe('milk');
  });

  it('suggests the fruit or vegetable a short prefix starts before brand fragments (issue 28: ban gave band aid, banana boat)', async () => {
    type Hit = { kind: string; label: string; href: string };
    // Prefix → the kind a shopper typing it most likely wants; each is a kind of the taxonomy
    // that many listings share (bananas: 91 listings of 52 brands; band aid: 9 of one).
    const cases: [string, string][] = [['ban', 'Bananas'], ['app', 'Apples'], ['car', 'Carrots'], ['pot', 'Potatoes'], ['kiw', 'Kiwifruit'], ['ora', 'Oranges'], ['tom', 'Tomatoes']];
    for (const [q, label] of cases) {
      const hits = (await get(`/api/v1/suggestions?q=${q}`)).body as Hit[];
      const at = hits.findIndex((h) => h.kind === 'category' && h.label === label);
      expect(at, `${q}: ${JSON.stringify(hits.map((h) => h.label))}`).toBeGreaterThanOrEqual(0);
      expect(at, q).toBeLessThan(2);
      const firstBrand = hits.findIndex((h) => h.kind === 'brand');
      if (firstBrand >= 0) expect(at, q).toBeLessThan(firstBrand);
    }
    // Before: band aid, banana boat, banana boat kids, then products. Following the suggestion
    // finds fresh bananas first.
    const ban = (await get('/api/v1/suggestions?q=ban')).body as Hit[];
    expect(ban[0]).toMatchObject({ kind: 'category', label: 'Bananas', href: '/search?q=Bananas' });
    expect(ban.filter((h) => h.kind === 'brand').map((h) => h.label)).toEqual(['band aid', 'banana boat', 'banana boat kids']);
    const groups = (await get('/api/v1/search?q=Bananas&limit=3')).body as { offers: { id: number }[] }[];
    expect(await kinds([groups[0].offers[0].id])).toEqual(['bananas']);
  });

  it('looks up a real barcode and suggests real brands', async () => {
    const gtin = (await get('/api/v1/gtin/9354829000064')).body as { name: string; offers: { retailer: string; name: string }[] };
    expect(gtin.offers.map((o) => o.name)).toContain('fresh fruit bananas yellow loose');
    // The GTIN-13 and its GTIN-14 form are one item.
    expect((await get('/api/v1/gtin/09354829000064')).body).toEqual(gtin);
    const s = (await get('/api/v1/suggestions?q=anch')).body as { kind: string; label: string }[];
    expect(s).toContainEqual(expect.objectContaining({ kind: 'brand', label: 'anchor' }));
  });
});

describe('browse_retailer on the real Woolworths catalogue (issue 17 item 4)', () => {
  type Real = { id: number; name: string; path: string[]; search_name: string };
  let real: Real[] = [];
  /** Code-point order (PostgreSQL's "C" collation). */
  const cmp = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  /** Brute force over the real rows: child counts (biggest first, then label), total, page order. */
  const brute = (path: string[], words: string[] = []) => {
    const under = real.filter((r) => path.every((l, i) => r.path[i] === l) && words.every((w) => r.search_name.includes(w)));
    const counts = new Map<string, number>();
    for (const r of under) if (r.path.length > path.length) counts.set(r.path[path.length], (counts.get(r.path[path.length]) ?? 0) + 1);
    return {
      total: under.length,
      categories: [...counts].map(([label, listings]) => ({ label, listings })).sort((a, b) => b.listings - a.listings || cmp(a.label, b.label)),
      ids: [...under].sort((a, b) => cmp(a.name.toLowerCase(), b.name.toLowerCase()) || a.id - b.id).map((r) => r.id),
    };
  };
  const browse = async (path: string[], extra = '') => {
    const r = await get(`/api/v1/retailers/woolworths/browse?${path.map((l) => `c=${encodeURIComponent(l)}&`).join('')}limit=120${extra}`);
    expect(r.status, JSON.stringify(path)).toBe(200);
    return r.body as { total: number; categories: { label: string; listings: number }[]; listings: { id: number }[]; path: string[] };
  };

  beforeAll(async () => {
    const { buildRetailerCategories } = await import('../../workers/views/categories.js');
    const { inTransaction } = await import('../../src/db/transaction.js');
    await inTransaction(db.pool, (client) => buildRetailerCategories(client));
    const { rows } = await db.pool.query<Real>(
      `SELECT l.id, l.name, l.category_path AS path, l.search_name FROM listing l JOIN retailer r ON r.id = l.retailer_id
       WHERE r.slug = 'woolworths' AND l.available AND cardinality(l.category_path) > 0`,
    );
    real = rows;
  });

  it('the departments with their counts, and every department walked (labels with & and ,): counts, total and first page = brute force', async () => {
    expect(real.length).toBeGreaterThan(15_000);
    const top = await browse([]);
    const want = brute([]);
    expect(top.total).toBe(want.total);
    expect(top.categories).toEqual(want.categories);
    expect(top.categories.length).toBeGreaterThan(10);
    expect(top.listings.map((l) => l.id)).toEqual(want.ids.slice(0, 120));
    expect(top.categories.some((c) => /[&,]/.test(c.label))).toBe(true);
    for (const { label } of top.categories) {
      const body = await browse([label]);
      const dept = brute([label]);
      expect(body.path).toEqual([label]);
      expect(body.total, label).toBe(dept.total);
      expect(body.categories, label).toEqual(dept.categories);
      expect(body.listings.map((l) => l.id), label).toEqual(dept.ids.slice(0, 120));
    }
    expect((await get('/api/v1/retailers/woolworths/browse?c=No%20such%20department')).status).toBe(404);
  });

  it('q=milk filters the departments and the page', async () => {
    const body = await browse([], '&q=milk');
    const want = brute([], ['milk']);
    expect(want.total).toBeGreaterThan(50);
    expect(body.total).toBe(want.total);
    expect(body.categories).toEqual(want.categories);
    expect(body.listings.map((l) => l.id)).toEqual(want.ids.slice(0, 120));
  });
});

describe('shelves on the real catalogue (issue 17 items 3 and 5)', () => {
  type Page = { total: number; unit: string | null; kinds: { slug: string; products: number }[]; retailers: { slug: string; products: number }[]; products: { name: string; per_unit: number | null; best: { price: number } }[] };
  let built: { products: number; offers: number; seconds: number };

  beforeAll(async () => {
    const { buildShelves } = await import('../../workers/views/shelves.js');
    const { inTransaction } = await import('../../src/db/transaction.js');
    built = await inTransaction(db.pool, (client) => buildShelves(client));
    console.log(`shelves view on the real data: ${built.products} products from ${built.offers} current offers in ${built.seconds.toFixed(2)} s`);
  }, 120_000);

  it('list_shelves: every department with products; counts equal browse_shelf totals; words resolve', async () => {
    const list = (await get('/api/v1/shelves')).body as { slug: string; depth: number; products: number }[];
    const depts = list.filter((s) => s.depth === 1);
    expect(depts.slice(0, 3).every((d) => d.products > 100)).toBe(true);
    expect(depts.reduce((n, d) => n + d.products, 0)).toBe(built.products);
    console.log(`real shelves: ${depts.map((d) => `${d.slug} ${d.products}`).join(', ')}`);
    for (const s of list.filter((x) => x.depth <= 2)) expect((await get(`/api/v1/shelves/${s.slug}?limit=1`)).body.total, s.slug).toBe(s.products);
    expect(((await get('/api/v1/shelves?q=Bananas')).body as { slug: string }[]).map((s) => s.slug)).toEqual(['bananas']);
  });

  it('browse_shelf: milk cheapest per litre, bananas per kg, facets and filters', async () => {
    const milk = (await get('/api/v1/shelves/fresh-milk?sort=per_unit&limit=10')).body as Page;
    expect(milk.unit).toBe('l');
    expect(milk.total).toBeGreaterThan(20);
    const units = milk.products.map((p) => p.per_unit);
    expect(units.every((u) => u !== null && u > 50 && u < 1000)).toBe(true);
    expect([...units].sort((a, b) => a! - b!)).toEqual(units);
    console.log(`real fresh-milk: ${milk.total} products, cheapest per L: ${milk.products.slice(0, 3).map((p) => `${p.name} ${p.per_unit} c/L`).join('; ')}`);
    const bananas = (await get('/api/v1/shelves/bananas?sort=per_unit&limit=5')).body as Page;
    expect(bananas.unit).toBe('kg');
    expect(bananas.products[0].per_unit).not.toBeNull();
    const pantry = (await get('/api/v1/shelves/pantry?deals=1&limit=5')).body as Page;
    expect(pantry.total).toBeGreaterThan(0);
    for (const k of pantry.kinds.slice(0, 3)) expect((await get(`/api/v1/shelves/pantry?deals=1&kind=${k.slug}&limit=1`)).body.total).toBe(k.products);
    expect(pantry.retailers.map((r) => r.slug)).toEqual(['woolworths']);
  });
});

describe('the suggest view (issue 19): the same answers as the live queries', () => {
  it('suggestions and recently seen read the view while it is current, and equal the live answers once it is stale', async () => {
    // A second server with the response cache off, so each request runs the operation.
    const uncached = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' }) });
    const urls = [
      '/api/v1/suggestions?q=mi', '/api/v1/suggestions?q=garlic', '/api/v1/suggestions?q=anch&limit=12', '/api/v1/suggestions?q=pa',
      '/api/v1/suggestions?q=ban', '/api/v1/suggestions?q=pot&limit=12', '/api/v1/suggestions?q=b',
      '/api/v1/listings?limit=100', '/api/v1/listings?retailer=paknsave&limit=20', '/api/v1/search?limit=40', '/api/v1/search?retailer=woolworths&limit=5',
    ];
    const answers = () => Promise.all(urls.map(async (url) => {
      const r = await uncached.inject({ method: 'GET', url });
      return [url, r.statusCode, r.json()] as const;
    }));
    try {
      await runViews(db.pool);
      const current = await db.pool.query<{ ok: boolean }>(
        `SELECT v.data_version = d.version::text AS ok FROM view_run v, data_version d WHERE v.name = 'suggest' AND d.id = 1`,
      );
      expect(current.rows[0]?.ok).toBe(true);
      expect((await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM recent_listing')).rows[0].n).toBeGreaterThan(0);
      expect((await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM suggest_term WHERE kind = 'brand'")).rows[0].n).toBeGreaterThan(0);
      const fromView = await answers();
      for (const [url, status, body] of fromView) {
        expect(status, url).toBe(200);
        expect((body as unknown[]).length, url).toBeGreaterThan(0);
      }
      await bumpDataVersion(db.pool, 'test: the suggest view goes stale');
      expect(await answers()).toEqual(fromView);
    } finally {
      await uncached.close();
    }
  });
});

describe('typos and run-together words on the real catalogue (issue 31 item 2)', () => {
  type Group = { name: string; brand: string | null; offers: { id: number; name: string }[] };
  /** The first groups of search_products and the first cards of search_listings for `q`. */
  const both = async (q: string) => ({
    groups: (await get(`/api/v1/search?q=${encodeURIComponent(q)}&limit=10`)).body as Group[],
    cards: (await get(`/api/v1/listings?q=${encodeURIComponent(q)}&limit=10`)).body as Card[],
  });

  beforeAll(async () => {
    // The vocabulary of spelling correction (search_word) is built with the derived views.
    await runViews(db.pool);
    expect((await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM search_word')).rows[0].n).toBeGreaterThan(10_000);
  }, 120_000);

  it('galic (one letter missing) finds plain garlic first, as garlic does; before: Royal Gala apples and galaxy cheeses, garlic sixth', async () => {
    const typo = await both('galic');
    const right = await both('garlic');
    expect(typo.groups[0].name).toMatch(/^garlic\b/i);
    expect(await kinds([typo.groups[0].offers[0].id])).toEqual(['garlic']);
    expect(typo.cards[0].name).toMatch(/^garlic$/i);
    expect(await kinds(typo.cards.slice(0, 3).map((c) => c.id))).toEqual(['garlic', 'garlic', 'garlic']);
    // The correction searches the catalogue's word: the same ranking as the right spelling.
    expect(typo.cards.map((c) => c.id)).toEqual(right.cards.map((c) => c.id));
    expect(typo.groups.map((g) => g.name)).toEqual(right.groups.map((g) => g.name));
  });

  it('two-letter typos and missing spaces: choclate, brocoli → the word; peanutbutter → peanut butter', async () => {
    expect((await both('choclate')).cards.slice(0, 5).every((c) => /chocolate/.test(c.name))).toBe(true);
    expect((await both('brocoli')).cards[0].name).toMatch(/broccoli/i);
    const pb = await both('peanutbutter');
    expect(pb.groups[0].name).toMatch(/peanut butter/i);
    expect(pb.cards.slice(0, 5).every((c) => /peanut butter/.test(c.name))).toBe(true);
    expect(pb.cards.map((c) => c.id)).toEqual((await both('peanut butter')).cards.map((c) => c.id));
  });

  it('corrects only words no listing holds, to the vocabulary word within the edit budget', async () => {
    const corrected = async (q: string) => (await correctSpelling(db.pool, q)).text;
    expect(await corrected('galic')).toBe('garlic');
    expect(await corrected('galic bread')).toBe('garlic bread');
    expect(await corrected('choclate')).toBe('chocolate');
    expect(await corrected('peanutbutter')).toBe('peanut butter');
    // Known words, prefixes of known words and stems are left alone; so is what is too far off.
    for (const q of ['gala', 'garlic', 'milk', 'choc', 'tomatos', 'weetbix', 'cocacola', 'anchor butter', 'xqzvtw', 'mlk 2l']) expect(await corrected(q), q).toBe(q);
  });

  it('weetbix and weet-bix find Weet-Bix first; cocacola finds Coca-Cola first', async () => {
    for (const q of ['weetbix', 'weet-bix', 'Weet-Bix', 'weet bix']) {
      const r = await both(q);
      expect(r.groups[0].name, q).toMatch(/weet-bix/i);
      expect(r.cards[0].name, q).toMatch(/weet-bix/i);
    }
    for (const q of ['cocacola', 'coca-cola', 'coca cola']) {
      const r = await both(q);
      expect(r.groups[0].name, q).toMatch(/coca[- ]cola/i);
      expect(r.cards[0].name, q).toMatch(/coca[- ]cola/i);
    }
  });

  it('correct spellings are kept: gala finds Royal Gala apples first (a whole word before galaxy cheese), choc stays a prefix', async () => {
    const gala = await both('gala');
    expect(gala.groups[0].name).toMatch(/royal gala/i);
    expect(gala.cards[0].name).toMatch(/royal gala/i);
    expect(await kinds([gala.cards[0].id])).toEqual(['apples']);
    const choc = await both('choc');
    expect(choc.cards.slice(0, 5).every((c) => /\bchoc/.test(c.name))).toBe(true);
  });
});
