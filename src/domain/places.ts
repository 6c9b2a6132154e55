/**
 * Places of stores (pure): the `town`, `area` and `urban` fields of a Store (api-spec "Store").
 *
 * The reference points are the 53 urban cores of Stats NZ's functional urban areas 2023
 * (`l5--nz-cities/urban_cores.csv`: id, name, class, centroid; loaded by workers/import/places.ts).
 * Each core's regional council is a geographic fact written down here ({@link CORE_REGIONS});
 * the data file does not carry it.
 *
 * Rule (see {@link placeStore}): a store belongs to the nearest urban core whose centroid lies
 * within the radius of that core's class ({@link RADIUS_KM}); otherwise it is rural, its town is
 * `Rural <region>` and its region is that of the nearest urban core of any class.
 */

/** A point in WGS84 decimal degrees. */
export interface LatLng {
  lat: number;
  lng: number;
}

/** Urban class of a store (the `urban` field; the values the list_stores filter accepts). */
export type UrbanClass = 'major' | 'large' | 'medium' | 'small' | 'rural';

/** Class names used by Stats NZ in `type_name`, and the urban class each one maps to. */
export const CORE_CLASSES: Readonly<Record<string, Exclude<UrbanClass, 'rural'>>> = Object.freeze({
  'Metropolitan area': 'major',
  'Large regional centre': 'large',
  'Medium regional centre': 'medium',
  'Small regional centre': 'small',
});

/**
 * Radius, in kilometres from a core's centroid, within which a store belongs to that urban core.
 *
 * Chosen from the real store lists (Woolworths, New World, PAK'nSAVE; 383 stores) so that a
 * functional urban area's satellite towns fall inside it while separate towns do not:
 * - major 40 km: Auckland reaches Pukekohe (≈ 36 km), Waiuku (≈ 39 km), the Hibiscus Coast and
 *   Helensville; Wellington reaches Upper Hutt (≈ 30 km) and Porirua; Christchurch reaches Rangiora
 *   and Rolleston. Amberley (≈ 43 km) and Pōkeno (≈ 44 km from Auckland) stay outside.
 * - large 16 km: New Plymouth reaches Waitara and Inglewood (≈ 15 km); Kapiti Coast does not reach
 *   Whitby, Paremata or Upper Hutt (≥ 21 km), which belong to Wellington.
 * - medium 10 km: Queenstown's stores (≈ 6 km from its centroid) are inside; Carterton (13 km from
 *   Masterton) and Temuka (16 km from Timaru) are rural.
 * - small 6 km: a small centre's own stores (< 4 km) are inside; Papamoa East (7 km from Te Puke)
 *   belongs to Tauranga.
 */
export const RADIUS_KM: Readonly<Record<Exclude<UrbanClass, 'rural'>, number>> = Object.freeze({
  major: 40,
  large: 16,
  medium: 10,
  small: 6,
});

/**
 * Regional council of each of the 53 urban cores, keyed by the Stats NZ `source_id`, with the core's
 * name as a check that the file is the one this table was written for. Names of councils as they
 * are officially written (macrons, "Hawke's Bay").
 */
export const CORE_REGIONS: Readonly<Record<number, readonly [name: string, region: string]>> = Object.freeze({
  1001: ['Auckland', 'Auckland'],
  1002: ['Hamilton', 'Waikato'],
  1003: ['Tauranga', 'Bay of Plenty'],
  1004: ['Wellington', 'Wellington'],
  1005: ['Christchurch', 'Canterbury'],
  1006: ['Dunedin', 'Otago'],
  2001: ['Whangārei', 'Northland'],
  2002: ['Rotorua', 'Bay of Plenty'],
  2003: ['Gisborne', 'Gisborne'],
  2004: ['Hastings', "Hawke's Bay"],
  2005: ['Napier', "Hawke's Bay"],
  2006: ['New Plymouth', 'Taranaki'],
  2007: ['Whanganui', 'Manawatū-Whanganui'],
  2008: ['Palmerston North', 'Manawatū-Whanganui'],
  2009: ['Kapiti Coast', 'Wellington'],
  2010: ['Nelson', 'Nelson'],
  2011: ['Invercargill', 'Southland'],
  3001: ['Cambridge', 'Waikato'],
  3002: ['Te Awamutu', 'Waikato'],
  3003: ['Tokoroa', 'Waikato'],
  3004: ['Taupō', 'Waikato'],
  3005: ['Whakatāne', 'Bay of Plenty'],
  3006: ['Feilding', 'Manawatū-Whanganui'],
  3007: ['Levin', 'Manawatū-Whanganui'],
  3008: ['Masterton', 'Wellington'],
  3009: ['Blenheim', 'Marlborough'],
  3010: ['Greymouth', 'West Coast'],
  3011: ['Ashburton', 'Canterbury'],
  3012: ['Timaru', 'Canterbury'],
  3013: ['Oamaru', 'Otago'],
  3014: ['Queenstown', 'Otago'],
  3015: ['Wānaka', 'Otago'],
  4001: ['Kaitāia', 'Northland'],
  4002: ['Kerikeri', 'Northland'],
  4003: ['Warkworth', 'Auckland'],
  4004: ['Whitianga', 'Waikato'],
  4005: ['Thames', 'Waikato'],
  4006: ['Waihī', 'Waikato'],
  4007: ['Huntly', 'Waikato'],
  4008: ['Morrinsville', 'Waikato'],
  4009: ['Matamata', 'Waikato'],
  4010: ['Katikati', 'Bay of Plenty'],
  4011: ['Te Puke', 'Bay of Plenty'],
  4012: ['Kawerau', 'Bay of Plenty'],
  4013: ['Stratford', 'Taranaki'],
  4014: ['Hāwera', 'Taranaki'],
  4015: ['Marton', 'Manawatū-Whanganui'],
  4016: ['Dannevirke', 'Manawatū-Whanganui'],
  4017: ['Ōtaki', 'Wellington'],
  4018: ['Motueka', 'Tasman'],
  4019: ['Cromwell', 'Otago'],
  4020: ['Alexandra', 'Otago'],
  4022: ['Gore', 'Southland'],
});

