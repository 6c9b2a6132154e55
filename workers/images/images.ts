/**
 * The images worker (issue 18 item 4; DESIGN "Collectors"; api-spec ImagePath): turns the image
 * URLs collectors saw (listing.image_url) into the ImagePaths the API serves (listing.image,
 * product.image).
 *
 * 1. New source URLs — on a listing, with no row in `image`, or a failed row whose `retry_at` has
 *    come — are downloaded once each (./fetch.ts: undici, timeout, size cap, User-Agent, a few at a
 *    time), converted with sharp (./convert.ts) to a 720 px AVIF and a 200 px `_t` thumbnail, and
 *    written under IMAGE_DIR at the content-addressed paths of src/domain/images.ts (temporary
 *    file + rename, thumbnail first, so a present main file always has its thumbnail). Bytes
 *    already converted (the same image at another URL) reuse the files.
 * 2. Each outcome is recorded in `image` at once (a killed run keeps what it did): the path and
 *    sizes, or the error. A broken, non-image, huge, missing or slow image is logged and skipped,
 *    never thrown: it is tried again after {@link retryDays} (1 day for a timeout, a network error,
 *    408/429/5xx; 7 days for the rest, e.g. 404 or not an image), doubling with each failure, at most
 *    60 days.
 * 3. Listings whose source URL is converted get its path in listing.image (the one place the
 *    graph reads it from: every shape's `image` follows), and their products' attributes are
 *    recomputed by the matcher's own rule (workers/match/store.ts refreshProducts), under the
 *    matching lock. A listing whose new URL failed keeps its previous image.
 *
 * One run at a time per database (an advisory lock; a second run waits). Called by
 * `npm run worker -- images` and by the collector runner after a collection.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import sharp from 'sharp';
import { imageDigest, imageFileOf, imagePathOf, thumbnailPathOf } from '../../src/domain/images.js';
import { inTransaction } from '../../src/db/transaction.js';
import { lockSession, unlockSession } from '../../src/db/locks.js';
import { lockMatching, refreshProducts } from '../match/store.js';
import { makeProgress } from '../progress.js';
import { convertImage, DEFAULT_MAX_PIXELS } from './convert.js';
import { createImageAgent, downloadImage, IMAGE_USER_AGENT, ImageError } from './fetch.js';


/** Default size cap of one download: 10 MB. */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/** Most failures listed in a report (all are logged and recorded). */
const REPORTED_FAILURES = 100;

/** How a failure is logged. */
export interface ImageLogger {
  /** One skipped image: its URL and why. */
  warn(failure: ImageFailure): void;
}

/** Options of {@link processNewImages}. */
export interface ProcessImagesOptions {
  /** Folder of the converted files (IMAGE_DIR). */
  dir: string;
  /** Downloads and conversions at a time (default 4). */
  concurrency?: number;
  /** Longest time for one whole download, ms (default 15,000). */
  timeoutMs?: number;
  /** Largest download, bytes (default {@link DEFAULT_MAX_BYTES}). */
  maxBytes?: number;
  /** Largest source image, width × height (default 50 megapixels). */
  maxPixels?: number;
  /** User-Agent (default fetch.ts IMAGE_USER_AGENT). */
  userAgent?: string;
  /**
   * Download from this origin (`http(s)://host[:port]`) instead of each source URL's own scheme and
   * host, path and query kept (a replay server standing in for the retailers' CDNs: `--image-origin`,
   * COLLECT_IMAGE_ORIGIN). Download time only: the `image` row and listing.image_url keep the
   * retailer's URL.
   */
  imageOrigin?: string;
  /** At most this many source URLs this run (default: all pending). */
  limit?: number;
  /** Progress bar on stderr (default: when stderr is a terminal). */
  progress?: boolean;
  /** Where skipped images are reported (default: one `image skipped: …` line on stderr). */
  logger?: ImageLogger;
}

/** One skipped image. */
export interface ImageFailure {
  url: string;
  kind: ImageError['kind'];
  error: string;
  /** Whether it is retried after a day rather than a week. */
  transient: boolean;
}

