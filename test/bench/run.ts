/**
 * Benchmarks (`npm run bench`), printing figures; nothing here asserts.
 *
 * ingest: a SYNTHETIC panel (generated prices, not real data) of STORES × LISTINGS store observations
 * per day over DAYS days, with CHANGE_RATE of prices changing each day, ingested day by day into a
 * fresh database on the benches' server (test/bench/server.ts: TEST_DATABASE_URL's, else a throwaway
 * embedded PostgreSQL). Prints rows/s per day and the span table size, showing that unchanged days
 * write little, and each day's rate as a ratio of the anchor measured in the same run (issue 19
 * item 4): PostgreSQL's logged COPY of the same number of store-price rows (listing, store, day, price)
 * into a table shaped like store_price_span, with its primary key and the listing index. The first day
 * opens every span and creates every listing (its foreign-key checks alone cost about as much as the
 * COPY); the aim, ≥ 0.3 × COPY, is for the steady days after it. Figures go to test/bench/results.json
 * (`ingest`).
 *
 * `npm run bench` runs this ingest bench, then the search bench (test/bench/search.ts; alone:
 * `npm run bench:search`; this one alone: `npm run bench:ingest`).
 */
import { ingest } from '../../workers/ingest/ingest.js';
import { addDays } from '../../src/domain/days.js';
import type { RawRecord } from '../../workers/ingest/format.js';
import { copyRows } from '../../workers/copy-rows.js';
import { recordResults } from './results.js';
import { benchServer } from './server.js';

await benchServer();
// test/helpers/db.ts reads TEST_DATABASE_URL as it is imported: only once the server is known.
const { createTestDatabase } = await import('../helpers/db.js');

const STORES = Number(process.env.BENCH_STORES ?? 100);
const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 5000);
const DAYS = Number(process.env.BENCH_DAYS ?? 4);
const CHANGE_RATE = Number(process.env.BENCH_CHANGE_RATE ?? 0.03);

async function benchIngest(): Promise<void> {
  const db = await createTestDatabase('bench_ingest');
  try {
    await db.pool.query(
      `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area)
       SELECT r.id, 'syn-' || g, 'Synthetic store ' || g, -41, 174, 'Synthetic', 'Synthetic'
       FROM retailer r, generate_series(1, $1) g WHERE r.slug = 'newworld'`,
      [STORES],
    );
    // The anchor: a logged COPY of one day's rows into a table shaped like store_price_span.
    const anchor = await db.pool.connect();
    let copyRate: number;
    try {
      await anchor.query(`CREATE TABLE copy_anchor (LIKE store_price_span INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
      await anchor.query(`ALTER TABLE copy_anchor ADD PRIMARY KEY (id)`);
      await anchor.query(`CREATE INDEX ON copy_anchor (listing_id, store_id, first_day)`);
      function* lines(): Generator<string> {
        for (let s = 0; s < STORES; s++) for (let l = 0; l < LISTINGS; l++) yield `${l + 1}\t${s + 1}\t2026-01-01\t${100 + ((s * LISTINGS + l) % 900)}\n`;
      }
      const t0 = performance.now();
      await copyRows(anchor, 'copy_anchor (listing_id, store_id, first_day, price)', lines());
      copyRate = (STORES * LISTINGS) / ((performance.now() - t0) / 1000);
      await anchor.query('DROP TABLE copy_anchor');
    } finally {
      anchor.release();
    }
    console.log(`anchor: logged COPY of ${STORES * LISTINGS} store-price rows (with a primary key and the listing index): ${Math.round(copyRate)} rows/s`);
    const prices = new Int32Array(STORES * LISTINGS).map((_, i) => 100 + ((i * 7919) % 900));
    let day = '2026-01-01';
    const perDay: { day: string; seconds: number; rowsPerSecond: number; ratioToCopy: number; stage: number; check: number; merge: number }[] = [];
    console.log(`ingest (synthetic): ${STORES} stores × ${LISTINGS} listings = ${STORES * LISTINGS} observations/day, ${(CHANGE_RATE * 100).toFixed(1)} % changing`);
    for (let d = 0; d < DAYS; d++) {
      if (d > 0) for (let i = 0; i < prices.length; i++) if (Math.random() < CHANGE_RATE) prices[i] += 10;
      const today = day;
      function* rows(): Generator<RawRecord> {
        let line = 1;
        for (let s = 0; s < STORES; s++)
          for (let l = 0; l < LISTINGS; l++)
            yield { line: ++line, record: { day: today, retailer: 'newworld', store: `syn-${s + 1}`, external_id: `L${l}`, price: prices[s * LISTINGS + l] } };
      }
      const t0 = performance.now();
      const r = await ingest(db.pool, rows(), { progress: false });
      const secs = (performance.now() - t0) / 1000;
      const size = await db.pool.query(`SELECT pg_total_relation_size('store_price_span') AS b, (SELECT count(*) FROM store_price_span)::int AS n`);
      console.log(
        `  day ${d + 1} ${today}: ${secs.toFixed(2)} s, ${Math.round((STORES * LISTINGS) / secs)} rows/s = ${((STORES * LISTINGS) / secs / copyRate).toFixed(2)} × COPY (stage ${r.seconds.stage.toFixed(2)} s, check ${r.seconds.check.toFixed(2)} s, merge ${r.seconds.merge.toFixed(2)} s); store spans ${size.rows[0].n}, ${(size.rows[0].b / 2 ** 20).toFixed(1)} MiB`,
      );
      perDay.push({
        day: today, seconds: +secs.toFixed(2), rowsPerSecond: Math.round((STORES * LISTINGS) / secs), ratioToCopy: +((STORES * LISTINGS) / secs / copyRate).toFixed(2),
        stage: +r.seconds.stage.toFixed(2), check: +r.seconds.check.toFixed(2), merge: +r.seconds.merge.toFixed(2),
      });
      day = addDays(day, 1);
    }
    // The first day opens every span (and creates every listing); the aim (issue 19 item 4, ≥ 0.3 × COPY)
    // is for a steady day, when a few % of prices change.
    const steady = perDay.slice(1).map((d) => d.ratioToCopy).sort((a, b) => a - b);
    if (steady.length) console.log(`steady days: ${steady[0]}–${steady[steady.length - 1]} × COPY (aim ≥ 0.3); first day ${perDay[0].ratioToCopy} × COPY`);
    await recordResults('ingest', {
      panel: { stores: STORES, listings: LISTINGS, days: DAYS, changeRate: CHANGE_RATE, SYNTHETIC: true },
      anchor: { what: 'logged COPY of as many store-price rows into a table shaped like store_price_span (primary key and listing index)', rowsPerSecond: Math.round(copyRate) },
      days: perDay,
    });
  } finally {
    await db.drop();
  }
}

await benchIngest();
