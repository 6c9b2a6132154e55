/**
 * Listing search (api-spec search_listings): a plain, case-insensitive substring match on the
 * listing name (ILIKE on escaped input, served by the pg_trgm index `listing_name_trgm_idx`),
 * ranked exact name first, then names starting with the text, then trigram similarity. Without a
 * query, the most recently seen listings. The SearchBackend abstraction of DESIGN.md comes later.
 */
import type pg from 'pg';
import { BadRequest } from '../errors.js';

/** Longest accepted query text (api-spec Limits: `q`). */
export const MAX_QUERY_LENGTH = 100;
/** search_listings `limit`: default and bounds (api-spec Limits). */
export const LISTING_LIMIT = { default: 20, min: 1, max: 100 } as const;

/** Escapes `%`, `_` and `\` so user text matches literally in LIKE/ILIKE (escape character `\`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Arguments of {@link searchListingIds}. */
export interface ListingSearch {
  /** Text to find in names; blank or absent lists recently seen listings. */
  q?: string | null;
  /** Retailer slug to restrict to. */
  retailer?: string | null;
  /** Result count, 1 to 100 (default 20). */
  limit?: number | null;
}

/**
 * The id of the retailer with `slug`.
 * @throws BadRequest when no retailer has that slug.
 */
export async function retailerIdBySlug(pool: pg.Pool, slug: string): Promise<number> {
  const { rows } = await pool.query<{ id: number }>('SELECT id FROM retailer WHERE slug = $1', [slug]);
  if (!rows[0]) throw new BadRequest(`Invalid parameter "retailer": unknown retailer slug "${slug}" (see /api/v1/retailers)`);
  return rows[0].id;
}

/**
 * Ids of the listings matching a search, best match first (without `q`: last seen first, newest id
 * first among equals).
 * @throws BadRequest when `q` is longer than 100 characters, `limit` is outside 1..100, or
 *   `retailer` is not a known slug.
 */
export async function searchListingIds(pool: pg.Pool, search: ListingSearch): Promise<number[]> {
  const q = search.q?.trim() || null;
  const limit = search.limit ?? LISTING_LIMIT.default;
  if (q !== null && [...q].length > MAX_QUERY_LENGTH) throw new BadRequest(`Invalid parameter "q": must be at most ${MAX_QUERY_LENGTH} characters`);
  if (!Number.isInteger(limit) || limit < LISTING_LIMIT.min || limit > LISTING_LIMIT.max) {
    throw new BadRequest(`limit must be an integer from ${LISTING_LIMIT.min} to ${LISTING_LIMIT.max}`);
  }
  const retailerId = search.retailer ? await retailerIdBySlug(pool, search.retailer) : null;
  if (q === null) {
    const { rows } = await pool.query<{ id: number }>(
      `SELECT l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id
       LEFT JOIN LATERAL (
         SELECT coalesce(sp.last_day, r.last_national_day) AS seen FROM national_price_span sp
         WHERE sp.listing_id = l.id ORDER BY sp.first_day DESC LIMIT 1) cur ON true
       WHERE ($1::int IS NULL OR l.retailer_id = $1)
       ORDER BY coalesce(cur.seen, l.first_seen) DESC, l.id DESC
       LIMIT $2`,
      [retailerId, limit],
    );
    return rows.map((r) => r.id);
  }
  const escaped = escapeLike(q);
  const { rows } = await pool.query<{ id: number }>(
    `SELECT l.id FROM listing l
     WHERE l.name ILIKE '%' || $1 || '%' ESCAPE '\\' AND ($3::int IS NULL OR l.retailer_id = $3)
     ORDER BY lower(l.name) = lower($2) DESC, l.name ILIKE $1 || '%' ESCAPE '\\' DESC,
       similarity(l.name, $2) DESC, l.id
     LIMIT $4`,
    [escaped, q, retailerId, limit],
  );
  return rows.map((r) => r.id);
}

/** Rows put in the order of `ids` (rows whose id is not listed are dropped). */
export function orderByIds<T extends { id: number }>(ids: readonly number[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [row] : [];
  });
}
