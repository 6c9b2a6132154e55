/**
 * The index worker (workers/index/compute.ts) against a real PostgreSQL: hand-computable cases
 * written as listings, national spans and basket matches by SQL (or ingested as observation rows),
 * run through `runIndex`, read back from index_item_day, index_day, index_run and basket_match.
 * Prices are made up for the cases (not real data). The basket is the real basket file; items used:
 * Apples 1kg (id 1, fruit & vegetables, per kg), Bananas 1kg (6, per kg), Beef mince 1kg (8, meat,
 * per kg), Sugar white 1.5kg (140, grocery food, per pack).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { loadBasket } from '../../src/domain/basket.js';
import { addDays } from '../../src/domain/days.js';
import { syncBasket } from '../../workers/index/basket.js';
import { runIndex } from '../../workers/index/compute.js';
import { OFFICIAL_FPI_FILE } from '../../workers/index/official.js';
import { ingest } from '../../workers/ingest/ingest.js';
import type { ObservationInput } from '../../workers/ingest/format.js';
import { spawn } from 'node:child_process';
import { ROOT_DIR } from '../../src/env.js';
import { GEKS_WINDOW_DAYS, GEKS_SPLICE } from '../../src/domain/geks-index.js';
import { IndexMethodError, type IndexMethod } from '../../src/domain/index-method.js';
import { indexMethod } from '../../src/services/index-method.js';
import { indexJob } from '../../workers/jobs/catalog.js';
import { geksNowcast, prepareItems } from '../bench/index-multilateral.js';
import { testRunner } from '../helpers/jobs.js';

const APPLES = 1;
const BANANAS = 6;
const MINCE = 8;
const SUGAR = 140;

const basket = loadBasket();
const groupWeight = (code: string) => basket.groups.find((g) => g.code === code)!.weight;
const itemWeight = (id: number) => basket.items.find((i) => i.id === id)!.weight;
/** Observable basket weight (the four shelf groups). */
const OBSERVABLE_W = basket.groups.filter((g) => g.observable).reduce((s, g) => s + g.weight, 0);

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('index_worker');
  await syncBasket(db.pool);
});
afterAll(async () => db?.drop());
beforeEach(async () => {
  await db.pool.query(`TRUNCATE listing, national_price_span, store_price_span, listing_day_stats, collection, basket_match,
    basket_decision, index_item_day, index_day, index_run, official_index CASCADE`);
  await db.pool.query('UPDATE retailer SET last_national_day = NULL, covered_day = NULL, last_run = NULL');
});

