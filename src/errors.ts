/**
 * Typed errors of the read API. Each carries a machine-readable code in GraphQL `extensions.code`;
 * the facade executor (facades/execute.ts) maps the code to an HTTP status. They extend
 * GraphQLError so GraphQL Yoga shows their message instead of masking it.
 */
import { GraphQLError } from 'graphql';

/** Codes an error may carry in `extensions.code`, with the HTTP status each maps to. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
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

/** No such thing: unknown listing, product, store (HTTP 404). */
export class NotFound extends AppError {
  constructor(message: string) {
    super(message, 'NOT_FOUND');
  }
}

/** A dependency (the database) is unreachable (HTTP 503). */
export class Unavailable extends AppError {
  constructor(message: string) {
    super(message, 'UNAVAILABLE');
  }
}

/** The HTTP status for an `extensions.code`, or null when the code is unknown or absent. */
export function statusForCode(code: unknown): number | null {
  return typeof code === 'string' && code in ERROR_STATUS ? ERROR_STATUS[code as ErrorCode] : null;
}
