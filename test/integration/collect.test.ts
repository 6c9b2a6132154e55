/**
 * The collection runner and the Woolworths collector against a local replay server of recorded
 * shapes (test/fixtures/collect/woolworths/, README there), into a real PostgreSQL: the live code
 * path, only the origin differs. Faults replayed: a 429 with Retry-After, a 500, a timeout, a
 * malformed page, a store with no products. Asserts exactly what lands in the database, that a
 * second run of the same day changes nothing (and requests nothing), and that a run interrupted
 * after N stores resumes to the same result as an uninterrupted run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { startReplayServer, type ReplayRoute, type ReplayServer } from '../helpers/replay-server.js';
import { runCollect, CollectAborted, CollectError, type CollectConfig, type CollectReport } from '../../workers/collect/run.js';
import { woolworths, sessionFulfilmentStore } from '../../workers/collect/woolworths.js';
import { backoffMs, retryAfterMs } from '../../workers/collect/http.js';

const FIX = new URL('../fixtures/collect/woolworths/', import.meta.url).pathname;
const DAY = '2026-08-10';
const TODAY = '2026-08-11';

/** Real Woolworths stores (Blim3202 woolworths_stores.csv): pickup-address id, name, fulfilment store of the fixtures. */
const STORES = [
  { id: '1225718', name: 'Woolworths Northlands', f: 9441 },
  { id: '3496448', name: 'Woolworths Alexandra', f: 9584 },
  { id: '2810973', name: 'Woolworths Andersons Bay', f: 9446 },
];

const products = (f: number, dept: string, page: number) => ({ path: '/api/v1/products', query: { target: 'browse', dasFilter: `Department;;${dept};false`, page: String(page), size: '120' }, headers: { cookie: `f-${f}` } });

/** The replay table: every store's pages, with the faults of the module comment. */
function routes(): ReplayRoute[] {
  return [
    ...STORES.map((s) => ({
      method: 'PUT', path: '/api/v1/fulfilment/my/pickup-addresses', body: `"addressId":${s.id}`, headers: { 'x-requested-with': 'OnlineShopping.WebApp' },
      respond: { file: `select-store-${s.id}.json`, headers: { 'set-cookie': [`cw-lrkswrdjp=dm-Pickup,f-${s.f},a-1002,s-38; path=/`, 'ASP.NET_SessionId=replay; path=/; HttpOnly'] } },
    })),
    { path: '/api/v1/products/departments', headers: { 'x-requested-with': 'OnlineShopping.WebApp' }, respond: { file: 'departments.json' } },
    // Store A (Northlands): a 429 with Retry-After before its first page, a 500 before its fridge page.
    { ...products(9441, 'fruit-veg', 1), times: 1, respond: { status: 429, headers: { 'retry-after': '1' }, body: { message: 'Too many requests' } } },
    { ...products(9441, 'fruit-veg', 1), respond: { file: '9441-fruit-veg-p1.json' } },
    { ...products(9441, 'fruit-veg', 2), respond: { file: '9441-fruit-veg-p2.json' } },
    { ...products(9441, 'fridge-deli', 1), times: 1, respond: { status: 500, body: 'upstream error' } },
    { ...products(9441, 'fridge-deli', 1), respond: { file: '9441-fridge-deli-p1.json' } },
    // Store B (Alexandra): a malformed page 2, a timeout before its fridge page.
    { ...products(9584, 'fruit-veg', 1), respond: { file: '9584-fruit-veg-p1.json' } },
    { ...products(9584, 'fruit-veg', 2), respond: { file: '9584-fruit-veg-p2-malformed.json' } },
    { ...products(9584, 'fruit-veg', 3), respond: { file: '9584-fruit-veg-p3.json' } },
    { ...products(9584, 'fridge-deli', 1), times: 1, respond: { file: '9584-fridge-deli-p1.json', delayMs: 1_500 } },
    { ...products(9584, 'fridge-deli', 1), respond: { file: '9584-fridge-deli-p1.json' } },
    // Store C (Andersons Bay): no products.
    { ...products(9446, 'fruit-veg', 1), respond: { file: '9446-fruit-veg-p1.json' } },
    { ...products(9446, 'fridge-deli', 1), respond: { file: '9446-fridge-deli-p1.json' } },
  ];
}

