/**
 * The basket-matching worker and the curators' basket commands against a real PostgreSQL
 * (workers/index/match.ts, workers/index/admin.ts), on the real basket file.
 *
 * Data: SYNTHETIC national Woolworths observations made here (names styled on the real catalogue,
 * prices and product ids invented), ingested with the real ingest so listings, national price
 * spans and first priced days are as production writes them. Most listings are first priced on
 * 2026-03-01, the calcium milk on 2026-03-05. Later steps rename listings by SQL to change what the
 * rules propose, and insert an index_run row by SQL to stand for a computed index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { runBasketMatching } from '../../workers/index/match.js';
import { LOCKS } from '../../src/db/locks.js';
import { BasketCommandError, basketHistory, basketLock, basketMatch, basketUnmatch } from '../../workers/index/admin.js';
import { loadBasket } from '../../src/domain/basket.js';
import { runMatching } from '../../workers/match/match.js';

const basket = loadBasket();
const itemId = (name: string) => {
  const it = basket.items.find((i) => i.name === name);
  if (!it) throw new Error(`no basket item ${name}`);
  return it.id;
};
const MILK = itemId('Milk - standard homogenised, 2 litres');
const CALCI = itemId('Milk, calcium enriched, 2 litres');
const EGGS = itemId('Eggs, dozen');
const BANANAS = itemId('Bananas, 1kg');
const RESTAURANT = basket.items.find((i) => !i.observable)!.id;

const DAY1 = '2026-03-01';
const DAY2 = '2026-03-05';
/** SYNTHETIC listings: key → [name, size, department, first day]. */
const LISTINGS: Record<string, [string, string | null, string, string]> = {
  milk: ['Anchor Blue Top Milk', '2L', 'Fridge & Deli', DAY1],
  milkSmall: ['Anchor Blue Top Milk', '500ml', 'Fridge & Deli', DAY1],
  milkLite: ['Woolworths Milk Lite', '2L', 'Fridge & Deli', DAY1],
  calci: ['Anchor Calci+ Milk Trim', '2L', 'Fridge & Deli', DAY2],
  eggs: ['Woolworths Eggs Barn Size 7', '12pack', 'Fridge & Deli', DAY1],
  bananas: ['Fresh Fruit Bananas Yellow Loose', 'per kg', 'Fruit & Veg', DAY1],
  bananaBread: ['Woolworths Banana Bread Loaf', null, 'Bakery', DAY1],
  meadow: ['Meadow Fresh Milk Standard Original', '2L', 'Fridge & Deli', DAY1],
  pams: ['Pams Milk Standard', '2L', 'Fridge & Deli', DAY1],
};

interface MatchRow {
  id: number; item_id: number; listing_id: number; origin: string; locked: boolean; confidence: number | null;
  valid_from: string; valid_to: string | null; ref_price: number | null; linked_relative: number | null;
}

