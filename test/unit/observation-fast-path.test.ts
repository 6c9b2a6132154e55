/**
 * The observation fast path (workers/ingest/format.ts `fastObservation`) against the schema it
 * shortcuts (`observationSchema`, the one statement of the format's rules): on generated records,
 * good and bad, the fast path either gives exactly the schema's output or steps aside (undefined);
 * it never accepts what the schema refuses. A mutation check: the test fails when the fast path
 * accepts a value the schema refuses (e.g. drop its MAX_CENTS bound).
 */
import { describe, expect, it } from 'vitest';
import { fastObservation, observationSchema, validateObservation, MAX_CENTS } from '../../workers/ingest/format.js';
import { prng } from '../../workers/synth/prng.js';

/** Candidate values per column: well-formed ones, and each way a value can be malformed or missing. */
const POOLS: Record<string, unknown[]> = {
  day: ['2026-08-03', '2026-02-28', '2024-02-29', '2025-02-29', '2026-13-01', '2026-8-3', '', undefined, null, 20260803, ' 2026-08-03'],
  retailer: ['paknsave', 'newworld', 'Paknsave', 'pak-n-save', '', undefined, 3],
  store: ['60561e46', '  spaced  ', '', '   ', undefined, null, 12, 'x'.repeat(1000), 'x'.repeat(1001)],
  external_id: ['5006239-EA-000', ' L1 ', '', '  ', 42, -1, 1.5, 'x'.repeat(200), 'x'.repeat(201), undefined, null, true],
  price: [349, '349', 0, '0', MAX_CENTS, MAX_CENTS + 1, '007', '1e3', 3.49, -1, '', undefined, null, ' 12', 2 ** 53],
  promo_price: [undefined, undefined, undefined, 299, '299', '', null, -5, '2.99', MAX_CENTS + 1],
  promo_kind: [undefined, undefined, undefined, 1, 2, 3, 4, '3', 0, 5, '', null, 'x'],
  multibuy_qty: [undefined, undefined, undefined, 2, '3', 1, 1000, 1001, '', null],
  multibuy_price: [undefined, undefined, undefined, 500, '600', 0, '', null, 1.5],
  name: ['Milk 2L', '  Milk ', '', '   ', undefined, null, 7, 'n'.repeat(1000), 'n'.repeat(1001)],
  brand: ['Anchor', '', undefined, null, ' '],
  size_text: ['2L', '', undefined, null],
  gtin: ['9414000000000', ' 94140 ', 9414000000000, '123456789012345', 'abc', '', undefined, null, 1e21, -5],
  category_path: ['Dairy > Milk', ' Dairy >  Milk ', '', '  ', 'A >  > B', ['Dairy', 'Milk'], [], ['Dairy', 3], ['', 'x'], 'x'.repeat(201),
    Array.from({ length: 11 }, (_, i) => `c${i}`), undefined, null, 5],
  image: ['https://example.invalid/a.jpg', '/ab/cd.avif', '', undefined, null],
  retailer_url: ['https://example.invalid/p', '', undefined, null],
  available: ['true', 'false', '1', '0', true, false, '', undefined, null, 'yes', 1],
};

describe('the observation fast path equals the schema', () => {
  it('gives the schema output or steps aside, on 40,000 generated records', () => {
    const rand = prng(20261127);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    let fast = 0;
    let refused = 0;
    let accepted = 0;
    for (let i = 0; i < 40_000; i++) {
      const rec: Record<string, unknown> = {};
      for (const [col, pool] of Object.entries(POOLS)) {
        // Mostly well-formed (the first entries), so that accepted records are common too.
        const v = rand() < 0.7 ? pool[0] : pick(pool);
        if (v !== undefined || rand() < 0.5) rec[col] = v;
      }
      const schema = observationSchema.safeParse(rec);
      const got = fastObservation(rec);
      if (got !== undefined) {
        fast += 1;
        expect(schema.success, JSON.stringify(rec)).toBe(true);
        expect(got).toEqual(schema.data);
      }
      if (!schema.success) refused += 1;
      else accepted += 1;
    }
    // Both sides were exercised, and the fast path takes every record the schema accepts (its gaps
    // would only cost speed, but there are none for these pools).
    expect(refused).toBeGreaterThan(5_000);
    expect(accepted).toBeGreaterThan(3_000);
    expect(fast).toBe(accepted);
  });

  it('validateObservation still words the schema error for a record the fast path steps aside from', () => {
    expect(() => validateObservation({ line: 4, record: { day: '2026-08-03', retailer: 'paknsave', external_id: 'x', price: '1e3' } }))
      .toThrow(/^line 4, column price: "1e3" is not integer cents/);
    expect(validateObservation({ line: 2, record: { day: '2026-08-03', retailer: 'paknsave', external_id: 'x', price: 500, promo_kind: 3, multibuy_qty: 3, multibuy_price: 1000 } }))
      .toMatchObject({ promo_price: 333, multibuy_qty: 3 });
  });
});
