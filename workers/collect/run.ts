/**
 * The shared collection runner (issue 18 item 2; DESIGN "Collectors"):
 * `npm run collect -- <retailer|all> [--stores id,…] [--origin URL] [--day YYYY-MM-DD]`.
 *
 * For each chain (one after the other; collectors come from workers/collect/collectors.ts):
 * 1. Origin: `--origin`, else `COLLECT_<RETAILER>_ORIGIN`, else the collector's live default. A
 *    non-loopback origin needs a contact URL for the User-Agent (COLLECT_CONTACT_URL or PUBLIC_URL).
 * 2. The chain's collect lock (advisory, per retailer). A day whose chain collection is already
 *    ingested is skipped without a request (a second run of the same day changes nothing); a day
 *    not after the chain's last ingested day is refused before any request.
 * 3. Scopes: every active store of the chain (store.external_id, the retailer's own id), or the
 *    `--stores` given (our ids, as list_stores returns them), or the nation for a national chain.
 *    Stores are collected `COLLECT_CONCURRENCY` at a time, each store's pages one after the other,
 *    every request through the shared polite client (workers/collect/http.ts). Before that, a
 *    chain collected with its default scope whose collector has `stores()` (its platform's public
 *    store directory: FreshChoice, SuperValue) has the stores listed there upserted
 *    (workers/collect/stores.ts: one transaction, placed like imported stores, never deleted).
 * 4. A store's rows are spooled to `<COLLECT_SPOOL_DIR>/<retailer>/<day>/<store>.ndjson` (written as
 *    `.part`, renamed when the store's last page is in); its checkpoint (collect_checkpoint) is then
 *    `done`. A store already done today with its spool intact is not collected again: a killed run
 *    (kill -9) resumes at the stores it had not finished, from their first page.
 * 5. Once every store was attempted, the chain's day is handed to the ingest in ONE call, from the
 *    spools of every done store (the ingest takes a chain's day once, with one digest, and builds the
 *    national medians across the day's stores, so it cannot take a chain's day store by store).
 *    Nothing is written to the price tables before that call, and the ingest merges a day in one
 *    transaction: a run killed at any point leaves no partial day.
 * 6. Mode: `snapshot` (a listing a store no longer lists closes its span there; the stores and the
 *    chain are covered that day) only when every active store of the chain was collected with no
 *    page skipped; otherwise (`--stores` subset, a failed store, a malformed page skipped)
 *    `partial`: a listing that may merely be missing from a skipped page is not marked gone, and
 *    only what was seen becomes current (src/domain/spans.ts CollectionMode). The observation time
 *    of the day is the run's start (collection.observed_at → retailer.last_run).
 * 7. The run log (collect_run: started, finished, pages, rows, errors; per store in
 *    collect_checkpoint) ends the run and sets `retailer.last_run`. Spool files of an ingested day
 *    are removed.
 *
 * Rows: each page's rows are validated by the ingest's own rules (format.ts) as they are spooled; a
 * product listed twice in one store (two departments) is kept once, the first time. A malformed
 * page (not JSON, or not the recorded shape: MalformedPage) is logged with its URL and skipped,
 * writing nothing of it; the collector's `afterMalformed` says where its chain of pages goes on (at
 * most {@link MAX_MALFORMED_IN_A_ROW} malformed pages in a row). Any other failure of a store (HTTP
 * status after retries, a store selection that did not take) fails that store only; its rows are
 * left out of the day, and the command ends non-zero after the ingest.
 *
 * Matching, the index and the derived views run once per command, after every chain (workers/cli.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import crypto from 'node:crypto';
import type pg from 'pg';
import type { CollectionMode } from '../../src/domain/spans.js';
import { ROOT_DIR, publicBaseUrl, type Env } from '../../src/env.js';
import { isDay, isFutureDay, nzToday } from '../../src/domain/days.js';
import { ingest, type IngestResult } from '../ingest/ingest.js';
import { validateObservation, ObservationError, type RawRecord } from '../ingest/format.js';
import { makeProgress } from '../progress.js';
import { HttpClient, HttpError, type HttpOptions } from './http.js';
import { MalformedPage, type ChainCollector, type CollectContext, type PageRequest } from './types.js';
import { COLLECTORS } from './collectors.js';
import { upsertDirectoryStores, type DirectoryReport } from './stores.js';
import { loadUrbanCores } from '../import/places.js';
import { SOURCE_FILES } from '../import/sources.js';
import {
  doneScopes, endRun, lockChain, scopeDone, scopeFailed, scopeStarted, sha256File, startRun, type DoneScope, type ScopeCounts,
} from './checkpoint.js';
import { ExpectedError } from '../../src/errors.js';

/** Malformed pages followed in a row (through `afterMalformed`) before a chain of pages is given up. */
export const MAX_MALFORMED_IN_A_ROW = 3;

