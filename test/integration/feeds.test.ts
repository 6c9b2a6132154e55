/**
 * Price-change feeds (issue 32 item 3; facades/http/feeds.ts): every route in both formats on the
 * real data and a constructed listing, read back by feed parsers rather than by matching strings:
 * Atom by @rowanmanning/feed-parser (an independent reader's parser) and feedsmith's parseAtomFeed,
 * JSON Feed 1.1 by feedsmith's parseJsonFeed. Entries are the list_price_changes answer (same ids,
 * same order, the day as the entry date), ids are stable across requests and unique; ETag with
 * If-None-Match and Last-Modified with If-Modified-Since give 304; `limit` bounds the length;
 * unknown subjects are 404 and bad parameters 400 in the contract's Error body.
 */
import { parseFeed as readerParse } from '@rowanmanning/feed-parser';
import type { FastifyInstance } from 'fastify';
import { parseAtomFeed, parseJsonFeed } from 'feedsmith';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { nameUuid } from '../../facades/http/feeds.js';
import { departments } from '../../src/domain/shelves.js';
import { loadEnv } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedRealPrices, STORE_DAY, type Seeded } from '../helpers/prices.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BASE = 'https://prices.example.nz';
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0', PUBLIC_URL: BASE });
let db: TestDatabase;
let app: FastifyInstance;
let seed: Seeded;
let listing: number;

