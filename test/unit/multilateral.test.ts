import { describe, expect, it } from 'vitest';
import {
  bilateralJevons,
  chainedJevons,
  geksJevons,
  logJevonsMatrix,
  rollingGeksFromLogMatrix,
  rollingGeksJevons,
  type PricePanel,
} from '../../src/domain/multilateral.js';

/** A panel from rows of `{ item: price }` (an absent item is unpriced that period). */
function panel(rows: Record<string, number>[]): PricePanel {
  return { periods: rows.map((_, i) => `p${i}`), prices: rows.map((r) => new Map(Object.entries(r))) };
}
const close = (a: number | null, b: number) => expect(a).toBeCloseTo(b, 12);

describe('bilateral Jevons', () => {
  it('is the geometric mean of the relatives of the items priced in both periods', () => {
    // A 1 → 2, B 2 → 8, C only in the second period (not matched): (2 · 4)^(1/2) = √8.
    close(bilateralJevons(new Map([['A', 1], ['B', 2]]), new Map([['A', 2], ['B', 8], ['C', 5]])), Math.sqrt(8));
  });
  it('returns null on an empty overlap (never 1)', () => {
    expect(bilateralJevons(new Map([['A', 1]]), new Map([['B', 1]]))).toBeNull();
    expect(bilateralJevons(new Map(), new Map())).toBeNull();
  });
  it('is time-reversible', () => {
    const a = new Map([['A', 3], ['B', 7]]);
    const b = new Map([['A', 5], ['B', 2]]);
    close(bilateralJevons(a, b)! * bilateralJevons(b, a)!, 1);
  });
  it('rejects a non-positive price of a matched item', () => {
    expect(() => bilateralJevons(new Map([['A', 0]]), new Map([['A', 1]]))).toThrow(RangeError);
  });
});

describe('GEKS-Jevons over one window', () => {
  // Hand example, 3 periods × 3 items with churn (C enters in p1, B leaves after p1):
  //        A  B  C
  //   p0   1  1  -
  //   p1   2  1  1
  //   p2   2  -  4
  // Bilateral Jevons over matched items:
  //   J(0,1) over {A,B} = (2/1 · 1/1)^(1/2) = √2
  //   J(0,2) over {A}   = 2/1 = 2
  //   J(1,2) over {A,C} = (2/2 · 4/1)^(1/2) = 2
  // GEKS(0,t) = [Π_k J(0,k) J(k,t)]^(1/3), k = 0, 1, 2:
  //   GEKS(0,1) = [J(0,0)J(0,1) · J(0,1)J(1,1) · J(0,2)J(2,1)]^(1/3) = [√2 · √2 · 2·½]^(1/3) = 2^(1/3)
  //   GEKS(0,2) = [J(0,0)J(0,2) · J(0,1)J(1,2) · J(0,2)J(2,2)]^(1/3) = [2 · 2√2 · 2]^(1/3) = 2^(7/6)
  // Chained Jevons J(0,1)·J(1,2) = 2√2 = 2^(3/2); the direct J(0,2) = 2: GEKS lies between.
  const churn = panel([{ A: 1, B: 1 }, { A: 2, B: 1, C: 1 }, { A: 2, C: 4 }]);

  it('matches the hand-computed example', () => {
    const g = geksJevons(churn);
    close(g[0], 1);
    close(g[1], 2 ** (1 / 3)); // 1.259921…
    close(g[2], 2 ** (7 / 6)); // 2.244924…
  });

  it('is transitive within the window: P(0,2) = P(0,1) · P(1,2)', () => {
    // P(1,2) computed directly: [J(1,0)J(0,2) · J(1,1)J(1,2) · J(1,2)J(2,2)]^(1/3)
    //   = [(1/√2)·2 · 2 · 2]^(1/3) = 2^(5/6); and 2^(1/3) · 2^(5/6) = 2^(7/6).
    const m = logJevonsMatrix(churn);
    const p12 = Math.exp(((m[1][0]! + m[0][2]!) + (m[1][1]! + m[1][2]!) + (m[1][2]! + m[2][2]!)) / 3);
    close(p12, 2 ** (5 / 6));
    const g = geksJevons(churn);
    close(g[1]! * p12, g[2]!);
  });

  it('shows the chained Jevons drifting away under churn while GEKS does not chain', () => {
    close(chainedJevons(churn)[2], 2 ** 1.5);
    expect(geksJevons(churn)[2]!).toBeLessThan(chainedJevons(churn)[2]);
  });

  it('equals the bilateral Jevons when every item is priced in every period', () => {
    // A doubles each period, B is flat, C halves then quadruples (non-proportional moves).
    const full = panel([{ A: 1, B: 3, C: 4 }, { A: 2, B: 3, C: 2 }, { A: 4, B: 3, C: 8 }, { A: 4, B: 6, C: 8 }]);
    const g = geksJevons(full);
    for (let t = 0; t < 4; t++) close(g[t], bilateralJevons(full.prices[0], full.prices[t])!);
    // proportional moves: every price × 1.1 then × 0.9 → GEKS = 1.1, 0.99 exactly.
    const prop = panel([{ A: 2, B: 5 }, { A: 2.2, B: 5.5 }, { A: 1.98, B: 4.95 }]);
    const gp = geksJevons(prop);
    close(gp[1], 1.1);
    close(gp[2], 0.99);
  });

  it('leaves out links through a period with no matched item and returns null when none is left', () => {
    // p1 shares no item with p0 or p2: only k = 0 and k = 2 link 0 to 2, J(0,2) = 3.
    const gap = panel([{ A: 1 }, { Z: 9 }, { A: 3 }]);
    const g = geksJevons(gap);
    expect(g[1]).toBeNull();
    close(g[2], 3);
  });

  it('rejects an empty panel', () => {
    expect(() => geksJevons(panel([]))).toThrow(RangeError);
  });
});

