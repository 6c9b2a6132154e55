/**
 * Bootstrapping an instance from a bulk export (issue 6, item 4): loads an export (written by
 * ./export.ts; tables and columns in ./columns.ts) into an empty instance, keeping the export's
 * listing, store and product ids so API URLs stay valid.
 *
 * 1. Refuse unless the instance is empty (no stores, listings, products or spans; the retailers
 *    seeded by the first migration are expected) — checked first, so nothing is downloaded in vain,
 *    and again under table locks inside the transaction.
 * 2. Locate the export (a local folder or `latest` symlink, or a manifest URL whose files are
 *    downloaded into a temporary folder) and check the manifest: licence `CC BY 4.0`, the
 *    contract's shape, every table's gzipped CSV listed (./import-files.ts).
 * 3. Verify EVERY listed file (Parquet included): present, of the listed size, with the listed
 *    SHA-256 — streamed, before anything is written.
 * 4. In ONE transaction (all or nothing: any failure leaves the database as empty as it was):
 *    COPY the gzipped CSVs of `stores`, `listings` and `price_spans` into typed staging tables (row
 *    counts must equal the manifest's), check their references and rules, then insert stores,
 *    products, listings and spans with their exported ids, reset the id sequences past them, set
 *    each chain's `last_national_day`, recompute `listing_day_stats` from the store spans, and fill
 *    the products' attributes from their listings exactly as the matching worker does
 *    (workers/match/store.ts `refreshProducts`).
 *
 * Mapping back to the schema (prisma/schema.prisma):
 * - `scope` national → national_price_span, store → store_price_span; a `current` span is stored
 *   open (`last_day` NULL) with `seen_day` = its exported last day, its last observed day (the
 *   day of record, src/domain/spans.ts spanTo); the scopes' covered days stay null, so every open
 *   span ends exactly where the export said.
 * - `retailer.last_national_day` = the latest last day of the chain's national spans or stores;
 *   `retailer.last_run` is left null (the export does not carry it; no collection has run on this
 *   instance).
 * - `store.last_day` and `active` come from the stores file.
 * - Listings keep `product_id`, `link_method`, `link_confidence`, `link_locked`; `linked_at` is the
 *   import's time for listings with a link or a locked state. `available` is the exported flag
 *   (already combined with "latest national span open", which the API applies again). `last_seen`
 *   is derived from the spans and not stored.
 * - No `link_decision` rows (the schema does not require them; the log starts at the import), no
 *   `collection` rows (ingest of the next day only needs `retailer.last_national_day` and
 *   `store.last_day`; re-ingesting an exported day is refused as "not after the last ingested
 *   day"), no `import_run` rows.
 * - `listing_day_stats` (not exported) are recomputed from the store spans: for each day within a
 *   store span that is a collection day of its chain, estimated as a first or last day of any of
 *   the chain's store spans; min, median (src/domain/median.ts rule, as ingest) and max shelf price
 *   and the number of stores (swept span by span in ./day-stats.ts, issue 19: proportional to the
 *   spans, not to stores × listings × days). Exact when every store of a chain is collected (snapshot) on the same
 *   days and each such day starts or ends some span of the chain; it can differ when a chain's
 *   collection day changed no price and ended no span anywhere (that day is missing), when a store
 *   was not collected on a chain's day (counted anyway, with its unchanged price), or for days
 *   ingested in `changes` mode (unmentioned listings are counted).
 * - `index_daily` and `basket` are verified (sha256, header, row count) and skipped: both are
 *   derived, and the instance derives them again (see "The basket and the index" below).
 *
 * The basket and the index (issue 15) after an import — decided here, carried out by the caller:
 * - `basket` is a published view of the basket file (src/domain/basket-items.json, validated by
 *   src/domain/basket.ts) plus each item's open-match count and latest relative. Its definitions
 *   (groups, weights, specs, keywords) are not loaded from it: the instance's own basket file is
 *   the source, copied into basket_group / basket_item by workers/index/basket.ts `syncBasket` at
 *   the start of every basket-matching and index run. An export made by the same version of the
 *   service describes the same basket; another version's basket is replaced by this version's.
 * - `index_daily` is not loaded: index_day is the index worker's output, continued day by day from
 *   state the export does not carry (index_run: each item's relative, counted listings and links;
 *   index_item_day), so loaded rows could be neither continued nor recomputed consistently. The
 *   index worker's backfill recomputes index_item_day, index_day and index_run from the imported
 *   spans and the instance's matches (official_index comes from DATA_DIR, as on any instance).
 * - **Curated basket matches are not carried**: no export table holds basket_match or
 *   basket_decision (the contract's manifest lists exactly five tables; `basket.matches` is only
 *   a count). The imported instance starts with no matches and an empty basket decision log; the
 *   automatic basket matcher rebuilds the automatic matches from the imported listings (names,
 *   kinds and sizes are exported, so the same version's matcher finds the same candidates), with
 *   this instance's own `valid_from`, `ref_price` and `linked_relative`. Manual matches, removed
 *   matches and locks of the source must be redone by a curator (admin CLI). So the recomputed
 *   index equals the source's only where the source's matches were all automatic and held over the
 *   same days; the source's `index_daily` file stays the reference for the published series (and a
 *   check: compare it with the recomputed one).
 *
 * Not done here (the caller's part, as for `import`): running the matching worker (links come from
 * the export; a run afterwards must change none, and it derives what the export does not carry,
 * such as generics), then basket matching and the index backfill (above), and an Elasticsearch
 * reindex when that backend is used. Search columns of the embedded backend are generated, so they
 * need nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { EXPORT_TABLES, exportTable, POSTGRES_TYPE, quoteIdent, type ColumnType, type ExportTable } from './columns.js';
import { rebuildDayStats } from './day-stats.js';
import {
  byteCounter,
  countCsvRows,
  csvName,
  ExportImportError,
  locateExport,
  readCsvHeader,
  verifyFiles,
} from './import-files.js';
import type { ExportManifest } from '../../src/services/exports.js';
import { makeProgress, type Progress } from '../progress.js';
import { refreshProducts } from '../match/store.js';
import { lockTransaction } from '../../src/db/locks.js';

export { ExportImportError };

/** Options of {@link importExport}. */
export interface ImportExportOptions {
  /** Show progress bars (default: when stderr is a terminal). */
  progress?: boolean;
}

