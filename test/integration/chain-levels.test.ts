/**
 * The chain and deal views (workers/views/chains.ts, workers/views/deals.ts) against a real
 * PostgreSQL: small generated panels written by SQL (listings, national spans, basket matches, an
 * index_run row), built inside a transaction as the orchestrator does, read back from
 * chain_item_price, chain_level_day and deal. Every price is made up for the cases (not real data);
 * the basket is the real basket file.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { loadBasket, groupId, type BasketItem } from '../../src/domain/basket.js';
import { addDays } from '../../src/domain/days.js';
import { inTransaction } from '../../src/db/transaction.js';
import { syncBasket } from '../../workers/index/basket.js';
import { buildChainViews, type ChainViewsOptions, type ChainViewsReport } from '../../workers/views/chains.js';
import { buildDeals } from '../../workers/views/deals.js';

const basket = loadBasket();
const observable = basket.items.filter((i) => i.observable).sort((a, b) => a.id - b.id);
const inGroup = (code: string) => observable.filter((i) => i.group === code);
/** The first n observable items. */
const first = (n: number) => observable.slice(0, n);

let db: TestDatabase;
const rid = new Map<string, number>();
beforeAll(async () => {
  db = await createTestDatabase('chain_levels');
  await syncBasket(db.pool);
  for (const r of (await db.pool.query<{ id: number; slug: string }>('SELECT id, slug FROM retailer')).rows) rid.set(r.slug, r.id);
});
afterAll(async () => db?.drop());
beforeEach(async () => {
  await db.pool.query(`TRUNCATE listing, national_price_span, store_price_span, collection, basket_match, index_run,
    chain_item_price, chain_level_day, deal, view_run CASCADE`);
  await db.pool.query('UPDATE retailer SET last_national_day = NULL, covered_day = NULL');
});

/** A listing of chain `slug` with its size fields; returns its id. */
async function listing(slug: string, ext: string, size: { qty?: number; unit?: string; pack?: number; weighable?: boolean } = {}): Promise<number> {
  const r = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, first_seen, qty, unit, pack_count, weighable)
     SELECT id, $1, 'Test ' || $1, '2025-01-01', $2, $3, $4, $5 FROM retailer WHERE slug = $6 RETURNING id`,
    [ext, size.qty ?? null, size.unit ?? null, size.pack ?? null, size.weighable ?? false, slug],
  );
  return r.rows[0].id;
}
/** A national span (last null = open) with an optional promotion [promo_price, kind] or multibuy [qty, total]. */
async function span(listingId: number, firstDay: string, last: string | null, price: number, promo: [number | null, number] | null = null, multi: [number, number] | null = null) {
  await db.pool.query(
    `INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [listingId, firstDay, last, price, promo?.[0] ?? null, promo?.[1] ?? null, multi?.[0] ?? null, multi?.[1] ?? null],
  );
}
async function lastDay(slug: string, day: string) {
  await db.pool.query('UPDATE retailer SET last_national_day = $1, covered_day = $1 WHERE slug = $2', [day, slug]);
}
async function match(listingId: number, itemId: number, validFrom = '2025-01-01', validTo: string | null = null) {
  await db.pool.query(`INSERT INTO basket_match (item_id, listing_id, origin, valid_from, valid_to) VALUES ($1, $2, 'manual', $3, $4)`, [itemId, listingId, validFrom, validTo]);
}
/** The index's days (index_run as the index worker leaves it; only the days matter here). */
async function indexRun(firstDay: string, last: string) {
  await db.pool.query(
    `INSERT INTO index_run (id, first_day, last_day, anchor, basket_digest, state) VALUES (1, $1, $2, '{}', 'test', '{}')
     ON CONFLICT (id) DO UPDATE SET first_day = EXCLUDED.first_day, last_day = EXCLUDED.last_day`,
    [firstDay, last],
  );
}
/** Base price of item `id` (cents): 500 + 25 × id, so 0.92 and 1.08 of it are whole cents. */
const base = (id: number) => 500 + 25 * id;
/**
 * One listing per item per chain, matched from 2025-01-01, priced `factor` × base from `from` on an
 * open span; each chain's last national day is `last`. Returns the listing ids by slug and item id.
 */
