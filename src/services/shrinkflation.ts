/**
 * Reads of list_shrinkflation (issue 32 item 4, beyond the contract): the size changes of a window
 * from the size history (`listing_size_span`, kept by triggers on listing: migration
 * 20261210000000_listing_size_span) with the shelf prices around them, judged by the one rule
 * (src/domain/shrinkflation.ts `shrinkEvent`). Nothing here decides what shrinkflation is: SQL picks
 * each change's two sizes and its two shelf prices (the national span in force before the change day
 * and on it: `shelfPriceAt`'s SQL form, tested equal to it in test/integration/shrinkflation.test.ts)
 * and the rule keeps the events.
 *
 * A direct query, not a derived view: a size change is rare (most listings keep one size span), so
 * the window's changes are few and each reads two national spans through their listing index. The
 * changes read are capped at {@link MAX_SIZE_CHANGES} (newest first), a bound no real catalogue
 * reaches (see docs/operations.md "list_shrinkflation").
 */
import type pg from 'pg';
import { getShelf, kindsUnder } from '../domain/shelves.js';
import { SHRINK_DAYS, SHRINK_LIMIT, shrinkEvent, windowFrom, type ShrinkEvent } from '../domain/shrinkflation.js';
import { BadRequest, checkedInt, NotFound } from '../errors.js';
import { retailerIdBySlug } from './search.js';

/** The most size changes one answer reads (newest first). */
export const MAX_SIZE_CHANGES = 50_000;

/** Arguments of list_shrinkflation (validated by the facades; checked again here for /graphql). */
export interface ShrinkflationArgs {
  /** Retailer slug: only that chain's listings; unknown gives BadRequest. */
  retailer?: string | null;
  /** Shelf slug (list_shelves): only listings whose kind is on that shelf or below it; unknown gives BadRequest. */
  shelf?: string | null;
  /** Listing id: only that listing's events (its whole size history within the window); unknown gives NotFound. */
  listing?: number | null;
  /** Window length in days ending at as_of ({@link SHRINK_DAYS}). */
  days?: number | null;
  /** Events returned ({@link SHRINK_LIMIT}). */
  limit?: number | null;
}

/** One event with its listing. */
export interface ShrinkflationEvent extends ShrinkEvent {
  listing_id: number;
  /** Retailer slug. */
  retailer: string;
  name: string;
  brand: string | null;
}

/** The answer: the window, the number of events in it and the newest `limit` of them. */
export interface ShrinkflationAnswer {
  /** The data's last observed day (the chain's with `retailer`), the window's last day; null when nothing was collected. */
  as_of: string | null;
  /** The window's first day (as_of − days + 1); null with as_of. */
  from: string | null;
  days: number;
  /** Events in the window under the filters (not only the page). */
  total: number;
  /** Newest change day first, then the largest unit-price rise, then listing id. */
  events: ShrinkflationEvent[];
}

/** A size change in the window with the shelf prices around it (one SQL row). */
interface ChangeRow {
  listing_id: number;
  retailer: string;
  name: string;
  brand: string | null;
  weighable: boolean;
  day: string;
  old_size: string;
  new_size: string;
  old_price: number | null;
  new_price: number | null;
}

/**
 * The size changes of listings (all, or `listingIds`) whose new size was first observed within
 * `from` … `to`, each with the size before it and the shelf prices before and on its day (the
 * national span in force: latest first_day < day, and latest first_day ≤ day). Newest first, at
 * most {@link MAX_SIZE_CHANGES}. Exported for the test that holds it equal to the domain rule.
 */