/** What {@link importExport} did. */
export interface ImportExportResult {
  /** The source as given (folder, manifest path or manifest URL). */
  source: string;
  /** The manifest's `day` (latest data day, `YYYY-MM-DD`) and `generated_at` (RFC 3339). */
  day: string;
  generatedAt: string;
  /** Files verified (every file the manifest lists: size and SHA-256). */
  verified: number;
  /** Data rows per export table, as listed in the manifest and counted while loading or verifying. */
  rows: Record<ExportTable['name'], number>;
  /** Rows written per database table. */
  loaded: {
    stores: number;
    listings: number;
    products: number;
    nationalSpans: number;
    storeSpans: number;
    /** `listing_day_stats` rows recomputed from the store spans. */
    dayStats: number;
  };
  /**
   * Export tables verified but not loaded, being derived (the basket from the instance's basket
   * file, the index by the index worker; see the module comment): `index_daily`, `basket`.
   */
  skipped: ExportTable['name'][];
  /** `retailer.last_national_day` after the import, by retailer slug (null: no data for the chain). */
  lastNationalDay: Record<string, string | null>;
  /** Wall-clock seconds: locating and downloading, verifying, loading (the transaction), in all. */
  seconds: { locate: number; verify: number; load: number; total: number };
}

/** The tables loaded into the database; the rest (derived: `index_daily`, `basket`) are verified and skipped. */
const LOADED: readonly ExportTable['name'][] = ['stores', 'listings', 'price_spans'];

/** PostgreSQL type of a staging column (`text[]` stays JSON text until inserted). */
const STAGE_TYPE: Record<ColumnType, string> = { ...POSTGRES_TYPE, 'text[]': 'text' };

const ident = quoteIdent;
const stage = (table: ExportTable['name']) => `imp_${table}`;