/** An urban core as read from `urban_cores.csv` (columns source_id, name, type_name, latitude, longitude). */
export interface UrbanCoreRow {
  id: number;
  name: string;
  /** Stats NZ class name, e.g. "Metropolitan area". */
  typeName: string;
  lat: number;
  lng: number;
}

/** An urban core with its urban class and regional council resolved. */
export interface UrbanCore extends LatLng {
  id: number;
  name: string;
  urban: Exclude<UrbanClass, 'rural'>;
  region: string;
}

/** The place fields of a store. */
export interface Place {
  /** Urban core name, or `Rural <region>`. */
  town: string;
  /** Regional council name. */
  area: string;
  urban: UrbanClass;
}

/** Thrown when an urban core row is not one this module knows (unknown id, name or class). */
export class PlaceError extends Error {}

const EARTH_RADIUS_KM = 6371.0088; // IUGG mean radius
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in kilometres between two points (haversine formula, mean Earth radius). */
export function haversineKm(a: LatLng, b: LatLng): number {
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * Resolves a core row's urban class and regional council.
 * @throws PlaceError when the class name is unknown, or the id is not in {@link CORE_REGIONS} or
 *   names a different place there (the file is not the one the table was written for).
 */
export function toUrbanCore(row: UrbanCoreRow): UrbanCore {
  const urban = CORE_CLASSES[row.typeName];
  if (!urban) throw new PlaceError(`urban core ${row.id} (${row.name}): unknown class "${row.typeName}"`);
  const known = CORE_REGIONS[row.id];
  if (!known) throw new PlaceError(`urban core ${row.id} (${row.name}) has no regional council in CORE_REGIONS`);
  if (known[0].normalize('NFC') !== row.name.normalize('NFC')) {
    throw new PlaceError(`urban core ${row.id} is "${row.name}" in the file but "${known[0]}" in CORE_REGIONS`);
  }
  return { id: row.id, name: row.name, urban, region: known[1], lat: row.lat, lng: row.lng };
}

/**
 * Places a store: `town` is the nearest urban core whose centroid lies within its class radius
 * ({@link RADIUS_KM}; haversine distance), `urban` that core's class and `area` its regional
 * council. A store within no radius is rural: `town` is `Rural <region>`, `urban` is 'rural' and
 * `area` is the regional council of the nearest urban core of any class (an approximation near
 * council boundaries: there are no boundary polygons here).
 * @throws PlaceError when `cores` is empty or the point is not a finite coordinate.
 */
export function placeStore(point: LatLng, cores: readonly UrbanCore[]): Place {
  if (!Number.isFinite(point.lat) || !Number.isFinite(point.lng)) throw new PlaceError('store coordinates are not numbers');
  if (cores.length === 0) throw new PlaceError('no urban cores to place stores against');
  let nearest: { core: UrbanCore; d: number } | null = null;
  let within: { core: UrbanCore; d: number } | null = null;
  for (const core of cores) {
    const d = haversineKm(point, core);
    if (!nearest || d < nearest.d) nearest = { core, d };
    if (d <= RADIUS_KM[core.urban] && (!within || d < within.d)) within = { core, d };
  }
  if (within) return { town: within.core.name, area: within.core.region, urban: within.core.urban };
  const region = (nearest as { core: UrbanCore }).core.region;
  return { town: `Rural ${region}`, area: region, urban: 'rural' };
}
