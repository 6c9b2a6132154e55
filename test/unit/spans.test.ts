import { describe, expect, it } from 'vitest';
import {
  CAP_DAYS, historyColumns, isCurrentSpan, mergeDay, nationalPrice, samePrice, spanTo, type PriceTuple, type ScopeDays, type Span,
} from '../../src/domain/spans.js';

const p = (price: number, extra: Partial<PriceTuple> = {}): PriceTuple => ({
  price, promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null, ...extra,
});

const fresh = (): ScopeDays => ({ lastDay: null, coveredDay: null });

describe('mergeDay', () => {
  it('extends the open span on an equal observation and opens a new one on a change', () => {
    const spans = new Map<string, Span[]>();
    const sc = fresh();
    mergeDay(spans, sc, '2025-01-01', new Map([['a', p(399)]]));
    mergeDay(spans, sc, '2025-01-02', new Map([['a', p(399)]]));
    mergeDay(spans, sc, '2025-01-03', new Map([['a', p(349, { promo_price: 299, promo_kind: 1 })]]));
    expect(spans.get('a')).toEqual([
      { ...p(399), first_day: '2025-01-01', last_day: '2025-01-02', seen_day: null },
      { ...p(349, { promo_price: 299, promo_kind: 1 }), first_day: '2025-01-03', last_day: null, seen_day: null },
    ]);
    expect(sc).toEqual({ lastDay: '2025-01-03', coveredDay: '2025-01-03' });
  });
  it('treats a promotion change alone as a change', () => {
    const spans = new Map<string, Span[]>();
    const sc = fresh();
    mergeDay(spans, sc, '2025-01-01', new Map([['a', p(399)]]));
    mergeDay(spans, sc, '2025-01-02', new Map([['a', p(399, { promo_price: 350, promo_kind: 2 })]]));
    expect(spans.get('a')!.map((s) => [s.first_day, s.last_day, s.promo_price])).toEqual([
      ['2025-01-01', '2025-01-01', null],
      ['2025-01-02', null, 350],
    ]);
  });
  it('closes an unobserved listing in a snapshot, and carries it forward (observed) in a change log', () => {
    const snap = new Map<string, Span[]>();
    const s1 = fresh();
    mergeDay(snap, s1, '2025-01-01', new Map([['a', p(1)], ['b', p(2)]]));
    mergeDay(snap, s1, '2025-01-05', new Map([['a', p(1)]]));
    expect(snap.get('b')![0].last_day).toBe('2025-01-01');
    expect(snap.get('a')![0].last_day).toBeNull();

    const log = new Map<string, Span[]>();
    const s2 = fresh();
    mergeDay(log, s2, '2025-01-01', new Map([['a', p(1)], ['b', p(2)]]), { mode: 'changes' });
    mergeDay(log, s2, '2025-01-05', new Map([['a', p(3)]]), { mode: 'changes' });
    expect(log.get('b')![0].last_day).toBeNull();
    expect(spanTo(log.get('b')![0], s2.coveredDay)).toBe('2025-01-05');
    expect(log.get('a')!.map((s) => s.last_day)).toEqual(['2025-01-01', null]);
  });
  it('a partial collection makes current only what it saw: seen_day on those, nothing closed, no covered day', () => {
    const spans = new Map<string, Span[]>();
    const sc = fresh();
    mergeDay(spans, sc, '2026-07-27', new Map([['a', p(100)], ['b', p(200)], ['c', p(300)]]));
    mergeDay(spans, sc, '2026-12-02', new Map([['a', p(100)], ['b', p(250)], ['d', p(400)]]), { mode: 'partial' });
    expect(sc).toEqual({ lastDay: '2026-12-02', coveredDay: '2026-07-27' });
    const to = (k: string) => spans.get(k)!.map((s) => spanTo(s, sc.coveredDay));
    expect(to('a')).toEqual(['2026-12-02']); // seen unchanged: its own seen_day
    expect(spans.get('a')![0].seen_day).toBe('2026-12-02');
    expect(to('b')).toEqual(['2026-07-27', '2026-12-02']); // changed: closed where last observed
    expect(to('c')).toEqual(['2026-07-27']); // not seen: open, but observed last on the covered day
    expect(spans.get('c')![0].last_day).toBeNull();
    expect(to('d')).toEqual(['2026-12-02']);
    expect(isCurrentSpan(spans.get('a')![0], sc.coveredDay, sc.lastDay)).toBe(true);
    expect(isCurrentSpan(spans.get('c')![0], sc.coveredDay, sc.lastDay)).toBe(false);
    // A later snapshot that misses c closes it at its last observed day, not at the partial day.
    mergeDay(spans, sc, '2026-12-03', new Map([['a', p(100)], ['b', p(250)], ['d', p(400)]]));
    expect(spans.get('c')![0].last_day).toBe('2026-07-27');
    expect(to('a')).toEqual(['2026-12-03']);
  });
  it('a snapshot that does not cover its scope closes nothing unobserved (a chain seen at one store)', () => {
    const spans = new Map<string, Span[]>();
    const sc = fresh();
    mergeDay(spans, sc, '2025-01-01', new Map([['a', p(1)], ['b', p(2)]]));
    mergeDay(spans, sc, '2025-01-09', new Map([['a', p(1)]]), { mode: 'snapshot', covers: false });
    expect(spans.get('b')![0].last_day).toBeNull();
    expect(spanTo(spans.get('b')![0], sc.coveredDay)).toBe('2025-01-01');
    expect(spanTo(spans.get('a')![0], sc.coveredDay)).toBe('2025-01-09');
  });
  it('reopens a listing that comes back after a gap as a new span', () => {
    const spans = new Map<string, Span[]>();
    const sc = fresh();
    mergeDay(spans, sc, '2025-01-01', new Map([['a', p(5)]]));
    mergeDay(spans, sc, '2025-01-02', new Map());
    mergeDay(spans, sc, '2025-01-03', new Map([['a', p(5)]]));
    expect(spans.get('a')!.map((s) => [s.first_day, s.last_day])).toEqual([
      ['2025-01-01', '2025-01-01'],
      ['2025-01-03', null],
    ]);
  });
  it('after unknown days closes every open span, even an equal one, in any mode', () => {
    for (const mode of ['snapshot', 'changes', 'partial'] as const) {
      const spans = new Map<string, Span[]>();
      const sc = fresh();
      mergeDay(spans, sc, '2025-05-03', new Map([['a', p(260)], ['b', p(100)]]), { mode: 'snapshot' });
      mergeDay(spans, sc, '2026-07-27', new Map([['a', p(260)]]), { mode, afterGap: true });
      expect(spans.get('a')!.map((s) => [s.first_day, s.last_day, s.price])).toEqual([
        ['2025-05-03', '2025-05-03', 260],
        ['2026-07-27', null, 260],
      ]);
      expect(spans.get('b')!.map((s) => [s.first_day, s.last_day])).toEqual([['2025-05-03', '2025-05-03']]);
    }
  });
  it('refuses a day that is not after the previous collection', () => {
    expect(() => mergeDay(new Map(), { lastDay: '2025-01-02', coveredDay: null }, '2025-01-02', new Map())).toThrow(RangeError);
  });
});