function config(spoolDir: string, over: Partial<CollectConfig> = {}): CollectConfig {
  return {
    contactUrl: 'https://example.org/nz-grocery-prices', concurrency: 2, ratePerSecond: 50, timeoutMs: 300, retries: 2,
    retryBaseMs: 5, retryMaxMs: 40, spoolDir, origins: {}, ...over,
  };
}

async function insertStores(db: TestDatabase): Promise<void> {
  for (const s of STORES) {
    await db.pool.query(
      `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area) SELECT id, $1, $2, -43.5, 172.6, 'Christchurch', 'Canterbury'
       FROM retailer WHERE slug = 'woolworths'`, [s.id, s.name],
    );
  }
}

/** Everything a collection writes, ids replaced by natural keys (comparable across databases). */
async function dump(db: TestDatabase): Promise<Record<string, unknown[]>> {
  const q = async (sql: string) => (await db.pool.query(sql)).rows;
  return {
    listings: await q(`SELECT external_id, name, brand, size_text, gtin::text, category_path, image, image_url, retailer_url, available, first_seen
      FROM listing ORDER BY external_id`),
    spans: await q(`SELECT l.external_id, s.external_id AS store, sp.first_day, sp.last_day, sp.price, sp.promo_price, sp.promo_kind,
      sp.multibuy_qty, sp.multibuy_price FROM store_price_span sp JOIN listing l ON l.id = sp.listing_id JOIN store s ON s.id = sp.store_id
      ORDER BY 2, 1, 3`),
    national: await q(`SELECT l.external_id, n.first_day, n.last_day, n.price, n.promo_price, n.promo_kind, n.multibuy_qty, n.multibuy_price
      FROM national_price_span n JOIN listing l ON l.id = n.listing_id ORDER BY 1, 2`),
    collections: await q(`SELECT s.external_id AS store, c.day, c.mode, c.rows FROM collection c LEFT JOIN store s ON s.id = c.store_id ORDER BY 1 NULLS FIRST`),
    stores: await q('SELECT external_id, last_day FROM store ORDER BY 1'),
  };
}