/** A listing (of Woolworths unless `slug` says otherwise) with its size fields; returns its id. */
async function listing(ext: string, size: { qty?: number; unit?: string; pack?: number; weighable?: boolean } = {}, slug = 'woolworths'): Promise<number> {
  const r = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, first_seen, qty, unit, pack_count, weighable)
     SELECT id, $1, 'Test item ' || $1, '2025-01-01', $2, $3, $4, $5 FROM retailer WHERE slug = $6 RETURNING id`,
    [ext, size.qty ?? null, size.unit ?? null, size.pack ?? null, size.weighable ?? false, slug],
  );
  return r.rows[0].id;
}
/** A national span (last_day null = open). */
async function span(listingId: number, first: string, last: string | null, price: number, promo: [number, number] | null = null) {
  await db.pool.query(
    'INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind) VALUES ($1, $2, $3, $4, $5, $6)',
    [listingId, first, last, price, promo?.[0] ?? null, promo?.[1] ?? null],
  );
}
/** Sets a chain's last national collection day (where open spans end). */
async function lastDay(day: string, slug = 'woolworths') {
  await db.pool.query('UPDATE retailer SET last_national_day = $1, covered_day = $1 WHERE slug = $2', [day, slug]);
}
/** A basket match [validFrom, validTo); returns its id. */
async function match(listingId: number, itemId: number, validFrom: string, validTo: string | null = null): Promise<number> {
  const r = await db.pool.query<{ id: number }>(
    `INSERT INTO basket_match (item_id, listing_id, origin, valid_from, valid_to) VALUES ($1, $2, 'manual', $3, $4) RETURNING id`,
    [itemId, listingId, validFrom, validTo],
  );
  return r.rows[0].id;
}
async function itemDays(itemId: number) {
  const r = await db.pool.query<{ day: string; relative: number | null; n: number | null; stale: boolean | null }>(
    'SELECT day::text, relative, n, stale FROM index_item_day WHERE item_id = $1 ORDER BY day', [itemId],
  );
  return new Map(r.rows.map((x) => [x.day, x]));
}
async function indexDays(groupId: number) {
  const r = await db.pool.query<{ day: string; raw: number; anchored: number | null; coverage: number; items: number; listings: number }>(
    'SELECT day::text, raw, anchored, coverage, items, listings FROM index_day WHERE group_id = $1 ORDER BY day', [groupId],
  );
  return new Map(r.rows.map((x) => [x.day, x]));
}
async function link(matchId: number) {
  const r = await db.pool.query<{ ref_price: number | null; linked_relative: number | null }>(
    'SELECT ref_price, linked_relative FROM basket_match WHERE id = $1', [matchId],
  );
  return r.rows[0];
}
/** Everything the worker writes, to compare runs. */
async function snapshot() {
  const q = async (sql: string) => (await db.pool.query(sql)).rows;
  return {
    items: await q('SELECT item_id, day::text, relative, n, stale FROM index_item_day ORDER BY item_id, day'),
    days: await q('SELECT group_id, day::text, raw, anchored, coverage, items, listings FROM index_day ORDER BY group_id, day'),
    links: await q('SELECT id, ref_price, linked_relative FROM basket_match ORDER BY id'),
    run: await q('SELECT first_day::text, last_day::text, anchor, basket_digest, state, computed_at FROM index_run'),
  };
}
/** Deep equality with numbers equal to 1e-9 (relative). */
function expectClose(a: unknown, b: unknown, at = '') {
  if (typeof a === 'number' && typeof b === 'number') {
    expect(Math.abs(a - b), `${at}: ${a} vs ${b}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b)));
  } else if (a && b && typeof a === 'object' && typeof b === 'object') {
    expect(Object.keys(a).sort(), at).toEqual(Object.keys(b).sort());
    for (const k of Object.keys(a)) expectClose((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
  } else {
    expect(a, at).toEqual(b);
  }
}

describe('the method through the database', () => {
  it('a listing joining mid-series does not move the item or the index; its link is stored', async () => {
    // L1: loose apples (per kg) 300 on 03-01, 330 from 03-02. L2: a 1 kg bag (500 c, so 500 c/kg),
    // priced from 03-01 but matched from 03-03; 450 from 03-04.
    const l1 = await listing('L1', { weighable: true });
    const l2 = await listing('L2', { qty: 1000, unit: 'g' });
    await span(l1, '2025-03-01', '2025-03-01', 300);
    await span(l1, '2025-03-02', null, 330);
    await span(l2, '2025-03-01', '2025-03-03', 500);
    await span(l2, '2025-03-04', null, 450);
    await lastDay('2025-03-05');
    const m1 = await match(l1, APPLES, '2025-01-01');
    const m2 = await match(l2, APPLES, '2025-03-03');

    const r = await runIndex(db.pool, { progress: false });
    expect(r).toMatchObject({ mode: 'full', days: 5, firstDay: '2025-03-01', lastDay: '2025-03-05', items: 1, listings: 2 });
    const apples = await itemDays(APPLES);
    expect(apples.get('2025-03-01')).toEqual({ day: '2025-03-01', relative: 1, n: 1, stale: false });
    expect(apples.get('2025-03-02')!.relative).toBeCloseTo(1.1, 12); // 330 / 300
    expect(apples.get('2025-03-02')!.n).toBe(1); // L2 priced, but not yet matched
    // 03-03: L2 joins at 500 c/kg (a price level far from L1's): the item stays at 1.1
    expect(apples.get('2025-03-03')!.relative).toBeCloseTo(1.1, 12);
    expect(apples.get('2025-03-03')!.n).toBe(2);
    // 03-04: L1 330 → 330, L2 500 → 450: 1.1 × √(1 × 0.9) = 1.0435516…
    expect(apples.get('2025-03-04')!.relative).toBeCloseTo(1.1 * Math.sqrt(0.9), 12);
    const all = await indexDays(0);
    expect(all.get('2025-03-02')!.raw).toBeCloseTo(1100, 9);
    expect(all.get('2025-03-03')!.raw).toBeCloseTo(1100, 9); // did not move on the join
    expect(all.get('2025-03-03')).toMatchObject({ items: 1, listings: 2 });
    expect(all.get('2025-03-05')!.raw).toBeCloseTo(1100 * Math.sqrt(0.9), 9);
    expect((await indexDays(1)).get('2025-03-04')!.raw).toBeCloseTo(1100 * Math.sqrt(0.9), 9);
    // links: L2 joined at ref_price 500 (c/kg) when the item stood at 1.1; L1 at 300, 1.0
    expect(await link(m2)).toEqual({ ref_price: 500, linked_relative: expect.closeTo(1.1, 12) });
    expect(await link(m1)).toEqual({ ref_price: 300, linked_relative: 1 });
    // groups: rows for all food and groups 1–4, none for restaurant meals (5)
    const groups = await db.pool.query('SELECT DISTINCT group_id FROM index_day ORDER BY 1');
    expect(groups.rows.map((g) => g.group_id)).toEqual([0, 1, 2, 3, 4]);
  });

  it('carries an unpriced item forward (n = 0) after the 14-day cap, stale after 14 more days', async () => {
    const l = await listing('B1', { weighable: true });
    await span(l, '2025-01-01', '2025-01-01', 100);
    await span(l, '2025-01-02', '2025-01-02', 110);
    await lastDay('2025-02-01');
    await match(l, BANANAS, '2025-01-01');
    // B2: counted on 01-01 under a match that ends 01-02; matched again from 01-20, when its only
    // price (01-01) is past the cap: the new match was never counted, so it gets no link.
    const l2 = await listing('B2', { weighable: true });
    await span(l2, '2025-01-01', '2025-01-01', 200);
    await match(l2, BANANAS, '2025-01-01', '2025-01-02');
    const reopened = await match(l2, BANANAS, '2025-01-20');
    await runIndex(db.pool, { progress: false });
    expect(await link(reopened)).toEqual({ ref_price: null, linked_relative: null });
    const b = await itemDays(BANANAS);
    expect(b.size).toBe(32);
    expect(b.get('2025-01-01')).toMatchObject({ n: 2, relative: 1 });
    expect(b.get('2025-01-02')).toMatchObject({ n: 1, relative: expect.closeTo(1.1, 12) }); // B2's drop moves nothing
    // 01-16: the 01-02 price is 14 days old, still counted
    expect(b.get('2025-01-16')).toMatchObject({ n: 1, stale: false, relative: expect.closeTo(1.1, 12) });
    // 01-17: 15 days old, not counted: carried forward, not stale yet
    expect(b.get('2025-01-17')).toMatchObject({ n: 0, stale: false, relative: expect.closeTo(1.1, 12) });
    // last counted 01-16: carried 14 days on 01-30, stale from 01-31
    expect(b.get('2025-01-30')!.stale).toBe(false);
    expect(b.get('2025-01-31')).toMatchObject({ n: 0, stale: true, relative: expect.closeTo(1.1, 12) });
    const all = await indexDays(0);
    // coverage: the bananas' weight share of the observable basket while counted, 0 after
    expect(all.get('2025-01-16')!.coverage).toBeCloseTo(itemWeight(BANANAS) / OBSERVABLE_W, 12);
    expect(all.get('2025-01-17')).toMatchObject({ coverage: 0, items: 0, listings: 0, raw: expect.closeTo(1100, 9) });
    expect(all.get('2025-02-01')!.raw).toBeCloseTo(1100, 9);
  });

  it('counts specials (promo_kind 1) and not club prices (2)', async () => {
    const l = await listing('S1', { qty: 1500, unit: 'g' });
    await span(l, '2025-05-01', '2025-05-01', 500);
    await span(l, '2025-05-02', '2025-05-02', 500, [400, 1]); // special: 400 counts
    await span(l, '2025-05-03', null, 500, [400, 2]); // club price: the shelf price counts
    await lastDay('2025-05-03');
    await match(l, SUGAR, '2025-05-01');
    await runIndex(db.pool, { progress: false });
    const s = await itemDays(SUGAR);
    expect(s.get('2025-05-01')!.relative).toBe(1);
    expect(s.get('2025-05-02')!.relative).toBeCloseTo(0.8, 12);
    expect(s.get('2025-05-03')!.relative).toBeCloseTo(1, 12);
    expect((await indexDays(3)).get('2025-05-02')!.raw).toBeCloseTo(800, 9); // grocery food
  });

  it('compares a per-kg item per kg (pack total = qty × pack_count; weighable as is) and a per-pack item per pack', async () => {
    const p500 = await listing('M500', { qty: 500, unit: 'g' }); // 1000 c → 2000 c/kg
    const p1k = await listing('M1K', { qty: 1000, unit: 'g' }); // 2000 c → 2000 c/kg
    const p2x = await listing('M2X', { qty: 500, unit: 'g', pack: 2 }); // 2 × 500 g for 2000 c → 2000 c/kg
    const loose = await listing('MKG', { weighable: true }); // 1999 c/kg
    const sugar = await listing('S15', { qty: 1500, unit: 'g' }); // per pack: 300 c
    await span(p500, '2025-06-01', '2025-06-01', 1000);
    await span(p500, '2025-06-02', null, 1100); // 2200 c/kg
    await span(p1k, '2025-06-01', null, 2000);
    await span(p2x, '2025-06-01', null, 2000);
    await span(loose, '2025-06-01', null, 1999);
    await span(sugar, '2025-06-01', null, 300);
    await lastDay('2025-06-02');
    const ms = [await match(p500, MINCE, '2025-06-01'), await match(p1k, MINCE, '2025-06-01'), await match(p2x, MINCE, '2025-06-01'), await match(loose, MINCE, '2025-06-01')];
    const ms2 = await match(sugar, SUGAR, '2025-06-01');
    await runIndex(db.pool, { progress: false });
    const refs = await Promise.all(ms.map(link));
    expect(refs.map((x) => x.ref_price)).toEqual([2000, 2000, 2000, 1999]);
    expect((await link(ms2)).ref_price).toBe(300);
    // mince on 06-02: Jevons of 1.1, 1, 1, 1 = 1.1^(1/4)
    expect((await itemDays(MINCE)).get('2025-06-02')).toMatchObject({ n: 4, relative: expect.closeTo(1.1 ** 0.25, 12) });
  });

  it('weights the groups: all food = Σ W_g A_g / Σ W_g over the groups present', async () => {
    const a = await listing('A1', { weighable: true });
    const m = await listing('M1', { weighable: true });
    await span(a, '2025-07-01', '2025-07-01', 100);
    await span(a, '2025-07-02', null, 110);
    await span(m, '2025-07-01', '2025-07-01', 100);
    await span(m, '2025-07-02', null, 90);
    await lastDay('2025-07-02');
    await match(a, APPLES, '2025-07-01');
    await match(m, MINCE, '2025-07-01');
    await runIndex(db.pool, { progress: false });
    const wf = groupWeight('fruit_veg'); // 0.13
    const wm = groupWeight('meat_poultry_fish'); // 0.15
    // (0.13 × 1.1 + 0.15 × 0.9) / 0.28 × 1000 = 992.857142…
    const all = (await indexDays(0)).get('2025-07-02')!;
    expect(all.raw).toBeCloseTo(((wf * 1.1 + wm * 0.9) / (wf + wm)) * 1000, 9);
    expect(all.raw).toBeCloseTo(992.857142857, 6);
    expect(all).toMatchObject({ items: 2, listings: 2 });
    expect(all.coverage).toBeCloseTo((itemWeight(APPLES) + itemWeight(MINCE)) / OBSERVABLE_W, 12);
    expect((await indexDays(1)).get('2025-07-02')!.raw).toBeCloseTo(1100, 9);
    expect((await indexDays(2)).get('2025-07-02')!.raw).toBeCloseTo(900, 9);
    // a group with nothing priced stays at 1000 with coverage 0
    expect((await indexDays(3)).get('2025-07-02')).toMatchObject({ raw: 1000, coverage: 0, items: 0, listings: 0 });
  });
});

describe('incremental runs', () => {
  const D = (k: number) => addDays('2025-08-01', k - 1); // day k, 1-based
  /** Made-up national observations of one day (prices move on some days; specials and club prices). */
  function day(k: number, listings: Record<string, number | [number, number, number] | null>, retailer = 'woolworths'): ObservationInput[] {
    return Object.entries(listings)
      .filter(([, p]) => p != null)
      .map(([ext, p]) => {
        const [price, promo_price, promo_kind] = Array.isArray(p) ? p : [p as number, null, null];
        return { day: D(k), retailer, store: null, external_id: ext, price, promo_price, promo_kind } as ObservationInput;
      });
  }
  const rows = (obs: ObservationInput[]) => obs.map((record, i) => ({ line: i + 2, record }));
  /** Prices of day k: listing ext's price drifts, with a special every 5th day and a club price every 7th. */
  function prices(k: number, exts: string[]) {
    const out: Record<string, number | [number, number, number] | null> = {};
    exts.forEach((ext, j) => {
      const p = 200 + 40 * j + ((k * (j + 3)) % 7) * 10;
      out[ext] = k % 5 === j % 5 ? [p, p - 30, 1] : k % 7 === j % 7 ? [p, p - 20, 2] : p;
    });
    return out;
  }

  it('continues from the stored state: days 1…6 then 7…12 equal a full run over 1…12; a re-run writes nothing', async () => {
    const woolies = ['A1', 'A2', 'M1', 'S1'];
    for (let k = 1; k <= 6; k++) {
      const obs = [...day(k, prices(k, woolies)), ...(k >= 3 ? day(k, { A3: 350 + k }) : [])];
      await ingest(db.pool, rows(obs), { progress: false });
      if (k <= 4) await ingest(db.pool, rows(day(k, { P1: 800 + 10 * k }, 'paknsave')), { progress: false });
    }
    const id = async (ext: string) => (await db.pool.query<{ id: number }>('SELECT id FROM listing WHERE external_id = $1', [ext])).rows[0].id;
    await db.pool.query(`UPDATE listing SET weighable = true WHERE external_id IN ('A1', 'A2', 'A3')`);
    await db.pool.query(`UPDATE listing SET qty = 500, unit = 'g', pack_count = 2 WHERE external_id IN ('M1', 'P1')`);
    await db.pool.query(`UPDATE listing SET qty = 1500, unit = 'g' WHERE external_id = 'S1'`);
    await match(await id('A1'), APPLES, D(1));
    await match(await id('A2'), APPLES, D(1));
    await match(await id('M1'), MINCE, D(1));
    const sugar = await match(await id('S1'), SUGAR, D(1));
    await match(await id('P1'), MINCE, D(2));

    const first = await runIndex(db.pool, { progress: false });
    expect(first).toMatchObject({ mode: 'full', days: 6, firstDay: D(1), lastDay: D(6) });

    // As the matcher does: a new match starts the day after the last computed day, an ended one ends there.
    await match(await id('A3'), APPLES, D(7));
    await db.pool.query('UPDATE basket_match SET valid_to = $1 WHERE id = $2', [D(7), sugar]);
    for (let k = 7; k <= 12; k++) {
      const p = prices(k, woolies);
      if (k >= 8) p.A2 = null; // A2 vanishes (snapshot: its span closes on day 7), then carried within the cap
      await ingest(db.pool, rows([...day(k, p), ...day(k, { A3: 350 + (k % 3) * 25 })]), { progress: false });
    }
    const inc = await runIndex(db.pool, { progress: false });
    expect(inc).toMatchObject({ mode: 'incremental', days: 6, firstDay: D(1), lastDay: D(12), rows: { itemDays: 6 * 139, indexDays: 6 * 5 } });
    const incremental = await snapshot();
    const apples = await itemDays(APPLES);
    expect(apples.get(D(7))!.n).toBe(3); // A3 joined on day 7
    expect(apples.get(D(12))!.n).toBe(3); // A2 last priced day 7: still counted (cap) on day 12

    const full = await runIndex(db.pool, { progress: false, full: true });
    expect(full).toMatchObject({ mode: 'full', days: 12, reason: 'full run requested' });
    const recomputed = await snapshot();
    expectClose(incremental.items, recomputed.items, 'index_item_day');
    expectClose(incremental.days, recomputed.days, 'index_day');
    expectClose(incremental.links, recomputed.links, 'basket_match');
    expectClose(incremental.run[0].state, recomputed.run[0].state, 'index_run.state');
    expect(recomputed.links.filter((l) => l.ref_price != null)).toHaveLength(6);

    // Idempotent: nothing new, nothing written.
    const again = await runIndex(db.pool, { progress: false });
    expect(again).toMatchObject({ mode: 'unchanged', days: 0, reanchored: false, rows: { itemDays: 0, indexDays: 0, reanchored: 0, links: 0 } });
    expect(await snapshot()).toEqual(recomputed);
  });

  it('falls back to a full run when data of computed days changed', async () => {
    const a = await listing('A1', { weighable: true });
    const p = await listing('PK1', { weighable: true }, 'paknsave');
    await span(a, D(1), D(3), 300);
    await span(a, D(4), null, 310);
    await span(p, D(1), null, 500);
    await lastDay(D(6));
    await lastDay(D(3), 'paknsave'); // PAK'nSAVE last collected on day 3: its open span ends there
    await match(a, APPLES, D(1));
    await match(p, APPLES, D(1));
    expect(await runIndex(db.pool, { progress: false })).toMatchObject({ mode: 'full', lastDay: D(6) });
    expect((await itemDays(APPLES)).get(D(6))!.n).toBe(2); // PK1 carried within the cap

    // Woolworths collects days 7 and 8: only new days → incremental.
    await lastDay(D(8));
    expect(await runIndex(db.pool, { progress: false })).toMatchObject({ mode: 'incremental', days: 2 });

    // PAK'nSAVE collects day 5 (after its day 3, before the index's last day 8): its open span now
    // covers days 4 and 5, already computed → full.
    await lastDay(D(5), 'paknsave');
    const r = await runIndex(db.pool, { progress: false });
    expect(r).toMatchObject({ mode: 'full', days: 8 });
    expect(r.reason).toMatch(/prices or sizes changed on or before/);

    // A match starting on a computed day (the matcher never does this; it is checked) → full.
    const b = await listing('B1', { weighable: true });
    await span(b, D(2), null, 90);
    await match(b, BANANAS, D(6));
    const m = await runIndex(db.pool, { progress: false });
    expect(m).toMatchObject({ mode: 'full', days: 8 });
    expect(m.reason).toMatch(/basket matches changed on or before/);
    expect((await itemDays(BANANAS)).get(D(6))).toMatchObject({ n: 1, relative: 1 });
    expect((await itemDays(BANANAS)).get(D(5))).toMatchObject({ n: null, relative: null });

    // A re-parsed size of a matched listing changes the basis of all history → full; then unchanged.
    await db.pool.query(`UPDATE listing SET weighable = false, qty = 1000, unit = 'g' WHERE id = $1`, [a]);
    expect((await runIndex(db.pool, { progress: false })).mode).toBe('full');
    expect((await runIndex(db.pool, { progress: false })).mode).toBe('unchanged');
  });
});

describe('concurrent runs', () => {
  it('queue on the advisory lock: the second sees the result of the first and writes nothing', async () => {
    const a = await listing('A1', { weighable: true });
    await span(a, '2025-09-01', '2025-09-02', 300);
    await span(a, '2025-09-03', null, 330);
    await lastDay('2025-09-10');
    await match(a, APPLES, '2025-09-01');
    const runs = await Promise.all([runIndex(db.pool, { progress: false }), runIndex(db.pool, { progress: false })]);
    expect(runs.map((r) => r.mode).sort()).toEqual(['full', 'unchanged']);
    expect(runs.find((r) => r.mode === 'unchanged')!.rows).toEqual({ itemDays: 0, indexDays: 0, reanchored: 0, links: 0 });
    expect((await db.pool.query('SELECT count(*)::int AS n FROM index_day')).rows[0].n).toBe(10 * 5);
  });
});

describe('anchoring', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'index-official-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  /** Writes the official file (made-up values) under `dir`, as DATA_DIR holds it. */
  function official(lines: string[]) {
    const file = path.join(dir, OFFICIAL_FPI_FILE);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, ['series_ref,month,value', ...lines].join('\n') + '\n');
  }

  it('anchored = raw × official / mean(raw over the latest month observed on every day); re-anchors when that moves', async () => {
    // apples 300 c/kg on March 1–15, 330 from March 16: raw 1000 × 15 days, 1100 × 16 days; mean 32600 / 31
    const a = await listing('A1', { weighable: true });
    await span(a, '2025-03-01', '2025-03-15', 300);
    await span(a, '2025-03-16', null, 330);
    await lastDay('2025-04-10');
    await match(a, APPLES, '2025-03-01');
    official(['CPIM.SE901,2025-03,1300', 'CPIM.SE9011,2025-03,1400', 'CPIM.SE901,2025-04,1350']);
    const r = await runIndex(db.pool, { progress: false, dataDir: dir });
    expect(r.official).toBe(3);
    const kAll = (1300 * 31) / 32600;
    const kFruit = (1400 * 31) / 32600;
    // April has an official value but only 10 observed days: March is the anchor
    expect(r.anchors).toEqual([
      { groupId: 0, code: 'all', month: '2025-03', factor: expect.closeTo(kAll, 12) },
      { groupId: 1, code: 'fruit_veg', month: '2025-03', factor: expect.closeTo(kFruit, 12) },
      { groupId: 2, code: 'meat_poultry_fish', month: null, factor: null }, // coverage 0 every day
      { groupId: 3, code: 'grocery_food', month: null, factor: null },
      { groupId: 4, code: 'beverages', month: null, factor: null },
    ]);
    const all = await indexDays(0);
    expect(all.get('2025-03-20')!.anchored).toBeCloseTo(1100 * kAll, 9);
    expect(all.get('2025-04-05')!.anchored).toBeCloseTo(1100 * kAll, 9);
    const mean = await db.pool.query(`SELECT avg(anchored) AS a FROM index_day WHERE group_id = 0 AND day BETWEEN '2025-03-01' AND '2025-03-31'`);
    expect(mean.rows[0].a).toBeCloseTo(1300, 9); // the anchored mean over the anchor month is the official value
    expect((await indexDays(1)).get('2025-03-01')!.anchored).toBeCloseTo(1000 * kFruit, 9);
    expect((await indexDays(2)).get('2025-03-01')!.anchored).toBeNull();
    const run = await db.pool.query('SELECT anchor FROM index_run');
    expect(run.rows[0].anchor['0']).toEqual({ month: '2025-03', factor: expect.closeTo(kAll, 12) });

    // The chain collects to April 30: April is now observed in full, all food re-anchors on it
    // (1350 / 1100) for every stored day; fruit & vegetables has no official April and keeps March.
    await lastDay('2025-04-30');
    const inc = await runIndex(db.pool, { progress: false, dataDir: dir });
    expect(inc).toMatchObject({ mode: 'incremental', days: 20, reanchored: true });
    expect(inc.rows.reanchored).toBe(41); // all food, March 1 … April 10
    expect((await indexDays(0)).get('2025-03-01')!.anchored).toBeCloseTo(1000 * (1350 / 1100), 9);
    expect((await indexDays(0)).get('2025-04-30')!.anchored).toBeCloseTo(1350, 9);
    expect((await indexDays(1)).get('2025-04-30')!.anchored).toBeCloseTo(1100 * kFruit, 9);

    // A new official month, no new day: the index is unchanged, the group re-anchored.
    await db.pool.query(`INSERT INTO official_index VALUES ('CPIM.SE9011', '2025-04', 1500)`);
    const un = await runIndex(db.pool, { progress: false });
    expect(un).toMatchObject({ mode: 'unchanged', days: 0, reanchored: true, rows: { itemDays: 0, indexDays: 0, reanchored: 61 } });
    expect((await indexDays(1)).get('2025-03-01')!.anchored).toBeCloseTo(1000 * (1500 / 1100), 9);
    expect((await db.pool.query('SELECT anchor FROM index_run')).rows[0].anchor['1'].month).toBe('2025-04');
    const before = await snapshot();
    expect(await runIndex(db.pool, { progress: false, dataDir: dir })).toMatchObject({ mode: 'unchanged', reanchored: false, official: 0 });
    expect(await snapshot()).toEqual(before);
  });
});

