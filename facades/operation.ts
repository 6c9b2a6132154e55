/**
 * What one operation is (DESIGN "one operation registry"): a persisted GraphQL document
 * `schema/operations/<name>.graphql` plus this description. The same entry drives the REST route,
 * the MCP tool, the OpenAPI document and llms.txt. Its types come from the document: `variables`
 * must build the document's generated variables type and `shape` receives the document's generated
 * result type (facades/generated/operations.ts, `npm run codegen`) and must return the contract
 * type of `result`, so the compiler rejects reading a field the document does not select. Also the
 * zod helpers that turn path and query strings into typed parameters with the contract's defaults
 * and bounds.
 */
import { z } from 'zod';
import type { OperationTypes } from './generated/operations.js';
import { MAX_INT, RADIUS_KM } from '../src/domain/limits.js';
/** Largest id a GraphQL `Int` (32-bit) can carry (src/domain/limits.ts MAX_INT). */
export const MAX_ID = MAX_INT;


/**
 * How much an operation costs the database, for the concurrency bounds of facades/concurrency.ts
 * (each family runs a few requests at once, well below the pool's ten connections):
 * - `search`: ranked text search over the catalogue (search_products, search_listings, suggest);
 *   a new `q` each time, so the response cache rarely helps;
 * - `heavy`: the operations that scan most — comparisons and levels across chains, the basket,
 *   shopping lists, a store's listings, browsing a shelf or a chain, deals, the chains' counts
 *   (about 100 ms to 2 s each uncached on the national SYNTHETIC panel, docs/benchmarks.md);
 * - `light`: the rest, key lookups and small views (a few to tens of ms there);
 * - `probe`: healthz alone, never bounded: it says whether the database answers, so a saturated
 *   family must not turn it into a 503 (the contract's healthz is 503 only for an unreachable
 *   database); it costs one `SELECT 1` within the pool's own bounds.
 */
export type OperationFamily = 'light' | 'search' | 'heavy' | 'probe';

/** The name of a persisted document (one per file in schema/operations/). */
export type DocumentName = keyof OperationTypes;

/** The generated `data` type of the persisted document `N` (`unknown` for a name with no document). */
export type ResultOf<N extends string> = N extends DocumentName ? OperationTypes[N]['result'] : unknown;

/** The generated variables type of the persisted document `N` (any object for a name with no document). */
export type VariablesOf<N extends string> = N extends DocumentName ? OperationTypes[N]['variables'] : Record<string, unknown>;

/** The value of the one root field of `D`, or `never` when `D` has none or several. */
type SoleField<D> = keyof D extends infer K ? (K extends keyof D ? ([keyof D] extends [K] ? D[K] : never) : never) : never;

/** Whether the document's one root field already is the contract type (then `shape` may be left out). */
type RootIsContract<N extends string, R extends z.ZodType> = [SoleField<ResultOf<N>>] extends [never]
  ? false
  : [SoleField<ResultOf<N>>] extends [z.output<R>]
    ? true
    : false;

/**
 * The parts of an operation that do not depend on how it is shaped.
 * @typeParam N operation name = document file and operation name = MCP tool name
 * @typeParam P zod schema of the parameters (path and query merged, values as strings before coercion)
 * @typeParam R zod schema of the contract JSON (the 200 body)
 */
interface OperationBase<N extends string, P extends z.ZodType, R extends z.ZodType> {
  /** Operation name (api-spec), also the document's file and operation name and the tool name. */
  name: N;
  /** One line for documentation and tool listings. */
  summary: string;
  /** Further rules for documentation (Markdown): ordering, empty results, edge cases. */
  description?: string;
  method: 'GET';
  /** Its concurrency family (see {@link OperationFamily}). */
  family: OperationFamily;
  /** Absolute path, parameters in braces as in the contract: `/api/v1/listings/{id}`. */
  path: string;
  /** Parameters from path and query, coerced from strings, with defaults and bounds. */
  params: P;
  /** GraphQL variables for the document (its generated variables type) from validated parameters. */
  variables(params: z.output<P>): VariablesOf<N>;
  /**
   * zod schema of the 200 body (the contract resource); drives the OpenAPI response schema, the MCP
   * tool's outputSchema and the response validation of the tests.
   */
  result: R;
  /**
   * Error statuses the operation itself can answer besides 400 for bad parameters (e.g. 404 for
   * an unknown id). 400 is documented for every operation with parameters, 429 for every budgeted
   * path, by the generators.
   */
  errors?: readonly (404 | 503)[];
  /** Response media type (default application/json; healthz answers text/plain). */
  contentType?: 'application/json' | 'text/plain; charset=utf-8';
  /** Documented, but not exposed as an MCP tool (healthz; suggest, which api-spec leaves out of the tools). */
  internal?: boolean;
  /**
   * Set on an operation this service adds beyond api-spec (the contract's shapes stay unchanged):
   * the issue that asked for it, e.g. `'issue 16'`. OpenAPI marks it `x-beyond-contract` and tags
   * it `beyond-contract`; llms.txt says so beside its line.
   */
  beyondContract?: string;
}

