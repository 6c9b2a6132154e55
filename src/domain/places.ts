/**
 * Places of stores (pure): the `town`, `area` and `urban` fields of a Store (api-spec "Store").
 *
 * The reference points are the 53 urban cores of Stats NZ's functional urban areas 2023
 * (`l5--nz-cities/urban_cores.csv`: id, name, class, centroid; loaded by workers/import/places.ts).
 * Each core's regional council is a geographic fact written down here ({@link CORE_REGIONS});
 * the data file does not carry it.
 *
 * Rule (see {@link placeStore}): a store belongs to the nearest urban core whose centroid lies
 * within the radius of that core's class ({@link RADIUS_KM}); otherwise it is rural and its town is
 * `Rural <region>`. A rural store's region is that of the nearest rural service town within
 * {@link SERVICE_TOWN_RADIUS_KM} ({@link SERVICE_TOWNS}: towns outside the urban cores, with their
 * regional council written down as a geographic fact), and only failing that the region of the
 * nearest urban core of any class (an approximation that is wrong near council boundaries).
 */
import { ExpectedError } from '../errors.js';

/** A point in WGS84 decimal degrees. */
export interface LatLng {
  lat: number;
  lng: number;
}

/** Urban class of a store (the `urban` field; the values the list_stores filter accepts). */
export type UrbanClass = 'major' | 'large' | 'medium' | 'small' | 'rural';

/**
 * Class names used by Stats NZ in `type_name`, and the urban class each one maps to. A Map: it is
 * looked up by a file's text, which an object would answer from Object.prototype ("constructor").
 */
export const CORE_CLASSES: ReadonlyMap<string, Exclude<UrbanClass, 'rural'>> = new Map<string, Exclude<UrbanClass, 'rural'>>([
  ['Metropolitan area', 'major'],
  ['Large regional centre', 'large'],
  ['Medium regional centre', 'medium'],
  ['Small regional centre', 'small'],
]);

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

/** A rural service town: a town outside every urban core, with its regional council. */
export interface ServiceTown extends LatLng {
  name: string;
  /** Regional council (unitary authorities included), written as in {@link CORE_REGIONS}. */
  region: string;
}

/**
 * Radius, in kilometres from a rural service town's centre, within which a rural store takes that
 * town's regional council. A service town's built-up area lies within 2–3 km of its centre and
 * the real stores of these towns within 2 km; 5 km keeps the rule off the regional boundaries
 * near some of them (Mangawhai is ≈ 7 km from the Auckland boundary at Te Arai, Te Aroha a few km
 * from the Bay of Plenty boundary on the Kaimai Range). The towns are ≥ 17 km apart. A service
 * town is consulted only for a rural store: where its circle overlaps an urban core's radius
 * (Carterton–Masterton, Pōkeno–Auckland, Amberley–Christchurch, …), the core wins.
 */
export const SERVICE_TOWN_RADIUS_KM = 5;

/**
 * Rural service towns: every town that lies outside all 53 urban cores' radii and has a store in
 * the real store lists (Woolworths, New World, PAK'nSAVE; ../shared/data). Centre coordinates
 * (town centre, WGS84, ± 1 km) and regional councils are geographic facts, not taken from the
 * store data. The nearest-urban-core fallback alone put nine stores of seven of these towns — near a
 * regional boundary, their nearest core across it — in the wrong council: Taumarunui (Taupō, Waikato),
 * Waipukurau (Dannevirke, Manawatū-Whanganui), Kaikōura (Blenheim, Marlborough), Waimate (Oamaru,
 * Otago), Balclutha (Gore, Southland), Mangawhai (Warkworth, Auckland) and Te Aroha (Katikati,
 * Bay of Plenty). A new rural store in a town not listed here falls back to the nearest core.
 */
