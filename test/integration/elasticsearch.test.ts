/**
 * The Elasticsearch search backend and its workers (issue 4).
 *
 * What is faked: Elasticsearch itself. No Elasticsearch server can run on these machines, so the
 * official @elastic/elasticsearch-mock stands in for the HTTP layer under the real client (its
 * serialisation, bulk helper, retries and errors are the real ones). A small in-test fake cluster
 * on top of the mock keeps indices, aliases and document counts so that multi-step flows (create,
 * bulk, count, alias swap, delete) answer consistently; every response body is built from the
 * documented response shapes in test/fixtures/elasticsearch/. The fake performs no analysis and no
 * ranking: analysers, synonyms, fuzziness and boosts are checked here only as the request shapes
 * sent (mapping and settings on index creation, the search DSL), and behaviourally only by the
 * last block, which runs against a real server when ELASTICSEARCH_URL is set.
 *
 * What is real: PostgreSQL (a fresh database per file, seeded with real NZ rows by
 * seedRealPrices) as the reindex source, the outbox and the advisory lock; the ingest worker.
 */
import fs from 'node:fs';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Client } from '@elastic/elasticsearch';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedRealPrices, PAKNSAVE_STORES, type Seeded } from '../helpers/prices.js';
import { createElasticsearchBackend } from '../../src/search/elasticsearch.js';
import { createElasticsearchClient } from '../../src/search/elasticsearch/client.js';
import {
  ANALYZERS,
  indexNameFor,
  isManagedIndex,
  listingIndexBody,
  synonymRules,
  type ListingDocument,
} from '../../src/search/elasticsearch/mapping.js';
import { buildSearchRequest, EXACT_BOOST, KIND_BOOST, KIND_TYPO_BOOST, labelMatchesPrefix } from '../../src/search/elasticsearch/query.js';
import { SYNONYM_GROUPS } from '../../src/search/synonyms.js';
import { Unavailable } from '../../src/errors.js';
import { ReindexError, reindexListings } from '../../workers/search/reindex.js';
import { BulkRejectedError } from '../../workers/search/bulk.js';
import { enqueueListings, syncListings, syncPendingListings } from '../../workers/search/sync.js';
import { IndexBusyError, withIndexLock } from '../../workers/search/lock.js';
import { ingest } from '../../workers/ingest/ingest.js';

// The mock is CommonJS (`module.exports = Mock`), and recognises error responses by the CommonJS
// build's error classes, so both are loaded through require.
const require = createRequire(import.meta.url);
const Mock = require('@elastic/elasticsearch-mock') as typeof import('@elastic/elasticsearch-mock').default;
const cjs = require('@elastic/elasticsearch') as typeof import('@elastic/elasticsearch');

