/**
 * The OpenAPI 3.1 document, generated from the operation registry alone (api-spec "Versioning" 3:
 * the API description is OpenAPI 3.1). Every operation becomes one path operation with
 * `operationId` = its name, its parameters (with bounds, defaults and enums from the zod params),
 * its 200 schema (from `Operation.result`, named resources as `#/components/schemas/<id>`) and its
 * error responses (400 when it has parameters, its own `errors`, 429 and the RateLimit-* headers on
 * budgeted paths, 503 with Retry-After on every operation: all of them read the database). JSON Schema comes from zod 4's `z.toJSONSchema` (draft 2020-12, the dialect of
 * OpenAPI 3.1).
 */
import { z } from 'zod';
import { paramInfo, type AnyOperation } from '../operation.js';
import { ErrorBody } from '../resources.js';
import { feedOpenApiPaths } from '../http/feeds.js';

/** A JSON Schema object as emitted by zod. */
export type JsonSchema = Record<string, unknown>;

/** Paths under this prefix count against the per-IP budget (api-spec "Limits"). */
export const BUDGETED_PREFIX = '/api/v1/';

/** Whether responses of `path` carry the rate-limit headers and may be 429 (api-spec "Limits"). */
export function isBudgeted(path: string): boolean {
  return path.startsWith(BUDGETED_PREFIX) || path === '/mcp';
}

const COMPONENT_REF = '#/components/schemas/';
const SAFE_INT = Number.MAX_SAFE_INTEGER;

/**
 * Rewrites a zod JSON Schema for embedding in OpenAPI: `#/$defs/X` references become component
 * references, `$defs` move into `components` (returned separately), `$schema`/`$id` go, and the
 * ±2^53 bounds zod puts on every `z.int()` are dropped (they say nothing to a reader).
 */
function embed(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const { $defs, ...root } = schema as { $defs?: Record<string, JsonSchema> };
  const clean = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(clean);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$schema' || k === '$id') continue;
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) out[k] = COMPONENT_REF + v.slice(8);
      // A tuple's `items: false` (nothing after prefixItems) as the equivalent schema `{not: {}}`:
      // same meaning, and linters that expect `items` to be a schema object (Spectral's
      // array-items) accept it.
      else if (k === 'items' && v === false) out[k] = { not: {} };
      else if ((k === 'minimum' && v === -SAFE_INT) || (k === 'maximum' && v === SAFE_INT)) continue;
      else out[k] = clean(v);
    }
    return out;
  };
  for (const [id, def] of Object.entries($defs ?? {})) components[id] ??= clean(def) as JsonSchema;
  return clean(root) as JsonSchema;
}

/**
 * JSON Schema of `schema` for an OpenAPI document, its named parts added to `components`.
 * A schema that is itself named becomes a `$ref`.
 */
export function schemaFor(schema: z.ZodType, components: Record<string, JsonSchema>, io: 'input' | 'output' = 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
  const id = z.globalRegistry.get(schema)?.id;
  const embedded = embed(json, components);
  if (typeof id === 'string') {
    components[id] ??= embedded;
    return { $ref: COMPONENT_REF + id };
  }
  return embedded;
}

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
};

