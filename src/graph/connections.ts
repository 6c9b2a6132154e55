/**
 * Shared rules of the graph's Relay connections (issue 20): page sizes, forward-only paging, and
 * the opaque cursors of connections over derived views. The connections over Prisma relations
 * (Retailer.stores, Retailer.listings, Product.listings) use plugin-prisma's own cursors (the
 * row's id, under a total order that ends in the id); a malformed one is refused as BAD_REQUEST
 * by /graphql's error mapping (facades/graphql.ts).
 */
import { CONNECTION_SIZE } from '../domain/limits.js';
import { BadRequest } from '../errors.js';

/** The connection arguments as Pothos passes them. */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * Checks the paging arguments of a connection: forward only (`last` and `before` refused), and
 * `first` within CONNECTION_SIZE (src/domain/limits.ts). @throws BadRequest otherwise.
 */
export function checkForward(args: ConnectionArgs): void {
  if (args.last != null || args.before != null) throw new BadRequest('Connections page forward only: use first and after, not last or before');
  if (args.first != null && (args.first < CONNECTION_SIZE.min || args.first > CONNECTION_SIZE.max)) {
    throw new BadRequest(`first must be ${CONNECTION_SIZE.min} to ${CONNECTION_SIZE.max}`);
  }
}

/** The page size `args` ask for (the default when `first` is absent). */
export function pageSize(args: ConnectionArgs): number {
  return args.first ?? CONNECTION_SIZE.default;
}

/**
 * An opaque cursor holding a non-negative integer key under a prefix naming its order (`rank:` a
 * stored rank of a derived view, `id:` a row id in id order).
 */
export function keyCursor(prefix: 'rank' | 'id', key: number): string {
  return Buffer.from(`${prefix}:${key}`, 'utf8').toString('base64url');
}

/**
 * The key an `after` cursor of {@link keyCursor} with `prefix` holds (0, before every row, when
 * absent). @throws BadRequest for anything {@link keyCursor} did not make with that prefix.
 */
export function parseKeyCursor(prefix: 'rank' | 'id', after: string | null | undefined): number {
  if (after == null) return 0;
  const text = /^[A-Za-z0-9_-]{1,40}$/.test(after) ? Buffer.from(after, 'base64url').toString('utf8') : '';
  const key = text.startsWith(`${prefix}:`) ? Number(text.slice(prefix.length + 1)) : Number.NaN;
  if (!Number.isSafeInteger(key) || key < 0 || text !== `${prefix}:${key}`) throw new BadRequest(`Invalid cursor: ${after.slice(0, 60)}`);
  return key;
}

/** A connection's page of `nodes` keyed for cursors, as Pothos' connection shape. */
export function connectionPage<T>(nodes: readonly { key: number; node: T }[], prefix: 'rank' | 'id', after: number, hasNextPage: boolean) {
  const edges = nodes.map(({ key, node }) => ({ cursor: keyCursor(prefix, key), node }));
  return {
    edges,
    pageInfo: { hasNextPage, hasPreviousPage: after > 0, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
  };
}
