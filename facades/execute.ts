/**
 * The one executor: runs an operation's persisted document in-process with `@graphql-tools/executor`
 * (the executor graphql-yoga runs /graphql with: `normalizedExecutor`) against the schema and maps the outcome to an HTTP status and the contract body. Parameter
 * errors are 400 naming the parameter; GraphQL error codes map through src/errors.ts
 * (BAD_REQUEST 400, NOT_FOUND 404, UNAVAILABLE 503); a database outage (connection refused or
 * terminated, a closed pool, Prisma's adapter connection errors: src/errors.ts
 * isDatabaseUnavailable) is a 503 with `Retry-After`, never a 500; anything else is a 500 with a
 * generic message (never a stack trace). Shared by REST and the MCP tools.
 *
 * Every persisted document is parsed and validated against the schema once, at start-up
 * ({@link prepareDocuments}, called first thing by facades/server.ts createServer), so a broken
 * document stops the server from starting instead of failing a request.
 */
import { normalizedExecutor } from '@graphql-tools/executor';
import { Kind, parse, validate, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import { createContext, type ContextSource } from '../src/context.js';
import { isDatabaseUnavailable, RETRY_AFTER_SECONDS, statusForCode } from '../src/errors.js';
import { schema as defaultSchema } from '../src/graph/index.js';
import { findInvalidText } from './graphql/text.js';
import { paramInfo, type AnyOperation } from './operation.js';
import type { ErrorBody } from './resources.js';
import { documentText, operations as registry } from './operations.js';


/** What running an operation produced. */
export interface Outcome {
  /** HTTP status. */
  status: number;
  /** Response media type. */
  contentType: string;
  /** The contract JSON (or text), or an {@link ErrorBody}. */
  body: unknown;
  /** The unexpected error behind a 500 (or the outage behind a 503), for logging (never sent). */
  cause?: unknown;
  /** Extra response headers (`Retry-After` on a 503). */
  headers?: Record<string, string>;
}

/** Runs one operation with raw (string) inputs from path and query. */
export type Executor = (op: AnyOperation, input: Record<string, unknown>) => Promise<Outcome>;

/** Builds the Error body for `status`. */
export function errorBody(status: number, message: string): ErrorBody {
  return { error: { status, message } };
}

const JSON_TYPE = 'application/json; charset=utf-8';

function failure(status: number, message: string, cause?: unknown): Outcome {
  return { status, contentType: JSON_TYPE, body: errorBody(status, message), cause };
}

/** `Invalid parameter "limit": must be at most 100` for every issue, naming each parameter. */
function paramMessage(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length ? `Invalid parameter "${String(i.path[0])}": ${i.message}` : `Invalid parameters: ${i.message}`))
    .join('; ');
}

/**
 * The message for parameters given more than once that take one value (`?limit=1&limit=2`), or
 * null. Repeatable parameters (array schemas, e.g. browse_retailer `c`) may repeat.
 */
function repeatedMessage(input: Record<string, unknown>, single: ReadonlySet<string>): string | null {
  const repeated = Object.keys(input).filter((k) => single.has(k) && Array.isArray(input[k]));
  return repeated.length ? repeated.map((k) => `Invalid parameter "${k}": must be given once`).join('; ') : null;
}

/** Message of a 503 for an unreachable database. */
export const UNAVAILABLE_MESSAGE = 'Service unavailable: the database cannot be reached; retry shortly';

/** The 503 outcome for a database outage, with `Retry-After`. */
export function unavailable(cause?: unknown): Outcome {
  return { ...failure(503, UNAVAILABLE_MESSAGE, cause), headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } };
}

function outcomeOfErrors(errors: readonly GraphQLError[]): Outcome {
  // An outage anywhere in the result makes the whole answer a 503 (a partial body would be wrong).
  const outage = errors.find((e) => e.extensions?.code === 'UNAVAILABLE' || isDatabaseUnavailable(e.originalError));
  if (outage) return unavailable(outage.originalError ?? outage);
  for (const e of errors) {
    const status = statusForCode(e.extensions?.code);
    if (status !== null) return failure(status, e.message);
  }
  return failure(500, 'Internal server error', errors[0]?.originalError ?? errors[0]);
}

