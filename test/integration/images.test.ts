/**
 * Product images (issue 18 item 4): the images worker (workers/images) against a real PostgreSQL
 * and a local HTTP server serving images generated here with sharp — a PNG, a JPEG, the PNG again
 * at another URL, and the failures: a body over the size cap (declared, and streamed without a
 * length), a decompression bomb, a truncated JPEG, an HTML page, a 404, a 503 and a response slower
 * than the timeout. Then the served route (/images/*: headers, 304, 404, traversal, no budget) and
 * the API's `image` fields after conversion.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import Fastify from 'fastify';
import { errorBody } from '../../facades/execute.js';
import { IMAGE_CACHE_CONTROL, registerImageFiles } from '../../facades/http/images.js';
import { imageDigest, imageFileOf, imagePathOf, thumbnailPathOf } from '../../src/domain/images.js';
import { loadEnv } from '../../src/env.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { runMatching } from '../../workers/match/match.js';
import { processNewImages, retryDays, type ImageFailure, type ImageReport } from '../../workers/images/images.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { expectError } from '../helpers/shape.js';

const DAY = '2026-01-05';
const MAX_BYTES = 200_000;
const MAX_PIXELS = 10_000_000;
const TIMEOUT_MS = 400;

let db: TestDatabase;
let app: FastifyInstance;
let dir: string;
let origin: string;
let server: http.Server;
/** Requests per path. */
const hits = new Map<string, number>();
/** What each path answers (tests may change it). */
const routes = new Map<string, (res: http.ServerResponse) => void>();
const warnings: ImageFailure[] = [];
let first: ImageReport;

let png: Buffer; // 1600 × 900
let jpg: Buffer; // 300 × 500

