/**
 * "Is this special real?" (src/domain/special-check.ts) with hand-computed answers. Prices are made
 * up. Most cases start the promotion on 2025-04-01, so the window is 2025-01-01 … 2025-03-31
 * (31 + 28 + 31 = 90 days) and the shelf-rise look-back starts 2025-03-02.
 */
import { describe, expect, it } from 'vitest';
import { checkSpecial, MIN_OBSERVED_DAYS, SPECIAL_VERDICTS } from '../../src/domain/special-check.js';
import type { Span } from '../../src/domain/spans.js';

/** A shelf-price span (no promotion). */
const shelf = (first_day: string, last_day: string | null, price: number): Span => ({
  first_day, last_day, price, promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null,
});
/** A special (promo_kind 1). */
const special = (first_day: string, last_day: string | null, price: number, promo: number): Span => ({
  ...shelf(first_day, last_day, price), promo_price: promo, promo_kind: 1,
});
/** A member/club price (promo_kind 2). */
const member = (first_day: string, last_day: string | null, price: number, promo: number): Span => ({
  ...shelf(first_day, last_day, price), promo_price: promo, promo_kind: 2,
});
/** A multibuy (promo_kind 3): qty for total. */
const multibuy = (first_day: string, last_day: string | null, price: number, qty: number, total: number): Span => ({
  ...shelf(first_day, last_day, price), promo_price: Math.round(total / qty), promo_kind: 3, multibuy_qty: qty, multibuy_price: total,
});
const LAST = '2025-04-10';

