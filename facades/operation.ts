/**
 * What one operation is (DESIGN "one operation registry"): a persisted GraphQL document
 * `schema/operations/<name>.graphql` plus this description. The same entry drives the REST route,
 * and later the MCP tool and the OpenAPI document. Also the zod helpers that turn path and query
 * strings into typed parameters with the contract's defaults and bounds.
 */
import { z } from 'zod';

/** Largest id a GraphQL `Int` (32-bit) can carry. */
export const MAX_ID = 2_147_483_647;

/**
 * One operation of the public API.
 * @typeParam P zod schema of the parameters (path and query merged, values as strings before coercion)
 * @typeParam D the GraphQL `data` of the persisted document
 * @typeParam R the contract JSON that `shape` returns
 */
export interface Operation<P extends z.ZodType = z.ZodType, D = unknown, R = unknown> {
  /** Operation name (api-spec), also the document's file and operation name and the tool name. */
  name: string;
  /** One line for documentation and tool listings. */
  summary: string;
  /** Further rules for documentation (Markdown): ordering, empty results, edge cases. */
  description?: string;
  method: 'GET';
  /** Absolute path, parameters in braces as in the contract: `/api/v1/listings/{id}`. */
  path: string;
  /** Parameters from path and query, coerced from strings, with defaults and bounds. */
  params: P;
  /** GraphQL variables for the document from validated parameters. */
  variables(params: z.output<P>): Record<string, unknown>;
  /**
   * zod schema of the 200 body (the contract resource); drives the OpenAPI response schema, the MCP
   * tool's outputSchema and the response validation of the tests.
   */
  result: z.ZodType;
  /**
   * Error statuses the operation itself can answer besides 400 for bad parameters (e.g. 404 for
   * an unknown id). 400 is documented for every operation with parameters, 429 for every budgeted
   * path, by the generators.
   */
  errors?: readonly (404 | 503)[];
  /** Pure: the GraphQL result data → the contract JSON. */
  shape(data: D, params: z.output<P>): R;
  /** Response media type (default application/json; healthz answers text/plain). */
  contentType?: 'application/json' | 'text/plain; charset=utf-8';
  /** Documented, but not exposed as an MCP tool (healthz; suggest, which api-spec leaves out of the tools). */
  internal?: boolean;
}

/** An operation of any parameter, data and result types (for registries and executors). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<z.ZodType, any, unknown>;

/** Identity with type inference: declares an operation entry. */
export function defineOperation<P extends z.ZodType, D, R>(op: Operation<P, D, R>): Operation<P, D, R> {
  return op;
}

const blankToUndefined = (v: unknown) => (v === '' ? undefined : v);

/**
 * An integer written in plain decimal digits: no sign, no spaces, no leading zeros (` 5`, `+5`,
 * `007`, `5.0` and `1e3` are refused rather than guessed at).
 */
const INTEGER_TEXT = /^(0|[1-9][0-9]*)$/;

/** The message of a refused integer. */
const NOT_DIGITS = 'must be an integer written in digits';

/**
 * Query/path text → number when it is an integer in digits (beyond 2^53 → a number past every
 * bound, so the bound's message applies); '' → absent; other values unchanged (refused by the
 * schema).
 */
function toInteger(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (v === '') return undefined;
  if (!INTEGER_TEXT.test(v)) return v;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : Number.MAX_SAFE_INTEGER;
}

/** An integer in [min, max] whose every failure says so in words ("must be an integer written in digits", bounds). */
function boundedInt(min: number, max: number) {
  return z
    .int({ error: (issue) => (issue.input === undefined ? 'is required' : typeof issue.input === 'string' ? NOT_DIGITS : 'must be an integer') })
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
}

/** Whether text holds no unpaired UTF-16 surrogate (not Unicode text; the database would get U+FFFD). */
const wellFormed = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

/**
 * Optional text parameter of at most `max` characters (Unicode code points, as JSON Schema's
 * maxLength counts); an empty value counts as absent; a NUL character (which no PostgreSQL text can
 * hold) is refused.
 */
export function optionalText(max: number, description?: string) {
  const schema = z.preprocess(
    blankToUndefined,
    z
      .string({ error: 'must be text' })
      .max(max, `must be at most ${max} characters`)
      .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters')
      .refine(wellFormed, 'must be valid Unicode text')
      .optional(),
  );
  return description ? schema.describe(description) : schema;
}

/** Required text parameter of 1 to `max` characters (code points); NUL refused as in {@link optionalText}. */
export function requiredText(max: number, description?: string) {
  const schema = z.preprocess(
    blankToUndefined,
    z
      .string({ error: (issue) => (issue.input === undefined ? `is required (1 to ${max} characters)` : 'must be text') })
      .max(max, `must be at most ${max} characters`)
      .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters')
      .refine(wellFormed, 'must be valid Unicode text'),
  );
  return description ? schema.describe(description) : schema;
}

/**
 * Integer parameter (digits, or a number from MCP) within [min, max], with a default when absent
 * or empty. "1.5", "1e3", "12abc", " 5", "+5" or "007" → "must be an integer written in digits".
 */
export function intWithDefault(min: number, max: number, fallback: number, description?: string) {
  const schema = z.preprocess(toInteger, boundedInt(min, max).default(fallback));
  return description ? schema.describe(description) : schema;
}

/** Required integer id from the path (1 to {@link MAX_ID}). */
export const idParam = z.preprocess(toInteger, boundedInt(1, MAX_ID));

/** A lowercase enum parameter (input compared case-insensitively); absent or empty means none. */
export function optionalEnum<const T extends readonly [string, ...string[]]>(values: T, description?: string) {
  const schema = z.preprocess(
    (v) => (typeof v === 'string' ? blankToUndefined(v.toLowerCase()) : v),
    z.enum(values, { error: `must be one of ${values.join(', ')}` }).optional(),
  );
  return description ? schema.describe(description) : schema;
}

/** One parameter of an operation as the generators see it (api-spec endpoint tables). */
export interface ParamInfo {
  name: string;
  /** `path` when the operation's path names it in braces, else `query`. */
  in: 'path' | 'query';
  required: boolean;
  /** JSON Schema (2020-12) of the accepted input: type, bounds, default, enum, maxLength. */
  schema: Record<string, unknown>;
  /** Whether the parameter may be repeated (an array schema, e.g. browse_retailer `c`). */
  repeatable: boolean;
  description?: string;
}

/**
 * The parameters of `op`, in declaration order, from the JSON Schema of its input.
 * @throws Error when `op.params` is not an object schema.
 */
export function paramInfo(op: AnyOperation): ParamInfo[] {
  const json = z.toJSONSchema(op.params, { io: 'input', unrepresentable: 'any' }) as {
    type?: string;
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  if (json.type !== 'object') throw new Error(`${op.name}: params must be an object schema`);
  const pathNames = new Set([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
  return Object.entries(json.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema as { description?: string; type?: unknown };
    return {
      name,
      in: pathNames.has(name) ? 'path' : 'query',
      required: pathNames.has(name) || (json.required ?? []).includes(name),
      schema: rest,
      repeatable: rest.type === 'array',
      ...(typeof description === 'string' ? { description } : {}),
    } satisfies ParamInfo;
  });
}
