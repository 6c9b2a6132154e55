/**
 * A SYNTHETIC national price panel for the index benchmark (test/bench/index.ts): generated
 * listings, national price spans and basket matches, not real data. Every listing's external id
 * starts with `SYN-` and its name with `SYNTHETIC item`; it is written into the scratch database the
 * bench creates and drops (never a real one). Deterministic: the same sizes give the same panel.
 *
 * - `listings` listings spread over the six chains of the schema; sizes: every 5th sold loose by
 *   weight (price per kg), the rest 250 g … 1.5 kg (every 7th in ml), every 9th a 2-pack.
 * - National spans over `days` days from `start` (INSERT … SELECT generate_series, as
 *   test/bench/export.ts generates its panel, foreign-key triggers skipped): each listing changes price every p days, p between
 *   20 and 46 (so about 3 % of listings change on a given day), at its own offset; prices drift up
 *   slowly with ±4 % noise per span; one span in 8 is a special (promo_kind 1, 80 %), one in 8 a
 *   club price (promo_kind 2, 85 %). The last span of every listing is open; every chain's last
 *   national collection day is the panel's last day.
 * - Basket matches, inserted directly (not by the matcher): `matchedShare` of the listings, spread
 *   over the observable basket items; 90 % matched from the first day, 10 % joining later in the
 *   year, and 5 % of those matched from the start end after day 200–299 (valid_to).
 *
 * The next day's observations ({@link nextDayObservations}) repeat each listing's open price and
 * change `changeRate` of them, for the real ingest.
 */
import type pg from 'pg';
import { addDays } from '../../src/domain/days.js';
import type { RawRecord } from '../../workers/ingest/format.js';
import { prng } from '../helpers/prng.js';

/** Size of the panel. */
export interface IndexPanelOptions {
  listings: number;
  days: number;
  /** First day, `YYYY-MM-DD`. */
  start: string;
  /** Share of listings matched to basket items (0–1). */
  matchedShare: number;
  /** Observable basket item ids to match to. */
  itemIds: number[];
}

/** What {@link generateIndexPanel} wrote. */
export interface IndexPanel {
  listings: number;
  spans: number;
  matches: number;
  lastDay: string;
}

/**
 * Writes the panel into `pool`'s (scratch) database. The basket must already be synced (the matches
 * reference basket_item). @throws the database's errors.
 */
