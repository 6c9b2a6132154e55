import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dcg, gradesAt, mean, ndcgAtK, recallAtK, reciprocalRank } from '../../src/search/relevance.js';

const J = (o: Record<string, number>) => new Map(Object.entries(o));

describe('dcg', () => {
  it('discounts each gain by log2(rank + 1) (worked example: 3,2,3,0,1,2)', () => {
    // 3/1 + 2/log2(3) + 3/2 + 0/log2(5) + 1/log2(6) + 2/log2(7) = 6.8611
    expect(dcg([3, 2, 3, 0, 1, 2], 6)).toBeCloseTo(6.8611, 4);
    // ideal of that query's judgments 3,3,3,2,2,2,1,0 cut at 6: 8.7403
    expect(dcg([3, 3, 3, 2, 2, 2, 1, 0], 6)).toBeCloseTo(8.7403, 4);
  });
  it('stops at k and does not pad a short list', () => {
    expect(dcg([3, 2, 3], 1)).toBe(3);
    expect(dcg([2], 10)).toBe(2);
    expect(dcg([], 10)).toBe(0);
  });
  it('rejects a k that is not a positive integer', () => {
    for (const k of [0, -1, 1.5, Number.NaN]) expect(() => dcg([1], k)).toThrow(RangeError);
  });
});

describe('ndcgAtK', () => {
  it('normalises by the ideal ordering of the judgments', () => {
    // ranking grades 3,0,2 → DCG 3 + 0 + 2/2 = 4; ideal 3,2,1 → 3 + 2/log2(3) + 1/2 = 4.7619
    const j = J({ a: 3, b: 0, c: 2, e: 1 });
    expect(ndcgAtK(['a', 'b', 'c', 'd'], j, 3)).toBeCloseTo(4 / 4.7619, 4);
    expect(ndcgAtK(['a', 'b', 'c', 'd'], j, 3)).toBeCloseTo(0.84, 3);
  });
  it('is 1 for the ideal order and less when it is reversed', () => {
    const j = J({ a: 3, b: 2, c: 1 });
    expect(ndcgAtK(['a', 'b', 'c'], j, 10)).toBe(1);
    // 1 + 2/log2(3) + 3/2 = 3.7619 over 4.7619
    expect(ndcgAtK(['c', 'b', 'a'], j, 10)).toBeCloseTo(0.79, 3);
  });
  it('sorts the judged grades for the ideal, whatever order they were given in', () => {
    const ascending = J({ c: 1, b: 2, a: 3 });
    expect(ndcgAtK(['a', 'b', 'c'], ascending, 10)).toBe(1);
    // ideal 3,2,1 (4.7619), not 1,2,3 (3.7619): ranking c,b,a scores 3.7619 / 4.7619
    expect(ndcgAtK(['c', 'b', 'a'], ascending, 10)).toBeCloseTo(0.79, 3);
  });
  it('takes the ideal from the judgments, not from what was returned', () => {
    // Only one of two grade-3 results found, at rank 1: 3 / (3 + 3/log2(3)) = 0.6131
    expect(ndcgAtK(['a', 'x'], J({ a: 3, b: 3 }), 2)).toBeCloseTo(0.6131, 4);
  });
  it('counts a repeated key once', () => {
    expect(ndcgAtK(['a', 'a'], J({ a: 3, b: 3 }), 2)).toBeCloseTo(0.6131, 4);
  });
  it('ignores results below the cut-off and unjudged results', () => {
    expect(ndcgAtK(['x', 'y', 'a'], J({ a: 3 }), 2)).toBe(0);
    expect(ndcgAtK(['x', 'a'], J({ a: 3 }), 2)).toBeCloseTo(1 / Math.log2(3), 6);
  });
  it('is 0 for an empty ranking and when nothing is relevant', () => {
    expect(ndcgAtK([], J({ a: 3 }), 10)).toBe(0);
    expect(ndcgAtK(['a'], J({ a: 0 }), 10)).toBe(0);
  });
});