/** The reusable headers and error responses (api-spec "Errors", "Rate-limit headers"). */
function commonComponents(schemas: Record<string, JsonSchema>) {
  const error = { 'application/json': { schema: schemaFor(ErrorBody, schemas) } };
  return {
    headers: {
      'RateLimit-Limit': { description: 'Requests allowed in the tighter of the two windows (minute or day).', schema: { type: 'integer' } },
      'RateLimit-Remaining': { description: 'Requests left in that window.', schema: { type: 'integer' } },
      'RateLimit-Reset': { description: 'Seconds until that window resets.', schema: { type: 'integer' } },
      'RateLimit-Policy': { description: 'Both windows: 300 per 60 s and 10,000 per 86,400 s.', schema: { type: 'string' } },
      'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
    },
    responses: {
      Malformed: {
        description: 'The request itself is malformed (an unparseable URL, a missing Host header); the message says what.',
        content: error,
      },
      BadRequest: { description: 'A parameter is malformed or out of range; the message names it.', headers: RATE_LIMIT_HEADERS, content: error },
      NotFound: { description: 'No such thing.', headers: RATE_LIMIT_HEADERS, content: error },
      NotModified: {
        description:
          'Not modified: If-None-Match matched the ETag, or, without If-None-Match, Last-Modified is not later than If-Modified-Since. No body.',
        headers: RATE_LIMIT_HEADERS,
      },
      TooManyRequests: {
        description: 'The per-IP budget is exceeded (300 a minute, 10,000 a day). Use the nightly exports for bulk work: `error.bulk_data`.',
        headers: { ...RATE_LIMIT_HEADERS, 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
        content: error,
      },
      Unavailable: {
        description: 'The database is unreachable (an outage): retry after Retry-After seconds. Sent with Cache-Control: no-store.',
        headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
        content: error,
      },
    },
  };
}

/** The OpenAPI path operation of one registry entry. */
function pathOperation(op: AnyOperation, schemas: Record<string, JsonSchema>): JsonSchema {
  const params = paramInfo(op);
  const budgeted = isBudgeted(op.path);
  const media = (op.contentType ?? 'application/json').split(';')[0];
  const responses: Record<string, unknown> = {
    200: {
      description: op.summary,
      ...(budgeted
        ? {
            headers: {
              ...RATE_LIMIT_HEADERS,
              ETag: { description: 'Entity tag of the body, for If-None-Match.', schema: { type: 'string' } },
              'Last-Modified': {
                description:
                  'When the data was observed (the newest last_run of the chains), an HTTP-date, for If-Modified-Since; absent before the first collection.',
                schema: { type: 'string' },
              },
            },
          }
        : {}),
      content: { [media]: { schema: schemaFor(op.result, schemas) } },
    },
  };
  if (budgeted) responses[304] = { $ref: '#/components/responses/NotModified' };
  if (params.length) responses[400] = { $ref: '#/components/responses/BadRequest' };
  if (op.errors?.includes(404)) responses[404] = { $ref: '#/components/responses/NotFound' };
  if (budgeted) responses[429] = { $ref: '#/components/responses/TooManyRequests' };
  // An operation with no error of its own still has the refusals of every route (a malformed request).
  if (!Object.keys(responses).some((k) => k.startsWith('4'))) responses[400] = MALFORMED;
  // Every operation reads the database, so any may meet an outage (facades/execute.ts maps it to 503).
  responses[503] = { $ref: '#/components/responses/Unavailable' };
  return {
    operationId: op.name,
    summary: op.summary,
    // Every operation has a description (linters and generated clients read it); the summary when none is written.
    description: op.description ?? op.summary,
    tags: op.beyondContract ? [tagOf(op.path), 'beyond-contract'] : [tagOf(op.path)],
    ...(op.beyondContract ? { 'x-beyond-contract': op.beyondContract } : {}),
    parameters: params.map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required,
      ...(p.description ? { description: p.description } : {}),
      ...(p.repeatable ? { style: 'form', explode: true } : {}),
      schema: p.schema,
    })),
    responses,
  };
}

/** Groups operations by the first segment after /api/v1 (listings, products, ...); meta otherwise. */
function tagOf(path: string): string {
  return path.startsWith(BUDGETED_PREFIX) ? path.slice(BUDGETED_PREFIX.length).split('/')[0] : 'meta';
}

/**
 * The tags of the document with their descriptions: one per first segment after /api/v1 (see
 * {@link tagOf}), `meta`, and `beyond-contract`. A tag an operation uses and this list lacks still
 * gets a description ({@link tagsOf}), so adding an operation under a new segment needs no edit here.
 */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  retailers: 'The supermarket chains: their catalogues, category trees, and chain price levels compared with each other.',
  stores: 'Stores with their location, price level against their chain, deals and listings priced there.',
  areas: 'Regions, urban classes and towns with price levels computed from their stores.',
  shelves: 'The curated shelf directory (departments, aisles, sub-shelves) and the products on each shelf.',
  deals: 'Current promotions: specials, member (club) prices and multibuys, biggest saving first.',
  'shopping-list': 'Where a shopping list is cheapest: one store, or split over two.',
  search: "Product search: one group per product with every chain's offer.",
  listings: "Listings (one chain's product): detail, price history as spans, special checks, and search.",
  suggestions: 'Type-ahead suggestions: categories, brands, products and listings.',
  gtin: 'Barcode lookup.',
  products: 'Products linked across chains: offers, history, stores and store spread.',
  index: 'The daily food price index nowcast (not an official statistic): latest, daily series, groups and items.',
  basket: 'The Food Price Index basket: its items, weights and matched listings.',
  meta: 'The service itself: health, this description, llms.txt, the MCP endpoint and the front door.',
  feeds: 'Atom and JSON Feed 1.1 feeds of price changes, for feed readers and conditional polling.',
  'beyond-contract': 'Operations this service adds beyond the published API contract.',
};

