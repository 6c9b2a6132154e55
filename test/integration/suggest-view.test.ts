/**
 * The type-ahead view's listings (issue 19 item 5; workers/views/suggest.ts `suggest_listing`,
 * `suggest_word`) and terms (`suggest_term`, kinds included): on a generated catalogue
 * (workers/synth/catalogue.ts, SYNTHETIC listings through the real ingest, classified into kinds,
 * some made unavailable and some linked to products), suggestions answered from the view equal,
 * item for item and in order, the live query's answers for prefixes of every kind
 * (one letter, common and rare words, several words, longer than a word key, LIKE wildcards,
 * accents), and a stale view (its version no longer the database's) is not read: the live path
 * answers, and sees changes the view does not hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { prng } from '../helpers/prng.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { runViews } from '../../workers/views/run.js';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { createEmbeddedBackend, suggestViewsCurrent, WORD_KEY_CHARS, type SuggestViewTuning } from '../../src/search/embedded.js';
import { suggestions, type SearchDeps } from '../../src/services/search.js';
import { syntheticListings, syntheticObservations } from '../bench/synthetic-catalogue.js';
import { assignGenerics } from '../../workers/match/generics.js';
import { inTransaction } from '../../src/db/transaction.js';

/** Enough listings that one-letter prefixes pass FEW_WORD_HITS and their tiers are walked. */
const LISTINGS = 6000;

let db: TestDatabase;
let deps: SearchDeps;
let prefixes: string[];

/**
 * The view's lookup with lowered thresholds, so this catalogue takes every path: every prefix with
 * a word key walks the tiers (a few rows each, then reads the tier's keys), or reads the keys at once.
 */
const TUNINGS: SuggestViewTuning[] = [{ fewWordHits: 0, walkRows: 40 }, { fewWordHits: 0, walkRows: 0 }, { fewWordHits: 50, walkRows: 300 }];

beforeAll(async () => {
  db = await createTestDatabase('suggest_view');
  deps = { pool: db.pool, search: createEmbeddedBackend(db.pool) };
  await ingest(db.pool, syntheticObservations(syntheticListings(LISTINGS)), { progress: false, source: 'test: suggest view' });
  // Kinds (through generics), suggested with the categories and counted by the listings sharing them.
  await inTransaction(db.pool, (client) => assignGenerics(client));
  // Unavailable listings (the last tiers of the order), and linked ones (listed as their product).
  await db.pool.query('UPDATE listing SET available = false WHERE id % 5 = 0');
  await db.pool.query(`
    WITH linked AS (SELECT id, name, brand FROM listing WHERE id % 11 = 0),
    made AS (INSERT INTO product (name, brand) SELECT name, brand FROM linked ORDER BY id RETURNING id, name, brand)
    UPDATE listing l SET product_id = m.id FROM linked, made m
    WHERE l.id = linked.id AND m.name = linked.name AND m.brand IS NOT DISTINCT FROM linked.brand`);
  await db.pool.query('ANALYZE');
  // Prefixes: every kind the word keys must serve, then word starts of random listings cut at
  // random lengths (one letter up to past the key length, across words).
  const random = prng(19005);
  const names = (await db.pool.query<{ search_name: string }>('SELECT search_name FROM listing ORDER BY id')).rows.map((r) => r.search_name);
  prefixes = ['s', 'x', 'q', 'ga', 'no', 'zq', 'in', 'with', 'san remo', 'garlic br', 'crème', 'Wattie', '%', '_a', 'a_', '\\', "o'", 'no added s'];
  while (prefixes.length < 90) {
    const words = names[Math.floor(random() * names.length)].split(' ');
    const from = words.slice(Math.floor(random() * words.length)).join(' ');
    const cut = 1 + Math.floor(random() * Math.min(from.length, WORD_KEY_CHARS + 12));
    prefixes.push(from.slice(0, cut));
  }
}, 600_000);

afterAll(async () => {
  await db?.drop();
});

/** Every prefix's suggestions at limits 1, 8 and 12 (through `via`, default the ordinary backend). */
async function answers(via: SearchDeps = deps): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of prefixes) for (const limit of [1, 8, 12]) out.push([q, limit, await suggestions(via, { q, limit })]);
  return out;
}

describe('suggestions from the type-ahead view', () => {
  it('equal the live answers on a generated catalogue, and a stale view falls back to the live path', async () => {
    expect(await suggestViewsCurrent(db.pool)).toBe(false);
    const live = await answers();

    await runViews(db.pool);
    expect(await suggestViewsCurrent(db.pool)).toBe(true);
    const unlinked = (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM listing WHERE product_id IS NULL')).rows[0].n;
    expect((await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM suggest_listing')).rows[0].n).toBe(unlinked);
    const fromView = await answers();
    expect(fromView).toEqual(live);
    for (const suggestView of TUNINGS) {
      expect(await answers({ pool: db.pool, search: createEmbeddedBackend(db.pool, { suggestView }) }), JSON.stringify(suggestView)).toEqual(live);
    }
    // The answers hold products and listings of both availabilities, so every tier was compared.
    const hits = fromView.flatMap((a) => (a as [string, number, { kind: string; id: number | null; label: string }[]])[2]);
    expect(hits.some((h) => h.kind === 'product')).toBe(true);
    // Kinds among the categories (their labels are the taxonomy's, src/domain/kinds.ts).
    const kindLabels = new Set((await db.pool.query<{ label: string }>('SELECT label FROM kind')).rows.map((r) => r.label));
    expect(hits.some((h) => h.kind === 'category' && kindLabels.has(h.label))).toBe(true);
    const listed = hits.filter((h) => h.kind === 'listing').map((h) => h.id);
    expect(listed.length).toBeGreaterThan(200);
    const unavailable = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM listing WHERE id = ANY($1::int[]) AND NOT available', [listed]);
    expect(unavailable.rows[0].n).toBeGreaterThan(0);

    // Stale: a write moves the data version; the view is no longer read, and the live answer
    // holds what the view does not.
    await db.pool.query(`UPDATE listing SET name = 'Zqxv Suggest Probe', available = true WHERE id = (SELECT min(id) FROM listing WHERE product_id IS NULL)`);
    await bumpDataVersion(db.pool, 'test: the suggest view goes stale');
    expect(await suggestViewsCurrent(db.pool)).toBe(false);
    const probe = await suggestions(deps, { q: 'zqxv' });
    expect(probe.map((h) => [h.kind, h.label])).toEqual([['listing', 'Zqxv Suggest Probe']]);
    // Rebuilt, the view answers the same as the live path again.
    const staleLive = await answers();
    await runViews(db.pool);
    expect(await suggestViewsCurrent(db.pool)).toBe(true);
    expect(await answers()).toEqual(staleLive);
    expect(await suggestions(deps, { q: 'zqxv' })).toEqual(probe);
  }, 600_000);
});
