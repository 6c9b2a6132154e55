/**
 * store_price_span's references to listing and store (migration 20261209000000_span_reference_checks):
 * statement-level triggers in place of the two foreign keys, whose per-row checks cost more than the
 * whole COPY of an ingest's first day. Against a real PostgreSQL: every way a foreign key refused a
 * write is still refused with SQLSTATE 23503 and nothing written, and a span's referenced listing is
 * locked as a foreign key's check locks it (a concurrent DELETE waits for the inserting transaction).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

describe('store_price_span references', () => {
  let db: TestDatabase;
  let listingA: number;
  let listingB: number;
  let store: number;
  beforeAll(async () => {
    db = await createTestDatabase('span_refs');
    const l = await db.pool.query<{ id: number }>(
      `INSERT INTO listing (retailer_id, external_id, name, first_seen)
       SELECT r.id, 'x' || g, 'item ' || g, '2026-01-01' FROM retailer r, generate_series(1, 2) g WHERE r.slug = 'woolworths' RETURNING id`,
    );
    [listingA, listingB] = l.rows.map((r) => r.id);
    store = (await db.pool.query<{ id: number }>(
      `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area) SELECT id, 's1', 'Store 1', -36.9, 174.9, 'Auckland', 'Auckland'
       FROM retailer WHERE slug = 'woolworths' RETURNING id`,
    )).rows[0].id;
  });
  afterAll(async () => {
    await db?.drop();
  });

  const spans = async () => Number((await db.pool.query('SELECT count(*) FROM store_price_span')).rows[0].count);
  const insert = (rows: [number, number][]) =>
    db.pool.query(
      `INSERT INTO store_price_span (listing_id, store_id, first_day, price)
       SELECT l, s, '2026-01-01', 100 FROM unnest($1::int[], $2::int[]) AS t(l, s)`,
      [rows.map((r) => r[0]), rows.map((r) => r[1])],
    );
  const refusal = (p: Promise<unknown>) => p.then(() => null, (e: { code?: string; message: string; detail?: string }) => e);

  it('refuses a statement naming a missing listing or store, writing none of its rows', async () => {
    const noListing = await refusal(insert([[listingA, store], [999999, store]]));
    expect(noListing?.code).toBe('23503');
    expect(noListing?.detail).toBe('Key (listing_id)=(999999) is not present in table "listing".');
    const noStore = await refusal(insert([[listingA, store], [listingB, 888888]]));
    expect(noStore?.code).toBe('23503');
    expect(noStore?.detail).toBe('Key (store_id)=(888888) is not present in table "store".');
    expect(await spans()).toBe(0);
    await insert([[listingA, store], [listingB, store]]);
    expect(await spans()).toBe(2);
  });

  it('keeps a span on its listing and store', async () => {
    const moved = await refusal(db.pool.query('UPDATE store_price_span SET listing_id = $1 WHERE listing_id = $2', [listingB, listingA]));
    expect(moved?.code).toBe('23503');
    // Closing a span (the writers' only update) is unaffected.
    await db.pool.query(`UPDATE store_price_span SET last_day = '2026-01-02' WHERE listing_id = $1`, [listingA]);
  });

  it('refuses deleting, renumbering or truncating a referenced listing or store', async () => {
    for (const sql of [
      `DELETE FROM listing WHERE id = ${listingA}`,
      `DELETE FROM store WHERE id = ${store}`,
      `UPDATE listing SET id = 777777 WHERE id = ${listingB}`,
      `UPDATE store SET id = 777777 WHERE id = ${store}`,
      'TRUNCATE listing CASCADE',
      'TRUNCATE store CASCADE',
    ]) {
      const e = await refusal(db.pool.query(sql));
      expect(e?.code, sql).toBe('23503');
    }
    expect(await spans()).toBe(2);
    // An unreferenced listing goes.
    const free = (await db.pool.query<{ id: number }>(
      `INSERT INTO listing (retailer_id, external_id, name, first_seen) SELECT id, 'free', 'free', '2026-01-01' FROM retailer WHERE slug = 'woolworths' RETURNING id`,
    )).rows[0].id;
    expect((await db.pool.query('DELETE FROM listing WHERE id = $1', [free])).rowCount).toBe(1);
  });

  it('locks the referenced listing until the inserting transaction ends, as a foreign key does', async () => {
    const fresh = (await db.pool.query<{ id: number }>(
      `INSERT INTO listing (retailer_id, external_id, name, first_seen) SELECT id, 'locked', 'locked', '2026-01-01' FROM retailer WHERE slug = 'woolworths' RETURNING id`,
    )).rows[0].id;
    const writer = await db.pool.connect();
    const deleter = await db.pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`INSERT INTO store_price_span (listing_id, store_id, first_day, price) VALUES ($1, $2, '2026-01-01', 100)`, [fresh, store]);
      await deleter.query('BEGIN');
      await deleter.query("SET LOCAL lock_timeout = '300ms'");
      const waited = await refusal(deleter.query('DELETE FROM listing WHERE id = $1', [fresh]));
      expect(waited?.code).toBe('55P03'); // lock_not_available: the DELETE waited on the span's lock
      await deleter.query('ROLLBACK');
      await writer.query('COMMIT');
      // Committed: the DELETE now finds the span and is refused.
      const refused = await refusal(db.pool.query('DELETE FROM listing WHERE id = $1', [fresh]));
      expect(refused?.code).toBe('23503');
    } finally {
      writer.release();
      deleter.release();
    }
  });

  it('lets listing, store and their spans be truncated together', async () => {
    await db.pool.query('TRUNCATE store_price_span, listing, store CASCADE');
    expect(await spans()).toBe(0);
  });
});
