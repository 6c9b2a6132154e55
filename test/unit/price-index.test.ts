import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/days.js';
import {
  anchorSeries,
  basisPrice,
  computeIndex,
  countedBasis,
  counts,
  stepItem,
  daysInMonth,
  headlineChanges,
  jevons,
  linkedRelative,
  linkListing,
  sparkline,
  stateFromJson,
  stateToJson,
  upperStep,
  type BasketItem,
  type ListingDay,
  type ListingSpan,
  type ItemState,
  type Match,
} from '../../src/domain/price-index.js';

/** An observation: shelf price only unless `extra` says otherwise. */
function obs(listingId: number, day: string, price: number, extra: Partial<ListingDay> = {}): ListingDay {
  return { listingId, day, price, promoPrice: null, promoKind: null, qty: null, unit: null, weighable: false, ...extra };
}
const item = (code: string, extra: Partial<BasketItem> = {}): BasketItem => ({
  code, group: 'G', weight: 1, perUnit: false, observable: true, ...extra,
});
const match = (listingId: number, itemCode: string, validFrom: string, validTo: string | null = null): Match => ({
  listingId, itemCode, validFrom, validTo,
});
/** Item relative series of one item. */
function rel(run: ReturnType<typeof computeIndex>, code: string) {
  return run.items.get(code)!;
}

describe('basis price', () => {
  const base = { promoPrice: null, promoKind: null, qty: null, unit: null, weighable: false } as const;
  it('specials (kind 1) count; club (2), multibuy (3), clearance (4) and unknown kinds do not', () => {
    expect(basisPrice({ ...base, price: 500, promoPrice: 400, promoKind: 1 }, false)).toBe(400);
    expect(basisPrice({ ...base, price: 500, promoPrice: 400, promoKind: 2 }, false)).toBe(500);
    expect(basisPrice({ ...base, price: 500, promoPrice: 400, promoKind: 3 }, false)).toBe(500);
    expect(basisPrice({ ...base, price: 500, promoPrice: 400, promoKind: 4 }, false)).toBe(500);
    expect(basisPrice({ ...base, price: 500, promoPrice: 400, promoKind: null }, false)).toBe(500);
    // a "special" above the shelf price is not a special
    expect(basisPrice({ ...base, price: 500, promoPrice: 550, promoKind: 1 }, false)).toBe(500);
  });
  it('per-unit item: cents per kg or litre = price ÷ qty × 1000', () => {
    // 500 g at $10.00 → 1000 / 500 × 1000 = 2000 c/kg; 1 kg at $20.00 → 2000 c/kg
    expect(basisPrice({ ...base, price: 1000, qty: 500, unit: 'g' }, true)).toBe(2000);
    expect(basisPrice({ ...base, price: 2000, qty: 1000, unit: 'g' }, true)).toBe(2000);
    // 2 L at 450 → 225 c/L; a special applies before the conversion: 360 / 2000 × 1000 = 180
    expect(basisPrice({ ...base, price: 450, qty: 2000, unit: 'ml' }, true)).toBe(225);
    expect(basisPrice({ ...base, price: 450, promoPrice: 360, promoKind: 1, qty: 2000, unit: 'ml' }, true)).toBe(180);
  });
  it('weighable listings are already per kg; per-pack items and unknown/each sizes stay per pack', () => {
    expect(basisPrice({ ...base, price: 1299, weighable: true }, true)).toBe(1299);
    expect(basisPrice({ ...base, price: 1000, qty: 500, unit: 'g' }, false)).toBe(1000);
    expect(basisPrice({ ...base, price: 600, qty: 6, unit: 'each' }, true)).toBe(600);
    expect(basisPrice({ ...base, price: 600 }, true)).toBe(600);
  });
});

