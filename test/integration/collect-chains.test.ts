/**
 * `collect all` against a local replay server of the recorded shapes of PAK'nSAVE, New World, The
 * Warehouse, FreshChoice and SuperValue (test/fixtures/collect/<retailer>/, sources in each
 * README.md), into a real PostgreSQL: the collectors' live code path, only the origin differs.
 * Asserts what lands in the database for the Foodstuffs chains (shelf prices, public specials,
 * club prices, multibuys, categories, image URLs; an empty store; a 429 retried), for the three HTML
 * chains (The Warehouse's national prices; FreshChoice and SuperValue per store, their stores added
 * from the MyFoodLink store directory), and that a second run of the same day changes nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DATA_DIR, type TestDatabase } from '../helpers/db.js';
import { startReplayServer, type ReplayRoute, type ReplayServer } from '../helpers/replay-server.js';
import { runCollect, type CollectConfig, type CollectReport } from '../../workers/collect/run.js';

const FIX = new URL('../fixtures/collect/', import.meta.url).pathname;
const DAY = '2026-08-10';
const TODAY = '2026-08-11';
const PNS_BOTANY = '60561e46-ece7-43a7-b142-9b14812586e4';
const PNS_DUNEDIN = '90082979-fb9f-4305-9c72-83274fc438cc';
const NW_BOTANY = 'c387ac97-5e0a-43ed-9c93-f1edccda298d';
const HTML = { 'content-type': 'text/html; charset=utf-8' };

const read = (f: string) => JSON.parse(fs.readFileSync(path.join(FIX, f), 'utf8')) as { stores: unknown[] };
/** The request body of a Foodstuffs products page (our serialisation order). */
const page = (store: string, n: number) => `"storeId":"${store}","hitsPerPage":50,"page":${n},`;

function routes(): ReplayRoute[] {
  return [
    // Foodstuffs: both banners' APIs behind one replay origin; pages told apart by store id.
    { method: 'POST', path: '/api/user/get-current-user', respond: { file: 'paknsave/get-current-user.json' } },
    { path: '/v1/edge/store', headers: { authorization: 'Bearer fixture-token' }, respond: { body: { stores: [...read('paknsave/stores.json').stores, ...read('newworld/stores.json').stores] } } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(PNS_BOTANY, 0), respond: { file: 'paknsave/products-botany-page0.json' } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(PNS_BOTANY, 1), respond: { file: 'paknsave/products-botany-page1.json' } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(PNS_DUNEDIN, 0), respond: { file: 'paknsave/products-empty-store.json' } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(NW_BOTANY, 0), respond: { file: 'newworld/products-botany-page0.json' } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(NW_BOTANY, 1), times: 1, respond: { status: 429, headers: { 'retry-after': '0' }, body: { message: 'slow down' } } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(NW_BOTANY, 1), respond: { file: 'newworld/products-botany-page1.json' } },
    // The Warehouse: national grid.
    { path: '/search/updategrid', query: { start: '0' }, respond: { file: 'warehouse/grid-start0.html', headers: HTML } },
    { path: '/search/updategrid', query: { start: '32' }, respond: { file: 'warehouse/grid-start32.html', headers: HTML } },
    // MyFoodLink store directories and storefronts, under /<retailer>/… on the loopback origin.
    { path: '/freshchoice/api/v1/stores', respond: { file: 'freshchoice/stores.json' } },
    { path: '/supervalue/api/v1/stores', respond: { file: 'supervalue/stores.json' } },
    { path: '/freshchoice/hc/', respond: { file: 'freshchoice/home.html', headers: HTML } },
    { path: '/freshchoice/hc/category/meat', query: { page: '2' }, respond: { file: 'freshchoice/category-meat-page2.html', headers: HTML } },
    { path: '/freshchoice/hc/category/meat', respond: { file: 'freshchoice/category-meat-page1.html', headers: HTML } },
    { path: '/freshchoice/hc/category/fruit-vegetables', respond: { file: 'freshchoice/category-fruit-vegetables-page1.html', headers: HTML } },
    { path: '/supervalue/milton/', respond: { file: 'supervalue/home.html', headers: HTML } },
    { path: '/supervalue/milton/category/dairy-eggs', respond: { file: 'supervalue/category-dairy-eggs-page1.html', headers: HTML } },
  ];
}

