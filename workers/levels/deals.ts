/**
 * The deal view of the derived-views worker (issue 16 item 5; api-spec list_deals): the `deal`
 * table, rebuilt on every build inside the transaction the orchestrator (workers/levels/run.ts)
 * opened. The rules are src/domain/deals.ts (pure); this module reads their inputs and writes the
 * rows.
 *
 * **Current promotions**: for each chain with a national collection, the national price spans in
 * force on its last national collection day D (retailer.last_national_day): `first_day ≤ D` and the
 * span's end by the open-span rule (`spanToSql` / `nationalLastDay`, src/services/span-sql.ts) on
 * or after D — the chain's open spans (should a listing have two, its latest by first day). Each one whose promotion is a deal (`dealOf`: promo_kind 1
 * special, 2 member, 3 multibuy; 4 clearance is none; the saving must be positive) gives one row
 * per (kind, listing): retailer_id, day = D, price = the shelf price, saving (cents per unit:
 * price − promo_price, or for a multibuy price − multibuy_price ÷ multibuy_qty) and saving_pct =
 * saving ÷ price. A chain without a national collection has no deals.
 *
 * Diff-written: rows no longer current are deleted, new or changed rows are written, equal rows
 * are left alone, so a rebuild with nothing changed writes nothing and leaves identical rows.
 */
import type pg from 'pg';
import { DEAL_KINDS, dealOf, type DealKind, type PromoFields } from '../../src/domain/deals.js';
import { nationalLastDay, spanToSql } from '../../src/services/span-sql.js';

/** What {@link buildDeals} did. */
export interface DealsReport {
  /** Deal rows after the build, in all and by kind. */
  deals: number;
  byKind: Record<DealKind, number>;
  /** Current spans with a promotion of kind 1–3 that are not deals (saving ≤ 0 or fields missing). */
  rejected: number;
  /** Rows inserted or updated, and deleted. */
  written: number;
  deleted: number;
  seconds: number;
}

/** SQL of a national span's last priced day (open-span rule), for alias `s` with retailer alias `r`. */
const SPAN_TO = spanToSql('s', nationalLastDay('r'));

/**
 * Rebuilds the `deal` table (module comment) in the caller's transaction.
 * @throws the database's errors.
 */
export async function buildDeals(client: pg.PoolClient): Promise<DealsReport> {
  const t0 = performance.now();
  const r = await client.query<PromoFields & { listing_id: number; retailer_id: number; day: string }>(
    `SELECT * FROM (
       SELECT DISTINCT ON (s.listing_id) s.listing_id, l.retailer_id, r.last_national_day::text AS day,
              s.price, s.promo_price, s.promo_kind, s.multibuy_qty, s.multibuy_price
         FROM national_price_span s JOIN listing l ON l.id = s.listing_id JOIN retailer r ON r.id = l.retailer_id
        WHERE r.last_national_day IS NOT NULL AND s.first_day <= r.last_national_day AND ${SPAN_TO} >= r.last_national_day
        ORDER BY s.listing_id, s.first_day DESC, s.id DESC
     ) c WHERE c.promo_kind IN (1, 2, 3) ORDER BY c.listing_id`,
  );
  const rows = { kind: [] as string[], listing: [] as number[], retailer: [] as number[], day: [] as string[], price: [] as number[], saving: [] as number[], pct: [] as number[] };
  const byKind = Object.fromEntries(DEAL_KINDS.map((k) => [k, 0])) as Record<DealKind, number>;
  let rejected = 0;
  for (const s of r.rows) {
    const d = dealOf(s);
    if (!d) {
      rejected++;
      continue;
    }
    rows.kind.push(d.kind);
    rows.listing.push(s.listing_id);
    rows.retailer.push(s.retailer_id);
    rows.day.push(s.day);
    rows.price.push(s.price);
    rows.saving.push(d.saving);
    rows.pct.push(d.savingPct);
    byKind[d.kind]++;
  }

  const deleted = (await client.query(
    `DELETE FROM deal d USING (
       SELECT kind, listing_id FROM deal EXCEPT SELECT * FROM unnest($1::text[], $2::int[])
     ) x WHERE d.kind = x.kind AND d.listing_id = x.listing_id`,
    [rows.kind, rows.listing],
  )).rowCount ?? 0;
  const written = (await client.query(
    `INSERT INTO deal (kind, listing_id, retailer_id, day, price, saving, saving_pct)
     SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::date[], $5::int[], $6::float8[], $7::float8[])
     ON CONFLICT (kind, listing_id) DO UPDATE SET retailer_id = EXCLUDED.retailer_id, day = EXCLUDED.day, price = EXCLUDED.price,
       saving = EXCLUDED.saving, saving_pct = EXCLUDED.saving_pct
     WHERE (deal.retailer_id, deal.day, deal.price, deal.saving, deal.saving_pct)
       IS DISTINCT FROM (EXCLUDED.retailer_id, EXCLUDED.day, EXCLUDED.price, EXCLUDED.saving, EXCLUDED.saving_pct)`,
    [rows.kind, rows.listing, rows.retailer, rows.day, rows.price, rows.saving, rows.pct],
  )).rowCount ?? 0;
  return { deals: rows.kind.length, byKind, rejected, written, deleted, seconds: (performance.now() - t0) / 1000 };
}
