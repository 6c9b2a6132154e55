/**
 * Store places (src/domain/places.ts): haversine distances, the core table, the radius rule and the
 * rural service towns on real store coordinates from the store lists in ../shared/data (cores as in
 * urban_cores.csv), and every real store placed against the real cores.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CORE_REGIONS,
  PlaceError,
  RADIUS_KM,
  SERVICE_TOWNS,
  SERVICE_TOWN_RADIUS_KM,
  haversineKm,
  placeStore,
  toUrbanCore,
  type UrbanCore,
} from '../../src/domain/places.js';
import { loadUrbanCores } from '../../workers/import/places.js';
import { readNewWorldStores, readPaknsaveStores, readWoolworthsStores } from '../../workers/import/stores.js';

/** Real data folder (../shared/data beside the repository) unless DATA_DIR says otherwise. */
const DATA_DIR = process.env.DATA_DIR ?? new URL('../../../shared/data', import.meta.url).pathname;

// Rows of l5--nz-cities/urban_cores.csv (source_id, name, type_name, latitude, longitude).
const CORES: UrbanCore[] = [
  [1001, 'Auckland', 'Metropolitan area', -36.90272245423798, 174.77487552321776],
  [1003, 'Tauranga', 'Metropolitan area', -37.70198451383706, 176.19200184615255],
  [1004, 'Wellington', 'Metropolitan area', -41.29936914436876, 174.7963892949547],
  [1005, 'Christchurch', 'Metropolitan area', -43.543929244485426, 172.65673909432942],
  [1006, 'Dunedin', 'Metropolitan area', -45.858650571053225, 170.5675392948995],
  [2001, 'Whangārei', 'Large regional centre', -35.719769199481846, 174.32746843738812],
  [2004, 'Hastings', 'Large regional centre', -39.62898460918507, 176.82078292428716],
  [2005, 'Napier', 'Large regional centre', -39.47490473102249, 176.8748112347646],
  [2006, 'New Plymouth', 'Large regional centre', -39.05918092207506, 174.08111608540023],
  [2008, 'Palmerston North', 'Large regional centre', -40.357729312140506, 175.62550446798977],
  [2009, 'Kapiti Coast', 'Large regional centre', -40.909918712911455, 174.9996811476461],
  [2010, 'Nelson', 'Large regional centre', -41.29018133491112, 173.24280116766124],
  [3006, 'Feilding', 'Medium regional centre', -40.2279473486699, 175.55515109148303],
  [3004, 'Taupō', 'Medium regional centre', -38.70283191436017, 176.06508721235636],
  [3009, 'Blenheim', 'Medium regional centre', -41.521140862292484, 173.96341385492428],
  [3011, 'Ashburton', 'Medium regional centre', -43.897462072345995, 171.7507214266834],
  [3012, 'Timaru', 'Medium regional centre', -44.38655968401421, 171.23449743385217],
  [3013, 'Oamaru', 'Medium regional centre', -45.08506489625808, 170.97791900227116],
  [4003, 'Warkworth', 'Small regional centre', -36.3947239437386, 174.64816630124656],
  [4007, 'Huntly', 'Small regional centre', -37.54865877116102, 175.15949342855856],
  [4008, 'Morrinsville', 'Small regional centre', -37.65399511212473, 175.53450455424138],
  [4010, 'Katikati', 'Small regional centre', -37.55457801452431, 175.93339969680272],
  [4011, 'Te Puke', 'Small regional centre', -37.78691414206307, 176.31917102563065],
  [4016, 'Dannevirke', 'Small regional centre', -40.20297301703465, 176.10206112091703],
  [4022, 'Gore', 'Small regional centre', -46.106284636843924, 168.94190912916338],
].map(([id, name, typeName, lat, lng]) => toUrbanCore({ id: id as number, name: name as string, typeName: typeName as string, lat: lat as number, lng: lng as number }));

describe('haversineKm', () => {
  it('is zero for one point and symmetric', () => {
    const a = { lat: -36.8485, lng: 174.7633 };
    const b = { lat: -41.2865, lng: 174.7762 };
    expect(haversineKm(a, a)).toBe(0);
    expect(haversineKm(a, b)).toBeCloseTo(haversineKm(b, a), 9);
  });

  it('gives known great-circle distances', () => {
    // Auckland CBD to Wellington CBD: 4.438° of latitude on one meridian ≈ 493.5 km.
    expect(haversineKm({ lat: -36.8485, lng: 174.7633 }, { lat: -41.2865, lng: 174.7762 })).toBeCloseTo(493.5, 0);
    // One degree of latitude ≈ 111.2 km; one degree of longitude at 60° S is half of that.
    expect(haversineKm({ lat: 0, lng: 0 }, { lat: 1, lng: 0 })).toBeCloseTo(111.2, 1);
    expect(haversineKm({ lat: -60, lng: 10 }, { lat: -60, lng: 11 })).toBeCloseTo(55.6, 1);
    // Across the antimeridian (Chatham Islands side).
    expect(haversineKm({ lat: -44, lng: 179.5 }, { lat: -44, lng: -179.5 })).toBeCloseTo(80.0, 0);
  });
});

