/**
 * Small fixtures shared by the ingest tests (test/fixtures/): the PAK'nSAVE stores the observation
 * fixtures name, and a pool that fails every query unexpectedly (not an outage).
 */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import type pg from 'pg';

/** Folder of test/fixtures, with a trailing slash. */
export const FIXTURES_DIR = new URL('../fixtures/', import.meta.url).pathname;

/** Inserts the stores of test/fixtures/paknsave-stores.csv (real store list rows) as PAK'nSAVE stores. */
export async function insertFixtureStores(pool: pg.Pool): Promise<void> {
  const rows = parse(fs.readFileSync(`${FIXTURES_DIR}paknsave-stores.csv`), { columns: true }) as Record<string, string>[];
  for (const r of rows) {
    await pool.query(
      `INSERT INTO store (retailer_id, external_id, name, address, region, lat, lng, town, area)
       SELECT id, $1, $2, $3, $4, $5, $6, 'Auckland', 'Auckland' FROM retailer WHERE slug = 'paknsave'`,
      [r.store_id, r.name, r.address, r.region, Number(r.latitude), Number(r.longitude)],
    );
  }
}

/**
 * A pool whose every query and connection fails with a plain Error ("simulated pool failure"): an
 * unexpected failure, not an outage (a closed pool or refused connection is an outage: 503).
 */
export function failingPool(): pg.Pool {
  const pool = {
    query: async () => {
      throw new Error('simulated pool failure');
    },
    connect: async () => {
      throw new Error('simulated pool failure');
    },
    on: () => pool,
  };
  return pool as unknown as pg.Pool;
}
