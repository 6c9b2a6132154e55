/**
 * Store lists → the `store` table. Stores are keyed by (retailer, the retailer's own store id);
 * an upsert inserts new stores and rewrites only the stores whose fields changed.
 */
import { inTransaction } from '../../src/db/transaction.js';
import type pg from 'pg';
import { z } from 'zod';
import { ExpectedError } from '../../src/errors.js';

const text = (max: number) => z.string().trim().min(1).max(max);
const optText = (max: number) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : v ?? null), z.string().trim().max(max).nullable());

/** New Zealand, Chatham Islands included (they lie across the antimeridian). */
function inNewZealand(lat: number, lng: number): boolean {
  return lat >= -53 && lat <= -29 && ((lng >= 165 && lng <= 180) || (lng >= -180 && lng <= -175));
}

/** One store as an importer builds it. */
export const storeInputSchema = z
  .object({
    /** Retailer slug, e.g. "paknsave". */
    retailer: z.string().regex(/^[a-z]+$/, 'must be a lowercase retailer slug'),
    /** The retailer's own store id (text; UUIDs and integers alike). */
    external_id: z.coerce.string().trim().min(1).max(200),
    name: text(200),
    address: optText(500),
    /** The retailer's own region code (e.g. NI/SI), or null. */
    region: optText(50),
    /** WGS84 decimal degrees. */
    lat: z.number().finite().min(-90).max(90),
    lng: z.number().finite().min(-180).max(180),
    /** Nearest urban area or `Rural <region>` (src/domain/places.ts). */
    town: text(100),
    /** Regional council. */
    area: text(100),
    urban: z.enum(['major', 'large', 'medium', 'small', 'rural']).nullable(),
  })
  .refine((s) => inNewZealand(s.lat, s.lng), { message: 'coordinates are not in New Zealand (lat/lng swapped?)', path: ['lat'] });

/** A store before validation (see {@link storeInputSchema} for the rules). */
export interface StoreInput {
  retailer: string;
  external_id: string | number;
  name: string;
  address?: string | null;
  region?: string | null;
  lat: number;
  lng: number;
  town: string;
  area: string;
  urban: 'major' | 'large' | 'medium' | 'small' | 'rural' | null;
}
/** A validated store. */
export type StoreRow = z.output<typeof storeInputSchema>;

/** What an upsert did: stores inserted, stores rewritten because a field changed, stores left as they were. */
export interface UpsertStoresResult {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** Thrown for invalid store input; nothing is written. `index` is the 0-based position of the first bad store. */
export class StoreInputError extends ExpectedError {
  constructor(
    message: string,
    readonly index: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Inserts or updates stores by (retailer, external_id) in one transaction. Only rows whose fields
 * differ are written, so a repeated call changes nothing. Stores absent from `stores` are left as
 * they are.
 * @throws StoreInputError (nothing written) for an invalid store, a store given twice, or an
 *   unknown retailer slug.
 */
export async function upsertStores(pool: pg.Pool, stores: readonly StoreInput[]): Promise<UpsertStoresResult> {
  const rows: StoreRow[] = [];
  const seen = new Map<string, number>();
  stores.forEach((s, i) => {
    const r = storeInputSchema.safeParse(s);
    if (!r.success) {
      const label = typeof s === 'object' && s ? `${(s as StoreInput).retailer ?? '?'} store ${(s as StoreInput).external_id ?? '?'}` : 'store';
      const detail = r.error.issues.map((x) => `${x.path.join('.') || 'store'}: ${x.message}`).join('; ');
      throw new StoreInputError(`store #${i} (${label}): ${detail}`, i);
    }
    const key = `${r.data.retailer}\u0000${r.data.external_id}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new StoreInputError(`store #${i}: ${r.data.retailer} store ${r.data.external_id} is also store #${first}`, i);
    }
    seen.set(key, i);
    rows.push(r.data);
  });
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };

  return inTransaction(pool, async (client) => {
    const slugs = [...new Set(rows.map((r) => r.retailer))];
    const known = await client.query<{ slug: string }>('SELECT slug FROM retailer WHERE slug = ANY($1::text[])', [slugs]);
    const missing = slugs.filter((s) => !known.rows.some((k) => k.slug === s));
    if (missing.length) throw new StoreInputError(`unknown retailer ${missing.map((m) => `"${m}"`).join(', ')}`);

    const res = await client.query<{ inserted: boolean }>(
      `INSERT INTO store AS s (retailer_id, external_id, name, address, region, lat, lng, town, area, urban)
       SELECT r.id, x.external_id, x.name, x.address, x.region, x.lat, x.lng, x.town, x.area, x.urban
       FROM jsonb_to_recordset($1::jsonb) AS x(retailer text, external_id text, name text, address text, region text,
         lat double precision, lng double precision, town text, area text, urban text)
       JOIN retailer r ON r.slug = x.retailer
       ON CONFLICT (retailer_id, external_id) DO UPDATE SET
         name = EXCLUDED.name, address = EXCLUDED.address, region = EXCLUDED.region, lat = EXCLUDED.lat,
         lng = EXCLUDED.lng, town = EXCLUDED.town, area = EXCLUDED.area, urban = EXCLUDED.urban
       WHERE (s.name, s.address, s.region, s.lat, s.lng, s.town, s.area, s.urban)
         IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.address, EXCLUDED.region, EXCLUDED.lat, EXCLUDED.lng, EXCLUDED.town, EXCLUDED.area, EXCLUDED.urban)
       RETURNING (xmax = 0) AS inserted`,
      [JSON.stringify(rows)],
    );
    const inserted = res.rows.filter((r) => r.inserted).length;
    const updated = res.rows.length - inserted;
    return { inserted, updated, unchanged: rows.length - inserted - updated };
  });
}