describe('collecting Woolworths through the replay server', () => {
  let db: TestDatabase;
  let server: ReplayServer;
  let spool: string;
  let first: CollectReport;
  const logs: string[] = [];
  beforeAll(async () => {
    db = await createTestDatabase('collect');
    await insertStores(db);
    server = await startReplayServer(routes(), FIX);
    spool = fs.mkdtempSync(path.join(os.tmpdir(), 'collect-'));
    first = await runCollect(db.pool, {
      retailers: ['woolworths'], origin: server.origin, day: DAY, today: TODAY, config: config(spool), progress: false, log: (l) => logs.push(l),
    });
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    if (spool) fs.rmSync(spool, { recursive: true, force: true });
  });

  it('collects every store, retrying the 429 (after its Retry-After), the 500 and the timeout, skipping the malformed page', () => {
    const [ch] = first.chains;
    expect(ch).toMatchObject({ retailer: 'woolworths', status: 'finished', scopes: 3, collected: 3, resumed: 0, failed: [], mode: 'partial' });
    // A: select, departments, fruit-veg 1 (429, then 200), 2, fridge-deli 1 (500, then 200); B: select, departments,
    // fruit-veg 1, 2 (malformed), 3, fridge-deli 1 (timeout, then 200); C: select, departments, 2 empty pages.
    expect(ch.pages).toBe(4 + 5 + 3);
    expect(ch.requests).toEqual({ attempts: 7 + 7 + 4, retries: 3 });
    expect(ch.malformed).toEqual([{ scope: '3496448', url: expect.stringContaining('page=2'), error: 'the body is not JSON' }]);
    expect(logs.some((l) => /malformed page skipped: GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/products\?.*page=2/.test(l))).toBe(true);
    expect(logs.some((l) => /retry 1\/2 .* in 40 ms: HTTP 429 \(Retry-After 1000 ms\)/.test(l))).toBe(true);
    expect(logs.some((l) => /HTTP 500/.test(l))).toBe(true);
    expect(logs.some((l) => /timed out after 300 ms/.test(l))).toBe(true);
    expect(server.unmatched).toEqual([]);
    // Every request identifies the project and carries the API's header; pages carry the store's cookie.
    for (const r of server.requests) {
      expect(r.headers['user-agent']).toMatch(/^nz-grocery-prices\/\d+\.\d+\.\d+ \(price collector; \+https:\/\/example\.org\/nz-grocery-prices\)$/);
      expect(r.headers['x-requested-with']).toBe('OnlineShopping.WebApp');
    }
    const page = server.requests.find((r) => r.query.dasFilter === 'Department;;fruit-veg;false' && r.headers.cookie?.includes('f-9441'));
    expect(page?.headers.cookie).toBe('cw-lrkswrdjp=dm-Pickup,f-9441,a-1002,s-38; ASP.NET_SessionId=replay');
  });

  // `image` stays null until workers/images converts `image_url` (the retailer's URL, the page's images.big).
  it('writes exactly the listings, spans, promotions, multibuys, categories and image URLs of the pages', async () => {
    const d = await dump(db);
    const img = (sku: string) => `https://assets.woolworths.com.au/images/2010/${sku}.jpg?impolicy=wowcdxwbjbx&w=200&h=200`;
    const url = (sku: string) => `https://www.woolworths.co.nz/shop/productdetails?stockcode=${sku}`;
    const L = (external_id: string, name: string, brand: string, size_text: string | null, gtin: string | null, dept: string) => ({
      external_id, name, brand, size_text, gtin, category_path: [dept], image: null, image_url: img(external_id), retailer_url: url(external_id), available: true, first_seen: DAY,
    });
    expect(d.listings).toEqual([
      L('133211', 'fresh fruit bananas yellow loose', 'fresh fruit', 'per kg', '9354829000064', 'Fruit & Veg'),
      L('281082', 'fresh vegetable broccoli head', 'fresh vegetable', null, '9414742350858', 'Fruit & Veg'),
      L('281455', 'fresh vegetable cucumbers telegraph', 'fresh vegetable', null, null, 'Fruit & Veg'),
      L('314075', 'fresh fruit mandarins afourer loose', 'fresh fruit', 'per kg', '9351087001253', 'Fridge & Deli'),
      L('407232', 'anchor uno yoghurt pouch strawberry', 'anchor uno', '100g', '9414967027948', 'Fridge & Deli'),
      L('497396', 'fresh vegetable potatoes inca gold', 'fresh vegetable', '1kg', '9414316400408', 'Fruit & Veg'),
      L('644247', 'fresh fruit bananas snack pack', 'fresh fruit', '6pack', '5099368909242', 'Fruit & Veg'),
      L('918134', 'fresh fruit apples cosmic crisp', 'fresh fruit', 'per kg', '9369999620028', 'Fruit & Veg'),
    ]);
    const S = (external_id: string, store: string, price: number, promo_price: number | null = null, promo_kind: number | null = null, multibuy_qty: number | null = null, multibuy_price: number | null = null) => ({
      external_id, store, first_day: DAY, last_day: null, price, promo_price, promo_kind, multibuy_qty, multibuy_price,
    });
    expect(d.spans).toEqual([
      // Northlands: shelf prices, a special (Other tag, lower sale), a club price, an IsSpecial, a 4-for-$8 multibuy.
      S('133211', '1225718', 399),
      S('281082', '1225718', 300, 199, 1),
      S('281455', '1225718', 595),
      S('314075', '1225718', 645, 595, 1),
      S('407232', '1225718', 245, 200, 3, 4, 800),
      S('497396', '1225718', 550, 490, 2),
      S('644247', '1225718', 445),
      S('918134', '1225718', 699, 550, 1),
      // Alexandra: its own prices; page 2 was malformed (skipped), page 3 followed; 3-for-$6.
      S('133211', '3496448', 429, 399, 1),
      S('281082', '3496448', 300, 199, 1),
      S('407232', '3496448', 245, 200, 3, 3, 600),
      S('644247', '3496448', 465),
    ]);
    expect(d.collections).toEqual([
      { store: null, day: DAY, mode: 'partial', rows: 12 },
      { store: '1225718', day: DAY, mode: 'partial', rows: 8 },
      { store: '3496448', day: DAY, mode: 'partial', rows: 4 },
    ]);
    // Andersons Bay listed no products: collected, nothing ingested for it.
    expect(d.stores).toEqual([{ external_id: '1225718', last_day: DAY }, { external_id: '2810973', last_day: null }, { external_id: '3496448', last_day: DAY }]);
    expect(d.national).toContainEqual({ external_id: '644247', first_day: DAY, last_day: null, price: 455, promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null });
  });

  it('keeps a run log and per-store checkpoints, sets retailer.last_run and removes the spool', async () => {
    const run = await db.pool.query(`SELECT status, scopes, collected, resumed, failed, pages, rows, errors, mode, error, finished_at IS NOT NULL AS ended FROM collect_run`);
    expect(run.rows).toEqual([{ status: 'finished', scopes: 3, collected: 3, resumed: 0, failed: 0, pages: 12, rows: 12, errors: 1, mode: 'partial', error: null, ended: true }]);
    const cp = await db.pool.query(`SELECT scope, status, pages, rows, errors FROM collect_checkpoint ORDER BY scope`);
    expect(cp.rows).toEqual([
      { scope: '1225718', status: 'done', pages: 4, rows: 8, errors: 0 },
      { scope: '2810973', status: 'done', pages: 3, rows: 0, errors: 0 },
      { scope: '3496448', status: 'done', pages: 5, rows: 4, errors: 1 },
    ]);
    // last_run is when the prices were observed (issue 26), not when the run ended: this run is
    // back-dated (DAY before TODAY), so the start of DAY in New Zealand (NZST, UTC+12).
    const r = await db.pool.query(`SELECT r.last_run FROM retailer r WHERE r.slug = 'woolworths'`);
    expect(r.rows[0].last_run.toISOString()).toBe('2026-08-09T12:00:00.000Z');
    expect(fs.existsSync(path.join(spool, 'woolworths', DAY))).toBe(false);
  });

  it('changes nothing and requests nothing when the same day runs again', async () => {
    const before = await dump(db);
    const n = server.requests.length;
    const again = await runCollect(db.pool, { retailers: 'all', collectors: [woolworths], origin: server.origin, day: DAY, today: TODAY, config: config(spool), progress: false, log: () => {} });
    expect(again.chains[0]).toMatchObject({ status: 'already-ingested', pages: 0 });
    expect(again.ingested).toBe(false);
    expect(server.requests.length).toBe(n);
    expect(await dump(db)).toEqual(before);
  });

  it('refuses bad arguments before any request', async () => {
    const n = server.requests.length;
    const run = (o: Partial<Parameters<typeof runCollect>[1]>) =>
      runCollect(db.pool, { retailers: ['woolworths'], origin: server.origin, day: TODAY, today: TODAY, config: config(spool), progress: false, log: () => {}, ...o });
    await expect(run({ retailers: ['nosuch'] })).rejects.toThrow(/no collector for "nosuch"/);
    await expect(run({ day: '2026-08-12' })).rejects.toThrow(/after today/);
    await expect(run({ day: '2026-08-09' })).rejects.toThrow(/not after its last ingested day 2026-08-10/);
    await expect(run({ stores: [999999] })).rejects.toThrow(CollectError);
    await expect(run({ origin: 'https://www.woolworths.co.nz', config: config(spool, { contactUrl: null }) })).rejects.toThrow(/COLLECT_CONTACT_URL/);
    expect(server.requests.length).toBe(n);
  });
});