describe('reciprocalRank', () => {
  it('is 1 over the rank of the first relevant result', () => {
    expect(reciprocalRank(['x', 'y', 'a', 'b'], J({ a: 1, b: 3 }))).toBeCloseTo(1 / 3, 10);
    expect(reciprocalRank(['a'], J({ a: 2 }))).toBe(1);
  });
  it('honours minGrade', () => {
    expect(reciprocalRank(['a', 'x', 'y', 'b'], J({ a: 1, b: 2 }), { minGrade: 2 })).toBe(0.25);
  });
  it('is 0 when nothing relevant is returned (or only past k)', () => {
    expect(reciprocalRank(['x', 'y'], J({ a: 3 }))).toBe(0);
    expect(reciprocalRank([], J({ a: 3 }))).toBe(0);
    expect(reciprocalRank(['x', 'y', 'a'], J({ a: 3 }), { k: 2 })).toBe(0);
  });
  it('averages to MRR', () => {
    expect(mean([1, 1 / 3, 0, 0.5])).toBeCloseTo(11 / 24, 10);
  });
});

describe('recallAtK', () => {
  const j = J({ a: 3, b: 2, c: 1, d: 1, z: 0 });
  it('is the share of relevant results in the top k', () => {
    expect(recallAtK(['a', 'x', 'c', 'b'], j, 3)).toBe(0.5);
    expect(recallAtK(['a', 'b', 'c', 'd'], j, 10)).toBe(1);
    expect(recallAtK(['z', 'x'], j, 10)).toBe(0);
  });
  it('honours minGrade', () => {
    expect(recallAtK(['a', 'c', 'd'], j, 3, { minGrade: 2 })).toBe(0.5);
  });
  it('caps the denominator at k when asked', () => {
    expect(recallAtK(['a', 'c'], j, 2)).toBe(0.5);
    expect(recallAtK(['a', 'c'], j, 2, { capped: true })).toBe(1);
    expect(recallAtK(['a', 'x'], j, 2, { capped: true })).toBe(0.5);
  });
  it('counts a repeated key once and is 0 with nothing relevant', () => {
    expect(recallAtK(['a', 'a', 'a'], j, 3)).toBe(0.25);
    expect(recallAtK(['a'], J({ a: 0 }), 3)).toBe(0);
  });
});

describe('gradesAt and mean', () => {
  it('reads grades in rank order, unjudged and repeats as 0', () => {
    expect(gradesAt(['a', 'x', 'a', 'b'], J({ a: 3, b: 1 }), 10)).toEqual([3, 0, 0, 1]);
    expect(gradesAt(['a', 'b'], J({ a: 3, b: 1 }), 1)).toEqual([3]);
  });
  it('averages, and is NaN for nothing', () => {
    expect(mean([1, 0.5, 0])).toBe(0.5);
    expect(mean([])).toBeNaN();
  });
});

/** Shape of test/fixtures/relevance/queries.json (the judged set the search bench reads). */
interface JudgedQuery {
  id: string;
  q: string;
  category: string;
  retailer?: string;
  judgments: { retailer: string; external_id: string; grade: number; name: string }[];
}

describe('relevance fixture (test/fixtures/relevance/queries.json)', () => {
  const file = JSON.parse(fs.readFileSync(new URL('../fixtures/relevance/queries.json', import.meta.url), 'utf8')) as {
    categories: Record<string, string>;
    queries: JudgedQuery[];
  };
  it('has 40 to 60 queries with unique ids, each in a described category', () => {
    expect(file.queries.length).toBeGreaterThanOrEqual(40);
    expect(file.queries.length).toBeLessThanOrEqual(60);
    expect(new Set(file.queries.map((q) => q.id)).size).toBe(file.queries.length);
    for (const q of file.queries) expect(Object.keys(file.categories), q.id).toContain(q.category);
  });
  it('judges every query with integer grades 0 to 3, no listing twice, at least one grade ≥ 2', () => {
    for (const q of file.queries) {
      expect(q.q.trim().length, q.id).toBeGreaterThan(0);
      const keys = q.judgments.map((j) => `${j.retailer}:${j.external_id}`);
      expect(new Set(keys).size, q.id).toBe(keys.length);
      for (const j of q.judgments) expect([0, 1, 2, 3], `${q.id} ${j.external_id}`).toContain(j.grade);
      expect(Math.max(...q.judgments.map((j) => j.grade)), q.id).toBeGreaterThanOrEqual(q.category === 'synonym' ? 1 : 2);
      if (q.retailer) for (const j of q.judgments) expect(j.retailer, q.id).toBe(q.retailer);
    }
  });
});
