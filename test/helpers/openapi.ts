/**
 * Response validation against the served OpenAPI 3.1 document: finds the path operation of a
 * request (templated paths such as /api/v1/listings/{id} match /api/v1/listings/42) and checks the
 * body of the response against the schema for its status with Ajv (JSON Schema 2020-12, the dialect
 * of OpenAPI 3.1, with ajv-formats for date, date-time and uri).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

type Json = Record<string, unknown>;

// ajv-formats is CommonJS whose `exports.default` is the plugin; NodeNext types see the namespace.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default;

/** Rewrites local component references to the document registered under `docId`. */
function rebase(node: unknown, docId: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rebase(n, docId));
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${docId}${v}` : rebase(v, docId)]),
  );
}

/** Validates responses of requests against an OpenAPI document. */
export interface ResponseValidator {
  /**
   * Errors of `body` as the response to `method url` with `status` (empty when valid).
   * @throws Error when the document has no operation or no response for the request.
   */
  errors(method: string, url: string, status: number, body: unknown): string[];
  /** Asserts the response is documented and valid. */
  expectValid(method: string, url: string, status: number, body: unknown): void;
  /** `METHOD path` of every operation that has been validated at least once, with its statuses. */
  seen: Map<string, Set<number>>;
}

/** A validator over `doc` (an OpenAPI 3.1 document object). */
export function createResponseValidator(doc: Json): ResponseValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const docId = 'openapi.json';
  ajv.addSchema({ $id: docId, components: rebase((doc as { components: Json }).components, docId) });
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const matchers = Object.keys(paths).map((template) => ({
    template,
    re: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
    literal: !template.includes('{'),
  }));
  const cache = new Map<string, ValidateFunction | null>();
  const seen = new Map<string, Set<number>>();

  function resolve(response: Json): Json {
    const ref = response.$ref;
    if (typeof ref !== 'string') return response;
    const name = ref.split('/').pop() as string;
    return ((doc.components as Json).responses as Record<string, Json>)[name];
  }

  function errors(method: string, url: string, status: number, body: unknown): string[] {
    const pathname = new URL(url, 'http://x').pathname;
    // Literal paths win over templates (as in the router): /api/v1/retailers/compare before {slug}.
    const match = matchers.filter((m) => m.re.test(pathname)).sort((a, b) => Number(b.literal) - Number(a.literal))[0];
    if (!match) throw new Error(`no documented path for ${pathname}`);
    const op = paths[match.template][method.toLowerCase()];
    if (!op) throw new Error(`no ${method} on ${match.template}`);
    const responses = op.responses as Record<string, Json>;
    const response = responses[String(status)];
    if (!response) throw new Error(`${method} ${match.template}: status ${status} is not documented`);
    const key = `${method.toUpperCase()} ${match.template}`;
    (seen.get(key) ?? seen.set(key, new Set()).get(key))?.add(status);
    const content = resolve(response).content as Record<string, { schema: Json }> | undefined;
    if (!content) return body === '' || body === undefined || body === null ? [] : [`${key} ${status}: documented without a body`];
    const cacheKey = `${key} ${status}`;
    let validate = cache.get(cacheKey);
    if (validate === undefined) {
      const schema = Object.values(content)[0]?.schema;
      validate = schema ? ajv.compile(rebase(schema, docId) as Json) : null;
      cache.set(cacheKey, validate);
    }
    if (!validate || validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${key} ${status}: ${e.instancePath || '(root)'} ${e.message}`);
  }

  return {
    errors,
    expectValid(method, url, status, body) {
      expect(errors(method, url, status, body), `${method} ${url} → ${status}`).toEqual([]);
    },
    seen,
  };
}
