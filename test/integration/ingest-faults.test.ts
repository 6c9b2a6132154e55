/**
 * Issue 13 (6): an ingest killed mid-run leaves nothing partial. The real CLI (`workers/cli.ts
 * ingest`, one Node process) ingests a SYNTHETIC four-day file (made-up listings and prices at the
 * three real PAK'nSAVE fixture stores) into a test database on loopback and is SIGKILLed part-way:
 *
 * * mid-day: a test transaction holds a row lock on the store that first reports on day 2, so the
 *   child merges day 1, then blocks inside day 2's transaction after its first writes; once the
 *   `collection` table shows day 1 and the child's backend waits on that lock, the child is killed;
 * * before the first day: the test holds the chain's ingest advisory lock, so the child stages the
 *   file and then waits; it is killed there.
 *
 * Every day must then be fully merged (the same rows as an ingest of that day alone) or absent, and
 * re-running the ingest must complete and give what an uninterrupted ingest gives.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { insertFixtureStores } from '../helpers/fixtures.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { LOCKS } from '../../src/db/locks.js';
import { readObservationFile } from '../../workers/ingest/format.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DAYS = ['2026-08-03', '2026-08-04', '2026-08-05', '2026-08-06'];
const STORES = ['60561e46-ece7-43a7-b142-9b14812586e4', '5f167936-79ae-4f6a-b9d2-74afe1bb096b', '2a1b331a-fc4a-496a-b072-e97cc8f70cae'];
/** The store that reports from day 2 on: the mid-day kill blocks on its row. */
const LATE_STORE = STORES[2];
const HEADER = 'day,retailer,store,external_id,price,promo_price,promo_kind,name';
const TIMEOUT_MS = 60_000;

/** The synthetic file: 3 stores (the third from day 2) × 150 listings (30 more from day 3), some prices changing daily. */
function syntheticCsv(days: readonly string[]): string {
  let seed = 13;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const price = new Map<string, number>();
  const lines = [HEADER];
  for (const [d, day] of DAYS.entries()) {
    for (const [s, store] of STORES.entries()) {
      if (store === LATE_STORE && d === 0) continue;
      for (let l = 0; l < (d >= 2 ? 180 : 150); l++) {
        const key = `${s}/${l}`;
        if (!price.has(key) || rand() < 0.1) price.set(key, 99 + Math.floor(rand() * 900));
        const special = l % 17 === 0;
        const p = price.get(key) as number;
        if (days.includes(day)) lines.push([day, 'paknsave', store, `SYN-F${l}`, p, special ? p - 20 : '', special ? 1 : '', `Synthetic item ${l}`].join(','));
      }
    }
  }
  return `${lines.join('\n')}\n`;
}


/** What ingest wrote, by natural keys (ids and timestamps differ between databases and runs; product links are matching's). */
async function dump(db: TestDatabase): Promise<Record<string, unknown[]>> {
  const q = async (sql: string) => (await db.pool.query(sql)).rows;
  return {
    retailer: await q(`SELECT slug, last_national_day FROM retailer ORDER BY slug`),
    store: await q(`SELECT external_id, last_day FROM store ORDER BY external_id`),
    listing: await q(`SELECT l.external_id, to_jsonb(l) - 'id' - 'retailer_id' - 'external_id' - 'product_id' - 'link_method'
      - 'link_confidence' - 'link_locked' - 'linked_at' AS attrs FROM listing l ORDER BY l.external_id`),
    store_price_span: await q(`SELECT st.external_id AS store, l.external_id, sp.first_day, sp.last_day, sp.price, sp.promo_price,
      sp.promo_kind, sp.multibuy_qty, sp.multibuy_price FROM store_price_span sp JOIN store st ON st.id = sp.store_id
      JOIN listing l ON l.id = sp.listing_id ORDER BY 1, 2, 3`),
    national_price_span: await q(`SELECT l.external_id, n.first_day, n.last_day, n.price, n.promo_price, n.promo_kind, n.multibuy_qty,
      n.multibuy_price FROM national_price_span n JOIN listing l ON l.id = n.listing_id ORDER BY 1, 2`),
    listing_day_stats: await q(`SELECT l.external_id, s.day, s.min, s.med, s.max, s.n FROM listing_day_stats s
      JOIN listing l ON l.id = s.listing_id ORDER BY 1, 2`),
    collection: await q(`SELECT r.slug, st.external_id AS store, c.day, c.mode, c.rows, c.digest FROM collection c
      JOIN retailer r ON r.id = c.retailer_id LEFT JOIN store st ON st.id = c.store_id ORDER BY 1, 2 NULLS FIRST, 3`),
  };
}

/** Starts the CLI ingest of `file` into `db` as one Node process (no wrapper that would outlive a SIGKILL). */
function startCli(db: TestDatabase, file: string): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> } {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, NODE_ENV: 'test', LOG_LEVEL: 'silent' };
  delete env.ELASTICSEARCH_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/cli.ts', 'ingest', file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (b) => (out += b));
  child.stderr?.on('data', (b) => (out += b));
  const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out });
    }),
  );
  return { child, done };
}