const FIXTURES = new URL('../fixtures/elasticsearch/', import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const fixture = (name: string): Json => JSON.parse(fs.readFileSync(new URL(name, FIXTURES), 'utf8'));
const responseError = (statusCode: number, body: unknown) => new cjs.errors.ResponseError({ body, statusCode, headers: {}, warnings: null } as never);

/** One request the fake cluster received (method, path, parsed query string, parsed JSON/NDJSON body). */
interface Recorded {
  method: string;
  path: string;
  querystring: Record<string, string>;
  body: Json;
}

/**
 * A fake Elasticsearch cluster over @elastic/elasticsearch-mock: records requests, keeps indices,
 * aliases and documents, answers with the fixture shapes. `bulkFailure` injects a rejected
 * document ('item', HTTP 200 with an item error) or a failed request ('transport', HTTP 500).
 */
class FakeCluster {
  readonly mock = new Mock();
  readonly requests: Recorded[] = [];
  readonly indices = new Map<string, { created: Json; docs: Map<string, Json> }>();
  readonly aliases = new Map<string, Set<string>>();
  bulkFailure: 'item' | 'transport' | null = null;
  /** Writes that would have auto-created an index (must never happen). */
  readonly autoCreate: string[] = [];
  searchResponse: Json = fixture('search.json');
  msearchResponse: Json = fixture('msearch-suggest.json');

  constructor() {
    const on = (method: string | string[], path: string, fn: (p: Recorded) => Json) =>
      this.mock.add({ method, path }, (params) => {
        const p = params as unknown as Recorded;
        this.requests.push({ method: p.method, path: p.path, querystring: { ...p.querystring }, body: p.body });
        return fn(p);
      });
    const name = (p: Recorded, i = 1) => decodeURIComponent(p.path.split('/')[i]);

    on('PUT', '/:index', (p) => {
      const index = name(p);
      if (this.indices.has(index)) return responseError(400, { error: { type: 'resource_already_exists_exception', reason: index }, status: 400 });
      this.indices.set(index, { created: p.body, docs: new Map() });
      return { ...fixture('create-index.json'), index };
    });
    on('PUT', '/:index/_settings', () => fixture('acknowledged.json'));
    on(['GET', 'POST'], '/:index/_refresh', () => fixture('refresh.json'));
    on(['GET', 'POST'], '/:index/_count', (p) => ({
      ...fixture('count.json'),
      count: this.resolve(name(p)).reduce((n, i) => n + (this.indices.get(i)?.docs.size ?? 0), 0),
    }));
    on('GET', '/_alias/:name', (p) => {
      const alias = name(p, 2);
      const set = this.aliases.get(alias);
      if (!set?.size) return responseError(404, { ...fixture('alias-missing.json'), error: `alias [${alias}] missing` });
      return Object.fromEntries([...set].map((i) => [i, { aliases: { [alias]: {} } }]));
    });
    on('HEAD', '/_alias/:name', (p) => (this.aliases.get(name(p, 2))?.size ? '' : responseError(404, '')));
    on('GET', '/:index', (p) => {
      const pattern = new RegExp(`^${name(p).split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
      return Object.fromEntries(
        [...this.indices.keys()].filter((i) => pattern.test(i)).map((i) => [i, { aliases: Object.fromEntries(this.aliasesOf(i).map((a) => [a, {}])) }]),
      );
    });
    on('POST', '/_aliases', (p) => {
      const next = new Map([...this.aliases].map(([a, s]) => [a, new Set(s)]));
      for (const action of p.body.actions as Json[]) {
        if (action.remove) {
          if (!next.get(action.remove.alias)?.delete(action.remove.index)) {
            return responseError(404, { error: { type: 'aliases_not_found_exception', reason: action.remove.alias }, status: 404 });
          }
        } else if (action.add) {
          if (!this.indices.has(action.add.index)) return responseError(404, { error: { type: 'index_not_found_exception' }, status: 404 });
          if (!next.has(action.add.alias)) next.set(action.add.alias, new Set());
          next.get(action.add.alias)!.add(action.add.index);
        }
      }
      this.aliases.clear();
      for (const [a, s] of next) this.aliases.set(a, s);
      return fixture('acknowledged.json');
    });
    on('DELETE', '/:index', (p) => {
      const names = name(p).split(',');
      for (const n of names) if (!this.indices.has(n)) return responseError(404, { error: { type: 'index_not_found_exception', reason: n }, status: 404 });
      for (const n of names) {
        this.indices.delete(n);
        for (const s of this.aliases.values()) s.delete(n);
      }
      return fixture('acknowledged.json');
    });
    on('POST', '/_bulk', (p) => this.bulk(p));
    on('POST', '/:index/_search', () => this.searchResponse);
    on('POST', '/_msearch', () => this.msearchResponse);
  }

  /** The index names a name stands for (an alias's indices, or the index itself). */
  resolve(n: string): string[] {
    const set = this.aliases.get(n);
    return set ? [...set] : this.indices.has(n) ? [n] : [];
  }

  aliasesOf(index: string): string[] {
    return [...this.aliases].filter(([, s]) => s.has(index)).map(([a]) => a);
  }

  private bulk(p: Recorded): Json {
    if (this.bulkFailure === 'transport') return responseError(500, { error: { type: 'internal_server_error', reason: 'simulated' }, status: 500 });
    const lines = p.body as Json[];
    const items: Json[] = [];
    let failed = false;
    for (let i = 0; i < lines.length; i++) {
      const [op] = Object.keys(lines[i]);
      const meta = lines[i][op];
      const doc = op === 'delete' ? null : lines[++i];
      const targets = this.resolve(meta._index);
      if (targets.length !== 1) {
        if (p.querystring.require_alias !== 'true') this.autoCreate.push(meta._index);
        items.push({ [op]: { _index: meta._index, _id: meta._id, status: 404, error: { type: 'index_not_found_exception', reason: `no such index [${meta._index}]` } } });
        failed = true;
        continue;
      }
      const index = this.indices.get(targets[0])!;
      if (op === 'delete') {
        const existed = index.docs.delete(meta._id);
        items.push(existed ? { delete: { ...fixture('delete-item-missing.json').delete, _index: targets[0], _id: meta._id, result: 'deleted', status: 200 } }
          : { delete: { ...fixture('delete-item-missing.json').delete, _index: targets[0], _id: meta._id } });
        if (!existed) failed = true;
      } else if (this.bulkFailure === 'item' && !failed) {
        items.push({ index: { ...fixture('bulk-item-error.json').index, _index: targets[0], _id: meta._id } });
        failed = true;
      } else {
        index.docs.set(meta._id, doc);
        items.push({ index: { ...fixture('bulk-item-ok.json').index, _index: targets[0], _id: meta._id } });
      }
    }
    return { errors: failed, took: 3, items };
  }

  /** A client whose requests this fake answers (no retries, so failures surface at once). */
  client(): Client {
    return createElasticsearchClient({ url: 'http://localhost:9200', Connection: this.mock.getConnection() as never, maxRetries: 0 });
  }

  /** Requests as `METHOD path` lines. */
  trail(): string[] {
    return this.requests.map((r) => `${r.method} ${decodeURIComponent(r.path)}`);
  }

  /** Every action/document pair sent by bulk requests, in order. */
  bulkOperations(): { action: Json; doc: Json }[] {
    const out: { action: Json; doc: Json }[] = [];
    for (const r of this.requests.filter((q) => q.path === '/_bulk')) {
      const lines = r.body as Json[];
      for (let i = 0; i < lines.length; i++) out.push(lines[i].delete ? { action: lines[i], doc: null } : { action: lines[i], doc: lines[++i] });
    }
    return out;
  }
}

const ALIAS = 'nzgp-test';
const T1 = new Date('2026-11-21T01:02:03.004Z');
const T2 = new Date('2026-11-22T01:02:03.004Z');
const T3 = new Date('2026-11-23T01:02:03.004Z');
const GROUPS = [['weetbix', 'weet bix'], ['mince', 'ground beef'], ['courgette', 'zucchini']] as const;
const NO_RETRY = { retries: 0, wait: 0 };

describe('index mapping and analysis settings', () => {
  const body = listingIndexBody({ synonyms: SYNONYM_GROUPS });
  const analysis = body.settings.analysis as Json;

  it('normalises synonym groups into Solr rules (compact form, no syntax characters, no singletons)', () => {
    expect(synonymRules([['Weet-Bix', 'weetbix', 'weet bix'], ['courgette'], ['crème fraîche', 'creme fraiche', 'sour, cream'], ['a => b', 'c#d']])).toEqual([
      'weetbix, weet bix',
      'creme fraiche, sour cream',
      'a b, c d',
    ]);
    expect(analysis.filter.nz_synonyms).toMatchObject({ type: 'synonym_graph', expand: true, lenient: true });
    expect(analysis.filter.nz_synonyms.synonyms).toContain('courgette, zucchini');
    expect(analysis.filter.nz_synonyms.synonyms).toContain('weetbix, weet bix, wheat biscuits');
  });

  it('folds case and accents, removes apostrophes, and splits + catenates word parts at index time', () => {
    expect(analysis.char_filter.nz_apostrophe).toMatchObject({ type: 'pattern_replace', replacement: '' });
    expect(new RegExp(analysis.char_filter.nz_apostrophe.pattern, 'g')[Symbol.replace]("wattie's wattie’s", '')).toBe('watties watties');
    expect(new RegExp(analysis.char_filter.nz_compact.pattern, 'g')[Symbol.replace]('weet-bix 1.5l', '')).toBe('weetbix 15l');
    expect(analysis.filter.nz_word_parts).toMatchObject({ type: 'word_delimiter_graph', catenate_all: true, preserve_original: false });
    expect(analysis.analyzer[ANALYZERS.index]).toEqual({
      type: 'custom',
      char_filter: ['nz_apostrophe'],
      tokenizer: 'whitespace',
      filter: ['nz_word_parts', 'lowercase', 'asciifolding', 'flatten_graph'],
    });
    expect(analysis.analyzer[ANALYZERS.search].filter).toEqual(['lowercase', 'asciifolding', 'nz_synonyms']);
    expect(analysis.filter.nz_prefix_grams).toMatchObject({ type: 'edge_ngram', min_gram: 1, max_gram: 20 });
    expect(analysis.filter.nz_english_stem).toEqual({ type: 'stemmer', language: 'english' });
  });

  it('never puts a filter Elasticsearch cannot parse synonyms with before the synonym filter', () => {
    const forbidden = new Set(['nz_word_parts', 'nz_prefix_grams', 'word_delimiter_graph', 'edge_ngram', 'flatten_graph']);
    for (const [name, a] of Object.entries(analysis.analyzer as Record<string, { filter: string[] }>)) {
      const at = a.filter.indexOf('nz_synonyms');
      if (at >= 0) expect(a.filter.slice(0, at).filter((f) => forbidden.has(f)), name).toEqual([]);
    }
  });

  it('maps every field strictly, with the subfields the queries use, and only defined analysers', () => {
    const m = body.mappings as Json;
    expect(m.dynamic).toBe('strict');
    expect(Object.keys(m.properties).sort()).toEqual(
      ['available', 'brand', 'category_nodes', 'category_path', 'first_seen', 'group_key', 'gtin', 'id', 'kind_label', 'last_seen', 'name', 'product_id', 'product_name', 'retailer', 'retailer_id', 'retailer_name', 'size_text'].sort(),
    );
    expect(m.properties.name).toMatchObject({
      type: 'text',
      analyzer: 'nz_index',
      search_analyzer: 'nz_search',
      fields: {
        exact: { type: 'keyword', normalizer: 'nz_exact' },
        prefix: { type: 'text', analyzer: 'nz_prefix_index', search_analyzer: 'nz_plain' },
        stem: { type: 'text', analyzer: 'nz_stem_index', search_analyzer: 'nz_stem_search' },
      },
    });
    expect(m.properties.category_path).toMatchObject({ type: 'keyword', fields: { text: { type: 'text' }, prefix: { type: 'text' } } });
    expect(m.properties.brand.fields).toMatchObject({ keyword: { type: 'keyword' }, prefix: { analyzer: 'nz_prefix_index' } });
    expect(m.properties.gtin).toEqual({ type: 'keyword' });
    expect(m.properties.first_seen).toEqual({ type: 'date', format: 'strict_date' });
    expect(m.properties.last_seen).toEqual({ type: 'date', format: 'strict_date' });
    const used = new Set<string>();
    const walk = (o: Json) => {
      for (const [k, v] of Object.entries(o ?? {})) {
        if ((k === 'analyzer' || k === 'search_analyzer') && typeof v === 'string') used.add(v);
        else if (k === 'normalizer' && typeof v === 'string') expect(analysis.normalizer[v]).toBeDefined();
        else if (v && typeof v === 'object') walk(v);
      }
    };
    walk(m);
    for (const a of used) expect(analysis.analyzer[a], a).toBeDefined();
    // Built for a bulk load; the worker turns replicas and refresh on afterwards.
    expect(body.settings).toMatchObject({ number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1' });
  });

  it('leaves the synonym filter out when there are no synonym rules', () => {
    const bare = listingIndexBody({ synonyms: [['lonely']] }).settings.analysis as Json;
    expect(bare.filter.nz_synonyms).toBeUndefined();
    expect(JSON.stringify(bare.analyzer)).not.toContain('nz_synonyms');
    expect(bare.analyzer[ANALYZERS.search].filter).toEqual(['lowercase', 'asciifolding']);
  });

  it('names indices by build time and recognises only its own', () => {
    expect(indexNameFor('nzgp-listings', T1)).toBe('nzgp-listings-20261121010203004');
    expect(isManagedIndex('nzgp-listings', 'nzgp-listings-20261121010203004')).toBe(true);
    expect(isManagedIndex('nzgp', 'nzgp-listings-20261121010203004')).toBe(false);
    expect(isManagedIndex('nzgp-listings', 'nzgp-listings-old')).toBe(false);
  });
});

describe('reindex and incremental updates (fake Elasticsearch, real PostgreSQL)', () => {
  let db: TestDatabase;
  let seeded: Seeded;
  let listings: number;
  beforeAll(async () => {
    db = await createTestDatabase('elasticsearch');
    seeded = await seedRealPrices(db.pool);
    listings = Number((await db.pool.query('SELECT count(*) AS n FROM listing')).rows[0].n);
  });
  afterAll(async () => db?.drop());

  const id = (key: string) => seeded.listingIds.get(key)!;
  const pending = async () => (await db.pool.query<{ listing_id: number }>('SELECT listing_id FROM search_index_pending ORDER BY 1')).rows.map((r) => r.listing_id);

  describe('full reindex', () => {
    const cluster = new FakeCluster();
    const client = cluster.client();
    const run = (now: Date, extra: Partial<Parameters<typeof reindexListings>[0]> = {}) =>
      reindexListings({ pool: db.pool, client, alias: ALIAS, synonyms: GROUPS, now: () => now, progress: false, batchSize: 100, bulk: NO_RETRY, ...extra });

    it('builds a new index from PostgreSQL, checks it, then points the alias at it', async () => {
      const r = await run(T1);
      const index = `${ALIAS}-20261121010203004`;
      expect(r).toMatchObject({ alias: ALIAS, index, documents: listings, replaced: [], deleted: [] });
      expect(listings).toBeGreaterThan(300);

      // The mapping and settings sent on creation, exactly.
      const create = cluster.requests.find((q) => q.method === 'PUT' && q.path === `/${index}`)!;
      expect(create.body).toEqual(JSON.parse(JSON.stringify(listingIndexBody({ synonyms: GROUPS }))));
      expect(create.body.settings.analysis.filter.nz_synonyms.synonyms).toEqual(['weetbix, weet bix', 'mince, ground beef', 'courgette, zucchini']);

      // Bulk bodies: one index action per listing, into the new index (never the alias), ids as _id.
      const ops = cluster.bulkOperations();
      expect(ops).toHaveLength(listings);
      for (const { action, doc } of ops) {
        expect(action).toEqual({ index: { _index: index, _id: String(doc.id) } });
      }
      const byId = new Map(ops.map(({ doc }) => [doc.id as number, doc as ListingDocument]));
      expect(byId.size).toBe(listings);
      const burgers = byId.get(id('woolworths:927566'))!;
      expect(burgers).toMatchObject({
        retailer: 'woolworths',
        retailer_name: 'Woolworths',
        product_id: seeded.productId,
        product_name: 'Honest Beef Burgers With Smoky Caramelised Onion',
        group_key: `p${seeded.productId}`,
        name: 'silver fern farms honest beef burgers with smoky caramelized onion',
        size_text: '500g',
        category_path: ['Meat & Poultry'],
        category_nodes: ['["Meat & Poultry"]'],
        available: true,
      });
      expect(burgers.first_seen).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(burgers.last_seen >= burgers.first_seen).toBe(true);
      const pasta = byId.get(id('paknsave:5205300-EA-000'))!;
      expect(pasta).toMatchObject({ group_key: `l${pasta.id}`, product_id: null, brand: null, gtin: null, retailer: 'paknsave' });
      expect(pasta.category_nodes).toEqual(['["Pantry"]', '["Pantry","Pasta, Rice & Noodles"]']);
      expect(byId.get(id('woolworths:135344'))).toMatchObject({ gtin: '9414742351053', brand: 'fresh vegetable' });

      // Order: nothing is served before the load is complete and counted.
      const trail = cluster.trail().filter((t) => !t.startsWith('POST /_bulk'));
      expect(trail).toEqual([
        `PUT /${index}`,
        `PUT /${index}/_settings`,
        `GET /${index}/_refresh`,
        `GET /${index}/_count`,
        `GET /_alias/${ALIAS}`,
        'POST /_aliases',
        `GET /${ALIAS}-*`,
      ]);
      expect(cluster.requests.find((q) => q.path === `/${index}/_settings`)!.body).toEqual({ number_of_replicas: 1, refresh_interval: '1s' });
      expect(cluster.requests.find((q) => q.path === '/_aliases')!.body).toEqual({ actions: [{ add: { index, alias: ALIAS } }] });
      expect(cluster.aliasesOf(index)).toEqual([ALIAS]);
      const state = await db.pool.query('SELECT alias, index_name, documents FROM search_index_state');
      expect(state.rows).toEqual([{ alias: ALIAS, index_name: index, documents: listings }]);
    });

    it('swaps the alias in one updateAliases call (remove + add) and deletes the old index and leftovers', async () => {
      const old = `${ALIAS}-20261121010203004`;
      const leftover = `${ALIAS}-20200101000000000`;
      cluster.indices.set(leftover, { created: {}, docs: new Map() });
      cluster.indices.set('someone-elses-index', { created: {}, docs: new Map() });
      cluster.requests.length = 0;

      const r = await run(T2);
      const index = `${ALIAS}-20261122010203004`;
      expect(r).toMatchObject({ index, documents: listings, replaced: [old], deleted: [leftover, old] });
      const swaps = cluster.requests.filter((q) => q.path === '/_aliases');
      expect(swaps).toHaveLength(1);
      expect(swaps[0].body).toEqual({ actions: [{ remove: { index: old, alias: ALIAS } }, { add: { index, alias: ALIAS } }] });
      const trail = cluster.trail();
      expect(trail.indexOf('POST /_aliases')).toBeGreaterThan(trail.lastIndexOf('POST /_bulk'));
      expect(trail.indexOf('POST /_aliases')).toBeGreaterThan(trail.indexOf(`GET /${index}/_count`));
      expect(trail.at(-1)).toBe(`DELETE /${leftover},${old}`);
      expect([...cluster.indices.keys()].sort()).toEqual([index, 'someone-elses-index']);
      expect(cluster.resolve(ALIAS)).toEqual([index]);
    });

    it('rolls back when Elasticsearch rejects a document: new index deleted, alias untouched', async () => {
      const live = `${ALIAS}-20261122010203004`;
      cluster.requests.length = 0;
      cluster.bulkFailure = 'item';
      try {
        const err = await run(T3).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ReindexError);
        expect((err as ReindexError).swapped).toBe(false);
        expect((err as ReindexError).cause).toBeInstanceOf(BulkRejectedError);
        expect((err as Error).message).toMatch(/alias is unchanged and the new index nzgp-test-20261123010203004 was deleted/);
        expect((err as Error).message).toMatch(/document_parsing_exception/);
      } finally {
        cluster.bulkFailure = null;
      }
      const index = `${ALIAS}-20261123010203004`;
      expect(cluster.trail()).toContain(`DELETE /${index}`);
      expect(cluster.trail()).not.toContain('POST /_aliases');
      expect(cluster.resolve(ALIAS)).toEqual([live]);
      expect(cluster.indices.has(index)).toBe(false);
      expect((await db.pool.query('SELECT index_name FROM search_index_state')).rows).toEqual([{ index_name: live }]);
    });

    it('rolls back when a bulk request fails outright (HTTP 500)', async () => {
      const live = `${ALIAS}-20261122010203004`;
      cluster.requests.length = 0;
      cluster.bulkFailure = 'transport';
      try {
        const err = await run(T3).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ReindexError);
        expect((err as Error).message).toMatch(/Elasticsearch 500 internal_server_error: simulated/);
      } finally {
        cluster.bulkFailure = null;
      }
      expect(cluster.trail()).toContain(`DELETE /${ALIAS}-20261123010203004`);
      expect(cluster.trail()).not.toContain('POST /_aliases');
      expect(cluster.resolve(ALIAS)).toEqual([live]);
    });

    it('rolls back when reading PostgreSQL fails mid-stream, and stops sending', async () => {
      const live = `${ALIAS}-20261122010203004`;
      cluster.requests.length = 0;
      let batches = 0;
      const flaky = new Proxy(db.pool, {
        get(target, key) {
          if (key === 'query') {
            return (sql: string, params?: unknown[]) => {
              if (/WHERE l\.id > \$1/.test(sql) && ++batches > 2) return Promise.reject(new Error('connection to PostgreSQL lost'));
              return target.query(sql, params);
            };
          }
          const v = Reflect.get(target, key);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      const err = await run(T3, { pool: flaky }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ReindexError);
      expect(((err as ReindexError).cause as Error).message).toBe('connection to PostgreSQL lost');
      expect(cluster.bulkOperations().length).toBeLessThanOrEqual(200);
      expect(cluster.trail()).toContain(`DELETE /${ALIAS}-20261123010203004`);
      expect(cluster.resolve(ALIAS)).toEqual([live]);
    });

    it('refuses to run while another reindex of the alias holds the lock', async () => {
      const err = await withIndexLock(db.pool, ALIAS, 'try', () => run(T3)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IndexBusyError);
    });
  });

  describe('incremental updates', () => {
    const cluster = new FakeCluster();
    const client = cluster.client();
    const sync = (ids: number[]) => syncListings({ pool: db.pool, client, alias: ALIAS, bulk: NO_RETRY }, ids);
    beforeEach(() => {
      cluster.requests.length = 0;
      cluster.bulkFailure = null;
    });

    it('queues and writes nothing while the alias does not exist', async () => {
      await db.pool.query('DELETE FROM search_index_pending');
      const r = await sync([id('woolworths:927566')]);
      expect(r).toEqual({ indexed: 0, deleted: 0, pending: 1, skipped: 'no-index' });
      expect(cluster.trail()).toEqual([`HEAD /_alias/${ALIAS}`]);
      expect(await pending()).toEqual([id('woolworths:927566')]);
    });

    it('a full reindex covers what was queued before it', async () => {
      await reindexListings({ pool: db.pool, client, alias: ALIAS, synonyms: GROUPS, now: () => T1, progress: false, bulk: NO_RETRY });
      expect(await pending()).toEqual([]);
    });

    it('upserts touched listings into the alias and removes ones that no longer exist', async () => {
      const burgers = id('woolworths:927566');
      const r = await sync([burgers, 999_999, burgers]);
      expect(r).toEqual({ indexed: 1, deleted: 1, pending: 0, skipped: null });
      const bulks = cluster.requests.filter((q) => q.path === '/_bulk');
      expect(bulks).toHaveLength(1);
      expect(bulks[0].querystring).toMatchObject({ require_alias: 'true' });
      expect(bulks[0].body).toEqual([
        { index: { _index: ALIAS, _id: String(burgers) } },
        expect.objectContaining({ id: burgers, group_key: `p${seeded.productId}`, name: 'silver fern farms honest beef burgers with smoky caramelized onion' }),
        { delete: { _index: ALIAS, _id: '999999' } },
      ]);
      expect(cluster.autoCreate).toEqual([]);
      expect(await pending()).toEqual([]);
      const state = await db.pool.query('SELECT synced_at > built_at AS later FROM search_index_state WHERE alias = $1', [ALIAS]);
      expect(state.rows).toEqual([{ later: true }]);
    });

    it('keeps the listings queued when Elasticsearch fails, and catches up on the next drain', async () => {
      cluster.bulkFailure = 'transport';
      const ids = [id('woolworths:42246'), id('paknsave:5205300-EA-000')];
      await expect(sync(ids)).rejects.toThrow(/internal_server_error/);
      expect(await pending()).toEqual(ids.sort((a, b) => a - b));
      cluster.bulkFailure = null;
      const r = await syncPendingListings({ pool: db.pool, client, alias: ALIAS, bulk: NO_RETRY, batchSize: 1 });
      expect(r).toEqual({ indexed: 2, deleted: 0, pending: 0, skipped: null });
      expect(cluster.requests.filter((q) => q.path === '/_bulk')).toHaveLength(3); // the failed one, then one per batch of 1
      expect(await pending()).toEqual([]);
    });

    it('ingest reports the listings it touched, which the update then rewrites', async () => {
      const pasta = id('paknsave:5205300-EA-000');
      // Synthetic observation (a later day, a made-up price and rename) of a real listing.
      const records = [{
        line: 2,
        record: {
          day: '2026-08-04', retailer: 'paknsave', store: PAKNSAVE_STORES[0], external_id: '5205300-EA-000', price: 349,
          name: 'Spaghetti Pulse Pasta Gluten Free',
        },
      }];
      const r = await ingest(db.pool, records, { mode: 'changes', source: 'synthetic', progress: false });
      expect(r.listingIds).toEqual([pasta]);
      const again = await ingest(db.pool, records, { mode: 'changes', source: 'synthetic', progress: false });
      expect(again.listingIds).toEqual([]);
      await enqueueListings(db.pool, r.listingIds);
      const s = await syncPendingListings({ pool: db.pool, client, alias: ALIAS, bulk: NO_RETRY });
      expect(s.indexed).toBe(1);
      const [op] = cluster.bulkOperations();
      expect(op.doc).toMatchObject({ id: pasta, name: 'Spaghetti Pulse Pasta Gluten Free', last_seen: '2026-08-04' });
    });
  });
});

describe('search backend requests and parsing (fake Elasticsearch)', () => {
  const cluster = new FakeCluster();
  const onError = vi.fn();
  const backend = createElasticsearchBackend({ url: 'http://unused', alias: ALIAS, client: cluster.client(), onError });
  beforeEach(() => {
    cluster.requests.length = 0;
    cluster.searchResponse = fixture('search.json');
    cluster.msearchResponse = fixture('msearch-suggest.json');
    onError.mockReset();
  });

  it('sends the ranking DSL to the alias and returns hit ids best first', async () => {
    const ids = await backend.searchListings({ text: 'weetbx', retailerId: 3, limit: 7 });
    expect(ids).toEqual([42, 7, 311]);
    expect(cluster.requests).toHaveLength(1);
    const req = cluster.requests[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/${ALIAS}/_search`);
    const { index: _index, ...expected } = buildSearchRequest(ALIAS, { text: 'weetbx', retailerId: 3, limit: 7 });
    expect(req.body).toEqual(JSON.parse(JSON.stringify(expected)));
    const body = req.body;
    expect(body).toMatchObject({ size: 7, _source: false, track_total_hits: false, sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }] });
    expect(body.query.bool.filter).toEqual([{ term: { retailer_id: 3 } }]);
    const clauses = body.query.bool.must[0].bool.should as Json[];
    expect(body.query.bool.must[0].bool.minimum_should_match).toBe(1);
    expect(clauses[0]).toEqual({ constant_score: { filter: { term: { 'name.exact': 'weetbx' } }, boost: EXACT_BOOST } });
    expect(clauses).toContainEqual({
      match: { name: { query: 'weetbx', analyzer: 'nz_plain', fuzziness: 'AUTO', prefix_length: 1, max_expansions: 50, operator: 'and', boost: 1 } },
    });
    expect(clauses).toContainEqual(expect.objectContaining({
      multi_match: expect.objectContaining({ type: 'cross_fields', analyzer: 'nz_search', operator: 'and', fields: ['name^3', 'brand^1.5', 'category_path.text^1', 'size_text^0.5'] }),
    }));
    expect(clauses).toContainEqual({ match_phrase: { name: { query: 'weetbx', analyzer: 'nz_search', slop: 1, boost: 6 } } });
    expect(clauses).toContainEqual({ match: { 'name.stem': { query: 'weetbx', operator: 'and', boost: 1 } } });
    expect(clauses).toContainEqual({ bool: { must: [{ match: { 'name.prefix': { query: 'weetbx', analyzer: 'nz_plain', operator: 'and' } } }], boost: 1.5 } });
    // Available listings and the kind prior rank up; neither admits a listing on its own.
    expect(body.query.bool.should).toEqual([
      { term: { available: { value: true, boost: 0.5 } } },
      { match: { kind_label: { query: 'weetbx', operator: 'or', boost: KIND_BOOST } } },
      { match: { kind_label: { query: 'weetbx', analyzer: 'nz_plain', fuzziness: 'AUTO', prefix_length: 1, max_expansions: 50, operator: 'or', boost: KIND_TYPO_BOOST } } },
    ]);
  });

  // Faked: Elasticsearch's analysis and scoring (the fake cluster answers search.json whatever the
  // query). Checked: that the request carries the typo and run-together clauses the embedded
  // backend's spelling correction mirrors (src/search/spelling.ts; issue 31 item 2), and that the
  // mapping indexes what they search. Their effect on a ranking is checked only against a real
  // server (the last block, ELASTICSEARCH_URL).
  it('carries typo tolerance and run-together words in the request: galic, cocacola (issue 31 item 2)', async () => {
    await backend.searchListings({ text: 'galic', retailerId: null, limit: 10 });
    await backend.searchListings({ text: 'cocacola', retailerId: null, limit: 10 });
    const [galic, cocacola] = cluster.requests.map((r) => r.body);
    const should = (b: Json) => b.query.bool.must[0].bool.should as Json[];
    // One edit up to five letters, two from six, first letter fixed: galic → garlic (not gala, two edits away).
    expect(should(galic)).toContainEqual({
      match: { name: { query: 'galic', analyzer: 'nz_plain', fuzziness: 'AUTO', prefix_length: 1, max_expansions: 50, operator: 'and', boost: 1 } },
    });
    // The kind a misspelt query names ranks up too (Garlic), below a kind named exactly.
    expect(galic.query.bool.should).toContainEqual({
      match: { kind_label: { query: 'galic', analyzer: 'nz_plain', fuzziness: 'AUTO', prefix_length: 1, max_expansions: 50, operator: 'or', boost: KIND_TYPO_BOOST } },
    });
    expect(KIND_TYPO_BOOST).toBeLessThan(KIND_BOOST);
    // The words run together meet the name's adjacent pairs ("coca cola" is indexed as coca, cocacola, cola).
    expect(should(cocacola)).toContainEqual({
      match: { 'name.compound': { query: 'cocacola', analyzer: 'nz_plain', fuzziness: 'AUTO', prefix_length: 1, max_expansions: 50, operator: 'and', boost: 2 } },
    });
    const analysis = listingIndexBody({ synonyms: SYNONYM_GROUPS }).settings.analysis as Json;
    const name = (listingIndexBody({ synonyms: SYNONYM_GROUPS }).mappings as Json).properties.name;
    expect(name.fields.compound).toEqual({ type: 'text', analyzer: 'nz_compound_index', search_analyzer: 'nz_plain' });
    expect(analysis.analyzer.nz_compound_index).toEqual({
      type: 'custom',
      char_filter: ['nz_compact'],
      tokenizer: 'standard',
      filter: ['lowercase', 'asciifolding', 'nz_compound_pairs'],
    });
    expect(analysis.filter.nz_compound_pairs).toEqual({ type: 'shingle', min_shingle_size: 2, max_shingle_size: 2, output_unigrams: true, token_separator: '' });
  });

  it('matches earlier words whole and the last word as a prefix; no retailer filter when none is given', async () => {
    await backend.searchListings({ text: '  sanitarium weet ', retailerId: null, limit: 20 });
    const body = cluster.requests[0].body;
    expect(body.query.bool.filter).toEqual([]);
    expect(body.query.bool.must[0].bool.should).toContainEqual({
      bool: {
        must: [
          { match: { name: { query: 'sanitarium', analyzer: 'nz_search', operator: 'and' } } },
          { match: { 'name.prefix': { query: 'weet', analyzer: 'nz_plain', operator: 'and' } } },
        ],
        boost: 1.5,
      },
    });
  });

  it('adds a GTIN clause for barcode digits', async () => {
    await backend.searchListings({ text: '0941 4742 351053', retailerId: null, limit: 5 });
    expect(cluster.requests[0].body.query.bool.must[0].bool.should).toContainEqual({ term: { gtin: { value: '9414742351053', boost: 50 } } });
  });

  it('puts any text only into query values, never into the request structure', async () => {
    const nasty = 'a"}],"size":10000,{"x":"\\ *:* OR name:* (  ) <script> 🍌 ' + 'x'.repeat(40);
    await backend.searchListings({ text: nasty, retailerId: null, limit: 3 });
    const body = cluster.requests[0].body;
    expect(body.size).toBe(3);
    const text = nasty.trim();
    const words = text.split(/\s+/);
    const allowed = new Set([text, words.slice(0, -1).join(' '), words.at(-1)]);
    const places: string[] = [];
    const walk = (o: Json, path: string[]) => {
      if (typeof o === 'string' && allowed.has(o)) places.push(path.at(-1) === 'query' ? 'query' : path.join('.'));
      else if (o && typeof o === 'object') for (const [k, v] of Object.entries(o)) walk(v, [...path, k]);
    };
    walk(body, []);
    expect(new Set(places)).toEqual(new Set(['query', 'query.bool.must.0.bool.should.0.constant_score.filter.term.name.exact']));
    expect(JSON.stringify(Object.keys(body).sort())).toBe(JSON.stringify(['_source', 'query', 'size', 'sort', 'track_total_hits']));
  });

  it('returns no ids without asking Elasticsearch for blank text', async () => {
    expect(await backend.searchListings({ text: '   ', retailerId: null, limit: 5 })).toEqual([]);
    expect(cluster.requests).toEqual([]);
  });

  it('turns Elasticsearch failures into Unavailable (503)', async () => {
    cluster.searchResponse = responseError(503, fixture('search-unavailable.json'));
    const err = await backend.searchListings({ text: 'milk', retailerId: null, limit: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Unavailable);
    expect(err).toMatchObject({ message: 'search is unavailable', code: 'UNAVAILABLE', extensions: { code: 'UNAVAILABLE' } });
    expect(onError).toHaveBeenCalledWith(expect.anything(), 'search');

    cluster.msearchResponse = fixture('msearch-item-error.json');
    await expect(backend.suggest({ prefix: 'mil', limit: 8 })).rejects.toBeInstanceOf(Unavailable);
    expect(onError).toHaveBeenLastCalledWith(expect.objectContaining({ message: expect.stringMatching(/index_not_found_exception/) }), 'suggest');

    // A server that is not there at all (a closed local port), through the real HTTP connection.
    const gone = createElasticsearchBackend({ url: 'http://127.0.0.1:9', alias: ALIAS, requestTimeoutMs: 500, onError: () => {} });
    await expect(gone.searchListings({ text: 'milk', retailerId: null, limit: 5 })).rejects.toBeInstanceOf(Unavailable);
    await expect(gone.suggest({ prefix: 'mil', limit: 5 })).rejects.toBeInstanceOf(Unavailable);
    await gone.close();
  });

  it('sends one _msearch for suggestions: collapsed name-prefix hits and category/brand aggregations', async () => {
    await backend.suggest({ prefix: 'veg', limit: 8 });
    expect(cluster.requests).toHaveLength(1);
    const [h1, items, h2, facets] = cluster.requests[0].body as Json[];
    expect(cluster.requests[0].path).toBe('/_msearch');
    expect(h1).toEqual({ index: ALIAS });
    expect(h2).toEqual({ index: ALIAS });
    expect(items).toMatchObject({
      size: 8,
      track_total_hits: false,
      _source: ['id', 'name', 'product_id', 'product_name', 'size_text', 'retailer_name'],
      collapse: { field: 'group_key' },
    });
    expect(items.query.bool.must[0].bool.should).toContainEqual({ match: { 'name.prefix': { query: 'veg', operator: 'and' } } });
    expect(facets.size).toBe(0);
    expect(facets.aggs).toEqual({
      categories: { filter: { match: { 'category_path.prefix': { query: 'veg', operator: 'and' } } }, aggs: { nodes: { terms: { field: 'category_nodes', size: 100 } } } },
      brands: { filter: { match: { 'brand.prefix': { query: 'veg', operator: 'and' } } }, aggs: { names: { terms: { field: 'brand.keyword', size: 50 } } } },
    });
  });

  it('parses suggestions as the embedded backend orders them: categories, brands, products, listings', async () => {
    expect(await backend.suggest({ prefix: 'veg', limit: 8 })).toEqual([
      // Labels starting with the prefix first, then by count; one per label (its most frequent path).
      { kind: 'category', id: null, label: 'Vegetables', detail: 'Fruit & Veg', href: '/search?q=Vegetables' },
      { kind: 'category', id: null, label: 'Fruit & Veg', detail: null, href: '/search?q=Fruit%20%26%20Veg' },
      { kind: 'category', id: null, label: 'Frozen Vegetables', detail: 'Frozen', href: '/search?q=Frozen%20Vegetables' },
      { kind: 'product', id: 1, label: 'Honest Beef Burgers With Smoky Caramelised Onion', detail: '500g', href: '/products/1' },
      { kind: 'listing', id: 432, label: "wattie's frozen mixed vegetables carrots, peas, beans & corn", detail: '1kg · Woolworths', href: '/listings/432' },
      { kind: 'listing', id: 345, label: 'watties chopped tomatoes in purée', detail: 'Woolworths', href: '/listings/345' },
    ]);
    // Spelling variants of a brand are one suggestion with their counts summed; the cut keeps display order.
    expect(await backend.suggest({ prefix: 'wat', limit: 4 })).toEqual([
      { kind: 'brand', id: null, label: "Wattie's", detail: '17 listings', href: "/search?q=Wattie's" },
      { kind: 'brand', id: null, label: 'Watkins', detail: '1 listing', href: '/search?q=Watkins' },
      expect.objectContaining({ kind: 'product', id: 1 }),
      expect.objectContaining({ kind: 'listing', id: 432 }),
    ]);
    expect(await backend.suggest({ prefix: 'wat', limit: 1 })).toEqual([expect.objectContaining({ kind: 'brand', label: "Wattie's" })]);
    expect(await backend.suggest({ prefix: ' ', limit: 8 })).toEqual([]);
  });

  it('matches labels word by word, accent- and apostrophe-insensitively', () => {
    expect(labelMatchesPrefix('Fruit & Veg', 'veg')).toBe(true);
    expect(labelMatchesPrefix('Fruit & Veg', 'fruit v')).toBe(true);
    expect(labelMatchesPrefix("Wattie's", 'watties')).toBe(true);
    expect(labelMatchesPrefix('Crème Fraîche', 'creme f')).toBe(true);
    expect(labelMatchesPrefix('Weet Bix', 'weetb')).toBe(true);
    expect(labelMatchesPrefix('Frozen', 'veg')).toBe(false);
    expect(labelMatchesPrefix('Frozen', '--')).toBe(false);
  });
});