describe('GEKS-Jevons, the selectable method (issue 30)', () => {
  const D = (k: number) => addDays('2025-10-01', k - 1); // day k, 1-based
  const N = 45; // longer than the 28-day window: it rolls
  const code = (id: number) => basket.items.find((i) => i.id === id)!.code;
  /** Made-up daily prices (cents; weighable listings, so per kg as they are), by listing, day k → price or null. */
  const PRICES: Record<string, (k: number) => number | null> = {
    A1: (k) => 300 + 10 * ((k * 3) % 7),
    A2: (k) => (k <= 30 ? 500 + 20 * ((k * 5) % 4) : null), // last priced on day 30: counted (cap) to day 44
    A3: (k) => 250 + 5 * (k % 6), // matched from day 20
    M1: (k) => 1000 + 50 * ((k * 2) % 5),
  };
  /** The listings with one-day spans for every priced day up to `days`, matched; the chain collected to day `days`. */
  async function setUp(days: number) {
    const ids = new Map<string, number>();
    for (const ext of Object.keys(PRICES)) ids.set(ext, await listing(ext, { weighable: true }));
    await addDays_(ids, 1, days);
    await match(ids.get('A1')!, APPLES, D(1));
    await match(ids.get('A2')!, APPLES, D(1));
    await match(ids.get('A3')!, APPLES, D(20));
    await match(ids.get('M1')!, MINCE, D(1));
    return ids;
  }
  /** Spans of days `from`…`to` (one per priced day), and the chain's last collection day `to`. */
  async function addDays_(ids: Map<string, number>, from: number, to: number) {
    for (const [ext, price] of Object.entries(PRICES)) {
      for (let k = from; k <= to; k++) {
        const p = price(k);
        if (p != null) await span(ids.get(ext)!, D(k), D(k), p);
      }
    }
    await lastDay(D(to));
  }
  /** The counted price of a listing on day k (its latest price within the 14-day cap), null before `from`. */
  function counted(ext: string, k: number, from = 1): number | null {
    if (k < from) return null;
    for (let j = k; j >= Math.max(1, k - 14); j--) {
      const p = PRICES[ext](j);
      if (p != null) return p;
    }
    return null;
  }
  const run = (method: IndexMethod, extra: { full?: boolean } = {}) => runIndex(db.pool, { progress: false, method, ...extra });
  async function methodRow(): Promise<string | undefined> {
    return (await db.pool.query<{ method: string }>('SELECT method FROM index_run')).rows[0]?.method;
  }

  it('writes index_item_day and index_day with the method recorded, equal to the validation\'s function on the same prices', async () => {
    expect(await indexMethod(db.pool)).toBe('chained-jevons'); // no run yet: the default
    await setUp(N);
    const r = await run('geks-jevons');
    expect(r).toMatchObject({ mode: 'full', method: 'geks-jevons', days: N, firstDay: D(1), lastDay: D(N), items: 2, listings: 3 });
    expect(await methodRow()).toBe('geks-jevons');
    expect(await indexMethod(db.pool)).toBe('geks-jevons');
    expect((await db.pool.query('SELECT count(*)::int AS n FROM index_day')).rows[0].n).toBe(N * 5);
    const apples = await itemDays(APPLES);
    expect(apples.size).toBe(N);
    expect(apples.get(D(19))!.n).toBe(2);
    expect(apples.get(D(44))!.n).toBe(3); // A2 counted within the cap
    expect(apples.get(D(45))!.n).toBe(2); // 15 days after its last price: out

    // The same panel written by hand (the counted prices), through the bench's functions
    // (test/bench/index-multilateral.ts → src/domain/geks-index.ts): the worker's series must equal it.
    const days = Array.from({ length: N }, (_, i) => D(i + 1));
    const series = (ext: string, from = 1) => days.map((_, i) => counted(ext, i + 1, from));
    const prices = new Map([[code(APPLES), [series('A1'), series('A2'), series('A3', 20)]], [code(MINCE), [series('M1')]]]);
    const items = basket.items.map((i) => ({ code: i.code, group: i.group, weight: i.weight, perUnit: i.per_unit, observable: i.observable }));
    const want = geksNowcast(items, prepareItems(items, days, prices), days, GEKS_WINDOW_DAYS, GEKS_SPLICE);
    for (const id of [APPLES, MINCE]) {
      const got = await itemDays(id);
      want.items.get(code(id))!.forEach((x, i) => expectClose(got.get(days[i])!.relative, x, `item ${id} ${days[i]}`));
    }
    for (const [gid, key] of [[0, 'all'], [1, 'fruit_veg'], [2, 'meat_poultry_fish']] as const) {
      const got = await indexDays(gid);
      const w = key === 'all' ? want.all : want.groups.get(key)!;
      w.forEach((x, i) => expectClose(got.get(days[i])!.raw, x, `group ${gid} ${days[i]}`));
    }
    // GEKS is not the chained Jevons on this churn: the apples differ somewhere.
    await run('chained-jevons');
    const chained = await itemDays(APPLES);
    expect(days.some((d) => Math.abs(chained.get(d)!.relative! - apples.get(d)!.relative!) > 1e-6)).toBe(true);
  });

  it('a change of method forces a full run and is recorded; GEKS recomputes on new days, and its earlier days do not move (real time)', async () => {
    const ids = await setUp(35);
    expect(await run('chained-jevons')).toMatchObject({ mode: 'full', method: 'chained-jevons' });
    expect(await methodRow()).toBe('chained-jevons');
    const chainedFirst = await snapshot();

    const g = await run('geks-jevons');
    expect(g).toMatchObject({ mode: 'full', method: 'geks-jevons', days: 35, reason: 'the method changed (chained-jevons → geks-jevons)' });
    expect(await methodRow()).toBe('geks-jevons');
    const geks35 = await snapshot();
    expect(geks35.links).toEqual(chainedFirst.links); // the chained links are left as they are

    // Nothing new: nothing written.
    expect(await run('geks-jevons')).toMatchObject({ mode: 'unchanged', days: 0, rows: { itemDays: 0, indexDays: 0, reanchored: 0, links: 0 } });
    expect(await snapshot()).toEqual(geks35);

    // New days: every day recomputed; the first 35 days keep their values.
    await addDays_(ids, 36, N);
    const more = await run('geks-jevons');
    expect(more).toMatchObject({ mode: 'full', days: N, method: 'geks-jevons' });
    expect(more.reason).toBe(`new days after ${D(35)} (GEKS-Jevons recomputes every day)`);
    const geks45 = await snapshot();
    const upTo35 = <T extends { day: string }>(rows: T[]) => rows.filter((x) => x.day <= D(35)).map(({ ...x }) => ({ ...x, anchored: undefined }));
    expectClose(upTo35(geks45.items), upTo35(geks35.items), 'index_item_day');
    expectClose(upTo35(geks45.days), upTo35(geks35.days), 'index_day');

    // Back to the chained Jevons: a full run again, recorded.
    const c = await run('chained-jevons');
    expect(c).toMatchObject({ mode: 'full', days: N, method: 'chained-jevons', reason: 'the method changed (geks-jevons → chained-jevons)' });
    expect(await methodRow()).toBe('chained-jevons');
    expect(await indexMethod(db.pool)).toBe('chained-jevons');
    // and then incremental as before
    await lastDay(D(N + 1));
    expect(await run('chained-jevons')).toMatchObject({ mode: 'incremental', days: 1 });
  });

  it('the index job runs INDEX_METHOD unless its input names a method', async () => {
    await setUp(10);
    const runner = testRunner(db.pool, { INDEX_METHOD: 'geks-jevons', DATA_DIR: path.join(os.tmpdir(), 'no-such-data-dir-h30') });
    expect((await runner.run(indexJob, {})).method).toBe('geks-jevons');
    expect(await methodRow()).toBe('geks-jevons');
    expect(await runner.run(indexJob, { method: 'chained-jevons' })).toMatchObject({ method: 'chained-jevons', mode: 'full' });
    expect(await methodRow()).toBe('chained-jevons');
  });

  it('refuses an unknown method with a clear message, writing nothing', async () => {
    await setUp(5);
    const bad = runIndex(db.pool, { progress: false, method: 'geks' as IndexMethod });
    await expect(bad).rejects.toThrow(IndexMethodError);
    await expect(runIndex(db.pool, { progress: false, method: 'geks' as IndexMethod })).rejects.toThrow('unknown index method "geks" (expected one of: chained-jevons, geks-jevons)');
    expect((await db.pool.query('SELECT count(*)::int AS n FROM index_run')).rows[0].n).toBe(0);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM index_day')).rows[0].n).toBe(0);
  });

  it('the CLI refuses `index --method <unknown>` before touching the database', async () => {
    // A database nobody serves: the refusal must come first.
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(path.join(ROOT_DIR, 'node_modules/.bin/tsx'), ['workers/cli.ts', 'index', '--method', 'jevons'], {
        cwd: ROOT_DIR, env: { ...process.env, DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none', DEBUG: '' }, stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('error: --method: unknown index method "jevons" (expected one of: chained-jevons, geks-jevons)');
  });
});
