/**
 * The GEKS-Jevons index of issue 30 (src/domain/geks-index.ts) and the counted-price panels it is
 * fed (src/domain/price-index.ts countedPanels): hand-computed values on made-up prices.
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/days.js';
import { GEKS_OPTIONS, geksIndex, geksItemRelatives, prepareGeksItem } from '../../src/domain/geks-index.js';
import { computeIndex, countedPanels, type BasketItem, type ListingSpan } from '../../src/domain/price-index.js';
import { bilateralJevons } from '../../src/domain/multilateral.js';

const close = (a: number | null | undefined, b: number) => expect(a).toBeCloseTo(b, 12);
const days = (from: string, n: number) => Array.from({ length: n }, (_, i) => addDays(from, i));

describe('the service parameters', () => {
  it('are the ones the validation chose: 28-day window, window splice, real time', () => {
    expect(GEKS_OPTIONS).toEqual({ window: 28, splice: 'window', realTime: true });
  });
});

describe('prepareGeksItem', () => {
  it('starts on the first day with a priced listing and counts the listings of each day', () => {
    const p = prepareGeksItem('X', [new Map(), new Map([[1, 0]]), new Map([[1, 2], [2, 3]]), new Map([[2, 4]])])!;
    expect(p.code).toBe('X');
    expect(p.start).toBe(2); // day 1's only price is 0: not a price
    expect(p.n).toEqual([2, 1]);
    close(Math.exp(p.logJevons[0][1]!), 4 / 3); // listing 2 only
  });
  it('is null when nothing is ever priced', () => {
    expect(prepareGeksItem('X', [new Map(), new Map()])).toBeNull();
  });
  it('holds ln of multilateral.ts bilateralJevons between every pair of days (null for an empty overlap)', () => {
    const rows = [{ a: 3, b: 7 }, { a: 5 }, { b: 2, c: 9 }, { a: 4, b: 1, c: 3 }, {}];
    const maps = rows.map((r) => new Map(Object.entries(r)));
    const p = prepareGeksItem('X', maps)!;
    for (let s = 0; s < rows.length; s++) {
      for (let t = 0; t < rows.length; t++) {
        const j = s === t ? (maps[s].size ? 1 : null) : bilateralJevons(maps[s], maps[t]);
        const got = p.logJevons[s][t];
        if (j == null) expect(got, `${s},${t}`).toBeNull();
        else expect(Math.exp(got!), `${s},${t}`).toBeCloseTo(j, 12);
      }
    }
  });
});

describe('geksItemRelatives', () => {
  it('null before the first priced day, 1 on it, then the real-time window splice (hand-computed)', () => {
    // The panel of the multilateral unit test, one empty day ahead: I = 1, √2, 2, 2^(5/3) (window 3).
    const maps = [{}, { a: 1, b: 1 }, { a: 2, b: 1 }, { a: 2, b: 2 }, { a: 4 }].map((r) => new Map(Object.entries(r)));
    const rel = geksItemRelatives(prepareGeksItem('X', maps)!, 5, { window: 3, splice: 'window', realTime: true });
    expect(rel[0]).toBeNull();
    [1, Math.SQRT2, 2, 2 ** (5 / 3)].forEach((x, i) => close(rel[i + 1], x));
  });
  it('with the bilateral indices limited to window − 1 days apart, gives the same series as with every pair', () => {
    const maps = Array.from({ length: 12 }, (_, d) => new Map([['a', 1 + ((d * 7) % 5)], ...(d % 3 ? [['b', 2 + (d % 4)] as [string, number]] : [])]));
    const opts = { window: 4, splice: 'window', realTime: true } as const;
    expect(geksItemRelatives(prepareGeksItem('X', maps, 3)!, 12, opts)).toEqual(geksItemRelatives(prepareGeksItem('X', maps)!, 12, opts));
  });
});

describe('geksIndex', () => {
  const basket: BasketItem[] = [
    { code: 'A', group: 'g1', weight: 1, perUnit: false, observable: true },
    { code: 'B', group: 'g2', weight: 3, perUnit: false, observable: true },
    { code: 'C', group: 'g2', weight: 2, perUnit: false, observable: true }, // never priced
    { code: 'R', group: 'g3', weight: 9, perUnit: false, observable: false }, // not observable: no series
  ];
  it('aggregates the items with the fixed weights of the chained run (hand-computed)', () => {
    // Day 1: A 1 → 2, B 1 → 1. Groups: g1 2000, g2 (B present, C never) 1000. All food: W_g1 = 1,
    // W_g2 = 3 + 2 = 5 (every observable item's weight): (1·2 + 5·1) / (1·1 + 5·1) = 7/6 → 1166.67.
    // Coverage: (1 + 3) / 6 = 2/3.
    const d = days('2025-01-01', 2);
    const items = [prepareGeksItem('A', [new Map([[1, 1]]), new Map([[1, 2]])])!, prepareGeksItem('B', [new Map([[2, 1]]), new Map([[2, 1]])])!];
    const r = geksIndex(basket, items, d);
    expect(r.days).toEqual(d);
    expect(r.all.raw[0]).toBe(1000);
    close(r.all.raw[1], (7 / 6) * 1000);
    close(r.all.coverage[1], 2 / 3);
    expect(r.all.items).toEqual([2, 2]);
    expect(r.all.listings).toEqual([2, 2]);
    close(r.groups.get('g1')!.raw[1], 2000);
    close(r.groups.get('g2')!.raw[1], 1000);
    expect([...r.groups.keys()]).toEqual(['g1', 'g2']);
    expect(r.items.get('A')).toEqual({ relative: [1, 2], n: [1, 1], stale: [false, false] });
    expect(r.items.get('C')).toEqual({ relative: [null, null], n: [null, null], stale: [null, null] });
    expect(r.items.has('R')).toBe(false);
  });
  it('carries an item with an empty panel forward (n = 0), stale after 14 carried days', () => {
    // A priced on day 0 only (at 5): days 1…16 carry 1 with n = 0; stale from day 15 (15 days after its last count).
    const d = days('2025-01-01', 17);
    const panel = d.map((_, i) => new Map(i === 0 ? [[1, 5]] : []));
    const r = geksIndex(basket, [prepareGeksItem('A', panel)!], d);
    const a = r.items.get('A')!;
    expect(a.relative).toEqual(d.map(() => 1));
    expect(a.n).toEqual(d.map((_, i) => (i === 0 ? 1 : 0)));
    expect(a.stale).toEqual(d.map((_, i) => i >= 15));
    expect(r.all.coverage.slice(0, 2)).toEqual([1 / 6, 0]);
  });
});

describe('countedPanels', () => {
  // Item S compared per kg. Listing 1, 500 g: 300 c on 01-01, a special 400 → 350 on 01-03 (special
  // counts: 700 c/kg), then nothing. Listing 2, 500 g: 1000 c with a club price 800 from 01-02 to
  // 01-20 (club prices do not count: 2000 c/kg), matched from 01-05.
  const basket: BasketItem[] = [{ code: 'S', group: 'g', weight: 1, perUnit: true, observable: true }];
  const size = { qty: 500, unit: 'g' as const, weighable: false };
  const spans: ListingSpan[] = [
    { listingId: 1, firstDay: '2025-01-01', lastDay: '2025-01-01', price: 300, promoPrice: null, promoKind: null, ...size },
    { listingId: 1, firstDay: '2025-01-03', lastDay: '2025-01-03', price: 400, promoPrice: 350, promoKind: 1, ...size },
    { listingId: 2, firstDay: '2025-01-02', lastDay: '2025-01-20', price: 1000, promoPrice: 800, promoKind: 2, ...size },
  ];
  const matches = [{ listingId: 1, itemCode: 'S', validFrom: '2025-01-01' }, { listingId: 2, itemCode: 'S', validFrom: '2025-01-05' }];
  const input = { from: '2025-01-01', to: '2025-01-20', basket, matches, spans };

  it('holds the counted listings of each day with their basis prices: the cap, specials, club prices, matches in force', () => {
    const { days: d, codes, panel } = countedPanels(input);
    expect(d).toEqual(days('2025-01-01', 20));
    expect(codes).toEqual(['S']);
    expect(() => panel('R')).toThrow(RangeError);
    const at = (day: string) => Object.fromEntries(panel('S')[d.indexOf(day)]);
    expect(at('2025-01-01')).toEqual({ 1: 600 });
    expect(at('2025-01-02')).toEqual({ 1: 600 }); // carried; listing 2 priced but not yet matched
    expect(at('2025-01-03')).toEqual({ 1: 700 });
    expect(at('2025-01-05')).toEqual({ 1: 700, 2: 2000 });
    expect(at('2025-01-17')).toEqual({ 1: 700, 2: 2000 }); // 01-03's price is 14 days old: still counted
    expect(at('2025-01-18')).toEqual({ 2: 2000 }); // 15 days old: not counted
  });
  it('counts on each day exactly the listings the chained run counts', () => {
    const panel = countedPanels(input).panel('S');
    const chained = computeIndex(input).items.get('S')!;
    expect(panel.map((m) => m.size)).toEqual(chained.n);
  });
});