describe('spanTo and isCurrentSpan (the day of record)', () => {
  const open = (first_day: string, seen_day: string | null = null) => ({ first_day, last_day: null, seen_day });
  it('an open span ends at the latest of its first day, seen day and the covered day; a closed one at its last day', () => {
    expect(spanTo(open('2025-01-01'), null)).toBe('2025-01-01');
    expect(spanTo(open('2025-01-01', '2025-02-01'), '2025-01-15')).toBe('2025-02-01');
    expect(spanTo(open('2025-01-01', '2025-01-10'), '2025-01-15')).toBe('2025-01-15');
    expect(spanTo(open('2025-03-01'), '2025-01-15')).toBe('2025-03-01');
    expect(spanTo({ first_day: '2025-01-01', last_day: '2025-01-03', seen_day: '2025-01-02' }, '2025-09-01')).toBe('2025-01-03');
  });
  it('is current within the 14-day cap of the scope\'s latest collection, never when closed', () => {
    expect(CAP_DAYS).toBe(14);
    expect(isCurrentSpan(open('2026-07-01'), '2026-07-27', '2026-08-10')).toBe(true); // 14 days
    expect(isCurrentSpan(open('2026-07-01'), '2026-07-27', '2026-08-11')).toBe(false); // 15 days
    expect(isCurrentSpan(open('2026-07-01', '2026-08-11'), '2026-07-27', '2026-08-11')).toBe(true);
    expect(isCurrentSpan({ first_day: '2026-07-01', last_day: '2026-08-11' }, null, '2026-08-11')).toBe(false);
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