async function panel(items: readonly BasketItem[], factors: Record<string, number>, from: string, last: string) {
  const ids = new Map<string, number>();
  for (const [slug, f] of Object.entries(factors)) {
    for (const i of items) {
      const l = await listing(slug, `${slug}-${i.id}`);
      await span(l, from, null, Math.round(base(i.id) * f));
      await match(l, i.id);
      ids.set(`${slug}/${i.id}`, l);
    }
    await lastDay(slug, last);
  }
  return ids;
}
/** Builds the chain views in a transaction and stores view_run as workers/views/run.ts does. */
async function build(opts: ChainViewsOptions = {}): Promise<ChainViewsReport> {
  return inTransaction(db.pool, async (client) => {
    const report = await buildChainViews(client, { progress: false, ...opts });
    await client.query(
      `INSERT INTO view_run (name, data_version, seconds, detail) VALUES ('chains', 'test', 0, $1)
       ON CONFLICT (name) DO UPDATE SET detail = EXCLUDED.detail`,
      [JSON.stringify({ parts: {}, report })],
    );
    return report;
  });
}
async function levels(slug: string, group = 0) {
  const r = await db.pool.query<{ day: string; level: number | null; items: number }>(
    'SELECT day::text, level, items FROM chain_level_day WHERE retailer_id = $1 AND group_id = $2 ORDER BY day', [rid.get(slug), group],
  );
  return new Map(r.rows.map((x) => [x.day, { level: x.level, items: x.items }]));
}
async function itemPrices() {
  const r = await db.pool.query<{ item_id: number; slug: string; price: number; listings: number }>(
    'SELECT c.item_id, r.slug, c.price, c.listings FROM chain_item_price c JOIN retailer r ON r.id = c.retailer_id ORDER BY c.item_id, r.slug',
  );
  return new Map(r.rows.map((x) => [`${x.slug}/${x.item_id}`, { price: x.price, listings: x.listings }]));
}
/** Everything the chain views write, to compare builds. */
async function snapshot() {
  return {
    prices: (await db.pool.query('SELECT * FROM chain_item_price ORDER BY item_id, retailer_id')).rows,
    levels: (await db.pool.query('SELECT retailer_id, group_id, day::text, level, items FROM chain_level_day ORDER BY retailer_id, group_id, day')).rows,
  };
}