/** Politeness and storage settings of the runner (from the environment: {@link collectConfig}). */
export interface CollectConfig {
  /** Contact URL named in the User-Agent; null: only loopback origins may be collected. */
  contactUrl: string | null;
  concurrency: number;
  ratePerSecond: number;
  timeoutMs: number;
  retries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  spoolDir: string;
  /** `COLLECT_<RETAILER>_ORIGIN` by retailer slug. */
  origins: Readonly<Record<string, string | undefined>>;
  /**
   * The urban cores file (`<DATA_DIR>/l5--nz-cities/urban_cores.csv`) that stores of a chain's
   * store directory are placed against; absent: new directory stores are not added.
   */
  urbanCoresFile?: string | null;
}

const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as { version: string }).version;

/** The runner's settings from the validated configuration. */
export function collectConfig(env: Readonly<Env>): CollectConfig {
  return {
    contactUrl: env.COLLECT_CONTACT_URL ?? (env.PUBLIC_URL ? publicBaseUrl(env) : null),
    concurrency: env.COLLECT_CONCURRENCY,
    ratePerSecond: env.COLLECT_RATE,
    timeoutMs: env.COLLECT_TIMEOUT_MS,
    retries: env.COLLECT_RETRIES,
    retryBaseMs: env.COLLECT_RETRY_BASE_MS,
    retryMaxMs: env.COLLECT_RETRY_MAX_MS,
    spoolDir: env.COLLECT_SPOOL_DIR,
    origins: {
      woolworths: env.COLLECT_WOOLWORTHS_ORIGIN,
      newworld: env.COLLECT_NEWWORLD_ORIGIN,
      paknsave: env.COLLECT_PAKNSAVE_ORIGIN,
      freshchoice: env.COLLECT_FRESHCHOICE_ORIGIN,
      supervalue: env.COLLECT_SUPERVALUE_ORIGIN,
      warehouse: env.COLLECT_WAREHOUSE_ORIGIN,
    },
    urbanCoresFile: path.join(env.DATA_DIR, SOURCE_FILES.urbanCores),
  };
}

/** The User-Agent of every collector request: project, version and contact URL. */
export function collectUserAgent(contactUrl: string | null): string {
  return `nz-grocery-prices/${PACKAGE_VERSION} (price collector; +${contactUrl ?? 'no contact URL configured'})`;
}

/** Options of one collection command. */
export interface CollectOptions {
  /** Retailer slugs, or 'all' (every registered collector). */
  retailers: readonly string[] | 'all';
  /** Our store ids (`store.id`, as list_stores returns them); default every active store of each chain. */
  stores?: readonly number[];
  /** Origin for every chain collected (overrides configuration). */
  origin?: string;
  /** The NZ day collected (default today in Pacific/Auckland); never after today. */
  day?: string;
  config: CollectConfig;
  /** Collectors (default the registry, workers/collect/collectors.ts). */
  collectors?: readonly ChainCollector[];
  /** Progress bars (default: stderr is a terminal). */
  progress?: boolean;
  /** Log lines (malformed pages, retries, failed stores); default stderr. */
  log?: (line: string) => void;
  /** Aborts the run between pages: nothing is ingested; done stores stay done for the next run. */
  signal?: AbortSignal;
  /** Called when a store's spool is complete (tests stop a run after N stores). */
  onScopeDone?: (retailer: string, scope: string) => void;
  /** Today's NZ day (tests); default nzToday(). */
  today?: string;
}

