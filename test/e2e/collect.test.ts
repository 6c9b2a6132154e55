/**
 * Issue 18 "Done when", end to end: the real command `npm run collect -- all --origin <replay>
 * --image-origin <replay>` as a child process, against one local replay server of every chain's
 * recorded shapes (test/fixtures/collect/*; the six chains' paths do not collide: Woolworths
 * `/api/v1/…`, Foodstuffs `/api/user/…` and `/v1/edge/…` told apart by store id in the body, The
 * Warehouse `/search/updategrid`, MyFoodLink `/<retailer>/…`; images under the CDN paths, served as
 * small generated pictures), into a fresh PostgreSQL database. Asserts listings, store and national
 * prices, promotions and converted images for the six chains, and that the API (createServer over
 * that database, app.inject) serves them: get_listing shows the price, the promotion and the
 * /images path, and the image itself is served.
 *
 * Then a real kill -9: the same command into a second fresh database with the replay server slowed
 * down, its whole process group killed with SIGKILL once the first store's checkpoint is written;
 * the re-run resumes (the done store is not asked for again) and ends equal to the uninterrupted
 * run: same listings, spans, promotions, collections, images; nothing duplicated, nothing partial.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { nzToday } from '../../src/domain/days.js';
import { createTestDatabase, DATA_DIR, type TestDatabase } from '../helpers/db.js';
import { startReplayServer, type ReplayRoute, type ReplayServer } from '../helpers/replay-server.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const FIX = new URL('../fixtures/collect/', import.meta.url).pathname;
const DAY = nzToday();
const HTML = { 'content-type': 'text/html; charset=utf-8' };
const PNS_BOTANY = '60561e46-ece7-43a7-b142-9b14812586e4';
const PNS_DUNEDIN = '90082979-fb9f-4305-9c72-83274fc438cc';
const NW_BOTANY = 'c387ac97-5e0a-43ed-9c93-f1edccda298d';
const WOOLWORTHS = [
  { id: '1225718', name: 'Woolworths Northlands', f: 9441 },
  { id: '3496448', name: 'Woolworths Alexandra', f: 9584 },
  { id: '2810973', name: 'Woolworths Andersons Bay', f: 9446 },
];
const SIX = ['freshchoice', 'newworld', 'paknsave', 'supervalue', 'warehouse', 'woolworths'];

/** Every chain's pages on one replay server (no faults: those are the integration tests'). */
function routes(): ReplayRoute[] {
  const ww = (f: number, dept: string, page: number, file: string): ReplayRoute => ({
    path: '/api/v1/products', query: { dasFilter: `Department;;${dept};false`, page: String(page) }, headers: { cookie: `f-${f}` }, respond: { file: `woolworths/${file}` },
  });
  const fs0 = JSON.parse(fs.readFileSync(path.join(FIX, 'paknsave/stores.json'), 'utf8')) as { stores: unknown[] };
  const nw0 = JSON.parse(fs.readFileSync(path.join(FIX, 'newworld/stores.json'), 'utf8')) as { stores: unknown[] };
  const page = (store: string, n: number) => `"storeId":"${store}","hitsPerPage":50,"page":${n},`;
  return [
    // Woolworths.
    ...WOOLWORTHS.map((s): ReplayRoute => ({
      method: 'PUT', path: '/api/v1/fulfilment/my/pickup-addresses', body: `"addressId":${s.id}`,
      respond: { file: `woolworths/select-store-${s.id}.json`, headers: { 'set-cookie': [`cw-lrkswrdjp=dm-Pickup,f-${s.f},a-1002,s-38; path=/`] } },
    })),
    { path: '/api/v1/products/departments', respond: { file: 'woolworths/departments.json' } },
    ww(9441, 'fruit-veg', 1, '9441-fruit-veg-p1.json'),
    ww(9441, 'fruit-veg', 2, '9441-fruit-veg-p2.json'),
    ww(9441, 'fridge-deli', 1, '9441-fridge-deli-p1.json'),
    ww(9584, 'fruit-veg', 1, '9584-fruit-veg-p1.json'),
    ww(9584, 'fruit-veg', 2, '9584-fruit-veg-p2-malformed.json'),
    ww(9584, 'fruit-veg', 3, '9584-fruit-veg-p3.json'),
    ww(9584, 'fridge-deli', 1, '9584-fridge-deli-p1.json'),
    ww(9446, 'fruit-veg', 1, '9446-fruit-veg-p1.json'),
    ww(9446, 'fridge-deli', 1, '9446-fridge-deli-p1.json'),
    // PAK'nSAVE and New World (one edge API; pages told apart by store id in the body).
    { method: 'POST', path: '/api/user/get-current-user', respond: { file: 'paknsave/get-current-user.json' } },
    { path: '/v1/edge/store', respond: { body: { stores: [...fs0.stores, ...nw0.stores] } } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(PNS_BOTANY, 0), respond: { file: 'paknsave/products-botany-page0.json' } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(PNS_BOTANY, 1), respond: { file: 'paknsave/products-botany-page1.json' } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(PNS_DUNEDIN, 0), respond: { file: 'paknsave/products-empty-store.json' } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(NW_BOTANY, 0), respond: { file: 'newworld/products-botany-page0.json' } },
    { method: 'POST', path: '/v1/edge/search/paginated/products', body: page(NW_BOTANY, 1), respond: { file: 'newworld/products-botany-page1.json' } },
    // The Warehouse.
    { path: '/search/updategrid', query: { start: '0' }, respond: { file: 'warehouse/grid-start0.html', headers: HTML } },
    { path: '/search/updategrid', query: { start: '32' }, respond: { file: 'warehouse/grid-start32.html', headers: HTML } },
    // FreshChoice and SuperValue (MyFoodLink): store directories and storefronts.
    { path: '/freshchoice/api/v1/stores', respond: { file: 'freshchoice/stores.json' } },
    { path: '/supervalue/api/v1/stores', respond: { file: 'supervalue/stores.json' } },
    { path: '/freshchoice/hc/', respond: { file: 'freshchoice/home.html', headers: HTML } },
    { path: '/freshchoice/hc/category/meat', query: { page: '2' }, respond: { file: 'freshchoice/category-meat-page2.html', headers: HTML } },
    { path: '/freshchoice/hc/category/meat', respond: { file: 'freshchoice/category-meat-page1.html', headers: HTML } },
    { path: '/freshchoice/hc/category/fruit-vegetables', respond: { file: 'freshchoice/category-fruit-vegetables-page1.html', headers: HTML } },
    { path: '/supervalue/milton/', respond: { file: 'supervalue/home.html', headers: HTML } },
    { path: '/supervalue/milton/category/dairy-eggs', respond: { file: 'supervalue/category-dairy-eggs-page1.html', headers: HTML } },
    // The retailers' image CDNs (assets.woolworths.com.au, a.fsimg.co.nz, thewarehouse.co.nz, cloudfront), through --image-origin.
    { path: /^\/(images|product|dw|imagery)\//, respond: { image: { width: 64, height: 48 } } },
  ];
}

/** The stores the importer would have put there (PAK'nSAVE, New World, Woolworths); FreshChoice and SuperValue come from their directories. */
async function insertStores(db: TestDatabase): Promise<void> {
  const stores: Array<[string, string, string, number, number]> = [
    ...WOOLWORTHS.map((s): [string, string, string, number, number] => ['woolworths', s.id, s.name, -45.87, 170.5]),
    ['paknsave', PNS_BOTANY, "PAK'nSAVE Botany", -36.93, 174.91],
    ['paknsave', PNS_DUNEDIN, "PAK'nSAVE Dunedin", -45.87, 170.5],
    ['newworld', NW_BOTANY, 'New World Botany', -36.93, 174.91],
  ];
  for (const [slug, id, name, lat, lng] of stores) {
    await db.pool.query(
      `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area) SELECT id, $2, $3, $4, $5, 'Auckland', 'Auckland' FROM retailer WHERE slug = $1`,
      [slug, id, name, lat, lng],
    );
  }
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** Starts `npm run collect -- all …` in its own process group (so a kill -9 reaches tsx and node too). */
function startCollect(db: TestDatabase, server: ReplayServer, dirs: { spool: string; images: string }): { child: ChildProcess; done: Promise<Run> } {
  const env: NodeJS.ProcessEnv = {
    ...process.env, DATABASE_URL: db.url, DATA_DIR, IMAGE_DIR: dirs.images, COLLECT_SPOOL_DIR: dirs.spool, COLLECT_CONCURRENCY: '2', COLLECT_RATE: '50',
    COLLECT_TIMEOUT_MS: '5000', COLLECT_RETRIES: '1', COLLECT_RETRY_BASE_MS: '10', COLLECT_RETRY_MAX_MS: '50', LOG_LEVEL: 'warn',
  };
  delete env.ELASTICSEARCH_URL;
  delete env.COLLECT_IMAGE_ORIGIN;
  const child = spawn('npm', ['run', '--silent', 'collect', '--', 'all', '--origin', server.origin, '--image-origin', server.origin, '--day', DAY], {
    cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const done = new Promise<Run>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, output }));
  });
  return { child, done };
}

