/**
 * The historical-lows rule, pure (src/domain/lows.ts): runs join adjacent spans at one no-card
 * price and break at an unobserved day; min_days drops short runs whatever the window; windows clip
 * a run's days without making it shorter; an open span holds to its covered day.
 */
import { describe, expect, it } from 'vitest';
import { lowestNoCardPrice } from '../../src/domain/lows.js';
import type { PromoKind, Span } from '../../src/domain/spans.js';

/** A span; promo = [promo_price, promo_kind]. */
function span(first_day: string, last_day: string | null, price: number, promo?: [number, PromoKind]): Span {
  return { first_day, last_day, seen_day: null, price, promo_price: promo?.[0] ?? null, promo_kind: promo?.[1] ?? null, multibuy_qty: null, multibuy_price: null };
}

describe('lowestNoCardPrice', () => {
  const spans = [
    span('2026-01-01', '2026-01-09', 500),
    span('2026-01-10', '2026-01-10', 500, [300, 1]), // one day at 300
    span('2026-01-11', '2026-01-12', 520, [400, 1]), // 400 for two days …
    span('2026-01-13', '2026-01-13', 410, [400, 1]), // … and a third: the shelf price changed under it
    span('2026-01-14', '2026-01-20', 500, [350, 2]), // a club price: 500 without a card
    span('2026-01-25', null, 450), // after four unobserved days; open to the covered day
  ];
  const all = (minDays: number, from: string | null = null, to = '2026-01-31') => lowestNoCardPrice(spans, '2026-01-27', { from, to, minDays });

  it('min_days 1 counts every price paid; 2 drops the one-day special', () => {
    expect(all(1)).toEqual({ price: 300, day: '2026-01-10', days: 1 });
    expect(all(2)).toEqual({ price: 400, day: '2026-01-13', days: 3 });
  });

  it('joins spans at one no-card price into a run (a shelf-price change under a special does not end it)', () => {
    expect(all(3)).toEqual({ price: 400, day: '2026-01-13', days: 3 });
    // At 4 the 400 run (3 days) and the 450 run (01-25 … 01-27, 3 days) drop out: 500, paid on the
    // shelf days and on the club-price days (no card: 500), last on 01-20.
    expect(all(4)).toEqual({ price: 500, day: '2026-01-20', days: 16 });
  });

  it('a run cut by the window keeps its length; only its days in the window count', () => {
    expect(all(3, '2026-01-13', '2026-01-31')).toEqual({ price: 400, day: '2026-01-13', days: 1 });
    expect(all(1, '2026-01-14', '2026-01-31')).toEqual({ price: 450, day: '2026-01-27', days: 3 });
    expect(all(1, '2026-01-21', '2026-01-24')).toBeNull(); // unobserved days are not guessed
  });

  it('an unobserved gap breaks a run; the open span holds to its covered day, never past it', () => {
    expect(all(4, '2026-01-25')).toBeNull(); // 450 held three observed days (01-25 … 01-27)
    expect(all(3, '2026-01-25')).toEqual({ price: 450, day: '2026-01-27', days: 3 });
    expect(all(1, '2026-01-28')).toBeNull();
  });
});