describe('link factor and Jevons elementary aggregate', () => {
  it('linkedRelative = linked_relative × basis / ref_price; jevons is the geometric mean', () => {
    const l = linkListing(1.1, 500); // joins at 500 c when the item stands at 1.1
    expect(l).toEqual({ refPrice: 500, linkedRelative: 1.1 });
    expect(linkedRelative(l, 450)).toBeCloseTo(0.99, 12); // 1.1 × 450 / 500
    expect(jevons([1.21, 0.99])).toBeCloseTo(Math.sqrt(1.1979), 12); // √(1.21 × 0.99)
    expect(() => jevons([])).toThrow(RangeError);
  });

  // Listing 1 alone from day 0; listing 2 joins on day 1 at a different price level (500 c vs 220 c).
  const days = ['2025-03-01', '2025-03-02', '2025-03-03', '2025-03-04'];
  const observations = [
    obs(1, days[0], 200), obs(1, days[1], 220), obs(1, days[2], 242), obs(1, days[3], 242),
    obs(2, days[1], 500), obs(2, days[2], 450), obs(2, days[3], 450),
  ];
  const basket = [item('milk')];

  it('adding a listing does not move the item that day; next day is the Jevons mean of both linked relatives', () => {
    const run = computeIndex({
      from: days[0], to: days[2], basket, observations,
      matches: [match(1, 'milk', days[0]), match(2, 'milk', days[1])],
    });
    const alone = computeIndex({ from: days[0], to: days[2], basket, observations, matches: [match(1, 'milk', days[0])] });
    const r = rel(run, 'milk');
    // day 0: base, 1.0. day 1: 220 / 200 = 1.1, with or without listing 2 (which links in at 1.1).
    expect(r.relative[0]).toBe(1);
    expect(r.relative[1]).toBeCloseTo(1.1, 12);
    expect(r.relative[1]).toBe(rel(alone, 'milk').relative[1]);
    expect(r.n).toEqual([1, 2, 2]);
    // day 2: linked relatives 1 × 242/200 = 1.21 and 1.1 × 450/500 = 0.99; √(1.21 × 0.99) = √1.1979
    expect(r.relative[2]).toBeCloseTo(Math.sqrt(1.1979), 12); // 1.094486…
    expect(r.relative[2]).toBeCloseTo(1.094486, 6);
    // the stored links: listing 2 joined with ref_price 500, linked_relative 1.1
    const links = run.last.get('milk')!.links;
    expect(links.get(2)!.refPrice).toBe(500);
    expect(links.get(2)!.linkedRelative).toBeCloseTo(1.1, 12);
    expect(links.get(1)).toMatchObject({ refPrice: 200, linkedRelative: 1 });
  });

  it('dropping a listing does not move the item; the remaining link is rescaled so R = GM(linked relatives)', () => {
    // listing 2's match ends on day 3 (validTo exclusive); listing 1 unchanged at 242 that day.
    const run = computeIndex({
      from: days[0], to: days[3], basket, observations,
      matches: [match(1, 'milk', days[0]), match(2, 'milk', days[1], days[3])],
    });
    const r = rel(run, 'milk');
    // day 3: only listing 1, price 242 → 242 = ratio 1, so R stays √1.1979 (not 1.21, its old linked relative)
    expect(r.n[3]).toBe(1);
    expect(r.relative[3]).toBeCloseTo(Math.sqrt(1.1979), 12);
    const l1 = run.last.get('milk')!.links.get(1)!;
    // rescaled: linked_relative × 242 / 200 = R  →  linked_relative = √1.1979 × 200 / 242 ≈ 0.904534
    expect(linkedRelative(l1, 242)).toBeCloseTo(Math.sqrt(1.1979), 12);
    expect(l1.linkedRelative).toBeCloseTo(0.904534, 6);
  });
});