function config(spoolDir: string): CollectConfig {
  return {
    contactUrl: 'https://example.org/nz-grocery-prices', concurrency: 2, ratePerSecond: 100, timeoutMs: 2_000, retries: 2,
    retryBaseMs: 5, retryMaxMs: 40, spoolDir, origins: {}, urbanCoresFile: path.join(DATA_DIR, 'l5--nz-cities/urban_cores.csv'),
  };
}

async function insertStores(db: TestDatabase): Promise<void> {
  const stores: Array<[string, string, string]> = [
    ['paknsave', PNS_BOTANY, "PAK'nSAVE Botany"],
    ['paknsave', PNS_DUNEDIN, "PAK'nSAVE Dunedin"],
    ['newworld', NW_BOTANY, 'New World Botany'],
  ];
  for (const [slug, id, name] of stores) {
    await db.pool.query(
      `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area) SELECT id, $2, $3, -36.9, 174.9, 'Auckland', 'Auckland'
       FROM retailer WHERE slug = $1`, [slug, id, name],
    );
  }
}

async function spans(db: TestDatabase): Promise<unknown[]> {
  return (await db.pool.query(`SELECT r.slug, s.external_id AS store, l.external_id, sp.first_day, sp.last_day, sp.price, sp.promo_price, sp.promo_kind,
      sp.multibuy_qty, sp.multibuy_price
    FROM store_price_span sp JOIN listing l ON l.id = sp.listing_id JOIN store s ON s.id = sp.store_id JOIN retailer r ON r.id = s.retailer_id
    ORDER BY 1, 2, 3`)).rows;
}