/**
 * Loads the export at `source` into the empty instance behind `pool` (see the module comment for
 * the steps and the mapping).
 *
 * @param source a local folder holding `manifest.json` (an export folder or its `latest` symlink),
 *   a path to such a `manifest.json`, or an http(s) URL of one (its files are fetched from URLs
 *   relative to it and streamed into a temporary folder, removed afterwards).
 * @returns counts per table, the chains' last days and timings ({@link ImportExportResult}).
 * @throws ExportImportError — before any write — when the manifest is missing or malformed, its
 *   licence is not `CC BY 4.0`, a table's CSV is not listed, any listed file is missing or its size
 *   or sha256 differs (the error names the file), or the instance is not empty; and — with the
 *   transaction rolled back, so nothing is written — when a CSV's header, rows or row count do not
 *   fit the column catalogue and manifest, or the data break a reference or rule (unknown retailer,
 *   a span of an unknown listing or store, …). Errors of the database connection itself propagate
 *   as they are (also with nothing written).
 */
export async function importExport(pool: pg.Pool, source: string, options: ImportExportOptions = {}): Promise<ImportExportResult> {
  const started = performance.now();
  const bar = (title: string, total: number): Progress => makeProgress(options.progress, title, total);

  // Cheap refusal first: no download or hashing for an instance that cannot take the export.
  await assertEmpty(pool);
  const located = await locateExport(source, bar);
  try {
    const { dir, manifest } = located;
    const t1 = performance.now();
    await verifyFiles(dir, manifest, bar('import: verify', manifest.files.reduce((n, f) => n + f.bytes, 0)));
    const rows = {} as Record<ExportTable['name'], number>;
    const skipped: ExportTable['name'][] = [];
    const headers = new Map<ExportTable['name'], string[]>();
    for (const table of EXPORT_TABLES) {
      headers.set(table.name, await readCsvHeader(dir, table));
      if (LOADED.includes(table.name)) continue;
      rows[table.name] = await checkedRowCount(manifest, table.name, await countCsvRows(dir, table));
      skipped.push(table.name);
    }
    const t2 = performance.now();
    const loaded = await load(pool, dir, manifest, headers, rows, bar);
    const t3 = performance.now();
    const lastNationalDay = Object.fromEntries(
      (await pool.query<{ slug: string; day: string | null }>('SELECT slug, last_national_day::text AS day FROM retailer ORDER BY id')).rows.map(
        (r) => [r.slug, r.day],
      ),
    );
    return {
      source,
      day: manifest.day,
      generatedAt: manifest.generated_at,
      verified: manifest.files.length,
      rows,
      loaded,
      skipped,
      lastNationalDay,
      seconds: { locate: (t1 - started) / 1000, verify: (t2 - t1) / 1000, load: (t3 - t2) / 1000, total: (t3 - started) / 1000 },
    };
  } finally {
    await located.cleanup().catch(() => {});
  }
}

/** @throws ExportImportError unless the instance holds no stores, listings, products or spans. */
async function assertEmpty(q: pg.Pool | pg.PoolClient): Promise<void> {
  const { rows } = await q.query<{ what: string }>(
    `SELECT what FROM (VALUES
       ('listings', EXISTS (SELECT 1 FROM listing)), ('stores', EXISTS (SELECT 1 FROM store)),
       ('products', EXISTS (SELECT 1 FROM product)), ('national price spans', EXISTS (SELECT 1 FROM national_price_span)),
       ('store price spans', EXISTS (SELECT 1 FROM store_price_span))) AS t(what, present)
     WHERE present`,
  );
  if (rows.length > 0) {
    throw new ExportImportError(
      `the instance is not empty (it holds ${rows.map((r) => r.what).join(', ')}): an export is imported only into an empty instance`,
    );
  }
}

/** `counted` when it equals the manifest's row count of `table`'s CSV. @throws ExportImportError otherwise. */
function checkedRowCount(manifest: ExportManifest, table: ExportTable['name'], counted: number): number {
  const name = csvName(table);
  const listed = manifest.files.find((f) => f.name === name)!.rows;
  if (listed !== counted) throw new ExportImportError(`${name} holds ${counted} data rows, the manifest says ${listed}`, name);
  return counted;
}

