/**
 * The deal view of the derived-views worker (issue 16 item 5; api-spec list_deals): the `deal`
 * table, rebuilt on every build inside the transaction the orchestrator (workers/views/run.ts)
 * opened. The rules are src/domain/deals.ts (pure); this module reads their inputs and writes the
 * rows.
 *
 * **Current promotions**: for each chain with a national collection, its current national price
 * spans (`currentSpanSql`, src/services/span-sql.ts; src/domain/spans.ts isCurrentSpan: open, and
 * observed — the day of record — within the 14-day cap of the chain's latest collection day D,
 * retailer.last_national_day); should a listing have two, its latest (`latestSpanOrderSql`). So an offer the
 * chain's recent collections no longer saw leaves the feed. Each one whose promotion is a deal
 * (`dealOf`: promo_kind 1 special, 2 member, 3 multibuy; 4 clearance is none; the saving must be
 * positive) gives one row per (kind, listing): retailer_id, day = the day the offer was last
 * observed (the span's `to`), price = the shelf price, saving (cents per unit:
 * price − promo_price, or for a multibuy price − multibuy_price ÷ multibuy_qty) and saving_pct =
 * saving ÷ price. A chain without a national collection has no deals.
 *
 * Diff-written: rows no longer current are deleted, new or changed rows are written, equal rows
 * are left alone, so a rebuild with nothing changed writes nothing and leaves identical rows.
 *
 * **Special checks** (issue 16 item 6, beyond the contract): in the same build, every deal is
 * checked against its listing's national history (src/domain/special-check.ts `checkSpecial`:
 * promo price against the usual and lowest prices of the 90 days before the promotion started, a
 * shelf-price rise shortly before it, a verdict) and written to `special_check`, one row per deal
 * row (same key; its foreign key to `deal` cascades deletes). The spans of the deals' listings are
 * read in one statement (each listing's spans starting on or before D, oldest first: the last is
 * the deal's span); diff-written like the deals.
 */
import type pg from 'pg';
import { DEAL_KINDS, DEAL_PROMO_KINDS, dealOf, type DealKind, type PromoFields } from '../../src/domain/deals.js';
import { checkSpecial, SPECIAL_VERDICTS, type SpecialVerdict } from '../../src/domain/special-check.js';
import type { Span } from '../../src/domain/spans.js';
import { currentSpanSql, latestSpanOrderSql, nationalCoveredDay, spanColumnsSql, spanToSql } from '../../src/services/span-sql.js';

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
  /** The special_check rows (one per deal): by verdict, rows inserted or updated, rows deleted. */
  checks: { byVerdict: Record<SpecialVerdict, number>; written: number; deleted: number };
  seconds: number;
}

/** SQL of a national span's last priced day (open-span rule), for alias `s` with retailer alias `r`. */
const SPAN_TO = spanToSql('s', nationalCoveredDay('r'));

/**
 * Rebuilds the `deal` table (module comment) in the caller's transaction.
 * @throws the database's errors.
 */
