/**
 * The kinds a query is (src/search/kind-query.ts): a query equal to a kind's label, singular or
 * plural, or through a synonym phrasing, and nothing for a query that says more than a kind. The
 * Elasticsearch request carries them as constant-score clauses between exact names and text
 * scores (the embedded backend's ordering is asserted on the real catalogue: catalogue-search, q=milk).
 */
import { describe, expect, it } from 'vitest';
import { buildSearchRequest, EXACT_BOOST, KIND_NAMED_BOOST } from '../../src/search/elasticsearch/query.js';
import { kindsNamedBy } from '../../src/search/kind-query.js';

describe('kindsNamedBy', () => {
  it('names the kind a query is, singular or plural, in any case, or through a synonym', () => {
    expect(kindsNamedBy('milk')).toEqual(['Milk']);
    expect(kindsNamedBy('  MILK ')).toEqual(['Milk']);
    expect(kindsNamedBy('banana')).toEqual(['Bananas']);
    expect(kindsNamedBy('bananas')).toEqual(['Bananas']);
    expect(kindsNamedBy('potato')).toEqual(['Potatoes']);
    expect(kindsNamedBy('ground beef')).toEqual(['Beef mince']);
  });

  it('names none for a query that says more than a kind, nor for prototype words or nothing', () => {
    for (const q of ['chocolate milk', 'anchor butter', 'milk 2l', 'constructor', '__proto__', 'toString', '', '   ']) expect(kindsNamedBy(q), q).toEqual([]);
  });
});

describe('the Elasticsearch search request', () => {
  type Clause = { constant_score?: { filter: { term: Record<string, string> }; boost: number } };
  const namedClauses = (text: string) =>
    (buildSearchRequest('listings', { text, limit: 10, retailerId: null } as never).query!.bool!.should as Clause[]).filter((c) => c.constant_score);

  it('ranks the listings of the kind the query is between exact names and text scores', () => {
    expect(namedClauses('milk')).toEqual([{ constant_score: { filter: { term: { 'kind_label.keyword': 'Milk' } }, boost: KIND_NAMED_BOOST } }]);
    expect(namedClauses('chocolate milk')).toEqual([]);
    expect(KIND_NAMED_BOOST).toBeLessThan(EXACT_BOOST);
  });
});
