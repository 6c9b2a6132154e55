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
  result?: z.ZodType;
  /** Pure: the GraphQL result data → the contract JSON. */
  shape(data: D, params: z.output<P>): R;
  /** Response media type (default application/json; healthz answers text/plain). */
  contentType?: 'application/json' | 'text/plain; charset=utf-8';
  /** Not exposed as a tool nor listed in the API description (meta routes such as healthz). */
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

/** Optional text parameter of at most `max` characters; an empty value counts as absent. */
export function optionalText(max: number) {
  return z.preprocess(blankToUndefined, z.string().max(max, `must be at most ${max} characters`).optional());
}

/** Integer parameter from a string, within [min, max], with a default when absent or empty. */
export function intWithDefault(min: number, max: number, fallback: number) {
  return z.preprocess(blankToUndefined, z.coerce.number().int().min(min).max(max).default(fallback));
}

/** Required integer id from the path (1 to {@link MAX_ID}). */
export const idParam = z.coerce.number().int().min(1).max(MAX_ID);

/** A lowercase enum parameter (input compared case-insensitively); absent or empty means none. */
export function optionalEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess((v) => (typeof v === 'string' ? blankToUndefined(v.toLowerCase()) : v), z.enum(values).optional());
}
