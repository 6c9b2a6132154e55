/**
 * retailer.listing_count (migration 20261208000000_retailer_listing_count): the catalogue size by
 * which list_retailers, compare_retailers and get_retailer_levels order chains, kept by statement
 * triggers on listing. Against a real PostgreSQL: after every kind of write the column equals a
 * count of the chain's listing rows, bulk loads under session_replication_role = replica included,
 * and a listing cannot change chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { retailerOrderSql } from '../../src/services/chain-levels.js';

describe('retailer.listing_count', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('listing_count');
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Every chain's kept count beside a fresh count of its listings. */
  async function counts(): Promise<{ slug: string; kept: number; actual: number }[]> {
    const { rows } = await db.pool.query<{ slug: string; kept: number; actual: number }>(
      `SELECT r.slug, r.listing_count AS kept, (SELECT count(*)::int FROM listing l WHERE l.retailer_id = r.id) AS actual
       FROM retailer r ORDER BY r.slug`,
    );
    return rows;
  }
  const insert = (slug: string, n: number, prefix: string) =>
    db.pool.query(
      `INSERT INTO listing (retailer_id, external_id, name, first_seen)
       SELECT r.id, $2 || g, 'item ' || g, '2026-01-01' FROM retailer r, generate_series(1, $3::int) g WHERE r.slug = $1
       ON CONFLICT (retailer_id, external_id) DO NOTHING`,
      [slug, prefix, n],
    );

  it('follows inserts (conflicts not counted), deletes, bulk loads in replica mode and TRUNCATE', async () => {
    expect((await counts()).every((c) => c.kept === 0 && c.actual === 0)).toBe(true);
    await insert('woolworths', 30, 'a');
    await insert('newworld', 12, 'a');
    await insert('woolworths', 35, 'a'); // 30 conflict, 5 new
    let now = await counts();
    expect(now.find((c) => c.slug === 'woolworths')).toEqual({ slug: 'woolworths', kept: 35, actual: 35 });
    expect(now.find((c) => c.slug === 'newworld')).toEqual({ slug: 'newworld', kept: 12, actual: 12 });

    await db.pool.query(`DELETE FROM listing WHERE external_id IN ('a1', 'a2', 'a3')`); // from both chains
    now = await counts();
    expect(now.find((c) => c.slug === 'woolworths')!.kept).toBe(32);
    expect(now.find((c) => c.slug === 'newworld')!.kept).toBe(9);

    const bulk = await db.pool.connect();
    try {
      await bulk.query('BEGIN');
      await bulk.query('SET LOCAL session_replication_role = replica');
      await bulk.query(
        `INSERT INTO listing (retailer_id, external_id, name, first_seen)
         SELECT r.id, 'b' || g, 'bulk ' || g, '2026-01-01' FROM retailer r, generate_series(1, 7) g WHERE r.slug = 'paknsave'`,
      );
      await bulk.query('COMMIT');
    } finally {
      bulk.release();
    }
    now = await counts();
    for (const c of now) expect(c.kept, c.slug).toBe(c.actual);
    expect(now.find((c) => c.slug === 'paknsave')!.kept).toBe(7);

    // A rolled-back insert leaves the count as it was.
    const tx = await db.pool.connect();
    try {
      await tx.query('BEGIN');
      await tx.query(`INSERT INTO listing (retailer_id, external_id, name, first_seen) SELECT id, 'rolled', 'x', '2026-01-01' FROM retailer WHERE slug = 'paknsave'`);
      await tx.query('ROLLBACK');
    } finally {
      tx.release();
    }
    expect((await counts()).find((c) => c.slug === 'paknsave')!.kept).toBe(7);

    await db.pool.query('TRUNCATE listing CASCADE');
    expect((await counts()).every((c) => c.kept === 0 && c.actual === 0)).toBe(true);
  });

  it('orders chains by it, largest catalogue first, then slug', async () => {
    await insert('newworld', 4, 'o');
    await insert('paknsave', 4, 'o');
    await insert('woolworths', 9, 'o');
    const { rows } = await db.pool.query<{ slug: string }>(`SELECT r.slug FROM retailer r ORDER BY ${retailerOrderSql('r')}`);
    expect(rows.slice(0, 3).map((r) => r.slug)).toEqual(['woolworths', 'newworld', 'paknsave']);
  });

  it('refuses to move a listing to another chain', async () => {
    await insert('woolworths', 1, 'm');
    const err = await db.pool
      .query(`UPDATE listing SET retailer_id = (SELECT id FROM retailer WHERE slug = 'newworld') WHERE external_id = 'm1'`)
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/does not change chain/);
    for (const c of await counts()) expect(c.kept, c.slug).toBe(c.actual);
  });
});