describe('carry-forward and staleness', () => {
  it('a price from t−14 counts on t, one from t−15 does not', () => {
    expect(counts('2025-01-01', '2025-01-15')).toBe(true); // 14 days earlier
    expect(counts('2025-01-01', '2025-01-16')).toBe(false); // 15 days earlier
    expect(counts('2025-01-02', '2025-01-01')).toBe(false); // the future never counts
  });

  it('listing carried 14 days, then item carried with n = 0, stale after 14 carried days', () => {
    // priced 01-01 at 100 and 01-02 at 110, then never again
    const run = computeIndex({
      from: '2025-01-01', to: '2025-02-01', basket: [item('eggs')],
      matches: [match(7, 'eggs', '2025-01-01')],
      observations: [obs(7, '2025-01-01', 100), obs(7, '2025-01-02', 110)],
    });
    const r = rel(run, 'eggs');
    const at = (day: string) => run.days.indexOf(day);
    // 01-16: last price 01-02 is 14 days earlier → still counted, n = 1, relative 110/100 = 1.1
    expect(r.n[at('2025-01-16')]).toBe(1);
    expect(r.relative[at('2025-01-16')]).toBeCloseTo(1.1, 12);
    // 01-17: 15 days → not counted; relative carried forward, n = 0, not yet stale
    expect(r.n[at('2025-01-17')]).toBe(0);
    expect(r.relative[at('2025-01-17')]).toBeCloseTo(1.1, 12);
    expect(r.stale[at('2025-01-17')]).toBe(false);
    // last counted 01-16: carried 14 days on 01-30 (not stale), 15 days on 01-31 (stale)
    expect(r.stale[at('2025-01-30')]).toBe(false);
    expect(r.stale[at('2025-01-31')]).toBe(true);
    expect(r.n[at('2025-01-31')]).toBe(0);
    expect(r.relative[at('2025-02-01')]).toBeCloseTo(1.1, 12);
    expect(r.stale[at('2025-01-16')]).toBe(false);
  });

  it('an item never priced has a null relative, n and stale', () => {
    const run = computeIndex({ from: '2025-01-01', to: '2025-01-02', basket: [item('taro')], matches: [], observations: [] });
    expect(rel(run, 'taro')).toEqual({ relative: [null, null], n: [null, null], stale: [null, null] });
  });
});

describe('specials in the series', () => {
  it('a special moves the item, a club price does not', () => {
    const run = computeIndex({
      from: '2025-05-01', to: '2025-05-03', basket: [item('butter')],
      matches: [match(3, 'butter', '2025-05-01')],
      observations: [
        obs(3, '2025-05-01', 500),
        obs(3, '2025-05-02', 500, { promoPrice: 400, promoKind: 1 }), // special: 400 / 500 = 0.8
        obs(3, '2025-05-03', 500, { promoPrice: 400, promoKind: 2 }), // club: 500 counts → 1.0
      ],
    });
    const r = rel(run, 'butter').relative;
    expect(r[0]).toBe(1);
    expect(r[1]).toBeCloseTo(0.8, 12);
    expect(r[2]).toBeCloseTo(1, 12);
  });
});

describe('per-unit basis in the series', () => {
  it('a 500 g and a 1 kg pack at the same per-kg price give the same relative', () => {
    const run = computeIndex({
      from: '2025-06-01', to: '2025-06-02',
      basket: [item('cheese-a', { perUnit: true }), item('cheese-b', { perUnit: true })],
      matches: [match(1, 'cheese-a', '2025-06-01'), match(2, 'cheese-b', '2025-06-01')],
      observations: [
        obs(1, '2025-06-01', 1000, { qty: 500, unit: 'g' }), // 2000 c/kg
        obs(1, '2025-06-02', 1100, { qty: 500, unit: 'g' }), // 2200 c/kg
        obs(2, '2025-06-01', 2000, { qty: 1000, unit: 'g' }), // 2000 c/kg
        obs(2, '2025-06-02', 2200, { qty: 1000, unit: 'g' }), // 2200 c/kg
      ],
    });
    // both 2200 / 2000 = 1.1
    expect(rel(run, 'cheese-a').relative[1]).toBeCloseTo(1.1, 12);
    expect(rel(run, 'cheese-b').relative[1]).toBeCloseTo(rel(run, 'cheese-a').relative[1]!, 12);
  });

  it('a pack shrinking at the same price is a per-kg rise; a weighable listing counts its per-kg price', () => {
    const run = computeIndex({
      from: '2025-06-01', to: '2025-06-02',
      basket: [item('coffee', { perUnit: true }), item('apples', { perUnit: true })],
      matches: [match(1, 'coffee', '2025-06-01'), match(2, 'apples', '2025-06-01')],
      observations: [
        obs(1, '2025-06-01', 1800, { qty: 1000, unit: 'g' }), // 1800 c/kg
        obs(1, '2025-06-02', 1800, { qty: 900, unit: 'g' }), // 2000 c/kg
        obs(2, '2025-06-01', 400, { weighable: true }), // 400 c/kg
        obs(2, '2025-06-02', 350, { weighable: true }), // 350 c/kg
      ],
    });
    expect(rel(run, 'coffee').relative[1]).toBeCloseTo(2000 / 1800, 12); // 1.1111…
    expect(rel(run, 'apples').relative[1]).toBeCloseTo(0.875, 12); // 350 / 400
  });
});