describe('rolling window with splicing (window 3, 5 periods)', () => {
  // Hand example. A is flat; B is priced in p0–p2 only (leaves); C enters in p2.
  //        A  B  C        log2 prices:  A  B  C
  //   p0   1  1  -                      0  0  -
  //   p1   1  2  -                      0  1  -
  //   p2   1  4  1                      0  2  0
  //   p3   1  -  4                      0  -  2
  //   p4   1  -  16                     0  -  4
  // log2 bilateral Jevons L(s,t) (mean log2 relative over matched items):
  //   L(0,1) = (0+1)/2 = ½, L(0,2) = (0+2)/2 = 1, L(1,2) = ½          (A, B)
  //   L(0,3) = L(0,4) = L(1,3) = L(1,4) = 0                            (A only)
  //   L(2,3) = (0+2)/2 = 1, L(2,4) = (0+4)/2 = 2, L(3,4) = 1           (A, C)
  // Window W1 = {0,1,2} (A, B in every period): GEKS = Jevons, log2 G1(0,·) = 0, ½, 1.
  // Window W2 = {1,2,3}: log2 G2(s,t) = ⅓ Σ_k (L(s,k) + L(k,t)):
  //   G2(1,3) = ⅓[(0 + 0) + (½ + 1) + (0 + 0)] = ½
  //   G2(2,3) = ⅓[(−½ + 0) + (0 + 1) + (1 + 0)] = ½
  //   G2(1,2) = ⅓[(0 + ½) + (½ + 0) + (0 − 1)] = 0
  // Window W3 = {2,3,4} (A, C in every period): G3(2,4) = 2, G3(3,4) = 1.
  // Series I in log2; I(0), I(1), I(2) = 0, ½, 1 from W1.
  //  T = 3, overlap k ∈ {1, 2}:
  //   movement: I(3) = I(2) + G2(2,3) = 1 + ½ = 1.5
  //   window:   I(3) = I(1) + G2(1,3) = ½ + ½ = 1            (revised: I(2) + G2(1,3) − G1(1,2) = 1 + ½ − ½ = 1)
  //   mean:     I(3) = mean(½ + ½, 1 + ½) = 1.25             (revised: 1 + mean(½ − ½, ½ − 0) = 1.25)
  //  T = 4, overlap k ∈ {2, 3}:
  //   movement: I(4) = I(3) + G3(3,4) = 1.5 + 1 = 2.5
  //   window, published: I(2) + G3(2,4) = 1 + 2 = 3
  //   window, revised:   I(3) + G3(2,4) − G2(2,3) = 1 + 2 − ½ = 2.5
  //   mean, published:   mean(I(2) + G3(2,4), I(3) + G3(3,4)) = mean(1 + 2, 1.25 + 1) = 2.625
  //   mean, revised:     I(3) + mean(G3(2,4) − G2(2,3), G3(3,4) − G2(3,3)) = 1.25 + mean(1.5, 1) = 2.5
  // The chained Jevons: ½ + ½ + 1 + 1 = 3 (log2), i.e. 8.
  const p = panel([{ A: 1, B: 1 }, { A: 1, B: 2 }, { A: 1, B: 4, C: 1 }, { A: 1, C: 4 }, { A: 1, C: 16 }]);
  const log2 = (xs: (number | null)[]) => xs.map((x) => Math.log2(x!));
  const expectLog2 = (xs: (number | null)[], want: number[]) => log2(xs).forEach((x, i) => expect(x).toBeCloseTo(want[i], 12));

  it('movement splice', () => {
    expectLog2(rollingGeksJevons(p, { window: 3, splice: 'movement' }), [0, 0.5, 1, 1.5, 2.5]);
    expectLog2(rollingGeksJevons(p, { window: 3, splice: 'movement', on: 'revised' }), [0, 0.5, 1, 1.5, 2.5]);
  });
  it('window splice, on published and on revised series', () => {
    expectLog2(rollingGeksJevons(p, { window: 3, splice: 'window' }), [0, 0.5, 1, 1, 3]);
    expectLog2(rollingGeksJevons(p, { window: 3, splice: 'window', on: 'revised' }), [0, 0.5, 1, 1, 2.5]);
  });
  it('mean splice, on published and on revised series', () => {
    expectLog2(rollingGeksJevons(p, { window: 3, splice: 'mean' }), [0, 0.5, 1, 1.25, 2.625]);
    expectLog2(rollingGeksJevons(p, { window: 3, splice: 'mean', on: 'revised' }), [0, 0.5, 1, 1.25, 2.5]);
  });
  it('the chained Jevons of the same panel', () => {
    expectLog2(chainedJevons(p), [0, 0.5, 1, 2, 3]);
  });
  it('all splices equal the direct Jevons on a panel with no churn', () => {
    const full = panel([{ A: 1, B: 2 }, { A: 3, B: 2 }, { A: 2, B: 5 }, { A: 4, B: 1 }, { A: 5, B: 5 }]);
    for (const splice of ['movement', 'window', 'mean'] as const) {
      const r = rollingGeksJevons(full, { window: 3, splice });
      for (let t = 0; t < 5; t++) close(r[t], bilateralJevons(full.prices[0], full.prices[t])!);
    }
  });
  it('a panel shorter than the window is one GEKS window', () => {
    const short = panel([{ A: 1, B: 1 }, { A: 2, B: 1, C: 1 }, { A: 2, C: 4 }]);
    expect(rollingGeksJevons(short, { window: 5, splice: 'mean' })).toEqual(geksJevons(short));
  });
  it('real time: the window grows from period 0, so no value looks ahead', () => {
    // The 3-period churn panel of the GEKS example, window 3, real time:
    //   I(1): window {0,1}, GEKS(0,1) = [J(0,0)J(0,1) · J(0,1)J(1,1)]^(1/2) = J(0,1) = √2 (every splice)
    //   I(2): window {0,1,2}, overlap k ∈ {0,1}; GEKS(0,2) = 2^(7/6), GEKS(1,2) = 2^(5/6) (above):
    //     movement: I(1) · GEKS(1,2) = 2^(1/2) · 2^(5/6) = 2^(4/3)
    //     window:   I(0) · GEKS(0,2) = 2^(7/6)
    //     mean:     (2^(7/6) · 2^(4/3))^(1/2) = 2^(5/4)
    // (not real time, I(1) = 2^(1/3) from the full first window, which uses period 2.)
    const churn = panel([{ A: 1, B: 1 }, { A: 2, B: 1, C: 1 }, { A: 2, C: 4 }]);
    const rt = (splice: 'movement' | 'window' | 'mean') => log2(rollingGeksJevons(churn, { window: 3, splice, realTime: true }));
    [0, 0.5, 4 / 3].forEach((x, i) => expect(rt('movement')[i]).toBeCloseTo(x, 12));
    [0, 0.5, 7 / 6].forEach((x, i) => expect(rt('window')[i]).toBeCloseTo(x, 12));
    [0, 0.5, 5 / 4].forEach((x, i) => expect(rt('mean')[i]).toBeCloseTo(x, 12));
    // On the 5-period panel the first window is transitive (A, B in every period): real time changes nothing.
    for (const splice of ['movement', 'window', 'mean'] as const) {
      expect(log2(rollingGeksJevons(p, { window: 3, splice, realTime: true })).map((x) => x.toFixed(12))).toEqual(
        log2(rollingGeksJevons(p, { window: 3, splice })).map((x) => x.toFixed(12)),
      );
    }
  });
  it('rejects a window below 2', () => {
    expect(() => rollingGeksJevons(p, { window: 1, splice: 'mean' })).toThrow(RangeError);
  });
});

