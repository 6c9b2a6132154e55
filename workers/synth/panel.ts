/**
 * The national-scale SYNTHETIC panel (issue 19 item 2): `npm run synth -- --stores 500 --listings
 * 20000 --days 365` writes a generated price history — not real prices — into a database of its own,
 * straight in the span model (src/domain/spans.ts: an open span has `last_day` NULL and runs to its
 * store's `last_day` or its chain's `last_national_day`; a span is closed where the price changed or
 * the store missed a day). Set-based SQL (generate_series) for stores, spans and collections; the
 * listings' names come from the search bench's vocabulary (./catalogue.ts) through COPY.
 *
 * The panel (deterministic: the same options give the same rows):
 * - the six chains of the retailer table; `listings` listings per chain (external id `SYN-<n>`,
 *   name `SYNTHETIC <words>`); 3 % start after the first day, 2 % stop before the last (delisted);
 * - `stores` stores over the five chains with stores (The Warehouse is national only), by chain
 *   shares close to the real ones (Woolworths 35 %, New World 27 %, FreshChoice 14 %, SuperValue
 *   13 %, PAK'nSAVE 11 %), named `SYNTHETIC <chain> store <n>` in 40 SYNTHETIC towns; each carries
 *   90 % of its chain's listings;
 * - a chain price path per listing: a new price every 20–46 days (≈ 3 % of items change a day),
 *   drifting up ≈ 7 % a year with ±4 % noise; promotions on the path's spans: 1 in 8 a special
 *   (kind 1, −20 %), 1 in 12 a club price (kind 2, −15 %), 1 in 16 a multibuy (kind 3, 2 or 3 for
 *   −15 %), 1 in 40 a clearance (kind 4, −40 %);
 * - store spans = the path at each store: price × a store factor (0.94–1.06) × a listing noise
 *   (±1.5 %); store-level deviations: 1 span in 50 of a store runs its own special (−10 %) instead;
 *   missing days: each store misses ≈ 1 % of days (not the last), which closes its open spans at
 *   the day before and reopens them after (as ingest does after a gap);
 * - national spans = the path (the national observation for The Warehouse; for the other chains the
 *   path stands in for the median across stores, which it centres);
 * - collection rows: one per store per day collected, one per chain (national) per day;
 * - an `import_run` marker row `synth` (digest = the options as JSON); every chain's
 *   `last_national_day` and every store's `last_day` = the last day.
 * Daily store statistics (`listing_day_stats`) are swept from the store spans
 * (workers/export/day-stats.ts, the rule the import uses); the derived views (`npm run worker --
 * views --full`) and the index are left to their workers (the command is printed).
 *
 * Refuses to write into a database holding anything but SYNTHETIC rows: listings or stores whose
 * external id does not start with `SYN-`, or any `import_run` row other than its own marker.
 */
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { addDays } from '../../src/domain/days.js';
import { SYNTHETIC_RETAILERS, syntheticListings } from './catalogue.js';
import { rebuildDayStats } from '../export/day-stats.js';
import { ExpectedError } from '../../src/errors.js';

/** Size and shape of the panel. */
export interface SynthOptions {
  /** Stores over the five chains with stores. */
  stores: number;
  /** Listings per chain. */
  listings: number;
  /** Days of history. */
  days: number;
  /** First day, `YYYY-MM-DD` (default: `days` days ending 2026-11-30). */
  start?: string;
  /** Sweep `listing_day_stats` from the store spans (default true). */
  stats?: boolean;
  /** Empty a database that already holds a SYNTHETIC panel first (default false: refuse). */
  replace?: boolean;
}

/** What {@link generatePanel} wrote, with seconds per step. */
export interface SynthReport {
  start: string;
  lastDay: string;
  rows: Record<string, number>;
  seconds: Record<string, number>;
  /** Table sizes on disk (indexes included), bytes. */
  bytes: Record<string, number>;
}

/** The name of the marker row in `import_run`. */
export const SYNTH_MARKER = 'synth';