export async function buildDeals(client: pg.PoolClient): Promise<DealsReport> {
  const t0 = performance.now();
  const r = await client.query<PromoFields & { listing_id: number; retailer_id: number; day: string }>(
    `SELECT * FROM (
       SELECT DISTINCT ON (s.listing_id) s.listing_id, l.retailer_id, (${SPAN_TO})::text AS day,
              s.price, s.promo_price, s.promo_kind, s.multibuy_qty, s.multibuy_price
         FROM national_price_span s JOIN listing l ON l.id = s.listing_id JOIN retailer r ON r.id = l.retailer_id
        WHERE r.last_national_day IS NOT NULL AND s.first_day <= r.last_national_day AND ${currentSpanSql('s', 'r', 'national')}
        ORDER BY s.listing_id, ${latestSpanOrderSql('s')}
     ) c WHERE c.promo_kind IN (${DEAL_PROMO_KINDS.join(', ')}) ORDER BY c.listing_id`,
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
  const checks = await writeChecks(client, rows.kind as DealKind[], rows.listing);
  return { deals: rows.kind.length, byKind, rejected, written, deleted, checks, seconds: (performance.now() - t0) / 1000 };
}

/** special_check columns, in insert order, with their SQL array types. */
const CHECK_COLUMNS = [
  ['kind', 'text'], ['listing_id', 'int'], ['promo_price', 'float8'], ['shelf_price', 'int'], ['promo_since', 'date'],
  ['window_from', 'date'], ['window_to', 'date'], ['days_observed', 'int'], ['promo_days', 'int'], ['usual_price', 'int'],
  ['lowest_price', 'int'], ['lowest_shelf_price', 'int'], ['rise_from', 'int'], ['rise_to', 'int'], ['rise_day', 'date'],
  ['saving_vs_usual', 'float8'], ['verdict', 'text'],
] as const;

/**
 * Checks each deal (kinds[i], listings[i], both as written to `deal`) against its listing's
 * national spans and diff-writes `special_check` (module comment).
 * @throws Error when a deal's spans give no check (the deal and its span disagree: a bug), and the
 *   database's errors.
 */
async function writeChecks(client: pg.PoolClient, kinds: DealKind[], listings: number[]): Promise<DealsReport['checks']> {
  const r = await client.query<Span & { listing_id: number; scope_covered_day: string | null }>(
    `SELECT s.listing_id, ${spanColumnsSql('s')}, r.covered_day::text AS scope_covered_day
       FROM national_price_span s JOIN listing l ON l.id = s.listing_id JOIN retailer r ON r.id = l.retailer_id
      WHERE s.listing_id = ANY($1::int[]) AND s.first_day <= r.last_national_day
      ORDER BY s.listing_id, s.first_day, s.id`,
    [listings],
  );
  const spans = new Map<number, { spans: Span[]; last: string | null }>();
  for (const row of r.rows) {
    const { listing_id, scope_covered_day, ...span } = row;
    const e = spans.get(listing_id) ?? { spans: [], last: scope_covered_day };
    e.spans.push(span);
    spans.set(listing_id, e);
  }
  const byVerdict = Object.fromEntries(SPECIAL_VERDICTS.map((v) => [v, 0])) as Record<SpecialVerdict, number>;
  const cols: unknown[][] = CHECK_COLUMNS.map(() => []);
  kinds.forEach((kind, i) => {
    const listing = listings[i];
    const e = spans.get(listing);
    const c = e ? checkSpecial(e.spans, e.last) : null;
    if (!c || c.kind !== kind) throw new Error(`special check: listing ${listing}'s latest span is not its ${kind} deal`);
    byVerdict[c.verdict]++;
    [
      kind, listing, c.promoPrice, c.shelfPrice, c.promoSince, c.windowFrom, c.windowTo, c.daysObserved, c.promoDays, c.usualPrice,
      c.lowestPrice, c.lowestShelfPrice, c.shelfRise?.from ?? null, c.shelfRise?.to ?? null, c.shelfRise?.day ?? null,
      c.savingVsUsual, c.verdict,
    ].forEach((v, j) => cols[j].push(v));
  });
  const deleted = (await client.query(
    `DELETE FROM special_check c USING (
       SELECT kind, listing_id FROM special_check EXCEPT SELECT * FROM unnest($1::text[], $2::int[])
     ) x WHERE c.kind = x.kind AND c.listing_id = x.listing_id`,
    [kinds, listings],
  )).rowCount ?? 0;
  const names = CHECK_COLUMNS.map(([n]) => n);
  const rest = names.slice(2);
  const written = (await client.query(
    `INSERT INTO special_check (${names.join(', ')})
     SELECT * FROM unnest(${CHECK_COLUMNS.map(([, t], j) => `$${j + 1}::${t}[]`).join(', ')})
     ON CONFLICT (kind, listing_id) DO UPDATE SET ${rest.map((n) => `${n} = EXCLUDED.${n}`).join(', ')}
     WHERE (${rest.map((n) => `special_check.${n}`).join(', ')}) IS DISTINCT FROM (${rest.map((n) => `EXCLUDED.${n}`).join(', ')})`,
    cols,
  )).rowCount ?? 0;
  return { byVerdict, written, deleted };
}