describe('upper levels: fixed weights, renormalisation, coverage', () => {
  // groups A (x, y: 0.15 each → 0.3) and B (z: 0.7); R is non-observable (restaurant meals, 0.5)
  const pair = (code: string, group: string, weight: number, cur: number | null, n: number | null, observable = true) => ({
    code, group, weight, observable, prev: cur == null ? null : 1, cur, n,
  });

  it('two groups weighted 0.3 / 0.7 give the weighted result; non-observable items are excluded', () => {
    const up = upperStep([
      pair('x', 'A', 0.15, 1.1, 1), pair('y', 'A', 0.15, 1.3, 1), pair('z', 'B', 0.7, 0.9, 1),
      pair('q', 'R', 0.5, 2.0, 1, false),
    ]);
    // A = (0.15 × 1.1 + 0.15 × 1.3) / 0.3 = 0.36 / 0.3 = 1.2; B = 0.9
    expect(up.groups.get('A')!.ratio).toBeCloseTo(1.2, 12);
    expect(up.groups.get('B')!.ratio).toBeCloseTo(0.9, 12);
    // all = (0.3 × 1.2 + 0.7 × 0.9) / (0.3 + 0.7) = 0.36 + 0.63 = 0.99 (q's 0.5 and 2.0 play no part)
    expect(up.all.ratio).toBeCloseTo(0.99, 12);
    expect(up.groups.has('R')).toBe(false);
    expect(up.all.coverage).toBe(1);
  });

  it('an item without a relative is left out and its group renormalised', () => {
    const up = upperStep([pair('x', 'A', 0.15, 1.1, 1), pair('y', 'A', 0.15, null, null), pair('z', 'B', 0.7, 0.9, 1)]);
    // A = 0.15 × 1.1 / 0.15 = 1.1; all = 0.3 × 1.1 + 0.7 × 0.9 = 0.33 + 0.63 = 0.96
    expect(up.groups.get('A')!.ratio).toBeCloseTo(1.1, 12);
    expect(up.all.ratio).toBeCloseTo(0.96, 12);
  });

  it('a group with no item present is left out and the groups renormalised', () => {
    const up = upperStep([pair('x', 'A', 0.15, null, null), pair('y', 'A', 0.15, null, null), pair('z', 'B', 0.7, 0.9, 1)]);
    // only B: 0.7 × 0.9 / 0.7 = 0.9; A's link is 1 (nothing to compare)
    expect(up.all.ratio).toBeCloseTo(0.9, 12);
    expect(up.groups.get('A')!.ratio).toBe(1);
  });

  it('coverage is the observable weight share whose item had a counted listing', () => {
    const up = upperStep([
      pair('x', 'A', 0.15, 1.1, 2), pair('y', 'A', 0.15, 1.3, 0), pair('z', 'B', 0.7, 0.9, 1),
      pair('q', 'R', 0.5, null, null, false),
    ]);
    // all: (0.15 + 0.7) / (0.15 + 0.15 + 0.7) = 0.85; A: 0.15 / 0.3 = 0.5; B: 1
    expect(up.all.coverage).toBeCloseTo(0.85, 12);
    expect(up.groups.get('A')!.coverage).toBeCloseTo(0.5, 12);
    expect(up.groups.get('B')!.coverage).toBe(1);
  });

  it('end to end: raw is 1000 on the first day and chains the weighted result', () => {
    const basket = [
      item('x', { group: 'A', weight: 0.15 }), item('y', { group: 'A', weight: 0.15 }),
      item('z', { group: 'B', weight: 0.7 }), item('q', { group: 'R', weight: 0.5, observable: false }),
    ];
    const d0 = '2025-07-01';
    const d1 = '2025-07-02';
    const d2 = '2025-07-03';
    const run = computeIndex({
      from: d0, to: d2, basket,
      matches: [match(1, 'x', d0), match(2, 'y', d0), match(3, 'z', d0), match(4, 'x', d2)],
      observations: [
        obs(1, d0, 100), obs(1, d1, 110), obs(1, d2, 110),
        obs(2, d0, 100), obs(2, d1, 130), obs(2, d2, 130),
        obs(3, d0, 100), obs(3, d1, 90), obs(3, d2, 90),
        obs(4, d2, 999), // a new listing of x at another price level: links in, moves nothing
      ],
    });
    expect(run.all.raw[0]).toBe(1000);
    expect(run.all.raw[1]).toBeCloseTo(990, 9); // 1000 × 0.99
    expect(run.all.raw[2]).toBeCloseTo(990, 9);
    expect(run.groups.get('A')!.raw).toEqual([1000, expect.closeTo(1200, 9), expect.closeTo(1200, 9)]);
    expect(run.groups.get('B')!.raw[1]).toBeCloseTo(900, 9);
    expect(run.groups.has('R')).toBe(false);
    expect(run.items.has('q')).toBe(false);
    expect(run.all.coverage).toEqual([1, 1, 1]);
    expect(rel(run, 'x').n).toEqual([1, 1, 2]);
  });

  it('an item priced for the first time later links in without moving its group', () => {
    const basket = [item('x', { group: 'A', weight: 0.5 }), item('y', { group: 'A', weight: 0.5 })];
    const run = computeIndex({
      from: '2025-08-01', to: '2025-08-03', basket,
      matches: [match(1, 'x', '2025-08-01'), match(2, 'y', '2025-08-02')],
      observations: [
        obs(1, '2025-08-01', 100), obs(1, '2025-08-02', 120), obs(1, '2025-08-03', 120),
        obs(2, '2025-08-02', 300), obs(2, '2025-08-03', 330),
      ],
    });
    // day 1: only x present on both days: 1000 × 1.2 = 1200 (y starts at 1.0, not in the link)
    // day 2: x 1.2 → 1.2, y 1.0 → 1.1: (0.5 × 1.2 + 0.5 × 1.1) / (0.5 × 1.2 + 0.5 × 1.0) = 1.15 / 1.1
    expect(run.all.raw[1]).toBeCloseTo(1200, 9);
    expect(run.all.raw[2]).toBeCloseTo(1200 * (1.15 / 1.1), 9); // 1254.5454…
    // coverage day 0: x only priced → 0.5 / 1.0
    expect(run.all.coverage[0]).toBe(0.5);
  });
});

