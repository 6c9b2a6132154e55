/**
 * The one registry of PostgreSQL advisory locks (issue 27 "lock from one key registry"): every lock
 * any process takes is named here with its key, so two jobs cannot pick the same number by chance
 * and a reader finds who serialises what in one place. Nothing else in the tree calls
 * `pg_advisory_*` (test/unit/locks.test.ts greps for it).
 *
 * Two kinds, as PostgreSQL has them (https://www.postgresql.org/docs/current/explicit-locking.html
 * "Advisory Locks"; the one-bigint and the two-int4 key spaces do not overlap):
 * - `single`: one bigint key, one lock (e.g. the matching run);
 * - `class`: a first int4 key naming the class and a second one naming the member (a retailer id,
 *   or `hashtext(alias)` for a search alias), one lock per member.
 *
 * And two lifetimes: a session lock ({@link withSessionLock}, {@link lockSession}) held on a
 * dedicated connection until released, or a transaction lock ({@link lockTransaction}) released at
 * commit or rollback. The keys keep the numbers earlier versions used, so an old process and a new
 * one still exclude each other.
 */
import type pg from 'pg';

/** An advisory lock: its key space, its key and what it serialises. */
export interface AdvisoryLock {
  /** `single`: one bigint key; `class`: (class, member) int4 pair. */
  readonly kind: 'single' | 'class';
  /** The bigint key (`single`) or the class key (`class`). */
  readonly key: number;
  /** What holding it means. */
  readonly serialises: string;
}

const single = (key: number, serialises: string): AdvisoryLock => ({ kind: 'single', key, serialises });
const perMember = (key: number, serialises: string): AdvisoryLock => ({ kind: 'class', key, serialises });

/** Every advisory lock of the service, by name. */
export const LOCKS = {
  migrate: single(7_242_001, 'migration runs (src/db/migrate.ts), across processes'),
  import: single(727_001, 'imports of the real data (workers/import)'),
  match: single(727_005, 'the matching run and the curators\' link commands (workers/match), and an export import\'s links'),
  basketMatch: single(727_015, 'basket matching and the curators\' basket commands (workers/index/match.ts, admin.ts)'),
  index: single(7_242_015, 'food price index runs (workers/index/compute.ts)'),
  views: single(7_242_016, 'derived-view runs (workers/views/run.ts), a transaction lock'),
  images: single(7_242_184, 'image runs (workers/images)'),
  export: single(6_116_640_621, 'exports (workers/export/export.ts): a second one fails at once'),
  ingest: perMember(7_242_013, 'ingests of one retailer (member: retailer id), taken in ascending id order'),
  collect: perMember(7_242_018, 'collections of one retailer (member: retailer id): a second one fails at once'),
  searchAlias: perMember(7_242_003, 'writers of one Elasticsearch alias (member: hashtext(alias))'),
} as const satisfies Record<string, AdvisoryLock>;

/** A lock's name in {@link LOCKS}. */
export type LockName = keyof typeof LOCKS;

/** A class lock's member: a number (an id) or a text hashed by PostgreSQL's `hashtext`. */
export type LockMember = number | string;

function args(name: LockName, member: LockMember | undefined): { sql: string; params: (number | string)[] } {
  const lock: AdvisoryLock = LOCKS[name];
  if (lock.kind === 'single') {
    if (member !== undefined) throw new TypeError(`lock ${name} has no members`);
    return { sql: '$1::bigint', params: [lock.key] };
  }
  if (member === undefined) throw new TypeError(`lock ${name} needs a member`);
  return typeof member === 'string' ? { sql: '$1::int, hashtext($2)', params: [lock.key, member] } : { sql: '$1::int, $2::int', params: [lock.key, member] };
}

/**
 * Takes a session lock on `client` (which then holds it until {@link unlockSession} or the end of
 * the session). `wait`: blocks until free; `try`: resolves false at once when another session holds it.
 * @returns whether the lock is now held (always true with `wait`).
 */
export async function lockSession(client: pg.PoolClient | pg.Client, name: LockName, mode: 'wait' | 'try', member?: LockMember): Promise<boolean> {
  const a = args(name, member);
  if (mode === 'wait') {
    await client.query(`SELECT pg_advisory_lock(${a.sql})`, a.params);
    return true;
  }
  const r = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${a.sql}) AS ok`, a.params);
  return r.rows[0].ok;
}

/**
 * Releases a session lock taken with {@link lockSession}.
 * @returns false when the release failed (the connection is broken: release it to the pool as
 * broken, which ends the session and so the lock).
 */
export async function unlockSession(client: pg.PoolClient | pg.Client, name: LockName, member?: LockMember): Promise<boolean> {
  const a = args(name, member);
  return client.query(`SELECT pg_advisory_unlock(${a.sql})`, a.params).then(
    () => true,
    () => false,
  );
}

/** Takes a transaction lock in the caller's open transaction (released at its commit or rollback); waits until free. */
export async function lockTransaction(tx: pg.PoolClient | pg.Client, name: LockName, member?: LockMember): Promise<void> {
  const a = args(name, member);
  await tx.query(`SELECT pg_advisory_xact_lock(${a.sql})`, a.params);
}

/**
 * Runs `fn` holding a session lock on a dedicated connection of `pool`, then releases it (a
 * connection whose release failed goes back to the pool as broken, so the lock cannot leak).
 * @param busy with `try`: the error thrown when another session holds the lock.
 * @throws `busy()` in `try` mode when the lock is held; whatever `fn` throws.
 */
export async function withSessionLock<T>(
  pool: pg.Pool,
  name: LockName,
  opts: { mode: 'wait' } | { mode: 'try'; busy: () => Error },
  fn: (client: pg.PoolClient) => Promise<T>,
  member?: LockMember,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    if (!(await lockSession(client, name, opts.mode, member))) throw (opts as { busy: () => Error }).busy();
    try {
      return await fn(client);
    } finally {
      broken = !(await unlockSession(client, name, member));
    }
  } finally {
    client.release(broken);
  }
}
