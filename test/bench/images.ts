/**
 * Image conversion benchmark (`npm run bench:images`), printing figures; nothing here asserts.
 *
 * Generates IMAGES_BENCH_N (default 48) SYNTHETIC product photos with sharp (not real retailer
 * images): 1000 × 1000 JPEGs (quality 85) of random shapes, gradients and text on white, the size
 * and kind of a chain's large product image. Then, on the same bytes in the same run:
 *
 *   anchor  raw copy       the bytes written to disk as they are (the floor of any pipeline)
 *   anchor  decode only    sharp decoding each JPEG to raw pixels (what conversion cannot avoid)
 *   convert                workers/images/convert.ts: the 720 px AVIF and the 200 px thumbnail
 *   end to end             workers/images processNewImages: download from a local HTTP server,
 *                          convert, write atomically and record, in a scratch database on
 *                          the benches' server (test/bench/server.ts: TEST_DATABASE_URL's,
 *                          else a throwaway embedded PostgreSQL; dropped at the end)
 *
 * Each line gives images/s and source MB/s (MB = 10^6 bytes); conversion and end to end also the
 * bytes written. Work runs IMAGES_BENCH_CONCURRENCY at a time (default 4, the worker's default).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { convertImage } from '../../workers/images/convert.js';
import { processNewImages } from '../../workers/images/images.js';
import { prng } from '../helpers/prng.js';
import { benchServer } from './server.js';

await benchServer();
// test/helpers/db.ts reads TEST_DATABASE_URL as it is imported: only once the server is known.
const { createTestDatabase } = await import('../helpers/db.js');

const N = Number(process.env.IMAGES_BENCH_N ?? 48);
const CONCURRENCY = Number(process.env.IMAGES_BENCH_CONCURRENCY ?? 4);

/** Runs `fn` over `items`, `CONCURRENCY` at a time; returns seconds. */
async function timed<T>(items: readonly T[], fn: (item: T, i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  const work = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, work));
  return (performance.now() - t0) / 1000;
}

function line(label: string, count: number, bytes: number, seconds: number, extra = ''): void {
  console.log(
    `${label.padEnd(14)} ${String(count).padStart(4)} images in ${seconds.toFixed(2).padStart(6)} s: ` +
      `${(count / seconds).toFixed(1).padStart(7)} images/s, ${(bytes / 1e6 / seconds).toFixed(2).padStart(7)} MB/s of source${extra}`,
  );
}

/** One synthetic product photo (see the module comment). */
async function syntheticPhoto(rand: () => number, i: number): Promise<Buffer> {
  const c = () => Math.floor(rand() * 256);
  const shapes = Array.from({ length: 12 }, () => {
    const x = Math.floor(rand() * 900);
    const y = Math.floor(rand() * 900);
    const s = 40 + Math.floor(rand() * 300);
    return rand() < 0.5
      ? `<circle cx="${x}" cy="${y}" r="${s / 2}" fill="rgb(${c()},${c()},${c()})" fill-opacity="0.8"/>`
      : `<rect x="${x}" y="${y}" width="${s}" height="${s * 1.4}" rx="20" fill="url(#g)" />`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">
    <defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="rgb(${c()},${c()},${c()})"/><stop offset="1" stop-color="rgb(${c()},${c()},${c()})"/></linearGradient></defs>
    <rect width="1000" height="1000" fill="white"/>${shapes}
    <text x="80" y="520" font-size="96" font-family="sans-serif" fill="rgb(${c()},${c()},${c()})">Synthetic ${i}</text></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
}

async function main(): Promise<void> {
  console.log(
    `images bench (SYNTHETIC photos, not retailer images): ${N} × 1000×1000 JPEG, ${CONCURRENCY} at a time; ` +
      `${os.cpus().length} CPUs, libvips ${sharp.versions.vips}, sharp ${sharp.versions.sharp}, sharp threads ${sharp.concurrency()}`,
  );
  const rand = prng(20261130);
  const photos: Buffer[] = [];
  for (let i = 0; i < N; i++) photos.push(await syntheticPhoto(rand, i));
  const total = photos.reduce((s, b) => s + b.length, 0);
  console.log(`sources: ${(total / 1e6).toFixed(2)} MB, ${Math.round(total / N / 1000)} kB an image`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'images-bench-'));
  try {
    const copyDir = path.join(tmp, 'copy');
    fs.mkdirSync(copyDir);
    line('raw copy', N, total, await timed(photos, (b, i) => fs.promises.writeFile(path.join(copyDir, `${i}.jpg`), b)), '  (anchor)');
    line('decode only', N, total, await timed(photos, (b) => sharp(b).raw().toBuffer()), '  (anchor)');
    let written = 0;
    const convertS = await timed(photos, async (b) => {
      const c = await convertImage(b);
      written += c.main.data.length + c.thumb.data.length;
    });
    line('convert', N, total, convertS, `; ${Math.round(written / N / 1000)} kB written an image (720 + 200)`);

    // End to end: a local HTTP origin, a scratch database, the worker as the CLI runs it.
    const server = http.createServer((req, res) => {
      const i = Number((req.url ?? '').replace(/\D/g, ''));
      const body = photos[i];
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const db = await createTestDatabase('bench_images');
    try {
      await db.pool.query(
        `INSERT INTO listing (retailer_id, external_id, name, first_seen, image_url)
         SELECT r.id, 'SYN' || g, 'Synthetic item ' || g, '2026-01-05', $2 || '/p/' || g || '.jpg'
         FROM retailer r, generate_series(0, $1::int - 1) g WHERE r.slug = 'warehouse'`,
        [N, origin],
      );
      const r = await processNewImages(db.pool, { dir: path.join(tmp, 'images'), concurrency: CONCURRENCY, progress: false });
      line('end to end', r.converted, r.sourceBytes, r.ms / 1000, `; ${r.listings} listings linked, ${r.failed} failed`);
    } finally {
      await db.drop();
      server.close();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