describe('an interrupted run resumes where it stopped', () => {
  let a: TestDatabase;
  let b: TestDatabase;
  const dirs: string[] = [];
  const servers: ReplayServer[] = [];
  beforeAll(async () => {
    [a, b] = await Promise.all([createTestDatabase('collect_resume_a'), createTestDatabase('collect_resume_b')]);
    await insertStores(a);
    await insertStores(b);
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await a?.drop();
    await b?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('skips the stores a killed run finished and ends equal to an uninterrupted run', async () => {
    const opts = async () => {
      const server = await startReplayServer(routes(), FIX);
      servers.push(server);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'collect-'));
      dirs.push(dir);
      return { server, base: { retailers: ['woolworths'], origin: server.origin, day: DAY, today: TODAY, config: config(dir, { concurrency: 1 }), progress: false, log: () => {} } as const };
    };
    // Uninterrupted run into database b.
    const whole = await opts();
    await runCollect(b.pool, whole.base);

    // Run into database a, stopped once the first store is spooled (as a kill would: nothing ingested).
    const cut = await opts();
    const ac = new AbortController();
    const err = await runCollect(a.pool, { ...cut.base, signal: ac.signal, onScopeDone: () => ac.abort() }).catch((e) => e);
    expect(err).toBeInstanceOf(CollectAborted);
    expect((await a.pool.query('SELECT count(*)::int AS n FROM store_price_span')).rows[0].n).toBe(0);
    const cp = await a.pool.query(`SELECT scope, status FROM collect_checkpoint ORDER BY scope`);
    expect(cp.rows).toEqual([{ scope: '1225718', status: 'done' }]);
    expect((await a.pool.query(`SELECT status FROM collect_run`)).rows).toEqual([{ status: 'aborted' }]);

    // The re-run does not ask for the finished store again.
    const seenBefore = cut.server.requests.length;
    const rerun = await runCollect(a.pool, cut.base);
    expect(rerun.chains[0]).toMatchObject({ status: 'finished', resumed: 1, collected: 2, mode: 'partial' });
    const after = cut.server.requests.slice(seenBefore);
    expect(after.some((r) => r.body.includes('1225718') || (r.headers.cookie ?? '').includes('f-9441'))).toBe(false);
    expect(await dump(a)).toEqual(await dump(b));
  });
});

