/**
 * Ingest against a real PostgreSQL: real rows (test/fixtures, from full_results.csv) for shapes,
 * idempotency and rejection; a synthetic multi-day panel (random prices, named as such) checks the
 * set-based SQL merge against the pure reference in src/domain/spans.ts.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { ObservationError, readObservationFile, type ObservationInput } from '../../workers/ingest/format.js';
import { addDays } from '../../src/domain/days.js';
import { mergeDay, nationalPrice, type CollectionMode, type PriceTuple, type PromoKind, type Span } from '../../src/domain/spans.js';

const FIX = new URL('../fixtures/', import.meta.url).pathname;
const TABLES = ['listing', 'store_price_span', 'national_price_span', 'listing_day_stats', 'collection', 'store', 'retailer'];

async function insertFixtureStores(db: TestDatabase): Promise<void> {
  const rows = parse(fs.readFileSync(`${FIX}paknsave-stores.csv`), { columns: true }) as Record<string, string>[];
  for (const r of rows) {
    await db.pool.query(
      `INSERT INTO store (retailer_id, external_id, name, address, region, lat, lng, town, area)
       SELECT id, $1, $2, $3, $4, $5, $6, 'Auckland', 'Auckland' FROM retailer WHERE slug = 'paknsave'`,
      [r.store_id, r.name, r.address, r.region, Number(r.latitude), Number(r.longitude)],
    );
  }
}

/** Every row of every table, as text, to prove that nothing changed. */
async function dump(db: TestDatabase): Promise<string> {
  const parts: string[] = [];
  for (const t of TABLES) {
    const r = await db.pool.query(`SELECT * FROM ${t} ORDER BY 1, 2`);
    parts.push(JSON.stringify(r.rows.map((row) => ({ ...row, ingested_at: undefined, last_run: undefined }))));
  }
  return parts.join('\n');
}

const records = (rows: ObservationInput[]) => rows.map((record, i) => ({ line: i + 2, record }));

describe('ingest of real observations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('ingest');
    await insertFixtureStores(db);
  });
  afterAll(async () => db?.drop());

  it('rejects a file with a malformed row whole, naming its line, and writes nothing', async () => {
    const before = await dump(db);
    const err = await ingest(db.pool, readObservationFile(`${FIX}bad-row.csv`)).catch((e) => e);
    expect(err).toBeInstanceOf(ObservationError);
    expect(err.line).toBe(4);
    expect(err.message).toMatch(/^line 4: price/);
    expect(await dump(db)).toBe(before);
  });

  it('turns store observations into store spans, national medians and daily statistics', async () => {
    const r = await ingest(db.pool, readObservationFile(`${FIX}paknsave-2026-08-03.csv`), { source: 'fixture' });
    expect(r).toMatchObject({ rows: 7, days: ['2026-08-03'], merged: ['2026-08-03'], skipped: 0 });
    const nat = await db.pool.query(
      `SELECT l.external_id, n.first_day, n.last_day, n.price, n.promo_price, n.promo_kind
       FROM national_price_span n JOIN listing l ON l.id = n.listing_id ORDER BY l.external_id`,
    );
    expect(nat.rows).toEqual([
      { external_id: '5006239-EA-000', first_day: '2026-08-03', last_day: null, price: 429, promo_price: null, promo_kind: null },
      { external_id: '5125914-KGM-000', first_day: '2026-08-03', last_day: null, price: 2399, promo_price: null, promo_kind: null },
      { external_id: '5349244-EA-000', first_day: '2026-08-03', last_day: null, price: 555, promo_price: 555, promo_kind: 1 },
    ]);
    const stats = await db.pool.query(
      `SELECT l.external_id, s.min, s.med, s.max, s.n FROM listing_day_stats s JOIN listing l ON l.id = s.listing_id ORDER BY 1`,
    );
    expect(stats.rows[1]).toEqual({ external_id: '5125914-KGM-000', min: 2099, med: 2399, max: 2399, n: 3 });
    const l = await db.pool.query(`SELECT name, size_text, category_path, first_seen FROM listing WHERE external_id = '5125914-KGM-000'`);
    expect(l.rows[0]).toEqual({ name: 'NZ Beef Prime Mince', size_text: '1kg', category_path: ['Meat, Poultry & Seafood', 'Beef'], first_seen: '2026-08-03' });
    expect((await db.pool.query('SELECT count(*)::int AS n FROM store_price_span')).rows[0].n).toBe(7);
    const ret = await db.pool.query(`SELECT last_national_day FROM retailer WHERE slug = 'paknsave'`);
    expect(ret.rows[0].last_national_day).toBe('2026-08-03');
  });

  it('changes nothing when the same day is ingested again, as CSV or as NDJSON', async () => {
    const before = await dump(db);
    const again = await ingest(db.pool, readObservationFile(`${FIX}paknsave-2026-08-03.csv`));
    expect(again).toMatchObject({ merged: [], skipped: 1 });
    const nd = await ingest(db.pool, readObservationFile(`${FIX}paknsave-2026-08-03.ndjson`));
    expect(nd).toMatchObject({ rows: 7, merged: [], skipped: 1 });
    expect(await dump(db)).toBe(before);
  });

  it('rejects a day already ingested with different prices, and a day older than the stored history', async () => {
    const before = await dump(db);
    const changed = records([{ day: '2026-08-03', retailer: 'paknsave', store: '60561e46-ece7-43a7-b142-9b14812586e4', external_id: '5006239-EA-000', price: 1 }]);
    await expect(ingest(db.pool, changed)).rejects.toThrow(/already ingested with different observations/);
    const older = records([{ day: '2026-08-02', retailer: 'paknsave', store: '60561e46-ece7-43a7-b142-9b14812586e4', external_id: '5006239-EA-000', price: 1 }]);
    await expect(ingest(db.pool, older)).rejects.toThrow(/not after the last ingested day 2026-08-03/);
    expect(await dump(db)).toBe(before);
  });

  it('rejects unknown stores and retailers, duplicates and inconsistent promotions with their lines', async () => {
    const before = await dump(db);
    const base = { day: '2026-08-04', retailer: 'paknsave', store: '60561e46-ece7-43a7-b142-9b14812586e4', external_id: 'x', price: 100 };
    await expect(ingest(db.pool, records([base, { ...base, store: 'nowhere' }]))).rejects.toThrow(/^line 3: unknown store "nowhere"/);
    await expect(ingest(db.pool, records([{ ...base, retailer: 'countdown' }]))).rejects.toThrow(/unknown retailer "countdown"/);
    await expect(ingest(db.pool, records([base, base]))).rejects.toThrow(/^line 3: duplicate observation/);
    await expect(ingest(db.pool, records([base, { ...base, external_id: 'y', promo_price: 90 }]))).rejects.toThrow(/^line 3: promo_kind/);
    await expect(ingest(db.pool, records([{ ...base, retailer: 'warehouse' }]))).rejects.toThrow(/national prices only/);
    expect(await dump(db)).toBe(before);
  });
});