export async function generateIndexPanel(pool: pg.Pool, o: IndexPanelOptions): Promise<IndexPanel> {
  const lastDay = addDays(o.start, o.days - 1);
  await pool.query(
    `INSERT INTO listing (retailer_id, external_id, name, size_text, qty, unit, pack_count, weighable, first_seen)
     SELECT r.id, 'SYN-' || g, 'SYNTHETIC item ' || g,
       CASE WHEN g % 5 = 0 THEN 'per kg' ELSE 'synthetic size' END,
       CASE WHEN g % 5 = 0 THEN 1000 ELSE (ARRAY[250, 500, 1000, 1500])[1 + g % 4] END,
       CASE WHEN g % 5 <> 0 AND g % 7 = 0 THEN 'ml' ELSE 'g' END,
       CASE WHEN g % 5 <> 0 AND g % 9 = 0 THEN 2 ELSE 1 END,
       g % 5 = 0, $2::date
     FROM generate_series(1, $1::int) g
     JOIN (SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS k, count(*) OVER () AS n FROM retailer) r ON r.k = g % r.n`,
    [o.listings, o.start],
  );
  // Span k of listing g covers days o + k·p … o + (k + 1)·p − 1 (clipped at day 0), k ≥ −1. The
  // listing references hold by construction, so foreign-key triggers are skipped (superuser test
  // server), as test/bench/export.ts does.
  const gen = await pool.connect();
  await gen.query('SET session_replication_role = replica').catch(() => {});
  await gen.query(
    `INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind)
     SELECT id, $1::date + f, CASE WHEN e >= $2::int - 1 THEN NULL ELSE $1::date + e END, price,
       CASE WHEN kind = 1 THEN round(price * 0.8)::int WHEN kind = 2 THEN round(price * 0.85)::int END, kind
     FROM (
       SELECT l.id, greatest(0, x.o + k * x.p) AS f, x.o + (k + 1) * x.p - 1 AS e,
         round((150 + (l.g * 7919) % 1500) * (1 + 0.0002 * greatest(0, x.o + k * x.p)) * (1 + 0.02 * (((k + 10) * 37 + l.g) % 5 - 2)))::int AS price,
         CASE ((k + 10) + l.g) % 8 WHEN 0 THEN 1 WHEN 4 THEN 2 END::smallint AS kind
       FROM (SELECT id, substring(external_id FROM 5)::bigint AS g FROM listing WHERE external_id LIKE 'SYN-%') l
       CROSS JOIN LATERAL (SELECT (20 + (l.g * 7919) % 27)::int AS p) pp
       CROSS JOIN LATERAL (SELECT pp.p, ((l.g * 104729) % pp.p)::int AS o) x
       CROSS JOIN LATERAL generate_series(-1, $2::int / x.p + 1) k
     ) s
     WHERE e >= f AND f <= $2::int - 1`,
    [o.start, o.days],
  ).finally(() => gen.release(true));
  await pool.query('UPDATE retailer SET last_national_day = $1, covered_day = $1', [lastDay]);
  const share = Math.round(o.matchedShare * 1000);
  await pool.query(
    `INSERT INTO basket_match (item_id, listing_id, origin, confidence, valid_from, valid_to)
     SELECT ($3::int[])[1 + (g * 31) % cardinality($3::int[])], id, 'auto', 0.9,
       CASE WHEN g % 10 = 0 THEN $1::date + (g % 300)::int ELSE $1::date END,
       CASE WHEN g % 20 = 5 THEN $1::date + 200 + (g % 100)::int END
     FROM (SELECT id, substring(external_id FROM 5)::bigint AS g FROM listing WHERE external_id LIKE 'SYN-%') l
     WHERE (g * 7) % 1000 < $2::int`,
    [o.start, share, o.itemIds],
  );
  await pool.query('ANALYZE');
  const c = await pool.query<{ l: number; s: number; m: number }>(
    'SELECT (SELECT count(*) FROM listing)::int AS l, (SELECT count(*) FROM national_price_span)::int AS s, (SELECT count(*) FROM basket_match)::int AS m',
  );
  return { listings: c.rows[0].l, spans: c.rows[0].s, matches: c.rows[0].m, lastDay };
}

/**
 * National observations of `day` for every SYNTHETIC listing, in the ingest's raw format: its open
 * span's price tuple, except for `changeRate` of them (seeded), whose shelf price moves by ±1–5 %
 * and whose promotion ends.
 */
export async function nextDayObservations(pool: pg.Pool, day: string, changeRate: number, seed = 20261128): Promise<RawRecord[]> {
  const rnd = prng(seed);
  const { rows } = await pool.query<{ slug: string; external_id: string; price: number; promo_price: number | null; promo_kind: number | null }>(
    `SELECT r.slug, l.external_id, s.price, s.promo_price, s.promo_kind
     FROM listing l JOIN retailer r ON r.id = l.retailer_id JOIN national_price_span s ON s.listing_id = l.id AND s.last_day IS NULL
     WHERE l.external_id LIKE 'SYN-%' ORDER BY l.id`,
  );
  return rows.map((r, i) => {
    const change = rnd() < changeRate;
    const price = change ? Math.max(1, Math.round(r.price * (1 + (rnd() < 0.5 ? -1 : 1) * (0.01 + 0.04 * rnd())))) : r.price;
    return {
      line: i + 2,
      record: {
        day, retailer: r.slug, store: null, external_id: r.external_id, price,
        promo_price: change ? null : r.promo_price, promo_kind: change ? null : r.promo_kind,
      },
    };
  });
}
