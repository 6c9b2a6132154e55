/**
 * The generated descriptions without a database: the OpenAPI 3.1 document validates with a real
 * OpenAPI validator (@seriousme/openapi-schema-validator, JSON and YAML forms), it carries every
 * registry operation with the contract's parameter rules, its resource schemas agree field by field
 * with the shapes written by hand from api-spec (test/helpers/shape.ts), and llms.txt /
 * llms-full.txt list every operation. Adding a registry entry reaches every description.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { buildMetaDocuments } from '../../facades/meta/index.js';
import { defineOperation, intWithDefault, type AnyOperation } from '../../facades/operation.js';
import { operations } from '../../facades/operations.js';
import { Retailer } from '../../facades/resources.js';
import {
  CURRENT_PRICE, DAILY_STATS, HISTORY, LISTING_CARD, LISTING_DETAIL, LISTING_STORE_PRICE, OFFER, PRODUCT_DETAIL,
  PRODUCT_GROUP, PRODUCT_STORE_PRICE, RETAILER, SPREAD, STORE, SUGGESTION, GROUP_LEVEL, STORE_LISTING, BIN, STORE_DETAIL,
  STORE_LISTINGS, STORE_LEVELS, AREA, AREAS, INDEX_LATEST, INDEX_POINT, GROUP_SERIES, INDEX_GROUPS, ITEM_SERIES,
  INDEX_ITEMS, BASKET_ITEM, BASKET_MATCH, BASKET_ITEM_DETAIL, BASKET_ITEM_LISTING, COMPARE, COMPARE_GROUP, COMPARE_ITEM, LEVEL_SERIES, RETAILER_LEVELS, DEALS, type Spec,
} from '../helpers/shape.js';

const BASE = 'https://prices.example.nz';
const docs = buildMetaDocuments(operations, BASE);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const doc = docs.openapi as Json;

const operationOf = (name: string): Json => {
  for (const item of Object.values(doc.paths as Json)) for (const op of Object.values(item as Json)) if ((op as Json).operationId === name) return op as Json;
  throw new Error(`no operation ${name}`);
};
const param = (op: string, name: string): Json => operationOf(op).parameters.find((p: Json) => p.name === name);

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3.1 as JSON and as YAML', async () => {
    for (const text of [docs.openapiJson, docs.openapiYaml]) {
      const result = await new Validator().validate(text.startsWith('{') ? JSON.parse(text) : parseYaml(text));
      expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
      expect(result.valid).toBe(true);
    }
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(parseYaml(docs.openapiYaml)).toEqual(JSON.parse(docs.openapiJson));
  });

  it('rejects a broken document (the validator can fail)', async () => {
    const broken = structuredClone(doc);
    broken.paths['/api/v1/retailers'].get.parameters = [{ name: 'x' }]; // no `in`
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('has every registry operation at its path with operationId = operation name', () => {
    for (const op of operations) {
      const entry = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(entry?.operationId, op.name).toBe(op.name);
      expect(entry.responses[200], op.name).toBeDefined();
    }
    const ids = Object.values(doc.paths as Json).flatMap((item) => Object.values(item as Json).map((o) => (o as Json).operationId)).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('states the contract parameter rules: defaults, bounds, q at most 100 characters', () => {
    expect(param('search_listings', 'limit')).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } });
    expect(param('search_listings', 'q').schema).toMatchObject({ type: 'string', maxLength: 100 });
    expect(param('get_listing', 'id')).toMatchObject({ in: 'path', required: true, schema: { type: 'integer', minimum: 1 } });
    expect(param('get_listing_history', 'store')).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } });
    expect(param('list_stores', 'urban').schema.enum).toEqual(['major', 'large', 'medium', 'small', 'rural']);
  });

  it('documents errors: 400 with parameters, 404 for unknown ids, 429 with Retry-After on /api/v1, the Error body', () => {
    expect(operationOf('get_listing').responses).toHaveProperty('404');
    expect(operationOf('get_listing').responses).toHaveProperty('400');
    expect(operationOf('list_retailers').responses).not.toHaveProperty('400');
    expect(operationOf('get_listing_history').responses).not.toHaveProperty('404'); // empty arrays, not 404
    for (const op of operations.filter((o) => o.path.startsWith('/api/v1/'))) expect(operationOf(op.name).responses).toHaveProperty('429');
    expect(operationOf('healthz').responses).not.toHaveProperty('429');
    expect(doc.components.responses.TooManyRequests.headers).toHaveProperty('Retry-After');
    expect(doc.components.schemas.Error.properties.error.properties).toHaveProperty('bulk_data');
    expect(doc.paths['/mcp'].post.responses).toHaveProperty('429');
  });

  const RESOURCES: Record<string, Spec> = {
    ListingCard: LISTING_CARD, Retailer: RETAILER, Store: STORE, CurrentPrice: CURRENT_PRICE,
    ListingStorePrice: LISTING_STORE_PRICE, ListingDetail: LISTING_DETAIL, DailyStats: DAILY_STATS, History: HISTORY,
    Offer: OFFER, ProductDetail: PRODUCT_DETAIL, ProductGroup: PRODUCT_GROUP, Suggestion: SUGGESTION,
    ProductStorePrice: PRODUCT_STORE_PRICE, Spread: SPREAD,
    IndexLatest: INDEX_LATEST, IndexPoint: INDEX_POINT, GroupSeries: GROUP_SERIES, IndexGroups: INDEX_GROUPS,
    ItemSeries: ITEM_SERIES, IndexItems: INDEX_ITEMS, BasketItem: BASKET_ITEM, BasketMatch: BASKET_MATCH,
    BasketItemDetail: BASKET_ITEM_DETAIL, BasketItemListing: BASKET_ITEM_LISTING,
    GroupLevel: GROUP_LEVEL, StoreListing: STORE_LISTING, Bin: BIN, StoreDetail: STORE_DETAIL, StoreListings: STORE_LISTINGS,
    StoreLevels: STORE_LEVELS, Area: AREA, Areas: AREAS,
    Compare: COMPARE, LevelSeries: LEVEL_SERIES, RetailerLevels: RETAILER_LEVELS, Deals: DEALS,
  };
  it.each(Object.keys(RESOURCES))('schema %s has exactly the fields and nullability of api-spec', (id) => {
    const schema = doc.components.schemas[id];
    expect(schema, id).toBeDefined();
    const spec = RESOURCES[id];
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(spec).sort());
    expect(schema.additionalProperties).toBe(false);
    for (const [field, kind] of Object.entries(spec)) {
      const node = schema.properties[field];
      const nullable = (Array.isArray(node.anyOf) && node.anyOf.some((n: Json) => n.type === 'null')) || (Array.isArray(node.type) && node.type.includes('null'));
      expect(nullable, `${id}.${field} nullable`).toBe(kind.endsWith('?'));
    }
  });

  it('Compare: groups and items have the api-spec fields; headline and levels map a slug to the pair [number, integer]; prices to cents', () => {
    const compare = doc.components.schemas.Compare;
    const fieldsOf = (node: Json, spec: Spec, label: string) => {
      expect(Object.keys(node.properties).sort(), label).toEqual(Object.keys(spec).sort());
      for (const [field, kind] of Object.entries(spec)) {
        const n = node.properties[field];
        const nullable = (Array.isArray(n.anyOf) && n.anyOf.some((x: Json) => x.type === 'null')) || (Array.isArray(n.type) && n.type.includes('null'));
        expect(nullable, `${label}.${field} nullable`).toBe(kind.endsWith('?'));
      }
    };
    fieldsOf(compare.properties.groups.items, COMPARE_GROUP, 'Compare.groups[]');
    fieldsOf(compare.properties.items.items, COMPARE_ITEM, 'Compare.items[]');
    const pair = { type: 'array', prefixItems: [{ type: 'number' }, { type: 'integer' }], items: { not: {} }, minItems: 2, maxItems: 2 }; // `{not: {}}` is zod's `items: false`
    for (const map of [compare.properties.headline, compare.properties.groups.items.properties.levels]) {
      expect(map.type).toBe('object');
      expect(map.additionalProperties).toMatchObject(pair);
    }
    expect(compare.properties.items.items.properties.prices.additionalProperties).toEqual({ $ref: '#/components/schemas/Cents' });
    expect(doc.components.schemas.RetailerLevels.properties.retailers.items).toEqual({ $ref: '#/components/schemas/LevelSeries' });
    expect(doc.components.schemas.Deals.properties.listings.items).toEqual({ $ref: '#/components/schemas/ListingCard' });
    expect(doc.components.schemas.Deals.properties.kind.enum).toEqual(['special', 'member', 'multibuy']);
    expect(param('get_retailer_levels', 'days')).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 7, maximum: 3650, default: 365 } });
    expect(param('list_deals', 'kind').schema).toMatchObject({ enum: ['special', 'member', 'multibuy'], default: 'special' });
    expect(param('list_deals', 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 96, default: 24 });
    expect(param('list_deals', 'q').schema).toMatchObject({ type: 'string', maxLength: 100 });
    // The literal paths, distinct from /api/v1/retailers/{slug}/browse.
    expect(doc.paths['/api/v1/retailers/compare'].get.operationId).toBe('compare_retailers');
    expect(doc.paths['/api/v1/retailers/levels'].get.operationId).toBe('get_retailer_levels');
  });

  it('references named resources instead of repeating them', () => {
    const ok = (name: string) => operationOf(name).responses[200].content['application/json'].schema;
    expect(ok('search_listings')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/ListingCard' } });
    expect(ok('get_listing')).toEqual({ $ref: '#/components/schemas/ListingDetail' });
    expect(doc.components.schemas.ListingDetail.properties.current.anyOf[0]).toEqual({ $ref: '#/components/schemas/CurrentPrice' });
  });
});

describe('llms.txt and llms-full.txt', () => {
  it('list every operation with its method and path', () => {
    for (const op of operations) {
      expect(docs.llmsTxt).toContain(`[${op.name}](${BASE}/llms-full.txt#${op.name}): ${op.method} ${op.path}`);
      expect(docs.llmsFullTxt).toContain(`### ${op.name}\n\n\`${op.method} ${op.path}\``);
    }
    expect(docs.llmsTxt.startsWith('# ')).toBe(true);
    expect(docs.llmsTxt).toMatch(/\n> .+/); // llmstxt.org summary block
    expect(docs.llmsTxt).toContain(`${BASE}/openapi.json`);
  });

  it('give parameter rules and resource field tables in the full reference', () => {
    expect(docs.llmsFullTxt).toContain('| limit | query | integer | no | 1 to 100; default 20 |');
    expect(docs.llmsFullTxt).toContain('| q | query | string | no | at most 100 characters |');
    expect(docs.llmsFullTxt).toContain('### ListingCard');
    expect(docs.llmsFullTxt).toMatch(/\| price \| Cents or null \| always present; National shelf price/);
    expect(docs.llmsFullTxt).toContain('Returns: `ListingCard[]` (200)');
  });
});

describe('one registry entry reaches every description', () => {
  it('adds a new operation to OpenAPI, llms.txt and llms-full.txt with no other edit', () => {
    const extra = defineOperation({
      name: 'list_things_for_test',
      summary: 'A test-only operation.',
      method: 'GET',
      family: 'light',
      path: '/api/v1/things',
      params: z.object({ limit: intWithDefault(1, 9, 3, 'How many.') }),
      variables: (p) => p,
      result: z.array(Retailer),
      shape: (d: unknown) => d as never,
    });
    const more = buildMetaDocuments([...operations, extra as AnyOperation], BASE);
    const op = (more.openapi.paths as Json)['/api/v1/things'].get;
    expect(op.operationId).toBe('list_things_for_test');
    expect(op.parameters[0]).toMatchObject({ name: 'limit', schema: { minimum: 1, maximum: 9, default: 3 } });
    expect(op.responses[200].content['application/json'].schema.items).toEqual({ $ref: '#/components/schemas/Retailer' });
    expect(more.llmsTxt).toContain('[list_things_for_test]');
    expect(more.llmsFullTxt).toContain('### list_things_for_test');
    expect(more.openapiYaml).toContain('operationId: list_things_for_test');
  });
});
