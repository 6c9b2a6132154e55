/**
 * Response-cache bench (issue 19 items 1 and 5): a cached hot GET against a bare `node:http` server
 * sending the very same bytes, over the same number of keep-alive connections, measured with
 * autocannon in the same run (`npm run bench:cache`).
 *
 * A scratch database (real prices: test/helpers/prices.ts) on the benches' server
 * (test/bench/server.ts: TEST_DATABASE_URL's, else a throwaway embedded PostgreSQL) serves three
 * operations — get_listing, search_products and list_stores. Three servers run, each in a child
 * process of its own (test/bench/cache-server.ts): the API with its response cache, the same API with
 * the cache off (CACHE_MAX_BYTES=0: every request runs GraphQL and SQL), and the bare anchor answering
 * the bytes the API answered. For each URL and server: a warm-up, then BENCH_CACHE_SECONDS (default 5)
 * of load at BENCH_CACHE_CONNECTIONS (default 32) connections, bare and cached in turn
 * BENCH_CACHE_ROUNDS times (default 3; the cache off once), the figures being the rounds' medians
 * and the ratios the medians of each round's ratio. Prints req/s, p50 and p99 latency,
 * each server's CPU time per request (user + system from /proc, Linux only: steadier than req/s on
 * a shared machine, where the load client competes for the same cores), the ratio cached / bare of
 * req/s (the aim, issue 31 item 5: ≥ 0.6) and of CPU per request (bare / cached), and one JSON
 * line with every figure.
 *
 * Client addresses (BENCH_CACHE_CLIENTS): `distinct` (the default) sends every request with an
 * X-Forwarded-For of its own (10.0.0.1, 10.0.0.2, … never repeated in a run) to API servers that
 * trust it (TRUST_PROXY=true) and keep the contract's per-IP budget, so each request is a new
 * client and the budget's bookkeeping is part of the measured path; the bare anchor gets the same
 * request bytes. `one`: every request from 127.0.0.1, the budget lifted (the earlier bench).
 * BENCH_CACHE_PROFILE_DIR: the cached server runs under `node --cpu-prof` and leaves its profile there.
 *
 * The anchor's headers (BENCH_CACHE_BARE_HEADERS): `api` (the default) sends the very header set
 * the API answered the bench's first request with (Cache-Control, CORS, ETag, Last-Modified, Vary,
 * the four RateLimit headers…, as fixed values), so that the anchor writes the same response bytes
 * and the ratio measures the work of producing them; `few` sends the six headers of the earlier
 * anchor (type, length, Cache-Control, Allow-Origin, ETag, Vary).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { benchServer } from './server.js';

process.env.LOG_LEVEL ??= 'silent';
await benchServer();
// test/helpers/db.ts (also through prices.ts) reads TEST_DATABASE_URL as it is imported: only once
// the server is known.
const { createTestDatabase } = await import('../helpers/db.js');
const { seedRealPrices } = await import('../helpers/prices.js');
const { recordResults } = await import('./results.js');

const SECONDS = Number(process.env.BENCH_CACHE_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CACHE_CONNECTIONS ?? 32);
const ROUNDS = Math.max(1, Number(process.env.BENCH_CACHE_ROUNDS ?? 3));
const CLIENTS = process.env.BENCH_CACHE_CLIENTS ?? 'distinct';
const BARE_HEADERS = process.env.BENCH_CACHE_BARE_HEADERS ?? 'api';
if (BARE_HEADERS !== 'api' && BARE_HEADERS !== 'few') throw new Error(`BENCH_CACHE_BARE_HEADERS must be api or few, not ${BARE_HEADERS}`);
if (CLIENTS !== 'distinct' && CLIENTS !== 'one') throw new Error(`BENCH_CACHE_CLIENTS must be distinct or one, not ${CLIENTS}`);
const children: ChildProcess[] = [];

/** Where the cached server writes a V8 CPU profile (`node --cpu-prof`), when set. */
const PROFILE_DIR = process.env.BENCH_CACHE_PROFILE_DIR;

/** A started child: its port and process id. */
interface Child {
  port: number;
  pid: number;
}

/** Starts a cache-server.ts child and resolves its port (profiled into `profileDir` when given). */
async function startChild(args: string[], profileDir?: string): Promise<Child> {
  const file = new URL('./cache-server.ts', import.meta.url).pathname;
  const flags = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', file, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  return new Promise<Child>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`cache-server.ts ${args[0]} exited with ${code}`)));
    lines.once('line', (line) => resolve({ port: (JSON.parse(line) as { port: number }).port, pid: child.pid! }));
  });
}

