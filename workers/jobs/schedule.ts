/**
 * The schedule (node-cron, Pacific/Auckland), until SIGINT/SIGTERM or `stop()`: every entry is a
 * pipeline (./pipeline.ts) run by the one runner (./runner.ts).
 * - INDEX_CRON: basket matching, the index and the derived views (incremental: a run with nothing
 *   new writes nothing);
 * - EXPORT_CRON: the same, then the nightly export (so it carries the index of the newest data);
 * - COLLECT_CRON / COLLECT_<RETAILER>_CRON: the chains due at the same time, one after the other,
 *   then matching, new images, the search index, the index and the views once, then the export.
 * No entry overlaps itself; a failed run is logged, leaves what was published, and the schedule
 * goes on.
 */
import cron from 'node-cron';
import { ConfigError, type Env } from '../../src/env.js';
import { describeFailure } from '../../src/db/embedded.js';
import { COLLECTORS } from '../collect/collectors.js';
import { runPipeline, type PipelinePlan } from './pipeline.js';
import type { JobRunner } from './runner.js';

/** One entry of the schedule. */
export interface ScheduleEntry {
  /** `index`, `export` or `collect <chain>+<chain>`. */
  name: string;
  /** The cron expression (Pacific/Auckland). */
  expr: string;
  /** The pipeline it runs. */
  plan: PipelinePlan;
}

/**
 * The entries the configuration asks for (none when every *_CRON is `off`).
 * @throws ConfigError naming the variable whose value is not a cron expression.
 */
export function scheduleEntries(env: Env): ScheduleEntry[] {
  const entries: ScheduleEntry[] = [];
  if (env.INDEX_CRON !== 'off') entries.push({ name: 'index', expr: env.INDEX_CRON, plan: { source: { kind: 'none' } } });
  if (env.EXPORT_CRON !== 'off') entries.push({ name: 'export', expr: env.EXPORT_CRON, plan: { source: { kind: 'none' }, export: true } });
  const byExpr = new Map<string, string[]>();
  for (const c of COLLECTORS) {
    const expr = (env[`COLLECT_${c.retailer.toUpperCase()}_CRON` as keyof Env] as string | undefined) ?? env.COLLECT_CRON;
    if (expr !== 'off') byExpr.set(expr, [...(byExpr.get(expr) ?? []), c.retailer]);
  }
  for (const [expr, chains] of byExpr) {
    entries.push({
      name: `collect ${chains.join('+')}`,
      expr,
      plan: { source: { kind: 'collect', input: { retailers: chains } }, match: 'if-new-data', images: {}, refresh: 'if-new-data', export: true },
    });
  }
  for (const e of entries) {
    if (!cron.validate(e.expr)) {
      throw new ConfigError(`${e.name.startsWith('collect') ? `${e.name}: COLLECT_CRON or COLLECT_<RETAILER>_CRON` : `${e.name.toUpperCase()}_CRON`} is not a cron expression: "${e.expr}"`);
    }
  }
  return entries;
}

/** A running schedule. */
export interface RunningSchedule {
  entries: ScheduleEntry[];
  /** Runs an entry now, as its cron tick would (tests; the log says the same). */
  runNow(name: string): Promise<void>;
  /** Stops every task (a run in progress finishes). */
  stop(): Promise<void>;
}

/**
 * Starts the schedule's cron tasks; each tick runs its entry's pipeline through `runner`, logging
 * a failure and going on.
 */
export function startSchedule(runner: JobRunner, entries: ScheduleEntry[]): RunningSchedule {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const tick = async (e: ScheduleEntry) => {
    try {
      await runPipeline(runner, e.plan);
    } catch (err) {
      runner.ctx.log(`${e.name} failed, what was published stays: ${describeFailure(err)}`);
    }
  };
  const tasks = entries.map((e) => cron.schedule(e.expr, () => tick(e), { timezone: 'Pacific/Auckland', noOverlap: true, name: e.name }));
  return {
    entries,
    runNow: async (name) => {
      const e = byName.get(name);
      if (!e) throw new RangeError(`no schedule entry "${name}"`);
      await tick(e);
    },
    stop: async () => {
      for (const t of tasks) await t.stop();
    },
  };
}