/** Everything a collection writes, by natural keys (comparable across databases). */
async function dump(db: TestDatabase): Promise<Record<string, unknown[]>> {
  const q = async (sql: string) => (await db.pool.query(sql)).rows;
  return {
    stores: await q(`SELECT r.slug, s.external_id, s.name, s.address, s.lat, s.lng, s.town, s.area, s.urban, s.active, s.last_day FROM store s JOIN retailer r ON r.id = s.retailer_id ORDER BY 1, 2`),
    listings: await q(`SELECT r.slug, l.external_id, l.name, l.brand, l.size_text, l.gtin::text, l.category_path, l.image, l.image_url, l.retailer_url, l.available, l.first_seen
      FROM listing l JOIN retailer r ON r.id = l.retailer_id ORDER BY 1, 2`),
    spans: await q(`SELECT r.slug, s.external_id AS store, l.external_id, sp.first_day, sp.last_day, sp.price, sp.promo_price, sp.promo_kind, sp.multibuy_qty, sp.multibuy_price
      FROM store_price_span sp JOIN listing l ON l.id = sp.listing_id JOIN store s ON s.id = sp.store_id JOIN retailer r ON r.id = s.retailer_id ORDER BY 1, 2, 3, 4`),
    national: await q(`SELECT r.slug, l.external_id, n.first_day, n.last_day, n.price, n.promo_price, n.promo_kind, n.multibuy_qty, n.multibuy_price
      FROM national_price_span n JOIN listing l ON l.id = n.listing_id JOIN retailer r ON r.id = l.retailer_id ORDER BY 1, 2, 3`),
    collections: await q(`SELECT r.slug, s.external_id AS store, c.day, c.mode, c.rows FROM collection c JOIN retailer r ON r.id = c.retailer_id
      LEFT JOIN store s ON s.id = c.store_id ORDER BY 1, 2 NULLS FIRST`),
    images: await q(`SELECT source_url, path, digest, width, height, error FROM image ORDER BY 1`),
  };
}