const send = (body: Buffer | string, type: string, status = 200) => (res: http.ServerResponse) => {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

/** Listing external id → source URL path on the test server (listing `nourl` has none). */
const LISTINGS: Record<string, string> = {
  a1: '/img/a.png',
  a2: '/img/a.png', // the same URL on two listings: downloaded once
  copy: '/img/a-copy.png', // the same bytes at another URL: the same path
  b: '/img/b.jpg',
  big: '/img/big.bin',
  chunked: '/img/big-chunked',
  bomb: '/img/bomb.png',
  broken: '/img/broken.jpg',
  html: '/img/page.html',
  missing: '/img/missing.png',
  flaky: '/img/flaky.png',
  slow: '/img/slow.png',
};

async function run(): Promise<ImageReport> {
  return processNewImages(db.pool, {
    dir, concurrency: 4, timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES, maxPixels: MAX_PIXELS, progress: false,
    logger: { warn: (f) => warnings.push(f) },
  });
}

async function listingImages(): Promise<Record<string, { image: string | null; image_url: string | null; product_id: number | null }>> {
  const { rows } = await db.pool.query(
    `SELECT l.external_id, l.image, l.image_url, l.product_id FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'warehouse'`,
  );
  return Object.fromEntries(rows.map((r) => [r.external_id, { image: r.image, image_url: r.image_url, product_id: r.product_id }]));
}

beforeAll(async () => {
  png = await sharp({ create: { width: 1600, height: 900, channels: 3, background: { r: 200, g: 40, b: 30 } } }).png().toBuffer();
  jpg = await sharp({ create: { width: 300, height: 500, channels: 3, background: { r: 20, g: 120, b: 200 } } }).jpeg().toBuffer();
  const bomb = await sharp({ create: { width: 4000, height: 4000, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toBuffer();
  const noise = Buffer.alloc(MAX_BYTES + 50_000, 7);
  routes.set('/img/a.png', send(png, 'image/png'));
  routes.set('/img/a-copy.png', send(png, 'image/png'));
  routes.set('/img/b.jpg', send(jpg, 'image/jpeg'));
  routes.set('/img/big.bin', send(noise, 'image/png'));
  routes.set('/img/big-chunked', (res) => {
    res.writeHead(200, { 'content-type': 'image/png' }); // no length: the cap is checked while streaming
    for (let i = 0; i < noise.length; i += 16_384) res.write(noise.subarray(i, i + 16_384));
    res.end();
  });
  routes.set('/img/bomb.png', send(bomb, 'image/png'));
  routes.set('/img/broken.jpg', send(jpg.subarray(0, 200), 'image/jpeg'));
  routes.set('/img/page.html', send('<!doctype html><title>Not found</title>', 'text/html'));
  routes.set('/img/missing.png', send('no such image', 'text/plain', 404));
  routes.set('/img/flaky.png', send('busy', 'text/plain', 503));
  routes.set('/img/slow.png', (res) => {
    const t = setTimeout(() => send(png, 'image/png')(res), 5_000);
    res.on('close', () => clearTimeout(t));
  });
  server = http.createServer((req, res) => {
    const p = (req.url ?? '').split('?')[0];
    hits.set(p, (hits.get(p) ?? 0) + 1);
    expect(req.headers['user-agent']).toMatch(/^nz-grocery-prices-images\//);
    (routes.get(p) ?? send('?', 'text/plain', 404))(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nzgp-images-'));
  db = await createTestDatabase('images');
  const rows = [...Object.entries(LISTINGS), ['nourl', '']].map(([id, p], i) => ({
    line: i + 2,
    record: { day: DAY, retailer: 'warehouse', store: '', external_id: id, price: 100 + i, name: `Test item ${id}`, image: p ? `${origin}${p}` : '' },
  }));
  await ingest(db.pool, rows, { source: 'images-test' });
  await runMatching(db.pool);
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', IMAGE_DIR: dir }) });
  first = await run();
}, 60_000);

afterAll(async () => {
  await app?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await db?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('processNewImages', () => {
  it('downloads each source URL once and converts the images, skipping and logging the broken ones', () => {
    expect(first.due).toBe(11);
    expect(first.converted + first.reused).toBe(3); // a.png, a-copy.png (same bytes), b.jpg
    expect(first.converted).toBeGreaterThanOrEqual(2);
    expect(first.failed).toBe(8);
    for (const p of new Set(Object.values(LISTINGS))) expect(hits.get(p), p).toBe(1);
    expect(warnings.map((w) => w.url.slice(origin.length)).sort()).toEqual(
      ['/img/big.bin', '/img/big-chunked', '/img/bomb.png', '/img/broken.jpg', '/img/page.html', '/img/missing.png', '/img/flaky.png', '/img/slow.png'].sort(),
    );
    const kind = Object.fromEntries(warnings.map((w) => [w.url.slice(origin.length), w.kind]));
    expect(kind).toEqual({
      '/img/big.bin': 'too-large', '/img/big-chunked': 'too-large', '/img/bomb.png': 'too-large', '/img/broken.jpg': 'not-image',
      '/img/page.html': 'not-image', '/img/missing.png': 'http', '/img/flaky.png': 'http', '/img/slow.png': 'timeout',
    });
    expect(first.failures).toHaveLength(8);
  });

  it('writes 720 px and 200 px AVIFs at content-addressed paths, atomically', async () => {
    const l = await listingImages();
    const aPath = imagePathOf(imageDigest(png));
    const bPath = imagePathOf(imageDigest(jpg));
    expect(aPath).toMatch(/^\/images\/[0-9a-f]{2}\/[0-9a-f]{30}\.avif$/);
    expect([l.a1.image, l.a2.image, l.copy.image, l.b.image]).toEqual([aPath, aPath, aPath, bPath]);
    const dims = async (p: string) => {
      const m = await sharp(imageFileOf(dir, p)).metadata();
      return { format: m.format, compression: m.compression, width: m.width, height: m.height };
    };
    expect(await dims(aPath)).toEqual({ format: 'heif', compression: 'av1', width: 720, height: 405 });
    expect(await dims(thumbnailPathOf(aPath))).toMatchObject({ compression: 'av1', width: 200 });
    expect((await dims(thumbnailPathOf(aPath))).height).toBeGreaterThanOrEqual(112);
    // Smaller than 720: never enlarged; the thumbnail fits 200 on the long side.
    expect(await dims(bPath)).toEqual({ format: 'heif', compression: 'av1', width: 300, height: 500 });
    expect(await dims(thumbnailPathOf(bPath))).toMatchObject({ width: 120, height: 200 });
    // Two images, two files each, no temporary file left.
    const files = fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.avif') || f.includes('.tmp'));
    expect(files.sort()).toEqual([aPath, thumbnailPathOf(aPath), bPath, thumbnailPathOf(bPath)].map((p) => p.slice('/images/'.length)).sort());
    const rows = (await db.pool.query(`SELECT source_url, path, width, height, bytes, thumb_bytes, source_bytes, error FROM image WHERE path IS NOT NULL ORDER BY source_url`)).rows;
    expect(rows.map((r) => [r.source_url.slice(origin.length), r.width, r.height, r.source_bytes])).toEqual([
      ['/img/a-copy.png', 720, 405, png.length], ['/img/a.png', 720, 405, png.length], ['/img/b.jpg', 300, 500, jpg.length],
    ]);
    expect(rows.every((r) => r.bytes > 0 && r.thumb_bytes > 0 && r.error === null)).toBe(true);
  });

  it('records failures with a retry time (a day when transient, a week otherwise) and leaves their listings without image', async () => {
    const { rows } = await db.pool.query(
      `SELECT source_url, error, attempts, round(extract(epoch FROM retry_at - fetched_at) / 86400)::int AS days FROM image WHERE path IS NULL`,
    );
    const days = Object.fromEntries(rows.map((r) => [r.source_url.slice(origin.length), r.days]));
    expect(days).toEqual({
      '/img/big.bin': 7, '/img/big-chunked': 7, '/img/bomb.png': 7, '/img/broken.jpg': 7, '/img/page.html': 7, '/img/missing.png': 7,
      '/img/flaky.png': 1, '/img/slow.png': 1,
    });
    expect(rows.every((r) => r.attempts === 1 && r.error.length > 0)).toBe(true);
    const l = await listingImages();
    expect([l.big.image, l.broken.image, l.missing.image, l.slow.image, l.nourl.image]).toEqual([null, null, null, null, null]);
    expect([retryDays(true, 1), retryDays(false, 1), retryDays(false, 2), retryDays(false, 9)]).toEqual([1, 7, 14, 60]);
  });

  it('does nothing on a second run, and retries a failure once its time has come', async () => {
    const again = await run();
    expect(again).toMatchObject({ due: 0, converted: 0, reused: 0, failed: 0, listings: 0 });
    expect(hits.get('/img/a.png')).toBe(1);

    routes.set('/img/flaky.png', send(jpg, 'image/jpeg'));
    await db.pool.query(`UPDATE image SET retry_at = now() - interval '1 second' WHERE source_url IN ($1, $2)`, [`${origin}/img/flaky.png`, `${origin}/img/missing.png`]);
    const retried = await run();
    expect(retried).toMatchObject({ due: 2, converted: 0, reused: 1, failed: 1, listings: 1 });
    expect(hits.get('/img/flaky.png')).toBe(2);
    expect((await listingImages()).flaky.image).toBe(imagePathOf(imageDigest(jpg)));
    const missing = (await db.pool.query(`SELECT attempts, round(extract(epoch FROM retry_at - fetched_at) / 86400)::int AS days FROM image WHERE source_url = $1`, [`${origin}/img/missing.png`])).rows[0];
    expect(missing).toEqual({ attempts: 2, days: 14 });
  });
});

describe('GET /images/*', () => {
  it('serves an image and its thumbnail as immutable AVIF with an ETag, outside the budget', async () => {
    const p = imagePathOf(imageDigest(png));
    const r = await app.inject({ method: 'GET', url: p });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('image/avif');
    expect(r.headers['cache-control']).toBe(IMAGE_CACHE_CONTROL);
    expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(r.headers.etag).toBeTruthy();
    expect(r.headers['ratelimit-limit']).toBeUndefined();
    expect(r.rawPayload.equals(fs.readFileSync(imageFileOf(dir, p)))).toBe(true);
    const again = await app.inject({ method: 'GET', url: p, headers: { 'if-none-match': String(r.headers.etag) } });
    expect(again.statusCode).toBe(304);
    const t = await app.inject({ method: 'GET', url: thumbnailPathOf(p) });
    expect(t.statusCode).toBe(200);
    expect((await sharp(t.rawPayload).metadata()).width).toBe(200);
    const head = await app.inject({ method: 'HEAD', url: p });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('image/avif');
  });

  it('answers 404 in the Error body for a missing image and refuses traversal', async () => {
    const missing = await app.inject({ method: 'GET', url: `/images/ab/${'0'.repeat(30)}.avif` });
    expect(missing.statusCode).toBe(404);
    expectError(missing.json(), 404);
    for (const url of [
      '/images/../package.json', '/images/%2e%2e/%2e%2e/package.json', '/images/ab/..%2f..%2fpackage.json', '/images/',
      '/images/ab/.x.avif.tmp', `/images/${path.relative(dir, '/etc/passwd')}`, '/images/ab/cd.avif',
    ]) {
      const r = await app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(404);
      expectError(r.json(), 404);
      expect(r.headers['cache-control'], url).not.toBe(IMAGE_CACHE_CONTROL);
    }
  });
});

describe('GET /images/* before the first conversion', () => {
  it('answers 404 when IMAGE_DIR does not exist yet', async () => {
    const bare = Fastify();
    bare.setNotFoundHandler((_req, reply) => reply.code(404).send(errorBody(404, 'Not found')));
    await registerImageFiles(bare, path.join(dir, 'not-yet'));
    const r = await bare.inject({ method: 'GET', url: imagePathOf(imageDigest(png)) });
    expect(r.statusCode).toBe(404);
    expectError(r.json(), 404);
    await bare.close();
  });
});

describe('the API', () => {
  it('shows the converted path in `image` (listing and product), null before conversion', async () => {
    const l = await listingImages();
    const aPath = imagePathOf(imageDigest(png));
    const id = (await db.pool.query(`SELECT id FROM listing WHERE external_id = 'a1'`)).rows[0].id;
    const listing = await app.inject({ method: 'GET', url: `/api/v1/listings/${id}` });
    expect(listing.statusCode).toBe(200);
    expect(listing.json().image).toBe(aPath);
    const noImage = (await db.pool.query(`SELECT id FROM listing WHERE external_id = 'missing'`)).rows[0].id;
    expect((await app.inject({ method: 'GET', url: `/api/v1/listings/${noImage}` })).json().image).toBeNull();
    expect(l.a1.product_id).not.toBeNull();
    const product = await app.inject({ method: 'GET', url: `/api/v1/products/${l.a1.product_id}` });
    expect(product.statusCode).toBe(200);
    expect(product.json().image).toBe(aPath);
    const stored = (await db.pool.query('SELECT image FROM product WHERE id = $1', [l.a1.product_id])).rows[0];
    expect(stored.image).toBe(aPath);
  });
});

describe('ingest', () => {
  it('stores a collected image URL as the listing\'s source, and an ImagePath as its image', async () => {
    await ingest(db.pool, [
      { line: 2, record: { day: '2026-01-06', retailer: 'warehouse', store: '', external_id: 'url-only', price: 5, name: 'Url only', image: 'https://cdn.example/x.jpg' } },
      { line: 3, record: { day: '2026-01-06', retailer: 'warehouse', store: '', external_id: 'path-only', price: 5, name: 'Path only', image: '/images/ab/cdef.avif' } },
      // A converted listing seen again with its source URL keeps its image.
      { line: 4, record: { day: '2026-01-06', retailer: 'warehouse', store: '', external_id: 'b', price: 5, name: 'Test item b', image: `${origin}/img/b.jpg` } },
    ], { source: 'images-test-2', mode: 'changes' });
    const l = await listingImages();
    expect(l['url-only']).toMatchObject({ image: null, image_url: 'https://cdn.example/x.jpg' });
    expect(l['path-only']).toMatchObject({ image: '/images/ab/cdef.avif', image_url: null });
    expect(l.b).toMatchObject({ image: imagePathOf(imageDigest(jpg)), image_url: `${origin}/img/b.jpg` });
  });
});
