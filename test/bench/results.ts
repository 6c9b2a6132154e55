/**
 * The benches' shared record (issue 19 item 5): each bench ends with {@link recordResults}, which
 * merges its headline figures and ratios into `test/bench/results.json` under the bench's name,
 * with the machine they were measured on and when, so that runs can be compared (the file is
 * committed; a later run of one bench replaces only that bench's entry).
 *
 * File shape: `{ "benches": { "<name>": { "at", "machine", "figures" } } }`, where `machine` is
 * `{ os, cpus: { model, count }, memoryGiB, node, postgres, postgresServer }` — `postgres` is the
 * server's `server_version` (asked of BENCH_DATABASE_URL / TEST_DATABASE_URL, the server the benches
 * use), or null when it could not be read; `postgresServer` says which server that was
 * (test/bench/server.ts: the throwaway embedded one, durability off, or the one TEST_DATABASE_URL /
 * DATABASE_URL named; absent in entries recorded before it was kept). BENCH_RESULTS_FILE writes
 * elsewhere (e.g. a scratch run).
 */
import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { benchServerChosen } from './server.js';

/** Where the record is kept. */
export const RESULTS_FILE = process.env.BENCH_RESULTS_FILE ?? new URL('./results.json', import.meta.url).pathname;

/** The machine a run was measured on. */
export interface MachineDescription {
  os: string;
  cpus: { model: string; count: number };
  memoryGiB: number;
  node: string;
  postgres: string | null;
  /** The kind of server (test/bench/server.ts BenchServer.label), null when the bench did not choose one. */
  postgresServer?: string | null;
}

/** One bench's entry. */
export interface BenchEntry {
  /** When the figures were recorded (ISO 8601, UTC). */
  at: string;
  machine: MachineDescription;
  /** The bench's headline figures and ratios (JSON values; units in the member names). */
  figures: unknown;
}

/** The whole file. */
export interface ResultsFile {
  benches: Record<string, BenchEntry>;
}

/** The PostgreSQL server version (`server_version`), or null when the server cannot be reached. */
async function postgresVersion(pool?: pg.Pool): Promise<string | null> {
  const sql = "SELECT current_setting('server_version') AS v";
  try {
    if (pool) return (await pool.query<{ v: string }>(sql)).rows[0]?.v ?? null;
    const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
    if (!url) return null;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      return (await client.query<{ v: string }>(sql)).rows[0]?.v ?? null;
    } finally {
      await client.end().catch(() => undefined);
    }
  } catch {
    return null;
  }
}

/** Describes this machine (and the PostgreSQL server, through `pool` when given). */
export async function describeMachine(pool?: pg.Pool): Promise<MachineDescription> {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: { model: cpus[0]?.model.trim() ?? 'unknown', count: cpus.length },
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    postgres: await postgresVersion(pool),
    postgresServer: benchServerChosen()?.label ?? null,
  };
}

/** Reads the record (an empty one when the file is missing or unreadable). */
export function readResults(file = RESULTS_FILE): ResultsFile {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ResultsFile>;
    if (parsed && typeof parsed.benches === 'object' && parsed.benches !== null) return { benches: parsed.benches };
  } catch {
    // missing or not JSON: start afresh
  }
  return { benches: {} };
}

/**
 * Merges `figures` into the record under `benchName` (replacing that bench's previous entry, other
 * benches kept), with the machine description and the time. Never throws: a bench's figures are
 * printed anyway, so a failure to record is reported on stderr only.
 * @param pool a pool of the database the bench used, to read the PostgreSQL version from (else a
 *   short connection to BENCH_DATABASE_URL / TEST_DATABASE_URL, the server of test/bench/server.ts)
 */
export async function recordResults(benchName: string, figures: unknown, pool?: pg.Pool): Promise<void> {
  try {
    const entry: BenchEntry = { at: new Date().toISOString(), machine: await describeMachine(pool), figures };
    const record = readResults();
    record.benches[benchName] = entry;
    const sorted: ResultsFile = { benches: Object.fromEntries(Object.entries(record.benches).sort(([a], [b]) => a.localeCompare(b))) };
    const tmp = `${RESULTS_FILE}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(sorted, null, 2)}\n`);
    fs.renameSync(tmp, RESULTS_FILE);
    console.log(`recorded ${benchName} in ${RESULTS_FILE}`);
  } catch (err) {
    console.error(`could not record ${benchName} results: ${(err as Error).message}`);
  }
}