describe('series: anchoring, headline changes, sparkline', () => {
  /** Every day of `month` with value base + i (i = 0 on the 1st) and the given coverage. */
  const month = (m: string, base: number, coverage = 0.5) =>
    Array.from({ length: daysInMonth(m) }, (_, i) => ({ day: `${m}-${String(i + 1).padStart(2, '0')}`, value: base + i, coverage }));
  // March 2025 observed on all 31 days (1000 … 1030, mean 1015), then two days of April.
  const raw = [...month('2025-03', 1000), { day: '2025-04-01', value: 1040, coverage: 1 }, { day: '2025-04-02', value: 1050, coverage: 1 }];

  it('anchored = raw × official / mean(raw over the latest official month observed on every day)', () => {
    const a = anchorSeries(raw, [{ month: '2025-02', value: 1300 }, { month: '2025-03', value: 1522.5 }, { month: '2025-04', value: 9999 }]);
    // April has an official value but only 2 of its 30 days: not observed in full. March: k = 1522.5 / 1015 = 1.5
    expect(a.month).toBe('2025-03');
    expect(a.factor).toBeCloseTo(1.5, 12);
    expect(a.anchored[0]).toBeCloseTo(1500, 9);
    expect(a.anchored[30]).toBeCloseTo(1545, 9); // 1030 × 1.5
    expect(a.anchored[32]).toBeCloseTo(1575, 9); // 1050 × 1.5: the factor applies to every day
    // the anchored mean over March is the official value
    expect(a.anchored.slice(0, 31).reduce<number>((s, v) => s + (v ?? NaN), 0) / 31).toBeCloseTo(1522.5, 9);
  });

  it('a month with a carried-forward day (coverage 0) or a missing day is not an anchor', () => {
    // January observed in full; February's every day carried forward (a gap in the data): anchor January
    const gap = [...month('2025-01', 1000), ...month('2025-02', 1030, 0)];
    const a = anchorSeries(gap, [{ month: '2025-01', value: 1200 }, { month: '2025-02', value: 1300 }]);
    expect(a.month).toBe('2025-01');
    expect(a.factor).toBeCloseTo(1200 / 1015, 12); // January mean 1000 + 15
    // one carried day in March is enough to skip it; a missing day too
    const oneCarried = raw.map((r) => (r.day === '2025-03-17' ? { ...r, coverage: 0 } : r));
    expect(anchorSeries(oneCarried, [{ month: '2025-03', value: 1515 }]).month).toBeNull();
    expect(anchorSeries(raw.filter((r) => r.day !== '2025-03-09'), [{ month: '2025-03', value: 1515 }]).month).toBeNull();
    expect(anchorSeries(raw, [{ month: '2024-12', value: 1400 }])).toEqual({ month: null, factor: null, anchored: raw.map(() => null) });
    expect(daysInMonth('2024-02')).toBe(29);
    expect(daysInMonth('2025-02')).toBe(28);
  });

  it('d1, d30, yoy are percent changes against 1, 30 and 365 days earlier; null when absent', () => {
    const s = [
      { day: '2024-04-01', value: 1000 }, // 365 days before 2025-04-01
      { day: '2025-03-02', value: 1020 }, // 30 days before
      { day: '2025-03-31', value: 1050 }, // 1 day before
      { day: '2025-04-01', value: 1071 },
    ];
    const h = headlineChanges(s);
    expect(h.d1).toBeCloseTo(2, 10); // 1071 / 1050 = 1.02
    expect(h.d30).toBeCloseTo(5, 10); // 1071 / 1020 = 1.05
    expect(h.yoy).toBeCloseTo(7.1, 10); // 1071 / 1000 = 1.071
    expect(headlineChanges(s.slice(1)).yoy).toBeNull();
    expect(headlineChanges([])).toEqual({ d1: null, d30: null, yoy: null });
  });

  it('sparkline: the last N daily values from t0; leading nulls dropped', () => {
    const s = [
      { day: '2025-01-01', value: null },
      { day: '2025-01-02', value: null },
      { day: '2025-01-03', value: 1001 },
      { day: '2025-01-04', value: 1002 },
      { day: '2025-01-05', value: 1003 },
    ];
    expect(sparkline(s, 2)).toEqual({ t0: '2025-01-04', v: [1002, 1003] });
    expect(sparkline(s, 4)).toEqual({ t0: '2025-01-03', v: [1001, 1002, 1003] });
    expect(sparkline([], 30)).toEqual({ t0: null, v: [] });
    expect(() => sparkline([{ day: '2025-01-01', value: 1 }, { day: '2025-01-03', value: 2 }], 5)).toThrow(RangeError);
  });
});

