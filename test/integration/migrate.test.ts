/**
 * The migration runner (src/db/migrate.ts) on a migrations folder in a temporary directory, in a
 * schema of its own on a fresh database: applies pending migrations once, records Prisma's checksum,
 * and refuses to run when an applied migration was edited or removed (issue 14).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import {
  migrate,
  migrationChecksum,
  MigrationIntegrityError,
  MIGRATIONS_DIR,
  scriptMatchesChecksum,
} from '../../src/db/migrate.js';

let db: TestDatabase;
let pool: pg.Pool;
let dir: string;

const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const file = (name: string) => path.join(dir, name, 'migration.sql');
function write(name: string, sql: string): void {
  fs.mkdirSync(path.join(dir, name), { recursive: true });
  fs.writeFileSync(file(name), sql);
}
async function recorded(): Promise<Record<string, string>> {
  const r = await pool.query<{ migration_name: string; checksum: string }>('SELECT migration_name, checksum FROM _prisma_migrations');
  return Object.fromEntries(r.rows.map((x) => [x.migration_name, x.checksum]));
}

beforeAll(async () => {
  db = await createTestDatabase('migrate');
  // A schema of its own, so `_prisma_migrations` and the tables below start empty.
  await db.pool.query('CREATE SCHEMA mig');
  pool = new pg.Pool({ connectionString: db.url, options: '-c search_path=mig', max: 2 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  write('20260101000000_one', 'CREATE TABLE one (id INTEGER PRIMARY KEY);\n');
  write('20260102000000_two', 'CREATE TABLE two (id INTEGER PRIMARY KEY);\nINSERT INTO two VALUES (1);\n');
  fs.mkdirSync(path.join(dir, 'not_a_migration')); // no migration.sql: ignored
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('migrate', () => {
  it('applies pending migrations in order and records sha256 of each file (Prisma\'s checksum)', async () => {
    expect(await migrate(pool, dir)).toEqual(['20260101000000_one', '20260102000000_two']);
    expect(await recorded()).toEqual({
      '20260101000000_one': sha256(file('20260101000000_one')),
      '20260102000000_two': sha256(file('20260102000000_two')),
    });
    expect((await pool.query('SELECT id FROM two')).rows).toEqual([{ id: 1 }]);
  });

  it('applies nothing when nothing changed', async () => {
    expect(await migrate(pool, dir)).toEqual([]);
    expect(Object.keys(await recorded())).toHaveLength(2);
  });

  it('applies only a new migration', async () => {
    write('20260103000000_three', 'CREATE TABLE three (id INTEGER);\n');
    expect(await migrate(pool, dir)).toEqual(['20260103000000_three']);
  });

  it('rolls back a failing migration and records nothing of it', async () => {
    write('20260104000000_bad', 'CREATE TABLE four (id INTEGER);\nSELECT no_such_function();\n');
    await expect(migrate(pool, dir)).rejects.toThrow(/no_such_function/);
    expect(await recorded()).not.toHaveProperty('20260104000000_bad');
    expect((await pool.query("SELECT to_regclass('mig.four') AS t")).rows[0].t).toBeNull();
    fs.rmSync(path.join(dir, '20260104000000_bad'), { recursive: true });
  });

  it('refuses an applied migration that was edited, naming it and both checksums, and applies nothing', async () => {
    const name = '20260102000000_two';
    const before = fs.readFileSync(file(name));
    const was = sha256(file(name));
    fs.appendFileSync(file(name), 'INSERT INTO two VALUES (2);\n');
    write('20260105000000_pending', 'CREATE TABLE five (id INTEGER);\n');
    const now = sha256(file(name));
    const err = await migrate(pool, dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationIntegrityError);
    const message = (err as Error).message;
    expect(message).toContain(name);
    expect(message).toContain(`recorded sha256 ${was}`);
    expect(message).toContain(`current sha256 ${now}`);
    expect(message).toMatch(/new migration/);
    expect(message).not.toContain('\n');
    expect(err).toMatchObject({ migration: name, recorded: was, current: now });
    expect(await recorded()).not.toHaveProperty('20260105000000_pending');
    fs.writeFileSync(file(name), before);
    expect(await migrate(pool, dir)).toEqual(['20260105000000_pending']);
  });

  it('accepts an applied migration checked out with other line endings (as Prisma does)', async () => {
    const name = '20260102000000_two';
    const before = fs.readFileSync(file(name));
    fs.writeFileSync(file(name), before.toString('utf8').replaceAll('\n', '\r\n'));
    try {
      expect(await migrate(pool, dir)).toEqual([]);
    } finally {
      fs.writeFileSync(file(name), before);
    }
  });

  it('refuses when an applied migration\'s folder is missing', async () => {
    const name = '20260101000000_one';
    const kept = fs.readFileSync(file(name));
    fs.rmSync(path.join(dir, name), { recursive: true });
    try {
      const err = await migrate(pool, dir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MigrationIntegrityError);
      expect((err as Error).message).toContain(name);
      expect((err as Error).message).toContain(`sha256 ${migrationChecksum(kept)}`);
      expect((err as Error).message).toMatch(/missing/);
      expect(err).toMatchObject({ migration: name, current: null });
    } finally {
      write(name, kept.toString('utf8'));
    }
    expect(await migrate(pool, dir)).toEqual([]);
  });

  it('matches checksums by Prisma\'s rule (lowercase zero-padded hex; old unpadded form; line endings)', () => {
    // prisma-engines checksum.rs: render_checksum("hello").
    const hello = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824';
    expect(migrationChecksum(Buffer.from('hello'))).toBe(hello);
    const unpadded = [...Buffer.from(hello, 'hex')].map((b) => b.toString(16)).join('');
    expect(unpadded.length).toBeLessThan(64);
    expect(scriptMatchesChecksum(Buffer.from('hello'), unpadded)).toBe(true);
    expect(scriptMatchesChecksum(Buffer.from('ab\r\ncd\r\n'), migrationChecksum(Buffer.from('ab\ncd\n')))).toBe(true);
    expect(scriptMatchesChecksum(Buffer.from('ab\ncd\n'), migrationChecksum(Buffer.from('ab\r\ncd\r\n')))).toBe(true);
    expect(scriptMatchesChecksum(Buffer.from('abc\n'), migrationChecksum(Buffer.from('abc')))).toBe(false);
  });

  it('the repository\'s migrations are recorded with the checksums of their files', async () => {
    const rows = (await db.pool.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM public._prisma_migrations ORDER BY 1',
    )).rows;
    const names = fs.readdirSync(MIGRATIONS_DIR).filter((n) => fs.existsSync(path.join(MIGRATIONS_DIR, n, 'migration.sql'))).sort();
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const r of rows) expect(r.checksum).toBe(sha256(path.join(MIGRATIONS_DIR, r.migration_name, 'migration.sql')));
  });
});
