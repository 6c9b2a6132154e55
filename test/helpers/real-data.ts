/**
 * One import of the real data per test run, shared by the files that start from it (issue 28:
 * "share one imported real-data database between the files that only read it"). The first file
 * to ask imports ../shared/data (workers/import, as `npm start` does) into a template database;
 * every file then gets its own copy (CREATE DATABASE … TEMPLATE, a file copy: seconds, not the
 * import's 45 s), so a file may still write to its copy. The template is named after the run
 * (TEST_RUN_ID, set by test/global-setup.ts) and dropped at the end of the run; a session
 * advisory lock on the maintenance database makes concurrent files wait for the one import.
 */
import { openDatabase } from '../../src/db/database.js';
import { importRealData } from '../../workers/import/index.js';
import { createTestDatabase, DATA_DIR, databaseUrl, withAdmin, type TestDatabase } from './db.js';

/** Prefix of the run's real-data template databases (test/global-setup.ts drops them). */
export const REAL_TEMPLATE_PREFIX = 't_real_template_';

/** Advisory lock key of the template's build (test code only; the service's keys are in src/db/locks.ts). */
const TEMPLATE_LOCK = 727_900;

/** The run's template name. @throws Error when TEST_RUN_ID is unset (not under `npm test`). */
function templateName(): string {
  const run = process.env.TEST_RUN_ID;
  if (!run || !/^[a-z0-9]+$/.test(run)) throw new Error('TEST_RUN_ID is unset: run the tests with `npm test` (test/global-setup.ts sets it)');
  return `${REAL_TEMPLATE_PREFIX}${run}`;
}

/**
 * A database of the test server holding the real data as imported from DATA_DIR (stores, the
 * Woolworths price log, the catalogue, the store samples, the official FPI; nothing derived:
 * matching, the index and the views are the caller's to run).
 */
export async function createRealDataDatabase(label: string): Promise<TestDatabase> {
  const template = templateName();
  await withAdmin(async (admin) => {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template])).rowCount === 1;
      if (exists) return;
      const building = `${template}_build`;
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${building}`);
      const db = await openDatabase({ databaseUrl: databaseUrl(building), embeddedDir: '', embeddedPort: 0 });
      try {
        await importRealData(db.pool, DATA_DIR, { progress: false });
      } finally {
        await db.close();
      }
      // Published whole or not at all: a failed import leaves no template behind.
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  return createTestDatabase(label, { template });
}