/** What a run did. */
export interface ImageReport {
  /** Source URLs due this run (new, or failed and due again). */
  due: number;
  /** Converted and written this run. */
  converted: number;
  /** Downloaded, but the same bytes were already converted (files reused). */
  reused: number;
  /** Skipped (logged and recorded; retried later). */
  failed: number;
  /** Listings whose `image` changed. */
  listings: number;
  /** Products whose attributes changed with them. */
  products: number;
  /** Those listings' ids (e.g. for a search index queue). */
  listingIds: number[];
  /** Bytes downloaded. */
  sourceBytes: number;
  /** Bytes written (both sizes). */
  writtenBytes: number;
  /** Wall time of the run, ms. */
  ms: number;
  /** The first failures (at most 100). */
  failures: ImageFailure[];
}

/**
 * Days until a failed image is tried again: 1 (transient) or 7 (otherwise), doubled for each earlier
 * failure (`attempts` counts them, this one included), at most 60.
 */
export function retryDays(transient: boolean, attempts: number): number {
  return Math.min(60, (transient ? 1 : 7) * 2 ** Math.max(0, attempts - 1));
}

const defaultLogger: ImageLogger = {
  warn: (f) => console.error(`image skipped: ${f.url}: ${f.error}`),
};

/**
 * Downloads, converts and records every due source image, then links the converted paths to
 * listings and products (module comment).
 * @throws only for the database or the image folder (unwritable, full); never for an image.
 */
export async function processNewImages(pool: pg.Pool, opts: ProcessImagesOptions): Promise<ImageReport> {
  const t0 = performance.now();
  const concurrency = Math.max(1, opts.concurrency ?? 4);
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const logger = opts.logger ?? defaultLogger;
  const report: ImageReport = {
    due: 0, converted: 0, reused: 0, failed: 0, listings: 0, products: 0, listingIds: [], sourceBytes: 0, writtenBytes: 0, ms: 0, failures: [],
  };
  const lock = await pool.connect();
  const agent = createImageAgent(concurrency, timeoutMs);
  try {
    await lockSession(lock, 'images', 'wait');
    const due = await dueUrls(pool, opts.limit);
    report.due = due.length;
    const bar = makeProgress(opts.progress, 'images', due.length);
    let next = 0;
    const work = async () => {
      while (next < due.length) {
        const url = due[next++];
        await processOne(pool, url, { ...opts, timeoutMs, agent, logger }, report);
        bar.increment();
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, work));
    } finally {
      bar.stop();
    }
    await linkListings(pool, report);
  } finally {
    lock.release(!(await unlockSession(lock, 'images')));
    await agent.close();
  }
  report.ms = Math.round(performance.now() - t0);
  return report;
}

/** Source URLs on listings with no `image` row, or a failed one whose retry time has come. */
async function dueUrls(pool: pg.Pool, limit?: number): Promise<string[]> {
  const { rows } = await pool.query<{ url: string }>(
    `SELECT DISTINCT l.image_url AS url FROM listing l LEFT JOIN image i ON i.source_url = l.image_url
     WHERE l.image_url IS NOT NULL AND (i.source_url IS NULL OR (i.path IS NULL AND i.retry_at <= now()))
     ORDER BY 1 ${limit !== undefined ? 'LIMIT $1' : ''}`,
    limit !== undefined ? [limit] : [],
  );
  return rows.map((r) => r.url);
}

