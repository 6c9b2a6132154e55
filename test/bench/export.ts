/**
 * Export benchmark (`npx tsx test/bench/export.ts`), printing figures; nothing here asserts.
 *
 * Generates a SYNTHETIC panel (made-up listings, stores and prices, not real data) in a scratch
 * database on the benches' server (test/bench/server.ts: TEST_DATABASE_URL's, else a throwaway
 * embedded PostgreSQL): EXPORT_BENCH_LISTINGS listings (default 20,000) of one
 * chain, their national spans (10 a listing) and EXPORT_BENCH_ROWS store spans (default
 * 10,000,000; 10 consecutive weekly spans per listing and store, the last one open), all by
 * INSERT … SELECT generate_series. Then runs the export worker into a temporary folder and prints
 * rows, seconds and rows per second per format and overall (EXPORT_BENCH_READERS connections
 * reading the spans at once, default DEFAULT_EXPORT_READERS), file sizes, and peak memory: the
 * process RSS sampled every 100 ms and `process.resourceUsage().maxRSS`. DuckDB runs in this
 * process, so both include it. The scratch database and folder are removed at the end.
 */
import fs from 'node:fs';
import { once } from 'node:events';
import zlib from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { to as copyTo } from 'pg-copy-streams';
import { EXPORT_TABLES } from '../../workers/export/columns.js';
import { DEFAULT_EXPORT_READERS, EXPORT_SETTINGS, runExport, streamTableCsv } from '../../workers/export/export.js';
import { benchServer } from './server.js';

await benchServer();
// test/helpers/db.ts reads TEST_DATABASE_URL as it is imported: only once the server is known.
const { createTestDatabase } = await import('../helpers/db.js');

const STORE_SPANS = Number(process.env.EXPORT_BENCH_ROWS ?? 10_000_000);
const LISTINGS = Number(process.env.EXPORT_BENCH_LISTINGS ?? 20_000);
const SPANS_PER_PAIR = 10;
/** Connections reading price_spans' listing ranges at once (ExportOptions.readers). */
const READERS = Number(process.env.EXPORT_BENCH_READERS ?? DEFAULT_EXPORT_READERS);

const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
const rate = (rows: number, s: number) => `${Math.round(rows / s).toLocaleString('en-NZ')} rows/s`;