/** What one chain's run did. */
export interface ChainReport {
  retailer: string;
  origin: string;
  day: string;
  /** `already-ingested`: the day was in the database, nothing was requested. */
  status: 'finished' | 'already-ingested' | 'failed';
  runId: number | null;
  scopes: number;
  collected: number;
  /** Done stores of an earlier, interrupted run of the same day, not collected again. */
  resumed: number;
  failed: { scope: string; error: string }[];
  pages: number;
  rows: number;
  /** Malformed pages skipped (with their URLs). */
  malformed: { scope: string; url: string; error: string }[];
  mode: CollectionMode | null;
  /** The chain's store directory (collectors with `stores()`, default scope only): stores upserted; null when not read. */
  directory: (DirectoryReport & { error?: string }) | null;
  ingest: Pick<IngestResult, 'rows' | 'merged' | 'skipped' | 'listingIds' | 'seconds'> | null;
  /** HTTP attempts and retries made for the chain. */
  requests: { attempts: number; retries: number };
  seconds: number;
}

/** The whole command's report. */
export interface CollectReport {
  chains: ChainReport[];
  /** Listings observed on the merged days, ascending (what matching and search must revisit). */
  listingIds: number[];
  /** True when some day was merged (matching, the index and the views have new input). */
  ingested: boolean;
}

/** Bad arguments or configuration of a collection command. */
export class CollectError extends ExpectedError {
  override name = 'CollectError';
}

/** The run was aborted through `signal` (nothing ingested; done stores kept for the next run). */
export class CollectAborted extends ExpectedError {
  override name = 'CollectAborted';
}

const LOOPBACK = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/;

/** A scope to collect: a store (external id and our id) or the nation (''). */
interface Scope {
  scope: string;
  storeId: number | null;
}

/**
 * Runs the collectors (see the module comment). Chains run one after the other; a chain that
 * fails (lock held, day refused, ingest refused) stops the command with its error.
 * @throws CollectError for bad arguments (unknown retailer, store id of no chain collected, a
 *   future or malformed day, no contact URL for a live origin), a day not after the chain's last
 *   ingested day; CollectAborted when `signal` aborts; CollectLockedError; ObservationError when
 *   the ingest refuses the rows.
 */