export async function sizeChanges(
  pool: pg.Pool, from: string, to: string,
  filter: { retailerId?: number | null; kinds?: string[] | null; listingIds?: number[] | null } = {},
): Promise<ChangeRow[]> {
  const { rows } = await pool.query<ChangeRow>(
    `SELECT c.listing_id, r.slug AS retailer, l.name, l.brand, l.weighable, c.first_day::text AS day,
       c.prev_size_text AS old_size, c.size_text AS new_size,
       (SELECT n.price FROM national_price_span n WHERE n.listing_id = c.listing_id AND n.first_day < c.first_day
         ORDER BY n.first_day DESC LIMIT 1) AS old_price,
       (SELECT n.price FROM national_price_span n WHERE n.listing_id = c.listing_id AND n.first_day <= c.first_day
         ORDER BY n.first_day DESC LIMIT 1) AS new_price
     FROM listing_size_span c
     JOIN listing l ON l.id = c.listing_id
     JOIN retailer r ON r.id = l.retailer_id
     WHERE c.prev_size_text IS NOT NULL AND c.first_day BETWEEN $1::date AND $2::date
       AND ($3::int IS NULL OR l.retailer_id = $3::int)
       AND ($4::text[] IS NULL OR l.generic_id IN (SELECT g.id FROM generic g JOIN kind k ON k.id = g.kind_id WHERE k.slug = ANY($4::text[])))
       AND ($5::int[] IS NULL OR c.listing_id = ANY($5::int[]))
     ORDER BY c.first_day DESC, c.listing_id
     LIMIT ${MAX_SIZE_CHANGES}`,
    [from, to, filter.retailerId ?? null, filter.kinds ?? null, filter.listingIds ?? null],
  );
  return rows;
}

/**
 * list_shrinkflation: the shrinkflation events (src/domain/shrinkflation.ts) whose change day is in
 * the `days` days ending at as_of, newest first. Three statements at most (the retailer's id, as_of,
 * the changes; one more with `listing`).
 * @throws BadRequest for an unknown retailer or shelf slug, `days` or `limit` out of range, a listing
 *   id that is not a positive integer; NotFound for an unknown listing id.
 */
export async function shrinkflationEvents(pool: pg.Pool, args: ShrinkflationArgs): Promise<ShrinkflationAnswer> {
  const days = checkedInt('days', args.days, SHRINK_DAYS);
  const limit = checkedInt('limit', args.limit, SHRINK_LIMIT);
  const shelfSlug = args.shelf?.trim() || null;
  if (shelfSlug !== null && !getShelf(shelfSlug)) {
    throw new BadRequest(`Invalid parameter "shelf": unknown shelf slug "${shelfSlug}" (see /api/v1/shelves)`);
  }
  const retailer = args.retailer?.trim() || null;
  const retailerId = retailer === null ? null : await retailerIdBySlug(pool, retailer);
  const listing = args.listing ?? null;
  if (listing !== null) {
    if (!Number.isInteger(listing) || listing < 1) throw new BadRequest('Invalid parameter "listing": must be a positive integer');
    const found = await pool.query('SELECT 1 FROM listing WHERE id = $1', [listing]);
    if (found.rowCount === 0) throw new NotFound(`No listing ${listing}`);
  }
  const { rows } = await pool.query<{ as_of: string | null }>(
    'SELECT max(last_national_day)::text AS as_of FROM retailer WHERE $1::int IS NULL OR id = $1::int',
    [retailerId],
  );
  const asOf = rows[0]?.as_of ?? null;
  if (asOf === null) return { as_of: null, from: null, days, total: 0, events: [] };
  const from = windowFrom(asOf, days);
  const changes = await sizeChanges(pool, from, asOf, {
    retailerId, kinds: shelfSlug === null ? null : kindsUnder(shelfSlug), listingIds: listing === null ? null : [listing],
  });
  const events: ShrinkflationEvent[] = [];
  for (const c of changes) {
    if (c.old_price == null || c.new_price == null) continue;
    const e = shrinkEvent(c.day, c.old_size, c.new_size, c.old_price, c.new_price, c.weighable);
    if (e) events.push({ listing_id: c.listing_id, retailer: c.retailer, name: c.name, brand: c.brand, ...e });
  }
  events.sort((a, b) => (a.day !== b.day ? (a.day < b.day ? 1 : -1) : b.unit_price_change - a.unit_price_change || a.listing_id - b.listing_id));
  return { as_of: asOf, from, days, total: events.length, events: events.slice(0, limit) };
}
