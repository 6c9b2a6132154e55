/**
 * Store places (src/domain/places.ts): haversine distances, the core table, and the radius rule on
 * real store coordinates from the store lists in ../shared/data (cores as in urban_cores.csv).
 */
import { describe, expect, it } from 'vitest';
import {
  CORE_REGIONS,
  PlaceError,
  RADIUS_KM,
  haversineKm,
  placeStore,
  toUrbanCore,
  type UrbanCore,
} from '../../src/domain/places.js';

// Rows of l5--nz-cities/urban_cores.csv (source_id, name, type_name, latitude, longitude).
const CORES: UrbanCore[] = [
  [1001, 'Auckland', 'Metropolitan area', -36.90272245423798, 174.77487552321776],
  [1003, 'Tauranga', 'Metropolitan area', -37.70198451383706, 176.19200184615255],
  [1004, 'Wellington', 'Metropolitan area', -41.29936914436876, 174.7963892949547],
  [1005, 'Christchurch', 'Metropolitan area', -43.543929244485426, 172.65673909432942],
  [2004, 'Hastings', 'Large regional centre', -39.62898460918507, 176.82078292428716],
  [2005, 'Napier', 'Large regional centre', -39.47490473102249, 176.8748112347646],
  [2006, 'New Plymouth', 'Large regional centre', -39.05918092207506, 174.08111608540023],
  [2008, 'Palmerston North', 'Large regional centre', -40.357729312140506, 175.62550446798977],
  [2009, 'Kapiti Coast', 'Large regional centre', -40.909918712911455, 174.9996811476461],
  [2010, 'Nelson', 'Large regional centre', -41.29018133491112, 173.24280116766124],
  [3006, 'Feilding', 'Medium regional centre', -40.2279473486699, 175.55515109148303],
  [3011, 'Ashburton', 'Medium regional centre', -43.897462072345995, 171.7507214266834],
  [4003, 'Warkworth', 'Small regional centre', -36.3947239437386, 174.64816630124656],
  [4007, 'Huntly', 'Small regional centre', -37.54865877116102, 175.15949342855856],
  [4011, 'Te Puke', 'Small regional centre', -37.78691414206307, 176.31917102563065],
  [4016, 'Dannevirke', 'Small regional centre', -40.20297301703465, 176.10206112091703],
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

  it('makes a store outside every radius rural, in the region of the nearest core', () => {
    // NW Pahiatua: 21 km from Palmerston North (large radius 16 km).
    expect(place(-40.452412, 175.841836)).toEqual({ town: 'Rural Manawatū-Whanganui', area: 'Manawatū-Whanganui', urban: 'rural' });
    // Woolworths Amberley: 43 km from Christchurch (major radius 40 km).
    expect(place(-43.1569, 172.7301)).toEqual({ town: 'Rural Canterbury', area: 'Canterbury', urban: 'rural' });
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
