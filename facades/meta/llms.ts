/**
 * `/llms.txt` (a Markdown index in the llmstxt.org layout: title, summary block, sections of links)
 * and `/llms-full.txt` (the complete reference as Markdown), generated from the operation registry
 * through the OpenAPI document, so both always say what the API does.
 */
import { paramInfo, type AnyOperation } from '../operation.js';
import { API_CONVENTIONS, API_SUMMARY, isBudgeted, type JsonSchema } from './openapi.js';
import { FEEDS, FEEDS_ABOUT } from '../http/feeds.js';

const REF = '#/components/schemas/';

/** A short type name of a JSON Schema node: `ListingCard[]`, `integer or null`, `Day`. */
export function typeName(node: JsonSchema | undefined): string {
  if (!node) return 'any';
  if (typeof node.$ref === 'string') return node.$ref.startsWith(REF) ? node.$ref.slice(REF.length) : node.$ref;
  const anyOf = node.anyOf as JsonSchema[] | undefined;
  if (anyOf) {
    const parts = anyOf.map((n) => (n.type === 'null' ? 'null' : typeName(n)));
    const nonNull = parts.filter((p) => p !== 'null');
    const joined = nonNull.join(' | ');
    return parts.includes('null') ? `${joined} or null` : joined;
  }
  if (Array.isArray(node.type)) {
    const types = node.type as string[];
    const base = typeName({ ...node, type: types.find((t) => t !== 'null') });
    return types.includes('null') ? `${base} or null` : base;
  }
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (Array.isArray(node.enum)) return node.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (node.type === 'array' && Array.isArray(node.prefixItems)) {
    // A tuple (Compare's [level, items] pairs): its positions' types in brackets.
    return `[${(node.prefixItems as JsonSchema[]).map((n) => typeName(n)).join(', ')}]`;
  }
  if (node.type === 'array') {
    const item = typeName(node.items as JsonSchema | undefined);
    return item.includes(' ') ? `(${item})[]` : `${item}[]`;
  }
  if (node.type === 'object') {
    if (node.additionalProperties && typeof node.additionalProperties === 'object') {
      return `object of ${typeName(node.additionalProperties as JsonSchema)}`;
    }
    return Object.keys((node.properties as object | undefined) ?? {}).length ? 'object' : '{} (empty object)';
  }
  if (typeof node.format === 'string') return `${String(node.type)} (${node.format})`;
  return typeof node.type === 'string' ? node.type : 'any';
}

/** Bounds and defaults of a parameter schema in words: `1 to 100, default 20`. */
function rules(schema: JsonSchema): string {
  const out: string[] = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined) out.push(`${schema.minimum} to ${schema.maximum}`);
  else if (schema.minimum !== undefined) out.push(`at least ${schema.minimum}`);
  else if (schema.maximum !== undefined) out.push(`at most ${schema.maximum}`);
  if (schema.maxLength !== undefined) out.push(`at most ${schema.maxLength} characters`);
  if (Array.isArray(schema.enum)) out.push(`one of ${schema.enum.join(', ')}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  return out.join('; ');
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A field table of a named object schema, or a one-line description for other shapes. */
function schemaSection(id: string, schema: JsonSchema): string {
  const lines = [`### ${id}`, ''];
  if (typeof schema.description === 'string') lines.push(schema.description, '');
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (schema.type === 'object' && props) {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    lines.push('| Field | Type | Notes |', '|---|---|---|');
    for (const [name, node] of Object.entries(props)) {
      const notes = [required.has(name) ? 'always present' : 'optional', typeof node.description === 'string' ? node.description : '']
        .filter(Boolean)
        .join('; ');
      lines.push(`| ${name} | ${cell(typeName(node))} | ${cell(notes)} |`);
    }
  } else {
    lines.push(`Type: ${typeName(schema)}${rules(schema) ? ` (${rules(schema)})` : ''}.`);
  }
  return lines.join('\n');
}

/** The example URL of an operation: path ids as 1, no query. */
function exampleUrl(op: AnyOperation, baseUrl: string): string {
  return baseUrl + op.path.replace(/\{\w+\}/g, '1');
}

/** The operation's 200 type from the OpenAPI document. */
function resultType(openapi: JsonSchema, op: AnyOperation): string {
  const paths = openapi.paths as Record<string, Record<string, JsonSchema>>;
  const ok = (paths[op.path]?.[op.method.toLowerCase()]?.responses as Record<string, JsonSchema>)[200];
  const content = ok.content as Record<string, { schema: JsonSchema }>;
  return typeName(Object.values(content)[0]?.schema);
}

/** Error statuses an operation can answer, from the OpenAPI document. */
function errorStatuses(openapi: JsonSchema, op: AnyOperation): string[] {
  const paths = openapi.paths as Record<string, Record<string, JsonSchema>>;
  return Object.keys(paths[op.path]?.[op.method.toLowerCase()]?.responses as object).filter((s) => s !== '200');
}

/**
 * The llms.txt index: title, summary, conventions and one link per operation, then the reference
 * documents.
 */