describe('collecting every chain but Woolworths through the replay server', () => {
  let db: TestDatabase;
  let server: ReplayServer;
  let spool: string;
  let first: CollectReport;
  const logs: string[] = [];
  beforeAll(async () => {
    db = await createTestDatabase('collect_chains');
    await insertStores(db);
    server = await startReplayServer(routes(), FIX);
    spool = fs.mkdtempSync(path.join(os.tmpdir(), 'collect-chains-'));
    first = await runCollect(db.pool, {
      retailers: 'all', origin: server.origin, day: DAY, today: TODAY, config: config(spool), progress: false, log: (l) => logs.push(l),
    });
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    if (spool) fs.rmSync(spool, { recursive: true, force: true });
  });

  it('collects both Foodstuffs banners: every store, the empty one too, retrying the 429', () => {
    const chain = (slug: string) => first.chains.find((c) => c.retailer === slug);
    expect(chain('paknsave')).toMatchObject({ status: 'finished', scopes: 2, collected: 2, failed: [], malformed: [] });
    expect(chain('newworld')).toMatchObject({ status: 'finished', scopes: 1, collected: 1, failed: [], malformed: [] });
    // Session (token, store list), then the pages, each with the store cookies and the bearer token.
    const pages = server.requests.filter((r) => r.path === '/v1/edge/search/paginated/products');
    expect(pages.length).toBe(2 + 1 + 3);
    for (const r of pages) {
      expect(r.headers.authorization).toBe('Bearer fixture-token-not-a-real-jwt.paknsave');
      expect(r.headers.cookie).toMatch(/^eCom_STORE_ID=[0-9a-f-]{36}; STORE_ID_V2=[0-9a-f-]{36}\|False; Region=(NI|SI)$/);
    }
    expect(pages.find((r) => r.body.includes(PNS_DUNEDIN))?.headers.cookie).toContain('Region=SI');
    expect(logs.some((l) => /HTTP 429/.test(l))).toBe(true);
  });

  it('writes exactly the shelf prices, specials, club prices and multibuys of the pages', async () => {
    const S = (slug: string, store: string, external_id: string, price: number, promo_price: number | null = null, promo_kind: number | null = null,
      multibuy_qty: number | null = null, multibuy_price: number | null = null) =>
      ({ slug, store, external_id, first_day: DAY, last_day: null, price, promo_price, promo_kind, multibuy_qty, multibuy_price });
    const foodstuffs = (await spans(db)).filter((r) => ['paknsave', 'newworld'].includes((r as { slug: string }).slug));
    expect(foodstuffs).toEqual([
      S('newworld', NW_BOTANY, '5002634-EA-000', 179),
      S('newworld', NW_BOTANY, '5039995-EA-000', 1259, 1129, 2),
      S('newworld', NW_BOTANY, '5046505-KGM-000', 199),
      S('newworld', NW_BOTANY, '5106653-KGM-000', 1999, 1999, 1),
      // Club "3 for $5": the ingest's single-unit price is 500 / 3, to the cent.
      S('newworld', NW_BOTANY, '5222222-EA-000', 249, 167, 3, 3, 500),
      S('newworld', NW_BOTANY, '5349090-EA-000', 949),
      S('paknsave', PNS_BOTANY, '5006239-EA-000', 449),
      S('paknsave', PNS_BOTANY, '5092718-EA-000', 89, 75, 3, 4, 300),
      S('paknsave', PNS_BOTANY, '5104350-KGM-000', 1899),
      S('paknsave', PNS_BOTANY, '5125914-KGM-000', 2399),
      S('paknsave', PNS_BOTANY, '5319769-EA-000', 99, 99, 1),
      S('paknsave', PNS_BOTANY, '5349090-EA-000', 899),
      S('paknsave', PNS_BOTANY, '5349244-EA-000', 555, 555, 1),
    ]);
    const listings = (await db.pool.query(`SELECT l.external_id, l.name, l.brand, l.size_text, l.category_path, l.image_url, l.retailer_url
      FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'newworld' AND l.external_id IN ('5039995-EA-000', '5046505-KGM-000') ORDER BY 1`)).rows;
    expect(listings).toEqual([
      { external_id: '5039995-EA-000', name: 'Free Range Size 7 Eggs', brand: 'Otaika Valley', size_text: '12pk', category_path: ['Fridge, Deli & Eggs', 'Eggs', 'Free Range Eggs'],
        image_url: 'https://a.fsimg.co.nz/product/retail/fan/image/400x400/5039995.png', retailer_url: `${server.origin}/shop/product/5039995_ea_000` },
      { external_id: '5046505-KGM-000', name: 'Carrots', brand: null, size_text: 'kg', category_path: ['Fruit & Vegetables', 'Vegetables', 'Carrots'],
        image_url: 'https://a.fsimg.co.nz/product/retail/fan/image/400x400/5046505.png', retailer_url: `${server.origin}/shop/product/5046505_kgm_000` },
    ]);
  });

  it('a second run of the same day changes nothing', async () => {
    const before = await spans(db);
    const requests = server.requests.length;
    const again = await runCollect(db.pool, {
      retailers: ['paknsave', 'newworld'], origin: server.origin, day: DAY, today: TODAY, config: config(spool), progress: false, log: () => {},
    });
    expect(again.chains.map((c) => c.status)).not.toContain('failed');
    expect(await spans(db)).toEqual(before);
    expect(server.requests.length).toBe(requests);
  });

  it('adds the MyFoodLink stores of the store directory, placed like imported stores; leaves out those without coordinates', async () => {
    const stores = (await db.pool.query(`SELECT r.slug, s.external_id, s.name, s.address, s.lat, s.lng, s.town, s.area, s.urban, s.active
      FROM store s JOIN retailer r ON r.id = s.retailer_id WHERE r.slug IN ('freshchoice', 'supervalue') ORDER BY 1, 2`)).rows;
    expect(stores).toEqual([
      { slug: 'freshchoice', external_id: 'hc', name: 'FreshChoice Hauraki Corner', address: '1 Hauraki Corner, Takapuna, Auckland 0622', lat: -36.7921, lng: 174.7712,
        town: 'Auckland', area: 'Auckland', urban: 'major', active: true },
      { slug: 'supervalue', external_id: 'milton', name: 'SuperValue Milton', address: '153 Union Street, Milton 9220', lat: -46.1207, lng: 169.9653,
        town: 'Rural Otago', area: 'Otago', urban: 'rural', active: true },
    ]);
    const chain = (slug: string) => first.chains.find((c) => c.retailer === slug)!;
    expect(chain('freshchoice').directory).toEqual({ listed: 2, inserted: 1, updated: 0, unchanged: 0, unplaced: ['roslyn'] });
    expect(chain('supervalue').directory).toEqual({ listed: 2, inserted: 1, updated: 0, unchanged: 0, unplaced: ['plaza'] });
    expect(logs).toContain('collect freshchoice: store directory: freshchoice store roslyn (FreshChoice Roslyn) has no coordinates in the directory; not added (add it with coordinates to collect it)');
    for (const slug of ['freshchoice', 'supervalue', 'warehouse']) {
      expect(chain(slug)).toMatchObject({ status: 'finished', scopes: 1, collected: 1, failed: [], malformed: [], mode: 'snapshot' });
    }
    expect(server.unmatched).toEqual([]);
  });

  it('writes exactly the per-store prices, specials and multibuys of FreshChoice and SuperValue', async () => {
    const S = (slug: string, store: string, external_id: string, price: number, promo_price: number | null = null, promo_kind: number | null = null,
      multibuy_qty: number | null = null, multibuy_price: number | null = null) =>
      ({ slug, store, external_id, first_day: DAY, last_day: null, price, promo_price, promo_kind, multibuy_qty, multibuy_price });
    const myfoodlink = (await spans(db)).filter((r) => ['freshchoice', 'supervalue'].includes((r as { slug: string }).slug));
    expect(myfoodlink).toEqual([
      // "was $5.40", sells at $4.00 (repeated on page 2: kept once).
      S('freshchoice', 'hc', '6a3e07caf83bb1e8db52653e', 540, 400, 1),
      S('freshchoice', 'hc', '6a3e0812f83bb1e8db527a11', 1049),
      // Sold per kg.
      S('freshchoice', 'hc', '6a3e095af83bb1e8db52e820', 4899),
      // "3 for $20.00": the ingest's single-unit price is 2000 / 3, to the cent.
      S('freshchoice', 'hc', '6a4c7bf8c779739eafd73016', 890, 667, 3, 3, 2000),
      S('supervalue', 'milton', '6a41c2d0c779739eafd51e02', 729),
      // Sticker "2 for $15".
      S('supervalue', 'milton', '6a41c2d0c779739eafd51f77', 849, 750, 3, 2, 1500),
      S('supervalue', 'milton', '6a41c2d0c779739eafd52a10', 1299, 1149, 1),
    ]);
    const listings = (await db.pool.query(`SELECT r.slug, l.external_id, l.name, l.brand, l.size_text, l.gtin::text, l.category_path, l.retailer_url
      FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug IN ('freshchoice', 'supervalue') ORDER BY 1, 2`)).rows;
    const L = (slug: string, external_id: string, name: string, size_text: string, category: string, line: string, brand: string | null = null, gtin: string | null = null) =>
      ({ slug, external_id, name, brand, size_text, gtin, category_path: [category], retailer_url: `${server.origin}/${slug}/${slug === 'freshchoice' ? 'hc' : 'milton'}/lines/${line}` });
    expect(listings).toEqual([
      L('freshchoice', '6a3e07caf83bb1e8db52653e', 'Chesdale Cheese Slices Chives', '250g', 'Meat', 'chesdale-cheese-slices-chives-250g'),
      // Brand and barcode from the page's analytics impressions.
      L('freshchoice', '6a3e0812f83bb1e8db527a11', 'Hellers Beef Mince', '340g', 'Meat', 'hellers-beef-mince-340g', 'Hellers', '9415767001017'),
      L('freshchoice', '6a3e095af83bb1e8db52e820', 'Blue Cod Skinned & Boned', 'kg', 'Meat', 'blue-cod-skinned-boned'),
      L('freshchoice', '6a4c7bf8c779739eafd73016', 'Ocean Blue Salmon Double Smoked', '80g', 'Meat', 'ocean-blue-salmon-double-smoked-80g'),
      L('supervalue', '6a41c2d0c779739eafd51e02', 'Homebrand Milk Lite', '3L', 'Dairy & Eggs', 'homebrand-milk-lite-3l'),
      L('supervalue', '6a41c2d0c779739eafd51f77', 'Anchor Butter', '500g', 'Dairy & Eggs', 'anchor-butter-500g'),
      L('supervalue', '6a41c2d0c779739eafd52a10', 'Pams Free Range Eggs Size 7', '12pk', 'Dairy & Eggs', 'pams-free-range-eggs-size-7-12pk'),
    ]);
    const images = (await db.pool.query(`SELECT l.image_url FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug IN ('freshchoice', 'supervalue')`)).rows;
    for (const { image_url } of images) expect(image_url).toMatch(/^https:\/\/dtgxwmigmg3gc\.cloudfront\.net\/imagery\/assets\/derivations\/icon\/256\/256\/true\/[A-Za-z0-9]+\?signature=/);
  });

  it('writes exactly The Warehouse\'s national prices: special, clearance, two multibuys; marketplace left out', async () => {
    const national = (await db.pool.query(`SELECT l.external_id, n.first_day, n.last_day, n.price, n.promo_price, n.promo_kind, n.multibuy_qty, n.multibuy_price
      FROM national_price_span n JOIN listing l ON l.id = n.listing_id JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'warehouse' ORDER BY 1`)).rows;
    const N = (external_id: string, price: number, promo_price: number | null = null, promo_kind: number | null = null, multibuy_qty: number | null = null, multibuy_price: number | null = null) =>
      ({ external_id, first_day: DAY, last_day: null, price, promo_price, promo_kind, multibuy_qty, multibuy_price });
    // 32 tiles on page 1 (one marketplace, left out), 3 on page 2 (one repeated): 33 products.
    expect(national).toHaveLength(33);
    expect(national.slice(0, 8)).toEqual([
      N('R2288841', 249),
      // A price written as a JSON number (5.99).
      N('R2433190', 599),
      N('R2543671', 2500),
      // productThenPrice 12.99 over price 9.99 with badge_specials.
      N('R2566730', 1299, 999, 1),
      // badge_clearance: then 9.00, now 4.50.
      N('R2596101', 900, 450, 4),
      // promotionCallOutMessage "2 for $5.00".
      N('R2639412', 299, 250, 3, 2, 500),
      // badge_2_for_7.99 (single-unit price 799 / 2, to the cent).
      N('R2718830', 449, 400, 3, 2, 799),
      N('R2741865', 450, 300, 1),
    ]);
    expect(national.slice(8).every((n) => n.promo_kind === null && n.multibuy_qty === null && n.last_day === null)).toBe(true);
    // National only: no per-store spans.
    expect((await spans(db)).filter((r) => (r as { slug: string }).slug === 'warehouse')).toEqual([]);
    const listings = (await db.pool.query(`SELECT l.external_id, l.name, l.brand, l.size_text, l.gtin::text, l.category_path, l.image_url, l.retailer_url
      FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'warehouse' AND l.external_id IN ('R2288841', 'R2566730') ORDER BY 1`)).rows;
    const img = (p: string) => `https://www.thewarehouse.co.nz/dw/image/v2/BDMG_PRD/on/demandware.static/-/Sites-twl-master-catalog/default/dw0c1d2e3f/images/hi-res/${p}_1.jpg?sw=765&sh=765`;
    expect(listings).toEqual([
      { external_id: 'R2288841', name: 'Classic Lemonade 1.5L', brand: 'Schweppes', size_text: null, gtin: '9300675021606', category_path: ['Food, Pets & Household', 'Food & Drink', 'Soft Drinks'],
        image_url: img('22/88/R2288841'), retailer_url: `${server.origin}/p/schweppes-classic-lemonade-1-5l/R2288841.html` },
      { external_id: 'R2566730', name: 'Jelly Beans 1kg', brand: 'Value', size_text: null, gtin: null, category_path: ['Food, Pets & Household', 'Food & Drink', 'Snacks & Confectionery'],
        image_url: img('25/66/R2566730'), retailer_url: `${server.origin}/p/value-jelly-beans-1kg/R2566730.html` },
    ]);
    const collections = (await db.pool.query(`SELECT c.day, c.mode, c.rows FROM collection c JOIN retailer r ON r.id = c.retailer_id WHERE r.slug = 'warehouse'`)).rows;
    expect(collections).toEqual([{ day: DAY, mode: 'snapshot', rows: 33 }]);
  });

  it('a second run of every HTML chain on the same day changes nothing and requests nothing', async () => {
    const before = await spans(db);
    const requests = server.requests.length;
    const again = await runCollect(db.pool, {
      retailers: ['warehouse', 'freshchoice', 'supervalue'], origin: server.origin, day: DAY, today: TODAY, config: config(spool), progress: false, log: () => {},
    });
    expect(again.chains.map((c) => c.status)).toEqual(['already-ingested', 'already-ingested', 'already-ingested']);
    expect(await spans(db)).toEqual(before);
    expect(server.requests.length).toBe(requests);
  });
});