/** The document's tag list: every tag `paths` uses, in {@link TAG_DESCRIPTIONS} order, then any other. */
function tagsOf(paths: Record<string, Record<string, unknown>>): { name: string; description: string }[] {
  const used = new Set<string>();
  for (const item of Object.values(paths)) for (const op of Object.values(item)) for (const t of (op as { tags?: string[] }).tags ?? []) used.add(t);
  const known = Object.keys(TAG_DESCRIPTIONS).filter((t) => used.has(t));
  const other = [...used].filter((t) => !(t in TAG_DESCRIPTIONS)).sort();
  return [...known, ...other].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `Operations under ${BUDGETED_PREFIX}${name}.` }));
}

/**
 * The refusals every route may answer before it runs (server.ts): a malformed URL or request, or a
 * missing Host header (400); request headers too large (431).
 */
const MALFORMED = { $ref: '#/components/responses/Malformed' };

/** Routes that are not operations but are part of the public surface (api-spec "Meta"). */
function metaPaths(): Record<string, unknown> {
  const text = (operationId: string, summary: string, description: string, media: string) => ({
    get: {
      operationId,
      tags: ['meta'],
      summary,
      description,
      responses: { 200: { description: summary, content: { [media]: { schema: { type: 'string' } } } }, 400: MALFORMED },
    },
  });
  return {
    '/': {
      get: {
        operationId: 'get_index',
        tags: ['meta'],
        summary: 'The front door: what the service is and where everything lives.',
        description:
          'An HTML landing page for a browser; with `Accept: application/json`, a small JSON index instead: the service name and description, and the links to the API reference, this document, GraphiQL, the dashboard, llms.txt, the MCP endpoint and the latest export manifest.',
        responses: {
          200: {
            description: 'The landing page (HTML), or the JSON index when the client asks for JSON.',
            content: {
              'text/html': { schema: { type: 'string' } },
              'application/json': { schema: { $ref: '#/components/schemas/ServiceIndex' } },
            },
          },
          400: MALFORMED,
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'get_openapi_json',
        tags: ['meta'],
        summary: 'This OpenAPI 3.1 description.',
        description: 'This document, generated from the operation registry: every REST operation with its parameters, responses and schemas.',
        responses: { 200: { description: 'The OpenAPI document.', content: { 'application/json': { schema: { type: 'object' } } } }, 400: MALFORMED },
      },
    },
    '/openapi.yaml': text('get_openapi_yaml', 'This OpenAPI 3.1 description as YAML.', 'The same document as /openapi.json, as YAML.', 'application/yaml'),
    '/llms.txt': text('get_llms_txt', 'Markdown index of the API for language models.', 'A short Markdown index of every operation (llmstxt.org), generated from the registry.', 'text/markdown'),
    '/llms-full.txt': text('get_llms_full_txt', 'The complete reference as Markdown.', 'Every operation with its parameters and response fields, as one Markdown file for language models.', 'text/markdown'),
    '/mcp': {
      post: {
        operationId: 'mcp',
        tags: ['meta'],
        summary: 'Stateless MCP tool-protocol endpoint (JSON-RPC 2.0 over streamable HTTP); every operation is a read-only tool of the same name.',
        description:
          'The Model Context Protocol over streamable HTTP, stateless (no session): every REST operation but healthz is a read-only tool of the same name with the same parameters and results; the OpenAPI document, llms-full.txt and the export manifest are resources. Counts against the per-IP budget.',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          200: { description: 'JSON-RPC response object.', headers: RATE_LIMIT_HEADERS, content: { 'application/json': { schema: { type: 'object' } } } },
          202: { description: 'Notification accepted.', headers: RATE_LIMIT_HEADERS },
          400: { description: 'Header mismatch, unsupported protocol version or malformed request, as a JSON-RPC error.', headers: RATE_LIMIT_HEADERS, content: { 'application/json': { schema: { type: 'object' } } } },
          404: { description: 'Unknown JSON-RPC method (-32601).', headers: RATE_LIMIT_HEADERS, content: { 'application/json': { schema: { type: 'object' } } } },
          429: { $ref: '#/components/responses/TooManyRequests' },
        },
      },
    },
  };
}

