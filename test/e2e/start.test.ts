/**
 * `npm start` end to end, as on a fresh machine: no DATABASE_URL, so the service starts an embedded
 * PostgreSQL in a new directory, serves at once, and its worker process (src/supervisor.ts) imports
 * the real data from ../shared/data. Killing the worker leaves the API serving and the worker is
 * started again. Then the
 * REST answers are checked against the real sources: store counts of the retailers' own lists, and
 * the Woolworths price-change log reproduced day by day by /listings/{id}/history. Beside the
 * running service, the real `npm run export` uses the service's embedded PostgreSQL (found through
 * its postmaster.pid) instead of starting a second one, and the service serves what it wrote; on a
 * data directory with no server, a worker command starts and stops its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { nzDay } from '../../src/domain/days.js';
import { dollarsToCents } from '../../src/domain/money.js';
import { DATA_DIR } from '../helpers/db.js';
import { parsePostmasterPid } from '../../src/db/embedded.js';

const ROOT = new URL('../../', import.meta.url).pathname;
// Below the kernel's ephemeral range (32768–60999 here), so an outgoing connection cannot hold it.
const PORT = 20000 + 2 * Math.floor(Math.random() * 6000);
const PG_PORT = PORT + 1;
const BASE = `http://127.0.0.1:${PORT}`;

let child: ChildProcess;
let pgDir: string;
let exportDir: string;
let serverEnv: NodeJS.ProcessEnv;
let startSeconds = 0;
let output = '';
/** GET /api/v1/status's `computing` when the real listings were first served (null: never seen before start-up finished). */
let computingWhenServed: string[] | null = null;

async function getJson(url: string) {
  const r = await fetch(`${BASE}${url}`);
  return { status: r.status, headers: r.headers, body: await r.json() };
}

beforeAll(async () => {
  pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prices-e2e-'));
  exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prices-e2e-exports-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', EMBEDDED_PG_DIR: pgDir, EMBEDDED_PG_PORT: String(PG_PORT), EXPORT_DIR: exportDir, DATA_DIR, LOG_LEVEL: 'info' };
  delete env.DATABASE_URL;
  serverEnv = env;
  const t0 = Date.now();
  child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode}:\n${output}`);
    const ok = await fetch(`${BASE}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (Date.now() - t0 > 170_000) throw new Error(`service not up after 170 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  startSeconds = (Date.now() - t0) / 1000;
  // The API serves at once; the worker process imports the real data (served as soon as the import
  // commits: a shopper's search finds it), then derives the rest and says so.
  let dataSeconds: number | null = null;
  while (!output.includes('worker process: start-up finished')) {
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode}:\n${output}`);
    if (Date.now() - t0 > 400_000) throw new Error(`the worker's start-up did not finish in 400 s:\n${output}`);
    if (dataSeconds === null) {
      const r = await fetch(`${BASE}/api/v1/retailers`).then((x) => x.json() as Promise<{ slug: string; listings: number }[]>, () => []);
      if (r.some((x) => x.slug === 'woolworths' && x.listings > 0)) {
        dataSeconds = (Date.now() - t0) / 1000;
        computingWhenServed = (await getJson('/api/v1/status')).body.computing;
      }
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const doneSeconds = (Date.now() - t0) / 1000;
  console.log(`npm start on an empty embedded database: serving after ${startSeconds.toFixed(1)} s, real listings served after ${dataSeconds?.toFixed(1) ?? doneSeconds.toFixed(1)} s, matching, index and views done after ${doneSeconds.toFixed(1)} s (status then computing: ${computingWhenServed?.join(', ') ?? 'not seen'})`);
}, 420_000);

/** The pids of the worker processes the service's log announced, in order. */
function workerPids(): number[] {
  return [...output.matchAll(/"workerPid":(\d+)[^\n]*"msg":"worker process started"/g)].map((m) => Number(m[1]));
}

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  fs.rmSync(pgDir, { recursive: true, force: true });
  fs.rmSync(exportDir, { recursive: true, force: true });
});