/** The panel refuses a database holding real data, or a SYNTHETIC one without `replace`. */
export class SynthRefusedError extends ExpectedError {
  constructor(message: string) {
    super(message);
    this.name = 'SynthRefusedError';
  }
}

/** Chain shares of the stores (chains with stores), close to the real store counts. */
const STORE_SHARES: Record<string, number> = { woolworths: 0.35, newworld: 0.27, freshchoice: 0.14, supervalue: 0.13, paknsave: 0.11 };

/** Tables the panel writes (emptied by `replace`). */
const TABLES = ['listing_day_stats', 'store_price_span', 'national_price_span', 'collection', 'listing', 'store'];

/**
 * Checks that the database holds nothing but a SYNTHETIC panel (or nothing at all) and, with
 * `replace`, empties it. @throws SynthRefusedError otherwise.
 */
async function guard(pool: pg.Pool, replace: boolean): Promise<void> {
  const { rows } = await pool.query<{ real_listings: number; real_stores: number; imports: string[]; listings: number; stores: number }>(
    `SELECT (SELECT count(*) FROM listing WHERE external_id NOT LIKE 'SYN-%' OR name NOT LIKE 'SYNTHETIC %')::int AS real_listings,
       (SELECT count(*) FROM store WHERE external_id NOT LIKE 'SYN-%' OR name NOT LIKE 'SYNTHETIC %')::int AS real_stores,
       ARRAY(SELECT name FROM import_run WHERE name <> $1) AS imports,
       (SELECT count(*) FROM listing)::int AS listings, (SELECT count(*) FROM store)::int AS stores`,
    [SYNTH_MARKER],
  );
  const r = rows[0];
  if (r.real_listings || r.real_stores || r.imports.length) {
    throw new SynthRefusedError(
      `this database holds real data (${r.real_listings} listings and ${r.real_stores} stores not named SYNTHETIC, imports: ${r.imports.join(', ') || 'none'}); ` +
        'the SYNTHETIC panel is written only into a database of its own',
    );
  }
  if (r.listings || r.stores) {
    if (!replace) throw new SynthRefusedError(`this database already holds a SYNTHETIC panel (${r.listings} listings, ${r.stores} stores); pass --replace to regenerate it`);
    await pool.query(`TRUNCATE ${TABLES.join(', ')} RESTART IDENTITY CASCADE`);
    await pool.query('DELETE FROM import_run WHERE name = $1', [SYNTH_MARKER]);
  }
}

/** A text[] as a PostgreSQL array literal inside a CSV field. */
const arrayLiteral = (xs: string[]) => `{${xs.map((x) => `"${x.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
/** A CSV field. */
const csv = (v: string | number | null) => (v === null ? '' : typeof v === 'number' ? String(v) : `"${v.replace(/"/g, '""')}"`);

/** COPYs the SYNTHETIC listings (names from ./catalogue.ts) into `listing`. @returns rows. */
async function copyListings(client: pg.PoolClient, o: Required<Pick<SynthOptions, 'listings' | 'days'>> & { start: string }): Promise<number> {
  const ids = new Map((await client.query<{ id: number; slug: string }>('SELECT id, slug FROM retailer')).rows.map((r) => [r.slug, r.id]));
  for (const slug of SYNTHETIC_RETAILERS) if (!ids.has(slug)) throw new Error(`retailer ${slug} missing: run the migrations first`);
  const total = o.listings * SYNTHETIC_RETAILERS.length;
  function* lines(): Generator<string> {
    let buf = '';
    let g = 0;
    for (const l of syntheticListings(total)) {
      g++;
      // 3 % start later (by day g·13 mod days), the rest on the first day.
      const first = g % 33 === 0 ? addDays(o.start, (g * 13) % o.days) : o.start;
      buf += [ids.get(l.retailer)!, csv(l.externalId), csv(`SYNTHETIC ${l.name}`), csv(l.brand), csv(l.sizeText), l.gtin ?? '', csv(arrayLiteral(l.categoryPath)), first].join(',') + '\n';
      if (buf.length > 1 << 20) {
        yield buf;
        buf = '';
      }
    }
    if (buf) yield buf;
  }
  const copy = client.query(copyFrom('COPY listing (retailer_id, external_id, name, brand, size_text, gtin, category_path, first_seen) FROM STDIN WITH (FORMAT csv)'));
  await pipeline(Readable.from(lines()), copy);
  return copy.rowCount;
}