describe('core table', () => {
  it('has 53 cores in the 16 regional councils', () => {
    expect(Object.keys(CORE_REGIONS)).toHaveLength(53);
    expect(new Set(Object.values(CORE_REGIONS).map(([, r]) => r)).size).toBe(16);
  });

  it('maps classes to urban classes and radii', () => {
    expect(CORES.find((c) => c.name === 'Auckland')).toMatchObject({ urban: 'major', region: 'Auckland' });
    expect(CORES.find((c) => c.name === 'Hastings')).toMatchObject({ urban: 'large', region: "Hawke's Bay" });
    expect(CORES.find((c) => c.name === 'Warkworth')).toMatchObject({ urban: 'small', region: 'Auckland' });
    expect(RADIUS_KM.major).toBeGreaterThan(RADIUS_KM.large);
    expect(RADIUS_KM.large).toBeGreaterThan(RADIUS_KM.medium);
    expect(RADIUS_KM.medium).toBeGreaterThan(RADIUS_KM.small);
  });

  it('rejects an unknown id, a renamed core and an unknown class', () => {
    expect(() => toUrbanCore({ id: 9999, name: 'Atlantis', typeName: 'Metropolitan area', lat: -40, lng: 175 })).toThrow(PlaceError);
    expect(() => toUrbanCore({ id: 1001, name: 'Hamilton', typeName: 'Metropolitan area', lat: -40, lng: 175 })).toThrow(/CORE_REGIONS/);
    expect(() => toUrbanCore({ id: 1001, name: 'Auckland', typeName: 'Village', lat: -40, lng: 175 })).toThrow(/unknown class/);
  });
});

