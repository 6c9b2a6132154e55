/**
 * Store lists of the real data → `store` rows, each placed (town, area, urban) against the urban
 * cores. Sources (../shared/data/README.md):
 * - PAK'nSAVE: the store API's JSON (58 stores). Region code from `salesOrgId`: "5000" is
 *   Foodstuffs North Island → "NI", "12" is Foodstuffs South Island → "SI".
 * - New World: Blim3202 `newworld_stores.csv` (148 stores; `region` column NI/SI).
 * - Woolworths: Blim3202 `woolworths_stores.csv` (177 stores; no region code → null). Its names
 *   and addresses carry literal tabs and stray spaces, which are trimmed away.
 * Four Square (nwbort/stores-foursquare) is not one of the six chains and has no coordinates: not read.
 */
import fs from 'node:fs';
import type pg from 'pg';
import { z } from 'zod';
import { countInto, emptyRecord } from '../../src/domain/dictionary.js';
import { placeStore, type UrbanCore } from '../../src/domain/places.js';
import { upsertStores, type StoreInput, type UpsertStoresResult } from '../ingest/stores.js';
import { ImportError, readCsvFile, type SourcePaths } from './sources.js';
import { loadUrbanCores } from './places.js';

/** A store as read from a list, before it is placed. */
export type ListedStore = Omit<StoreInput, 'town' | 'area' | 'urban' | 'external_id'> & { external_id: string };

/** Collapses runs of whitespace (tabs included) to one space and trims. */
export function cleanText(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Cleans a comma-separated address: each part trimmed, empty parts dropped, joined by ", ". */
export function cleanAddress(s: string): string | null {
  const parts = s.split(',').map(cleanText).filter((p) => p !== '');
  return parts.length ? parts.join(', ') : null;
}

function coord(file: string, line: number, v: string, what: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new ImportError(file, `${what} is not a number: "${v}"`, line);
  return n;
}

/** `salesOrgId` (the file's text) → region code; a Map, so no text finds Object.prototype's keys. */
const SALES_ORG_REGION: ReadonlyMap<string, string> = new Map([['5000', 'NI'], ['12', 'SI']]);

const paknsaveJson = z.object({
  stores: z.array(
    z.object({
      id: z.string().min(1),
      name: z.string().min(1),
      banner: z.string(),
      address: z.string().nullish(),
      latitude: z.number(),
      longitude: z.number(),
      salesOrgId: z.string(),
    }),
  ).min(1),
});

/**
 * PAK'nSAVE stores from the store API JSON (`{ stores: [...] }`, banner "PNS").
 * @throws ImportError for invalid JSON, a record of another banner or an unknown salesOrgId.
 */
export function readPaknsaveStores(file: string): ListedStore[] {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ImportError(file, `not JSON: ${(e as Error).message}`);
  }
  const r = paknsaveJson.safeParse(json);
  if (!r.success) throw new ImportError(file, r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return r.data.stores.map((s, i) => {
    if (s.banner !== 'PNS') throw new ImportError(file, `stores[${i}] (${s.name}) has banner "${s.banner}", not PNS`);
    const region = SALES_ORG_REGION.get(s.salesOrgId);
    if (!region) throw new ImportError(file, `stores[${i}] (${s.name}) has unknown salesOrgId "${s.salesOrgId}" (5000 = NI, 12 = SI)`);
    return {
      retailer: 'paknsave',
      external_id: s.id,
      name: cleanText(s.name),
      address: s.address ? cleanAddress(s.address) : null,
      region,
      lat: s.latitude,
      lng: s.longitude,
    };
  });
}

/**
 * New World stores from `newworld_stores.csv` (store_id, name, address, city, region, latitude, longitude).
 * @throws ImportError for a missing column or a bad coordinate.
 */
export function readNewWorldStores(file: string): ListedStore[] {
  return readCsvFile(file, ['store_id', 'name', 'address', 'region', 'latitude', 'longitude']).map(({ line, row }) => ({
    retailer: 'newworld',
    external_id: row.store_id.trim(),
    name: cleanText(row.name),
    address: cleanAddress(row.address),
    region: cleanText(row.region) || null,
    lat: coord(file, line, row.latitude, 'latitude'),
    lng: coord(file, line, row.longitude, 'longitude'),
  }));
}

/**
 * Woolworths stores from `woolworths_stores.csv` (id, name, address, latitude, longitude); names
 * and addresses cleaned of tabs and stray spaces; no region code.
 * @throws ImportError for a missing column or a bad coordinate.
 */
export function readWoolworthsStores(file: string): ListedStore[] {
  return readCsvFile(file, ['id', 'name', 'address', 'latitude', 'longitude']).map(({ line, row }) => ({
    retailer: 'woolworths',
    external_id: row.id.trim(),
    name: cleanText(row.name),
    address: cleanAddress(row.address),
    region: null,
    lat: coord(file, line, row.latitude, 'latitude'),
    lng: coord(file, line, row.longitude, 'longitude'),
  }));
}

/** Adds town, area and urban class to listed stores. */
export function placeStores(stores: readonly ListedStore[], cores: readonly UrbanCore[]): StoreInput[] {
  return stores.map((s) => ({ ...s, ...placeStore({ lat: s.lat, lng: s.lng }, cores) }));
}

/** What the store import did. */
export interface StoreImportReport extends UpsertStoresResult {
  /** Stores read per retailer slug. */
  read: Record<string, number>;
  /** Stores per urban class (major … rural). */
  urban: Record<string, number>;
}

/**
 * Reads the three store lists and the urban cores, places every store and upserts them all in one
 * transaction.
 * @throws ImportError for a malformed source; StoreInputError for an invalid store.
 */
export async function importStores(pool: pg.Pool, paths: SourcePaths): Promise<StoreImportReport> {
  const cores = loadUrbanCores(paths.urbanCores);
  const listed = [
    ...readPaknsaveStores(paths.paknsaveStores),
    ...readNewWorldStores(paths.newworldStores),
    ...readWoolworthsStores(paths.woolworthsStores),
  ];
  const stores = placeStores(listed, cores);
  const result = await upsertStores(pool, stores);
  const count = (key: (s: StoreInput) => string) =>
    stores.reduce((acc, s) => (countInto(acc, key(s)), acc), emptyRecord<number>());
  return { ...result, read: count((s) => s.retailer), urban: count((s) => String(s.urban)) };
}
