/**
 * Typed errors of the read API. Each carries a machine-readable code in GraphQL `extensions.code`;
 * the facade executor (facades/execute.ts) maps the code to an HTTP status. They extend
 * GraphQLError so GraphQL Yoga shows their message instead of masking it.
 */
import { GraphQLError } from 'graphql';
import type { Bounds } from './domain/limits.js';

/** Codes an error may carry in `extensions.code`, with the HTTP status each maps to. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  /** An argument GraphQL accepted by type but whose value is refused (e.g. text holding NUL). */
  BAD_USER_INPUT: 400,
  NOT_FOUND: 404,
  UNAVAILABLE: 503,
} as const;

/** A code in {@link ERROR_STATUS}. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Base class: an expected error whose message is safe to show to a caller. */
export class AppError extends GraphQLError {
  /** @param code the `extensions.code` (see {@link ERROR_STATUS}). */
  constructor(
    message: string,
    readonly code: ErrorCode,
  ) {
    super(message, { extensions: { code } });
    this.name = new.target.name;
  }
}

/** A parameter is malformed or out of range, or names an unknown retailer (HTTP 400). */
export class BadRequest extends AppError {
  constructor(message: string) {
    super(message, 'BAD_REQUEST');
  }
}

/**
 * An integer parameter within `bounds`: `value`, or `bounds.default` when it is absent.
 * @throws BadRequest unless it is an integer from `bounds.min` to `bounds.max`.
 */
export function checkedInt(name: string, value: number | null | undefined, bounds: Bounds): number {
  const n = value ?? bounds.default;
  if (!Number.isInteger(n) || n < bounds.min || n > bounds.max) {
    throw new BadRequest(`Invalid parameter "${name}": must be an integer from ${bounds.min} to ${bounds.max}`);
  }
  return n;
}

/** No such thing: unknown listing, product, store (HTTP 404). */
export class NotFound extends AppError {
  constructor(message: string) {
    super(message, 'NOT_FOUND');
  }
}

/**
 * Seconds a client is asked to wait (`Retry-After`) after a 503 for an unreachable database: long
 * enough for a restart or fail-over to finish, short enough that a recovered service is used again
 * soon.
 */
export const RETRY_AFTER_SECONDS = 5;

/**
 * A dependency (the database) is unreachable (HTTP 503). Its `extensions.http` makes GraphQL Yoga
 * answer 503 with `Retry-After` too (Yoga strips `http` from the body).
 */
export class Unavailable extends AppError {
  constructor(message = 'Database unavailable; retry shortly') {
    super(message, 'UNAVAILABLE');
    this.extensions.http = { status: 503, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } };
  }
}

/** Socket error codes meaning the database server cannot be reached or went away. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * Prisma error codes of the same: P1001 can't reach the server, P1002 timed out, P1008 operation
 * timed out, P1017 server closed the connection, P2024 timed out waiting for a pool connection.
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/**
 * PostgreSQL SQLSTATEs of an unavailable or overloaded server: class 08 (connection exception),
 * 57P01–57P03 (terminated by an administrator or a crash, cannot connect now: starting up or
 * shutting down), 53300 too many connections, and the per-role time bounds of src/db/database.ts:
 * 57014 (query_canceled: `statement_timeout`), 55P03 (lock_not_available: `lock_timeout`) and
 * 25P03 (`idle_in_transaction_session_timeout`). The read API cancels no query itself, so a
 * canceled statement is one the server could not finish in time.
 */
const PG_STATES = /^(08...|57P0[123]|53300|57014|55P03|25P03)$/;

/** @prisma/adapter-pg's DriverAdapterError kinds of the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/**
 * Messages of `pg` and Prisma that carry no code but mean the same (`Query read timeout` is pg's
 * client-side `query_timeout`: the server did not answer at all, e.g. a stopped server;
 * `Connection terminated due to connection timeout` its `connectionTimeoutMillis`).
 */
const MESSAGES =
  /Connection terminated|Cannot use a pool after calling end|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout|Connection refused|Can't reach database server|Server has closed the connection|database system is (starting up|shutting down|in recovery mode)|terminating connection due to (administrator command|idle-in-transaction timeout)|canceling statement due to (statement|lock) timeout/i;

/**
 * Whether `error` is the HTTP client going away before its request was read: Node's request
 * stream fails with `Error('aborted')`, code ECONNRESET and no `syscall`, when the client closes
 * the connection mid-body (Fastify's body parser passes it on). Not an outage: a database socket
 * reset is a system call's error (`read ECONNRESET`, with `syscall`).
 */
export function isClientDisconnect(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const e = error as { code?: unknown; message?: unknown; syscall?: unknown };
  return e.code === 'ECONNRESET' && e.message === 'aborted' && e.syscall === undefined;
}

/**
 * Whether `error` (or anything it wraps: `cause`, GraphQL `originalError`, an AggregateError's
 * `errors`, Prisma's driver adapter error) says the database is unreachable or went away: connection
 * refused, reset or timed out, a terminated connection, a closed pool, a server shutting down or
 * starting up, a statement or lock wait past its time bound. Such errors are outages (HTTP 503),
 * not bugs (500). An HTTP client closing its own connection ({@link isClientDisconnect}) is not.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (e instanceof Unavailable) return true;
    if (isClientDisconnect(e)) continue;
    const o = e as Record<string, unknown>;
    const code = typeof o.code === 'string' ? o.code : undefined;
    if (code && (SOCKET_CODES.has(code) || PRISMA_CODES.has(code) || PG_STATES.test(code))) return true;
    if (typeof o.kind === 'string' && ADAPTER_KINDS.has(o.kind)) return true;
    if (o.name === 'PrismaClientInitializationError') return true;
    if (typeof o.message === 'string' && MESSAGES.test(o.message)) return true;
    queue.push(o.cause, o.originalError, (o.meta as Record<string, unknown> | undefined)?.driverAdapterError);
    if (Array.isArray(o.errors)) queue.push(...o.errors);
  }
  return false;
}

/** The HTTP status for an `extensions.code`, or null when the code is unknown or absent. */
export function statusForCode(code: unknown): number | null {
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code) ? ERROR_STATUS[code as ErrorCode] : null;
}

/**
 * Base class of every expected failure outside a request (issue 27 "typed errors under one base
 * class"): bad command-line input or configuration, a missing data folder, a held lock, a malformed
 * observation file, a retailer page we cannot read. Its message is the whole story for the person
 * running the command (workers/cli.ts prints it alone, without a stack); anything else thrown is a
 * bug or an outage and is described with a hint to set DEBUG=1. `retryable` marks failures the job
 * runner (workers/jobs/runner.ts) may retry.
 */
export class ExpectedError extends Error {
  /** @param opts.retryable the same call may succeed when repeated (a transient outage). */
  constructor(message?: string, opts: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.retryable = opts.retryable === true;
  }

  /** The same call may succeed when repeated. */
  readonly retryable: boolean;
}