describe('checkSpecial', () => {
  it('genuine: a special below 90 days of one shelf price', () => {
    expect(checkSpecial([shelf('2024-12-01', '2025-03-31', 500), special('2025-04-01', null, 500, 400)], LAST)).toEqual({
      kind: 'special', promoPrice: 400, shelfPrice: 500, promoSince: '2025-04-01', windowFrom: '2025-01-01', windowTo: '2025-03-31',
      daysObserved: 90, promoDays: 0, usualPrice: 500, lowestPrice: 500, lowestShelfPrice: 500, shelfRise: null, savingVsUsual: 100,
      verdict: 'genuine',
    });
  });

  it('not_lowest: an earlier special in the window was cheaper (14 special days do not count toward the usual price)', () => {
    const c = checkSpecial(
      [shelf('2024-12-01', '2025-02-14', 500), special('2025-02-15', '2025-02-28', 500, 350), shelf('2025-03-01', '2025-03-31', 500), special('2025-04-01', null, 500, 400)],
      LAST,
    )!;
    expect(c).toMatchObject({ daysObserved: 90, promoDays: 14, usualPrice: 500, lowestPrice: 350, lowestShelfPrice: 500, savingVsUsual: 100, verdict: 'not_lowest' });
  });

  it('genuine when the promo price equals the window\'s lowest (as low, not cheaper)', () => {
    const c = checkSpecial([shelf('2024-12-01', '2025-02-28', 500), special('2025-03-01', '2025-03-10', 500, 400), shelf('2025-03-11', '2025-03-31', 500), special('2025-04-01', null, 500, 400)], LAST)!;
    expect(c).toMatchObject({ promoDays: 10, lowestPrice: 400, verdict: 'genuine' });
  });

  it('inflated: the shelf price rose 16 days before, and the special only returns to the old price', () => {
    const c = checkSpecial([shelf('2024-12-01', '2025-03-15', 400), shelf('2025-03-16', '2025-03-31', 480), special('2025-04-01', null, 480, 400)], LAST)!;
    expect(c).toMatchObject({
      usualPrice: 400, lowestPrice: 400, lowestShelfPrice: 400, shelfRise: { from: 400, to: 480, day: '2025-03-16' }, savingVsUsual: 0, verdict: 'inflated',
    });
  });

  it('inflated: the shelf price rose on the day the special started', () => {
    const c = checkSpecial([shelf('2024-12-01', '2025-03-31', 400), special('2025-04-01', null, 480, 420)], LAST)!;
    expect(c).toMatchObject({ shelfPrice: 480, usualPrice: 400, shelfRise: { from: 400, to: 480, day: '2025-04-01' }, savingVsUsual: -20, verdict: 'inflated' });
  });

  it('a rise that fell back does not count; a later rise from the lower price does', () => {
    // 400 (Jan 1–Mar 4, 63 days), 450 (Mar 5–9), 350 (Mar 10–19), 390 (Mar 20–31), special 390/350 from Apr 1.
    const c = checkSpecial(
      [shelf('2025-01-01', '2025-03-04', 400), shelf('2025-03-05', '2025-03-09', 450), shelf('2025-03-10', '2025-03-19', 350), shelf('2025-03-20', '2025-03-31', 390), special('2025-04-01', null, 390, 350)],
      LAST,
    )!;
    expect(c).toMatchObject({ daysObserved: 90, usualPrice: 400, lowestPrice: 350, lowestShelfPrice: 350, shelfRise: { from: 350, to: 390, day: '2025-03-20' }, verdict: 'inflated' });
  });

  it('above_usual: the shelf price rose 44 days before (outside the 30-day look-back) and the special is above the old usual price', () => {
    const c = checkSpecial([shelf('2024-12-01', '2025-02-15', 400), shelf('2025-02-16', '2025-03-31', 500), special('2025-04-01', null, 500, 450)], LAST)!;
    expect(c).toMatchObject({ usualPrice: 400, shelfRise: null, savingVsUsual: -50, verdict: 'above_usual' });
  });

  it('a tie for the usual price goes to the price seen most recently', () => {
    // 400 on Jan 1–Feb 14 (45 days), 500 on Feb 15–Mar 31 (45 days).
    const c = checkSpecial([shelf('2024-12-01', '2025-02-14', 400), shelf('2025-02-15', '2025-03-31', 500), special('2025-04-01', null, 500, 450)], LAST)!;
    expect(c).toMatchObject({ usualPrice: 500, lowestPrice: 400, shelfRise: null, savingVsUsual: 50, verdict: 'not_lowest' });
  });

  it(`insufficient_history under ${MIN_OBSERVED_DAYS} observed days`, () => {
    const c = checkSpecial([shelf('2025-03-10', '2025-03-31', 500), special('2025-04-01', null, 500, 400)], LAST)!;
    expect(c).toMatchObject({ daysObserved: 22, usualPrice: 500, verdict: 'insufficient_history' });
    expect(checkSpecial([special('2025-04-01', null, 500, 400)], LAST)).toMatchObject({
      daysObserved: 0, promoDays: 0, usualPrice: null, lowestPrice: null, lowestShelfPrice: null, savingVsUsual: null, verdict: 'insufficient_history',
    });
  });

  it('the run continues across a changed promo price and up to 7 unobserved days, not across 8', () => {
    const head = [shelf('2024-12-01', '2025-03-31', 500), special('2025-04-01', '2025-04-10', 500, 450)];
    expect(checkSpecial([...head, special('2025-04-15', null, 500, 400)], '2025-04-20')).toMatchObject({ promoSince: '2025-04-01', promoPrice: 400, verdict: 'genuine' });
    // Apr 11–18 unobserved (8 days): a new run from Apr 19; window Jan 19 … Apr 18 sees 72 shelf days and 10 special days.
    expect(checkSpecial([...head, special('2025-04-19', null, 500, 400)], '2025-04-20')).toMatchObject({
      promoSince: '2025-04-19', windowFrom: '2025-01-19', windowTo: '2025-04-18', daysObserved: 82, promoDays: 10, usualPrice: 500, lowestPrice: 450, verdict: 'genuine',
    });
  });

  it('no_usual_price: on a special every observed day of the window', () => {
    // Special Jan 1–Mar 20 (79 days), unobserved Mar 21–31 (11 days: the run breaks), special again from Apr 1.
    const c = checkSpecial([special('2024-12-01', '2025-03-20', 500, 400), special('2025-04-01', null, 500, 450)], LAST)!;
    expect(c).toMatchObject({ promoSince: '2025-04-01', daysObserved: 79, promoDays: 79, usualPrice: null, lowestPrice: 400, lowestShelfPrice: 500, verdict: 'no_usual_price' });
  });

  it('member: club prices in the window count toward the usual shelf price, not toward the lowest price', () => {
    const c = checkSpecial(
      [shelf('2024-12-01', '2025-01-31', 500), member('2025-02-01', '2025-02-28', 500, 300), shelf('2025-03-01', '2025-03-31', 500), member('2025-04-01', null, 500, 400)],
      LAST,
    )!;
    expect(c).toMatchObject({ kind: 'member', promoDays: 28, usualPrice: 500, lowestPrice: 500, verdict: 'genuine' });
  });

  it('multibuy: the unit price is the set price over the set size', () => {
    const c = checkSpecial([shelf('2024-12-01', '2025-03-31', 500), multibuy('2025-04-01', null, 500, 3, 1000)], LAST)!;
    expect(c.kind).toBe('multibuy');
    expect(c.promoPrice).toBeCloseTo(1000 / 3, 10);
    expect(c.savingVsUsual).toBeCloseTo(500 - 1000 / 3, 10);
    expect(c.verdict).toBe('genuine');
  });

  it('null when there is no span or the current span is no deal', () => {
    expect(checkSpecial([], LAST)).toBeNull();
    expect(checkSpecial([special('2025-01-01', '2025-03-31', 500, 400), shelf('2025-04-01', null, 500)], LAST)).toBeNull();
    expect(checkSpecial([{ ...special('2025-04-01', null, 500, 400), promo_kind: 4 }], LAST)).toBeNull();
  });

  it('lists the verdicts in the order they are tried', () => {
    expect(SPECIAL_VERDICTS).toEqual(['insufficient_history', 'no_usual_price', 'inflated', 'above_usual', 'not_lowest', 'genuine']);
  });
});
