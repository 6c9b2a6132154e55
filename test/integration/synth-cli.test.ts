/**
 * `npm run synth` (workers/synth/main.ts) as a user runs it, against the test server: its exit
 * codes and one-line failures. A database holding real data is refused with exit code 2 and left
 * as it was; a DATABASE_URL naming a database that does not exist fails with exit code 1 and a
 * message saying what the command expects, without a stack trace. (The embedded server's package
 * hooks the process's exit and used to turn every exit code into 0.)
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, databaseUrl, type TestDatabase } from '../helpers/db.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs the synth command with `args` and extra environment; resolves with its exit code and output. */
function synth(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'workers/synth/main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b));
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run synth', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('synth_cli');
    await db.pool.query(
      `INSERT INTO listing (retailer_id, external_id, name, first_seen) SELECT id, '12345', 'Real milk 2L', '2026-01-01' FROM retailer WHERE slug = 'woolworths'`,
    );
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('refuses a database holding real data with exit code 2 and writes nothing', async () => {
    const r = await synth(['--stores', '2', '--listings', '3', '--days', '2', '--database', db.url]);
    expect(r.stderr).toMatch(/^refused: this database holds real data/m);
    expect(r.code).toBe(2);
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM listing');
    expect(rows[0].n).toBe(1);
  }, 60_000);

  it('a DATABASE_URL whose database does not exist fails with exit code 1 and one line, no stack trace', async () => {
    const missing = databaseUrl('t_synth_cli_no_such_database');
    const r = await synth(['--stores', '2', '--listings', '3', '--days', '2'], { DATABASE_URL: missing });
    expect(r.stderr).toMatch(/^synth failed: database "t_synth_cli_no_such_database" does not exist: DATABASE_URL .* names the server/m);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.code).toBe(1);
  }, 60_000);
});