describe.skipIf(!process.env.ELASTICSEARCH_URL)('against a real Elasticsearch server (ELASTICSEARCH_URL)', () => {
  const alias = `nzgp-test-${crypto.randomBytes(4).toString('hex')}`;
  let db: TestDatabase;
  let seeded: Seeded;
  let client: Client;
  let backend: ReturnType<typeof createElasticsearchBackend>;
  const id = (key: string) => seeded.listingIds.get(key)!;
  const search = (text: string, retailerId: number | null = null, limit = 20) => backend.searchListings({ text, retailerId, limit });
  const retailerOf = async (ids: number[]) =>
    (await db.pool.query<{ slug: string }>('SELECT DISTINCT r.slug FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE l.id = ANY($1::int[])', [ids])).rows.map((r) => r.slug);

  beforeAll(async () => {
    db = await createTestDatabase('elasticsearch_real');
    seeded = await seedRealPrices(db.pool);
    client = createElasticsearchClient({ url: process.env.ELASTICSEARCH_URL!, requestTimeoutMs: 60_000 });
    await reindexListings({ pool: db.pool, client, alias, progress: false, replicas: 0 });
    backend = createElasticsearchBackend({ url: process.env.ELASTICSEARCH_URL!, alias, client });
  });
  afterAll(async () => {
    // Explicit names: wildcard deletes are refused by default (action.destructive_requires_name).
    const mine = client ? Object.keys(await client.indices.get({ index: `${alias}-*` }).catch(() => ({}))) : [];
    if (mine.length > 0) await client.indices.delete({ index: mine }).catch(() => {});
    await client?.close();
    await db?.drop();
  });

  it('tolerates typos', async () => {
    expect(await search('spagetti')).toContain(id('paknsave:5205300-EA-000'));
    expect(await search('brocoli')).toContain(id('woolworths:281082'));
    // Issue 31 item 2: a missing letter finds what the right spelling finds first.
    const garlic = await search('garlic');
    expect((await search('galic')).slice(0, 3)).toContain(garlic[0]);
  });

  it('makes apostrophes and hyphens meet ("wattie\'s" / "watties", "par-baked" / "parbaked" / "par baked")', async () => {
    const watties = await search('watties');
    expect(watties).toEqual(expect.arrayContaining([id('woolworths:328544'), id('woolworths:272784')]));
    expect(await search("wattie's")).toEqual(expect.arrayContaining([id('woolworths:328544'), id('woolworths:272784')]));
    for (const q of ['parbaked rolls', 'par baked rolls', 'par-baked rolls']) expect(await search(q), q).toContain(id('paknsave:5033485-EA-000'));
  });

  it('ignores accents', async () => {
    expect(await search('puree')).toContain(id('woolworths:328544'));
    expect(await search('brócoli')).toContain(id('woolworths:281082'));
  });

  it('ranks an exact name first', async () => {
    expect((await search('essentials pasta penne'))[0]).toBe(id('woolworths:188800'));
    expect((await search('Fresh Vegetable Carrots'))[0]).toBe(id('woolworths:135344'));
  });

  it('expands synonyms', async () => {
    expect(await search('ground beef')).toContain(id('woolworths:42246'));
  });

  it('matches the last word as a prefix', async () => {
    expect(await search('spaghetti pul')).toContain(id('paknsave:5205300-EA-000'));
  });

  it('filters by retailer', async () => {
    const paknsave = (await db.pool.query<{ id: number }>("SELECT id FROM retailer WHERE slug = 'paknsave'")).rows[0].id;
    const all = await search('garlic');
    expect(await retailerOf(all)).toEqual(expect.arrayContaining(['paknsave', 'woolworths']));
    const only = await search('garlic', paknsave);
    expect(only.length).toBeGreaterThan(0);
    expect(await retailerOf(only)).toEqual(['paknsave']);
  });

  it('suggests categories and listings for a prefix', async () => {
    const hits = await backend.suggest({ prefix: 'froz', limit: 8 });
    expect(hits).toContainEqual(expect.objectContaining({ kind: 'category', label: 'Frozen', href: '/search?q=Frozen' }));
    expect(hits.some((h) => h.kind === 'listing' && h.label.includes('frozen'))).toBe(true);
  });

  it('applies incremental updates and a second reindex without downtime', async () => {
    const carrots = id('woolworths:135344');
    await db.pool.query("UPDATE listing SET name = 'fresh vegetable carrots heirloom' WHERE id = $1", [carrots]);
    await syncListings({ pool: db.pool, client, alias, refresh: true }, [carrots]);
    expect((await search('heirloom'))[0]).toBe(carrots);
    const before = Object.keys(await client.indices.getAlias({ name: alias }));
    const r = await reindexListings({ pool: db.pool, client, alias, progress: false, replicas: 0 });
    expect(r.replaced).toEqual(before);
    expect(Object.keys(await client.indices.getAlias({ name: alias }))).toEqual([r.index]);
    expect((await search('heirloom'))[0]).toBe(carrots);
  });
});