async function processOne(
  pool: pg.Pool,
  url: string,
  opts: ProcessImagesOptions & { timeoutMs: number; agent: ReturnType<typeof createImageAgent>; logger: ImageLogger },
  report: ImageReport,
): Promise<void> {
  let bytes: Buffer;
  let converted: Awaited<ReturnType<typeof convertImage>> | null = null;
  let digest: string;
  try {
    bytes = await downloadImage(opts.imageOrigin ? withOrigin(url, opts.imageOrigin) : url, {
      timeoutMs: opts.timeoutMs, maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES, userAgent: opts.userAgent ?? IMAGE_USER_AGENT, dispatcher: opts.agent,
    });
    report.sourceBytes += bytes.length;
    digest = imageDigest(bytes);
    if (!(await filesExist(opts.dir, imagePathOf(digest)))) converted = await convertImage(bytes, opts.maxPixels ?? DEFAULT_MAX_PIXELS);
  } catch (e) {
    if (!(e instanceof ImageError)) throw e;
    const failure: ImageFailure = { url, kind: e.kind, error: `${e.kind}: ${e.message}`, transient: e.transient };
    await recordFailure(pool, failure);
    report.failed++;
    if (report.failures.length < REPORTED_FAILURES) report.failures.push(failure);
    opts.logger.warn(failure);
    return;
  }
  const imagePath = imagePathOf(digest);
  const mainFile = imageFileOf(opts.dir, imagePath);
  const thumbFile = imageFileOf(opts.dir, thumbnailPathOf(imagePath));
  let sizes: { width: number; height: number; bytes: number; thumbBytes: number };
  if (converted) {
    await fs.mkdir(path.dirname(mainFile), { recursive: true });
    await writeAtomically(thumbFile, converted.thumb.data);
    await writeAtomically(mainFile, converted.main.data);
    report.converted++;
    report.writtenBytes += converted.main.data.length + converted.thumb.data.length;
    sizes = { width: converted.main.width, height: converted.main.height, bytes: converted.main.data.length, thumbBytes: converted.thumb.data.length };
  } else {
    report.reused++;
    const [meta, main, thumb] = await Promise.all([sharp(mainFile).metadata(), fs.stat(mainFile), fs.stat(thumbFile)]);
    sizes = { width: meta.width ?? 0, height: meta.height ?? 0, bytes: main.size, thumbBytes: thumb.size };
  }
  await pool.query(
    `INSERT INTO image (source_url, path, digest, width, height, bytes, thumb_bytes, source_bytes, fetched_at, error, attempts, retry_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), NULL, 1, NULL)
     ON CONFLICT (source_url) DO UPDATE SET path = EXCLUDED.path, digest = EXCLUDED.digest, width = EXCLUDED.width,
       height = EXCLUDED.height, bytes = EXCLUDED.bytes, thumb_bytes = EXCLUDED.thumb_bytes, source_bytes = EXCLUDED.source_bytes,
       fetched_at = now(), error = NULL, attempts = image.attempts + 1, retry_at = NULL`,
    [url, imagePath, digest, sizes.width, sizes.height, sizes.bytes, sizes.thumbBytes, bytes.length],
  );
}

/**
 * `url` with its scheme and host (and port) replaced by `origin`'s, path and query kept; a URL that
 * does not parse is returned as is (the download then fails as a bad URL).
 */
export function withOrigin(url: string, origin: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const o = new URL(origin);
  u.protocol = o.protocol;
  u.host = o.host;
  return u.toString();
}

/** Whether both files of `imagePath` are already on disk (converted from the same bytes before). */
async function filesExist(dir: string, imagePath: string): Promise<boolean> {
  const present = async (f: string) => fs.access(f).then(() => true, () => false);
  return (await present(imageFileOf(dir, imagePath))) && (await present(imageFileOf(dir, thumbnailPathOf(imagePath))));
}

/** Records a failure: attempts counted, retried after {@link retryDays}. */
async function recordFailure(pool: pg.Pool, f: ImageFailure): Promise<void> {
  const base = retryDays(f.transient, 1);
  await pool.query(
    `INSERT INTO image (source_url, fetched_at, error, attempts, retry_at) VALUES ($1, now(), $2, 1, now() + make_interval(days => $3::int))
     ON CONFLICT (source_url) DO UPDATE SET error = EXCLUDED.error, fetched_at = now(), attempts = image.attempts + 1,
       retry_at = now() + make_interval(days => least(60, $3::int * power(2, image.attempts))::int)
     WHERE image.path IS NULL`,
    [f.url, f.error.slice(0, 1000), base],
  );
}

/**
 * Writes `data` to `file` atomically: a temporary dot-file in the same folder (never served:
 * dot-files are denied), then a rename over the final name.
 */
async function writeAtomically(file: string, data: Buffer): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  try {
    await fs.writeFile(tmp, data, { flag: 'wx', mode: 0o644 });
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
}

/**
 * Sets listing.image to the converted path of its source URL where it differs, and recomputes the
 * attributes of those listings' products (matching lock held, one transaction).
 */
async function linkListings(pool: pg.Pool, report: ImageReport): Promise<void> {
  await inTransaction(pool, async (tx) => {
    await lockMatching(tx);
    const { rows } = await tx.query<{ id: number; product_id: number | null }>(
      `UPDATE listing l SET image = i.path FROM image i
       WHERE i.source_url = l.image_url AND i.path IS NOT NULL AND l.image IS DISTINCT FROM i.path
       RETURNING l.id, l.product_id`,
    );
    report.listings = rows.length;
    report.listingIds = rows.map((r) => r.id).sort((a, b) => a - b);
    const products = [...new Set(rows.flatMap((r) => (r.product_id === null ? [] : [r.product_id])))];
    if (products.length > 0) report.products = (await refreshProducts(tx, products)).updated.length;
  });
}