describe('basket matching worker and curator commands', () => {
  let db: TestDatabase;
  const ids = new Map<string, number>();
  const id = (key: string) => {
    const v = ids.get(key);
    if (v === undefined) throw new Error(`no listing ${key}`);
    return v;
  };
  const rows = async (key: string) =>
    (await db.pool.query<MatchRow>('SELECT * FROM basket_match WHERE listing_id = $1 ORDER BY id', [id(key)])).rows;
  const snapshot = async () => ({
    matches: (await db.pool.query('SELECT * FROM basket_match ORDER BY id')).rows,
    decisions: (await db.pool.query('SELECT id, listing_id, action, item_id, previous_item_id, confidence, locked, actor, day, detail FROM basket_decision ORDER BY id')).rows,
  });
  const decisionCount = async () => (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM basket_decision')).rows[0].n;
  const rename = (key: string, name: string) => db.pool.query('UPDATE listing SET name = $2 WHERE id = $1', [id(key), name]);
  async function add(key: string, name: string, size: string | null, department: string, day: string) {
    await ingest(
      db.pool,
      [{ line: 2, record: { day, retailer: 'woolworths', store: '', external_id: `SYN-BASKET-${key}`, price: 399, name, size_text: size, category_path: [department] } }],
      { mode: 'changes', source: 'basket-match.test.ts (synthetic)', progress: false, today: '2026-11-27' },
    );
    const { rows: r } = await db.pool.query<{ id: number }>("SELECT id FROM listing WHERE external_id = $1", [`SYN-BASKET-${key}`]);
    ids.set(key, r[0].id);
  }

  beforeAll(async () => {
    db = await createTestDatabase('basket_match');
    for (const day of [DAY1, DAY2]) {
      const records = Object.entries(LISTINGS)
        .filter(([, l]) => l[3] === day)
        .map(([key, [name, size, department]], i) => ({
          line: i + 2,
          record: { day, retailer: 'woolworths', store: '', external_id: `SYN-BASKET-${key}`, price: 399, name, size_text: size, category_path: [department] },
        }));
      await ingest(db.pool, records, { mode: 'changes', source: 'basket-match.test.ts (synthetic)', progress: false, today: '2026-11-27' });
    }
    const { rows: r } = await db.pool.query<{ id: number; external_id: string }>('SELECT id, external_id FROM listing');
    for (const x of r) ids.set(x.external_id.replace('SYN-BASKET-', ''), x.id);
  });
  afterAll(async () => db?.drop());

  it('a dry run reports the matches and writes nothing', async () => {
    const r = await runBasketMatching(db.pool, { dryRun: true, progress: false });
    expect(r.dryRun).toBe(true);
    expect(r.matched).toBe(6);
    expect((await db.pool.query('SELECT 1 FROM basket_match')).rowCount).toBe(0);
    expect(await decisionCount()).toBe(0);
    expect((await db.pool.query('SELECT 1 FROM basket_item')).rowCount).toBe(0); // the basket sync rolled back too
  });

  it('matches clearly named listings from their first priced day, and refuses sizes, exclusions and other foods', async () => {
    const tuples = async () => Number((await db.pool.query(`SELECT reltuples FROM pg_class WHERE oid = 'basket_match'::regclass`)).rows[0].reltuples);
    expect(await tuples()).toBe(-1); // never analysed
    const r = await runBasketMatching(db.pool, { progress: false });
    // More than a tenth of the table written: analysed in the run (get_basket plans on its statistics).
    expect(await tuples()).toBe(6);
    expect(r).toMatchObject({
      listings: 9, matched: 6, rematched: 0, unmatched: 0, updated: 0, unchanged: 3, locked: 0, inForce: 6, decisions: 6, day: null, dryRun: false,
    });
    expect(r.items.matched).toBe(4);
    expect(r.items.observable).toBe(basket.items.filter((i) => i.observable).length);
    expect(r.basket.items).toBe(basket.items.length);

    const [milk] = await rows('milk');
    expect(milk).toMatchObject({ item_id: MILK, origin: 'auto', locked: false, valid_from: DAY1, valid_to: null, ref_price: null, linked_relative: null });
    expect(milk.confidence).toBeCloseTo(0.4 + 0.3 * 0.6 + 0.3, 9); // kind, one-word keyword "blue", exact 2 L
    expect(await rows('meadow')).toMatchObject([{ item_id: MILK, valid_from: DAY1 }]);
    expect(await rows('pams')).toMatchObject([{ item_id: MILK, valid_from: DAY1 }]);
    expect(await rows('calci')).toMatchObject([{ item_id: CALCI, valid_from: DAY2, valid_to: null }]);
    expect(await rows('eggs')).toMatchObject([{ item_id: EGGS, valid_from: DAY1 }]);
    expect(await rows('bananas')).toMatchObject([{ item_id: BANANAS, valid_from: DAY1 }]);
    // 500 ml is outside the 2 L item's bounds; "lite" is an exclusion; banana bread is not bananas.
    expect(await rows('milkSmall')).toEqual([]);
    expect(await rows('milkLite')).toEqual([]);
    expect(await rows('bananaBread')).toEqual([]);

    const { rows: log } = await db.pool.query('SELECT listing_id, action, item_id, previous_item_id, confidence, locked, actor, day, detail FROM basket_decision ORDER BY id');
    expect(log).toHaveLength(6);
    expect(log.every((d) => d.actor === 'matcher' && d.action === 'match' && d.locked === false && d.previous_item_id === null)).toBe(true);
    expect(log.find((d) => d.listing_id === id('milk'))).toMatchObject({
      item_id: MILK, day: DAY1, confidence: milk.confidence,
      detail: { keyword: 'blue', kind: 'milk', item_kind: 'milk', size_basis: 'pack', size: 2, unit: 'l', scores: { kind: 1, keyword: 0.6, size: 1 } },
    });
    expect(log.find((d) => d.listing_id === id('bananas'))).toMatchObject({ detail: { size_basis: 'weighable', kind: 'bananas' } });
  });

  it('a re-run over unchanged data writes nothing', async () => {
    const before = await snapshot();
    const r = await runBasketMatching(db.pool, { progress: false });
    expect(r).toMatchObject({ matched: 0, rematched: 0, unmatched: 0, updated: 0, unchanged: 9, locked: 0, decisions: 0, inForce: 6 });
    expect(r.basket.changed).toBe(0);
    expect(await snapshot()).toEqual(before);
  });

  it('before any index computation, changes take effect on the listing\'s first priced day', async () => {
    // Same item, another size score: the loose bananas become an 850 g bag (inside the 1 kg item's bounds).
    await db.pool.query("UPDATE listing SET size_text = '850g' WHERE id = $1", [id('bananas')]);
    await rename('eggs', 'Woolworths Cake Barn Size 7'); // no item admits it any more
    const r = await runBasketMatching(db.pool, { progress: false });
    expect(r).toMatchObject({ matched: 0, rematched: 0, unmatched: 1, updated: 1, decisions: 2, inForce: 5 });
    const bananas = await rows('bananas');
    expect(bananas).toHaveLength(1);
    expect(bananas[0]).toMatchObject({ item_id: BANANAS, valid_from: DAY1, valid_to: null });
    expect(bananas[0].confidence).toBeLessThan(0.88);
    expect(bananas[0].confidence).toBeGreaterThan(0.4 + 0.3 * 0.6 + 0.3 * 0.5 - 1e-9);
    // Closed on the day it started: never in force (no index was computed over it).
    expect(await rows('eggs')).toMatchObject([{ item_id: EGGS, valid_from: DAY1, valid_to: DAY1, locked: false }]);
    const h = await basketHistory(db.pool, id('bananas'));
    expect(h.map((d) => d.action)).toEqual(['match', 'rematch']);
    expect(h[1]).toMatchObject({
      actor: 'matcher', itemId: BANANAS, previousItemId: BANANAS, confidence: bananas[0].confidence, day: null,
      detail: { change: 'confidence', size_basis: 'pack', size: 0.85 },
    });
    expect((h[1].detail as { was: number }).was).toBeCloseTo(0.88, 9);
    expect(await basketHistory(db.pool, id('eggs'))).toMatchObject([
      { action: 'match', itemId: EGGS }, { action: 'unmatch', itemId: null, previousItemId: EGGS, day: DAY1, detail: { reason: expect.any(String) } },
    ]);
  });

  it('after an index run, new, changed and ended matches start or end on the day after its last day', async () => {
    await db.pool.query(
      `INSERT INTO index_run (id, first_day, last_day, anchor, basket_digest, state) VALUES (1, '2026-03-01', '2026-03-10', '{}', 'test', '{}')`,
    );
    await rename('meadow', 'Meadow Fresh Calci Milk'); // standard → calcium enriched
    await rename('eggs', 'Woolworths Eggs Barn Size 7'); // admitted again
    await add('late', 'Value Milk Standard', '2L', 'Fridge & Deli', '2026-03-12');
    const r = await runBasketMatching(db.pool, { progress: false });
    expect(r).toMatchObject({ day: '2026-03-11', matched: 2, rematched: 1, unmatched: 0, updated: 0, decisions: 3 });
    expect(await rows('meadow')).toMatchObject([
      { item_id: MILK, valid_from: DAY1, valid_to: '2026-03-11' },
      { item_id: CALCI, origin: 'auto', valid_from: '2026-03-11', valid_to: null },
    ]);
    expect(await rows('eggs')).toMatchObject([
      { item_id: EGGS, valid_from: DAY1, valid_to: DAY1 },
      { item_id: EGGS, valid_from: '2026-03-11', valid_to: null },
    ]);
    // D is the day after the computed history even for a listing first priced later.
    expect(await rows('late')).toMatchObject([{ item_id: MILK, valid_from: '2026-03-11' }]);
    const meadow = await basketHistory(db.pool, id('meadow'));
    expect(meadow[meadow.length - 1]).toMatchObject({ action: 'rematch', itemId: CALCI, previousItemId: MILK, day: '2026-03-11', detail: { was: { item_id: MILK } } });
    // Computed history (before 2026-03-11) was not rewritten: no interval starts or ends before it except those already there.
    const r2 = await runBasketMatching(db.pool, { progress: false });
    expect(r2.decisions).toBe(0);
  });

  it('a curator\'s match is locked and kept even when the matcher would pick another item', async () => {
    const r = await basketMatch(db.pool, id('pams'), CALCI, 'house brand counts as calcium here');
    expect(r).toEqual({ listingId: id('pams'), previousItemId: MILK, itemId: CALCI, locked: true, day: '2026-03-11', changed: true });
    expect(await rows('pams')).toMatchObject([
      { item_id: MILK, origin: 'auto', valid_from: DAY1, valid_to: '2026-03-11', locked: false },
      { item_id: CALCI, origin: 'manual', locked: true, confidence: 1, valid_from: '2026-03-11', valid_to: null },
    ]);
    const n = await decisionCount();
    const again = await basketMatch(db.pool, id('pams'), CALCI);
    expect(again.changed).toBe(false);
    expect(await decisionCount()).toBe(n);

    const run = await runBasketMatching(db.pool, { progress: false });
    expect(run).toMatchObject({ locked: 1, decisions: 0 });
    expect(await rows('pams')).toHaveLength(2);
    expect((await rows('pams'))[1]).toMatchObject({ item_id: CALCI, locked: true, valid_to: null });

    // Confirming the item the listing already has: same interval, now manual and locked.
    const [before] = await rows('milk');
    const c = await basketMatch(db.pool, id('milk'), MILK);
    expect(c).toMatchObject({ previousItemId: MILK, itemId: MILK, changed: true, day: null });
    expect(await rows('milk')).toEqual([{ ...before, origin: 'manual', locked: true, confidence: 1 }]);
    const h = await basketHistory(db.pool, id('pams'));
    expect(h[h.length - 1]).toMatchObject({ action: 'rematch', actor: 'curator', itemId: CALCI, previousItemId: MILK, locked: true, day: '2026-03-11', detail: { command: 'match', note: 'house brand counts as calcium here' } });
  });

  it('a curator\'s unmatch is never undone by the matcher', async () => {
    const r = await basketUnmatch(db.pool, id('calci'), 'not the FPI spec');
    expect(r).toEqual({ listingId: id('calci'), previousItemId: CALCI, itemId: null, locked: true, day: '2026-03-11', changed: true });
    expect(await rows('calci')).toMatchObject([{ item_id: CALCI, valid_from: DAY2, valid_to: '2026-03-11', locked: true }]);
    const n = await decisionCount();
    expect((await basketUnmatch(db.pool, id('calci'))).changed).toBe(false);
    expect(await decisionCount()).toBe(n);
    const run = await runBasketMatching(db.pool, { progress: false });
    expect(run).toMatchObject({ locked: 3, decisions: 0 }); // pams, milk, calci
    expect(await rows('calci')).toHaveLength(1);

    // A listing never matched that the matcher would match: a locked row that was never in force.
    await add('fresh', 'Anchor Milk Standard Blue', '2L', 'Fridge & Deli', '2026-03-13');
    const u = await basketUnmatch(db.pool, id('fresh'));
    expect(u).toMatchObject({ previousItemId: null, itemId: null, locked: true, day: '2026-03-11', changed: true });
    expect(await rows('fresh')).toMatchObject([{ item_id: MILK, origin: 'manual', locked: true, valid_from: '2026-03-11', valid_to: '2026-03-11' }]);
    expect((await runBasketMatching(db.pool, { progress: false })).decisions).toBe(0);
    expect(await rows('fresh')).toHaveLength(1);
    expect(await basketHistory(db.pool, id('fresh'))).toMatchObject([{ action: 'unmatch', actor: 'curator', detail: { refused: { item_id: MILK }, never_in_force: true } }]);

    // A listing never matched that no item admits: nothing to unmatch.
    await expect(basketUnmatch(db.pool, id('milkSmall'))).rejects.toThrow(BasketCommandError);
    await expect(basketUnmatch(db.pool, id('milkSmall'))).rejects.toThrow(/no basket match and the matcher proposes none/);
    expect(await rows('milkSmall')).toEqual([]);
  });

  it('lock pins a matcher\'s state; unlock hands it back', async () => {
    await basketLock(db.pool, id('bananas'), true, 'checked by hand');
    await db.pool.query("UPDATE listing SET size_text = 'per kg' WHERE id = $1", [id('bananas')]);
    await rename('bananas', 'Fresh Fruit Banana Chips'); // the rules would unmatch it
    expect((await runBasketMatching(db.pool, { progress: false })).unmatched).toBe(0);
    expect(await rows('bananas')).toMatchObject([{ item_id: BANANAS, valid_to: null, locked: true, origin: 'auto' }]);
    const n = await decisionCount();
    expect((await basketLock(db.pool, id('bananas'), true)).changed).toBe(false);
    expect(await decisionCount()).toBe(n);

    expect(await basketLock(db.pool, id('bananas'), false)).toMatchObject({ itemId: BANANAS, locked: false, changed: true });
    const r = await runBasketMatching(db.pool, { progress: false });
    expect(r.unmatched).toBe(1);
    expect(await rows('bananas')).toMatchObject([{ item_id: BANANAS, valid_from: DAY1, valid_to: '2026-03-11', locked: false }]);
    expect((await basketHistory(db.pool, id('bananas'))).map((d) => `${d.actor}:${d.action}`)).toEqual([
      'matcher:match', 'matcher:rematch', 'curator:lock', 'curator:unlock', 'matcher:unmatch',
    ]);

    // A listing with no row: locking has nothing to pin; unlocking changes nothing.
    await expect(basketLock(db.pool, id('milkLite'), true)).rejects.toThrow(/no basket match to lock/);
    expect(await basketLock(db.pool, id('milkLite'), false)).toMatchObject({ changed: false, locked: false });
  });

  it('a curator can match a listing the curator kept unmatched, from the next day', async () => {
    const r = await basketMatch(db.pool, id('calci'), CALCI);
    expect(r).toMatchObject({ previousItemId: null, itemId: CALCI, day: '2026-03-11', changed: true });
    expect(await rows('calci')).toMatchObject([
      { item_id: CALCI, valid_from: DAY2, valid_to: '2026-03-11', locked: true },
      { item_id: CALCI, origin: 'manual', valid_from: '2026-03-11', valid_to: null, locked: true },
    ]);
  });

  it('only active items match: an item dropped from the basket file loses its automatic matches', async () => {
    const reduced = { ...basket, items: basket.items.filter((i) => i.id !== EGGS) };
    const r = await runBasketMatching(db.pool, { progress: false, basket: reduced });
    expect(r.basket.retired).toBe(1);
    expect(r.unmatched).toBe(1);
    expect((await rows('eggs')).at(-1)).toMatchObject({ item_id: EGGS, valid_to: '2026-03-11' });
    await expect(basketMatch(db.pool, id('eggs'), EGGS, undefined, { basket: reduced })).rejects.toThrow(/retired/);
    // Back in the file: active again, matched again.
    const back = await runBasketMatching(db.pool, { progress: false });
    expect(back.matched).toBe(1);
    expect((await rows('eggs')).at(-1)).toMatchObject({ item_id: EGGS, valid_from: '2026-03-11', valid_to: null });
  });

  it('refuses unknown or malformed ids and unobservable items with a BasketCommandError', async () => {
    await expect(basketMatch(db.pool, 999_999, MILK)).rejects.toThrow(new BasketCommandError('no listing 999999'));
    await expect(basketMatch(db.pool, id('milkSmall'), 99_999)).rejects.toThrow(new BasketCommandError('no basket item 99999'));
    await expect(basketMatch(db.pool, id('milkSmall'), RESTAURANT)).rejects.toThrow(/not observable/);
    await expect(basketMatch(db.pool, 0, MILK)).rejects.toThrow(BasketCommandError);
    await expect(basketMatch(db.pool, id('milkSmall'), 1.5)).rejects.toThrow(/item id must be a positive integer/);
    await expect(basketUnmatch(db.pool, 999_999)).rejects.toThrow(BasketCommandError);
    await expect(basketLock(db.pool, 999_999, true)).rejects.toThrow(BasketCommandError);
    await expect(basketHistory(db.pool, 999_999)).rejects.toThrow(BasketCommandError);
    expect(await rows('milkSmall')).toEqual([]);
  });

  it('the decision log is append-only, oldest first', async () => {
    const h = await basketHistory(db.pool, id('pams'));
    expect(h.map((d) => `${d.actor}:${d.action}`)).toEqual(['matcher:match', 'curator:rematch']);
    expect(Number(h[0].id)).toBeLessThan(Number(h[1].id));
    await expect(db.pool.query("UPDATE basket_decision SET actor = 'curator'")).rejects.toThrow(/append-only/);
    await expect(db.pool.query('DELETE FROM basket_decision')).rejects.toThrow(/append-only/);
  });

  it('a curator command waits for a running match (the same advisory lock)', async () => {
    const holder = await db.pool.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [LOCKS.basketMatch.key]);
      let done = false;
      const p = basketLock(db.pool, id('pams'), false).then((r) => ((done = true), r));
      await new Promise((r) => setTimeout(r, 300));
      expect(done).toBe(false);
      await holder.query('SELECT pg_advisory_unlock($1)', [LOCKS.basketMatch.key]);
      expect((await p).changed).toBe(true);
    } finally {
      holder.release();
    }
  });

  it('without an index run again (a backfill from scratch), a change never starts or ends before the latest interval', async () => {
    await db.pool.query('DELETE FROM index_run');
    await rename('meadow', 'Meadow Fresh Milk Lite'); // excluded: the calcium match from 2026-03-11 ends
    expect((await runBasketMatching(db.pool, { progress: false })).unmatched).toBe(1);
    await rename('meadow', 'Meadow Fresh Milk Standard Original');
    expect((await runBasketMatching(db.pool, { progress: false })).matched).toBe(1);
    // First priced day is 2026-03-01, but the intervals already reach 2026-03-11: none overlaps.
    expect((await rows('meadow')).map((m) => [m.item_id, m.valid_from, m.valid_to])).toEqual([
      [MILK, DAY1, '2026-03-11'],
      [CALCI, '2026-03-11', '2026-03-11'],
      [MILK, '2026-03-11', null],
    ]);
  });

  it('kinds come from the stored generics once the product matcher has run (the same as classifying)', async () => {
    // Until now no listing had a generic: every examined listing was classified.
    await runMatching(db.pool, { progress: false }); // writes generics (workers/match/generics.ts)
    const before = await snapshot();
    const stored = await runBasketMatching(db.pool, { progress: false });
    expect(stored.decisions).toBe(0);
    expect(stored.kinds.stored).toBeGreaterThan(0);
    const classified = await runBasketMatching(db.pool, { progress: false, kinds: 'classify' });
    expect(classified.decisions).toBe(0);
    expect(classified.kinds).toEqual({ stored: 0, classified: stored.kinds.stored + stored.kinds.classified });
    expect(await snapshot()).toEqual(before);

    // A listing edited behind the product matcher's back keeps its stale stored kind (bakery) until
    // the matcher runs again; `kinds: 'classify'` sees the edit at once.
    await db.pool.query("UPDATE listing SET name = 'Woolworths Eggs Barn Size 6', size_text = '12pack', category_path = '{\"Fridge & Deli\"}' WHERE id = $1", [id('bananaBread')]);
    expect((await runBasketMatching(db.pool, { dryRun: true, progress: false })).matched).toBe(0);
    expect((await runBasketMatching(db.pool, { dryRun: true, progress: false, kinds: 'classify' })).matched).toBe(1);
    await runMatching(db.pool, { progress: false });
    expect((await runBasketMatching(db.pool, { progress: false })).matched).toBe(1);
    expect(await rows('bananaBread')).toMatchObject([{ item_id: EGGS, origin: 'auto', valid_to: null }]);
  });
});
