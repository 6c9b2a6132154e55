/**
 * Product image paths (api-spec ImagePath; issue 18 item 4): the one rule from downloaded bytes to
 * the path the API serves, and from a served path to its file under IMAGE_DIR. No I/O here.
 *
 * A source image (the retailer's URL, listing.image_url) is downloaded once by workers/images and
 * converted to a 720 px AVIF and a 200 px thumbnail. Both are named by a digest: the SHA-256 of
 * {@link IMAGE_RECIPE} and the downloaded bytes, so the same bytes at two URLs share one pair of
 * files, and changing the conversion changes every path (the files are served as immutable, so a
 * path must never name two different contents).
 *
 *   digest  ab12…(32 hex)           → ImagePath `/images/ab/12….avif`, thumbnail `/images/ab/12…_t.avif`
 *   file    `<IMAGE_DIR>/ab/12….avif` and `<IMAGE_DIR>/ab/12…_t.avif`
 */
import crypto from 'node:crypto';
import path from 'node:path';

/** URL prefix of the served images (facades/http/images.ts). */
export const IMAGE_PREFIX = '/images/';

/** Longest side of the main image, in pixels (api-spec: a 720 px AVIF). */
export const IMAGE_SIDE = 720;

/** Longest side of the thumbnail, in pixels (api-spec: `_t`, 200 px). */
export const THUMB_SIDE = 200;

/** AVIF quality (sharp `quality`, 1–100) of both sizes. */
export const AVIF_QUALITY = 50;

/**
 * AVIF encoder effort (sharp `effort`, 0–9). 2, not sharp's default 4: measured here on a 1000 px
 * synthetic product photo, effort 4 took 719 ms for the 720 px image and effort 2 took 109 ms for a
 * file 13 % larger (3.8 kB instead of 3.4 kB) — a catalogue's first conversion is hours shorter.
 */
export const AVIF_EFFORT = 2;

/**
 * The conversion, as text hashed into every digest: changing a setting changes this text and so
 * every path, and caches never serve an old file for a new conversion. Bump `v1` for a change the
 * settings do not show (e.g. a new encoder).
 */
export const IMAGE_RECIPE = `avif ${IMAGE_SIDE}+${THUMB_SIDE} inside no-enlarge q${AVIF_QUALITY} e${AVIF_EFFORT} auto-orient v1`;

/** Hex characters of the digest kept in paths (128 bits). */
const DIGEST_HEX = 32;

/** The digest naming the files converted from `bytes` (see the module comment). */
export function imageDigest(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(IMAGE_RECIPE).update('\0').update(bytes).digest('hex').slice(0, DIGEST_HEX);
}

/** The ImagePath of the 720 px AVIF converted under `digest`: `/images/ab/cdef….avif`. */
export function imagePathOf(digest: string): string {
  if (!/^[0-9a-f]{32}$/.test(digest)) throw new RangeError(`not an image digest: ${digest}`);
  return `${IMAGE_PREFIX}${digest.slice(0, 2)}/${digest.slice(2)}.avif`;
}

/** The thumbnail's path of an ImagePath (api-spec: `_t` inserted before `.avif`). */
export function thumbnailPathOf(imagePath: string): string {
  if (!imagePath.endsWith('.avif')) throw new RangeError(`not an ImagePath: ${imagePath}`);
  return `${imagePath.slice(0, -'.avif'.length)}_t.avif`;
}

/** Whether `p` is a path this module produces (main image or thumbnail). */
export function isServedImagePath(p: string): boolean {
  return /^\/images\/[0-9a-f]{2}\/[0-9a-f]{30}(_t)?\.avif$/.test(p);
}

/**
 * The file under `dir` (IMAGE_DIR) holding the served path `p` (main image or thumbnail).
 * @throws RangeError for anything but a path of {@link isServedImagePath}'s form.
 */
export function imageFileOf(dir: string, p: string): string {
  if (!isServedImagePath(p)) throw new RangeError(`not a served image path: ${p}`);
  return path.join(dir, p.slice(IMAGE_PREFIX.length));
}