describe('spans, resuming and stored links', () => {
  /** A SYNTHETIC panel (made-up prices from a fixed-seed generator): 3 items in 2 groups, 7 listings, 60 days. */
  function panel() {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const basket = [
      item('a', { group: 'A', weight: 0.2, perUnit: true }), item('b', { group: 'A', weight: 0.2 }),
      item('c', { group: 'B', weight: 0.6 }), item('r', { group: 'R', weight: 0.3, observable: false }),
    ];
    const start = '2025-01-01';
    const matches: Match[] = [
      match(1, 'a', start), match(2, 'a', '2025-01-20'), // listing 2 joins mid-series
      match(3, 'b', start, '2025-02-10'), match(4, 'b', start), // 3 leaves on 02-10
      match(5, 'c', start), match(6, 'c', '2025-01-05'), match(7, 'c', '2025-02-01'),
    ];
    const spans: ListingSpan[] = [];
    for (let id = 1; id <= 7; id++) {
      let day = addDays(start, id === 6 ? 3 : 0);
      let price = 200 + id * 50;
      while (day <= '2025-03-10') {
        const len = 1 + Math.floor(rnd() * 9);
        const lastDay = addDays(day, len - 1);
        // listing 5 goes unpriced 01-20 … 02-20 (past the 14-day cap); listing 4 from 02-01 on, so
        // item b (listing 3 leaves on 02-10) is carried forward, then stale
        if (!(id === 5 && day >= '2025-01-20' && day < '2025-02-20') && !(id === 4 && day >= '2025-02-01')) {
          const special = rnd() < 0.2;
          const club = !special && rnd() < 0.2;
          spans.push({
            listingId: id, firstDay: day, lastDay, price,
            promoPrice: special || club ? Math.round(price * 0.8) : null, promoKind: special ? 1 : club ? 2 : null,
            qty: id === 2 ? 1000 : 500, unit: 'g', weighable: false,
          });
        }
        day = addDays(lastDay, 1);
        price = Math.max(50, Math.round(price * (0.9 + rnd() * 0.22)));
      }
    }
    return { basket, matches, spans };
  }
  /** Spans expanded to one observation per covered day. */
  const daily = (spans: ListingSpan[]): ListingDay[] =>
    spans.flatMap(({ firstDay, lastDay, ...rest }) => {
      const out: ListingDay[] = [];
      for (let d = firstDay; d <= lastDay; d = addDays(d, 1)) out.push({ ...rest, day: d });
      return out;
    });

  it('spans give exactly what one observation per covered day gives', () => {
    const { basket, matches, spans } = panel();
    const a = computeIndex({ from: '2025-01-01', to: '2025-03-20', basket, matches, spans });
    const b = computeIndex({ from: '2025-01-01', to: '2025-03-20', basket, matches, observations: daily(spans) });
    expect(a.all).toEqual(b.all);
    expect(a.groups).toEqual(b.groups);
    expect(a.items).toEqual(b.items);
    // the panel exercises joins, carry-forward and staleness
    expect(a.items.get('a')!.n.some((n) => n === 2)).toBe(true);
    expect(a.items.get('b')!.n.some((n) => n === 0)).toBe(true);
    expect(a.items.get('b')!.stale.some((x) => x === true)).toBe(true);
  });

  it('the run equals the reference functions applied day by day (countedBasis → stepItem on daily observations)', () => {
    const { basket, matches, spans } = panel();
    const run = computeIndex({ from: '2025-01-01', to: '2025-03-20', basket, matches, spans });
    const byListing = new Map<number, Map<string, ListingDay>>();
    for (const o of daily(spans)) {
      if (!byListing.has(o.listingId)) byListing.set(o.listingId, new Map());
      byListing.get(o.listingId)!.set(o.day, o);
    }
    for (const b of basket.filter((x) => x.observable)) {
      let st: ItemState | null = null;
      run.days.forEach((day, i) => {
        const counted = countedBasis(day, b, matches, byListing);
        st = stepItem(st, day, counted);
        expect(run.items.get(b.code)!.relative[i], `${b.code} ${day}`).toBe(st.relative);
        expect(run.items.get(b.code)!.n[i]).toBe(st.n);
        expect(run.items.get(b.code)!.stale[i]).toBe(st.stale);
      });
    }
  });

  it('computing 1…k then resuming k+1…N (through JSON) equals computing 1…N', () => {
    const { basket, matches, spans } = panel();
    const full = computeIndex({ from: '2025-01-01', to: '2025-03-20', basket, matches, spans });
    for (const k of ['2025-01-01', '2025-01-19', '2025-01-20', '2025-02-10', '2025-02-14', '2025-02-28', '2025-03-12']) {
      const head = computeIndex({ from: '2025-01-01', to: k, basket, matches, spans });
      const stored = JSON.parse(JSON.stringify(stateToJson(head.state)));
      const tail = computeIndex({ from: addDays(k, 1), to: '2025-03-20', basket, matches, spans, resume: stateFromJson(stored) });
      const at = full.days.indexOf(addDays(k, 1));
      expect(tail.days).toEqual(full.days.slice(at));
      expect(tail.all.raw).toEqual(full.all.raw.slice(at)); // bit-identical, not merely close
      expect(tail.all.coverage).toEqual(full.all.coverage.slice(at));
      expect(tail.all.listings).toEqual(full.all.listings.slice(at));
      for (const [code, g] of full.groups) expect(tail.groups.get(code)!.raw).toEqual(g.raw.slice(at));
      for (const [code, s] of full.items) {
        expect(tail.items.get(code)).toEqual({ relative: s.relative.slice(at), n: s.n.slice(at), stale: s.stale.slice(at) });
      }
      expect(stateToJson(tail.state)).toEqual(stateToJson(full.state));
    }
    expect(() => computeIndex({ from: '2025-02-01', to: '2025-03-20', basket, matches, spans, resume: full.state })).toThrow(RangeError);
  });

  it('aggregate items and listings count the items with n ≥ 1 and their counted listings', () => {
    const { basket, matches, spans } = panel();
    const run = computeIndex({ from: '2025-01-01', to: '2025-03-20', basket, matches, spans });
    for (let i = 0; i < run.days.length; i++) {
      const ns = ['a', 'b', 'c'].map((c) => run.items.get(c)!.n[i] ?? 0);
      expect(run.all.items[i]).toBe(ns.filter((n) => n >= 1).length);
      expect(run.all.listings[i]).toBe(ns[0] + ns[1] + ns[2]);
      expect(run.groups.get('A')!.listings[i]).toBe(ns[0] + ns[1]);
      expect(run.groups.get('B')!.items[i]).toBe(ns[2] >= 1 ? 1 : 0);
    }
  });

  it('links: the last-day links, and a dropped listing keeps the link of its last counted day', () => {
    // listing 1 alone, then listing 2 joins on day 1; listing 2's match ends on day 3.
    const d = ['2025-03-01', '2025-03-02', '2025-03-03', '2025-03-04'];
    const run = computeIndex({
      from: d[0], to: d[3], basket: [item('milk')],
      matches: [match(1, 'milk', d[0]), match(2, 'milk', d[1], d[3])],
      observations: [obs(1, d[0], 200), obs(1, d[1], 220), obs(1, d[2], 242), obs(1, d[3], 242), obs(2, d[1], 500), obs(2, d[2], 450)],
    });
    const links = run.links.get('milk')!;
    // listing 2: joined at 500 when the item stood at 1.1, last counted on day 2
    expect(links.get(2)).toEqual({ refPrice: 500, linkedRelative: expect.closeTo(1.1, 12), day: d[2] });
    // listing 1: rescaled when 2 dropped, as in the last day's state
    const l1 = run.last.get('milk')!.links.get(1)!;
    expect(links.get(1)).toEqual({ refPrice: l1.refPrice, linkedRelative: l1.linkedRelative, day: d[3] });
  });
});
