/**
 * list_stores with a point (issue 32 item 1): `lat`, `lng`, `radius_km` against the real store lists
 * of ../shared/data (workers/import/stores.ts: the 383 geolocated PAK'nSAVE, New World and
 * Woolworths stores, placed as `npm start` places them), through the assembled server. The
 * distances are recomputed here with a haversine of the test's own (not the service's), so a broken
 * formula, cut, rounding or order fails; REST, GraphQL and MCP are compared on the same answers.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { RADIUS_KM } from '../../src/domain/limits.js';
import { loadEnv } from '../../src/env.js';
import { importStores } from '../../workers/import/stores.js';
import { resolveSources } from '../../workers/import/sources.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { createTestDatabase, DATA_DIR, type TestDatabase } from '../helpers/db.js';
import { mcpToolCall } from '../helpers/mcp-call.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { STORE, expectError, expectShape } from '../helpers/shape.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' });

/** Central Auckland (Queen Street at Victoria Street), WGS84 degrees. */
const AUCKLAND = { lat: -36.8485, lng: 174.7633 };
/** The Tasman Sea, 200 km west of Hokitika: no store within 50 km. */
const AT_SEA = { lat: -42.7, lng: 168.5 };

/** Great-circle distance, km: the test's own haversine (IUGG mean Earth radius 6371.0088 km). */
function km(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const r = (d: number) => (d * Math.PI) / 180;
  const s = Math.sin(r(b.lat - a.lat) / 2) ** 2 + Math.cos(r(a.lat)) * Math.cos(r(b.lat)) * Math.sin(r(b.lng - a.lng) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(s));
}

let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
/** Every active store without a point (today's answer). */
let all: Json[];

const { get, expect400 } = checkedRequests(() => app, () => responses);

/** What a point's answer must be, from the full list: within `radius` by the test's haversine, nearest first (two decimals), ties by id. */
function expected(p: { lat: number; lng: number }, radius: number, among: Json[] = all): { id: number; distance_km: number }[] {
  return among
    .map((s) => ({ id: s.id as number, exact: km(p, s as { lat: number; lng: number }) }))
    .filter((s) => s.exact <= radius)
    .map((s) => ({ id: s.id, distance_km: Math.round(s.exact * 100) / 100 }))
    .sort((a, b) => a.distance_km - b.distance_km || a.id - b.id);
}

async function gql(query: string): Promise<{ data?: Json; errors?: Json[] }> {
  const r = await app.inject({ method: 'POST', url: '/graphql', payload: { query } });
  return r.json();
}