/** Runs `npm run <script> [-- args]` in the repository with `env`; resolves with its exit code and output. */
function npmRun(script: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('npm', ['run', '--silent', script, ...(args.length ? ['--', ...args] : [])], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.once('error', reject);
    p.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The postmaster pid recorded in `dir`'s lock file, or null when no server holds it. */
function postmasterPid(dir: string): number | null {
  const file = path.join(dir, 'postmaster.pid');
  return fs.existsSync(file) ? parsePostmasterPid(fs.readFileSync(file, 'utf8'))?.pid ?? null : null;
}

/** The log's changes per SKU as the service must show them: NZ day, last change of a day, equal neighbours merged. */
function expectedFromLog(): Map<string, { from: string[]; price: number[] }> {
  const rows = parse(fs.readFileSync(path.join(DATA_DIR, 'neon-ninja--woolies/price_history.csv')), { columns: true }) as {
    SKU: string; timestamp: string; price: string;
  }[];
  rows.sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
  const perDay = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const m = perDay.get(r.SKU) ?? new Map<string, number>();
    m.set(nzDay(Number(r.timestamp)), dollarsToCents(r.price));
    perDay.set(r.SKU, m);
  }
  const out = new Map<string, { from: string[]; price: number[] }>();
  for (const [sku, m] of perDay) {
    const h = { from: [] as string[], price: [] as number[] };
    for (const [day, price] of [...m].sort(([a], [b]) => a.localeCompare(b))) {
      if (h.price[h.price.length - 1] === price) continue;
      h.from.push(day);
      h.price.push(price);
    }
    out.set(sku, h);
  }
  return out;
}

describe('npm start on a fresh machine', () => {
  it('says what is still being computed while the worker derives it, and nothing once start-up finished', async () => {
    // Served real listings before matching, the index and the views were done: the status said so.
    if (computingWhenServed !== null) {
      expect(computingWhenServed.length, 'computing when the listings were first served').toBeGreaterThan(0);
      expect(['match', 'basket-match', 'index', 'views'].filter((j) => computingWhenServed!.includes(j))).not.toEqual([]);
    }
    const { status, body } = await getJson('/api/v1/status');
    expect(status).toBe(200);
    expect(body.computing).toEqual([]);
    const state = new Map(body.jobs.map((j: { job: string; state: string }) => [j.job, j.state]));
    for (const job of ['import', 'match', 'basket-match', 'index', 'views']) expect(state.get(job), job).toBe('finished');
  });

  it('lists the six chains with real listing and store counts', async () => {
    const { status, headers, body } = await getJson('/api/v1/retailers');
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('public, max-age=300');
    const by = Object.fromEntries(body.map((r: { slug: string }) => [r.slug, r]));
    expect(Object.keys(by).sort()).toEqual(['freshchoice', 'newworld', 'paknsave', 'supervalue', 'warehouse', 'woolworths']);
    expect(by.woolworths.stores).toBe(177);
    expect(by.newworld.stores).toBe(148);
    expect(by.paknsave.stores).toBe(58);
    expect(by.warehouse.stores).toBe(0);
    expect(by.woolworths.listings).toBeGreaterThanOrEqual(19618 + 3802); // every SKU of the price log, and the catalogue SKUs it lacks
    expect(by.paknsave.listings).toBeGreaterThan(0);
    expect(by.newworld.listings).toBeGreaterThan(0);
    expect(body[0].slug).toBe('woolworths'); // largest catalogue first
  });

  it('finds real named milk: q=milk gives catalogue names, no placeholders', async () => {
    const { status, body } = await getJson('/api/v1/listings?q=milk&limit=10');
    expect(status).toBe(200);
    expect(body.length).toBe(10);
    for (const c of body as { name: string }[]) {
      expect(c.name).not.toMatch(/^Woolworths item /);
      expect(c.name).toMatch(/milk/);
    }
  });

  it('reproduces every logged Woolworths price change on its NZ day, with the SKU as external_id', async () => {
    const expected = expectedFromLog();
    // SKUs with the most changes: the hardest to get right.
    const skus = [...expected].sort((a, b) => b[1].from.length - a[1].from.length).slice(0, 5).map(([s]) => s);
    const client = new pg.Client({ connectionString: `postgresql://postgres:postgres@127.0.0.1:${PG_PORT}/prices` });
    await client.connect();
    try {
      for (const sku of skus) {
        const r = await client.query(
          `SELECT l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths' AND l.external_id = $1`, [sku]);
        const id = r.rows[0].id as number;
        const detail = await getJson(`/api/v1/listings/${id}`);
        expect(detail.body.external_id).toBe(sku);
        const { body: h } = await getJson(`/api/v1/listings/${id}/history`);
        const want = expected.get(sku)!;
        // The log's spans come first; a later store sample may add spans after them.
        expect(h.from.slice(0, want.from.length)).toEqual(want.from);
        expect(h.price.slice(0, want.price.length)).toEqual(want.price);
        for (let i = 0; i + 1 < h.from.length; i++) expect(h.to[i] < h.from[i + 1]).toBe(true);
      }
    } finally {
      await client.end();
    }
  });
});

describe('the food price index on the real data (npm start computed it after the import)', () => {
  it('covers every day of the real price log, anchored on the last fully observed official month', async () => {
    const latest = await getJson('/api/v1/index/latest');
    expect(latest.status).toBe(200);
    expect(latest.body.as_of).toBe('2026-08-03'); // the newest real collection, not today
    expect(latest.body.coverage.items).toBeGreaterThan(100);
    expect(latest.body.groups.map((g: { code: string }) => g.code)).toEqual(['fruit_veg', 'meat_poultry_fish', 'grocery_food', 'beverages']);
    const etag = latest.headers.get('etag');
    expect(etag).toBeTruthy();
    expect((await fetch(`${BASE}/api/v1/index/latest`, { headers: { 'if-none-match': etag! } })).status).toBe(304);

    const daily = await getJson('/api/v1/index/daily?from=2024-10-01&to=2026-08-31');
    expect(daily.status).toBe(200);
    const days = daily.body.map((p: { day: string }) => p.day);
    expect(days[0]).toBe('2024-10-14'); // the log's first NZ day
    expect(days.at(-1)).toBe('2026-08-03');
    expect(days.length).toBe(659); // every calendar day between, none missing
    expect(daily.body[0].raw).toBe(1000);
    // Anchored so that April 2025's mean equals the official all-food FPI of April 2025.
    const april = daily.body.filter((p: { day: string }) => p.day.startsWith('2025-04'));
    const mean = april.reduce((s: number, p: { anchored: number }) => s + p.anchored, 0) / april.length;
    const official = fs.readFileSync(path.join(DATA_DIR, 'thecolab-ai--nz-cost-of-living/src/lib/fpi_monthly.csv'), 'utf8')
      .split('\n').find((l) => l.startsWith('CPIM.SE901,2025-04,'))!;
    expect(mean).toBeCloseTo(Number(official.split(',')[2]), 6);
  });

  it('serves the basket with real matches and a basket item with its priced listings', async () => {
    const basket = await getJson('/api/v1/basket');
    expect(basket.status).toBe(200);
    expect(basket.body.length).toBe(155);
    const milk = basket.body.find((i: { name: string }) => i.name === 'Milk - standard homogenised, 2 litres');
    expect(milk.matches).toBeGreaterThan(0);
    const item = await getJson(`/api/v1/basket/${milk.id}`);
    expect(item.status).toBe(200);
    for (const l of item.body.listings) {
      expect(l.name).toMatch(/milk/);
      expect(l.qty).toBe(2000); // 2 litres, per pack
    }
    const groups = await getJson('/api/v1/index/groups?days=30');
    expect(groups.body.days.at(-1)).toBe('2026-08-03');
    expect(groups.body.groups[0].code).toBe('all');
  });

  it('npm run worker -- index beside npm start finds the index current and writes nothing', async () => {
    const r = await npmRun('worker', serverEnv, ['index']);
    expect(r.code, `npm run worker -- index failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('"mode":"unchanged"');
    expect(r.stdout).toContain('"decisions":0');
  }, 300_000);
});

describe('the worker process of npm start', () => {
  it('runs beside the API; killed, it leaves the API serving and is started again', async () => {
    const [first] = workerPids();
    expect(first, output).toBeGreaterThan(0);
    const apiPid = Number(/"pid":(\d+)[^\n]*"msg":"serving"/.exec(output)?.[1]);
    expect(apiPid, output).toBeGreaterThan(0);
    expect(first).not.toBe(apiPid);
    process.kill(first, 0); // alive
    // The API process imports nothing from workers/: its jobs ran in the worker, whose reports went to the log.
    expect(output).toContain('matching: ');
    expect(output).toContain('views (data version');
    process.kill(first, 'SIGKILL');
    const t0 = Date.now();
    while (workerPids().length < 2) {
      expect((await fetch(`${BASE}/api/v1/retailers`)).status).toBe(200); // serving throughout
      if (Date.now() - t0 > 60_000) throw new Error(`no new worker within 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(output).toContain('worker process died');
    const second = workerPids()[1];
    expect(second).not.toBe(first);
    process.kill(second, 0);
    process.kill(apiPid, 0); // the API process lived on
  }, 90_000);
});

describe('worker commands beside npm start (one embedded PostgreSQL per data directory)', () => {
  it('npm run export uses the running service\'s PostgreSQL, and the service serves the export', async () => {
    const pid = postmasterPid(pgDir);
    expect(pid).not.toBeNull();
    const r = await npmRun('export', serverEnv);
    expect(r.code, `npm run export failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr).toContain(`the embedded PostgreSQL already running on ${pgDir} (pid ${pid}, port ${PG_PORT})`);
    expect(r.stdout).toContain('published as latest');
    // No second server: the same postmaster still holds the directory, and the service still answers.
    expect(postmasterPid(pgDir)).toBe(pid);
    expect((await fetch(`${BASE}/healthz`)).status).toBe(200);

    const manifest = await getJson('/data/latest/manifest.json');
    expect(manifest.status).toBe(200);
    const files = new Map((manifest.body.files as { name: string; rows: number; bytes: number }[]).map((f) => [f.name, f]));
    expect(files.get('listings.csv.gz')?.rows).toBeGreaterThan(0);
    expect(files.get('listings.parquet')?.rows).toBeGreaterThan(0);
    const csv = await fetch(`${BASE}/data/latest/listings.csv.gz`);
    expect(csv.status).toBe(200);
    expect((await csv.arrayBuffer()).byteLength).toBe(files.get('listings.csv.gz')!.bytes);
  }, 300_000);

  it('a worker command on a data directory with no server starts its own and stops it when done', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prices-e2e-worker-'));
    try {
      const env: NodeJS.ProcessEnv = { ...serverEnv, EMBEDDED_PG_DIR: dir, EMBEDDED_PG_PORT: String(PG_PORT + 1) };
      const r = await npmRun('worker', env, ['migrate']);
      expect(r.code, `npm run worker -- migrate failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toContain('migrations applied');
      expect(r.stderr).not.toContain('already running');
      expect(fs.existsSync(path.join(dir, 'PG_VERSION'))).toBe(true); // initialised here
      expect(postmasterPid(dir)).toBeNull(); // and stopped on exit
      expect(postmasterPid(pgDir)).not.toBeNull(); // the service's server is untouched
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
