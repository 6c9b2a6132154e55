/**
 * Kinds in the Elasticsearch backend's suggestions (issue 28 item 4: `ban` gave "band aid",
 * "banana boat", "Banner Foil" and no fresh bananas). No Elasticsearch server can run on these
 * machines: the request is checked as built, and the answer is parsed from
 * test/fixtures/elasticsearch/msearch-suggest-kinds.json, a response **written by hand** in the
 * Elasticsearch 9 `_msearch` shape of the other fixtures there (not captured from a server). Its
 * counts are the embedded backend's on the real catalogue (`ban`: "Bananas" shared by 91
 * listings, "Fruit bread and banana bread" by 9; brands band aid 9, banana boat 5, banana boat
 * kids 1); its ids and product names are placeholders. Through the backend, the request goes to
 * the official client mock (@elastic/elasticsearch-mock), which answers with that fixture.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { estypes } from '@elastic/elasticsearch';
import { createElasticsearchBackend } from '../../src/search/elasticsearch.js';
import { createElasticsearchClient } from '../../src/search/elasticsearch/client.js';
import { listingIndexBody } from '../../src/search/elasticsearch/mapping.js';
import { buildSuggestSearches, kindSharedQuery, parseSuggestions, suggestKinds, type SuggestSource } from '../../src/search/elasticsearch/query.js';
import { shelfOfKind } from '../../src/domain/shelves.js';

const require = createRequire(import.meta.url);
const Mock = require('@elastic/elasticsearch-mock') as typeof import('@elastic/elasticsearch-mock').default;

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const fixture = (): Json =>
  JSON.parse(fs.readFileSync(new URL('../fixtures/elasticsearch/msearch-suggest-kinds.json', import.meta.url), 'utf8'));

describe('suggestion kinds on Elasticsearch', () => {
  it('maps the exact kind label as a keyword subfield (a reindex adds it)', () => {
    const m = listingIndexBody({ synonyms: [] }).mappings.properties as Json;
    expect(m.kind_label).toMatchObject({ type: 'text', fields: { keyword: { type: 'keyword' } } });
  });

  it('counts, over the whole index, the listings sharing each kind the prefix names', () => {
    const [, items, , facets] = buildSuggestSearches('nzgp-listings', { prefix: 'ban', limit: 8 }) as Json[];
    expect(items.aggs.kinds.global).toEqual({});
    const filters = items.aggs.kinds.aggs.shared.filters.filters;
    expect(Object.keys(filters).sort()).toEqual(['Bananas', 'Fruit bread and banana bread']);
    // Classified in the kind, or every word of the label in the name (stemmed), brand or category path.
    expect(filters.Bananas).toEqual(kindSharedQuery('Bananas'));
    expect(kindSharedQuery('Bananas')).toEqual({
      bool: {
        should: [
          { term: { 'kind_label.keyword': 'Bananas' } },
          { match: { 'name.stem': { query: 'Bananas', operator: 'and' } } },
          { match: { brand: { query: 'Bananas', operator: 'and' } } },
          { match: { 'category_path.text': { query: 'Bananas', operator: 'and' } } },
        ],
        minimum_should_match: 1,
      },
    });
    // The category and brand facets are as before.
    expect(Object.keys(facets.aggs).sort()).toEqual(['brands', 'categories']);
    // A prefix naming no kind sends no kinds aggregation.
    const [, plain] = buildSuggestSearches('nzgp-listings', { prefix: 'zzq', limit: 8 }) as Json[];
    expect(plain.aggs).toBeUndefined();
  });

  it('names the kinds a prefix matches word by word, with their shelf as detail', () => {
    expect(suggestKinds('ban')).toEqual(
      expect.arrayContaining([
        { label: 'Bananas', detail: null },
        { label: 'Fruit bread and banana bread', detail: shelfOfKind('fruit-bread')!.label },
      ]),
    );
    expect(suggestKinds('app').map((k) => k.label)).toContain('Apples');
    expect(suggestKinds('pot').map((k) => k.label)).toEqual(expect.arrayContaining(['Potatoes', 'Potato chips']));
    expect(suggestKinds('zzq')).toEqual([]);
  });

  it('ranks the Bananas kind first for "ban", above the brand fragments', () => {
    const { responses } = fixture();
    const hits = parseSuggestions(responses[0], responses[1], { prefix: 'ban', limit: 8 });
    expect(hits.map((h) => [h.kind, h.label])).toEqual([
      ['category', 'Bananas'],
      ['category', 'Fruit bread and banana bread'],
      ['brand', 'band aid'],
      ['brand', 'banana boat'],
      ['brand', 'banana boat kids'],
      ['product', 'happy birthday banner foil'],
      ['product', 'Bananas Yellow Loose'],
    ]);
    expect(hits[0]).toEqual({ kind: 'category', id: null, label: 'Bananas', detail: null, href: '/search?q=Bananas' });
    expect(hits[1].detail).toBe(shelfOfKind('fruit-bread')!.label);
  });

  it('drops kinds no listing shares, and keeps one suggestion per normalised label (the one with more listings)', () => {
    const { responses } = fixture();
    const items = structuredClone(responses[0]);
    items.aggregations.kinds.shared.buckets['Fruit bread and banana bread'].doc_count = 0;
    const facets = structuredClone(responses[1]);
    facets.aggregations.categories.nodes.buckets = [{ key: JSON.stringify(['Fruit & Veg', 'Bananas']), doc_count: 120 }];
    const hits = parseSuggestions(items as estypes.SearchResponse<SuggestSource>, facets, { prefix: 'ban', limit: 3 });
    expect(hits.map((h) => [h.kind, h.label, h.detail])).toEqual([
      ['category', 'Bananas', 'Fruit & Veg'],
      ['brand', 'band aid', '9 listings'],
      ['brand', 'banana boat', '5 listings'],
    ]);
    // A response without the kinds aggregation (a prefix naming no kind) suggests no kind.
    const bare = structuredClone(responses[0]);
    delete bare.aggregations;
    expect(parseSuggestions(bare, responses[1], { prefix: 'ban', limit: 8 })[0]).toMatchObject({ kind: 'brand', label: 'band aid' });
  });

  it('sends one _msearch through the client and answers from it', async () => {
    const mock = new Mock();
    const bodies: Json[] = [];
    mock.add({ method: 'POST', path: '/_msearch' }, (params) => {
      bodies.push((params as unknown as { body: Json }).body);
      return fixture();
    });
    const client = createElasticsearchClient({ url: 'http://localhost:9200', Connection: mock.getConnection() as never, maxRetries: 0 });
    const backend = createElasticsearchBackend({ url: 'http://localhost:9200', alias: 'nzgp-listings', client });
    const hits = await backend.suggest({ prefix: 'ban', limit: 8 });
    expect(bodies).toHaveLength(1);
    expect(bodies[0][1].aggs.kinds.aggs.shared.filters.filters).toHaveProperty('Bananas');
    expect(hits.slice(0, 2).map((h) => h.label)).toContain('Bananas');
    await backend.close();
  });
});