export async function runCollect(pool: pg.Pool, opts: CollectOptions): Promise<CollectReport> {
  const registry = opts.collectors ?? COLLECTORS;
  const today = opts.today ?? nzToday();
  const day = opts.day ?? today;
  if (!isDay(day)) throw new CollectError(`--day must be a day YYYY-MM-DD, not "${day}"`);
  if (isFutureDay(day, today)) throw new CollectError(`--day ${day} is after today in New Zealand (${today})`);
  const wanted = opts.retailers === 'all' ? registry.map((c) => c.retailer) : [...opts.retailers];
  const collectors = wanted.map((slug) => {
    const c = registry.find((x) => x.retailer === slug);
    if (!c) throw new CollectError(`no collector for "${slug}" (collectors: ${registry.map((x) => x.retailer).join(', ') || 'none'})`);
    return c;
  });
  if (opts.origin !== undefined && !/^https?:\/\/[^/?#]+\/?$/.test(opts.origin)) throw new CollectError(`--origin must be an http(s) origin without a path, not "${opts.origin}"`);

  // --stores: our ids → (retailer slug, external id); every id must be a store of a chain collected.
  let chosen: Map<string, Scope[]> | null = null;
  if (opts.stores) {
    const r = await pool.query<{ id: number; slug: string; external_id: string }>(
      'SELECT s.id, r.slug, s.external_id FROM store s JOIN retailer r ON r.id = s.retailer_id WHERE s.id = ANY($1::int[])',
      [[...opts.stores]],
    );
    const found = new Map(r.rows.map((x) => [x.id, x]));
    chosen = new Map();
    for (const id of opts.stores) {
      const s = found.get(id);
      if (!s) throw new CollectError(`--stores: no store ${id} (list_stores gives the ids)`);
      if (!wanted.includes(s.slug)) throw new CollectError(`--stores: store ${id} belongs to ${s.slug}, which is not being collected`);
      chosen.set(s.slug, [...(chosen.get(s.slug) ?? []), { scope: s.external_id, storeId: s.id }]);
    }
  }

  const chains: ChainReport[] = [];
  // The job runner (workers/jobs) bumps the data version once after the run, even after a failure:
  // merged days, store directories and the run log (retailer.last_run) may have moved.
  for (const c of collectors) {
    if (chosen && !chosen.has(c.retailer)) continue;
    if (chosen && c.national) throw new CollectError(`${c.retailer} has national prices only: --stores does not apply`);
    chains.push(await runChain(pool, c, day, today, chosen?.get(c.retailer) ?? null, opts));
  }
  const ids = new Set<number>();
  for (const ch of chains) for (const id of ch.ingest?.listingIds ?? []) ids.add(id);
  return {
    chains,
    listingIds: [...ids].sort((a, b) => a - b),
    ingested: chains.some((ch) => (ch.ingest?.merged.length ?? 0) > 0),
  };
}

async function runChain(
  pool: pg.Pool, collector: ChainCollector, day: string, today: string, chosen: Scope[] | null, opts: CollectOptions,
): Promise<ChainReport> {
  const t0 = performance.now();
  const slug = collector.retailer;
  const log = opts.log ?? ((line: string) => console.error(line));
  const origin = (opts.origin ?? opts.config.origins[slug] ?? collector.defaultOrigin).replace(/\/+$/, '');
  if (!LOOPBACK.test(origin) && !opts.config.contactUrl) {
    throw new CollectError(`collecting ${slug} from ${origin} needs a contact URL for the User-Agent: set COLLECT_CONTACT_URL (or PUBLIC_URL)`);
  }
  const ret = await pool.query<{ id: number; national_only: boolean; last_national_day: string | null }>(
    'SELECT id, national_only, last_national_day::text FROM retailer WHERE slug = $1', [slug],
  );
  if (!ret.rows[0]) throw new CollectError(`unknown retailer "${slug}" (not in the retailer table)`);
  const retailerId = ret.rows[0].id;
  const report: ChainReport = {
    retailer: slug, origin, day, status: 'finished', runId: null, scopes: 0, collected: 0, resumed: 0, failed: [], pages: 0, rows: 0,
    malformed: [], mode: null, directory: null, ingest: null, requests: { attempts: 0, retries: 0 }, seconds: 0,
  };
  const unlock = await lockChain(pool, retailerId, slug);
  try {
    const ingested = await pool.query('SELECT 1 FROM collection WHERE retailer_id = $1 AND store_id IS NULL AND day = $2', [retailerId, day]);
    if (ingested.rowCount) {
      log(`collect ${slug}: ${day} is already ingested; nothing to collect`);
      return { ...report, status: 'already-ingested', seconds: (performance.now() - t0) / 1000 };
    }
    const last = ret.rows[0].last_national_day;
    if (last !== null && day <= last) throw new CollectError(`${slug}: ${day} is not after its last ingested day ${last} (history is append-only)`);

    if (!collector.national && chosen === null && collector.stores) {
      report.directory = await syncDirectory(pool, collector, { origin, day, store: null }, opts.config, log);
    }
    let scopes: Scope[];
    let allStores: boolean;
    if (collector.national) {
      scopes = [{ scope: '', storeId: null }];
      allStores = true;
    } else {
      const all = await pool.query<{ id: number; external_id: string }>(
        'SELECT id, external_id FROM store WHERE retailer_id = $1 AND active ORDER BY external_id', [retailerId],
      );
      scopes = chosen ?? all.rows.map((s) => ({ scope: s.external_id, storeId: s.id }));
      const chosenSet = new Set(scopes.map((s) => s.scope));
      allStores = all.rows.every((s) => chosenSet.has(s.external_id));
      if (scopes.length === 0) {
        const error = `${slug} has no active stores (import the store list first)`;
        log(`collect ${slug}: ${error}`);
        return { ...report, status: 'failed', failed: [{ scope: '', error }], seconds: (performance.now() - t0) / 1000 };
      }
    }
    report.scopes = scopes.length;
    const runStarted = new Date();
    const runId = await startRun(pool, retailerId, day, origin, scopes.length);
    report.runId = runId;

    const done = await doneScopes(pool, retailerId, day);
    const todo = scopes.filter((s) => !done.has(s.scope));
    report.resumed = scopes.length - todo.length;
    if (report.resumed > 0) log(`collect ${slug}: resuming ${day}: ${report.resumed} of ${scopes.length} stores already collected`);
    const spoolDir = path.join(opts.config.spoolDir, slug, day);
    fs.mkdirSync(spoolDir, { recursive: true });
    const http = new HttpClient(httpOptions(opts.config, (line) => log(`collect ${slug}: ${line}`)));
    const bar = makeProgress(opts.progress, `collect ${slug}`, todo.length);
    const scopeErrors = new Map<string, number>();
    for (const d of done.values()) scopeErrors.set(d.scope, d.errors);
    let aborted = false;
    try {
      let next = 0;
      const worker = async () => {
        while (next < todo.length) {
          if (opts.signal?.aborted) {
            aborted = true;
            return;
          }
          const s = todo[next++];
          const counts: ScopeCounts = { pages: 0, rows: 0, errors: 0 };
          await scopeStarted(pool, retailerId, day, s.scope, s.storeId, runId);
          try {
            const file = await collectScope(collector, http, { origin, day, store: s.storeId === null ? null : s.scope }, spoolDir, s.scope, counts, report, opts.signal, log);
            const d: DoneScope = { scope: s.scope, ...counts, spoolFile: file, spoolSha256: sha256File(file) };
            await scopeDone(pool, retailerId, day, s.scope, counts, d.spoolFile, d.spoolSha256);
            done.set(s.scope, d);
            scopeErrors.set(s.scope, counts.errors);
            report.collected += 1;
            opts.onScopeDone?.(slug, s.scope);
          } catch (e) {
            if (e instanceof CollectAborted) {
              aborted = true;
              return;
            }
            const msg = e instanceof Error ? e.message : String(e);
            log(`collect ${slug}: store ${s.scope || '(national)'} failed: ${msg}`);
            report.failed.push({ scope: s.scope, error: msg });
            await scopeFailed(pool, retailerId, day, s.scope, counts, msg);
          } finally {
            report.pages += counts.pages;
            bar.increment();
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(opts.config.concurrency, Math.max(1, todo.length)) }, worker));
    } finally {
      bar.stop();
      report.requests = { ...http.stats };
      await http.close();
    }

    const outcome = () => ({
      collected: report.collected, resumed: report.resumed, failed: report.failed.length, pages: report.pages,
      rows: report.rows, errors: report.malformed.length + report.failed.length,
    });
    if (aborted || opts.signal?.aborted) {
      await endRun(pool, runId, { status: 'aborted', ...outcome(), mode: null, error: 'aborted' });
      throw new CollectAborted(`collect ${slug}: run ${runId} aborted after ${report.collected} stores (done stores are kept for the next run)`);
    }
    const ready = scopes.filter((s) => done.has(s.scope));
    if (ready.length === 0) {
      const error = `no store could be collected (${report.failed.length} failed)`;
      await endRun(pool, runId, { status: 'failed', ...outcome(), mode: null, error });
      return { ...report, status: 'failed', seconds: (performance.now() - t0) / 1000 };
    }
    const clean = allStores && report.failed.length === 0 && ready.every((s) => (scopeErrors.get(s.scope) ?? 0) === 0);
    report.mode = clean ? 'snapshot' : 'partial';
    let result: IngestResult;
    try {
      result = await ingest(pool, spooledRecords(ready.map((s) => (done.get(s.scope) as DoneScope).spoolFile)), {
        mode: report.mode,
        source: `collect ${slug} ${origin} run ${runId}`,
        progress: opts.progress,
        today,
        // The prices were observed while the run went (a replayed or back-dated `--day` run is
        // clamped to that day's start by the ingest's default).
        observedAt: (d) => (d === today ? runStarted : null),
      });
    } catch (e) {
      await endRun(pool, runId, { status: 'failed', ...outcome(), mode: report.mode, error: e instanceof Error ? e.message : String(e) });
      throw e;
    }
    report.rows = result.rows;
    report.ingest = { rows: result.rows, merged: result.merged, skipped: result.skipped, listingIds: result.listingIds, seconds: result.seconds };
    await endRun(pool, runId, { status: 'finished', ...outcome(), mode: report.mode, error: report.failed.length ? `${report.failed.length} stores failed` : null });
    fs.rmSync(spoolDir, { recursive: true, force: true });
    return { ...report, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await unlock();
  }
}

/** A `fetchJson` for collectors' set-up requests: the body parsed as JSON (HttpError when it is not). */
function jsonFetcher(http: HttpClient): (req: PageRequest) => Promise<{ body: unknown; headers: Record<string, string> }> {
  return async (req) => {
    const res = await http.send(req);
    try {
      return { body: JSON.parse(res.text) as unknown, headers: res.headers };
    } catch {
      throw new HttpError(`${req.method ?? 'GET'} ${req.url} answered with a body that is not JSON`, req.url, res.status);
    }
  };
}

/**
 * Reads a chain's store directory and upserts its stores (workers/collect/stores.ts). A directory
 * that cannot be read (HTTP failure, malformed, an invalid store) is logged; the run goes on with the
 * stores already in the table.
 */
async function syncDirectory(
  pool: pg.Pool, collector: ChainCollector, ctx: Omit<CollectContext, 'session'>, config: CollectConfig, log: (line: string) => void,
): Promise<DirectoryReport & { error?: string }> {
  const slug = collector.retailer;
  const http = new HttpClient(httpOptions(config, (line) => log(`collect ${slug}: ${line}`)));
  try {
    const listed = await (collector.stores as NonNullable<ChainCollector['stores']>)(ctx, jsonFetcher(http));
    let cores = null;
    if (config.urbanCoresFile && fs.existsSync(config.urbanCoresFile)) cores = loadUrbanCores(config.urbanCoresFile);
    const r = await upsertDirectoryStores(pool, slug, listed, cores, (line) => log(`collect ${slug}: ${line}`));
    log(`collect ${slug}: store directory: ${r.listed} listed, ${r.inserted} added, ${r.updated} updated, ${r.unplaced.length} left out`);
    return r;
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    log(`collect ${slug}: store directory not read (collecting the stores already known): ${error}`);
    return { listed: 0, inserted: 0, updated: 0, unchanged: 0, unplaced: [], error };
  } finally {
    await http.close();
  }
}

function httpOptions(c: CollectConfig, log: (line: string) => void): HttpOptions {
  return {
    userAgent: collectUserAgent(c.contactUrl),
    timeoutMs: c.timeoutMs,
    retries: c.retries,
    retryBaseMs: c.retryBaseMs,
    retryMaxMs: c.retryMaxMs,
    concurrency: c.concurrency,
    ratePerSecond: c.ratePerSecond,
    log,
  };
}

/** The spool file name of a scope (the external id made file-safe; '' is the nation). */
function spoolName(scope: string): string {
  const safe = scope === '' ? '_national' : scope.replace(/[^A-Za-z0-9._-]/g, (ch) => `%${ch.charCodeAt(0).toString(16)}`);
  return `${safe}.ndjson`;
}

/**
 * Fetches every page of one scope and spools its rows; resolves with the spool file once the last
 * page is in. Counts go to `counts`; malformed pages to `report.malformed`.
 * @throws CollectAborted, HttpError or any collector error (the scope fails; its `.part` file is removed).
 */
async function collectScope(
  collector: ChainCollector, http: HttpClient, base: Omit<CollectContext, 'session'>, spoolDir: string, scope: string,
  counts: ScopeCounts, report: ChainReport, signal: AbortSignal | undefined, log: (line: string) => void,
): Promise<string> {
  const final = path.join(spoolDir, spoolName(scope));
  const part = `${final}.${crypto.randomBytes(4).toString('hex')}.part`;
  const fd = fs.openSync(part, 'w');
  let ok = false;
  try {
    const fetchJson = jsonFetcher(http);
    const session = collector.session ? await collector.session(base, fetchJson) : undefined;
    const ctx: CollectContext = { ...base, session };
    const seen = new Set<string>();
    const queue: PageRequest[] = [collector.firstPage(ctx)];
    let malformedInARow = 0;
    let buf = '';
    while (queue.length > 0) {
      if (signal?.aborted) throw new CollectAborted('aborted');
      const req = queue.shift() as PageRequest;
      const res = await http.send({ ...req, headers: { ...req.headers, ...session } });
      counts.pages += 1;
      let parsed;
      try {
        let body: unknown = res.text;
        if ((req.responseType ?? 'json') === 'json') {
          try {
            body = JSON.parse(res.text);
          } catch {
            throw new MalformedPage('the body is not JSON');
          }
        }
        parsed = collector.parsePage(body, req, ctx);
        for (const row of parsed.rows) {
          if (row.retailer !== collector.retailer || row.day !== base.day || (row.store ?? null) !== base.store) {
            throw new Error(`${collector.retailer} collector bug: a row of ${row.retailer} ${row.day} store ${row.store ?? ''} on a page of ${base.day} store ${base.store ?? ''}`);
          }
          try {
            validateObservation({ line: 0, record: row });
          } catch (e) {
            if (e instanceof ObservationError) throw new MalformedPage(`product ${String(row.external_id)}: ${e.detail}`);
            throw e;
          }
        }
      } catch (e) {
        if (!(e instanceof MalformedPage)) throw e;
        counts.errors += 1;
        report.malformed.push({ scope, url: req.url, error: e.message });
        log(`collect ${collector.retailer}: malformed page skipped: ${req.method ?? 'GET'} ${req.url}: ${e.message}`);
        malformedInARow += 1;
        const after = malformedInARow < MAX_MALFORMED_IN_A_ROW ? collector.afterMalformed?.(req, ctx) ?? null : null;
        if (after) queue.unshift(after);
        continue;
      }
      malformedInARow = 0;
      for (const row of parsed.rows) {
        const key = String(row.external_id).trim();
        if (seen.has(key)) continue;
        seen.add(key);
        buf += JSON.stringify(row) + '\n';
        counts.rows += 1;
      }
      if (buf.length > 1 << 16) {
        fs.writeSync(fd, buf);
        buf = '';
      }
      queue.unshift(...(parsed.next ? [parsed.next] : []), ...(parsed.more ?? []));
    }
    if (buf) fs.writeSync(fd, buf);
    fs.fsyncSync(fd);
    ok = true;
  } finally {
    fs.closeSync(fd);
    if (!ok) fs.rmSync(part, { force: true });
  }
  fs.renameSync(part, final);
  return final;
}

/** The spooled rows of the given files, in order, as ingest records (file and line named in errors). */
async function* spooledRecords(files: readonly string[]): AsyncGenerator<RawRecord> {
  for (const file of files) {
    const name = path.basename(file);
    const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
    let line = 0;
    for await (const text of rl) {
      line += 1;
      if (text !== '') yield { line, record: JSON.parse(text) as unknown, file: name };
    }
  }
}