/**
 * Generates the panel into `pool`'s database (migrated). `log` receives one line per step.
 * @throws SynthRefusedError (nothing written) for a database with real data or an existing panel
 *   without `replace`; the database's errors.
 */
export async function generatePanel(pool: pg.Pool, opts: SynthOptions, log: (line: string) => void = () => {}): Promise<SynthReport> {
  const days = opts.days;
  const start = opts.start ?? addDays('2026-11-30', -(days - 1));
  const lastDay = addDays(start, days - 1);
  await guard(pool, opts.replace ?? false);
  const rows: Record<string, number> = {};
  const seconds: Record<string, number> = {};
  const client = await pool.connect();
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    log(`${name} …`);
    const r = await fn();
    seconds[name] = (performance.now() - t) / 1000;
    log(`${name}: ${seconds[name].toFixed(1)} s${typeof r === 'number' ? `, ${r.toLocaleString('en-NZ')} rows` : ''}`);
    if (typeof r === 'number') rows[name] = r;
    return r;
  };
  try {
    // References hold by construction: foreign-key triggers skipped where allowed (a superuser).
    await client.query('SET session_replication_role = replica').catch(() => {});
    await client.query("SET work_mem = '256MB'");
    // The store span indexes are rebuilt after the bulk load: a sort in memory where it fits.
    await client.query("SET maintenance_work_mem = '1GB'");
    await client.query('BEGIN');
    await step('listings', () => copyListings(client, { listings: opts.listings, days, start }));

    await step('stores', async () => {
      const shares = Object.entries(STORE_SHARES);
      const r = await client.query(
        `INSERT INTO store (retailer_id, external_id, name, region, lat, lng, town, area, urban, last_day)
         SELECT r.id, 'SYN-S' || g, 'SYNTHETIC ' || r.name || ' store ' || g, 'SYNTHETIC region ' || (g % 40 % 16),
           -46 + (g * 7 % 100) / 12.0, 168 + (g * 11 % 100) / 11.0,
           'SYNTHETIC town ' || (g % 40), 'SYNTHETIC area ' || (g % 40),
           (ARRAY['major', 'large', 'medium', 'small', 'rural'])[1 + g % 40 % 5], $2::date
         FROM generate_series(1, $1::int) g
         JOIN LATERAL (
           -- The chain whose cumulative share interval holds g's position.
           SELECT c.slug FROM unnest($3::text[], $4::float8[]) WITH ORDINALITY c(slug, cum, k)
           WHERE (g - 0.5) / $1::int < c.cum ORDER BY c.k LIMIT 1) c ON true
         JOIN retailer r ON r.slug = c.slug`,
        [opts.stores, lastDay, shares.map(([s]) => s), shares.map((_, i) => shares.slice(0, i + 1).reduce((a, [, v]) => a + v, 0) + (i === shares.length - 1 ? 1 : 0))],
      );
      return r.rowCount ?? 0;
    });

    // Collected stretches of each store (≈ 1 % of days missed, never the last day), as day offsets.
    await step('store collection segments', async () => {
      await client.query(
        `CREATE TEMP TABLE synth_seg ON COMMIT DROP AS
         WITH days AS (
           SELECT st.id AS store_id, d FROM store st CROSS JOIN generate_series(0, $1::int - 1) d
           WHERE d = $1::int - 1 OR (hashint4(st.id * 1009 + d) & 1023) >= 10)
         SELECT store_id, min(d) AS f, max(d) AS l FROM (SELECT store_id, d, d - row_number() OVER (PARTITION BY store_id ORDER BY d) AS grp FROM days) x
         GROUP BY store_id, grp`,
        [days],
      );
      await client.query('CREATE INDEX ON synth_seg (store_id)');
      return (await client.query('SELECT count(*)::int AS n FROM synth_seg')).rows[0].n as number;
    });

    // Each listing's chain price path: span k covers offsets o + k·p … o + (k + 1)·p − 1, clipped to
    // the listing's life [a, b] (b < days − 1 for the 2 % delisted).
    await step('price paths', async () => {
      await client.query(
        `CREATE TEMP TABLE synth_path ON COMMIT DROP AS
         SELECT l.id AS listing_id, l.retailer_id, k, greatest(x.a, x.o + k * x.p)::int AS f, least(x.b, x.o + (k + 1) * x.p - 1)::int AS e, pr.price,
           CASE m WHEN 0 THEN round(pr.price * 0.8) WHEN 1 THEN round(pr.price * 0.85) WHEN 2 THEN round(mb.total::numeric / mb.q)
             WHEN 3 THEN round(pr.price * 0.6) END::int AS promo_price,
           CASE m WHEN 0 THEN 1 WHEN 1 THEN 2 WHEN 2 THEN 3 WHEN 3 THEN 4 END::smallint AS promo_kind,
           CASE WHEN m = 2 THEN mb.q END AS multibuy_qty, CASE WHEN m = 2 THEN mb.total END AS multibuy_price
         FROM listing l
         CROSS JOIN LATERAL (SELECT substring(l.external_id FROM 5)::bigint AS g) gg
         CROSS JOIN LATERAL (SELECT (20 + (gg.g * 7919) % 27)::int AS p) pp
         CROSS JOIN LATERAL (SELECT pp.p, ((gg.g::bigint * 104729) % pp.p)::int AS o, l.first_seen - $2::date AS a,
           CASE WHEN gg.g % 50 = 7 THEN ($1::int - 1) / 2 + (gg.g % greatest(1, ($1::int - 1) / 2))::int ELSE $1::int - 1 END AS b) x
         CROSS JOIN LATERAL generate_series(-1, $1::int / x.p + 1) k
         CROSS JOIN LATERAL (SELECT greatest(1, round((99 + (gg.g * 7919) % 1900) * (1 + 0.0002 * greatest(0, x.o + k * x.p))
           * (1 + 0.02 * (((k + 10) * 37 + gg.g) % 5 - 2))))::int AS price) pr
         CROSS JOIN LATERAL (SELECT CASE WHEN (k + 10 + gg.g) % 8 = 0 THEN 0 WHEN (k + 10 + gg.g * 3) % 12 = 1 THEN 1
           WHEN (k + 10 + gg.g * 5) % 16 = 2 THEN 2 WHEN (k + 10 + gg.g * 7) % 40 = 3 THEN 3 END AS m) mm
         CROSS JOIN LATERAL (SELECT 2 + (gg.g + k + 10) % 2 AS q, round(pr.price * (2 + (gg.g + k + 10) % 2) * 0.85)::int AS total) mb
         WHERE greatest(x.a, x.o + k * x.p) <= least(x.b, x.o + (k + 1) * x.p - 1)`,
        [days, start],
      );
      await client.query('CREATE INDEX ON synth_path (retailer_id)');
      await client.query('ANALYZE synth_path');
      return (await client.query('SELECT count(*)::int AS n FROM synth_path')).rows[0].n as number;
    });

    await step('national spans', async () => {
      const r = await client.query(
        `INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
         SELECT listing_id, $2::date + f, CASE WHEN e < $1::int - 1 THEN $2::date + e END, price, promo_price, promo_kind, multibuy_qty, multibuy_price
         FROM synth_path ORDER BY listing_id, f`,
        [days, start],
      );
      return r.rowCount ?? 0;
    });

    // Store spans: bulk-loaded without their indexes, which are rebuilt after (same definitions).
    const indexDefs = (await client.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'store_price_span' AND indexname <> 'store_price_span_pkey'`,
    )).rows;
    for (const i of indexDefs) await client.query(`DROP INDEX ${i.name}`);
    await step('store spans', async () => {
      const r = await client.query(
        `INSERT INTO store_price_span (listing_id, store_id, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
         SELECT p.listing_id, st.id, $2::date + greatest(p.f, s.f),
           CASE WHEN least(p.e, s.l) < $1::int - 1 THEN $2::date + least(p.e, s.l) END,
           v.price,
           CASE WHEN dev THEN round(v.price * 0.9)::int WHEN p.promo_kind = 3 THEN round(p.multibuy_price * v.factor / p.multibuy_qty)::int
             ELSE round(p.promo_price * v.factor)::int END,
           CASE WHEN dev THEN 1::smallint ELSE p.promo_kind END,
           CASE WHEN NOT dev THEN p.multibuy_qty END, CASE WHEN NOT dev AND p.promo_kind = 3 THEN round(p.multibuy_price * v.factor)::int END
         FROM synth_path p
         JOIN store st ON st.retailer_id = p.retailer_id
         JOIN synth_seg s ON s.store_id = st.id AND s.f <= p.e AND s.l >= p.f
         CROSS JOIN LATERAL (SELECT (0.94 + (st.id * 7 % 13) / 100.0) * (1 + ((p.listing_id * 31 + st.id * 17) % 7 - 3) / 200.0) AS factor) f
         CROSS JOIN LATERAL (SELECT greatest(1, round(p.price * f.factor))::int AS price, f.factor,
           (hashint4(p.listing_id * 7 + st.id * 131 + p.k) & 63) = 0 AND p.promo_kind IS NULL AS dev) v
         WHERE (p.listing_id + st.id) % 10 <> 0`,
        [days, start],
      );
      return r.rowCount ?? 0;
    });
    await step('store span indexes', async () => {
      for (const i of indexDefs) await client.query(i.def);
      return indexDefs.length;
    });

    await step('collections', async () => {
      const r = await client.query(
        `INSERT INTO collection (retailer_id, store_id, day, mode, rows, digest, source)
         SELECT st.retailer_id, st.id, $2::date + d, 'snapshot', 0, 'SYNTHETIC', 'npm run synth (SYNTHETIC)'
         FROM synth_seg s JOIN store st ON st.id = s.store_id CROSS JOIN generate_series(s.f, s.l) d
         UNION ALL
         SELECT r.id, NULL, $2::date + d, 'snapshot', 0, 'SYNTHETIC', 'npm run synth (SYNTHETIC)'
         FROM retailer r CROSS JOIN generate_series(0, $1::int - 1) d WHERE r.slug = ANY($3::text[])`,
        [days, start, [...SYNTHETIC_RETAILERS]],
      );
      // Every day of the panel is a complete collection of every store and chain: covered through
      // the last day (the day of record of the open spans, src/domain/spans.ts spanTo).
      await client.query('UPDATE retailer SET last_national_day = $1::date, covered_day = $1::date WHERE slug = ANY($2::text[])', [lastDay, [...SYNTHETIC_RETAILERS]]);
      await client.query('UPDATE store SET covered_day = last_day WHERE covered_day IS DISTINCT FROM last_day');
      return r.rowCount ?? 0;
    });

    if (opts.stats ?? true) {
      await step('daily store statistics', () =>
        rebuildDayStats(client, { chunkListings: 1000, onProgress: (d, t) => { if (d === t || d % 20000 < 1000) log(`  statistics: ${d}/${t} listings`); } }),
      );
    }
    await client.query(
      `INSERT INTO import_run (name, digest) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET digest = EXCLUDED.digest, finished_at = now()`,
      [SYNTH_MARKER, JSON.stringify({ SYNTHETIC: true, stores: opts.stores, listings: opts.listings, days, start })],
    );
    await step('commit', () => client.query('COMMIT'));
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release(true);
  }
  await step('analyze', () => pool.query('ANALYZE'));
  const bytes = Object.fromEntries(
    (await pool.query<{ t: string; b: string }>(
      `SELECT relname AS t, pg_total_relation_size(oid)::text AS b FROM pg_class WHERE relname = ANY($1::text[])`,
      [['store_price_span', 'national_price_span', 'listing', 'store', 'collection', 'listing_day_stats']],
    )).rows.map((r) => [r.t, Number(r.b)]),
  );
  return { start, lastDay, rows, seconds, bytes };
}