async function main(): Promise<void> {
  const pairs = Math.ceil(STORE_SPANS / SPANS_PER_PAIR);
  const listings = Math.min(LISTINGS, pairs);
  const stores = Math.ceil(pairs / listings);
  console.log(
    `export bench (SYNTHETIC data, not real prices): ${listings} listings, ${stores} stores, ` +
      `${STORE_SPANS.toLocaleString('en-NZ')} store spans + ${(listings * SPANS_PER_PAIR).toLocaleString('en-NZ')} national spans`,
  );
  const db = await createTestDatabase('bench_export');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-bench-'));
  try {
    const g0 = performance.now();
    const lastDay = `'2025-01-06'::date + ${(SPANS_PER_PAIR - 1) * 7 + 6}`;
    await db.pool.query(`UPDATE retailer SET last_national_day = ${lastDay}, covered_day = ${lastDay} WHERE slug = 'newworld'`);
    await db.pool.query(
      `INSERT INTO store (retailer_id, external_id, name, address, region, lat, lng, town, area, urban, last_day, covered_day)
       SELECT r.id, 'syn-' || g, 'Synthetic store ' || g, g || ' Synthetic Road, Synthetic "Town"', 'NI',
         -41 + g / 1000.0, 174 + g / 1000.0, 'Synthetic', 'Synthetic', 'major', ${lastDay}, ${lastDay}
       FROM retailer r, generate_series(1, $1::int) g WHERE r.slug = 'newworld'`,
      [stores],
    );
    await db.pool.query(
      `INSERT INTO listing (retailer_id, external_id, name, brand, size_text, qty, unit, gtin, category_path, first_seen)
       SELECT r.id, 'SYN' || g, 'Synthetic item ' || g || ', "quoted"', 'Synthetic brand', '500g', 500, 'g',
         9400000000000 + g, ARRAY['Synthetic', 'Aisle ' || (g % 40)], '2025-01-06'
       FROM retailer r, generate_series(1, $1::int) g WHERE r.slug = 'newworld'`,
      [listings],
    );
    const { rows: [ids] } = await db.pool.query<{ l: number; s: number }>('SELECT (SELECT min(id) FROM listing) AS l, (SELECT min(id) FROM store) AS s');
    await db.pool.query(
      `INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind)
       SELECT $1::int + g / ${SPANS_PER_PAIR}, '2025-01-06'::date + (g % ${SPANS_PER_PAIR}) * 7,
         CASE WHEN g % ${SPANS_PER_PAIR} = ${SPANS_PER_PAIR - 1} THEN NULL ELSE '2025-01-06'::date + (g % ${SPANS_PER_PAIR}) * 7 + 6 END,
         100 + (g * 7919) % 900, CASE WHEN g % 7 = 0 THEN 90 + (g * 7919) % 800 END, CASE WHEN g % 7 = 0 THEN 1 END
       FROM generate_series(0, $2::int - 1) g`,
      [ids.l, listings * SPANS_PER_PAIR],
    );
    // Store spans: row g is span k = g % 10 of pair p = g / 10 (listing p % L, store p / L). The
    // references hold by construction, so foreign-key triggers are skipped (superuser test server).
    const gen = await db.pool.connect();
    await gen.query('SET session_replication_role = replica').catch(() => {});
    await gen.query(
      `INSERT INTO store_price_span (listing_id, store_id, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
       SELECT $1::int + (p % $3::int)::int, $2::int + (p / $3::int)::int,
         '2025-01-06'::date + k * 7,
         CASE WHEN k = ${SPANS_PER_PAIR - 1} THEN NULL ELSE '2025-01-06'::date + k * 7 + 6 END,
         100 + (g * 7919) % 900,
         CASE WHEN g % 11 = 0 THEN 90 + (g * 7919) % 800 END, CASE WHEN g % 11 = 0 THEN 2 WHEN g % 13 = 0 THEN 3 END,
         CASE WHEN g % 13 = 0 AND g % 11 <> 0 THEN 2 END, CASE WHEN g % 13 = 0 AND g % 11 <> 0 THEN 150 + (g * 7919) % 1500 END
       FROM (SELECT g, (g % ${SPANS_PER_PAIR})::int AS k, g / ${SPANS_PER_PAIR} AS p FROM generate_series(0::bigint, $4::bigint - 1) g) x`,
      [ids.l, ids.s, listings, STORE_SPANS],
    ).finally(() => gen.release(true));
    await db.pool.query('ANALYZE');
    console.log(`  generated in ${((performance.now() - g0) / 1000).toFixed(1)} s`);

    let peakRss = process.memoryUsage.rss();
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 100);
    const rssBefore = process.memoryUsage.rss();
    const t0 = performance.now();
    const r = await runExport(db.pool, { dir, progress: process.stderr.isTTY, now: new Date(), readers: READERS });
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage.rss());

    const total = Object.values(r.rows).reduce((a, b) => a + b, 0);
    console.log(`  rows exported: ${total.toLocaleString('en-NZ')} (${Object.entries(r.rows).map(([k, v]) => `${k} ${v}`).join(', ')})`);
    console.log(`  readers: ${READERS} connection(s) reading price_spans' listing ranges at once (EXPORT_BENCH_READERS)`);
    console.log(`  total: ${seconds.toFixed(1)} s, ${rate(total, seconds)} overall (both formats, hashing and publishing included)`);
    console.log(`  gzipped CSV (PostgreSQL COPY → gzip, all tables): ${r.seconds.csv.toFixed(1)} s, ${rate(total, r.seconds.csv)}`);
    console.log(`  Zstd Parquet (DuckDB from the CSV, all tables): ${r.seconds.parquet.toFixed(1)} s, ${rate(total, r.seconds.parquet)}`);
    console.log('  files:');
    for (const f of r.manifest.files) console.log(`    ${f.name.padEnd(22)} ${mib(f.bytes).padStart(11)}  ${f.rows.toLocaleString('en-NZ')} rows`);
    console.log(
      `  memory: RSS before ${mib(rssBefore)}, peak RSS (sampled every 100 ms) ${mib(peakRss)}, ` +
        `process maxRSS ${mib(process.resourceUsage().maxRSS * 1024)} (DuckDB runs in process and is included)`,
    );

    // Where the time goes, as ratios to an anchor measured now: the least an export of price_spans
    // must do is read the store spans out of PostgreSQL (COPY to a null sink, as bench:national's
    // anchor); then the export's own price_spans SELECT to a null sink (PostgreSQL's part), then
    // the same through the export's gzip (the CSV phase of price_spans without the file).
    const nullSink = () => {
      let bytes = 0;
      return { sink: new Writable({ write(chunk: Buffer, _e, cb) { bytes += chunk.length; cb(); } }), bytes: () => bytes };
    };
    const c = await db.pool.connect();
    try {
      const a0 = performance.now();
      const anchorSink = nullSink();
      await pipeline(c.query(copyTo('COPY store_price_span TO STDOUT')), anchorSink.sink);
      const anchor = (performance.now() - a0) / 1000;
      console.log(`  anchor: COPY store_price_span TO STDOUT → null sink ${anchor.toFixed(1)} s (${mib(anchorSink.bytes())}); whole export ${(seconds / anchor).toFixed(2)} × anchor, CSV phase ${(r.seconds.csv / anchor).toFixed(2)} ×, Parquet ${(r.seconds.parquet / anchor).toFixed(2)} ×`);
      const spans = EXPORT_TABLES.find((t) => t.name === 'price_spans')!;
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await c.query(EXPORT_SETTINGS);
      const p0 = performance.now();
      let textBytes = 0;
      await streamTableCsv(c, spans, (chunk) => void (textBytes += chunk.length));
      const pgSide = (performance.now() - p0) / 1000;
      console.log(`  price_spans SELECT → null sink: ${pgSide.toFixed(1)} s (${mib(textBytes)} of CSV) = ${(pgSide / anchor).toFixed(2)} × anchor`);
      const g0 = performance.now();
      const gz = zlib.createGzip({ level: 6 });
      const gzSink = nullSink();
      const gzDone = pipeline(gz, gzSink.sink);
      await streamTableCsv(c, spans, async (chunk) => {
        if (!gz.write(chunk)) await once(gz, 'drain');
      });
      gz.end();
      await gzDone;
      const withGzip = (performance.now() - g0) / 1000;
      console.log(`  price_spans SELECT → gzip level 6 → null sink: ${withGzip.toFixed(1)} s (${mib(gzSink.bytes())}) = ${(withGzip / anchor).toFixed(2)} × anchor`);
      await c.query('COMMIT');
    } finally {
      c.release(true);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}

// DuckDB's native instance can keep the event loop alive after it is closed: end explicitly, so
// that `npm run bench` goes on to the next bench.
await main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