let server: ReplayServer;
let a: TestDatabase;
let b: TestDatabase;
const tmp: string[] = [];
const mkdir = (label: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `collect-e2e-${label}-`));
  tmp.push(d);
  return d;
};
let whole: Run;
let aImages: string;

beforeAll(async () => {
  server = await startReplayServer(routes(), FIX);
  [a, b] = await Promise.all([createTestDatabase('collect_e2e_a'), createTestDatabase('collect_e2e_b')]);
  await Promise.all([insertStores(a), insertStores(b)]);
  aImages = mkdir('images-a');
  whole = await startCollect(a, server, { spool: mkdir('spool-a'), images: aImages }).done;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await a?.drop();
  await b?.drop();
  for (const d of tmp) fs.rmSync(d, { recursive: true, force: true });
});

describe('npm run collect -- all --origin <replay server>', () => {
  it('exits 0 having collected every chain, with nothing unmatched on the replay server', () => {
    expect(whole.code, whole.output).toBe(0);
    for (const slug of SIX) expect(whole.output).toMatch(new RegExp(`collect ${slug}: \\{[^\\n]*"status":"finished"`));
    expect(whole.output).toMatch(/images: \d+ due, \d+ converted/);
    expect(server.unmatched).toEqual([]);
  });

  it('fills listings, store prices, national prices, promotions and images for the six chains', async () => {
    const perChain = (await a.pool.query<{ slug: string; listings: number; spans: number; national: number; promos: number; multibuys: number; images: number; pending: number }>(
      `SELECT r.slug,
         (SELECT count(*)::int FROM listing l WHERE l.retailer_id = r.id) AS listings,
         (SELECT count(*)::int FROM store_price_span sp JOIN listing l ON l.id = sp.listing_id WHERE l.retailer_id = r.id) AS spans,
         (SELECT count(*)::int FROM national_price_span n JOIN listing l ON l.id = n.listing_id WHERE l.retailer_id = r.id) AS national,
         (SELECT count(*)::int FROM national_price_span n JOIN listing l ON l.id = n.listing_id WHERE l.retailer_id = r.id AND n.promo_kind IS NOT NULL)
           + (SELECT count(*)::int FROM store_price_span sp JOIN listing l ON l.id = sp.listing_id WHERE l.retailer_id = r.id AND sp.promo_kind IS NOT NULL) AS promos,
         (SELECT count(*)::int FROM national_price_span n JOIN listing l ON l.id = n.listing_id WHERE l.retailer_id = r.id AND n.multibuy_qty IS NOT NULL)
           + (SELECT count(*)::int FROM store_price_span sp JOIN listing l ON l.id = sp.listing_id WHERE l.retailer_id = r.id AND sp.multibuy_qty IS NOT NULL) AS multibuys,
         (SELECT count(*)::int FROM listing l WHERE l.retailer_id = r.id AND l.image LIKE '/images/%') AS images,
         (SELECT count(*)::int FROM listing l WHERE l.retailer_id = r.id AND l.image_url IS NOT NULL AND l.image IS NULL) AS pending
       FROM retailer r WHERE r.slug = ANY($1::text[]) ORDER BY 1`, [SIX],
    )).rows;
    expect(perChain.map((c) => c.slug)).toEqual(SIX);
    for (const c of perChain) {
      expect(c.listings, c.slug).toBeGreaterThan(0);
      expect(c.promos, c.slug).toBeGreaterThan(0);
      expect(c.multibuys, c.slug).toBeGreaterThan(0);
      expect(c.images, c.slug).toBe(c.listings);
      expect(c.pending, c.slug).toBe(0);
      // The Warehouse has national prices only; the others per store (and the national medians the ingest builds).
      if (c.slug === 'warehouse') expect(c.spans).toBe(0);
      else expect(c.spans, c.slug).toBeGreaterThan(0);
      expect(c.national, c.slug).toBeGreaterThan(0);
    }
    expect(perChain.find((c) => c.slug === 'warehouse')!.listings).toBe(33);
    // Images: converted once each, stored under the retailer's URL (never the replay origin's), files on disk.
    const images = (await a.pool.query<{ source_url: string; path: string | null }>('SELECT source_url, path FROM image')).rows;
    expect(images.length).toBeGreaterThan(0);
    for (const i of images) {
      expect(i.source_url.startsWith(server.origin)).toBe(false);
      expect(i.path).toMatch(/^\/images\/[0-9a-f]{2}\/[0-9a-f]+\.avif$/);
      expect(fs.existsSync(path.join(aImages, i.path!.slice('/images/'.length)))).toBe(true);
    }
    const cdn = server.requests.filter((r) => /^\/(images|product|dw|imagery)\//.test(r.path));
    expect(cdn.length).toBe(images.length);
    // FreshChoice and SuperValue stores came from their store directories.
    const fc = (await a.pool.query(`SELECT r.slug, s.external_id, s.town FROM store s JOIN retailer r ON r.id = s.retailer_id WHERE r.slug IN ('freshchoice', 'supervalue') ORDER BY 1`)).rows;
    expect(fc).toEqual([{ slug: 'freshchoice', external_id: 'hc', town: 'Auckland' }, { slug: 'supervalue', external_id: 'milton', town: 'Rural Otago' }]);
    expect((await a.pool.query(`SELECT count(*)::int AS n FROM retailer WHERE slug = ANY($1::text[]) AND last_run IS NOT NULL`, [SIX])).rows[0].n).toBe(6);
  });

  it('the API serves them: get_listing shows the price, the promotion and the /images path; the image is served', async () => {
    const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', IMAGE_DIR: aImages, EXPORT_DIR: mkdir('export') });
    const app: FastifyInstance = await createServer({ db: a, env });
    try {
      const one = async (slug: string, externalId: string) =>
        (await a.pool.query<{ id: number }>('SELECT l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = $1 AND l.external_id = $2', [slug, externalId])).rows[0].id;
      const cases: Array<[string, string, Record<string, unknown>]> = [
        ['woolworths', '497396', { price: 550, promo_price: 490, promo_kind: 2 }],
        ['paknsave', '5092718-EA-000', { price: 89, promo_price: 75, promo_kind: 3 }],
        ['newworld', '5039995-EA-000', { price: 1259, promo_price: 1129, promo_kind: 2 }],
        ['freshchoice', '6a3e07caf83bb1e8db52653e', { price: 540, promo_price: 400, promo_kind: 1 }],
        ['supervalue', '6a41c2d0c779739eafd52a10', { price: 1299, promo_price: 1149, promo_kind: 1 }],
        ['warehouse', 'R2566730', { price: 1299, promo_price: 999, promo_kind: 1 }],
      ];
      for (const [slug, ext, current] of cases) {
        const r = await app.inject({ method: 'GET', url: `/api/v1/listings/${await one(slug, ext)}` });
        expect(r.statusCode, `${slug} ${ext}: ${r.body}`).toBe(200);
        const d = r.json() as { retailer_slug: string; external_id: string; image: string | null; current: Record<string, unknown> };
        expect(d, slug).toMatchObject({ retailer_slug: slug, external_id: ext, current: { day: DAY, ...current } });
        expect(d.image, slug).toMatch(/^\/images\/[0-9a-f]{2}\/[0-9a-f]+\.avif$/);
        const img = await app.inject({ method: 'GET', url: d.image! });
        expect(img.statusCode).toBe(200);
        expect(img.headers['content-type']).toBe('image/avif');
      }
    } finally {
      await app.close();
    }
  });
});

describe('kill -9 mid-run, then re-run', () => {
  it('resumes where it stopped and ends equal to the uninterrupted run', async () => {
    const dirs = { spool: mkdir('spool-b'), images: mkdir('images-b') };
    server.setDelay(150);
    const before = server.requests.length;
    const run = startCollect(b, server, dirs);
    let killedAt: { done: number; spans: number; collections: number } | null = null;
    try {
      const t0 = Date.now();
      for (;;) {
        const cp = (await b.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM collect_checkpoint WHERE status = 'done'`)).rows[0].n;
        if (cp >= 1) {
          process.kill(-(run.child.pid as number), 'SIGKILL');
          killedAt = {
            done: cp,
            spans: (await b.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM store_price_span')).rows[0].n,
            collections: (await b.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM collection')).rows[0].n,
          };
          break;
        }
        if (run.child.exitCode !== null || Date.now() - t0 > 20_000) throw new Error(`no checkpoint written before the run ended:\n${(await run.done).output}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      server.setDelay(0);
    }
    const killed = await run.done;
    expect(killed.signal ?? killed.code).toBeTruthy();
    // Killed after the first store's checkpoint, before the chain's day was ingested: nothing partial in the price tables.
    expect(killedAt).toMatchObject({ spans: 0, collections: 0 });
    const doneStores = (await b.pool.query<{ scope: string }>(`SELECT scope FROM collect_checkpoint WHERE status = 'done'`)).rows.map((r) => r.scope);
    expect(doneStores.length).toBeGreaterThanOrEqual(1);
    // Let the killed backend's session (and its advisory lock) go.
    for (let i = 0; i < 40; i++) {
      const held = (await b.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)).rows[0].n;
      if (held === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    const seen = server.requests.length;
    const again = await startCollect(b, server, dirs).done;
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/resuming .*: 1 of 3 stores already collected|"resumed":[1-9]/);
    // The store done before the kill was not asked for again.
    const rerun = server.requests.slice(seen);
    const woolworthsDone = doneStores.filter((s) => /^\d+$/.test(s));
    for (const s of woolworthsDone) expect(rerun.some((r) => r.body.includes(`"addressId":${s}`))).toBe(false);
    expect(seen).toBeGreaterThan(before);

    const [da, db] = await Promise.all([dump(a), dump(b)]);
    expect(db).toEqual(da);
    // Nothing duplicated: one collection row per chain's day and store, one open span per listing and store.
    const dup = await b.pool.query(`SELECT listing_id, store_id, count(*) FROM store_price_span WHERE last_day IS NULL GROUP BY 1, 2 HAVING count(*) > 1`);
    expect(dup.rows).toEqual([]);
    const runs = (await b.pool.query(`SELECT r.slug, c.status, c.resumed FROM collect_run c JOIN retailer r ON r.id = c.retailer_id WHERE r.slug = 'woolworths' ORDER BY c.id`)).rows;
    expect(runs.at(-1)).toMatchObject({ slug: 'woolworths', status: 'finished' });
    expect((runs.at(-1) as { resumed: number }).resumed).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