describe('placeStore (real store coordinates)', () => {
  const place = (lat: number, lng: number) => placeStore({ lat, lng }, CORES);

  it('places a central store in its metropolitan area', () => {
    expect(place(-36.8585, 174.7489)).toEqual({ town: 'Auckland', area: 'Auckland', urban: 'major' }); // Woolworths Ponsonby
  });

  it('keeps satellite towns inside a metropolitan radius', () => {
    expect(place(-37.205157, 174.899612)).toEqual({ town: 'Auckland', area: 'Auckland', urban: 'major' }); // PAK'nSAVE Pukekohe, 35 km
    // New World Whitby: 21.8 km from Kapiti Coast's centroid (beyond the large radius), 24.7 km from Wellington's.
    expect(place(-41.117024, 174.893023)).toEqual({ town: 'Wellington', area: 'Wellington', urban: 'major' });
  });

  it('takes the nearest core in range, whatever its class', () => {
    expect(place(-39.668128, 176.875873)).toEqual({ town: 'Hastings', area: "Hawke's Bay", urban: 'large' }); // NW Havelock North
    expect(place(-41.3342, 173.2018)).toEqual({ town: 'Nelson', area: 'Nelson', urban: 'large' }); // Woolworths Richmond
    expect(place(-39.000167, 174.236804)).toEqual({ town: 'New Plymouth', area: 'Taranaki', urban: 'large' }); // NW Waitara, 15 km
    // NW The Sands: 7 km from Te Puke (small radius 6 km) → Tauranga (13.9 km, inside 40 km).
    expect(place(-37.7273, 176.3464)).toEqual({ town: 'Tauranga', area: 'Bay of Plenty', urban: 'major' });
  });

  it('makes a store outside every radius rural', () => {
    // NW Pahiatua: 21 km from Palmerston North (large radius 16 km).
    expect(place(-40.452412, 175.841836)).toEqual({ town: 'Rural Manawatū-Whanganui', area: 'Manawatū-Whanganui', urban: 'rural' });
    // Woolworths Amberley: 43 km from Christchurch (major radius 40 km).
    expect(place(-43.1569, 172.7301)).toEqual({ town: 'Rural Canterbury', area: 'Canterbury', urban: 'rural' });
  });

  it('gives a rural store the region of its service town, not of the nearest core across a boundary', () => {
    const rural = (area: string) => ({ town: `Rural ${area}`, area, urban: 'rural' });
    // NW Taumarunui: nearest core Taupō (73 km, Waikato); Taumarunui is in Ruapehu District.
    expect(place(-38.8829294, 175.2579086)).toEqual(rural('Manawatū-Whanganui'));
    // NW and Woolworths Waipukurau: nearest core Dannevirke (45 km, Manawatū-Whanganui), Hastings 46.5 km.
    expect(place(-39.99467, 176.55584)).toEqual(rural("Hawke's Bay"));
    expect(place(-39.9954, 176.5576)).toEqual(rural("Hawke's Bay"));
    // NW Kaikoura: nearest core Blenheim (99 km, Marlborough).
    expect(place(-42.3877, 173.6804)).toEqual(rural('Canterbury'));
    // NW Waimate: nearest core Oamaru (39 km, Otago), Timaru 41 km.
    expect(place(-44.7337, 171.0472)).toEqual(rural('Canterbury'));
    // NW and Woolworths Balclutha: nearest core Gore (63 km, Southland), Dunedin 76 km.
    expect(place(-46.2381, 169.7437)).toEqual(rural('Otago'));
    expect(place(-46.2369, 169.7408)).toEqual(rural('Otago'));
    // NW Mangawhai: nearest core Warkworth (32 km, Auckland), Whangārei 49 km; Mangawhai is in Kaipara District.
    expect(place(-36.1124401, 174.572448)).toEqual(rural('Northland'));
    // Woolworths Te Aroha: nearest core Katikati (19.4 km, Bay of Plenty), Morrinsville 19.9 km.
    expect(place(-37.545, 175.7139)).toEqual(rural('Waikato'));
  });

  it('falls back to the nearest core without a service town in range', () => {
    // The nearest-core rule alone, as before the service towns: the wrong councils.
    expect(placeStore({ lat: -39.99467, lng: 176.55584 }, CORES, []).area).toBe('Manawatū-Whanganui'); // NW Waipukurau
    expect(placeStore({ lat: -37.545, lng: 175.7139 }, CORES, []).area).toBe('Bay of Plenty'); // Woolworths Te Aroha
    // Due south of Waipukurau's centre, just inside and just outside the service-town radius: outside,
    // the nearest core (Dannevirke, ≈ 43 km; Hastings ≈ 51 km) decides.
    const waipukurau = SERVICE_TOWNS.find((t) => t.name === 'Waipukurau') as (typeof SERVICE_TOWNS)[number];
    const south = (km: number) => ({ lat: waipukurau.lat - km / 111.19508, lng: waipukurau.lng });
    expect(haversineKm(south(SERVICE_TOWN_RADIUS_KM), waipukurau)).toBeCloseTo(SERVICE_TOWN_RADIUS_KM, 3);
    expect(placeStore(south(SERVICE_TOWN_RADIUS_KM - 0.01), CORES).area).toBe("Hawke's Bay");
    expect(placeStore(south(SERVICE_TOWN_RADIUS_KM + 0.01), CORES).area).toBe('Manawatū-Whanganui');
  });

  it('lets an urban core in range win over a service town', () => {
    const hastings = CORES.find((c) => c.name === 'Hastings') as UrbanCore;
    const town = { name: 'Somewhere', lat: hastings.lat, lng: hastings.lng, region: 'Wellington' };
    expect(placeStore({ lat: hastings.lat, lng: hastings.lng }, CORES, [town])).toEqual({ town: 'Hastings', area: "Hawke's Bay", urban: 'large' });
  });

  it('decides at the radius boundary', () => {
    const c = CORES.find((x) => x.name === 'Te Puke') as UrbanCore;
    // A point due north of the centroid at exactly the small radius (1° latitude = 111.195 km on this sphere).
    const edge = { lat: c.lat + RADIUS_KM.small / 111.19508, lng: c.lng };
    expect(haversineKm(edge, c)).toBeCloseTo(RADIUS_KM.small, 3);
    const inside = { lat: c.lat + (RADIUS_KM.small - 0.01) / 111.19508, lng: c.lng };
    expect(placeStore(inside, [c]).town).toBe('Te Puke');
    const outside = { lat: c.lat + (RADIUS_KM.small + 0.01) / 111.19508, lng: c.lng };
    expect(placeStore(outside, [c]).town).toBe('Rural Bay of Plenty');
  });

  it('rejects bad input', () => {
    expect(() => placeStore({ lat: Number.NaN, lng: 174 }, CORES)).toThrow(PlaceError);
    expect(() => placeStore({ lat: -41, lng: 174 }, [])).toThrow(/no urban cores/);
  });
});

describe('service town table', () => {
  it('names known regional councils, each town once, ≥ 2 radii apart', () => {
    const regions = new Set(Object.values(CORE_REGIONS).map(([, r]) => r));
    for (const t of SERVICE_TOWNS) expect(regions).toContain(t.region);
    expect(new Set(SERVICE_TOWNS.map((t) => t.name)).size).toBe(SERVICE_TOWNS.length);
    for (const a of SERVICE_TOWNS) {
      for (const b of SERVICE_TOWNS) if (a !== b) expect(haversineKm(a, b)).toBeGreaterThan(2 * SERVICE_TOWN_RADIUS_KM);
    }
  });
});