/** Runs `sql`; when it returns a row, throws an ExportImportError with `message(row)` naming `file`. */
async function fail(client: pg.PoolClient, file: string, sql: string, message: (r: Record<string, unknown>) => string): Promise<void> {
  const r = await client.query(sql);
  if (r.rowCount) throw new ExportImportError(`${file}: ${message(r.rows[0])}`, file);
}

async function load(
  pool: pg.Pool,
  dir: string,
  manifest: ExportManifest,
  headers: Map<ExportTable['name'], string[]>,
  rows: Record<ExportTable['name'], number>,
  bar: (title: string, total: number) => Progress,
): Promise<ImportExportResult['loaded']> {
  const client = await pool.connect();
  let broken = false;
  try {
    // Temp tables live in local buffers (default 8 MB); settable only before the session's first temp use.
    await client.query("SET temp_buffers = '256MB'").catch(() => {});
    await client.query('BEGIN');
    try {
      // No matching run or curator command meanwhile, no concurrent writes to what is loaded.
      await lockTransaction(client, 'match');
      await client.query(
        'LOCK TABLE retailer, store, listing, product, national_price_span, store_price_span, listing_day_stats, collection IN EXCLUSIVE MODE',
      );
      await assertEmpty(client);

      // 1. Staging: COPY each gzipped CSV into a typed temp table (`ord` keeps the file's row order).
      const csvBytes = LOADED.reduce((n, t) => n + manifest.files.find((f) => f.name === csvName(t))!.bytes, 0);
      const loadBar = bar('import: load', csvBytes);
      for (const name of LOADED) {
        const table = exportTable(name);
        const cols = table.columns.map((c) => `${ident(c.name)} ${STAGE_TYPE[c.type]}${c.nullable ? '' : ' NOT NULL'}`);
        await client.query(`CREATE TEMP TABLE ${stage(name)} (ord bigserial, ${cols.join(', ')}) ON COMMIT DROP`);
        const file = csvName(name);
        const copy = client.query(
          copyFrom(`COPY ${stage(name)} (${headers.get(name)!.map(ident).join(', ')}) FROM STDIN WITH (FORMAT csv, HEADER true, ENCODING 'UTF8')`),
        );
        try {
          await pipeline(fs.createReadStream(path.join(dir, file)), byteCounter((n) => loadBar.increment(n)), zlib.createGunzip(), copy);
        } catch (e) {
          // A COPY cut short by a gzip error may leave the connection mid-protocol: never reuse it.
          if (!isDatabaseError(e)) broken = true;
          const where = (e as { where?: string }).where;
          throw new ExportImportError(`${file} cannot be loaded: ${(e as Error).message}${where ? ` (${where})` : ''}`, file, { cause: e });
        }
        rows[name] = checkedRowCount(manifest, name, copy.rowCount);
        await client.query(`CREATE UNIQUE INDEX ON ${stage(name)} (ord)`);
        await client.query(`ANALYZE ${stage(name)}`);
      }
      loadBar.stop();

      const derive = bar('import: write', 6);
      // 2. References and rules, each with a clear message (row = data row number in the CSV).
      await check(client);
      derive.increment();

      // 3. Stores, products (attributes filled below), listings, spans — exported ids kept, file order.
      const stores = await client.query(
        `INSERT INTO store (id, retailer_id, external_id, name, address, region, lat, lng, town, area, urban, active, last_day)
         SELECT s.store_id, r.id, s.external_id, s.name, s.address, s.region, s.lat, s.lng, s.town, s.area, s.urban, s.active, s.last_day
         FROM imp_stores s JOIN retailer r ON r.slug = s.retailer ORDER BY s.ord`,
      );
      const products = await client.query<{ id: number }>(
        `INSERT INTO product (id, name)
         SELECT DISTINCT product_id, '' FROM imp_listings WHERE product_id IS NOT NULL ORDER BY 1 RETURNING id`,
      );
      const listings = await client.query(
        `INSERT INTO listing (id, retailer_id, external_id, name, brand, size_text, qty, unit, pack_count, weighable, gtin,
           category_path, image, retailer_url, available, first_seen, product_id, link_method, link_confidence, link_locked, linked_at)
         SELECT l.listing_id, r.id, l.external_id, l.name, l.brand, l.size_text, l.qty, l.unit, l.pack_count, l.weighable, l.gtin,
           ARRAY(SELECT e FROM jsonb_array_elements_text(l.category_path::jsonb) WITH ORDINALITY AS t(e, o) ORDER BY o),
           l.image, l.retailer_url, l.available, l.first_seen, l.product_id, l.link_method, l.link_confidence, l.link_locked,
           CASE WHEN l.product_id IS NOT NULL OR l.link_method IS NOT NULL OR l.link_locked THEN now() END
         FROM imp_listings l JOIN retailer r ON r.slug = l.retailer ORDER BY l.ord`,
      );
      const spanCols = 'price, promo_price, promo_kind, multibuy_qty, multibuy_price';
      const national = await client.query(
        `INSERT INTO national_price_span (listing_id, first_day, last_day, ${spanCols}, seen_day)
         SELECT listing_id, first_day, CASE WHEN "current" THEN NULL ELSE last_day END, ${spanCols},
           CASE WHEN "current" THEN last_day END
         FROM imp_price_spans WHERE scope = 'national' ORDER BY ord`,
      );
      const storeSpans = await client.query(
        `INSERT INTO store_price_span (listing_id, store_id, first_day, last_day, ${spanCols}, seen_day)
         SELECT listing_id, store_id, first_day, CASE WHEN "current" THEN NULL ELSE last_day END, ${spanCols},
           CASE WHEN "current" THEN last_day END
         FROM imp_price_spans WHERE scope = 'store' ORDER BY ord`,
      );
      derive.increment();

      // 4. Id sequences past the imported ids; each chain's last national day.
      for (const t of ['store', 'listing', 'product']) {
        await client.query(`SELECT setval(pg_get_serial_sequence('${t}', 'id'), coalesce((SELECT max(id) FROM ${t}), 0) + 1, false)`);
      }
      await client.query(
        `UPDATE retailer r SET last_national_day = d.day
         FROM (
           SELECT r.id, greatest(
               (SELECT max(s.last_day) FROM imp_price_spans s JOIN imp_listings l ON l.listing_id = s.listing_id
                WHERE s.scope = 'national' AND l.retailer = r.slug),
               (SELECT max(st.last_day) FROM imp_stores st WHERE st.retailer = r.slug)) AS day
           FROM retailer r) d
         WHERE d.id = r.id AND r.last_national_day IS DISTINCT FROM d.day`,
      );
      derive.increment();

      // 5. Daily store statistics, as ingest writes them, on the chain's (estimated) collection days.
      // Swept from the spans listing by listing (./day-stats.ts): work proportional to the spans and
      // the rows written, not to stores × listings × days.
      const stats = await rebuildDayStats(client);
      derive.increment();

      // 6. Product attributes from their listings, exactly as the matching worker computes them.
      await refreshProducts(client, products.rows.map((r) => r.id));
      derive.increment();
      await client.query('COMMIT');
      derive.increment();
      derive.stop();
      return {
        stores: stores.rowCount ?? 0,
        listings: listings.rowCount ?? 0,
        products: products.rowCount ?? 0,
        nationalSpans: national.rowCount ?? 0,
        storeSpans: storeSpans.rowCount ?? 0,
        dayStats: stats,
      };
    } catch (e) {
      if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
      if (e instanceof ExportImportError) throw e;
      if (isDatabaseError(e)) {
        const pgError = e as { detail?: string; message: string };
        // A constraint or cast the checks above do not cover (e.g. a negative price, a bad JSON array).
        throw new ExportImportError(
          `the export's data do not fit the database, nothing was imported: ${pgError.message}${pgError.detail ? ` (${pgError.detail})` : ''}`,
          null,
          { cause: e },
        );
      }
      throw e;
    }
  } finally {
    client.release(broken);
  }
}

