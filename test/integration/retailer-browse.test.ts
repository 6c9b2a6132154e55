/**
 * browse_retailer (issue 17 item 4; api-spec RetailerBrowse, CategoryNode) through the assembled
 * server (app.inject) against a real PostgreSQL: a generated two-chain catalogue with a three-level
 * tree (labels holding `/`, `,` and `&`, listings at inner nodes, unavailable listings, listings
 * without a path or with an empty label), the `categories` view built by the derived-views worker
 * (workers/views/categories.ts), and every answer compared with a brute-force computation over the
 * listing rows: every node of the tree walked at every depth, q filtering counts and page, paging,
 * 400s and 404s; REST = GraphQL = MCP; the view's diff-writing and its registration in runViews.
 * Every response is validated against the served OpenAPI document and the operation's zod resource.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, documentText } from '../../facades/operations.js';
import { createServer } from '../../facades/server.js';
import { inTransaction } from '../../src/db/transaction.js';
import { loadEnv } from '../../src/env.js';
import { normalizeSearchText } from '../../src/search/synonyms.js';
import { buildRetailerCategories } from '../../workers/views/categories.js';
import { runViews } from '../../workers/views/run.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { prng } from '../helpers/prng.js';
import { CATEGORY_NODE, LISTING_CARD, RETAILER, RETAILER_BROWSE, expectError, expectShape } from '../helpers/shape.js';
import { mcpToolCall } from '../helpers/mcp-call.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The response cache off (CACHE_MAX_BYTES=0): the fixtures write rows by hand between requests,
// which no write job does, so no data version bump tells a cache (response-cache.test.ts covers it).
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' });
let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
const { get, expect400 } = checkedRequests(() => app, () => responses);

/** The generated tree: top-level labels → second-level labels → third-level labels ([] = none). */
const TREE: Record<string, Record<string, string[]>> = {
  'Fruit & Vegetables': { 'Apples/Pears': ['Gala, Braeburn', 'Nashi & Asian'], Vegetables: ['Root', 'Leafy'], Fruit: [] },
  'Meat, Poultry & Seafood': { 'Beef & Veal': ['Mince', 'Steak'], Chicken: [] },
  Pantry: { 'Canned Foods & Packets': ['Tomatoes', 'Beans/Spaghetti'], 'Baking, Cooking & Spreads': [] },
  'Health & Body': { 'Hair/Skin': [] },
};
const WORDS = ['Organic', 'Anchor', 'crushed', 'Tomato', 'milk', 'Gala', 'beef', 'fresh', 'Sweet', 'sauce', 'premium', "Wattie's"];
const BRANDS = [null, 'Anchor', "Wattie's", 'Pams', 'Macro'];

/** A listing row as inserted. */
interface Row {
  id: number;
  retailer: string;
  name: string;
  brand: string | null;
  path: string[];
  available: boolean;
  search_name: string;
}
let rows: Row[] = [];

/** Code-point order (UTF-8 byte order), as PostgreSQL's "C" collation compares. */
const cmp = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** The brute-force browse of `path` at `retailer` with `q`: the listings, the child counts and the page order. */
function brute(retailer: string, path: string[], q = '') {
  const words = [...new Set(normalizeSearchText(q).split(' ').filter(Boolean))];
  const under = rows.filter(
    (r) =>
      r.retailer === retailer && r.available && r.path.length > 0 && r.path.every((l) => l !== '') &&
      path.every((l, i) => r.path[i] === l) && r.path.length >= path.length && words.every((w) => r.search_name.includes(w)),
  );
  const counts = new Map<string, number>();
  for (const r of under) if (r.path.length > path.length) counts.set(r.path[path.length], (counts.get(r.path[path.length]) ?? 0) + 1);
  const categories = [...counts].map(([label, listings]) => ({ label, listings })).sort((a, b) => b.listings - a.listings || cmp(a.label, b.label));
  const ordered = [...under].sort((a, b) => cmp(a.name.toLowerCase(), b.name.toLowerCase()) || a.id - b.id).map((r) => r.id);
  return { total: under.length, categories, ids: ordered };
}

/** The URL of a browse. */
function url(retailer: string, path: string[], extra: Record<string, string | number> = {}): string {
  const qs = [...path.map((l) => `c=${encodeURIComponent(l)}`), ...Object.entries(extra).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)];
  return `/api/v1/retailers/${retailer}/browse${qs.length ? `?${qs.join('&')}` : ''}`;
}