/**
 * One operation of the public API, as the registry holds it: `shape` is always present (the
 * document's one root field when the entry left it out).
 */
export interface Operation<N extends string = string, P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType>
  extends OperationBase<N, P, R> {
  /** Pure: the document's result data → the contract JSON. */
  shape(data: ResultOf<N>, params: z.output<P>): z.output<R>;
}

/**
 * Any operation: what the registry list, the executor and the generators take. Each entry keeps
 * its own types where it is defined ({@link defineOperation}) and in facades/operations.ts
 * `registry`; consumers only pass data through `shape`, so they need none of them.
 */
export type AnyOperation = Operation;

/** The shaper an entry writes: its document's exact result type in, its contract type out. */
type Shaper<N extends string, P extends z.ZodType, R extends z.ZodType> = (data: ResultOf<N>, params: z.output<P>) => z.output<R>;

/**
 * `shape` is optional exactly when the document has one root field whose generated type already
 * is the contract type (then the body is that field); otherwise it is required.
 */
type ShapeOf<N extends string, P extends z.ZodType, R extends z.ZodType> =
  RootIsContract<N, R> extends true ? { shape?: Shaper<N, P, R> } : { shape: Shaper<N, P, R> };

/** The body of a document with one root field: that field's value. */
function soleRootField(data: unknown): never {
  const values = Object.values(data as Record<string, unknown>);
  if (values.length !== 1) throw new Error(`expected one root field, got ${values.length}`);
  return values[0] as never;
}

/**
 * Declares an operation entry with its types inferred from its name: `variables` must return the
 * document's variables type and `shape` gets the document's result type and must return the
 * contract type of `result`. Leave `shape` out when the document's one root field already is the
 * contract resource.
 */
export function defineOperation<const N extends string, P extends z.ZodType, R extends z.ZodType>(
  op: OperationBase<N, P, R> & ShapeOf<N, P, R>,
): Operation<N, P, R> {
  const shape = (op as { shape?: Shaper<N, P, R> }).shape ?? soleRootField;
  return { ...op, shape };
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

/** A decimal number in plain digits (`-36.85`, `174.76`, `10`); no exponent, no sign but `-`. */
const DECIMAL_TEXT = /^-?(0|[1-9][0-9]{0,5})(\.[0-9]{1,12})?$/;

/** An optional decimal parameter within [min, max]: digits (REST) or a number (MCP); empty means absent. */
export function optionalDecimal(min: number, max: number, description: string) {
  return z
    .preprocess(
      (v) => (typeof v !== 'string' ? v : v === '' ? undefined : DECIMAL_TEXT.test(v) ? Number(v) : v),
      z
        .number({ error: 'must be a decimal number written in digits, like -36.85' })
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max}`)
        .optional(),
    )
    .describe(description);
}

/**
 * The point parameters `lat`, `lng` (WGS84 degrees, −90 to 90 and −180 to 180) and `radius_km`
 * (kilometres, great-circle; default and bounds {@link RADIUS_KM}) shared by plan_shopping_list
 * and list_stores; `within` says what the radius keeps. Check them with {@link refinePoint}.
 */
export function pointParams(within: string) {
  return {
    lat: optionalDecimal(-90, 90, `Latitude of the shopper, WGS84 degrees (with lng): ${within}`),
    lng: optionalDecimal(-180, 180, 'Longitude of the shopper, WGS84 degrees (with lat).'),
    radius_km: optionalDecimal(
      RADIUS_KM.min,
      RADIUS_KM.max,
      `Kilometres (great-circle) around lat/lng, default ${RADIUS_KM.default}; only with lat and lng.`,
    ),
  };
}

/**
 * The rules of {@link pointParams} across parameters: `lat` and `lng` come together (the absent one
 * is named), and `radius_km` only with them.
 */
export function refinePoint(p: { lat?: number; lng?: number; radius_km?: number }, ctx: z.RefinementCtx): void {
  if (p.lat !== undefined && p.lng === undefined) ctx.addIssue({ code: 'custom', path: ['lng'], message: 'is required with lat' });
  if (p.lng !== undefined && p.lat === undefined) ctx.addIssue({ code: 'custom', path: ['lat'], message: 'is required with lng' });
  if (p.radius_km !== undefined && p.lat === undefined && p.lng === undefined) {
    ctx.addIssue({ code: 'custom', path: ['radius_km'], message: 'needs lat and lng' });
  }
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
