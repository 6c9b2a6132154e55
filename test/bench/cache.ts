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
 * of load at BENCH_CACHE_CONNECTIONS (default 32) connections. Prints req/s, p50 and p99 latency and
 * the ratio cached / bare (the aim: ≥ 0.5), and one JSON line with every figure.
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
const children: ChildProcess[] = [];

/** Starts a cache-server.ts child and resolves its port. */
async function startChild(args: string[]): Promise<number> {
  const file = new URL('./cache-server.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  return new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`cache-server.ts ${args[0]} exited with ${code}`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** One load run: `seconds` of GETs of `url` over `CONNECTIONS` connections. */
async function load(url: string, seconds: number): Promise<Figures> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1 });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

const db = await createTestDatabase('bench_cache');
try {
  await seedRealPrices(db.pool);
  const listing = (await db.pool.query<{ id: number }>("SELECT id FROM listing WHERE external_id = '42246'")).rows[0].id;
  const ops = [
    { name: 'get_listing', path: `/api/v1/listings/${listing}` },
    { name: 'search_products', path: '/api/v1/search?q=beef' },
    { name: 'list_stores', path: '/api/v1/stores' },
  ];
  const cached = await startChild(['app', db.url, String(64 * 1024 * 1024)]);
  const uncached = await startChild(['app', db.url, '0']);
  // The bytes the API answers, for the anchor to send.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nzgp-bench-cache-'));
  const files: string[] = [];
  for (const [i, op] of ops.entries()) {
    const res = await fetch(`http://127.0.0.1:${cached}${op.path}`, { headers: { 'accept-encoding': 'identity' } });
    if (res.status !== 200) throw new Error(`${op.path} answered ${res.status}`);
    const file = path.join(dir, `${i}.json`);
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    files.push(file);
  }
  const bare = await startChild(['bare', ...files]);

  const rows = [];
  for (const [i, op] of ops.entries()) {
    const bytes = fs.statSync(files[i]).size;
    const urls = { bare: `http://127.0.0.1:${bare}/${i}`, cached: `http://127.0.0.1:${cached}${op.path}`, uncached: `http://127.0.0.1:${uncached}${op.path}` };
    const run = async (url: string) => {
      await load(url, 1); // warm-up (JIT, connections, the cache's first miss)
      return load(url, SECONDS);
    };
    const out = { bare: await run(urls.bare), cached: await run(urls.cached), uncached: await run(urls.uncached) };
    rows.push({ op: op.name, bytes, ...out, ratio: out.cached.rps / out.bare.rps, speedup: out.cached.rps / out.uncached.rps });
  }

  const f = (x: Figures) => `${x.rps.toFixed(0).padStart(7)} req/s  p50 ${String(x.p50).padStart(3)} ms  p99 ${String(x.p99).padStart(4)} ms`;
  console.log(`\nresponse cache: ${CONNECTIONS} connections, ${SECONDS} s per run, autocannon in the parent, servers in child processes (${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version})`);
  for (const r of rows) {
    console.log(`${r.op} (${r.bytes} B)`);
    console.log(`  bare node:http  ${f(r.bare)}`);
    console.log(`  cached          ${f(r.cached)}   ratio ${r.ratio.toFixed(2)} × bare`);
    console.log(`  cache off       ${f(r.uncached)}   cached is ${r.speedup.toFixed(1)} × this`);
    for (const [label, x] of Object.entries({ bare: r.bare, cached: r.cached, uncached: r.uncached })) {
      if (x.non2xx || x.errors) console.log(`  WARNING ${label}: ${x.non2xx} non-2xx, ${x.errors} errors`);
    }
  }
  console.log(JSON.stringify({ bench: 'cache', connections: CONNECTIONS, seconds: SECONDS, rows }));
  await recordResults('cache', {
    connections: CONNECTIONS,
    secondsPerRun: SECONDS,
    aim: 'cached/bare ≥ 0.5',
    operations: Object.fromEntries(rows.map((r) => [r.op, {
      bytes: r.bytes,
      bare: { rps: Math.round(r.bare.rps), p50Ms: r.bare.p50, p99Ms: r.bare.p99 },
      cached: { rps: Math.round(r.cached.rps), p50Ms: r.cached.p50, p99Ms: r.cached.p99 },
      uncached: { rps: Math.round(r.uncached.rps), p50Ms: r.uncached.p50, p99Ms: r.uncached.p99 },
      cachedVsBare: Math.round(r.ratio * 1000) / 1000,
      cachedVsUncached: Math.round(r.speedup * 10) / 10,
    }])),
  }, db.pool);
} finally {
  for (const c of children) if (c.exitCode == null) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode == null ? new Promise((r) => c.once('exit', r)) : null)));
  await db.drop();
}
