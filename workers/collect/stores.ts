/**
 * Store directories in a collection run (issue 18): a chain whose stores are not in any store list
 * the importer reads (FreshChoice, SuperValue: workers/import/stores.ts reads PAK'nSAVE, New World
 * and Woolworths only) lists them through its collector's optional `stores()` (the platform's own
 * public store directory), and the runner upserts them before choosing the day's scopes.
 *
 * Rules: one transaction (workers/ingest/stores.ts upsertStores), idempotent (a store whose fields
 * did not change is not rewritten), never deleting or deactivating a store the directory no longer
 * lists. A store with coordinates is placed into town, area and urban class by the store importer's
 * rule (src/domain/places.ts placeStore against the urban cores, workers/import/places.ts). A store
 * without coordinates cannot be placed (the store table needs them): when the table already has it,
 * only its name and address are refreshed (its coordinates and place kept); otherwise it is logged
 * and left out — add it with coordinates (or import a list that has them) to collect it.
 */
import type pg from 'pg';
import { placeStore, type UrbanCore } from '../../src/domain/places.js';
import { upsertStores, type StoreInput, type UpsertStoresResult } from '../ingest/stores.js';
import { cleanAddress, cleanText } from '../import/stores.js';
import type { DirectoryStore } from './types.js';

/** What syncing a chain's directory did. */
export interface DirectoryReport extends UpsertStoresResult {
  /** Stores the directory listed. */
  listed: number;
  /** External ids left out: no coordinates and not in the store table (or no urban cores to place against). */
  unplaced: string[];
}

/**
 * Upserts a chain's directory stores (see the module comment).
 * @param cores the urban cores to place against; null: stores with coordinates that are new are left out too.
 * @throws StoreInputError (nothing written) for an invalid store (coordinates outside New Zealand, an empty name).
 */
export async function upsertDirectoryStores(
  pool: pg.Pool, retailer: string, listed: readonly DirectoryStore[], cores: readonly UrbanCore[] | null, log: (line: string) => void,
): Promise<DirectoryReport> {
  const existing = await pool.query<{ external_id: string; address: string | null; region: string | null; lat: number; lng: number; town: string; area: string; urban: StoreInput['urban'] }>(
    `SELECT s.external_id, s.address, s.region, s.lat, s.lng, s.town, s.area, s.urban FROM store s JOIN retailer r ON r.id = s.retailer_id WHERE r.slug = $1`,
    [retailer],
  );
  const known = new Map(existing.rows.map((s) => [s.external_id, s]));
  const out: StoreInput[] = [];
  const unplaced: string[] = [];
  const seen = new Set<string>();
  for (const d of listed) {
    const id = d.external_id.trim();
    if (seen.has(id)) continue;
    seen.add(id);
    const name = cleanText(d.name);
    const address = d.address ? cleanAddress(d.address) : null;
    const has = typeof d.lat === 'number' && typeof d.lng === 'number' && Number.isFinite(d.lat) && Number.isFinite(d.lng);
    const old = known.get(id);
    if (has && cores) {
      out.push({ retailer, external_id: id, name, address: address ?? old?.address ?? null, region: old?.region ?? null, lat: d.lat as number, lng: d.lng as number, ...placeStore({ lat: d.lat as number, lng: d.lng as number }, cores) });
    } else if (old) {
      out.push({ retailer, external_id: id, name, address: address ?? old.address, region: old.region, lat: old.lat, lng: old.lng, town: old.town, area: old.area, urban: old.urban });
    } else {
      unplaced.push(id);
      log(`store directory: ${retailer} store ${id} (${name}) ${has ? 'cannot be placed: no urban cores file' : 'has no coordinates in the directory'}; not added (add it with coordinates to collect it)`);
    }
  }
  const r = await upsertStores(pool, out);
  return { ...r, listed: seen.size, unplaced };
}
