import { describe, expect, it } from 'vitest';
import { historyColumns, mergeDay, nationalPrice, samePrice, spanTo, type PriceTuple, type Span } from '../../src/domain/spans.js';

const p = (price: number, extra: Partial<PriceTuple> = {}): PriceTuple => ({
  price, promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null, ...extra,
});

describe('mergeDay', () => {
  it('extends the open span on an equal observation and opens a new one on a change', () => {
    const spans = new Map<string, Span[]>();
    mergeDay(spans, null, '2025-01-01', new Map([['a', p(399)]]));
    mergeDay(spans, '2025-01-01', '2025-01-02', new Map([['a', p(399)]]));
    mergeDay(spans, '2025-01-02', '2025-01-03', new Map([['a', p(349, { promo_price: 299, promo_kind: 1 })]]));
    expect(spans.get('a')).toEqual([
      { ...p(399), first_day: '2025-01-01', last_day: '2025-01-02' },
      { ...p(349, { promo_price: 299, promo_kind: 1 }), first_day: '2025-01-03', last_day: null },
    ]);
  });
  it('treats a promotion change alone as a change', () => {
    const spans = new Map<string, Span[]>();
    mergeDay(spans, null, '2025-01-01', new Map([['a', p(399)]]));
    mergeDay(spans, '2025-01-01', '2025-01-02', new Map([['a', p(399, { promo_price: 350, promo_kind: 2 })]]));
    expect(spans.get('a')!.map((s) => [s.first_day, s.last_day, s.promo_price])).toEqual([
      ['2025-01-01', '2025-01-01', null],
      ['2025-01-02', null, 350],
    ]);
  });
  it('closes an unobserved listing in a snapshot, and carries it forward in a change log', () => {
    const snap = new Map<string, Span[]>();
    mergeDay(snap, null, '2025-01-01', new Map([['a', p(1)], ['b', p(2)]]));
    mergeDay(snap, '2025-01-01', '2025-01-05', new Map([['a', p(1)]]));
    expect(snap.get('b')![0].last_day).toBe('2025-01-01');
    expect(snap.get('a')![0].last_day).toBeNull();

    const log = new Map<string, Span[]>();
    mergeDay(log, null, '2025-01-01', new Map([['a', p(1)], ['b', p(2)]]), 'changes');
    mergeDay(log, '2025-01-01', '2025-01-05', new Map([['a', p(3)]]), 'changes');
    expect(log.get('b')![0].last_day).toBeNull();
    expect(log.get('a')!.map((s) => s.last_day)).toEqual(['2025-01-01', null]);
  });
  it('reopens a listing that comes back after a gap as a new span', () => {
    const spans = new Map<string, Span[]>();
    mergeDay(spans, null, '2025-01-01', new Map([['a', p(5)]]));
    mergeDay(spans, '2025-01-01', '2025-01-02', new Map());
    mergeDay(spans, '2025-01-02', '2025-01-03', new Map([['a', p(5)]]));
    expect(spans.get('a')!.map((s) => [s.first_day, s.last_day])).toEqual([
      ['2025-01-01', '2025-01-01'],
      ['2025-01-03', null],
    ]);
  });
  it('after unknown days closes every open span, even an equal one, in either mode', () => {
    for (const mode of ['snapshot', 'changes'] as const) {
      const spans = new Map<string, Span[]>();
      mergeDay(spans, null, '2025-05-03', new Map([['a', p(260)], ['b', p(100)]]), mode);
      mergeDay(spans, '2025-05-03', '2026-07-27', new Map([['a', p(260)]]), mode, true);
      expect(spans.get('a')!.map((s) => [s.first_day, s.last_day, s.price])).toEqual([
        ['2025-05-03', '2025-05-03', 260],
        ['2026-07-27', null, 260],
      ]);
      expect(spans.get('b')!.map((s) => [s.first_day, s.last_day])).toEqual([['2025-05-03', '2025-05-03']]);
    }
  });
  it('refuses a day that is not after the previous collection', () => {
    expect(() => mergeDay(new Map(), '2025-01-02', '2025-01-02', new Map())).toThrow(RangeError);
  });
});

describe('nationalPrice', () => {
  it('is the median shelf price across stores', () => {
    expect(nationalPrice([p(1699), p(1599), p(1799)])).toEqual(p(1699));
  });
  it('carries a promotion only when more than half the stores have one', () => {
    expect(nationalPrice([p(500, { promo_price: 400, promo_kind: 1 }), p(500)])).toEqual(p(500));
    expect(
      nationalPrice([p(500, { promo_price: 400, promo_kind: 2 }), p(520, { promo_price: 420, promo_kind: 1 }), p(510, { promo_price: 380, promo_kind: 2 })]),
    ).toEqual(p(510, { promo_price: 400, promo_kind: 2 }));
  });
  it('takes the most common multibuy quantity and the median total', () => {
    const m = (q: number, t: number) => p(300, { promo_price: Math.round(t / q), promo_kind: 3, multibuy_qty: q, multibuy_price: t });
    expect(nationalPrice([m(2, 500), m(2, 520), m(3, 700)])).toEqual(
      p(300, { promo_price: 250, promo_kind: 3, multibuy_qty: 2, multibuy_price: 520 }),
    );
  });
});

describe('historyColumns and samePrice', () => {
  it('ends an open span at its scope\'s last collection day', () => {
    const spans: Span[] = [
      { ...p(100), first_day: '2025-01-01', last_day: '2025-01-03' },
      { ...p(90, { promo_price: 80, promo_kind: 1 }), first_day: '2025-01-04', last_day: null },
    ];
    expect(historyColumns(spans, '2025-02-01')).toEqual({
      from: ['2025-01-01', '2025-01-04'], to: ['2025-01-03', '2025-02-01'], price: [100, 90], promo: [null, 80],
      kind: [null, 1], multibuy_qty: [null, null], multibuy_price: [null, null],
    });
    expect(samePrice(p(1), p(1))).toBe(true);
    expect(samePrice(p(1), p(1, { multibuy_qty: 2 }))).toBe(false);
  });
});

describe('spanTo (the open-span end rule)', () => {
  it('is the last_day of a closed span, else the scope\'s last collection day, else the first day', () => {
    expect(spanTo({ first_day: '2025-01-01', last_day: '2025-01-05' }, '2025-02-01')).toBe('2025-01-05');
    expect(spanTo({ first_day: '2025-01-01', last_day: null }, '2025-02-01')).toBe('2025-02-01');
    expect(spanTo({ first_day: '2025-01-01', last_day: null }, null)).toBe('2025-01-01');
  });
  it('is what historyColumns puts in `to`', () => {
    const spans: Span[] = [
      { ...p(1), first_day: '2025-01-01', last_day: '2025-01-03' },
      { ...p(2), first_day: '2025-01-04', last_day: null },
    ];
    expect(historyColumns(spans, '2025-01-09').to).toEqual(spans.map((s) => spanTo(s, '2025-01-09')));
  });
});