describe('every real store placed against the real urban cores', () => {
  const cores = loadUrbanCores(path.join(DATA_DIR, 'l5--nz-cities/urban_cores.csv'));
  const blim = (f: string) => path.join(DATA_DIR, 'Blim3202--NZ-Meal-Cost-Optimiser/data', f);
  const stores = [
    ...readPaknsaveStores(path.join(DATA_DIR, 'nwbort--stores-paknsave/api-prod.paknsave.co.nz-stores.json')),
    ...readNewWorldStores(blim('newworld_stores.csv')),
    ...readWoolworthsStores(blim('woolworths_stores.csv')),
  ].map((s) => ({ ...s, place: placeStore(s, cores) }));

  // Regional council of every rural store's town (geographic facts), by store name.
  const RURAL: Record<string, string> = {
    'New World Kaikohe': 'Northland',
    'Woolworths Waitangi': 'Northland',
    'Woolworths Dargaville': 'Northland',
    'New World Mangawhai': 'Northland',
    'New World Te Kauwhata': 'Waikato',
    'Woolworths Pokeno': 'Waikato',
    'Woolworths Paeroa': 'Waikato',
    'Woolworths Te Aroha': 'Waikato',
    'New World Whangamata': 'Waikato',
    'Woolworths Putaruru': 'Waikato',
    'Woolworths Otorohanga': 'Waikato',
    'New World Te Kuiti': 'Waikato',
    'New World Turangi': 'Waikato',
    'New World Opotiki': 'Bay of Plenty',
    'New World Wairoa': "Hawke's Bay",
    'New World Waipukurau': "Hawke's Bay",
    'Woolworths Waipukurau': "Hawke's Bay",
    'New World Taumarunui': 'Manawatū-Whanganui',
    'New World Ohakune': 'Manawatū-Whanganui',
    'New World Taihape': 'Manawatū-Whanganui',
    'New World Foxton': 'Manawatū-Whanganui',
    'New World Pahiatua': 'Manawatū-Whanganui',
    'New World Carterton': 'Wellington',
    'New World Westport': 'West Coast',
    'New World Hokitika': 'West Coast',
    'New World Kaikoura': 'Canterbury',
    'Woolworths Amberley': 'Canterbury',
    'New World Temuka': 'Canterbury',
    'New World Waimate': 'Canterbury',
    'New World Balclutha': 'Otago',
    'Woolworths Balclutha': 'Otago',
    'New World Winton': 'Southland',
  };

  it('reads the 383 stores', () => {
    expect(stores).toHaveLength(383);
  });

  it('puts the nine stores the nearest-core rule got wrong in their councils', () => {
    const area = (name: string) => stores.filter((s) => s.name === name).map((s) => s.place);
    const rural = (a: string) => [{ town: `Rural ${a}`, area: a, urban: 'rural' }];
    expect(area('New World Taumarunui')).toEqual(rural('Manawatū-Whanganui'));
    expect(area('New World Waipukurau')).toEqual(rural("Hawke's Bay"));
    expect(area('Woolworths Waipukurau')).toEqual(rural("Hawke's Bay"));
    expect(area('New World Kaikoura')).toEqual(rural('Canterbury'));
    expect(area('New World Waimate')).toEqual(rural('Canterbury'));
    expect(area('New World Balclutha')).toEqual(rural('Otago'));
    expect(area('Woolworths Balclutha')).toEqual(rural('Otago'));
    expect(area('New World Mangawhai')).toEqual(rural('Northland'));
    expect(area('Woolworths Te Aroha')).toEqual(rural('Waikato'));
  });

  it("gives every rural store its town's council, through a service town in range", () => {
    const rural = stores.filter((s) => s.place.urban === 'rural');
    expect(rural).toHaveLength(32);
    expect(Object.fromEntries(rural.map((s) => [s.name, s.place.area]))).toEqual(RURAL);
    for (const s of rural) {
      expect(s.place.town).toBe(`Rural ${s.place.area}`);
      const near = SERVICE_TOWNS.filter((t) => haversineKm(s, t) <= SERVICE_TOWN_RADIUS_KM);
      expect({ store: s.name, towns: near.map((t) => t.region) }).toEqual({ store: s.name, towns: [s.place.area] });
    }
  });

  it('lists only towns outside every urban core, each with a rural store', () => {
    for (const t of SERVICE_TOWNS) {
      const inCore = cores.filter((c) => haversineKm(t, c) <= RADIUS_KM[c.urban]).map((c) => c.name);
      expect({ town: t.name, inCore }).toEqual({ town: t.name, inCore: [] });
      const served = stores.filter((s) => s.place.urban === 'rural' && haversineKm(s, t) <= SERVICE_TOWN_RADIUS_KM);
      expect(served.length, t.name).toBeGreaterThan(0);
    }
  });
});