/** GETs a browse, expects a 200 and returns the body. */
async function browse(retailer: string, path: string[], extra: Record<string, string | number> = {}): Promise<Json> {
  const r = await get(url(retailer, path, extra), 'browse_retailer');
  expect(r.status, `${url(retailer, path, extra)}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body;
}

/** Builds the view as the worker does (in a transaction). */
const build = () => inTransaction(db.pool, (client) => buildRetailerCategories(client));

/** Every node path of the generated tree (the top included). */
function nodes(): string[][] {
  const out: string[][] = [[]];
  for (const [a, bs] of Object.entries(TREE)) {
    out.push([a]);
    for (const [b, cs] of Object.entries(bs)) {
      out.push([a, b]);
      for (const c of cs) out.push([a, b, c]);
    }
  }
  return out;
}

beforeAll(async () => {
  db = await createTestDatabase('retailer_browse');
  app = await createServer({ db, env, rateLimit: { perMinute: 1_000_000, perDay: 10_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
  const rnd = prng(174);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const paths = nodes().filter((p) => p.length > 0);
  const values: { retailer: string; key: string; name: string; brand: string | null; path: string[]; available: boolean }[] = [];
  for (let i = 0; i < 420; i++) {
    const retailer = i % 3 === 2 ? 'paknsave' : 'woolworths';
    // Mostly leaves and inner nodes; some without a path, some with an empty label, some unavailable.
    const path = i % 29 === 0 ? [] : i % 31 === 0 ? ['Pantry', ''] : pick(paths);
    const name = `${pick(WORDS)} ${pick(WORDS).toLowerCase()} item ${String(i % 50).padStart(2, '0')}`;
    values.push({ retailer, key: `B${i}`, name, brand: pick(BRANDS), path, available: i % 7 !== 3 });
  }
  // A category only unavailable listings are in (→ 404), and duplicate names (ordered by id).
  values.push({ retailer: 'woolworths', key: 'gone1', name: 'Old thing', brand: null, path: ['Discontinued', 'Gone'], available: false });
  for (let k = 0; k < 3; k++) values.push({ retailer: 'woolworths', key: `dup${k}`, name: 'Same Name', brand: null, path: ['Pantry', 'Canned Foods & Packets', 'Tomatoes'], available: true });
  const r = await db.pool.query<Row>(
    `INSERT INTO listing (retailer_id, external_id, name, brand, category_path, available, first_seen)
     SELECT r.id, v.key, v.name, v.brand, ARRAY(SELECT jsonb_array_elements_text(v.path)), v.available, '2025-01-01'
     FROM jsonb_to_recordset($1::jsonb) AS v(retailer text, key text, name text, brand text, path jsonb, available boolean)
     JOIN retailer r ON r.slug = v.retailer
     RETURNING id, (SELECT slug FROM retailer WHERE id = retailer_id) AS retailer, name, brand, category_path AS path, available, search_name`,
    [JSON.stringify(values)],
  );
  rows = r.rows;
  await build();
}, 120_000);

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('browse_retailer: the tree', () => {
  it('the top of the tree: the top-level categories biggest first with counts = brute force, total, the first page', async () => {
    const body = await browse('woolworths', []);
    expectShape(body, RETAILER_BROWSE, 'RetailerBrowse');
    expectShape(body.retailer, RETAILER, 'Retailer');
    for (const c of body.categories) expectShape(c, CATEGORY_NODE, 'CategoryNode');
    for (const l of body.listings) expectShape(l, LISTING_CARD, 'ListingCard');
    const want = brute('woolworths', []);
    expect(body).toMatchObject({ path: [], total: want.total, limit: 60, offset: 0, q: '', categories: want.categories });
    expect(body.retailer.slug).toBe('woolworths');
    expect(body.listings.map((l: Json) => l.id)).toEqual(want.ids.slice(0, 60));
    expect(body.categories.map((c: Json) => c.label)).not.toContain('Discontinued');
    expect(body.total).toBeGreaterThan(150);
  });

  it('walks every node of both chains at every depth (labels with /, , and & via repeated c): counts, total and page = brute force', async () => {
    let walked = 0;
    for (const retailer of ['woolworths', 'paknsave']) {
      for (const path of nodes()) {
        const want = brute(retailer, path);
        if (want.total === 0) {
          expect((await get(url(retailer, path))).status, JSON.stringify(path)).toBe(404);
          continue;
        }
        const body = await browse(retailer, path, { limit: 120 });
        expect(body.path).toEqual(path);
        expect(body.total, JSON.stringify(path)).toBe(want.total);
        expect(body.categories, JSON.stringify(path)).toEqual(want.categories);
        expect(body.listings.map((l: Json) => l.id)).toEqual(want.ids.slice(0, 120));
        for (const l of body.listings) expect(l.retailer).toBe(retailer);
        // A node's count is its listings at and below it: the children never exceed it.
        expect(body.categories.reduce((s: number, c: Json) => s + c.listings, 0)).toBeLessThanOrEqual(body.total);
        walked++;
      }
    }
    expect(walked).toBeGreaterThan(30);
    // The labels with separators really were asked for, as single levels.
    const tricky = await browse('woolworths', ['Fruit & Vegetables', 'Apples/Pears', 'Gala, Braeburn']);
    expect(tricky.path).toEqual(['Fruit & Vegetables', 'Apples/Pears', 'Gala, Braeburn']);
    expect(tricky.total).toBeGreaterThan(0);
    expect(tricky.categories).toEqual([]);
  });

  it('an inner node holds listings of its own besides its children (at and below)', async () => {
    const own = rows.filter((r) => r.retailer === 'woolworths' && r.available && r.path.length === 2 && r.path[0] === 'Fruit & Vegetables' && r.path[1] === 'Apples/Pears');
    expect(own.length).toBeGreaterThan(0);
    const body = await browse('woolworths', ['Fruit & Vegetables', 'Apples/Pears']);
    expect(body.total).toBe(body.categories.reduce((s: number, c: Json) => s + c.listings, 0) + own.length);
  });

  it('orders the page by lower-cased name, then id (same names by id)', async () => {
    const body = await browse('woolworths', ['Pantry', 'Canned Foods & Packets', 'Tomatoes'], { q: 'same name' });
    const dups = rows.filter((r) => r.name === 'Same Name').map((r) => r.id).sort((a, b) => a - b);
    expect(body.listings.map((l: Json) => l.id)).toEqual(dups);
    expect(body.total).toBe(3);
  });
});

describe('browse_retailer: q', () => {
  it('filters counts, categories and page alike (every word, case-insensitive, normalised) = brute force, at several depths', async () => {
    const queries = ['milk', 'ANCHOR', 'crushed tomato', 'watties', "Wattie's sauce", 'gala', '  fresh  ', 'item 07', 'beef sweet', '%', '_'];
    for (const q of queries) {
      for (const path of [[], ['Pantry'], ['Fruit & Vegetables', 'Apples/Pears'], ['Meat, Poultry & Seafood', 'Beef & Veal', 'Mince']]) {
        const want = brute('woolworths', path, q);
        const body = await browse('woolworths', path, { q, limit: 120 });
        expect(body.q).toBe(q.trim());
        expect(body.total, `${q} ${JSON.stringify(path)}`).toBe(want.total);
        expect(body.categories, `${q} ${JSON.stringify(path)}`).toEqual(want.categories);
        expect(body.listings.map((l: Json) => l.id)).toEqual(want.ids.slice(0, 120));
      }
    }
    expect(brute('woolworths', [], 'milk').total).toBeGreaterThan(10);
    expect(brute('woolworths', [], 'milk').total).toBeLessThan(brute('woolworths', []).total);
  });

  it('a q without matches in an existing category is a 200 with total 0; q is echoed, "" without one', async () => {
    const body = await browse('woolworths', ['Pantry'], { q: 'zzzznothing' });
    expect(body).toMatchObject({ total: 0, categories: [], listings: [], q: 'zzzznothing', path: ['Pantry'] });
    expect((await browse('woolworths', ['Pantry'], { q: '' })).q).toBe('');
    expect((await browse('woolworths', ['Pantry'])).q).toBe('');
  });
});

describe('browse_retailer: paging', () => {
  it('pages with limit and offset cover the node in order; an offset past the end is an empty page with the true total', async () => {
    for (const [path, q] of [[[], ''], [['Fruit & Vegetables'], ''], [['Pantry'], 'item']] as [string[], string][]) {
      const want = brute('woolworths', path, q);
      const seen: number[] = [];
      for (let offset = 0; offset < want.total; offset += 7) {
        const body = await browse('woolworths', path, { limit: 7, offset, ...(q ? { q } : {}) });
        expect(body).toMatchObject({ limit: 7, offset, total: want.total });
        seen.push(...body.listings.map((l: Json) => l.id));
      }
      expect(seen).toEqual(want.ids);
      const past = await browse('woolworths', path, { offset: want.total + 5, ...(q ? { q } : {}) });
      expect(past).toMatchObject({ listings: [], total: want.total, categories: want.categories });
    }
  });
});

describe('browse_retailer: errors', () => {
  it('400 for limit outside 1 to 120, a bad offset, q over 100 characters, an empty label among several, a long label, 11 levels, a repeated limit', async () => {
    await expect400(url('woolworths', [], { limit: 0 }), /"limit".*at least 1/);
    await expect400(url('woolworths', [], { limit: 121 }), /"limit".*at most 120/);
    await expect400(url('woolworths', [], { limit: 'abc' }), /"limit"/);
    await expect400(url('woolworths', [], { offset: -1 }), /"offset"/);
    await expect400(url('woolworths', [], { q: 'x'.repeat(101) }), /"q".*at most 100/);
    await expect400(url('woolworths', ['Pantry', '']), /"c".*empty/);
    await expect400(url('woolworths', ['x'.repeat(201)]), /"c".*200/);
    await expect400(url('woolworths', Array.from({ length: 11 }, (_, i) => `L${i}`)), /"c".*10 levels/);
    await expect400(`${url('woolworths', ['Pantry'])}&limit=1&limit=2`, /"limit".*once/);
    // A single empty c is absent: the top.
    expect((await browse('woolworths', [''])).path).toEqual([]);
    // Exactly 100 characters of q is fine.
    expect((await browse('woolworths', [], { q: 'y'.repeat(100) })).total).toBe(0);
  });

  it('404 for an unknown retailer slug and for a category holding nothing (whatever q is)', async () => {
    const notFound = async (u: string, pattern: RegExp) => {
      const r = await get(u);
      expect(r.status, u).toBe(404);
      expectError(r.body, 404);
      expect(r.body.error.message).toMatch(pattern);
    };
    await notFound(url('nosuchchain', []), /retailer/i);
    await notFound(url('nosuchchain', ['Pantry']), /retailer/i);
    await notFound(url('woolworths', ['Nowhere']), /category/);
    await notFound(url('woolworths', ['Nowhere'], { q: 'milk' }), /category/);
    // Labels are exact: a prefix, another case, a level too deep or in the wrong place hold nothing.
    await notFound(url('woolworths', ['Fruit']), /category/);
    await notFound(url('woolworths', ['pantry']), /category/);
    await notFound(url('woolworths', ['Pantry', 'Canned Foods & Packets', 'Tomatoes', 'Deeper']), /category/);
    await notFound(url('woolworths', ['Apples/Pears']), /category/);
    // Only unavailable listings, or only a path with an empty label: nothing counted.
    await notFound(url('woolworths', ['Discontinued']), /category/);
    // The other chain's category.
    const onlyPak = nodes().find((p) => p.length > 0 && brute('paknsave', p).total > 0 && brute('woolworths', p).total === 0);
    if (onlyPak) await notFound(url('woolworths', onlyPak), /category/);
    // The top of a chain with nothing categorised is an empty 200.
    expect(await browse('freshchoice', [])).toMatchObject({ total: 0, categories: [], listings: [], path: [] });
  });
});

describe('browse_retailer: facades', () => {
  /** Calls an MCP tool (2026-07-28) and returns its result. */
  const mcp = (name: string, args: Json): Promise<Json> => mcpToolCall(app, name, args);

  /** Runs the persisted document through /graphql and shapes it as the REST facade does. */
  async function graphql(input: Record<string, unknown>): Promise<Json> {
    const op = operations.find((o) => o.name === 'browse_retailer')!;
    const params = op.params.parse(input);
    const r = await app.inject({ method: 'POST', url: '/graphql', payload: { query: documentText('browse_retailer'), variables: op.variables(params), operationName: 'browse_retailer' } });
    const body = r.json();
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return op.shape(body.data, params) as Json;
  }

  it('REST = GraphQL = MCP, at the top, deep with separators in labels, and with q and paging', async () => {
    const cases: { path: string[]; extra: Record<string, string | number> }[] = [
      { path: [], extra: {} },
      { path: ['Fruit & Vegetables', 'Apples/Pears', 'Gala, Braeburn'], extra: {} },
      { path: ['Pantry'], extra: { q: 'tomato', limit: 5, offset: 2 } },
    ];
    for (const { path, extra } of cases) {
      const rest = await browse('woolworths', path, extra);
      const args = { slug: 'woolworths', ...(path.length ? { c: path } : {}), ...extra };
      expect(await graphql({ slug: 'woolworths', ...(path.length ? { c: path } : {}), ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, String(v)])) })).toEqual(rest);
      const tool = await mcp('browse_retailer', args);
      expect(tool.isError ?? false).toBe(false);
      expect(tool.structuredContent).toEqual(rest);
    }
    // One level as a plain string (MCP) is a path of one level.
    expect((await mcp('browse_retailer', { slug: 'woolworths', c: 'Pantry' })).structuredContent).toEqual(await browse('woolworths', ['Pantry']));
    const missing = await mcp('browse_retailer', { slug: 'woolworths', c: ['Nowhere'] });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent.error.status).toBe(404);
    const bad = await mcp('browse_retailer', { slug: 'woolworths', limit: 500 });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent.error.status).toBe(400);
  });

  it('GraphQL: retailerBrowse with its retailer, categories and listings with prices in one request; errors carry their codes', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ retailerBrowse(slug: "woolworths", c: ["Pantry"], limit: 3) { retailer { slug listingCount } path total categories { label listings } listings { id name available current { price } } } }' },
    });
    const body = r.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.retailerBrowse).toMatchObject({ retailer: { slug: 'woolworths' }, path: ['Pantry'], total: brute('woolworths', ['Pantry']).total });
    expect(body.data.retailerBrowse.listings).toHaveLength(3);
    const errors = async (query: string) => (await app.inject({ method: 'POST', url: '/graphql', payload: { query } })).json().errors;
    expect((await errors('{ retailerBrowse(slug: "nosuch") { total } }'))[0].extensions.code).toBe('NOT_FOUND');
    expect((await errors('{ retailerBrowse(slug: "woolworths", c: ["Nowhere"]) { total } }'))[0].extensions.code).toBe('NOT_FOUND');
    expect((await errors('{ retailerBrowse(slug: "woolworths", limit: 121) { total } }'))[0].extensions.code).toBe('BAD_REQUEST');
    expect((await errors('{ retailerBrowse(slug: "woolworths", offset: -1) { total } }'))[0].extensions.code).toBe('BAD_REQUEST');
    expect((await errors('{ retailerBrowse(slug: "woolworths", c: ["Pantry", ""]) { total } }'))[0].extensions.code).toBe('BAD_REQUEST');
  });
});

describe('the categories view', () => {
  it('a rebuild with nothing changed writes nothing; changes (availability, path, name, new listings) follow', async () => {
    const again = await build();
    expect(again).toMatchObject({ nodesWritten: 0, nodesDeleted: 0, membershipsWritten: 0, membershipsDeleted: 0 });
    expect(again.listings).toBe(rows.filter((r) => r.available && r.path.length > 0 && r.path.every((l) => l !== '')).length);
    const target = rows.find((r) => r.retailer === 'woolworths' && r.available && r.path.length === 3)!;
    const other = rows.find((r) => r.retailer === 'woolworths' && r.available && r.path[0] === 'Health & Body')!;
    await db.pool.query(`UPDATE listing SET available = false WHERE id = $1`, [target.id]);
    await db.pool.query(`UPDATE listing SET category_path = ARRAY['New / Shelf', 'A, B & C'], name = 'aaa first' WHERE id = $1`, [other.id]);
    target.available = false;
    other.path = ['New / Shelf', 'A, B & C'];
    other.name = 'aaa first';
    const changed = await build();
    expect(changed.nodesWritten + changed.membershipsWritten + changed.membershipsDeleted).toBeGreaterThan(0);
    for (const path of [[], target.path, target.path.slice(0, 1), ['New / Shelf'], ['New / Shelf', 'A, B & C']]) {
      const want = brute('woolworths', path);
      const body = await browse('woolworths', path, { limit: 120 });
      expect(body.total).toBe(want.total);
      expect(body.categories).toEqual(want.categories);
      expect(body.listings.map((l: Json) => l.id)).toEqual(want.ids.slice(0, 120));
    }
    expect((await browse('woolworths', [])).listings[0].id).toBe(other.id);
  });

  it('is a view of the derived-views worker: runViews builds it and stamps view_run', async () => {
    const report = await runViews(db.pool, { full: true });
    expect(report.views.categories?.built).toBe(true);
    const { rows: run } = await db.pool.query(`SELECT name FROM view_run WHERE name = 'categories'`);
    expect(run).toHaveLength(1);
    const again = await runViews(db.pool);
    expect(again.views.categories).toMatchObject({ built: false });
  });
});