export const SERVICE_TOWNS: readonly ServiceTown[] = Object.freeze(
  (
    [
      // Northland
      ['Kaikohe', -35.407, 173.8, 'Northland'],
      ['Paihia', -35.282, 174.091, 'Northland'],
      ['Dargaville', -35.94, 173.87, 'Northland'],
      ['Mangawhai', -36.102, 174.586, 'Northland'],
      // Waikato
      ['Te Kauwhata', -37.402, 175.144, 'Waikato'],
      ['Pōkeno', -37.247, 175.023, 'Waikato'],
      ['Paeroa', -37.378, 175.67, 'Waikato'],
      ['Te Aroha', -37.542, 175.712, 'Waikato'],
      ['Whangamatā', -37.208, 175.87, 'Waikato'],
      ['Putāruru', -38.05, 175.778, 'Waikato'],
      ['Ōtorohanga', -38.186, 175.21, 'Waikato'],
      ['Te Kūiti', -38.335, 175.166, 'Waikato'],
      ['Tūrangi', -38.99, 175.807, 'Waikato'],
      // Bay of Plenty
      ['Ōpōtiki', -38.007, 177.286, 'Bay of Plenty'],
      // Hawke's Bay
      ['Wairoa', -39.035, 177.42, "Hawke's Bay"],
      ['Waipukurau', -39.994, 176.556, "Hawke's Bay"],
      // Manawatū-Whanganui
      ['Taumarunui', -38.885, 175.263, 'Manawatū-Whanganui'],
      ['Ohakune', -39.417, 175.4, 'Manawatū-Whanganui'],
      ['Taihape', -39.678, 175.8, 'Manawatū-Whanganui'],
      ['Foxton', -40.473, 175.283, 'Manawatū-Whanganui'],
      ['Pahiatua', -40.452, 175.841, 'Manawatū-Whanganui'],
      // Wellington
      ['Carterton', -41.026, 175.527, 'Wellington'],
      // West Coast
      ['Westport', -41.753, 171.599, 'West Coast'],
      ['Hokitika', -42.719, 170.97, 'West Coast'],
      // Canterbury
      ['Kaikōura', -42.402, 173.681, 'Canterbury'],
      ['Amberley', -43.155, 172.729, 'Canterbury'],
      ['Temuka', -44.242, 171.279, 'Canterbury'],
      ['Waimate', -44.735, 171.046, 'Canterbury'],
      // Otago
      ['Balclutha', -46.236, 169.741, 'Otago'],
      // Southland
      ['Winton', -46.142, 168.325, 'Southland'],
    ] as const
  ).map(([name, lat, lng, region]) => Object.freeze({ name, lat, lng, region })),
);

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
export class PlaceError extends ExpectedError {}

const EARTH_RADIUS_KM = 6371.0088; // IUGG mean radius
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in kilometres between two points (haversine formula, mean Earth radius). */
export function haversineKm(a: LatLng, b: LatLng): number {
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A distance as answered (`distance_km` of plan_shopping_list and list_stores): kilometres, two decimals. */
export function roundKm(km: number): number {
  return Math.round(km * 100) / 100;
}

/** A latitude/longitude box in WGS84 degrees: `lat` [south, north], `lng` [west, east] or null for no bound. */
export interface LatLngBox {
  lat: [number, number];
  lng: [number, number] | null;
}

/**
 * A latitude/longitude box (WGS84 degrees) holding every point within `km` kilometres of `p` (a
 * cheap prefilter for SQL; the exact {@link haversineKm} test follows), with no bound on longitude
 * (`lng` null) near a pole or across the antimeridian.
 */
export function boundingBox(p: LatLng, km: number): LatLngBox {
  const dLat = km / 110; // a degree of latitude is at least 110.57 km
  const lat: [number, number] = [p.lat - dLat, p.lat + dLat];
  const cos = Math.cos((Math.min(89.9, Math.max(Math.abs(lat[0]), Math.abs(lat[1]))) * Math.PI) / 180);
  const dLng = km / (111 * cos); // a degree of longitude is 111.32 × cos(latitude) km
  const lng: [number, number] = [p.lng - dLng, p.lng + dLng];
  return { lat, lng: Math.abs(lat[0]) > 89 || Math.abs(lat[1]) > 89 || lng[0] < -180 || lng[1] > 180 ? null : lng };
}

/**
 * Resolves a core row's urban class and regional council.
 * @throws PlaceError when the class name is unknown, or the id is not in {@link CORE_REGIONS} or
 *   names a different place there (the file is not the one the table was written for).
 */
export function toUrbanCore(row: UrbanCoreRow): UrbanCore {
  const urban = CORE_CLASSES.get(row.typeName);
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
 * council. A store within no radius is rural: `town` is `Rural <region>` and `urban` is 'rural';
 * its region is that of the nearest rural service town (`towns`, by default {@link SERVICE_TOWNS})
 * within {@link SERVICE_TOWN_RADIUS_KM}, and otherwise that of the nearest urban core of any class
 * (an approximation near council boundaries: there are no boundary polygons here).
 * @throws PlaceError when `cores` is empty or the point is not a finite coordinate.
 */
export function placeStore(point: LatLng, cores: readonly UrbanCore[], towns: readonly ServiceTown[] = SERVICE_TOWNS): Place {
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
  let town: { town: ServiceTown; d: number } | null = null;
  for (const t of towns) {
    const d = haversineKm(point, t);
    if (d <= SERVICE_TOWN_RADIUS_KM && (!town || d < town.d)) town = { town: t, d };
  }
  const region = town ? town.town.region : (nearest as { core: UrbanCore }).core.region;
  return { town: `Rural ${region}`, area: region, urban: 'rural' };
}