describe('chain levels', () => {
  it('two chains, one exactly 8 % cheaper on every item: 0.92 / 0.96 and 1 / 0.96 of the cross-chain median (their mean)', async () => {
    const items = first(24);
    await panel(items, { woolworths: 1, paknsave: 0.92 }, '2025-03-01', '2025-03-03');
    await indexRun('2025-03-01', '2025-03-03');
    const r = await build();
    expect(r).toMatchObject({ mode: 'full', day: '2025-03-03', firstDay: '2025-03-01', lastDay: '2025-03-03', days: 3, itemPrices: 48, chains: 2 });
    for (const day of ['2025-03-01', '2025-03-02', '2025-03-03']) {
      // hand: median of p and 0.92 p is 0.96 p; 0.92 / 0.96 = 0.958333…, 1 / 0.96 = 1.041666…
      expect((await levels('paknsave')).get(day)).toEqual({ level: expect.closeTo(0.9583333333333334, 12), items: 24 });
      expect((await levels('woolworths')).get(day)).toEqual({ level: expect.closeTo(1.0416666666666667, 12), items: 24 });
    }
    // every group of the items has its level, at the same ratios
    const groups = [...new Set(items.map((i) => groupId(i.group)))];
    for (const g of groups) expect((await levels('paknsave', g)).get('2025-03-02')!.level).toBeCloseTo(0.92 / 0.96, 12);
    const rows = await db.pool.query('SELECT DISTINCT group_id FROM chain_level_day ORDER BY 1');
    expect(rows.rows.map((x) => x.group_id)).toEqual([0, ...groups.sort((a, b) => a - b)]);
    // compare's items: each chain's price in cents, one listing each
    const p = await itemPrices();
    expect(p.get(`woolworths/${items[3].id}`)).toEqual({ price: base(items[3].id), listings: 1 });
    expect(p.get(`paknsave/${items[3].id}`)).toEqual({ price: Math.round(base(items[3].id) * 0.92), listings: 1 });
  });

  it('three chains at 0.92, 1 and 1.08: exactly 0.92, 1 and 1.08', async () => {
    await panel(first(20), { woolworths: 1, paknsave: 0.92, newworld: 1.08 }, '2025-03-01', '2025-03-01');
    await indexRun('2025-03-01', '2025-03-01');
    await build();
    expect((await levels('paknsave')).get('2025-03-01')).toEqual({ level: expect.closeTo(0.92, 12), items: 20 });
    expect((await levels('woolworths')).get('2025-03-01')).toEqual({ level: expect.closeTo(1, 12), items: 20 });
    expect((await levels('newworld')).get('2025-03-01')).toEqual({ level: expect.closeTo(1.08, 12), items: 20 });
  });

  it('weights items by their basket weights; groups have their own levels', async () => {
    // 11 fruit & veg items: Woolworths 90, PAK'nSAVE 110 (ratios 0.9 / 1.1 of the mean 100);
    // 11 grocery items: Woolworths 120, PAK'nSAVE 80 (1.2 / 0.8).
    const fv = inGroup('fruit_veg').slice(0, 11);
    const gr = inGroup('grocery_food').slice(0, 11);
    for (const [items, ww, pk] of [[fv, 90, 110], [gr, 120, 80]] as const) {
      for (const i of items) {
        const a = await listing('woolworths', `w${i.id}`);
        const b = await listing('paknsave', `p${i.id}`);
        await span(a, '2025-03-01', null, ww);
        await span(b, '2025-03-01', null, pk);
        await match(a, i.id);
        await match(b, i.id);
      }
    }
    await lastDay('woolworths', '2025-03-01');
    await lastDay('paknsave', '2025-03-01');
    await indexRun('2025-03-01', '2025-03-01');
    await build();
    const wf = fv[0].weight; // 0.13 / 38
    const wg = gr[0].weight; // 0.34 / 64
    expect(wf).toBeCloseTo(0.13 / 38, 15);
    expect(wg).toBeCloseTo(0.34 / 64, 15);
    const ww = Math.exp((wf * Math.log(0.9) + wg * Math.log(1.2)) / (wf + wg)); // 1.0574…
    const pk = Math.exp((wf * Math.log(1.1) + wg * Math.log(0.8)) / (wf + wg));
    expect((await levels('woolworths')).get('2025-03-01')).toEqual({ level: expect.closeTo(ww, 12), items: 22 });
    expect((await levels('paknsave')).get('2025-03-01')).toEqual({ level: expect.closeTo(pk, 12), items: 22 });
    expect(Math.abs(ww - Math.sqrt(0.9 * 1.2))).toBeGreaterThan(0.005); // the weights matter
    expect((await levels('woolworths', groupId('fruit_veg'))).get('2025-03-01')).toEqual({ level: expect.closeTo(0.9, 12), items: 11 });
    expect((await levels('woolworths', groupId('grocery_food'))).get('2025-03-01')).toEqual({ level: expect.closeTo(1.2, 12), items: 11 });
    expect((await levels('paknsave', groupId('grocery_food'))).get('2025-03-01')!.level).toBeCloseTo(0.8, 12);
  });

  it('specials count and club prices do not; per-kg items per kg; a chain price is the median of its listings', async () => {
    const items = first(20);
    await panel(items, { woolworths: 1, paknsave: 1 }, '2025-03-01', '2025-03-01');
    await indexRun('2025-03-01', '2025-03-01');
    // a per-pack item: Woolworths on special 500 → 400, PAK'nSAVE club price 500 → 400
    const sugar = observable.find((i) => !i.per_unit && i.group === 'grocery_food' && !items.includes(i))!;
    const ws = await listing('woolworths', 'ws');
    const ps = await listing('paknsave', 'ps');
    await span(ws, '2025-03-01', null, 500, [400, 1]);
    await span(ps, '2025-03-01', null, 500, [400, 2]);
    await match(ws, sugar.id);
    await match(ps, sugar.id);
    // a per-kg item: Woolworths 2 × 500 g for 1000 (1000 c/kg) and loose at 1200 c/kg → 1100; a
    // third listing at 1300 c/kg makes it 1200 (the middle of three); PAK'nSAVE 1 kg at 1200.
    const mince = observable.find((i) => i.per_unit && i.unit === 'kg' && !items.includes(i))!;
    const w1 = await listing('woolworths', 'w1', { qty: 500, unit: 'g', pack: 2 });
    const w2 = await listing('woolworths', 'w2', { weighable: true });
    const p1 = await listing('paknsave', 'p1', { qty: 1000, unit: 'g' });
    await span(w1, '2025-03-01', null, 1000);
    await span(w2, '2025-03-01', null, 1200);
    await span(p1, '2025-03-01', null, 1200);
    for (const l of [w1, w2]) await match(l, mince.id);
    await match(p1, mince.id);
    await build();
    let p = await itemPrices();
    expect(p.get(`woolworths/${sugar.id}`)).toEqual({ price: 400, listings: 1 });
    expect(p.get(`paknsave/${sugar.id}`)).toEqual({ price: 500, listings: 1 });
    expect(p.get(`woolworths/${mince.id}`)).toEqual({ price: 1100, listings: 2 });
    expect(p.get(`paknsave/${mince.id}`)).toEqual({ price: 1200, listings: 1 });
    // levels: 20 items at 1, sugar 400 vs 500 (median 450), mince 1100 vs 1200 (median 1150)
    const w = (i: BasketItem) => i.weight;
    const sumW = items.reduce((s, i) => s + w(i), 0) + w(sugar) + w(mince);
    const expectWw = Math.exp((w(sugar) * Math.log(400 / 450) + w(mince) * Math.log(1100 / 1150)) / sumW);
    expect((await levels('woolworths')).get('2025-03-01')).toEqual({ level: expect.closeTo(expectWw, 12), items: 22 });

    const w3 = await listing('woolworths', 'w3', { weighable: true });
    await span(w3, '2025-03-01', null, 1300);
    await match(w3, mince.id);
    await build();
    p = await itemPrices();
    expect(p.get(`woolworths/${mince.id}`)).toEqual({ price: 1200, listings: 3 });
  });

  it('leaves out items priced at one chain only (they keep their chain price)', async () => {
    const items = first(24);
    await panel(items, { woolworths: 1, paknsave: 0.92 }, '2025-03-01', '2025-03-01');
    const extra = observable.slice(24, 27);
    for (const i of extra) {
      const l = await listing('woolworths', `only-${i.id}`);
      await span(l, '2025-03-01', null, 99_999);
      await match(l, i.id);
    }
    await indexRun('2025-03-01', '2025-03-01');
    await build();
    expect((await levels('woolworths')).get('2025-03-01')).toEqual({ level: expect.closeTo(1 / 0.96, 12), items: 24 });
    expect((await levels('paknsave')).get('2025-03-01')).toEqual({ level: expect.closeTo(0.92 / 0.96, 12), items: 24 });
    const p = await itemPrices();
    expect(p.get(`woolworths/${extra[0].id}`)).toEqual({ price: 99_999, listings: 1 });
    expect(p.size).toBe(24 * 2 + 3);
  });

  it('null headline under 20 comparable items, group levels from one; a lone chain has rows with 0 items', async () => {
    const items = first(19);
    await panel(items, { woolworths: 1, paknsave: 0.92 }, '2025-03-01', '2025-03-01');
    const lone = observable[30];
    const l = await listing('newworld', 'lone');
    await span(l, '2025-03-01', null, 300);
    await match(l, lone.id);
    await lastDay('newworld', '2025-03-01');
    await indexRun('2025-03-01', '2025-03-01');
    await build();
    expect((await levels('woolworths')).get('2025-03-01')).toEqual({ level: null, items: 19 });
    expect((await levels('woolworths', groupId(items[0].group))).get('2025-03-01')!.level).toBeCloseTo(1 / 0.96, 12);
    expect((await levels('newworld')).get('2025-03-01')).toEqual({ level: null, items: 0 });
    expect((await levels('newworld', groupId(lone.group))).get('2025-03-01')).toEqual({ level: null, items: 0 });
  });

  it('follows the index days: a chain not collected for more than 14 days drops out; matches end; prices change on their day', async () => {
    const items = first(20);
    const ids = await panel(items, { woolworths: 1, paknsave: 0.92, newworld: 1.08 }, '2025-03-01', '2025-03-20');
    await lastDay('newworld', '2025-03-03'); // its open spans end on 03-03: counted until 03-17
    // Woolworths' first item doubles from 03-10
    const w0 = ids.get(`woolworths/${items[0].id}`)!;
    await db.pool.query(`UPDATE national_price_span SET last_day = '2025-03-09' WHERE listing_id = $1`, [w0]);
    await span(w0, '2025-03-10', null, base(items[0].id) * 2);
    await indexRun('2025-03-01', '2025-03-20');
    const r = await build();
    expect(r).toMatchObject({ days: 20, day: '2025-03-20' });
    const nw = await levels('newworld');
    expect(nw.get('2025-03-17')).toEqual({ level: expect.any(Number), items: 20 });
    expect(nw.has('2025-03-18')).toBe(false); // no value: no row
    const ww = await levels('woolworths');
    const wi = items[0].weight;
    const sumW = items.reduce((s, i) => s + i.weight, 0);
    expect(ww.get('2025-03-09')!.level).toBeCloseTo(1, 12);
    // 03-10: item 0 at 2 × base against median (of 0.92, 1.08, 2) 1.08: ratio 2 / 1.08
    expect(ww.get('2025-03-10')!.level).toBeCloseTo(Math.exp((wi * Math.log(2 / 1.08)) / sumW), 12);
    // 03-18: two chains, item 0 at 2 vs 0.92 → median 1.46; other items 1 / 0.96
    expect(ww.get('2025-03-18')!.level).toBeCloseTo(Math.exp((wi * Math.log(2 / 1.46) + (sumW - wi) * Math.log(1 / 0.96)) / sumW), 12);
    const p = await itemPrices();
    expect([...p.keys()].some((k) => k.startsWith('newworld/'))).toBe(false);
    expect(p.get(`woolworths/${items[0].id}`)!.price).toBe(base(items[0].id) * 2);

    // a match ended on 03-19 no longer counts on 03-19 (valid_to is exclusive)
    await db.pool.query(`UPDATE basket_match SET valid_to = '2025-03-19' WHERE listing_id = $1`, [ids.get(`paknsave/${items[1].id}`)]);
    await build();
    expect((await levels('paknsave')).get('2025-03-18')!.items).toBe(20);
    expect((await levels('paknsave')).get('2025-03-19')!.items).toBe(19);
  });

  it('without an index run: the latest national day alone', async () => {
    await panel(first(20), { woolworths: 1, paknsave: 0.92 }, '2025-03-01', '2025-03-05');
    await lastDay('paknsave', '2025-03-04');
    const r = await build();
    expect(r).toMatchObject({ mode: 'full', firstDay: '2025-03-05', lastDay: '2025-03-05', days: 1 });
    expect([...(await levels('paknsave')).keys()]).toEqual(['2025-03-05']);
    expect((await levels('paknsave')).get('2025-03-05')!.level).toBeCloseTo(0.92 / 0.96, 12);
  });

  it('nothing to compute: empty views', async () => {
    const r = await build();
    expect(r).toMatchObject({ day: null, days: 0, state: null });
    expect((await snapshot())).toEqual({ prices: [], levels: [] });
  });
});