describe('collector and client details', () => {
  it('reads Retry-After as seconds or a date, and backs off with jitter under the ceiling', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('Wed, 21 Oct 2026 07:28:05 GMT', Date.parse('Wed, 21 Oct 2026 07:28:00 GMT'))).toBe(5000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(backoffMs(0, 1000, 60_000, 120_000)).toBe(60_000);
    expect(backoffMs(3, 1000, 60_000, null, () => 0.5)).toBe(4000);
    expect(backoffMs(10, 1000, 60_000, null, () => 0.999)).toBe(59_940);
  });

  it('fails a store whose pages answer for another fulfilment store, and names the store cookie', () => {
    expect(sessionFulfilmentStore({ cookie: 'a=b; cw-lrkswrdjp=dm-Pickup,f-9584,a-1002,s-38' })).toBe(9584);
    expect(sessionFulfilmentStore({ cookie: 'cw-lrkswrdjp=f-9171' })).toBe(9171);
    expect(sessionFulfilmentStore({})).toBeNull();
    const body = JSON.parse(fs.readFileSync(`${FIX}9441-fruit-veg-p1.json`, 'utf8'));
    const req = { url: 'http://x/api/v1/products?target=browse&dasFilter=Department%3B%3Bfruit-veg%3Bfalse&page=1&size=120' };
    const ctx = { origin: 'http://x', day: DAY, store: '3496448', session: { cookie: 'cw-lrkswrdjp=f-9584' } };
    expect(() => woolworths.parsePage(body, req, ctx)).toThrow(/answered for fulfilment store 9441, not 9584/);
    const ok = woolworths.parsePage(body, req, { ...ctx, session: { cookie: 'cw-lrkswrdjp=f-9441' } });
    expect(ok.rows.map((r) => r.external_id)).toEqual(['644247', '133211', '281082']);
    expect(ok.next?.url).toContain('page=2');
  });
});