describe('set-based merge equals the reference merge (synthetic panel)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('merge');
    for (let s = 1; s <= 4; s++) {
      await db.pool.query(
        `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area)
         SELECT id, $1, $2, -36.9, 174.9, 'Synthetic', 'Synthetic' FROM retailer WHERE slug = 'newworld'`,
        [`syn-${s}`, `Synthetic store ${s}`],
      );
    }
  });
  afterAll(async () => db?.drop());

  it('produces the same store and national spans over 25 random days, in both modes and after gaps', async () => {
    // Deterministic pseudo-random generator (synthetic data, not real prices).
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T,>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    const storeRef = new Map<string, Map<string, Span[]>>();
    const natRef = new Map<string, Span[]>();
    let prev: string | null = null;
    const last: Record<string, PriceTuple> = {};
    let day = '2026-01-01';
    for (let d = 0; d < 25; d++) {
      day = addDays(day, 1 + (d % 3));
      // Some days are change logs, some follow unknown days (every open span closes before them).
      const mode: CollectionMode = d % 5 === 3 ? 'changes' : 'snapshot';
      const afterGap = d % 7 === 5;
      const rows: ObservationInput[] = [];
      const perListing = new Map<string, PriceTuple[]>();
      for (let s = 1; s <= 4; s++) {
        const obs = new Map<string, PriceTuple>();
        for (let l = 1; l <= 6; l++) {
          if (rand() < 0.15) continue; // not observed at this store today
          const key = `s${s}l${l}`;
          let t = last[key];
          if (!t || rand() < 0.3) {
            const kind = pick<PromoKind | null>([null, null, 1, 2, 3]);
            const price = pick([199, 249, 250, 299, 349]);
            t = kind === 3
              ? { price, promo_price: 200, promo_kind: 3, multibuy_qty: pick([2, 3]), multibuy_price: pick([400, 500]) }
              : { price, promo_price: kind ? price - 50 : null, promo_kind: kind, multibuy_qty: null, multibuy_price: null };
            if (kind === 3) t.promo_price = Math.round((t.multibuy_price as number) / (t.multibuy_qty as number));
            last[key] = t;
          }
          obs.set(`l${l}`, t);
          rows.push({ day, retailer: 'newworld', store: `syn-${s}`, external_id: `l${l}`, ...t });
          perListing.set(`l${l}`, [...(perListing.get(`l${l}`) ?? []), t]);
        }
        const spans = storeRef.get(`syn-${s}`) ?? new Map();
        mergeDay(spans, prev, day, obs, mode, afterGap);
        storeRef.set(`syn-${s}`, spans);
      }
      mergeDay(natRef, prev, day, new Map([...perListing].map(([k, v]) => [k, nationalPrice(v)])), mode, afterGap);
      prev = day;
      await ingest(db.pool, records(rows), { mode, afterGap });
    }
    const cols = 'first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price';
    const spCols = cols.split(', ').map((c) => `sp.${c}`).join(', ');
    const got = await db.pool.query(
      `SELECT st.external_id AS store, l.external_id AS listing, ${spCols} FROM store_price_span sp
       JOIN store st ON st.id = sp.store_id JOIN listing l ON l.id = sp.listing_id ORDER BY 1, 2, sp.first_day`,
    );
    const want = [...storeRef].sort().flatMap(([store, m]) =>
      [...m].sort().flatMap(([listing, spans]) => spans.map((s) => ({ store, listing, ...s }))));
    expect(got.rows).toEqual(want.map((w) => pickCols(w)));
    const gotNat = await db.pool.query(
      `SELECT l.external_id AS listing, ${cols} FROM national_price_span n JOIN listing l ON l.id = n.listing_id ORDER BY 1, n.first_day`,
    );
    const wantNat = [...natRef].sort().flatMap(([listing, spans]) => spans.map((s) => ({ listing, ...s })));
    expect(gotNat.rows).toEqual(wantNat.map((w) => pickCols(w)));
    expect(gotNat.rows.length).toBeGreaterThan(6); // prices did change
  });
});

function pickCols(w: Record<string, unknown>) {
  const { store, listing, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price } = w;
  return { ...(store ? { store } : {}), listing, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price };
}