/** An error the PostgreSQL server reported (the connection stays usable), not a client-side one. */
function isDatabaseError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && 'severity' in e && 'code' in e;
}

/** The staged rows' references and rules; @throws ExportImportError at the first problem found. */
async function check(client: pg.PoolClient): Promise<void> {
  const L = csvName('listings');
  const S = csvName('stores');
  const P = csvName('price_spans');
  await fail(client, S, `SELECT ord, retailer FROM imp_stores s WHERE NOT EXISTS (SELECT 1 FROM retailer r WHERE r.slug = s.retailer) ORDER BY ord LIMIT 1`,
    (r) => `row ${r.ord}: unknown retailer "${r.retailer}"`);
  await fail(client, S, `SELECT store_id, count(*) AS n FROM imp_stores GROUP BY store_id HAVING count(*) > 1 ORDER BY 1 LIMIT 1`,
    (r) => `store_id ${r.store_id} appears ${r.n} times`);
  await fail(client, L, `SELECT ord, retailer FROM imp_listings l WHERE NOT EXISTS (SELECT 1 FROM retailer r WHERE r.slug = l.retailer) ORDER BY ord LIMIT 1`,
    (r) => `row ${r.ord}: unknown retailer "${r.retailer}"`);
  await fail(client, L, `SELECT listing_id, count(*) AS n FROM imp_listings GROUP BY listing_id HAVING count(*) > 1 ORDER BY 1 LIMIT 1`,
    (r) => `listing_id ${r.listing_id} appears ${r.n} times`);
  await fail(client, P, `SELECT ord, scope FROM imp_price_spans WHERE scope NOT IN ('national', 'store') ORDER BY ord LIMIT 1`,
    (r) => `row ${r.ord}: scope "${r.scope}" is neither national nor store`);
  await fail(client, P, `SELECT ord, scope FROM imp_price_spans WHERE (scope = 'national') <> (store_id IS NULL) ORDER BY ord LIMIT 1`,
    (r) => `row ${r.ord}: a ${r.scope} span ${r.scope === 'national' ? 'has a store_id' : 'has no store_id'}`);
  await fail(client, P, `SELECT ord, first_day::text, last_day::text FROM imp_price_spans WHERE last_day < first_day ORDER BY ord LIMIT 1`,
    (r) => `row ${r.ord}: last_day ${r.last_day} is before first_day ${r.first_day}`);
  await fail(client, P,
    `SELECT s.ord, s.listing_id FROM imp_price_spans s WHERE NOT EXISTS (SELECT 1 FROM imp_listings l WHERE l.listing_id = s.listing_id)
     ORDER BY s.ord LIMIT 1`,
    (r) => `row ${r.ord}: listing ${r.listing_id} is not in ${L}`);
  await fail(client, P,
    `SELECT s.ord, s.store_id FROM imp_price_spans s
     WHERE s.scope = 'store' AND NOT EXISTS (SELECT 1 FROM imp_stores st WHERE st.store_id = s.store_id) ORDER BY s.ord LIMIT 1`,
    (r) => `row ${r.ord}: store ${r.store_id} is not in ${S}`);
  await fail(client, P,
    `SELECT s.ord, s.listing_id, l.retailer AS lr, s.store_id, st.retailer AS sr
     FROM imp_price_spans s JOIN imp_listings l ON l.listing_id = s.listing_id JOIN imp_stores st ON st.store_id = s.store_id
     WHERE s.scope = 'store' AND l.retailer <> st.retailer ORDER BY s.ord LIMIT 1`,
    (r) => `row ${r.ord}: listing ${r.listing_id} (${r.lr}) priced at store ${r.store_id} of another chain (${r.sr})`);
  await fail(client, P,
    `SELECT listing_id, store_id, count(*) AS n FROM imp_price_spans WHERE "current"
     GROUP BY listing_id, store_id HAVING count(*) > 1 ORDER BY 1, 2 NULLS FIRST LIMIT 1`,
    (r) => `listing ${r.listing_id} has ${r.n} current spans ${r.store_id === null ? 'nationally' : `at store ${r.store_id}`}`);
  // An open span's end is its own last observed day (the day of record, src/domain/spans.ts spanTo),
  // which the export wrote as its last_day; it is kept as the span's seen_day, so open spans of one
  // chain or store may end on different days.
}
