/**
 * Scalars: Day (NZ calendar day `YYYY-MM-DD`), DateTime (RFC 3339, UTC) and SafeInt (integers up to
 * 2^53, for barcodes that do not fit GraphQL's 32-bit Int).
 */
import { GraphQLError, Kind } from 'graphql';
import { builder } from '../builder.js';
import { isDay } from '../domain/days.js';

/**
 * A Day value as `YYYY-MM-DD`. Prisma returns DATE columns as JS Dates at UTC midnight; the pg pool
 * returns them as strings already.
 * @throws GraphQLError for anything else.
 */
export function dayString(value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'string' && isDay(value)) return value;
  throw new GraphQLError(`Not a day: ${String(value)}`);
}

builder.scalarType('Day', {
  description: 'New Zealand calendar day, YYYY-MM-DD.',
  serialize: (v) => dayString(v),
  parseValue: (v) => dayString(v),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('Day must be a string YYYY-MM-DD');
    return dayString(ast.value);
  },
});

builder.scalarType('DateTime', {
  description: 'Instant in UTC, RFC 3339 (date-time).',
  serialize: (v) => (v instanceof Date ? v.toISOString() : new Date(v).toISOString()),
  parseValue: (v) => {
    const d = new Date(String(v));
    if (Number.isNaN(d.getTime())) throw new GraphQLError('Invalid DateTime');
    return d;
  },
});

builder.scalarType('SafeInt', {
  description: 'Integer up to 2^53 - 1 (for example a barcode).',
  serialize: (v) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new GraphQLError(`Not a safe integer: ${String(v)}`);
    return n;
  },
  parseValue: (v) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new GraphQLError('SafeInt must be a safe integer');
    return v;
  },
  parseLiteral: (ast) => {
    const n = ast.kind === Kind.INT ? Number(ast.value) : NaN;
    if (!Number.isSafeInteger(n)) throw new GraphQLError('SafeInt must be a safe integer');
    return n;
  },
});