describe('incremental and idempotent', () => {
  const D = (k: number) => addDays('2025-03-01', k - 1);
  async function setup() {
    const items = first(22);
    const ids = await panel(items, { woolworths: 1, paknsave: 0.92, newworld: 1.08 }, D(1), D(10));
    // some movement: a PAK'nSAVE price change on day 4, a New World special from day 6
    const p0 = ids.get(`paknsave/${items[0].id}`)!;
    await db.pool.query(`UPDATE national_price_span SET last_day = $2 WHERE listing_id = $1`, [p0, D(3)]);
    await span(p0, D(4), null, 700);
    const n1 = ids.get(`newworld/${items[1].id}`)!;
    await db.pool.query(`UPDATE national_price_span SET last_day = $2 WHERE listing_id = $1`, [n1, D(5)]);
    await span(n1, D(6), null, Math.round(base(items[1].id) * 1.08), [500, 1]);
    await indexRun(D(1), D(10));
    return { items, ids };
  }

  it('a second build with nothing changed writes nothing and leaves identical rows', async () => {
    await setup();
    const a = await build();
    expect(a.mode).toBe('full');
    const s1 = await snapshot();
    const b = await build();
    expect(b).toMatchObject({ mode: 'unchanged', days: 1, rows: { itemPrices: { written: 0, deleted: 0 }, levels: { written: 0, deleted: 0 } } });
    expect(await snapshot()).toEqual(s1);
    const c = await build({ full: true });
    expect(c).toMatchObject({ mode: 'full', days: 10, rows: { itemPrices: { written: 0, deleted: 0 }, levels: { written: 0, deleted: 0 } } });
    expect(await snapshot()).toEqual(s1);
  });

  it('new days: only they are computed, and the result equals a full build', async () => {
    const { items, ids } = await setup();
    await build();
    // five more days: every chain collected, a Woolworths price change on day 12 (its old span
    // closes on day 11, after the stored days), the index runs to day 15
    for (const slug of ['woolworths', 'paknsave', 'newworld']) await lastDay(slug, D(15));
    const w2 = ids.get(`woolworths/${items[2].id}`)!;
    await db.pool.query(`UPDATE national_price_span SET last_day = $2 WHERE listing_id = $1 AND last_day IS NULL`, [w2, D(11)]);
    await span(w2, D(12), null, 2000, [1500, 2]);
    await indexRun(D(1), D(15));
    const inc = await build();
    expect(inc).toMatchObject({ mode: 'incremental', days: 5, firstDay: D(1), lastDay: D(15) });
    const s1 = await snapshot();
    expect(s1.levels.filter((r) => r.day > D(10)).length).toBeGreaterThan(0);
    const full = await build({ full: true });
    expect(full).toMatchObject({ mode: 'full', days: 15, rows: { levels: { written: 0, deleted: 0 }, itemPrices: { written: 0, deleted: 0 } } });
    expect(await snapshot()).toEqual(s1);
    // and from scratch
    await db.pool.query('TRUNCATE chain_level_day, chain_item_price, view_run');
    await build();
    expect(await snapshot()).toEqual(s1);
  });

  it('a change of the inputs of stored days forces a full build', async () => {
    const { items } = await setup();
    await build();
    const before = await snapshot();
    // a Woolworths listing of item 3 matched from day 5 (a stored day), at a far higher price
    const l = await listing('woolworths', 'late');
    await span(l, D(1), null, 5000);
    await match(l, items[3].id, D(5));
    await indexRun(D(1), D(12));
    for (const slug of ['woolworths', 'paknsave', 'newworld']) await lastDay(slug, D(12));
    const r = await build();
    expect(r.mode).toBe('full');
    expect(r.reason).toMatch(/changed/);
    const after = await snapshot();
    expect(after).not.toEqual(before);
    const day5 = after.levels.find((x) => x.retailer_id === rid.get('woolworths') && x.group_id === 0 && x.day === D(5));
    const day4 = after.levels.find((x) => x.retailer_id === rid.get('woolworths') && x.group_id === 0 && x.day === D(4));
    expect(day5.level).toBeGreaterThan(day4.level);
    await build({ full: true });
    expect(await snapshot()).toEqual(after);
  });

  it('falls back to a full build without a stored state, when the first day moves, or when rows went missing', async () => {
    await setup();
    await build();
    const s1 = await snapshot();
    await db.pool.query('DELETE FROM view_run');
    expect((await build()).reason).toBe('no previous build');
    await db.pool.query(`DELETE FROM chain_level_day WHERE day = $1`, [D(2)]);
    expect((await build()).mode).toBe('full');
    expect(await snapshot()).toEqual(s1);
    await indexRun(D(3), D(10));
    const r = await build();
    expect(r.reason).toMatch(/first day/);
    expect((await snapshot()).levels.every((x) => x.day >= D(3))).toBe(true);
  });
});