describe('bilateral indices up to a lag, and a series published every period (issue 30, the index worker)', () => {
  it('logJevonsMatrix with maxLag computes the pairs at most that far apart, the others stay null', () => {
    // 4 periods of one item A: 1, 2, 4, 8 (log2 J(s,t) = t − s); maxLag 1: only neighbours.
    const a = panel([{ A: 1 }, { A: 2 }, { A: 4 }, { A: 8 }]);
    const m = logJevonsMatrix(a, 0, 3, 1).map((row) => row.map((x) => (x == null ? null : Math.round(Math.log2(Math.exp(x)) * 1e12) / 1e12)));
    expect(m).toEqual([
      [0, 1, null, null],
      [-1, 0, 1, null],
      [null, -1, 0, 1],
      [null, null, -1, 0],
    ]);
    // The rolling window of 2 reads only neighbours: the same series with and without the limit.
    expect(rollingGeksFromLogMatrix(logJevonsMatrix(a, 0, 3, 1), { window: 2, splice: 'window', realTime: true }))
      .toEqual(rollingGeksFromLogMatrix(logJevonsMatrix(a), { window: 2, splice: 'window', realTime: true }));
  });

  it('real time, window 3, window splice on a panel with churn (hand-computed)', () => {
    //        a  b     J(0,1) = √(2·1) = √2, J(0,2) = √(2·2) = 2, J(1,2) = √(1·2) = √2,
    //   d0   1  1     J(1,3) = 4/2 = 2 (a only), J(2,3) = 4/2 = 2 (a only)
    //   d1   2  1     I(1) = GEKS_{0,1}(0,1) = J(0,1) = √2
    //   d2   2  2     I(2) = GEKS_{0..2}(0,2) = [J(0,0)J(0,2) · J(0,1)J(1,2) · J(0,2)J(2,2)]^(1/3) = 8^(1/3) = 2
    //   d3   4  -     I(3) = I(1) · GEKS_{1..3}(1,3), GEKS = [J(1,1)J(1,3) · J(1,2)J(2,3) · J(1,3)J(3,3)]^(1/3)
    //                      = [2 · 2√2 · 2]^(1/3) = 2^(7/6); I(3) = 2^(1/2 + 7/6) = 2^(5/3) ≈ 3.1748
    const p = panel([{ a: 1, b: 1 }, { a: 2, b: 1 }, { a: 2, b: 2 }, { a: 4 }]);
    const r = rollingGeksJevons(p, { window: 3, splice: 'window', realTime: true });
    [1, Math.SQRT2, 2, 2 ** (5 / 3)].forEach((x, i) => close(r[i], x));
    // carry changes nothing where every period has a defined value
    expect(rollingGeksJevons(p, { window: 3, splice: 'window', realTime: true, carry: true })).toEqual(r);
  });

  it('carry: a period without prices publishes the previous value, and the window splice resumes from the first priced period', () => {
    // a: 1, 2, -, -, 3, 3.3 (two periods without prices), window 3, window splice, real time.
    //   I(1) = J(0,1) = 2. I(2), I(3): no link reaches them (empty) → carried: 2, 2.
    //   I(4): window {2,3,4}, overlap {2,3} both empty → no candidate → carried: 2 (the item re-enters
    //   at its published level, as a listing links in under the chained Jevons).
    //   I(5): window {3,4,5}, overlap {3,4}: 3 empty, 4 → I(4) · GEKS_{3..5}(4,5) = 2 · 1.1 = 2.2.
    // Without carry, the periods without a defined value are null and so is every later window splice.
    const p = panel([{ a: 1 }, { a: 2 }, {}, {}, { a: 3 }, { a: 3.3 }]);
    const carried = rollingGeksJevons(p, { window: 3, splice: 'window', realTime: true, carry: true });
    [1, 2, 2, 2, 2, 2.2].forEach((x, i) => close(carried[i], x));
    const plain = rollingGeksJevons(p, { window: 3, splice: 'window', realTime: true });
    expect(plain.slice(2)).toEqual([null, null, null, null]);
    close(plain[1], 2);
  });
});