/** Polls `probe` every 50 ms until it is true; fails after `ms`. */
async function until(what: string, probe: () => Promise<boolean>, ms = TIMEOUT_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Backends of `db` other than the test's own pool waiting on a lock: the child's. */
async function waitingBackends(admin: pg.Client, db: TestDatabase): Promise<{ pid: number; wait_event: string; query: string; xact: boolean }[]> {
  const name = new URL(db.url).pathname.slice(1);
  return (
    await admin.query(
      `SELECT pid, wait_event, query, xact_start IS NOT NULL AS xact FROM pg_stat_activity
       WHERE datname = $1 AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      [name],
    )
  ).rows;
}

describe('an ingest killed mid-run leaves every day whole or absent (synthetic four-day file, real CLI)', () => {
  let dir: string;
  let file: string;
  const dbs: TestDatabase[] = [];
  let reference: Record<string, unknown[]>;
  let admin: pg.Client;

  const fresh = async (label: string) => {
    const db = await createTestDatabase(label);
    dbs.push(db);
    await insertFixtureStores(db.pool);
    return db;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-faults-'));
    file = path.join(dir, 'four-days.csv');
    fs.writeFileSync(file, syntheticCsv(DAYS));
    admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    // The uninterrupted ingest, through the same CLI.
    const whole = await fresh('faults_whole');
    const r = await startCli(whole, file).done;
    expect(r, r.out).toMatchObject({ code: 0 });
    expect(r.out).toContain('4 days, 4 merged, 0 chain-days already ingested');
    reference = await dump(whole);
    expect(reference.collection).toHaveLength(4 + 2 + 3 * 3); // 4 national, 2 stores on day 1, 3 on days 2–4
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    for (const db of dbs) await db.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The state after ingesting only `days` of the file, in process, in a fresh database. */
  async function only(days: string[]): Promise<Record<string, unknown[]>> {
    const db = await fresh('faults_part');
    const part = path.join(dir, `${days.join('_')}.csv`);
    fs.writeFileSync(part, syntheticCsv(days));
    await ingest(db.pool, readObservationFile(part), { progress: false, source: file });
    return dump(db);
  }

  it('killed inside day 2: day 1 is whole, day 2 absent; a re-run completes it as an uninterrupted ingest', async () => {
    const db = await fresh('faults_mid');
    const blocker = await db.pool.connect();
    let cli: ReturnType<typeof startCli> | null = null;
    try {
      // Day 1 never touches LATE_STORE; day 2's transaction stops at `UPDATE store SET last_day` on its row.
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM store WHERE external_id = $1 FOR NO KEY UPDATE', [LATE_STORE]);
      cli = startCli(db, file);
      await until('day 1 merged', async () =>
        (await db.pool.query(`SELECT 1 FROM collection WHERE day = $1 AND store_id IS NULL`, [DAYS[0]])).rowCount === 1);
      await until('the child to block inside day 2', async () => (await waitingBackends(admin, db)).some((b) => b.xact && /UPDATE store SET last_day/.test(b.query)));
      const [child] = await waitingBackends(admin, db);
      // Day 2 has written part of itself (listings, spans) in its open transaction; none of it is visible.
      cli.child.kill('SIGKILL');
      expect((await cli.done).signal).toBe('SIGKILL');
      await blocker.query('ROLLBACK');
      // The child's backend finds its client gone and rolls day 2 back.
      await until('the killed ingest backend to end', async () =>
        (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [child.pid])).rowCount === 0);
    } finally {
      await blocker.query('ROLLBACK').catch(() => {});
      blocker.release();
      cli?.child.kill('SIGKILL');
    }

    // Day 1 fully merged, exactly as an ingest of day 1 alone; nothing of days 2–4.
    const after = await dump(db);
    expect(after).toEqual(await only([DAYS[0]]));
    expect(after.collection.map((c) => (c as { day: string }).day)).toEqual([DAYS[0], DAYS[0], DAYS[0]]);

    // Re-running the same ingest skips day 1 and completes days 2–4: the uninterrupted result.
    const again = await startCli(db, file).done;
    expect(again, again.out).toMatchObject({ code: 0 });
    expect(again.out).toContain('4 days, 3 merged, 1 chain-days already ingested');
    expect(await dump(db)).toEqual(reference);
  }, 120_000);

  it('killed while waiting for another ingest of the chain, before its first day: nothing written; a re-run completes', async () => {
    const db = await fresh('faults_wait');
    const before = await dump(db);
    const holder = await db.pool.connect();
    let cli: ReturnType<typeof startCli> | null = null;
    try {
      const { rows } = await holder.query<{ id: number }>(`SELECT id FROM retailer WHERE slug = 'paknsave'`);
      await holder.query('SELECT pg_advisory_lock($1, $2)', [LOCKS.ingest.key, rows[0].id]);
      cli = startCli(db, file);
      await until('the child to wait for the ingest lock', async () => (await waitingBackends(admin, db)).some((b) => b.wait_event === 'advisory'));
      cli.child.kill('SIGKILL');
      expect((await cli.done).signal).toBe('SIGKILL');
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()').catch(() => {});
      holder.release();
      cli?.child.kill('SIGKILL');
    }
    expect(await dump(db)).toEqual(before);
    const again = await startCli(db, file).done;
    expect(again, again.out).toMatchObject({ code: 0 });
    expect(again.out).toContain('4 days, 4 merged, 0 chain-days already ingested');
    expect(await dump(db)).toEqual(reference);
  }, 120_000);
});
