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
      BadRequest: { description: 'A parameter is malformed or out of range; the message names it.', headers: RATE_LIMIT_HEADERS, content: error },
      NotFound: { description: 'No such thing.', headers: RATE_LIMIT_HEADERS, content: error },
      NotModified: { description: 'Not modified: If-None-Match matched the ETag. No body.', headers: RATE_LIMIT_HEADERS },
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
      ...(budgeted ? { headers: { ...RATE_LIMIT_HEADERS, ETag: { description: 'Entity tag of the body, for If-None-Match.', schema: { type: 'string' } } } } : {}),
      content: { [media]: { schema: schemaFor(op.result, schemas) } },
    },
  };
  if (budgeted) responses[304] = { $ref: '#/components/responses/NotModified' };
  if (params.length) responses[400] = { $ref: '#/components/responses/BadRequest' };
  if (op.errors?.includes(404)) responses[404] = { $ref: '#/components/responses/NotFound' };
  if (budgeted) responses[429] = { $ref: '#/components/responses/TooManyRequests' };
  // Every operation reads the database, so any may meet an outage (facades/execute.ts maps it to 503).
  responses[503] = { $ref: '#/components/responses/Unavailable' };
  return {
    operationId: op.name,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
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

/** Routes that are not operations but are part of the public surface (api-spec "Meta"). */
function metaPaths(): Record<string, unknown> {
  const text = (description: string, media: string) => ({
    get: { tags: ['meta'], summary: description, responses: { 200: { description, content: { [media]: { schema: { type: 'string' } } } } } },
  });
  return {
    '/openapi.json': {
      get: { tags: ['meta'], summary: 'This OpenAPI 3.1 description.', responses: { 200: { description: 'The OpenAPI document.', content: { 'application/json': { schema: { type: 'object' } } } } } },
    },
    '/openapi.yaml': text('This OpenAPI 3.1 description as YAML.', 'application/yaml'),
    '/llms.txt': text('Markdown index of the API for language models.', 'text/markdown'),
    '/llms-full.txt': text('The complete reference as Markdown.', 'text/markdown'),
    '/mcp': {
      post: {
        tags: ['meta'],
        summary: 'Stateless MCP tool-protocol endpoint (JSON-RPC 2.0 over streamable HTTP); every operation is a read-only tool of the same name.',
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

/** What the service is, in two lines (api-spec "What the service does"). */
export const API_SUMMARY = [
  "Free, keyless, read-only API over the daily online shelf prices of New Zealand's supermarket chains, at every store.",
  'History is kept as price spans; the same item is linked across chains; prices are compared across stores, chains and areas.',
].join('\n');

/** Conventions, limits and licence (api-spec "Global conventions", "Limits"). */
export const API_CONVENTIONS = [
  'Conventions: money is integer New Zealand cents (`price` is the shelf price); days are New Zealand calendar dates `YYYY-MM-DD`;',
  'timestamps are UTC RFC 3339; series are parallel arrays; the national price is the median across the chain\'s reporting stores.',
  'Limits: 300 requests a minute and 10,000 a day per IP across /api/v1 and /mcp; bulk work uses the nightly exports under /data/latest/.',
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
    },
    servers: [{ url: baseUrl }],
    paths,
    components: { schemas: sorted, ...common },
  };
}