describe('deals', () => {
  async function deals() {
    const r = await db.pool.query<{ kind: string; listing_id: number; slug: string; day: string; price: number; saving: number; saving_pct: number }>(
      `SELECT d.kind, d.listing_id, r.slug, d.day::text, d.price, d.saving, d.saving_pct FROM deal d JOIN retailer r ON r.id = d.retailer_id
       ORDER BY d.kind, d.saving_pct DESC, d.saving DESC, d.listing_id`,
    );
    return r.rows;
  }
  const runDeals = () => inTransaction(db.pool, (c) => buildDeals(c));

  it('current promotions per kind with their savings (multibuy per unit), biggest saving first', async () => {
    await lastDay('woolworths', '2025-03-10');
    await lastDay('paknsave', '2025-03-08');
    const special = await listing('woolworths', 'special'); // 500 → 400: 100, 0.2
    await span(special, '2025-03-01', '2025-03-04', 500);
    await span(special, '2025-03-05', null, 500, [400, 1]);
    const member = await listing('woolworths', 'member'); // 300 → 270: 30, 0.1
    await span(member, '2025-03-01', null, 300, [270, 2]);
    const multi2 = await listing('woolworths', 'multi2'); // 2 for 500 on 300: 50 a unit, 1/6
    await span(multi2, '2025-03-01', null, 300, [250, 3], [2, 500]);
    const multi3 = await listing('woolworths', 'multi3'); // 3 for 1000 on 350: 16.67 a unit, 0.0476
    await span(multi3, '2025-03-01', null, 350, [333, 3], [3, 1000]);
    const clearance = await listing('woolworths', 'clearance');
    await span(clearance, '2025-03-01', null, 500, [100, 4]);
    const noSaving = await listing('woolworths', 'nosaving');
    await span(noSaving, '2025-03-01', null, 500, [500, 1]);
    const ended = await listing('woolworths', 'ended'); // a special that ended before the last day
    await span(ended, '2025-03-01', '2025-03-05', 500, [100, 1]);
    await span(ended, '2025-03-06', null, 500);
    // A closed span is not current (a later observation changed or ended it; src/domain/spans.ts
    // isCurrentSpan), even one ending on the chain's last day: no deal.
    const closedOnLast = await listing('woolworths', 'closed-on-last');
    await span(closedOnLast, '2025-03-01', '2025-03-10', 1000, [700, 1]);
    const pak = await listing('paknsave', 'pak'); // 200 → 150: 50, 0.25, on PAK'nSAVE's own last day
    await span(pak, '2025-03-01', null, 200, [150, 1]);
    const nw = await listing('newworld', 'nw'); // New World has no national collection: no deal
    await span(nw, '2025-03-01', null, 200, [100, 1]);

    const r = await runDeals();
    expect(r).toMatchObject({ deals: 5, byKind: { special: 2, member: 1, multibuy: 2 }, rejected: 1, written: 5, deleted: 0 });
    const rows = await deals();
    expect(rows.map((x) => [x.kind, x.listing_id])).toEqual([
      ['member', member],
      ['multibuy', multi2], ['multibuy', multi3],
      ['special', pak], ['special', special],
    ]);
    expect(rows.some((x) => x.listing_id === closedOnLast)).toBe(false);
    const by = new Map(rows.map((x) => [x.listing_id, x]));
    expect(by.get(special)).toEqual({ kind: 'special', listing_id: special, slug: 'woolworths', day: '2025-03-10', price: 500, saving: 100, saving_pct: 0.2 });
    expect(by.get(member)).toMatchObject({ kind: 'member', price: 300, saving: 30, saving_pct: 0.1 });
    expect(by.get(multi2)).toMatchObject({ kind: 'multibuy', price: 300, saving: 50, saving_pct: expect.closeTo(1 / 6, 12) });
    expect(by.get(multi3)).toMatchObject({ kind: 'multibuy', price: 350, saving: expect.closeTo(350 - 1000 / 3, 9), saving_pct: expect.closeTo((350 - 1000 / 3) / 350, 12) });
    expect(by.get(pak)).toMatchObject({ slug: 'paknsave', day: '2025-03-08', saving: 50, saving_pct: 0.25 });
  });

  it('rebuilds idempotently and follows the prices', async () => {
    await lastDay('woolworths', '2025-03-10');
    const a = await listing('woolworths', 'a');
    await span(a, '2025-03-01', null, 500, [400, 1]);
    const b = await listing('woolworths', 'b');
    await span(b, '2025-03-01', null, 300, [270, 2]);
    await runDeals();
    const s1 = await deals();
    expect(await runDeals()).toMatchObject({ deals: 2, written: 0, deleted: 0 });
    expect(await deals()).toEqual(s1);
    // day 11: a's special ends, b's club price deepens
    await db.pool.query(`UPDATE national_price_span SET last_day = '2025-03-10' WHERE last_day IS NULL`);
    await span(a, '2025-03-11', null, 500);
    await span(b, '2025-03-11', null, 300, [240, 2]);
    await lastDay('woolworths', '2025-03-11');
    expect(await runDeals()).toMatchObject({ deals: 1, written: 1, deleted: 1 });
    expect(await deals()).toEqual([{ kind: 'member', listing_id: b, slug: 'woolworths', day: '2025-03-11', price: 300, saving: 60, saving_pct: 0.2 }]);
  });
});