/** Documents already prepared for a schema, by operation name (each is parsed and validated once). */
const prepared = new WeakMap<GraphQLSchema, Map<string, DocumentNode>>();

/** The problem with `doc` as the persisted document of operation `name`, or null when it is fine. */
function documentProblem(name: string, doc: DocumentNode, schema: GraphQLSchema): string | null {
  const errors = validate(schema, doc);
  if (errors.length) return errors.map((e) => e.message).join('; ');
  const ops = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (ops.length !== 1 || ops[0].operation !== 'query' || ops[0].name?.value !== name) {
    return `must hold exactly one operation, \`query ${name}\``;
  }
  return null;
}

/**
 * Parses and validates every operation document once (per schema; later calls reuse the result).
 * @param text the document text of an operation (default: its persisted document, {@link documentText})
 * @throws Error listing every operation whose document is missing or invalid against `schema`:
 *   `Invalid operation documents:` then one `<name>: <problem>` line each.
 */
export function prepareDocuments(
  ops: readonly AnyOperation[],
  schema: GraphQLSchema = defaultSchema,
  text: (name: string) => string = documentText,
): Map<string, DocumentNode> {
  const cache = text === documentText ? (prepared.get(schema) ?? new Map<string, DocumentNode>()) : new Map<string, DocumentNode>();
  const docs = new Map<string, DocumentNode>();
  const problems: string[] = [];
  for (const op of ops) {
    const known = cache.get(op.name);
    if (known) {
      docs.set(op.name, known);
      continue;
    }
    try {
      const doc = parse(text(op.name));
      const problem = documentProblem(op.name, doc, schema);
      if (problem) problems.push(`${op.name}: ${problem}`);
      else docs.set(op.name, doc);
    } catch (e) {
      problems.push(`${op.name}: ${(e as Error).message}`);
    }
  }
  if (problems.length) throw new Error(`Invalid operation documents:\n  ${problems.join('\n  ')}`);
  for (const [name, doc] of docs) cache.set(name, doc);
  if (text === documentText) prepared.set(schema, cache);
  return docs;
}

/**
 * An executor over `db`. Each call gets a fresh context (fresh dataloader caches).
 * @throws at creation when an operation document is missing or invalid.
 */
export function createExecutor(
  db: ContextSource,
  opts: { schema?: GraphQLSchema; operations?: readonly AnyOperation[] } = {},
): Executor {
  const schema = opts.schema ?? defaultSchema;
  const ops = opts.operations ?? registry;
  const docs = prepareDocuments(ops, schema);
  const singleValued = new Map(ops.map((op) => [op.name, new Set(paramInfo(op).filter((p) => !p.repeatable).map((p) => p.name))]));
  return async (op, input) => {
    const document = docs.get(op.name);
    if (!document) return failure(500, 'Internal server error', new Error(`unregistered operation ${op.name}`));
    const repeated = repeatedMessage(input, singleValued.get(op.name) ?? new Set());
    if (repeated) return failure(400, repeated);
    const parsed = op.params.safeParse(input);
    if (!parsed.success) return failure(400, paramMessage(parsed.error));
    const variableValues = op.variables(parsed.data);
    // Backstop: the parameter schemas refuse such text already (optionalText, requiredText).
    const invalid = findInvalidText(variableValues, op.name);
    if (invalid) return failure(400, `Invalid parameter "${invalid.path.split('.').pop()}": ${invalid.reason}`);
    try {
      const result = await normalizedExecutor({ schema, document, operationName: op.name, variableValues, contextValue: createContext(db) });
      // The schema defines no @defer/@stream, so a query answers once, never as a stream.
      if (Symbol.asyncIterator in result) return failure(500, 'Internal server error', new Error(`${op.name} answered a stream`));
      if (result.errors?.length) return outcomeOfErrors(result.errors);
      return { status: 200, contentType: op.contentType ?? JSON_TYPE, body: op.shape(result.data, parsed.data) };
    } catch (e) {
      return isDatabaseUnavailable(e) ? unavailable(e) : failure(500, 'Internal server error', e);
    }
  };
}