/** CPU milliseconds (user + system) a process has used so far, from /proc (null elsewhere). */
function cpuMs(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // After the command: state is field 3, utime 14 and stime 15 (1-based), in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

interface Figures {
  rps: number;
  /** Server CPU microseconds per request (user + system, from /proc; null where unreadable). */
  cpuUs: number | null;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** The n-th client address of the run (10.0.0.1 onwards, 16 million before any repeats). */
let clientCount = 0;
function nextAddress(): string {
  const n = (clientCount = (clientCount + 1) % 0xff_ffff) || (clientCount = 1);
  return `10.${n >> 16}.${(n >> 8) & 255}.${n & 255}`;
}

/** One load run: `seconds` of GETs of `url` over `CONNECTIONS` connections (a new X-Forwarded-For per request with `distinct` clients). */
async function load(url: string, seconds: number, pid: number): Promise<Figures> {
  const requests =
    CLIENTS === 'distinct'
      ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': nextAddress() } }) }]
      : undefined;
  const cpuBefore = cpuMs(pid);
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1, ...(requests ? { requests } : {}) });
  const cpuAfter = cpuMs(pid);
  const cpuUs = cpuBefore === null || cpuAfter === null || r.requests.total === 0 ? null : ((cpuAfter - cpuBefore) * 1000) / r.requests.total;
  return { rps: r.requests.average, cpuUs, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

/** The median of `xs` (the mean of the middle two for an even count); null when empty. */
function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Every figure of several runs, each the median over the runs (errors summed). */
function medianFigures(runs: readonly Figures[]): Figures {
  const cpu = runs.map((r) => r.cpuUs);
  return {
    rps: median(runs.map((r) => r.rps))!,
    cpuUs: cpu.includes(null) ? null : median(cpu as number[]),
    p50: median(runs.map((r) => r.p50))!,
    p99: median(runs.map((r) => r.p99))!,
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
    errors: runs.reduce((a, r) => a + r.errors, 0),
  };
}

/** One decimal, null kept. */
const round1 = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);

const db = await createTestDatabase('bench_cache');
/** The folder of the bytes (and headers) the anchor sends; removed at the end. */
let dir: string | null = null;
try {
  await seedRealPrices(db.pool);
  const listing = (await db.pool.query<{ id: number }>("SELECT id FROM listing WHERE external_id = '42246'")).rows[0].id;
  const ops = [
    { name: 'get_listing', path: `/api/v1/listings/${listing}` },
    { name: 'search_products', path: '/api/v1/search?q=beef' },
    { name: 'list_stores', path: '/api/v1/stores' },
  ];
  const cached = await startChild(['app', db.url, String(64 * 1024 * 1024), CLIENTS], PROFILE_DIR);
  const uncached = await startChild(['app', db.url, '0', CLIENTS]);
  // The bytes the API answers, for the anchor to send.
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nzgp-bench-cache-'));
  const files: string[] = [];
  for (const [i, op] of ops.entries()) {
    const res = await fetch(`http://127.0.0.1:${cached.port}${op.path}`, { headers: { 'accept-encoding': 'identity' } });
    if (res.status !== 200) throw new Error(`${op.path} answered ${res.status}`);
    const file = path.join(dir, `${i}.json`);
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    if (BARE_HEADERS === 'api') {
      // The API's response headers as answered (the connection's own and the length aside).
      const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
      fs.writeFileSync(`${file}.headers.json`, JSON.stringify(Object.fromEntries([...res.headers].filter(([k]) => !skip.has(k)))));
    }
    files.push(file);
  }
  const bare = await startChild(['bare', ...files]);

  const loadBefore = os.loadavg()[0];
  const run = async (url: string, pid: number) => {
    await load(url, 1, pid); // warm-up (JIT, connections, the cache's first miss)
    return load(url, SECONDS, pid);
  };
  // Rounds of bare then cached for every operation (the cache off once, in the first round): the
  // medians of the rounds, so that a burst of load from elsewhere on a shared machine weighs less.
  const rounds = ops.map(() => ({ bare: [] as Figures[], cached: [] as Figures[], uncached: [] as Figures[] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, op] of ops.entries()) {
      rounds[i].bare.push(await run(`http://127.0.0.1:${bare.port}/${i}`, bare.pid));
      rounds[i].cached.push(await run(`http://127.0.0.1:${cached.port}${op.path}`, cached.pid));
      if (round === 0) rounds[i].uncached.push(await run(`http://127.0.0.1:${uncached.port}${op.path}`, uncached.pid));
    }
  }
  const rows = ops.map((op, i) => {
    const out = { bare: medianFigures(rounds[i].bare), cached: medianFigures(rounds[i].cached), uncached: medianFigures(rounds[i].uncached) };
    const ratios = rounds[i].cached.map((c, r) => c.rps / rounds[i].bare[r].rps);
    const cpuRatios = rounds[i].cached.map((c, r) => (c.cpuUs && rounds[i].bare[r].cpuUs !== null ? rounds[i].bare[r].cpuUs! / c.cpuUs : null));
    return {
      op: op.name,
      bytes: fs.statSync(files[i]).size,
      ...out,
      ratio: median(ratios)!,
      ratios,
      cpuRatio: cpuRatios.includes(null) ? null : median(cpuRatios as number[]),
      cpuRatios,
      speedup: out.cached.rps / out.uncached.rps,
    };
  });

  const f = (x: Figures) =>
    `${x.rps.toFixed(0).padStart(7)} req/s  p50 ${String(x.p50).padStart(3)} ms  p99 ${String(x.p99).padStart(4)} ms  server CPU ${x.cpuUs === null ? '?' : x.cpuUs.toFixed(1)} µs/req`;
  console.log(`\nload average ${loadBefore.toFixed(2)} at the start, ${os.loadavg()[0].toFixed(2)} at the end`);
  console.log(`response cache: ${CONNECTIONS} connections, ${SECONDS} s per run, ${CLIENTS === 'distinct' ? 'a distinct client address (X-Forwarded-For) per request' : 'one client address'}, bare sends ${BARE_HEADERS === 'api' ? "the API's headers" : 'six headers'}, ${ROUNDS} round(s), autocannon in the parent, servers in child processes (${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version})`);
  for (const r of rows) {
    console.log(`${r.op} (${r.bytes} B)`);
    console.log(`  bare node:http  ${f(r.bare)}`);
    const each = (xs: (number | null)[]) => xs.map((x) => (x === null ? '?' : x.toFixed(2))).join(', ');
    const cpuRatio = r.cpuRatio !== null ? `; CPU per request bare / cached ${r.cpuRatio.toFixed(2)} (${each(r.cpuRatios)})` : '';
    console.log(`  cached          ${f(r.cached)}   ratio ${r.ratio.toFixed(2)} × bare (${each(r.ratios)})${cpuRatio}`);
    console.log(`  cache off       ${f(r.uncached)}   cached is ${r.speedup.toFixed(1)} × this`);
    for (const [label, x] of Object.entries({ bare: r.bare, cached: r.cached, uncached: r.uncached })) {
      if (x.non2xx || x.errors) console.log(`  WARNING ${label}: ${x.non2xx} non-2xx, ${x.errors} errors`);
    }
  }
  console.log(JSON.stringify({ bench: 'cache', connections: CONNECTIONS, seconds: SECONDS, clients: CLIENTS, rows }));
  await recordResults(CLIENTS === 'distinct' ? 'cache' : 'cache-one-client', {
    connections: CONNECTIONS,
    secondsPerRun: SECONDS,
    rounds: ROUNDS,
    // The machine's 1-minute load average as the measuring began and ended (it is shared: other
    // work running beside the bench moves req/s more than CPU per request).
    loadAverage: { start: Math.round(loadBefore * 100) / 100, end: Math.round(os.loadavg()[0] * 100) / 100 },
    bareHeaders: BARE_HEADERS === 'api' ? "the API's own header set, fixed values" : 'six (type, length, Cache-Control, Allow-Origin, ETag, Vary)',
    clientAddresses: CLIENTS === 'distinct' ? 'a distinct X-Forwarded-For per request (TRUST_PROXY=true, contract budget)' : 'one (budget lifted)',
    aim: 'cached/bare ≥ 0.6',
    operations: Object.fromEntries(rows.map((r) => [r.op, {
      bytes: r.bytes,
      bare: { rps: Math.round(r.bare.rps), p50Ms: r.bare.p50, p99Ms: r.bare.p99, serverCpuUsPerRequest: round1(r.bare.cpuUs) },
      cached: { rps: Math.round(r.cached.rps), p50Ms: r.cached.p50, p99Ms: r.cached.p99, serverCpuUsPerRequest: round1(r.cached.cpuUs) },
      uncached: { rps: Math.round(r.uncached.rps), p50Ms: r.uncached.p50, p99Ms: r.uncached.p99, serverCpuUsPerRequest: round1(r.uncached.cpuUs) },
      cachedVsBare: Math.round(r.ratio * 1000) / 1000,
      cachedVsBareRounds: r.ratios.map((x) => Math.round(x * 1000) / 1000),
      cachedVsBareServerCpu: r.cpuRatio === null ? null : Math.round(r.cpuRatio * 1000) / 1000,
      cachedVsBareServerCpuRounds: r.cpuRatios.map((x) => (x === null ? null : Math.round(x * 1000) / 1000)),
      cachedVsUncached: Math.round(r.speedup * 10) / 10,
    }])),
  }, db.pool);
} finally {
  for (const c of children) if (c.exitCode == null) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode == null ? new Promise((r) => c.once('exit', r)) : null)));
  await db.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