/** The JSON index `GET /` answers with `Accept: application/json` (facades/http/pages.ts). */
export const SERVICE_INDEX_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'What the service is and where everything lives; every link is an absolute URL.',
  required: ['name', 'description', 'links'],
  properties: {
    name: { type: 'string', description: 'The service name.' },
    description: { type: 'string', description: 'What the service is, in two lines.' },
    links: {
      type: 'object',
      description: 'Where everything lives.',
      required: ['api', 'openapi', 'docs', 'graphql', 'dashboard', 'llms_txt', 'mcp', 'export_manifest'],
      properties: {
        api: { type: 'string', format: 'uri', description: 'The REST API root (a first call: its retailers).' },
        openapi: { type: 'string', format: 'uri', description: 'The OpenAPI 3.1 document.' },
        docs: { type: 'string', format: 'uri', description: 'The API reference, rendered in a browser.' },
        graphql: { type: 'string', format: 'uri', description: 'The GraphQL endpoint (GraphiQL in a browser).' },
        dashboard: { type: 'string', format: 'uri', description: 'The dashboard page.' },
        llms_txt: { type: 'string', format: 'uri', description: 'The Markdown index for language models.' },
        mcp: { type: 'string', format: 'uri', description: 'The MCP endpoint (POST).' },
        export_manifest: { type: 'string', format: 'uri', description: 'The latest nightly export manifest (404 before the first export).' },
      },
    },
  },
};

/** What the service is, in two lines (api-spec "What the service does"). */
export const API_SUMMARY = [
  "Free, keyless, read-only API over the daily online shelf prices of New Zealand's supermarket chains, at every store.",
  'History is kept as price spans; the same item is linked across chains; prices are compared across stores, chains and areas.',
].join('\n');

/** Conventions, limits and licence (api-spec "Global conventions", "Limits"). */
export const API_CONVENTIONS = [
  'Conventions: money is integer New Zealand cents (`price` is the shelf price); days are New Zealand calendar dates `YYYY-MM-DD`;',
  'timestamps are UTC RFC 3339; series are parallel arrays; the national price is the median across the chain\'s reporting stores.',
  'Limits: 300 requests a minute and 10,000 a day per IP across /api/v1, /feeds and /mcp; bulk work uses the nightly exports under /data/latest/.',
  'Data: prices as advertised online; in-store prices may differ. Licence CC BY 4.0: attribute the service and the source retailers.',
].join('\n');

/**
 * Builds the OpenAPI 3.1 document for `ops` served at `baseUrl`.
 * @throws Error when two operations share a method and path, or an operation's params are not an object schema.
 */
export function buildOpenApi(ops: readonly AnyOperation[], baseUrl: string): JsonSchema {
  const schemas: Record<string, JsonSchema> = {};
  const common = commonComponents(schemas);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ops) {
    const item = (paths[op.path] ??= {});
    const method = op.method.toLowerCase();
    if (item[method]) throw new Error(`two operations on ${op.method} ${op.path}`);
    item[method] = pathOperation(op, schemas);
  }
  Object.assign(paths, metaPaths());
  Object.assign(paths, feedOpenApiPaths());
  schemas.ServiceIndex = SERVICE_INDEX_SCHEMA;
  const sorted = Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]]));
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'NZ Grocery Prices API',
      version: '1.0.0',
      summary: 'Daily online shelf prices of New Zealand supermarkets: spans, products, stores.',
      description: `${API_SUMMARY}\n\n${API_CONVENTIONS}`,
      license: { name: 'CC BY 4.0 (data)', identifier: 'CC-BY-4.0' },
      contact: { name: 'NZ Grocery Prices API', url: `${baseUrl}/` },
    },
    servers: [{ url: baseUrl, description: 'This service (PUBLIC_URL, else this machine).' }],
    // Keyless: no operation needs credentials (declared, so clients and linters need not guess).
    security: [],
    tags: tagsOf(paths),
    paths,
    components: { schemas: sorted, ...common },
  };
}
