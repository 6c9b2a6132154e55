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
import { createTestDatabase, DATA_DIR, type TestDatabase } from '../helpers/db.js';
import { importRealData } from '../../workers/import/index.js';
import { runMatching } from '../../workers/match/match.js';

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
  db = await createTestDatabase('catalogue_search');
  await importRealData(db.pool, DATA_DIR, { progress: false });
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

  it('looks up a real barcode and suggests real brands', async () => {
    const gtin = (await get('/api/v1/gtin/9354829000064')).body as { name: string; offers: { retailer: string; name: string }[] };
    expect(gtin.offers.map((o) => o.name)).toContain('fresh fruit bananas yellow loose');
    // The GTIN-13 and its GTIN-14 form are one item.
    expect((await get('/api/v1/gtin/09354829000064')).body).toEqual(gtin);
    const s = (await get('/api/v1/suggestions?q=anch')).body as { kind: string; label: string }[];
    expect(s).toContainEqual(expect.objectContaining({ kind: 'brand', label: 'anchor' }));
  });
});