beforeAll(async () => {
  db = await createTestDatabase('stores_near');
  const report = await importStores(db.pool, resolveSources(DATA_DIR));
  expect(report.read).toMatchObject({ paknsave: 58, newworld: 148, woolworths: 177 });
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
  all = (await get('/api/v1/stores', 'list_stores')).body;
  expect(all.length).toBe(383);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('list_stores with a point', () => {
  it('central Auckland, 2 km: exactly the stores within 2 km by great-circle distance, nearest first, with distance_km', async () => {
    const r = await get(`/api/v1/stores?lat=${AUCKLAND.lat}&lng=${AUCKLAND.lng}&radius_km=2`, 'list_stores');
    expect(r.status).toBe(200);
    const list = r.body as Json[];
    list.forEach((s, i) => expectShape(s, STORE, `stores[${i}]`));
    expect(list.length).toBeGreaterThan(0);
    expect(list.length).toBeLessThan(all.length / 10);
    for (const s of list) {
      expect(km(AUCKLAND, s as { lat: number; lng: number }), s.name).toBeLessThanOrEqual(2);
      expect(s.distance_km, s.name).toBeCloseTo(km(AUCKLAND, s as { lat: number; lng: number }), 2);
    }
    const d = list.map((s) => s.distance_km as number);
    expect(d).toEqual([...d].sort((a, b) => a - b));
    // Every store of the full list within the radius, and no other, in that order (ties by id).
    expect(list.map((s) => ({ id: s.id, distance_km: s.distance_km }))).toEqual(expected(AUCKLAND, 2));
    // Every other field as without a point.
    const byId = new Map(all.map((s) => [s.id, s]));
    for (const s of list) expect({ ...s, distance_km: null }).toEqual(byId.get(s.id));
  });

  it('the radius cuts on the great circle, not the bounding box: 5 km holds more than 2 km, and corners of the box are left out', async () => {
    const five = (await get(`/api/v1/stores?lat=${AUCKLAND.lat}&lng=${AUCKLAND.lng}&radius_km=5`, 'list_stores')).body as Json[];
    expect(five.map((s) => s.id)).toEqual(expected(AUCKLAND, 5).map((s) => s.id));
    expect(five.length).toBeGreaterThan(expected(AUCKLAND, 2).length);
    // Some store lies in the 5 km box (lat and lng each within 5 km) but beyond 5 km on the great circle.
    const inBox = all.filter((s) => km(AUCKLAND, { lat: s.lat, lng: AUCKLAND.lng }) <= 5 && km(AUCKLAND, { lat: AUCKLAND.lat, lng: s.lng }) <= 5);
    const corners = inBox.filter((s) => km(AUCKLAND, s as { lat: number; lng: number }) > 5);
    expect(corners.length).toBeGreaterThan(0);
    for (const c of corners) expect(five.some((s) => s.id === c.id), c.name).toBe(false);
  });

  it('radius_km defaults to 10 (plan_shopping_list\'s default); filters combine with the point', async () => {
    const dflt = (await get(`/api/v1/stores?lat=${AUCKLAND.lat}&lng=${AUCKLAND.lng}`, 'list_stores')).body as Json[];
    expect(RADIUS_KM.default).toBe(10);
    expect(dflt.map((s) => s.id)).toEqual(expected(AUCKLAND, 10).map((s) => s.id));
    const pns = (await get(`/api/v1/stores?lat=${AUCKLAND.lat}&lng=${AUCKLAND.lng}&radius_km=25&retailer=paknsave`, 'list_stores')).body as Json[];
    expect(pns.length).toBeGreaterThan(0);
    expect(pns.map((s) => s.id)).toEqual(expected(AUCKLAND, 25, all.filter((s) => s.retailer === 'paknsave')).map((s) => s.id));
    // The largest radius reaches the whole Auckland region and more, still nearest first.
    const far = (await get(`/api/v1/stores?lat=${AUCKLAND.lat}&lng=${AUCKLAND.lng}&radius_km=${RADIUS_KM.max}`, 'list_stores')).body as Json[];
    expect(far.map((s) => [s.id, s.distance_km])).toEqual(expected(AUCKLAND, RADIUS_KM.max).map((s) => [s.id, s.distance_km]));
  });

  it('a point with no store within the radius gives []', async () => {
    const r = await get(`/api/v1/stores?lat=${AT_SEA.lat}&lng=${AT_SEA.lng}&radius_km=50`, 'list_stores');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
    expect(expected(AT_SEA, 50)).toEqual([]);
    // Far from New Zealand, at the edges of the ranges: still an empty list, not an error.
    expect((await get('/api/v1/stores?lat=90&lng=180&radius_km=0.5')).body).toEqual([]);
    expect((await get('/api/v1/stores?lat=-90&lng=-180')).body).toEqual([]);
  });

  it('without a point: today\'s answer, by chain then name, distance_km null', async () => {
    expect(all.every((s) => s.distance_km === null)).toBe(true);
    const order = [...all].sort((a, b) => (a.retailer < b.retailer ? -1 : a.retailer > b.retailer ? 1 : 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || a.id - b.id);
    expect(all.map((s) => s.id)).toEqual(order.map((s) => s.id));
    const empty = (await get('/api/v1/stores?lat=&lng=&radius_km=', 'list_stores')).body;
    expect(empty).toEqual(all);
  });

  it('400 in the Error body naming the parameter: lat or lng alone, radius_km without a point, out of range or not a number', async () => {
    const p = `lat=${AUCKLAND.lat}&lng=${AUCKLAND.lng}`;
    await expect400(`/api/v1/stores?lat=${AUCKLAND.lat}`, /"lng": is required with lat/);
    await expect400(`/api/v1/stores?lng=${AUCKLAND.lng}`, /"lat": is required with lng/);
    await expect400('/api/v1/stores?radius_km=5', /"radius_km": needs lat and lng/);
    await expect400(`/api/v1/stores?${p}&radius_km=0.4`, /"radius_km": must be at least 0.5/);
    await expect400(`/api/v1/stores?${p}&radius_km=201`, /"radius_km": must be at most 200/);
    await expect400(`/api/v1/stores?lat=-90.5&lng=${AUCKLAND.lng}`, /"lat": must be at least -90/);
    await expect400(`/api/v1/stores?lat=${AUCKLAND.lat}&lng=180.01`, /"lng": must be at most 180/);
    await expect400(`/api/v1/stores?lat=1e2&lng=${AUCKLAND.lng}`, /"lat": must be a decimal number/);
    await expect400(`/api/v1/stores?lat=NaN&lng=${AUCKLAND.lng}`, /"lat"/);
    await expect400(`/api/v1/stores?${p}&radius_km=Infinity`, /"radius_km"/);
    await expect400(`/api/v1/stores?lat=${AUCKLAND.lat}&lng=${AUCKLAND.lng}&lat=-36`, /"lat"/);
    const r = await get(`/api/v1/stores?lat=${AUCKLAND.lat}`);
    expectError(r.body, 400, 'lng');
  });
});

describe('the other facades answer as REST', () => {
  it('MCP list_stores with a point returns the REST body; a lone lat is a tool error naming lng', async () => {
    const rest = (await get(`/api/v1/stores?lat=${AUCKLAND.lat}&lng=${AUCKLAND.lng}&radius_km=3`)).body;
    expect(rest.length).toBeGreaterThan(0);
    const call = await mcpToolCall(app, 'list_stores', { lat: AUCKLAND.lat, lng: AUCKLAND.lng, radius_km: 3 });
    expect(call.isError ?? false).toBe(false);
    expect(call.structuredContent).toEqual(rest);
    const plain = await mcpToolCall(app, 'list_stores', { retailer: 'newworld' });
    expect(plain.structuredContent).toEqual((await get('/api/v1/stores?retailer=newworld')).body);
    const lone = await mcpToolCall(app, 'list_stores', { lat: AUCKLAND.lat });
    expect(lone.isError).toBe(true);
    expect(JSON.stringify(lone.structuredContent ?? lone.content)).toMatch(/lng/);
  });

  it('GraphQL stores(lat, lng, radiusKm) { distanceKm } answers as REST; aliased points keep their own distances; errors name the parameter', async () => {
    const rest = (await get(`/api/v1/stores?lat=${AUCKLAND.lat}&lng=${AUCKLAND.lng}&radius_km=3`)).body as Json[];
    const body = await gql(`{
      near: stores(lat: ${AUCKLAND.lat}, lng: ${AUCKLAND.lng}, radiusKm: 3) { id distanceKm }
      far: stores(lat: ${AUCKLAND.lat + 0.05}, lng: ${AUCKLAND.lng}, radiusKm: 3) { id distanceKm }
      plain: stores(retailer: "paknsave") { id distanceKm }
    }`);
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect(body.data!.near).toEqual(rest.map((s) => ({ id: s.id, distanceKm: s.distance_km })));
    const north = { lat: AUCKLAND.lat + 0.05, lng: AUCKLAND.lng };
    expect(body.data!.far).toEqual(expected(north, 3).map((s) => ({ id: s.id, distanceKm: s.distance_km })));
    expect(body.data!.plain).toEqual(all.filter((s) => s.retailer === 'paknsave').map((s) => ({ id: s.id, distanceKm: null })));

    // `stores` is non-null: one bad field per request.
    const message = async (args: string) => {
      const r = await gql(`{ stores(${args}) { id } }`);
      expect(r.errors, args).toHaveLength(1);
      return [r.errors![0].extensions!.code, r.errors![0].message];
    };
    expect(await message('lat: 1')).toEqual(['BAD_REQUEST', 'Invalid parameter "lng": is required with lat']);
    expect(await message('lng: 1')).toEqual(['BAD_REQUEST', 'Invalid parameter "lat": is required with lng']);
    expect(await message('radiusKm: 5')).toEqual(['BAD_REQUEST', 'Invalid parameter "radius_km": needs lat and lng']);
    expect(await message('lat: 1, lng: 2, radiusKm: 0.1')).toEqual(['BAD_REQUEST', 'Invalid parameter "radius_km": must be a number from 0.5 to 200']);
    expect(await message('lat: 91, lng: 2')).toEqual(['BAD_REQUEST', 'Invalid parameter "lat": must be a number from -90 to 90']);
    expect(await message('lat: 1, lng: -180.5')).toEqual(['BAD_REQUEST', 'Invalid parameter "lng": must be a number from -180 to 180']);
  });
});