export function buildLlmsTxt(ops: readonly AnyOperation[], baseUrl: string): string {
  const lines = [
    '# NZ Grocery Prices API',
    '',
    "> Free, keyless, read-only JSON API over the daily online shelf prices of New Zealand's supermarket chains at every store, with price history as spans. REST under /api/v1, GraphQL at /graphql, MCP tools at POST /mcp. Data licence CC BY 4.0.",
    '',
    API_CONVENTIONS,
    '',
    '## Operations',
    '',
    ...ops.map((op) => {
      const params = paramInfo(op).map((p) => (p.in === 'path' ? `{${p.name}}` : p.name));
      const tool = (op.internal ? '' : ' (also an MCP tool)') + (op.beyondContract ? ' (beyond the contract)' : '');
      return `- [${op.name}](${baseUrl}/llms-full.txt#${op.name}): ${op.method} ${op.path}${params.length ? ` — params: ${params.join(', ')}` : ''}. ${op.summary}${tool}`;
    }),
    '',
    '## Feeds',
    '',
    FEEDS_ABOUT,
    '',
    ...FEEDS.map((f) => `- ${baseUrl}${f.path}${f.query.length ? `?${f.query.map((q) => `${q.name}=`).join('&')}` : ''}: ${f.summary}`),
    '',
    '## Reference',
    '',
    `- [Full reference](${baseUrl}/llms-full.txt): every operation's parameters, responses and resource fields`,
    `- [OpenAPI 3.1](${baseUrl}/openapi.json): also as [YAML](${baseUrl}/openapi.yaml)`,
    `- [MCP endpoint](${baseUrl}/mcp): POST, stateless; each operation above is a read-only tool of the same name`,
    '',
    '## Optional',
    '',
    `- [GraphQL](${baseUrl}/graphql): the graph behind every operation, with GraphiQL`,
    '',
  ];
  return lines.join('\n');
}

/** The complete Markdown reference: conventions, errors, limits, every operation, every resource. */
export function buildLlmsFullTxt(ops: readonly AnyOperation[], baseUrl: string, openapi: JsonSchema): string {
  const out: string[] = [
    '# NZ Grocery Prices API — full reference',
    '',
    API_SUMMARY,
    '',
    API_CONVENTIONS,
    '',
    `Base URL: ${baseUrl}. Responses carry \`Cache-Control: public, max-age=300\` (errors other than 400 and 404: \`no-store\`); CORS is open; there are no keys, tokens or cookies.`,
    '',
    '## Errors',
    '',
    'Errors use one JSON body: `{"error": {"status": 400, "message": "Invalid parameter \\"limit\\": must be at most 100"}}`.',
    '400: a parameter is malformed or out of range (the message names it). 404: no such thing. 429: the per-IP budget is exceeded;',
    'the response has `Retry-After` (seconds) and `error.bulk_data`, the export manifest to use instead of crawling.',
    '405: the path exists with other methods (see `Allow`). 503: the database is unreachable for a moment; retry after `Retry-After` seconds.',
    '',
    '## Limits',
    '',
    'Per client IP, across /api/v1/*, /feeds/* and /mcp together: 300 requests a minute and 10,000 a day. Every such response carries',
    '`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (the tighter window) and `RateLimit-Policy` (both windows).',
    'Query text `q` is at most 100 characters. Export files under /data/latest/ are not rate limited.',
    '',
    '## Operations',
    '',
  ];
  for (const op of ops) {
    const params = paramInfo(op);
    out.push(`### ${op.name}`, '', `\`${op.method} ${op.path}\` — ${op.summary}`, '');
    if (op.description) out.push(op.description, '');
    if (op.beyondContract) out.push(`Beyond the contract: an addition of this service (${op.beyondContract}); the contract's resources are unchanged.`, '');
    if (params.length) {
      out.push('| Parameter | In | Type | Required | Rules | Notes |', '|---|---|---|---|---|---|');
      for (const p of params) {
        out.push(`| ${p.name} | ${p.in} | ${cell(typeName(p.schema))}${p.repeatable ? ' (repeat the parameter)' : ''} | ${p.required ? 'yes' : 'no'} | ${cell(rules(p.schema))} | ${cell(p.description ?? '')} |`);
      }
      out.push('');
    } else {
      out.push('No parameters.', '');
    }
    out.push(`Returns: \`${resultType(openapi, op)}\` (200). Other statuses: ${errorStatuses(openapi, op).join(', ') || 'none'}.`);
    out.push(op.internal ? 'Not an MCP tool.' : `MCP tool: \`${op.name}\`, same JSON result.`);
    out.push('', `Example: \`curl '${exampleUrl(op, baseUrl)}'\``, '');
    if (isBudgeted(op.path)) out.push('Counts against the per-IP budget.', '');
  }
  out.push('## Feeds', '', FEEDS_ABOUT, '');
  for (const f of FEEDS) out.push(`- \`GET ${f.path}\` — ${f.summary}${f.query.length ? ` Query: ${f.query.map((q) => `\`${q.name}\` (${q.description})`).join(', ')}.` : ''}`);
  out.push('');
  out.push('## Resources', '');
  const schemas = ((openapi.components as JsonSchema).schemas ?? {}) as Record<string, JsonSchema>;
  for (const [id, schema] of Object.entries(schemas)) out.push(schemaSection(id, schema), '');
  return out.join('\n');
}
