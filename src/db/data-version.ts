/**
 * The one data version (issue 19 item 1; DESIGN "The data version, derived views and the response
 * cache"): a single row of `data_version` (migration 20261201000000_data_version) holding a version
 * number, when it was bumped and what ran.
 *
 * Writers: only the job runner (workers/jobs/runner.ts) calls {@link bumpDataVersion}, once after
 * each job whose result says it changed what the API serves (a run that wrote nothing leaves the
 * version, and so every cached answer, alone), in its own transaction right after the job's
 * commits; a job that commits as it goes (ingest, collection) and then fails is bumped too, so no
 * half-seen write stays cached. A job's `afterBump` step runs in the bump's transaction (the
 * type-ahead view is marked current there). Between a job's commit and the bump a request may still
 * be answered from the cache of the previous version: the window is one short transaction. The
 * bump also sends a NOTIFY on
 * {@link DATA_VERSION_CHANNEL}, which PostgreSQL delivers at commit, in commit order: the row lock
 * serialises bumps, so versions and notifications increase together.
 *
 * Readers: an API server keeps the version in memory with {@link watchDataVersion} (a dedicated
 * connection that LISTENs, reconnecting with backoff and re-reading the row each time it connects)
 * and keys its response cache (facades/http/response-cache.ts) on it. The version also carries the
 * data's observation time (the newest `retailer.last_run`, read with the row and sent with the
 * notification), which is the API's `Last-Modified` (facades/http/caching.ts): no request queries
 * it. While that connection is down
 * the version is unknown ({@link DataVersionWatch.current} is null) and nothing may be served from
 * the cache: a bump could be missed.
 */
import pg from 'pg';

/** The LISTEN/NOTIFY channel of version bumps (payload: the new {@link DataVersion} as JSON). */
export const DATA_VERSION_CHANNEL = 'nzgp_data_version';

/** One state of the data. */
export interface DataVersion {
  /** Drawn when the table was created: a database rebuilt from scratch has another one. */
  epoch: string;
  /** Bumped by one by every write job that changed something. */
  version: number;
  /** When the bump ran (its transaction's start, ISO 8601). */
  finishedAt: string;
  /** What ran, e.g. `ingest woolworths 2026-05-03`. */
  what: string;
  /**
   * When the data was observed, as of this version: the newest `retailer.last_run` over every chain
   * (ISO 8601, millisecond precision), null while no chain has been collected. Read with the row,
   * so a reader learns it once per version (the API's `Last-Modified`, facades/http/caching.ts).
   */
  observedAt: string | null;
}

/** Anything that runs a query: the pool, a checked-out client (maybe inside a transaction), a client. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient | pg.Client;

/** `<epoch>.<version>`: the version as one token (cache keys, logs). */
export function dataVersionToken(v: Pick<DataVersion, 'epoch' | 'version'>): string {
  return `${v.epoch}.${v.version}`;
}

interface Row {
  epoch: string;
  version: number | string;
  finished_at: string | Date;
  what: string;
  observed_at: string | Date | null;
}

const iso = (t: string | Date) => (t instanceof Date ? t : new Date(t)).toISOString();

function fromRow(r: Row): DataVersion {
  return {
    epoch: r.epoch,
    version: Number(r.version),
    finishedAt: iso(r.finished_at),
    what: r.what,
    observedAt: r.observed_at === null ? null : iso(r.observed_at),
  };
}

/** SQL of the data's observation time (see {@link DataVersion.observedAt}). */
const OBSERVED_AT_SQL = '(SELECT max(last_run) FROM retailer)';

/**
 * The current data version.
 * @throws the database's error (also when the migration has not run: no table).
 */
export async function readDataVersion(db: Queryable): Promise<DataVersion> {
  const { rows } = await (db as pg.Pool).query<Row>(
    `SELECT epoch, version, finished_at, what, ${OBSERVED_AT_SQL} AS observed_at FROM data_version WHERE id = 1`,
  );
  if (rows.length === 0) throw new Error('data_version has no row (migration 20261201000000_data_version)');
  return fromRow(rows[0]);
}

/**
 * Bumps the data version and notifies {@link DATA_VERSION_CHANNEL}. Given a client inside a
 * transaction, the bump (and the notification) commit or roll back with the caller's writes; call
 * it last in the transaction (it holds the row's lock until the commit, serialising bumps). Given
 * the pool, it commits at once.
 * @param what what ran (kept in the row and sent with the notification; cut to 200 characters)
 * @returns the new version
 * @throws the database's error (a REPEATABLE READ transaction fails with a serialization error when
 *   another bump committed since its snapshot: bump after its commit instead)
 */
export async function bumpDataVersion(db: Queryable, what: string): Promise<DataVersion> {
  const { rows } = await (db as pg.Pool).query<Row>(
    `WITH u AS (
       UPDATE data_version SET version = version + 1, finished_at = now(), what = left($1, 200) WHERE id = 1
       RETURNING epoch, version, finished_at, what),
     o AS (SELECT ${OBSERVED_AT_SQL} AS observed_at)
     SELECT u.*, o.observed_at,
            pg_notify($2, json_build_object('epoch', u.epoch, 'version', u.version, 'finishedAt', u.finished_at, 'what', u.what,
                                            'observedAt', o.observed_at)::text)
     FROM u, o`,
    [what, DATA_VERSION_CHANNEL],
  );
  if (rows.length === 0) throw new Error('data_version has no row (migration 20261201000000_data_version)');
  return fromRow(rows[0]);
}

