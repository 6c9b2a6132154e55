/**
 * Start-up (the worker process, `npm run worker -- start`): with IMPORT_ON_START, an empty
 * database gets the real data of DATA_DIR through the import pipeline (import, matching, search,
 * basket matching, index, views); a database with data gets the refresh pipeline (basket
 * matching, the index and the views, incremental: a current database writes nothing). Both run
 * through the one runner (./runner.ts).
 */
import { isEmpty, pendingImportSteps, DataDirError } from '../import/index.js';
import { runPipeline, type PipelineResult } from './pipeline.js';
import type { JobRunner } from './runner.js';


/**
 * Brings the database up to date at start-up (see the module comment); a missing data folder is
 * logged, not thrown (the API serves an empty database, saying so).
 * @returns the pipeline's result, or null when IMPORT_ON_START is off or the data folder is missing.
 * @throws a failing job's error.
 */
export async function startup(runner: JobRunner): Promise<PipelineResult | null> {
  const { pool, env, log } = runner.ctx;
  if (!env.IMPORT_ON_START) return null;
  if (await isEmpty(pool)) {
    log(`empty database: importing the real data of ${env.DATA_DIR}`);
    try {
      return await runPipeline(runner, { source: { kind: 'import', dataDir: env.DATA_DIR } });
    } catch (e) {
      if (!(e instanceof DataDirError)) throw e;
      log(`${e.message} — serving without data; set DATA_DIR and restart, or run \`npm run import\``);
      return null;
    }
  }
  // A database imported by an older version (before the catalogue step, say) keeps its data; say
  // what it lacks rather than re-importing over it.
  const pending = await pendingImportSteps(pool, env.DATA_DIR).catch(() => []);
  if (pending.length) {
    log(`the database lacks import step(s) ${pending.join(', ')} of ${env.DATA_DIR}: run \`npm run import\`; if it refuses a day as not after the stored history, the database predates them — remove its data and start again`);
  }
  return runPipeline(runner, { source: { kind: 'none' } });
}