beforeAll(async () => {
  db = await createTestDatabase('feeds');
  seed = await seedRealPrices(db.pool);
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  // A constructed listing with three changes: a special starts, ends, then the shelf price drops.
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, brand, first_seen)
     SELECT id, 'feeds-a', 'Feeds & <Milk> 2L', 'Acme', '2026-01-01' FROM retailer WHERE slug = 'paknsave' RETURNING id`,
  );
  listing = rows[0].id;
  for (const [from, to, price, promo] of [
    ['2026-06-01', '2026-07-09', 450, null],
    ['2026-07-10', '2026-07-16', 450, 399],
    ['2026-07-17', '2026-07-24', 450, null],
    ['2026-07-25', '2026-08-03', 420, null],
  ] as const) {
    await db.pool.query(
      `INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind) VALUES ($1, $2, $3, $4, $5, $6)`,
      [listing, from, to, price, promo, promo === null ? null : 1],
    );
  }
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

async function fetchFeed(url: string, headers: Record<string, string> = {}) {
  const r = await app.inject({ method: 'GET', url, headers });
  return { status: r.statusCode, headers: r.headers, body: r.body };
}

/** The operation's answer for the same scope and parameters. */
async function changes(query: string): Promise<Json> {
  const r = await app.inject({ method: 'GET', url: `/api/v1/price-changes?${query}` });
  expect(r.statusCode, query).toBe(200);
  return r.json();
}

/** An Atom feed parsed by both parsers, checked for the elements RFC 4287 requires, as {title, ids, titles, days}. */
function readAtom(text: string) {
  const reader = readerParse(text);
  const smith = parseAtomFeed(text) as Json;
  // RFC 4287 §4.1.1: a feed has an id, a title, an updated date and (no entry has one) an author.
  expect(smith.id).toMatch(/^https:\/\/prices\.example\.nz\/feeds\//);
  expect(smith.title?.value ?? smith.title).toBeTruthy();
  expect(Number.isNaN(Date.parse(smith.updated))).toBe(false);
  expect(smith.authors?.[0]?.name).toBeTruthy();
  const selfLink = (smith.links ?? []).find((l: Json) => l.rel === 'self');
  expect(selfLink?.href).toBe(smith.id);
  const entries: Json[] = smith.entries ?? [];
  for (const e of entries) {
    // §4.1.2: each entry has an id (an IRI), a title and an updated date.
    expect(e.id).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(e.title?.value ?? e.title).toBeTruthy();
    expect(Number.isNaN(Date.parse(e.updated))).toBe(false);
  }
  // The independent reader sees the same feed.
  expect(reader.title).toBe(smith.title?.value ?? smith.title);
  expect(reader.items.map((i) => i.id)).toEqual(entries.map((e) => e.id));
  expect(reader.items.map((i) => i.title)).toEqual(entries.map((e) => e.title?.value ?? e.title));
  return {
    title: reader.title,
    ids: reader.items.map((i) => i.id),
    titles: reader.items.map((i) => i.title),
    days: reader.items.map((i) => i.updated?.toISOString()),
    links: reader.items.map((i) => i.url),
  };
}

/** A JSON Feed parsed by feedsmith, checked for what JSON Feed 1.1 requires. */
function readJson(text: string) {
  const raw = JSON.parse(text);
  expect(raw.version).toBe('https://jsonfeed.org/version/1.1');
  expect(Array.isArray(raw.items), 'JSON Feed 1.1: items is required').toBe(true);
  const feed = parseJsonFeed(raw) as Json;
  expect(typeof feed.title).toBe('string');
  for (const i of feed.items ?? []) {
    expect(typeof i.id).toBe('string');
    expect(typeof (i.content_text ?? i.content_html)).toBe('string');
  }
  return { ...feed, items: feed.items ?? [] } as Json; // feedsmith's parser leaves out an empty list
}

describe('the feeds parse and carry the changes', () => {
  it("a listing's feed, Atom and JSON Feed: every change, newest first, stable unique ids, both prices, the day", async () => {
    const op = await changes(`listing_id=${listing}`);
    expect(op.total).toBe(3);
    const atom = await fetchFeed(`/feeds/listings/${listing}.atom`);
    expect(atom.status).toBe(200);
    expect(atom.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    const a = readAtom(atom.body);
    expect(a.title).toBe('Price changes: Feeds & <Milk> 2L');
    expect(a.ids).toEqual(op.changes.map((c: Json) => `urn:uuid:${nameUuid(c.id)}`));
    expect(new Set(a.ids).size).toBe(a.ids.length);
    expect(a.days).toEqual(op.changes.map((c: Json) => `${c.day}T00:00:00.000Z`));
    expect(a.titles).toEqual([
      'Feeds & <Milk> 2L: $4.50 → $4.20 at PAK\'nSAVE',
      'Feeds & <Milk> 2L: $3.99 → $4.50 at PAK\'nSAVE (special ended)',
      'Feeds & <Milk> 2L: $4.50 → $3.99 at PAK\'nSAVE (special $3.99 started)',
    ].map((t) => t.replace("PAK'nSAVE", op.changes[0].retailer_name)));
    expect(a.links[0]).toBe(`${BASE}/api/v1/listings/${listing}/history`);

    const json = await fetchFeed(`/feeds/listings/${listing}.json`);
    expect(json.headers['content-type']).toBe('application/feed+json; charset=utf-8');
    const j = readJson(json.body);
    expect(j.title).toBe(a.title);
    expect(j.feed_url).toBe(`${BASE}/feeds/listings/${listing}.json`);
    expect(j.items.map((i: Json) => i.id)).toEqual(op.changes.map((c: Json) => c.id));
    expect(j.items.map((i: Json) => i.title)).toEqual(a.titles);
    expect(j.items.map((i: Json) => new Date(i.date_published).toISOString())).toEqual(a.days);

    // Stable: the same ids on a second request.
    expect(readAtom((await fetchFeed(`/feeds/listings/${listing}.atom`)).body).ids).toEqual(a.ids);
  });

  it('the product, new-deals, search and shelf feeds answer their scope on the real data', async () => {
    const cases: [string, string][] = [
      [`/feeds/products/${seed.productId}`, `product_id=${seed.productId}&days=30`],
      ['/feeds/deals/woolworths', 'retailer=woolworths&kind=special'],
      ['/feeds/deals/woolworths', 'retailer=woolworths&kind=member'],
      ['/feeds/search', 'q=mandarins&direction=drop'],
    ];
    for (const [path, query] of cases) {
      const kind = /kind=(\w+)/.exec(query)?.[1];
      const suffix = path.endsWith('/search') ? '?q=mandarins' : kind && kind !== 'special' ? `?kind=${kind}` : '';
      const op = await changes(query);
      const a = readAtom((await fetchFeed(`${path}.atom${suffix}`)).body);
      expect(a.ids, path).toEqual(op.changes.map((c: Json) => `urn:uuid:${nameUuid(c.id)}`));
      const j = readJson((await fetchFeed(`${path}.json${suffix}`)).body);
      expect(j.items.map((i: Json) => i.id), path).toEqual(op.changes.map((c: Json) => c.id));
    }
    // On the real data Woolworths' new specials are the store day's (the national log ends months before).
    const deals = readJson((await fetchFeed('/feeds/deals/woolworths.json')).body);
    expect(deals.items.length).toBeGreaterThan(0);
    expect(deals.title).toBe('New special deals at Woolworths');
    for (const i of deals.items) expect(new Date(i.date_published).toISOString().slice(0, 10)).toBe(STORE_DAY);
    const search = readJson((await fetchFeed('/feeds/search.json?q=mandarins')).body);
    expect(search.items.length).toBeGreaterThan(0);
    // A shelf with no listings (no views built here) is an empty feed that says so, not an error.
    const shelf = await fetchFeed(`/feeds/shelves/${departments()[0].slug}.atom`);
    expect(shelf.status).toBe(200);
    expect(readAtom(shelf.body).ids).toEqual([]);
  });

  it('an empty feed says why; the feed updated is the as_of day', async () => {
    const op = await changes(`listing_id=${listing}&days=1`);
    expect(op.total).toBe(0);
    const j = readJson((await fetchFeed(`/feeds/listings/${listing}.json?days=1`)).body);
    expect(j.items).toEqual([]);
    expect(j.description).toContain('no change in the 1 days to 2026-08-03');
    const smith = parseAtomFeed((await fetchFeed(`/feeds/listings/${listing}.atom?days=1`)).body) as Json;
    expect(smith.updated).toBe('2026-08-03T00:00:00.000Z');
  });

  it('limit bounds the length (1 … 100)', async () => {
    const a = readAtom((await fetchFeed(`/feeds/listings/${listing}.atom?limit=2`)).body);
    expect(a.ids.length).toBe(2);
    expect((await fetchFeed(`/feeds/listings/${listing}.atom?limit=101`)).status).toBe(400);
    expect((await fetchFeed(`/feeds/listings/${listing}.json?limit=0`)).status).toBe(400);
  });
});

describe('conditional GET', () => {
  it('ETag → If-None-Match 304; Last-Modified → If-Modified-Since 304; a changed query is a new tag', async () => {
    for (const ext of ['atom', 'json']) {
      const url = `/feeds/listings/${listing}.${ext}`;
      const first = await fetchFeed(url);
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^"[\w-]+"$/);
      expect((await fetchFeed(url)).headers.etag).toBe(etag);
      const again = await fetchFeed(url, { 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.body).toBe('');
      expect((await fetchFeed(url, { 'if-none-match': '"other"' })).status).toBe(200);
      const modified = first.headers['last-modified'];
      expect(typeof modified).toBe('string');
      expect((await fetchFeed(url, { 'if-modified-since': String(modified) })).status).toBe(304);
      expect((await fetchFeed(url, { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).status).toBe(200);
      expect((await fetchFeed(`${url}?limit=1`)).headers.etag).not.toBe(etag);
    }
  });
});

describe('errors', () => {
  it('404 for an unknown subject or format; 400 for bad parameters; the Error body in JSON', async () => {
    for (const url of [
      '/feeds/listings/99999999.atom',
      '/feeds/products/99999999.json',
      '/feeds/deals/nope.atom',
      '/feeds/shelves/nope.json',
      `/feeds/listings/${1}.rss`,
      `/feeds/listings/${1}`,
    ]) {
      const r = await fetchFeed(url);
      expect(r.status, url).toBe(404);
      expect(JSON.parse(r.body).error.status, url).toBe(404);
    }
    for (const url of [
      '/feeds/listings/x.atom',
      `/feeds/listings/${listing}.atom?days=91`,
      `/feeds/listings/${listing}.atom?direction=down`,
      '/feeds/deals/woolworths.json?kind=clearance',
      '/feeds/search.atom',
      `/feeds/search.json?q=${'x'.repeat(101)}`,
    ]) {
      const r = await fetchFeed(url);
      expect(r.status, url).toBe(400);
      expect(JSON.parse(r.body).error.status, url).toBe(400);
    }
  });
});

describe('documented', () => {
  it('the OpenAPI document and llms.txt list every feed', async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    for (const p of ['/feeds/listings/{id}.{format}', '/feeds/products/{id}.{format}', '/feeds/deals/{retailer}.{format}', '/feeds/search.{format}', '/feeds/shelves/{slug}.{format}']) {
      expect(doc.paths[p]?.get?.responses?.[200]?.content?.['application/atom+xml'], p).toBeDefined();
    }
    const llms = (await app.inject({ url: '/llms.txt' })).body;
    expect(llms).toContain('## Feeds');
    expect(llms).toContain(`${BASE}/feeds/listings/{id}.{format}`);
  });
});