/** The API server's view of the data version (see {@link watchDataVersion}). */
export interface DataVersionWatch {
  /**
   * The current version, or null while it cannot be known: the listening connection is down (a
   * notification could be missed) or has not connected yet.
   */
  current(): DataVersion | null;
  /**
   * Resolves with the version once the watch knows a version of `target`'s epoch at least as new
   * as `target` (at once when it already does). For tests and tools: "the server has seen my bump".
   * @throws Error after `timeoutMs` (default 10 s)
   */
  waitFor(target: Pick<DataVersion, 'epoch' | 'version'>, timeoutMs?: number): Promise<DataVersion>;
  /** Calls `fn` with every new version (and with null when the connection drops); returns the unsubscribe function. */
  onChange(fn: (v: DataVersion | null) => void): () => void;
  /** Stops listening and closes the connection. */
  close(): Promise<void>;
}

/** Options of {@link watchDataVersion}. */
export interface WatchOptions {
  /** Told about connection losses and reconnects (once each). */
  log?: { warn(msg: string): void; info(msg: string): void };
  /** First reconnect delay, ms (doubling up to {@link WatchOptions.maxRetryMs}; default 100). */
  retryMs?: number;
  /** Longest reconnect delay, ms (default 5000). */
  maxRetryMs?: number;
}

function newer(a: DataVersion, b: DataVersion | null): boolean {
  return b === null || a.epoch !== b.epoch || a.version > b.version;
}

/**
 * Watches the data version over a dedicated connection (not one of the pool's): LISTEN
 * {@link DATA_VERSION_CHANNEL}, then read the row, so no bump falls between the two; every
 * notification then updates the version at once. A lost connection makes the version unknown and
 * is re-opened with backoff (LISTEN and read again). Resolves once the first attempt has finished,
 * connected or not (a server starts even when the database is briefly away; it then serves
 * uncached until the watch connects).
 * @param connection the pool's connection settings (`pool.options`) or any pg client config
 */
export async function watchDataVersion(connection: pg.ClientConfig, opts: WatchOptions = {}): Promise<DataVersionWatch> {
  const retryMs = opts.retryMs ?? 100;
  const maxRetryMs = opts.maxRetryMs ?? 5000;
  const subscribers = new Set<(v: DataVersion | null) => void>();
  let known: DataVersion | null = null;
  let live = false;
  let client: pg.Client | null = null;
  let closed = false;
  let delay = retryMs;
  let timer: NodeJS.Timeout | null = null;
  let reportedDown = false;

  const emit = (v: DataVersion | null) => {
    for (const fn of subscribers) fn(v);
  };
  const learn = (v: DataVersion) => {
    if (!newer(v, known)) return;
    known = v;
    if (live) emit(v);
  };
  const lost = (c: pg.Client, err?: Error) => {
    if (c !== client) return;
    client = null;
    const was = live;
    live = false;
    c.removeAllListeners('notification');
    c.end().catch(() => {});
    if (was) emit(null);
    if (!reportedDown) {
      reportedDown = true;
      opts.log?.warn(`data version: listening connection lost${err ? ` (${err.message})` : ''}; responses are not served from the cache until it is back`);
    }
    schedule();
  };
  const schedule = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, delay);
    timer.unref();
    delay = Math.min(maxRetryMs, delay * 2);
  };
  const connect = async (): Promise<void> => {
    if (closed) return;
    // Pool-only settings (max, idleTimeoutMillis…) are ignored by a client.
    const c = new pg.Client({ ...connection, keepAlive: true });
    client = c;
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    c.on('notification', (msg) => {
      if (msg.channel !== DATA_VERSION_CHANNEL || !msg.payload || c !== client) return;
      try {
        const p = JSON.parse(msg.payload) as Row & { finishedAt: string; observedAt?: string | null };
        if (p.observedAt === undefined) throw new Error('no observedAt');
        learn(fromRow({ epoch: p.epoch, version: p.version, finished_at: p.finishedAt, what: p.what, observed_at: p.observedAt }));
      } catch {
        // A malformed payload (not ours, or a writer's from before observedAt): read the row instead.
        readDataVersion(c).then(learn, () => {});
      }
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${DATA_VERSION_CHANNEL}`);
      const v = await readDataVersion(c);
      if (c !== client || closed) return;
      // After a reconnect the row is the truth, even when it is not "newer" (a restored database).
      known = v;
      live = true;
      delay = retryMs;
      if (reportedDown) opts.log?.info(`data version: listening again (version ${dataVersionToken(v)})`);
      reportedDown = false;
      emit(v);
    } catch (err) {
      lost(c, err as Error);
    }
  };

  await connect();

  return {
    current: () => (live ? known : null),
    waitFor(target, timeoutMs = 10_000) {
      const reached = (v: DataVersion | null): v is DataVersion => v !== null && v.epoch === target.epoch && v.version >= target.version;
      const now = live ? known : null;
      if (reached(now)) return Promise.resolve(now);
      return new Promise<DataVersion>((resolve, reject) => {
        const t = setTimeout(() => {
          off();
          reject(new Error(`data version: ${dataVersionToken(target)} not seen within ${timeoutMs} ms (known: ${known ? dataVersionToken(known) : 'none'})`));
        }, timeoutMs);
        const off = () => {
          clearTimeout(t);
          subscribers.delete(check);
        };
        const check = (v: DataVersion | null) => {
          if (!reached(v)) return;
          off();
          resolve(v);
        };
        subscribers.add(check);
      });
    },
    onChange(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const c = client;
      client = null;
      live = false;
      if (c) {
        c.removeAllListeners('notification');
        await c.end().catch(() => {});
      }
    },
  };
}
