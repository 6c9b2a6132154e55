/**
 * Product images (api-spec ImagePath; issue 18 item 4): GET/HEAD /images/<ab>/<digest>.avif and its
 * `_t` thumbnail, the files workers/images wrote under IMAGE_DIR, served with @fastify/static. A
 * path names its content (src/domain/images.ts), so a file never changes: `Cache-Control: public,
 * max-age=31536000, immutable`, with an ETag and Last-Modified for revalidation. Never counted
 * against the per-IP budget (facades/http/ratelimit.ts budgets /api/v1 and /mcp only).
 *
 * Only paths of the served form are looked up: anything else under /images/ (another name, `..`,
 * an encoded slash, a dot-file such as the worker's temporary files) answers 404 in the contract's
 * Error body without touching the disk, as does a well-formed path whose file is missing.
 */
import type { FastifyInstance } from 'fastify';
import { IMAGE_PREFIX, isServedImagePath } from '../../src/domain/images.js';
import { errorBody } from '../execute.js';
import { registerStaticFiles } from './static-files.js';

/** Cache lifetime of an image: a year, immutable (the path changes whenever the content would). */
export const IMAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** Registers /images/* over `imageDir` (a missing folder answers 404 until the first conversion). */
export async function registerImageFiles(app: FastifyInstance, imageDir: string): Promise<void> {
  await registerStaticFiles(app, {
    root: imageDir,
    createdOnDemand: true,
    prefix: IMAGE_PREFIX,
    cacheControl: IMAGE_CACHE_CONTROL,
    contentType: () => 'image/avif',
    onRequest: async (req, reply) => {
      const p = req.url.split('?')[0];
      if (!isServedImagePath(p)) return reply.code(404).send(errorBody(404, `Not found: ${req.method} ${p}`));
    },
  });
}
